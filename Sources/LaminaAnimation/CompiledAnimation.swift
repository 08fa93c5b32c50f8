import LaminaGeometry

/// A validated animation in flat form, ready for evaluation: a node per animation (groups
/// included) in an array addressed by index with a parent index, and for every key path
/// the list of leaf nodes that drive it, in application order.
///
/// Evaluation (`value(forKeyPathAt:at:underlying:)`) allocates nothing for double, point,
/// size, rect, color and transform values and takes no lock; the value is immutable and
/// Sendable, so any thread may evaluate it (the render thread does, at frame time).
public struct CompiledAnimation: Sendable {
    /// The key paths this animation drives (several for groups, tracks and phases).
    public let keyPaths: [String]
    /// The value kind of each key path, as the `kindOf` lookup answered.
    public let kinds: [AnimatableValue.Kind]
    /// The root's resolved media timing.
    public var timing: MediaTiming { nodes[0].timing }
    /// The end of the root's active interval, in seconds since the animation was added
    /// (+infinity for infinite repeats or speed 0). At or after it, the tree removes the
    /// animation when `removedOnCompletion` and reports it stopped.
    public let endTime: Double
    public let removedOnCompletion: Bool
    /// False when the client marked the animation non-essential (decorative: a client skips or
    /// shortens it under Reduce Motion; the daemon plays it as any other).
    public let isEssential: Bool

    /// The animations of the tree (groups included), parents before children.
    let nodes: [Node]
    /// plans[keyPathIndex]: where that key path's drivers are, in the array of its kind's
    /// representation (`CurveValue.swift`).
    let plans: [Plan]
    let vectorDrivers: [Driver<VectorValue>]
    let transformDrivers: [Driver<TransformValue>]
    let genericDrivers: [Driver<AnimatableValue>]
    /// Keeps alive the curves that drivers reference without counting (`UncountedRef`).
    let curves: [AnyObject & Sendable]

    /// The timing of one animation of the tree (a group or a leaf): plain data, so reading
    /// it during evaluation is a load, with no reference counting.
    struct Node: Sendable {
        var timing: MediaTiming { didSet { prepared = PreparedTiming(timing) } }
        /// `timing` with its derived constants (what evaluation reads).
        private(set) var prepared: PreparedTiming
        var curve: TimingCurve
        var parent: Int
        var additive: Bool
        var cumulative: Bool

        init(timing: MediaTiming, curve: TimingCurve, parent: Int, additive: Bool, cumulative: Bool) {
            self.timing = timing; prepared = PreparedTiming(timing); self.curve = curve; self.parent = parent
            self.additive = additive; self.cumulative = cumulative
        }
    }

    /// The drivers of one key path: `count` entries from `start` in the driver array of
    /// `representation`, in application order.
    struct Plan: Sendable {
        enum Representation: Sendable {
            /// double, point, size, rect, color: `vectorDrivers`.
            case vector
            /// `transformDrivers`.
            case transform
            /// Lists and paths: `genericDrivers`.
            case generic
        }
        var representation: Representation
        var start: Int
        var count: Int
        /// False when no driver reads the underlying value (fixed ends, not additive): then
        /// evaluation does not even convert it.
        var usesUnderlying: Bool
    }

    /// One leaf animation's curve for one key path (a track or a phase sequence has one per
    /// key path it drives). Plain data: its curve reference is not counted.
    struct Driver<V: CurveValue>: Sendable {
        var node: Int
        var curve: LeafCurve<V>
    }

    /// The index of `keyPath` in `keyPaths`, or nil.
    public func index(of keyPath: String) -> Int? { keyPaths.firstIndex(of: keyPath) }

    /// Whether the animation has ended at `t` seconds since it was added.
    public func isFinished(at t: Double) -> Bool { t >= endTime }

    /// The root's timing state at `t`: before, active or after, and the progress.
    public func state(at t: Double) -> TimingState { nodes[0].timing.state(at: t) }

