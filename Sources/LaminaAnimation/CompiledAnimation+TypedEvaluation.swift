import LaminaGeometry

// Typed entry points for the render thread: the same evaluation as
// `value(forKeyPathAt:at:underlying:)`, taking and returning the plain value, so that no
// `AnimatableValue` (a 129-byte enum, because of its transform case) is built, copied,
// switched on and destroyed per key path per frame. Each answers nil when the animation
// has no effect at `t` — and also when the key path is not of the entry point's kind (a
// caller's mistake; evaluation never traps).

extension CompiledAnimation {
    /// The value of double key path number `index` at `t` seconds since the animation was
    /// added; see `value(forKeyPathAt:at:underlying:)`. Allocates nothing, takes no lock;
    /// any thread may call it.
    public func doubleValue(forKeyPathAt index: Int, at t: Double, underlying: Double) -> Double? {
        vectorValue(index, .double, t, VectorValue(SIMD4(underlying, 0, 0, 0))).map { $0.lanes.x }
    }

    /// The value of point key path number `index`; see `doubleValue(forKeyPathAt:at:underlying:)`.
    public func pointValue(forKeyPathAt index: Int, at t: Double, underlying: Point) -> Point? {
        vectorValue(index, .point, t, VectorValue(SIMD4(underlying.x, underlying.y, 0, 0)))
            .map { Point($0.lanes.x, $0.lanes.y) }
    }

    /// The value of size key path number `index`; see `doubleValue(forKeyPathAt:at:underlying:)`.
    public func sizeValue(forKeyPathAt index: Int, at t: Double, underlying: Size) -> Size? {
        vectorValue(index, .size, t, VectorValue(SIMD4(underlying.width, underlying.height, 0, 0)))
            .map { Size($0.lanes.x, $0.lanes.y) }
    }

    /// The value of rect key path number `index`; see `doubleValue(forKeyPathAt:at:underlying:)`.
    public func rectValue(forKeyPathAt index: Int, at t: Double, underlying: Rect) -> Rect? {
        let u = underlying
        return vectorValue(index, .rect, t, VectorValue(SIMD4(u.origin.x, u.origin.y, u.size.width, u.size.height)))
            .map { Rect($0.lanes.x, $0.lanes.y, $0.lanes.z, $0.lanes.w) }
    }

    /// The value of color key path number `index`; see `doubleValue(forKeyPathAt:at:underlying:)`.
    public func colorValue(forKeyPathAt index: Int, at t: Double, underlying: Color) -> Color? {
        let c = underlying
        return vectorValue(index, .color, t, VectorValue(SIMD4(c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha)))
            .map { Color.fromPremultiplied($0.lanes.x, $0.lanes.y, $0.lanes.z, $0.lanes.w) }
    }

    /// The value of transform key path number `index`; see
    /// `doubleValue(forKeyPathAt:at:underlying:)`.
    public func transformValue(forKeyPathAt index: Int, at t: Double, underlying: Transform3D) -> Transform3D? {
        guard index >= 0, index < plans.count, !t.isNaN, kinds[index] == .transform else { return nil }
        return evaluateTyped(transformDrivers, plans[index], at: t, underlying: TransformValue(underlying))?.matrix
    }

    /// Evaluates key path number `index` in place: `value` is the underlying value on entry
    /// and the animated value on return. Returns false, leaving `value` as it was, when the
    /// animation has no effect at `t`. The same as `value(forKeyPathAt:at:underlying:)`
    /// without the copies of the result; allocates nothing for fixed-size kinds.
    @discardableResult
    public func apply(forKeyPathAt index: Int, at t: Double, to value: inout AnimatableValue) -> Bool {
        guard index >= 0, index < plans.count, !t.isNaN else { return false }
        let kind = kinds[index], plan = plans[index]
        switch plan.representation {
        case .vector: return apply(vectorDrivers, plan, at: t, kind: kind, to: &value)
        case .transform: return apply(transformDrivers, plan, at: t, kind: kind, to: &value)
        case .generic: return apply(genericDrivers, plan, at: t, kind: kind, to: &value)
        }
    }

    @inline(__always)
    func apply<V: CurveValue>(_ drivers: [Driver<V>], _ plan: Plan, at t: Double, kind: AnimatableValue.Kind,
                              to value: inout AnimatableValue) -> Bool {
        guard let v = evaluateTyped(drivers, plan, at: t, underlying: V(underlying: value, kind: kind)) else { return false }
        value = v.animatableValue(kind)
        return true
    }

    @inline(__always)
    func vectorValue(_ index: Int, _ kind: AnimatableValue.Kind, _ t: Double, _ underlying: VectorValue) -> VectorValue? {
        guard index >= 0, index < plans.count, !t.isNaN, kinds[index] == kind else { return nil }
        return evaluateTyped(vectorDrivers, plans[index], at: t, underlying: underlying)
    }

    /// `evaluate` in the representation, without converting the ends.
    @inline(__always)
    func evaluateTyped<V: CurveValue>(_ drivers: [Driver<V>], _ plan: Plan, at t: Double, underlying: V) -> V? {
        var value = underlying
        var affected = false
        for i in plan.start..<plan.start + plan.count {
            let d = drivers[i]
            guard let state = leafState(d.node, t) else { continue }
            value = sample(d, state, underlying: value)
            affected = true
        }
        return affected ? value : nil
    }
}
