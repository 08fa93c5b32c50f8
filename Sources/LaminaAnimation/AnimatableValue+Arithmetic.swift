import Foundation
import LaminaGeometry

// The arithmetic animations need on values: interpolation (with extrapolation for springs
// and overshooting Béziers), addition (additive animations, `by`), subtraction (`to − by`),
// weighted sums (Catmull-Rom, springs with a velocity, cumulative repeats) and a distance
// (paced keyframes). Colors are combined premultiplied, in sRGB-encoded space. Transforms
// interpolate by decomposition; their "addition" is concatenation.

extension AnimatableValue {
    /// The value a fraction `t` of the way from `self` to `other`; `t` outside 0…1
    /// extrapolates. Values that cannot be interpolated continuously (different kinds, list
    /// counts or path structures) switch discretely at t = 0.5.
    public func interpolated(to other: AnimatableValue, _ t: Double) -> AnimatableValue {
        // One switch on self, then a single pattern on other: a switch over the tuple of two
        // 129-byte enums copies them once per pattern and dominated evaluation time.
        switch self {
        case .double(let a): if case .double(let b) = other { return .double(a + (b - a) * t) }
        case .point(let a): if case .point(let b) = other { return .point(a.lerp(to: b, t)) }
        case .size(let a): if case .size(let b) = other { return .size(lerp(a, b, t)) }
        case .rect(let a):
            if case .rect(let b) = other {
                return .rect(Rect(origin: a.origin.lerp(to: b.origin, t), size: lerp(a.size, b.size, t)))
            }
        case .color(let a): if case .color(let b) = other { return .color(lerp(a, b, t)) }
        case .transform(let a): if case .transform(let b) = other { return .transform(a.interpolated(to: b, t)) }
        case .doubles(let a):
            if case .doubles(let b) = other, a.count == b.count { return .doubles(zip(a, b).map { $0 + ($1 - $0) * t }) }
        case .colors(let a):
            if case .colors(let b) = other, a.count == b.count { return .colors(zip(a, b).map { lerp($0, $1, t) }) }
        case .path(let a):
            if case .path(let b) = other, a.hasSameStructure(as: b) {
                return .path(Path(zip(a.elements, b.elements).map { lerp($0, $1, t) }))
            }
        }
        return t < 0.5 ? self : other
    }

    /// `self + other`: component-wise sums; for transforms `self.concatenating(other)`
    /// (self applies first, as CSS's additive composition appends). Incompatible values
    /// give `self`.
    public func adding(_ other: AnimatableValue) -> AnimatableValue {
        if case .double(let a) = self, case .double(let b) = other { return .double(a + b) }
        if case .transform(let a) = self, case .transform(let b) = other { return .transform(a.concatenating(b)) }
        return AnimatableValue.weightedSum(self, 1, other, 1, self, 0, self, 0) ?? self
    }

    /// The value `v` with `v.adding(other) == self`, or nil when none exists (incompatible
    /// values, a singular transform).
    public func subtracting(_ other: AnimatableValue) -> AnimatableValue? {
        if case .transform(let a) = self, case .transform(let b) = other {
            guard let inv = b.inverted else { return nil }
            return .transform(a.concatenating(inv))
        }
        return AnimatableValue.weightedSum(self, 1, other, -1, self, 0, self, 0)
    }

