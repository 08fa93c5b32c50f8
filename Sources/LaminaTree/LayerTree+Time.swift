import LaminaModel

// Layer time (CALayer's CAMediaTiming): each layer's local time is its superlayer's local
// time through its own `speed`, `timeOffset` and `beginTime`; its animations run in it
// (`LayerAnimation.beginTime` is in it). `LayerTime` is the map from compositor time.

extension NodeStore {
    /// The map from compositor time to the local time of layer `id` (its animations' time):
    /// its superlayers' timings composed from the root down, then its own. The identity for
    /// an unknown layer.
    public func layerTime(of id: LayerID) -> LayerTime {
        guard let slot = slot(of: id) else { return .identity }
        let node = storage[slot]
        let above = node.superlayer.map { layerTime(of: $0) } ?? .identity
        return above.then(node.properties)
    }
}

extension LayerTree {
    /// The map from compositor time to layer `id`'s local time: the identity, without a
    /// walk, while no layer of the tree has a timing of its own (`timedLayers`).
    public func layerTime(of id: LayerID) -> LayerTime {
        timedLayers.isEmpty ? .identity : nodes.layerTime(of: id)
    }

    /// `CALayer.convertTime(_:from: nil)`: layer `id`'s local time at compositor time `t`.
    public func convertTime(_ t: Double, to id: LayerID) -> Double { layerTime(of: id).local(t) }

    /// Notes a layer's timing after a change of its properties from `before` to `after`
    /// (`timedLayers`); true when its local time changed.
    mutating func noteTiming(_ id: LayerID, before: LayerProperties, after: LayerProperties) -> Bool {
        let was = before.hasLayerTime, now = after.hasLayerTime
        if !was && !now { return false }
        if now { timedLayers.insert(id) } else { timedLayers.remove(id) }
        return before.speed != after.speed || before.timeOffset != after.timeOffset || before.beginTime != after.beginTime
    }
}

extension LayerTree {
    /// At the end of a packet, with timed layers or a timing changed: the animations the
    /// packet added begin at their layer's local time at the packet's time (CA: an animation
    /// added in a transaction begins at the layer's `convertTime(CACurrentMediaTime(), from:
    /// nil)` as the transaction commits). A changed timing moves every end under it: the
    /// next `advance` then looks at every animation; otherwise the new animations' ends in
    /// compositor time join `nextEndTime`.
    mutating func settleLayerTime(_ context: ApplyContext) {
        if context.timeChanged { nextEndTime = -.infinity }
        guard !timedLayers.isEmpty else { return }
        var seen: Set<LayerID> = []
        for id in context.animated where seen.insert(id).inserted {
            guard let slot = nodes.slot(of: id) else { continue }
            let time = nodes.layerTime(of: id)
            guard !time.isIdentity,
                  nodes.storage[slot].animations.contains(where: { $0.stamp == context.stamp }) else { continue }
            let local = time.local(context.time)
            var animations = nodes.storage[slot].animations
            for k in animations.indices where animations[k].stamp == context.stamp {
                animations[k].beginTime = local
                nextEndTime = min(nextEndTime, time.time(reaching: animations[k].localEndTime, now: context.time))
            }
            nodes[mutableSlot: slot].animations = animations
        }
    }

    /// Counts `frozenAnimations` again (after a packet, or an `advance` that looked at every
    /// animation): nothing to count, without a walk, unless some layer has speed 0.
    mutating func recountFrozenAnimations() {
        frozenAnimations = 0
        guard !timedLayers.isEmpty, timedLayers.contains(where: { nodes[$0]?.properties.speed == 0 }) else { return }
        for id in animatedLayers where nodes.layerTime(of: id).scale == 0 {
            for a in nodes[existing: id].animations where !a.hasEnded { frozenAnimations += 1 }
        }
    }
}
