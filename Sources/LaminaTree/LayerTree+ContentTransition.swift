import LaminaModel

// CATransition on the render thread (ContentTransition.swift). When a packet names a layer in
// a transition (its first changes), the layer's subtree as presented at the commit's time is
// copied into frozen "ghost" nodes: nodes with no animations, under `ghostClient` (a client id
// the server never gives), attached to nothing (so never hit, never in a query), which the
// draw-list builder draws as the old rendering in the layer's plane while the layer itself
// draws the new one (DrawListBuilder+ContentTransition.swift). The transaction's implicit
// animations, contents cross-fades and insertion or removal transitions inside the layer do not
// run: its changes show through the transition. At the end (`advance(to:)`) the ghosts go.
//
// A transition started while one runs on the same layer starts from what is on screen: the new
// ghost is a copy of the layer as presented with the running transition frozen at its progress
// on it (that transition's own ghosts kept under it), `maxChain` deep at most (beyond, the
// oldest frozen transition is dropped and its new rendering alone stands for it).

/// A CATransition running on a layer of the render tree (or frozen on a ghost).
public struct ContentTransitionState: Sendable, Equatable {
    public var transition: ContentTransition
    /// Compositor time at which it began.
    public var beginTime: Double
    /// The root of the frozen copy of the old rendering (nil: the layer did not exist before
    /// the commit, so the old rendering is empty).
    public var ghost: LayerID?
    /// On a ghost: the progress the transition had when it was interrupted (it stays there).
    public var frozenProgress: Double?

    /// How far it is at compositor time `t` (0…1).
    public func progress(at t: Double) -> Double {
        frozenProgress ?? transition.progress(elapsed: t - beginTime)
    }

    public var endTime: Double { beginTime + transition.duration }
}

extension LayerTree {
    /// The client id of ghost nodes (the server numbers clients from 1; `.max` is the "no
    /// superlayer" mark).
    public static let ghostClient = UInt32.max - 1
    /// Layers one transition copies at most (past them, the rest of the old subtree is left out).
    public static let maxGhostLayers = 20_000
    /// Frozen transitions kept under one another by interruptions, at most.
    static let maxChain = 3

    /// Whether a CATransition runs (frames must be made until it ends).
    public var hasContentTransitions: Bool { !contentTransitions.isEmpty }

    /// `.contentTransition`: snapshots the layer's subtree as presented at the commit's time.
    mutating func startContentTransition(_ id: LayerID, _ transition: ContentTransition, context: inout ApplyContext) {
        let previous = contentTransitions.removeValue(forKey: id)
        bumpVersion()
        guard transition.duration > 0, nodes[id] != nil else {
            if let previous { dropGhosts(of: previous) }
            return
        }
        let presented = presentation(at: context.time)
        var budget = Self.maxGhostLayers
        let ghost = copyGhost(id, from: presented.nodes, budget: &budget)
        if let previous {
            if let ghost {
                var frozen = previous
                frozen.frozenProgress = previous.progress(at: context.time)
                contentTransitions[ghost] = frozen
                trimChain(from: ghost)
            } else {
                dropGhosts(of: previous)
            }
        }
        contentTransitions[id] = ContentTransitionState(transition: transition, beginTime: context.time, ghost: ghost)
        context.contentTransitions.append(id)
    }

    /// A frozen copy of `id`'s subtree (its mask and departing sublayers included) from `store`.
    private mutating func copyGhost(_ id: LayerID, from store: NodeStore, budget: inout Int) -> LayerID? {
        guard budget > 0, let node = store[id] else { return nil }
        budget -= 1
        if nextGhost == 0 { nextGhost = 1 }
        let gid = LayerID(client: Self.ghostClient, local: nextGhost)
        nextGhost &+= 1
        var copy = LayerNode(id: gid, kind: node.kind)
        copy.properties = node.properties
        if node.properties.mask != 0 {
            let mask = copyGhost(LayerID(client: id.client, local: node.properties.mask), from: store, budget: &budget)
            copy.properties.mask = mask?.local ?? 0
        }
        nodes[gid] = copy
        var subs: [LayerID] = []
        for s in node.sublayers {
            guard let g = copyGhost(s, from: store, budget: &budget) else { continue }
            nodes[existing: g].superlayer = gid
            subs.append(g)
        }
        nodes[existing: gid].sublayers = subs
        return gid
    }

    /// Removes a transition's ghosts (and the frozen transitions on them, with theirs).
    mutating func dropGhosts(of state: ContentTransitionState) {
        guard let root = state.ghost else { return }
        var stack = [root]
        while let g = stack.popLast() {
            guard let node = nodes[g] else { continue }
            stack += node.sublayers
            if node.properties.mask != 0 { stack.append(LayerID(client: Self.ghostClient, local: node.properties.mask)) }
            if let frozen = contentTransitions.removeValue(forKey: g), let inner = frozen.ghost { stack.append(inner) }
            nodes[g] = nil
        }
        bumpVersion()
    }

    /// Keeps at most `maxChain` frozen transitions under one another from `ghost` down.
    private mutating func trimChain(from ghost: LayerID) {
        var depth = 1
        var cursor = ghost
        while let state = contentTransitions[cursor], let inner = state.ghost {
            if depth > Self.maxChain {
                contentTransitions[cursor] = nil
                dropGhosts(of: state)
                return
            }
            depth += 1
            cursor = inner
        }
    }

    /// Whether a ghost (an old rendering) shows the image named `name`: the frame driver keeps
    /// a released image until no old rendering shows it.
    func ghostsShow(_ name: String) -> Bool {
        guard !contentTransitions.isEmpty else { return false }
        var stack = contentTransitions.values.compactMap(\.ghost)
        while let g = stack.popLast() {
            guard let node = nodes[g] else { continue }
            if node.properties.contents == name { return true }
            stack += node.sublayers
        }
        return false
    }

    /// Ends the transition on a layer (deleted, or its client gone).
    mutating func endContentTransition(of id: LayerID) {
        guard let state = contentTransitions.removeValue(forKey: id) else { return }
        dropGhosts(of: state)
        bumpVersion()
    }

    /// Ends the transitions that are over at `t`.
    mutating func advanceContentTransitions(to t: Double) {
        let over = contentTransitions.filter { $0.value.frozenProgress == nil && t >= $0.value.endTime }
        for id in over.keys.sorted() { endContentTransition(of: id) }
    }

    /// At the end of a packet: inside each layer it put in a transition, the changes show
    /// through the transition — the packet's implicit animations (insertion transitions
    /// included), contents cross-fades and removals do not run.
    mutating func settleContentTransitions(_ context: inout ApplyContext) {
        var stack = context.contentTransitions.filter { nodes[$0] != nil }
        var seen: Set<LayerID> = []
        while let x = stack.popLast() {
            guard seen.insert(x).inserted, let node = nodes[x] else { continue }
            stack += node.sublayers
            removeAnimations(of: x) { $0.isImplicit && $0.stamp == context.stamp }
            if let fade = node.contentsFade, fade.beginTime == context.time {
                nodes[existing: x].contentsFade = nil
                fadingLayers.remove(x)
                bumpVersion()
            }
            if let end = departing[x], end > context.time {
                departing[x] = context.time
                nextEndTime = min(nextEndTime, context.time)
            }
        }
    }
}
