import Foundation
import LaminaGeometry

// The compiled curves (`Curves.swift`) are generic over how a value is held during
// evaluation, so that one implementation of the semantics serves three representations,
// each specialized by the optimizer:
//
// - `VectorValue`: double, point, size, rect and color as four `Double` lanes (colors
//   premultiplied). Arithmetic is a few SIMD operations; nothing is copied but 32 bytes.
// - `TransformValue`: a matrix and, for values known at compile time, its decomposition,
//   computed once instead of on every frame.
// - `AnimatableValue` itself for lists and paths (their results are arrays anyway).
//
// A key path's kind picks the representation when the animation is compiled; the public
// `AnimatableValue` is built once, when evaluation returns.

/// What a compiled curve needs from a value representation.
protocol CurveValue: Sendable {
    /// A value validated by the compiler (of the key path's kind).
    init(compiled value: AnimatableValue)
    /// The underlying value passed to evaluation. A value of the wrong kind (a caller's
    /// mistake) counts as the kind's zero for the fixed-size representations.
    init(underlying value: AnimatableValue, kind: AnimatableValue.Kind)
    /// The public value of a key path of `kind`.
    func animatableValue(_ kind: AnimatableValue.Kind) -> AnimatableValue

    func interpolated(to other: Self, _ t: Double) -> Self
    func adding(_ other: Self) -> Self
    static func weightedSum(_ a: Self, _ wa: Double, _ b: Self, _ wb: Double,
                            _ c: Self, _ wc: Double, _ d: Self, _ wd: Double) -> Self?
    func distance(to other: Self) -> Double
    /// A point on a keyframe path (point key paths only).
    static func pathPoint(_ p: Point) -> Self
    /// A cumulative repeat: `v` moved on by `iteration` times start → end.
    static func accumulated(_ v: Self, start: Self, end: Self, iteration: Int) -> Self
}

// MARK: - AnimatableValue (lists and paths)

extension AnimatableValue: CurveValue {
    init(compiled value: AnimatableValue) { self = value }
    init(underlying value: AnimatableValue, kind: AnimatableValue.Kind) { self = value }
    func animatableValue(_ kind: AnimatableValue.Kind) -> AnimatableValue { self }
    static func pathPoint(_ p: Point) -> AnimatableValue { .point(p) }

    static func accumulated(_ v: AnimatableValue, start: AnimatableValue, end: AnimatableValue,
                            iteration: Int) -> AnimatableValue {
        let i = Double(iteration)
        if let sum = weightedSum(v, 1, end, i, start, -i, v, 0) { return sum }
        if case .transform(let a) = start, case .transform(let b) = end, case .transform(let cur) = v {
            return .transform(TransformValue.accumulated(cur, a, b, iteration))
        }
        return v
    }
}

// MARK: - VectorValue (double, point, size, rect, color)

/// A fixed-size value as four lanes: double (x), point (x, y), size (width, height), rect
/// (x, y, width, height), color (premultiplied r·a, g·a, b·a, a). Unused lanes are 0.
struct VectorValue: CurveValue {
    var lanes: SIMD4<Double>

    @inline(__always) init(_ lanes: SIMD4<Double>) { self.lanes = lanes }

    init(compiled value: AnimatableValue) {
        self = VectorValue.lanes(of: value) ?? VectorValue(.zero)
    }

    @inline(__always) init(underlying value: AnimatableValue, kind: AnimatableValue.Kind) {
        if let v = VectorValue.lanes(of: value, kind: kind) { self = v } else { self.init(.zero) }
    }

    /// The lanes of a fixed-size value, or nil for list and path kinds.
    @inline(__always) static func lanes(of value: AnimatableValue) -> VectorValue? {
        switch value {
        case .double(let d): VectorValue(SIMD4(d, 0, 0, 0))
        case .point(let p): VectorValue(SIMD4(p.x, p.y, 0, 0))
        case .size(let s): VectorValue(SIMD4(s.width, s.height, 0, 0))
        case .rect(let r): VectorValue(SIMD4(r.origin.x, r.origin.y, r.size.width, r.size.height))
        case .color(let c): VectorValue(SIMD4(c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha))
        default: nil
        }
    }

    /// The lanes of `value` when it is of `kind`.
    @inline(__always) static func lanes(of value: AnimatableValue, kind: AnimatableValue.Kind) -> VectorValue? {
        switch value {
        case .double(let d): kind == .double ? VectorValue(SIMD4(d, 0, 0, 0)) : nil
        case .point(let p): kind == .point ? VectorValue(SIMD4(p.x, p.y, 0, 0)) : nil
        case .size(let s): kind == .size ? VectorValue(SIMD4(s.width, s.height, 0, 0)) : nil
        case .rect(let r): kind == .rect ? VectorValue(SIMD4(r.origin.x, r.origin.y, r.size.width, r.size.height)) : nil
        case .color(let c):
            kind == .color ? VectorValue(SIMD4(c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha)) : nil
        default: nil
        }
    }