    /// The animated value of key path number `index` at `t` seconds since the animation was
    /// added, given the underlying value (the model value, or what earlier animations on
    /// the same key path produced): needed by from-less/to-less basics, additive and
    /// cumulative animations, tracks and phases. Nil means no effect at this time (not yet
    /// begun without backwards fill, or ended without forwards fill). Never traps: an
    /// out-of-range index or a non-finite time gives nil.
    public func value(forKeyPathAt index: Int, at t: Double, underlying: AnimatableValue) -> AnimatableValue? {
        guard index >= 0, index < plans.count, !t.isNaN else { return nil }
        let kind = kinds[index], plan = plans[index]
        switch plan.representation {
        case .vector:
            let u = plan.usesUnderlying ? VectorValue(underlying: underlying, kind: kind) : VectorValue(.zero)
            guard let v = evaluateTyped(vectorDrivers, plan, at: t, underlying: u) else { return nil }
            // Built here, in the result (`animatableValue(_:)` would build it, then copy it).
            switch kind {
            case .point: return .point(Point(v.lanes.x, v.lanes.y))
            case .size: return .size(Size(v.lanes.x, v.lanes.y))
            case .rect: return .rect(Rect(v.lanes.x, v.lanes.y, v.lanes.z, v.lanes.w))
            case .color: return .color(Color.fromPremultiplied(v.lanes.x, v.lanes.y, v.lanes.z, v.lanes.w))
            default: return .double(v.lanes.x)
            }
        case .transform: return transformValue(plan, at: t, underlying: underlying)
        case .generic: return genericValue(plan, at: t, underlying: underlying)
        }
    }

    // Out of line, so that the double/point/… path above neither copies the underlying
    // value on entry (as the generic path must) nor carries these paths' stack frames.
    @inline(never)
    func transformValue(_ plan: Plan, at t: Double, underlying: AnimatableValue) -> AnimatableValue? {
        let u = plan.usesUnderlying ? TransformValue(underlying: underlying, kind: .transform) : TransformValue(.identity)
        guard let v = evaluateTyped(transformDrivers, plan, at: t, underlying: u) else { return nil }
        return .transform(v.matrix)
    }

    @inline(never)
    func genericValue(_ plan: Plan, at t: Double, underlying: AnimatableValue) -> AnimatableValue? {
        evaluateTyped(genericDrivers, plan, at: t, underlying: underlying)
    }

    /// Convenience by name (a linear search over `keyPaths`).
    public func value(for keyPath: String, at t: Double, underlying: AnimatableValue) -> AnimatableValue? {
        guard let i = index(of: keyPath) else { return nil }
        return value(forKeyPathAt: i, at: t, underlying: underlying)
    }

    /// The position and velocity (per second of the compositor clock) of a key path driven
    /// by a spring animation at `t` — what `SpringAnimation.retargeting` needs when the tree
    /// replaces a running implicit spring. Nil when no spring drives it with effect then.
    public func springState(forKeyPathAt index: Int, at t: Double, underlying: AnimatableValue) -> SpringState? {
        guard index >= 0, index < plans.count, !t.isNaN else { return nil }
        let kind = kinds[index], plan = plans[index]
        switch plan.representation {
        case .vector: return springState(vectorDrivers, plan, at: t, underlying: underlying, kind: kind)
        case .transform: return springState(transformDrivers, plan, at: t, underlying: underlying, kind: kind)
        case .generic: return springState(genericDrivers, plan, at: t, underlying: underlying, kind: kind)
        }
    }

    // MARK: Evaluation

    /// The node's timing state at root time t, or nil when it (or an ancestor) has no effect.
    @inline(__always)
    func leafState(_ node: Int, _ t: Double) -> TimingState? {
        let parent = nodes[node].parent
        var parentTime = t
        if parent >= 0 {
            guard let ps = groupState(parent, t) else { return nil }
            parentTime = nodes[parent].curve.isLinear
                ? ps.iterationTime : progress(parent, ps.fraction) * nodes[parent].timing.duration
        }
        let s = nodes[node].prepared.state(at: parentTime)
        return s.hasEffect ? s : nil
    }

    /// `leafState` for groups (not inlined: groups are rare and may nest).
    func groupState(_ node: Int, _ t: Double) -> TimingState? { leafState(node, t) }

    /// The leaf's value at its progress `p`, before cumulative and additive composition.
    @inline(__always)
    func curveValue<V: CurveValue>(_ d: Driver<V>, _ state: TimingState, progress p: Double, underlying: V) -> V {
        switch d.curve {
        case .basic(let rule): return rule.borrow { $0.value(p, underlying: underlying) }
        case .keyframes(let k): return k.borrow { $0.value(p) }
        case .spring(let s): return s.borrow { $0.value(state.iterationTime, underlying: underlying) }
        case .track(let track):
            let time = p * nodes[d.node].timing.duration
            return track.borrow { $0.value(time, underlying: underlying) }
        case .phase(let ph):
            let time = p * nodes[d.node].timing.duration
            return ph.borrow { $0.value(time, underlying: underlying) }
        }
    }

