import LaminaAnimation
import LaminaGeometry
import LaminaModel

// Transitions on insertion and removal (SwiftUI's `.transition`), run on the render thread
// when a packet is applied: they start from presentation values, which only this side has.
//
// An inserted layer with an insertion transition animates from the transition's state to its
// model values. A removed layer with a removal transition stays in its superlayer in this tree
// — drawn, never hit (`isDeparting`) — while it animates to the transition's state, then
// leaves at the end (`advance(to:)`); the model tree has already removed it. Removing a layer
// whose insertion still runs (or inserting one still leaving) starts from where it is.
// The animations are implicit ones under the keys `transition.*` (no events), waited for by
// the transaction's completions.

extension LayerTree {
    /// The key prefix of the animations transitions add.
    static let transitionKeyPrefix = "transition."

    /// The slots a transition animates: opacity, position, and the scale about the anchor point.
    private static let transitionSlots: [(key: String, keyPath: String, slot: PropertySlot)] =
        ["opacity", "position", "transform.scale.x", "transform.scale.y"].map { keyPath in
            (key: "transition." + keyPath, keyPath: keyPath, slot: PropertySlot(keyPath: keyPath)!)
        }

    /// Whether the layer is leaving (removed from the model, still drawn until its removal
    /// transition ends): hit testing skips it and its sublayers.
    public func isDeparting(_ id: LayerID) -> Bool { departing[id] != nil }

    /// The values `state` stands for on a layer with model values `model`.
    private static func applying(_ state: TransitionState, to model: LayerProperties) -> LayerProperties {
        var p = model
        p.opacity = model.opacity * state.opacity
        p.position = Point(model.position.x + state.dx, model.position.y + state.dy)
        for (_, _, slot) in transitionSlots.suffix(2) {
            if case .double(let s) = model.animatableValue(at: slot) {
                p.setAnimatableValue(.double(s * state.scale), at: slot)
            }
        }
        return p
    }

    private func hasTransitionAnimations(_ id: LayerID) -> Bool {
        nodes[existing: id].animations.contains { $0.key.hasPrefix(Self.transitionKeyPrefix) }
    }

    private func superlayerBounds(_ id: LayerID) -> Rect {
        nodes[existing: id].superlayer.flatMap { nodes[$0]?.properties.bounds } ?? .zero
    }

    /// Replaces the layer's animations keyed `prefix`… with ones from `from` to `to`, one per
    /// slot of `slots` that differs, with the transaction's duration and timing; `holds`: they
    /// stay at their end values (a removal until the layer leaves, a match's source).
    /// Transitions and matched geometry share it.
    mutating func addPresentationAnimations(_ id: LayerID, prefix: String,
                                            slots: [(key: String, keyPath: String, slot: PropertySlot)],
                                            from: LayerProperties, to: LayerProperties, holds: Bool,
                                            context: inout ApplyContext) {
        removeAnimations(of: id) { $0.key.hasPrefix(prefix) }
        let s = context.settings
        for (key, keyPath, slot) in slots {
            let a = from.animatableValue(at: slot), b = to.animatableValue(at: slot)
            guard a != b else { continue }
            let timing = AnimationTiming(duration: s.duration, timingFunction: s.timingFunction,
                                         fillMode: holds ? .forwards : .removed, removedOnCompletion: !holds)
            let animation = Animation.basic(BasicAnimation(keyPath: keyPath, from: a, to: holds ? b : nil, timing: timing))
            let kind = slot.kind(in: to)
            guard let compiled = try? animation.compile(kindOf: { _ in kind }) else { continue }
            insert(LayerAnimation(key: key, compiled: compiled, slots: [slot], beginTime: context.time,
                                  isImplicit: true, completionIDs: s.completionIDs), into: id, context: &context)
        }
    }

    private mutating func addTransitionAnimations(_ id: LayerID, from: LayerProperties, to: LayerProperties,
                                                  holds: Bool, context: inout ApplyContext) {
        addPresentationAnimations(id, prefix: Self.transitionKeyPrefix, slots: Self.transitionSlots, from: from, to: to,
                                  holds: holds, context: &context)
    }

    /// The presentation values of the layer's own animations at the commit's time.
    private func presented(_ id: LayerID, at t: Double) -> LayerProperties {
        var p = nodes[existing: id].properties
        Self.applyAnimations(nodes[existing: id].animations, to: &p, at: t)
        return p
    }

