import LaminaGeometry

/// A value that a key path can take and an animation can produce.
///
/// Fixed-size kinds (double, point, size, rect, color, transform) are stored inline:
/// producing one allocates nothing. `doubles`, `colors` and `path` hold arrays.
public enum AnimatableValue: Hashable, Sendable {
    case double(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    /// sRGB-encoded, straight alpha; interpolated premultiplied.
    case color(Color)
    /// Interpolated by decomposition (`Transform3D.interpolated(to:_:)`).
    case transform(Transform3D)
    /// A number list (`lineDashPattern`, gradient `locations`, `custom.NAME` lists).
    case doubles([Double])
    /// A color list (gradient `colors`).
    case colors([Color])
    /// A path; interpolated point by point when both element lists have the same shape.
    case path(Path)

    /// The type of a value, which a key path has exactly one of.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case double, point, size, rect, color, transform, doubles, colors, path
    }

    public var kind: Kind {
        switch self {
        case .double: .double
        case .point: .point
        case .size: .size
        case .rect: .rect
        case .color: .color
        case .transform: .transform
        case .doubles: .doubles
        case .colors: .colors
        case .path: .path
        }
    }

    /// The value every kind starts from when nothing else is known (zero, identity, clear,
    /// an empty list or path).
    public static func zero(_ kind: Kind) -> AnimatableValue {
        switch kind {
        case .double: .double(0)
        case .point: .point(.zero)
        case .size: .size(.zero)
        case .rect: .rect(.zero)
        case .color: .color(.clear)
        case .transform: .transform(.identity)
        case .doubles: .doubles([])
        case .colors: .colors([])
        case .path: .path(Path())
        }
    }

    /// True when every number in the value is finite.
    public var isFinite: Bool {
        switch self {
        case .double(let v): v.isFinite
        case .point(let p): p.isFinite
        case .size(let s): s.width.isFinite && s.height.isFinite
        case .rect(let r): r.origin.isFinite && r.size.width.isFinite && r.size.height.isFinite
        case .color(let c): c.isFinite
        case .transform(let t): t.rowMajor.allSatisfy(\.isFinite)
        case .doubles(let v): v.allSatisfy(\.isFinite)
        case .colors(let v): v.allSatisfy(\.isFinite)
        case .path(let p): p.elements.allSatisfy { $0.isFinite }
        }
    }

    /// True when `a` and `b` can be interpolated continuously: same kind and, for lists and
    /// paths, the same count or element structure.
    public func isCompatible(with other: AnimatableValue) -> Bool {
        switch (self, other) {
        case (.doubles(let a), .doubles(let b)): a.count == b.count
        case (.colors(let a), .colors(let b)): a.count == b.count
        case (.path(let a), .path(let b)): a.hasSameStructure(as: b)
        default: kind == other.kind
        }
    }
}

extension Path.Element {
    var isFinite: Bool {
        switch self {
        case .move(let p), .line(let p): p.isFinite
        case .quad(let a, let b): a.isFinite && b.isFinite
        case .cubic(let a, let b, let c): a.isFinite && b.isFinite && c.isFinite
        case .close: true
        }
    }
}

extension Path {
    /// Same element count and the same command at every index.
    func hasSameStructure(as other: Path) -> Bool {
        guard elements.count == other.elements.count else { return false }
        for (a, b) in zip(elements, other.elements) {
            switch (a, b) {
            case (.move, .move), (.line, .line), (.quad, .quad), (.cubic, .cubic), (.close, .close): continue
            default: return false
            }
        }
        return true
    }
}
