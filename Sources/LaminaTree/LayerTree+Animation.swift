import LaminaAnimation
import LaminaGeometry
import LaminaModel

extension LayerTree {
    // MARK: Adding and removing (while applying a commit)

    /// Adds an animation to a layer, replacing the one with the same non-empty key.
    /// Its `beginTime` is the compositor time of the commit; `finishCommit` makes it the
    /// layer's local time then.
    mutating func insert(_ animation: LayerAnimation, into id: LayerID, context: inout ApplyContext) {
        var animation = animation
        animation.stamp = context.stamp
        context.animated.append(id)
        if !animation.key.isEmpty {
            removeAnimations(of: id) { $0.key == animation.key }
        }
        nodes[existing: id].animations.append(animation)
        animatedLayers.insert(id)
        runningAnimations += 1
        bumpVersion()
        for c in animation.completionIDs { completionCounts[CompletionKey(client: id.client, id: c), default: 0] += 1 }
        nextEndTime = min(nextEndTime, animation.localEndTime)
        if !animation.isImplicit { events.append(.animationStarted(id, key: animation.key)) }
    }

    /// Removes a layer's animations that match, reporting explicit ones stopped (unfinished
    /// unless they had already ended) and releasing their completions.
    mutating func removeAnimations(of id: LayerID, where match: (LayerAnimation) -> Bool) {
        guard let node = nodes[id], node.animations.contains(where: match) else { return }
        var kept: [LayerAnimation] = []
        for a in node.animations {
            guard match(a) else { kept.append(a); continue }
            if node.kind == .emitter {
                retireEmitterAnimation(id, a, until: min(a.localEndTime, layerTime(of: id).local(applyTime)))
            }
            if !a.hasEnded {
                runningAnimations -= 1
                if !a.isImplicit { events.append(.animationStopped(id, key: a.key, finished: false)) }
                release(a, client: id.client)
            }
        }
        nodes[existing: id].animations = kept
        if kept.isEmpty { animatedLayers.remove(id) }
        bumpVersion()
    }

    /// Counts an ended or removed animation against its completions.
    private mutating func release(_ a: LayerAnimation, client: UInt32) {
        for c in a.completionIDs {
            let key = CompletionKey(client: client, id: c)
            // At zero the entry goes: a completion id that is never declared (a replaced
            // completion block) leaves nothing behind; a declared one fires when absent.
            if let n = completionCounts[key] { completionCounts[key] = n > 1 ? n - 1 : nil }
        }
    }

    /// Fires the declared completions whose animations have all ended, in declaration order.
    mutating func fireCompletions() {
        guard !declaredCompletions.isEmpty else { return }
        var pending: [CompletionKey] = []
        for key in declaredCompletions {
            if (completionCounts[key] ?? 0) <= 0 {
                completionCounts[key] = nil
                events.append(.transactionCompleted(client: key.client, id: key.id))
            } else {
                pending.append(key)
            }
        }
        declaredCompletions = pending
    }

    mutating func finishCommit(client: UInt32, _ context: inout ApplyContext) {
        if !context.insertions.isEmpty { startInsertions(&context) }
        for m in context.matches { startMatch(from: m.from, to: m.to, context: &context) }
        if !context.contentTransitions.isEmpty { settleContentTransitions(&context) }
        if !timedLayers.isEmpty || context.timeChanged { settleLayerTime(context) }
        for id in context.declared { declaredCompletions.append(CompletionKey(client: client, id: id)) }
        fireCompletions()
    }