    /// `a·wa + b·wb + c·wc + d·wd` for kinds that form a vector space (all but transforms;
    /// lists and paths when their shapes match); nil otherwise. Colors are summed
    /// premultiplied. Allocates nothing for fixed-size kinds.
    public static func weightedSum(_ a: AnimatableValue, _ wa: Double, _ b: AnimatableValue, _ wb: Double,
                                   _ c: AnimatableValue, _ wc: Double, _ d: AnimatableValue, _ wd: Double) -> AnimatableValue? {
        switch a {
        case .double(let a):
            guard case .double(let b) = b, case .double(let c) = c, case .double(let d) = d else { return nil }
            return .double(a * wa + b * wb + c * wc + d * wd)
        case .point(let a):
            guard case .point(let b) = b, case .point(let c) = c, case .point(let d) = d else { return nil }
            return .point(sum(a, wa, b, wb, c, wc, d, wd))
        case .size(let a):
            guard case .size(let b) = b, case .size(let c) = c, case .size(let d) = d else { return nil }
            let p = sum(Point(a.width, a.height), wa, Point(b.width, b.height), wb,
                        Point(c.width, c.height), wc, Point(d.width, d.height), wd)
            return .size(Size(p.x, p.y))
        case .rect(let a):
            guard case .rect(let b) = b, case .rect(let c) = c, case .rect(let d) = d else { return nil }
            let o = sum(a.origin, wa, b.origin, wb, c.origin, wc, d.origin, wd)
            let s = sum(Point(a.size.width, a.size.height), wa, Point(b.size.width, b.size.height), wb,
                        Point(c.size.width, c.size.height), wc, Point(d.size.width, d.size.height), wd)
            return .rect(Rect(o.x, o.y, s.x, s.y))
        case .color(let a):
            guard case .color(let b) = b, case .color(let c) = c, case .color(let d) = d else { return nil }
            return .color(sum(a, wa, b, wb, c, wc, d, wd))
        case .transform:
            return nil
        case .doubles(let a):
            guard case .doubles(let b) = b, case .doubles(let c) = c, case .doubles(let d) = d,
                  a.count == b.count, a.count == c.count, a.count == d.count else { return nil }
            return .doubles((0..<a.count).map { a[$0] * wa + b[$0] * wb + c[$0] * wc + d[$0] * wd })
        case .colors(let a):
            guard case .colors(let b) = b, case .colors(let c) = c, case .colors(let d) = d,
                  a.count == b.count, a.count == c.count, a.count == d.count else { return nil }
            return .colors((0..<a.count).map { sum(a[$0], wa, b[$0], wb, c[$0], wc, d[$0], wd) })
        case .path(let a):
            guard case .path(let b) = b, case .path(let c) = c, case .path(let d) = d,
                  a.hasSameStructure(as: b), a.hasSameStructure(as: c), a.hasSameStructure(as: d) else { return nil }
            var out: [Path.Element] = []
            out.reserveCapacity(a.elements.count)
            for i in a.elements.indices {
                out.append(sum(a.elements[i], wa, b.elements[i], wb, c.elements[i], wc, d.elements[i], wd))
            }
            return .path(Path(out))
        }
    }

    /// A distance between two values, for paced keyframes: Euclidean over the components
    /// (premultiplied for colors; translation, then the rotation angle in radians, for
    /// transforms; end points for paths). Incompatible values are 1 apart.
    public func distance(to other: AnimatableValue) -> Double {
        switch (self, other) {
        case (.double(let a), .double(let b)): return abs(b - a)
        case (.point(let a), .point(let b)): return a.distance(to: b)
        case (.size(let a), .size(let b)): return hypot(b.width - a.width, b.height - a.height)
        case (.rect(let a), .rect(let b)):
            let dx = b.origin.x - a.origin.x, dy = b.origin.y - a.origin.y
            let dw = b.size.width - a.size.width, dh = b.size.height - a.size.height
            return (dx * dx + dy * dy + dw * dw + dh * dh).squareRoot()
        case (.color(let a), .color(let b)):
            let p = a.premultiplied, q = b.premultiplied
            let d0 = q.0 - p.0, d1 = q.1 - p.1, d2 = q.2 - p.2, d3 = q.3 - p.3
            return (d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3).squareRoot()
        case (.transform(let a), .transform(let b)):
            guard let da = a.decomposed(), let db = b.decomposed() else { return a == b ? 0 : 1 }
            let dt = (db.translation - da.translation).length
            let dot = min(1, abs(da.rotation.dot(db.rotation)))
            let angle = 2 * acos(dot)
            let ds = (db.scale - da.scale).length
            return (dt * dt + angle * angle + ds * ds).squareRoot()
        case (.doubles(let a), .doubles(let b)) where a.count == b.count:
            return zip(a, b).reduce(0) { $0 + ($1.1 - $1.0) * ($1.1 - $1.0) }.squareRoot()
        case (.colors(let a), .colors(let b)) where a.count == b.count:
            return zip(a, b).reduce(0) { acc, pair in
                let d = AnimatableValue.color(pair.0).distance(to: .color(pair.1)); return acc + d * d
            }.squareRoot()
        case (.path(let a), .path(let b)) where a.hasSameStructure(as: b):
            var s = 0.0
            for (x, y) in zip(a.elements, b.elements) {
                if let p = x.endPoint, let q = y.endPoint { s += p.distance(to: q) }
            }
            return s
        default:
            return self == other ? 0 : 1
        }
    }
}

