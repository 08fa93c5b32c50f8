import LaminaGeometry

// The render thread's fast path. Most animations on screen are one plain basic animation
// per key path: fixed from and to, no group, not additive, not cumulative, with repeats and
// autoreverse in its timing. For those the whole evaluation is "timing state → eased
// progress → lerp of two constants", so the presentation plan keeps just that (timing
// constants, an easing, two lane vectors) and skips the driver/plan/curve indirections of
// the general path. Every step calls the same code the general path runs
// (`PreparedTiming.state(at:)`, `TimingCurve.progress`, `VectorValue.interpolated`'s
// formula), so the answers are bit for bit the same; a test checks it over random inputs.

/// A timing function prepared for evaluation, as a value the caller can keep (and dedupe:
/// it is Hashable). Plain data, no reference counting; any thread may evaluate it.
public struct Easing: Hashable, Sendable {
    let curve: TimingCurve
    /// A Bézier's table (`BezierTable`), read inline by `progress(in:at:_:)`.
    @usableFromInline let table: BezierTable?

    public init(_ f: TimingFunction) { self.init(curve: TimingCurve(f)) }
    init(curve: TimingCurve) {
        self.curve = curve
        table = curve.form == .bezier ? curve.bezier.table : nil
    }

    /// y = x (the caller may skip `progress`).
    public var isLinear: Bool { curve.isLinear }

    /// The eased progress at `x`, exactly as compiled animations evaluate it.
    public func progress(_ x: Double) -> Double { curve.progress(x) }

    /// `easings[index].progress(x)`, reading the easing in place (a call on a copy would
    /// copy its ~300 bytes first). Inlinable: a tabulated Bézier inside 0…1 is the table's
    /// polynomial in the caller's loop — `CubicBezier.solve` runs the same code, so the
    /// bits are the same — and everything else one call.
    @inlinable @inline(__always)
    public static func progress(in easings: UnsafeBufferPointer<Easing>, at index: Int, _ x: Double) -> Double {
        if x > 0 && x < 1, let table = easings[index].table, let v = table.value(x) { return v }
        return solvedProgress(in: easings, at: index, x)
    }

    @usableFromInline
    static func solvedProgress(in easings: UnsafeBufferPointer<Easing>, at index: Int, _ x: Double) -> Double {
        easings[index].curve.progress(x)
    }
}

/// One key path of a compiled animation that is a plain basic animation (see above): what
/// `CompiledAnimation.plainBasic(forKeyPathAt:)` answers.
public struct PlainBasicCurve: Sendable {
    /// The key path's kind (double, point, size, rect or color).
    public let kind: AnimatableValue.Kind
    /// The animation's timing (root node: local time = seconds since the animation was added).
    public let timing: PreparedTiming
    public let easing: Easing
    /// The ends as four lanes (see `value(progress:)` for their meaning per kind).
    public let from: SIMD4<Double>
    public let to: SIMD4<Double>

    /// The value at eased progress `p`, as lanes: double (x), point (x, y), size (width,
    /// height), rect (x, y, width, height), color (premultiplied r·a, g·a, b·a, a; use
    /// `Color.fromPremultiplied`). The same formula as the general path's interpolation.
    @inlinable @inline(__always)
    public static func value(from: SIMD4<Double>, to: SIMD4<Double>, progress p: Double) -> SIMD4<Double> {
        from + (to - from) * p
    }

    /// The value at `t` seconds since the animation was added, or nil when it has no
    /// effect then — exactly what the typed entry points (`doubleValue(forKeyPathAt:…)`,
    /// `pointValue`, …) answer for this key path, as lanes.
    public func lanes(at t: Double) -> SIMD4<Double>? {
        guard !t.isNaN, let f = timing.fraction(at: t) else { return nil }
        let p = easing.curve.isLinear ? f : easing.curve.progress(f)
        return Self.value(from: from, to: to, progress: p)
    }
}

extension CompiledAnimation {
    /// Key path number `index` as a `PlainBasicCurve` when it is driven by exactly one
    /// plain basic animation (fixed from and to, the root of the animation, not additive,
    /// not cumulative, of a double/point/size/rect/color kind); nil otherwise (the caller
    /// evaluates it through the typed entry points). Call once, at build time.
    public func plainBasic(forKeyPathAt index: Int) -> PlainBasicCurve? {
        guard index >= 0, index < plans.count else { return nil }
        let plan = plans[index]
        guard plan.representation == .vector, plan.count == 1 else { return nil }
        let d = vectorDrivers[plan.start]
        let node = nodes[d.node]
        guard node.parent < 0, !node.additive, !node.cumulative, case .basic(let ref) = d.curve else { return nil }
        return ref.borrow { rule -> PlainBasicCurve? in
            guard rule.mode == .fixed else { return nil }
            return PlainBasicCurve(kind: kinds[index], timing: node.prepared, easing: Easing(curve: node.curve),
                                   from: rule.first.lanes, to: rule.second.lanes)
        }
    }
}