    /// CALayer's default action for one action key of a set: when the property at `slot`
    /// changed, an implicit animation from the presentation value before the change to the
    /// new model value, with the transaction's duration and timing. None when actions are
    /// disabled, the duration is 0, or the layer was created in this commit. Made here, on
    /// the render thread, because it starts from the presentation value at the commit time.
    mutating func addImplicitAnimation(_ id: LayerID, slot: PropertySlot, before: LayerProperties,
                                       context: inout ApplyContext) {
        let s = context.settings
        guard s.runsActions, !context.created.contains(id),
              let key = slot.implicitKeyPath else { return }
        let after = nodes[existing: id].properties
        let old = before.animatableValue(at: slot)
        let new = after.animatableValue(at: slot)
        guard old != new else { return }
        // From the presentation value now (the old model value with running animations).
        var presented = before
        let animations = nodes[existing: id].animations
        if !animations.isEmpty && timedLayers.isEmpty {
            Self.applyAnimations(animations, to: &presented, at: context.time, only: slot)
        } else if !animations.isEmpty {
            // Those added earlier in this commit count from the commit's compositor time.
            let local = layerTime(of: id).local(context.time)
            for var a in animations {
                if a.stamp == context.stamp { a.beginTime = local }
                Self.applyAnimations([a], to: &presented, at: local, only: slot)
            }
        }
        let from = presented.animatableValue(at: slot)
        let animation = Animation.basic(BasicAnimation(
            keyPath: key, from: from, timing: AnimationTiming(duration: s.duration, timingFunction: s.timingFunction)))
        // The kind is the slot's (no key path parsing); a basic animation of a known kind
        // with a finite duration compiles (a failure would leave the change unanimated).
        let kind = slot.kind(in: after)
        guard let compiled = try? animation.compile(kindOf: { _ in kind }) else { return }
        insert(LayerAnimation(key: key, compiled: compiled, slots: [slot], beginTime: context.time,
                              isImplicit: true, completionIDs: s.completionIDs), into: id, context: &context)
    }

    // MARK: Evaluation

    /// Applies animations to `p` at their layer's local time `t`, in the order added, each reading what
    /// the previous produced. Animations that have ended and are removed on completion have
    /// no effect (the tree removes them at the next frame). `only`: just that slot.
    static func applyAnimations(_ animations: [LayerAnimation], to p: inout LayerProperties, at t: Double,
                                only: PropertySlot? = nil) {
        for k in animations.indices {
            let local = t - animations[k].beginTime
            if animations[k].compiled.removedOnCompletion && local >= animations[k].compiled.endTime { continue }
            let count = animations[k].slots.count
            for i in 0..<count {
                let slot = animations[k].slots[i]
                if let only, slot != only, !Self.overlaps(slot, only) { continue }
                let u = p.animatableValue(at: slot)
                if let v = animations[k].compiled.value(forKeyPathAt: i, at: local, underlying: u) {
                    p.setAnimatableValue(v, at: slot)
                }
            }
        }
    }

    /// Whether two slots touch the same stored property (`position.x` and `position`).
    static func overlaps(_ a: PropertySlot, _ b: PropertySlot) -> Bool {
        a.implicitKeyPath != nil && a.implicitKeyPath == b.implicitKeyPath
    }

    /// The presentation values of one layer at compositor time `t`: what `presentation(at:)`
    /// holds for it (animations, then expression animations, then path templates).
    public func presentationProperties(of id: LayerID, at t: Double) -> LayerProperties? {
        // Expressions may read any of the client's layers and templates read the animated
        // values, so with either present the whole presentation is evaluated.
        if programs.isActive { return presentation(at: t)[id]?.properties }
        guard let node = nodes[id] else { return nil }
        var p = node.properties
        if !node.animations.isEmpty { Self.applyAnimations(node.animations, to: &p, at: layerTime(of: id).local(t)) }
        return p
    }

    /// The presentation value of a layer at a key path at compositor time `t`, or nil for an
    /// unknown layer or key path.
    public func presentationValue(of id: LayerID, keyPath: String, at t: Double) -> PropertyValue? {
        presentationProperties(of: id, at: t)?.value(forKeyPath: keyPath)
    }

