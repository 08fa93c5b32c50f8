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
    /// False when the client marked the animation non-essential (Reduce Motion may replace it).
    public let isEssential: Bool

    let nodes: [Node]
    /// drivers[keyPathIndex] = leaves driving that key path, in order.
    let drivers: [[Driver]]

    struct Driver: Sendable { var node: Int32; var slot: Int32 }

    /// What the compiler fills in for one node.
    struct NodeSpec: Sendable {
        var timing: MediaTiming
        var curve: TimingCurve
        var parent: Int
        var additive: Bool
        var cumulative: Bool
        var payload: Payload
    }

    /// One animation of the tree (a group or a leaf). A class so that reading a node during
    /// evaluation is a pointer load, not a copy of its timing and curve.
    final class Node: Sendable {
        let timing: MediaTiming
        let curve: TimingCurve
        let parent: Int
        let additive: Bool
        let cumulative: Bool
        let payload: Payload
        init(_ s: NodeSpec) {
            timing = s.timing; curve = s.curve; parent = s.parent
            additive = s.additive; cumulative = s.cumulative; payload = s.payload
        }
    }

    /// Curves live out of line so that a `Node` stays small and cheap to read.
    enum Payload: Sendable {
        case group
        case basic(EndsRule)
        case keyframes(Box<KeyframeCurve>)
        case spring(SpringCurve)
        case tracks(Box<[TrackCurve]>)
        case phases(Box<PhaseCurve>)
    }

    /// An immutable heap box (immutable, so Sendable).
    final class Box<T: Sendable>: Sendable {
        let value: T
        init(_ value: T) { self.value = value }
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
        guard index >= 0, index < drivers.count, !t.isNaN else { return nil }
        var value = underlying
        var affected = false
        for d in drivers[index] {
            guard let state = leafState(Int(d.node), t) else { continue }
            value = sample(Int(d.node), slot: Int(d.slot), state, underlying: value)
            affected = true
        }
        return affected ? value : nil
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
        guard index >= 0, index < drivers.count, !t.isNaN else { return nil }
        for d in drivers[index].reversed() {
            let n = nodes[Int(d.node)]
            guard case .spring(let box) = n.payload, let state = leafState(Int(d.node), t) else { continue }
            let spring = box
            let value = sample(Int(d.node), slot: 0, state, underlying: underlying)
            var velocity: AnimatableValue? = nil
            if state.phase == .active, var v = spring.velocity(state.iterationTime, underlying: underlying) {
                // d(iterationTime)/dt: the speeds of the node and its ancestors, and −1 on
                // the backward half of an autoreversing iteration.
                var rate = 1.0
                var i = Int(d.node)
                while i >= 0 {
                    let tm = nodes[i].timing
                    rate *= tm.speed
                    i = nodes[i].parent
                }
                if n.timing.autoreverses {
                    let cycle = 2 * n.timing.duration
                    let within = state.localTime - cycle * (state.localTime / cycle).rounded(.down)
                    if within > n.timing.duration { rate = -rate }
                }
                v = AnimatableValue.weightedSum(v, rate, v, 0, v, 0, v, 0) ?? v
                velocity = v
            } else if state.phase != .active {
                velocity = AnimatableValue.weightedSum(value, 0, value, 0, value, 0, value, 0)
            }
            return SpringState(value: value, velocity: velocity)
        }
        return nil
    }

    // MARK: Evaluation

    /// The node's timing state at root time t, or nil when it (or an ancestor) has no effect.
    func leafState(_ node: Int, _ t: Double) -> TimingState? {
        let parent = nodes[node].parent
        var parentTime = t
        if parent >= 0 {
            guard let ps = leafState(parent, t) else { return nil }
            parentTime = nodes[parent].curve.isLinear
                ? ps.iterationTime : nodes[parent].curve.progress(ps.fraction) * nodes[parent].timing.duration
        }
        let s = nodes[node].timing.state(at: parentTime)
        return s.hasEffect ? s : nil
    }

    @inline(__always)
    func curveValue(_ node: Int, slot: Int, _ state: TimingState, progress p: Double, underlying: AnimatableValue) -> AnimatableValue {
        switch nodes[node].payload {
        case .group: return underlying
        case .basic(let rule): return rule.value(p, underlying: underlying)
        case .keyframes(let k): return k.value.value(p)
        case .spring(let s): return s.value(state.iterationTime, underlying: underlying)
        case .tracks(let tracks): return tracks.value[slot].value(p * nodes[node].timing.duration, underlying: underlying)
        case .phases(let ph): return ph.value.value(p * nodes[node].timing.duration, slot: slot, underlying: underlying)
        }
    }

    func sample(_ node: Int, slot: Int, _ state: TimingState, underlying: AnimatableValue) -> AnimatableValue {
        let p = nodes[node].curve.isLinear ? state.fraction : nodes[node].curve.progress(state.fraction)
        var v = curveValue(node, slot: slot, state, progress: p, underlying: underlying)
        let cumulative = nodes[node].cumulative, additive = nodes[node].additive
        if cumulative && state.iteration > 0 {
            let n = nodes[node]
            // Each repeat starts where the previous ended: v + i·(end − start).
            var s0 = state, s1 = state
            s0.iterationTime = 0; s0.fraction = 0
            s1.iterationTime = n.timing.duration; s1.fraction = 1
            let start = curveValue(node, slot: slot, s0, progress: n.curve.progress(0), underlying: underlying)
            let end = curveValue(node, slot: slot, s1, progress: n.curve.progress(1), underlying: underlying)
            let i = Double(state.iteration)
            if let sum = AnimatableValue.weightedSum(v, 1, end, i, start, -i, v, 0) {
                v = sum
            } else if case .transform(let a) = start, case .transform(let b) = end,
                      case .transform(let cur) = v, let inv = a.inverted {
                v = .transform(cur.concatenating(power(inv.concatenating(b), state.iteration)))
            }
        }
        if additive { v = v.adding(underlying) }
        return v
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