    @inline(__always)
    func sample<V: CurveValue>(_ d: Driver<V>, _ state: TimingState, underlying: V) -> V {
        let p = nodes[d.node].curve.isLinear ? state.fraction : progress(d.node, state.fraction)
        var v = curveValue(d, state, progress: p, underlying: underlying)
        if nodes[d.node].cumulative && state.iteration > 0 {
            v = accumulate(d, v, state, underlying: underlying)
        }
        if nodes[d.node].additive { v = v.adding(underlying) }
        return v
    }

    /// The node's timing function at `x` (reading the curve in place: a Bézier is large).
    @inline(__always)
    func progress(_ node: Int, _ x: Double) -> Double {
        nodes.withUnsafeBufferPointer { $0[node].curve.progress(x) }
    }

    /// Each repeat starts where the previous ended: v + i·(end − start).
    func accumulate<V: CurveValue>(_ d: Driver<V>, _ v: V, _ state: TimingState, underlying: V) -> V {
        let n = nodes[d.node]
        var s0 = state, s1 = state
        s0.iterationTime = 0; s0.fraction = 0
        s1.iterationTime = n.timing.duration; s1.fraction = 1
        let start = curveValue(d, s0, progress: n.curve.progress(0), underlying: underlying)
        let end = curveValue(d, s1, progress: n.curve.progress(1), underlying: underlying)
        return V.accumulated(v, start: start, end: end, iteration: state.iteration)
    }

    func springState<V: CurveValue>(_ drivers: [Driver<V>], _ plan: Plan, at t: Double, underlying: AnimatableValue,
                                    kind: AnimatableValue.Kind) -> SpringState? {
        let u = V(underlying: underlying, kind: kind)
        for d in drivers[plan.start..<plan.start + plan.count].reversed() {
            guard case .spring(let ref) = d.curve, let state = leafState(d.node, t) else { continue }
            let spring = ref.borrow { $0 }
            let n = nodes[d.node]
            let value = sample(d, state, underlying: u)
            var velocity: V? = nil
            if state.phase == .active, var v = spring.velocity(state.iterationTime, underlying: u) {
                // d(iterationTime)/dt: the speeds of the node and its ancestors, and −1 on
                // the backward half of an autoreversing iteration.
                var rate = 1.0
                var i = d.node
                while i >= 0 {
                    rate *= nodes[i].timing.speed
                    i = nodes[i].parent
                }
                if n.timing.autoreverses {
                    let cycle = 2 * n.timing.duration
                    let within = state.localTime - cycle * (state.localTime / cycle).rounded(.down)
                    if within > n.timing.duration { rate = -rate }
                }
                v = V.weightedSum(v, rate, v, 0, v, 0, v, 0) ?? v
                velocity = v
            } else if state.phase != .active {
                velocity = V.weightedSum(value, 0, value, 0, value, 0, value, 0)
            }
            return SpringState(value: value.animatableValue(kind), velocity: velocity?.animatableValue(kind))
        }
        return nil
    }
}

/// One leaf animation's value curve for one key path, in the representation `V`. Plain
/// data: the `CompiledAnimation` keeps the curve objects alive in `curves`.
enum LeafCurve<V: CurveValue>: Sendable {
    case basic(UncountedRef<EndsRule<V>>)
    case spring(UncountedRef<SpringCurve<V>>)
    case keyframes(UncountedRef<KeyframeCurve<V>>)
    case track(UncountedRef<TrackCurve<V>>)
    case phase(UncountedRef<PhaseCurve<V>>)
}

/// A reference that is not counted, so that copying it (a driver, during evaluation) costs
/// no atomic retain and release. Whoever makes one keeps the object alive for as long as
/// the reference is used: `CompiledAnimation.curves` holds every curve its drivers name.
struct UncountedRef<T: AnyObject & Sendable>: @unchecked Sendable {   // T is Sendable; this is a plain pointer to it
    let unmanaged: Unmanaged<T>
    init(_ object: T) { unmanaged = .passUnretained(object) }

    /// Calls `body` with the object, without retaining it.
    @inline(__always) func borrow<R>(_ body: (T) -> R) -> R { unmanaged._withUnsafeGuaranteedRef(body) }
}