    // MARK: While applying a packet

    /// `.insert`: a layer still leaving stops leaving; an insertion transition waits for the
    /// end of the packet (the layer's values may come later in it).
    mutating func noteInsertion(_ id: LayerID, context: inout ApplyContext) {
        let wasDeparting = departing.removeValue(forKey: id) != nil
        if let t = context.transitions[id], context.settings.runsActions, t.insertion != .identity || wasDeparting {
            context.insertions.append((id, t.insertion))
        } else if wasDeparting {
            removeAnimations(of: id) { $0.key.hasPrefix(Self.transitionKeyPrefix) }
        }
    }

    /// Before `child` joins `parent`: a layer still leaving stays under its old superlayer here
    /// only, so the model may put that superlayer under it (no cycle there). Such a cycle here
    /// is broken by ending the departures on the way from `parent` up to `child` at once.
    mutating func endDeparturesMakingACycle(inserting child: LayerID, into parent: LayerID) {
        guard !departing.isEmpty else { return }
        var path: [LayerID] = []
        var cur: LayerID? = parent
        while let x = cur {
            if x == child {
                for id in path where departing[id] != nil { departing[id] = .zero; _ = finishDepartures(at: 0, only: id) }
                return
            }
            path.append(x)
            cur = nodes[x]?.superlayer
        }
    }

    /// The model position of an inserted layer among `parent`'s sublayers → its index in this
    /// tree, where leaving layers stay among them.
    func renderIndex(_ modelIndex: Int, in parent: LayerID) -> Int {
        guard !departing.isEmpty else { return modelIndex }
        let subs = nodes[existing: parent].sublayers
        var seen = 0
        for (i, s) in subs.enumerated() where departing[s] == nil {
            if seen == modelIndex { return i }
            seen += 1
        }
        return subs.count
    }

    /// `.detach`: with a removal transition the layer stays (leaving) and animates out;
    /// returns false when it should just be detached.
    mutating func startRemoval(_ id: LayerID, context: inout ApplyContext) -> Bool {
        if departing[id] != nil { return true }
        guard let t = context.transitions[id], context.settings.runsActions,
              nodes[existing: id].superlayer != nil else { return false }
        let model = nodes[existing: id].properties
        let state = t.removal.state(of: model, superlayerBounds: superlayerBounds(id), insertion: false)
        // An identity removal goes at once (SwiftUI), even mid-insertion.
        guard !state.isIdentity else { return false }
        addTransitionAnimations(id, from: presented(id, at: context.time), to: Self.applying(state, to: model),
                                holds: true, context: &context)
        let end = context.time + context.settings.duration
        departing[id] = end
        nextEndTime = min(nextEndTime, end)
        bumpVersion()
        return true
    }

    /// At the end of a packet: the insertions' animations, from the transition's state (or from
    /// where a layer still leaving or entering is) to the model values.
    mutating func startInsertions(_ context: inout ApplyContext) {
        for (id, transition) in context.insertions where nodes[id]?.superlayer != nil {
            let model = nodes[existing: id].properties
            let state = transition.state(of: model, superlayerBounds: superlayerBounds(id), insertion: true)
            let from = hasTransitionAnimations(id) ? presented(id, at: context.time) : Self.applying(state, to: model)
            addTransitionAnimations(id, from: from, to: model, holds: false, context: &context)
        }
    }

    /// Layers whose removal ended by `t` leave the tree; returns the next removal's end.
    mutating func finishDepartures(at t: Double, only: LayerID? = nil) -> Double {
        guard !departing.isEmpty else { return .infinity }
        var next = Double.infinity
        for (id, end) in departing.sorted(by: { $0.key < $1.key }) {
            guard end <= t, only == nil || only == id else { next = min(next, end); continue }
            departing[id] = nil
            guard nodes[id] != nil else { continue }
            removeAnimations(of: id) { $0.key.hasPrefix(Self.transitionKeyPrefix) }
            if let parent = nodes[existing: id].superlayer {
                nodes[existing: parent].sublayers.removeAll { $0 == id }
                nodes[existing: id].superlayer = nil
            }
            bumpVersion()
        }
        return next
    }
}
