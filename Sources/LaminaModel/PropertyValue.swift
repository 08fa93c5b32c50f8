import LaminaGeometry

/// A property value as it travels in commits and on the wire.
public enum PropertyValue: Hashable, Sendable {
    case number(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    /// A color; `nil` is "no color" (CA's nil CGColor).
    case color(Color?)
    /// Boxed: the 128 bytes of a matrix would make every value (and every staged
    /// operation and request holding one) that large.
    indirect case transform(Transform3D)
    case bool(Bool)
    case string(String)
    case numbers([Double])
    /// A path; `nil` is "no path" (CA's nil CGPath).
    case path(Path?)
    case colors([Color])
    /// A path template's source (`{"template": "PROGRAM"}`), for `path` and `shadowPath`:
    /// compiled where commits are validated (LayerTemplates.swift).
    case template(String)
    /// A text layer's `string` with styled runs (plain text travels as `.string`).
    case text(StyledText)
    /// A list of filters (`filters`, `backgroundFilters`).
    case filters([LayerFilter])
    /// An emitter layer's cells (`emitterCells`).
    case emitterCells([EmitterCell])

    /// The name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .number: "number"
        case .point: "point"
        case .size: "size"
        case .rect: "rect"
        case .color: "color"
        case .transform: "transform"
        case .bool: "bool"
        case .string: "string"
        case .numbers: "number list"
        case .path: "path"
        case .colors: "color list"
        case .template: "path template"
        case .text: "styled text"
        case .filters: "filter list"
        case .emitterCells: "emitter cell list"
        }
    }

    /// True when every number in the value is finite.
    public var isFinite: Bool {
        switch self {
        case .number(let v): v.isFinite
        case .point(let p): p.isFinite
        case .size(let s): s.width.isFinite && s.height.isFinite
        case .rect(let r): r.origin.isFinite && r.size.width.isFinite && r.size.height.isFinite
        case .color(let c): c?.isFinite ?? true
        case .transform(let t): t.rowMajor.allSatisfy(\.isFinite)
        case .bool, .string, .template: true
        case .numbers(let v): v.allSatisfy(\.isFinite)
        case .path(let p): p?.firstNonFiniteElement == nil
        case .colors(let c): c.allSatisfy(\.isFinite)
        case .filters(let f): f.allSatisfy { $0.radius.isFinite && $0.amount.isFinite && $0.matrix.allSatisfy(\.isFinite) }
        case .emitterCells(let c): EmitterCell.allFinite(c)
        case .text(let t): t.runs.allSatisfy { ($0.fontSize?.isFinite ?? true) && ($0.foregroundColor?.isFinite ?? true) }
        }
    }
}