    @inline(__always) func animatableValue(_ kind: AnimatableValue.Kind) -> AnimatableValue {
        switch kind {
        case .point: .point(Point(lanes.x, lanes.y))
        case .size: .size(Size(lanes.x, lanes.y))
        case .rect: .rect(Rect(lanes.x, lanes.y, lanes.z, lanes.w))
        case .color: .color(Color.fromPremultiplied(lanes.x, lanes.y, lanes.z, lanes.w))
        default: .double(lanes.x)
        }
    }

    @inline(__always) func interpolated(to other: VectorValue, _ t: Double) -> VectorValue {
        VectorValue(lanes + (other.lanes - lanes) * t)
    }
    @inline(__always) func adding(_ other: VectorValue) -> VectorValue { VectorValue(lanes + other.lanes) }
    @inline(__always)
    static func weightedSum(_ a: VectorValue, _ wa: Double, _ b: VectorValue, _ wb: Double,
                            _ c: VectorValue, _ wc: Double, _ d: VectorValue, _ wd: Double) -> VectorValue? {
        VectorValue(a.lanes * wa + b.lanes * wb + c.lanes * wc + d.lanes * wd)
    }
    func distance(to other: VectorValue) -> Double {
        let d = other.lanes - lanes
        return (d.x * d.x + d.y * d.y + d.z * d.z + d.w * d.w).squareRoot()
    }
    @inline(__always) static func pathPoint(_ p: Point) -> VectorValue { VectorValue(SIMD4(p.x, p.y, 0, 0)) }
    @inline(__always)
    static func accumulated(_ v: VectorValue, start: VectorValue, end: VectorValue, iteration: Int) -> VectorValue {
        let i = Double(iteration)
        return VectorValue(v.lanes + end.lanes * i - start.lanes * i)
    }
}

// MARK: - TransformValue

/// A transform and, when known, its decomposition (computed once at compile time for the
/// values an animation names; results of evaluation carry none and decompose on demand).
struct TransformValue: CurveValue {
    var matrix: Transform3D
    /// `matrix.decomposed()` when already computed and decomposable.
    var parts: DecomposedTransform3D?

    @inline(__always) init(_ matrix: Transform3D, parts: DecomposedTransform3D? = nil) {
        self.matrix = matrix; self.parts = parts
    }

    init(compiled value: AnimatableValue) {
        guard case .transform(let m) = value else { self.init(.identity); return }
        self.init(m, parts: m.decomposed())
    }

    @inline(__always) init(underlying value: AnimatableValue, kind: AnimatableValue.Kind) {
        if case .transform(let m) = value { self.init(m) } else { self.init(.identity) }
    }

    @inline(__always) func animatableValue(_ kind: AnimatableValue.Kind) -> AnimatableValue { .transform(matrix) }

    /// `Transform3D.interpolated(to:_:)`, without decomposing ends decomposed before.
    @inline(__always) func interpolated(to other: TransformValue, _ t: Double) -> TransformValue {
        if t == 0 { return self }
        if t == 1 { return other }
        guard let a = parts ?? matrix.decomposed(), let b = other.parts ?? other.matrix.decomposed() else {
            return t < 0.5 ? self : other
        }
        return TransformValue(a.interpolated(to: b, t).recomposed())
    }

    @inline(__always) func adding(_ other: TransformValue) -> TransformValue {
        TransformValue(matrix.concatenating(other.matrix))
    }
    /// Transforms have no weighted sum (curves fall back to interpolation).
    @inline(__always)
    static func weightedSum(_ a: TransformValue, _ wa: Double, _ b: TransformValue, _ wb: Double,
                            _ c: TransformValue, _ wc: Double, _ d: TransformValue, _ wd: Double) -> TransformValue? { nil }

    func distance(to other: TransformValue) -> Double {
        AnimatableValue.transform(matrix).distance(to: .transform(other.matrix))
    }
    static func pathPoint(_ p: Point) -> TransformValue { TransformValue(.identity) }

    static func accumulated(_ v: TransformValue, start: TransformValue, end: TransformValue,
                            iteration: Int) -> TransformValue {
        TransformValue(accumulated(v.matrix, start.matrix, end.matrix, iteration))
    }

    /// v·(start⁻¹·end)^i; `v` when start is singular.
    static func accumulated(_ v: Transform3D, _ start: Transform3D, _ end: Transform3D, _ iteration: Int) -> Transform3D {
        guard let inv = start.inverted else { return v }
        return v.concatenating(power(inv.concatenating(end), iteration))
    }
}

/// m^k by squaring (k ≥ 0, capped to keep evaluation bounded).
private func power(_ m: Transform3D, _ k: Int) -> Transform3D {
    var result = Transform3D.identity, base = m, e = min(k, 1 << 20)
    while e > 0 {
        if e & 1 == 1 { result = result.concatenating(base) }
        base = base.concatenating(base)
        e >>= 1
    }
    return result
}