    /// Makes `presentation` the presentation tree at compositor time `t`: this tree's
    /// structure with every active animation applied to the model values. Pass the same
    /// value frame after frame: it is rebuilt only when the model changed, and otherwise
    /// patched in place for the animated layers (no allocation for fixed-size values).
    public func updatePresentation(_ presentation: inout LayerTree, at t: Double) {
        if presentation.version != version || presentation.count != count {
            presentation = self
            presentation.presentationPlan = nil
        }
        guard !animatedLayers.isEmpty || programs.isActive else { return }
        var fresh = false
        if presentation.presentationPlan == nil || presentation.presentationPlan!.version != version
            || presentation.presentationPlan!.count != count {
            presentation.presentationPlan = PresentationPlan(self)
            fresh = true
        }
        // The plan's storage indices are the model's: the presentation tree is a copy of this
        // tree at the same version (a copy-on-write copy keeps the layout). Each animated
        // layer's properties are patched in place (`_modify` through the values view).
        let plan = presentation.presentationPlan!
        let slots = plan.slots
        withExtendedLifetime(plan.compiled) {
            plan.bindings.withUnsafeBufferPointer { bindings in
                plan.prepared.withUnsafeBufferPointer { prepared in
                    plan.plain.withUnsafeBufferPointer { plain in
                        plan.easings.withUnsafeBufferPointer { easings in
                            presentation.nodes.storage.withUnsafeMutableBufferPointer { nodes in
                                for g in plan.groups {
                                    evaluate(g, into: &nodes[g.index].properties, bindings, slots, prepared,
                                             plain, easings, at: t)
                                }
                                // Their stored properties are no group's (PresentationPlan+Fast.swift).
                                evaluateFast(plan, nodes, prepared, easings, at: t)
                                // Expression animations, then path templates (ProgramPlan).
                                if let programs = plan.programs { evaluate(programs, nodes, fresh: fresh, at: t) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The presentation tree at `t` as a new value (queries, tests; the render thread uses
    /// `updatePresentation(_:at:)`).
    public func presentation(at t: Double) -> LayerTree {
        var p = self
        updatePresentation(&p, at: t)
        return p
    }

    /// Ends animations whose active interval is over at compositor time `t`: reports them
    /// stopped (finished), removes those removed on completion, and fires completions. The
    /// render thread calls it once per frame before evaluating; cheap when nothing ends.
    public mutating func advance(to t: Double) {
        if !contentTransitions.isEmpty { advanceContentTransitions(to: t) }
        guard t >= nextEndTime else { return }
        var next = Double.infinity
        for id in animatedLayers.sorted() {
            let time = layerTime(of: id), local = time.local(t)
            let animations = nodes[existing: id].animations
            var changed = false
            var kept: [LayerAnimation] = []
            for var a in animations {
                if !a.hasEnded && local >= a.localEndTime {
                    a.hasEnded = true
                    runningAnimations -= 1
                    changed = true
                    if !a.isImplicit { events.append(.animationStopped(id, key: a.key, finished: true)) }
                    release(a, client: id.client)
                    if a.compiled.removedOnCompletion {
                        if nodes[existing: id].kind == .emitter { retireEmitterAnimation(id, a, until: a.localEndTime) }
                        continue
                    }
                }
                if !a.hasEnded { next = min(next, time.time(reaching: a.localEndTime, now: t)) }
                kept.append(a)
            }
            if changed {
                nodes[existing: id].animations = kept
                if kept.isEmpty { animatedLayers.remove(id) }
                bumpVersion()
            }
        }
        nextEndTime = min(next, advanceFades(to: t), finishDepartures(at: t))
        recountFrozenAnimations()
        fireCompletions()
    }
}

extension LayerTree {
    /// The model properties of the layer in storage slot `slot` with its own animations
    /// applied at its local time `local`, and whether one of them has not ended by then: how
    /// a replicator's delayed instance shows a sublayer (`instanceDelay`, evaluated on the
    /// model tree). Expression animations and path templates are not evaluated here.
    public func delayedProperties(ofSlot slot: Int, atLocalTime local: Double) -> (properties: LayerProperties, running: Bool) {
        nodes.withUnsafeNodes { nodes in
            var p = nodes[slot].properties
            let animations = nodes[slot].animations
            Self.applyAnimations(animations, to: &p, at: local)
            return (p, animations.contains { local < $0.localEndTime })
        }
    }

    /// Whether the layer in storage slot `slot` has animations (a replicator's delayed
    /// instances evaluate only such sublayers again).
    public func hasAnimations(inSlot slot: Int) -> Bool {
        nodes.withUnsafeNodes { !$0[slot].animations.isEmpty }
    }
}