// MARK: - Component helpers

@inline(__always) private func lerp(_ a: Size, _ b: Size, _ t: Double) -> Size {
    Size(a.width + (b.width - a.width) * t, a.height + (b.height - a.height) * t)
}

/// Premultiplied interpolation in sRGB-encoded space.
@inline(__always) private func lerp(_ a: Color, _ b: Color, _ t: Double) -> Color {
    let p = a.premultiplied, q = b.premultiplied
    return Color.fromPremultiplied(p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t,
                                   p.2 + (q.2 - p.2) * t, p.3 + (q.3 - p.3) * t)
}

private func lerp(_ a: Path.Element, _ b: Path.Element, _ t: Double) -> Path.Element {
    switch (a, b) {
    case (.move(let p), .move(let q)): .move(p.lerp(to: q, t))
    case (.line(let p), .line(let q)): .line(p.lerp(to: q, t))
    case (.quad(let p1, let p2), .quad(let q1, let q2)): .quad(p1.lerp(to: q1, t), p2.lerp(to: q2, t))
    case (.cubic(let p1, let p2, let p3), .cubic(let q1, let q2, let q3)):
        .cubic(p1.lerp(to: q1, t), p2.lerp(to: q2, t), p3.lerp(to: q3, t))
    default: t < 0.5 ? a : b
    }
}

@inline(__always) private func sum(_ a: Point, _ wa: Double, _ b: Point, _ wb: Double,
                                   _ c: Point, _ wc: Double, _ d: Point, _ wd: Double) -> Point {
    Point(a.x * wa + b.x * wb + c.x * wc + d.x * wd, a.y * wa + b.y * wb + c.y * wc + d.y * wd)
}

@inline(__always) private func sum(_ a: Color, _ wa: Double, _ b: Color, _ wb: Double,
                                   _ c: Color, _ wc: Double, _ d: Color, _ wd: Double) -> Color {
    let p = a.premultiplied, q = b.premultiplied, r = c.premultiplied, s = d.premultiplied
    return Color.fromPremultiplied(p.0 * wa + q.0 * wb + r.0 * wc + s.0 * wd,
                                   p.1 * wa + q.1 * wb + r.1 * wc + s.1 * wd,
                                   p.2 * wa + q.2 * wb + r.2 * wc + s.2 * wd,
                                   p.3 * wa + q.3 * wb + r.3 * wc + s.3 * wd)
}

private func sum(_ a: Path.Element, _ wa: Double, _ b: Path.Element, _ wb: Double,
                 _ c: Path.Element, _ wc: Double, _ d: Path.Element, _ wd: Double) -> Path.Element {
    switch (a, b, c, d) {
    case (.move(let a), .move(let b), .move(let c), .move(let d)): .move(sum(a, wa, b, wb, c, wc, d, wd))
    case (.line(let a), .line(let b), .line(let c), .line(let d)): .line(sum(a, wa, b, wb, c, wc, d, wd))
    case (.quad(let a1, let a2), .quad(let b1, let b2), .quad(let c1, let c2), .quad(let d1, let d2)):
        .quad(sum(a1, wa, b1, wb, c1, wc, d1, wd), sum(a2, wa, b2, wb, c2, wc, d2, wd))
    case (.cubic(let a1, let a2, let a3), .cubic(let b1, let b2, let b3), .cubic(let c1, let c2, let c3),
          .cubic(let d1, let d2, let d3)):
        .cubic(sum(a1, wa, b1, wb, c1, wc, d1, wd), sum(a2, wa, b2, wb, c2, wc, d2, wd),
               sum(a3, wa, b3, wb, c3, wc, d3, wd))
    default: a
    }
}

extension Path.Element {
    var endPoint: Point? {
        switch self {
        case .move(let p), .line(let p): p
        case .quad(_, let p): p
        case .cubic(_, _, let p): p
        case .close: nil
        }
    }
}
