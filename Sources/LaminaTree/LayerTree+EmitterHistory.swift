import LaminaModel

// An emitter layer's multipliers over time (CAEmitterLayer's birthRate, lifetime, velocity,
// scale, spin), for the closed-form particle simulation (EmitterSimulation.Timeline): the
// births follow the integral of the birth rate since the layer's local time 0, so the
// simulation needs what the multipliers were, not only what they are. The tree keeps, per
// emitter whose multipliers ever changed: the model values each change replaced (with the
// local time of the change) and the multiplier animations that have left the layer (with the
// local time they left). With the animations still on the layer they give the multipliers at
// any past time. At most `maxHistory` of each are kept (the oldest go: the births before
// them are then counted as if the oldest kept values had held from time 0).

/// What an emitter layer's multipliers were.
struct EmitterHistory: Sendable {
    struct Step: Sendable { var until: Double; var values: EmitterSimulation.Multipliers }
    struct Retired: Sendable { var animation: LayerAnimation; var until: Double }
    /// The model's multipliers in force until each local time, in order (the layer's
    /// current model values after the last).
    var steps: [Step] = []
    /// Multiplier animations no longer on the layer, each until the local time it left.
    var retired: [Retired] = []
}

extension LayerTree {
    /// Model changes and retired animations kept per emitter, at most.
    static let maxHistory = 64
    /// Samples of one emitter's timeline per second of animation, and at most in all (past
    /// that the animations are sampled more coarsely).
    public static let timelineRate = 240.0
    public static let maxTimelineSamples = 4096

    static func touchesMultipliers(_ a: LayerAnimation) -> Bool {
        a.slots.contains { $0 == .birthRate || $0 == .lifetime || $0 == .velocity || $0 == .scale || $0 == .spin }
    }

    /// A commit changes an emitter's model values (`before` → `after`, now the layer's) at its
    /// time. A layer the commit created has no past: its first values hold from time 0.
    mutating func noteEmitterModel(_ id: LayerID, before: LayerProperties, after: LayerProperties,
                                   context: ApplyContext) {
        let old = EmitterSimulation.Multipliers(before), new = EmitterSimulation.Multipliers(after)
        guard old != new, !context.created.contains(id) else { return }
        let local = layerTime(of: id).local(context.time)
        guard local.isFinite else { return }
        var h = emitterHistory[id] ?? EmitterHistory()
        h.steps.append(.init(until: local, values: old))
        if h.steps.count > Self.maxHistory { h.steps.removeFirst(h.steps.count - Self.maxHistory) }
        emitterHistory[id] = h
    }

    /// A multiplier animation leaves an emitter at its local time `until`.
    mutating func retireEmitterAnimation(_ id: LayerID, _ a: LayerAnimation, until: Double) {
        guard Self.touchesMultipliers(a), until.isFinite else { return }
        var h = emitterHistory[id] ?? EmitterHistory()
        h.retired.append(.init(animation: a, until: until))
        if h.retired.count > Self.maxHistory { h.retired.removeFirst(h.retired.count - Self.maxHistory) }
        emitterHistory[id] = h
    }

    /// The emitter's multipliers from local time 0 to `local` (its local time now), or nil
    /// when they have always been the model's values (no change, no animation of them). The
    /// samples: at 0, on both sides of each change and of each animation's start and end, and
    /// every 1 / `timelineRate` seconds while an animation runs; each is the model value then
    /// with the animations of that time applied (`applyAnimations`, in the order added).
    public func emitterTimeline(of id: LayerID, at local: Double) -> EmitterSimulation.Timeline? {
        guard let node = nodes[id], node.kind == .emitter, local.isFinite else { return nil }
        let history = emitterHistory[id]
        let live = node.animations.filter(Self.touchesMultipliers)
        guard !live.isEmpty || !(history?.steps.isEmpty ?? true) || !(history?.retired.isEmpty ?? true) else { return nil }
        let steps = history?.steps ?? []
        var animations = (history?.retired ?? []).map { ($0.animation, $0.until) }
        animations += live.map { ($0, Double.infinity) }
        // The stretches where an animation changes a value, and the moments values may jump.
        var spans: [(Double, Double)] = []
        var jumps: [Double] = steps.map(\.until)
        for (a, until) in animations {
            let start = a.beginTime + a.compiled.timing.beginTime
            let end = min(a.localEndTime, until, local)
            jumps.append(start)
            if until.isFinite { jumps.append(until) }
            if a.localEndTime.isFinite { jumps.append(a.localEndTime) }
            if end > max(start, 0) { spans.append((max(start, 0), end)) }
        }
        let animated = spans.reduce(0) { $0 + ($1.1 - $1.0) }
        let step = max(1 / Self.timelineRate, animated / Double(Self.maxTimelineSamples))
        var times: [Double] = [0, max(0, local)]
        for j in jumps where j > 0 && j < local {
            times.append(j.nextDown)
            times.append(j)
        }
        for (s, e) in spans {
            var x = s
            while x < e { times.append(x); x += step }
            times.append(e)
        }
        times.sort()
        var p = node.properties
        let current = EmitterSimulation.Multipliers(p)
        var values: [EmitterSimulation.Multipliers] = []
        values.reserveCapacity(times.count)
        var running: [LayerAnimation] = []
        for t in times {
            let base = steps.first { $0.until > t }?.values ?? current
            p.birthRate = base.birthRate; p.lifetime = base.lifetime; p.velocity = base.velocity
            p.scale = base.scale; p.spin = base.spin
            running.removeAll(keepingCapacity: true)
            for (a, until) in animations where t < until { running.append(a) }
            Self.applyAnimations(running, to: &p, at: t)
            values.append(EmitterSimulation.Multipliers(p))
        }
        return EmitterSimulation.Timeline(times: times, values: values)
    }
}
