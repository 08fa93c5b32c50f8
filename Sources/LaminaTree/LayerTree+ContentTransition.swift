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
//
// A transition runs in its layer's local time (LayerTree+Time.swift: the layer's and its
// ancestors' speed, timeOffset and beginTime govern it as they do an animation), and the
// completions of the transaction that started it wait for its end (or for it to be replaced
// or its layer to go).

/// A CATransition running on a layer of the render tree (or frozen on a ghost).
public struct ContentTransitionState: Sendable, Equatable {
    public var transition: ContentTransition
    /// The layer's local time at which it began.
    public var beginTime: Double
    /// The root of the frozen copy of the old rendering (nil: the layer did not exist before
    /// the commit, so the old rendering is empty).
    public var ghost: LayerID?
    /// On a ghost: the progress the transition had when it was interrupted (it stays there).
    public var frozenProgress: Double?
    /// The completions waiting for it (released when it ends, is replaced or frozen).
    public var completionIDs: [UInt32] = []

    /// How far it is at its layer's local time `local` (0…1).
    public func progress(at local: Double) -> Double {
        frozenProgress ?? transition.progress(elapsed: local - beginTime)
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
        if let previous { releaseCompletions(of: previous, client: id.client) }
        bumpVersion()
        let local = nodes[id] != nil ? layerTime(of: id).local(context.time) : .nan
        guard transition.duration > 0, local.isFinite else {
            if let previous { dropGhosts(of: previous) }
            return
        }
        let presented = presentation(at: context.time)
        var budget = Self.maxGhostLayers
        let ghost = copyGhost(id, from: presented.nodes, at: context.time, budget: &budget)
        if let previous {
            if let ghost {
                var frozen = previous
                frozen.frozenProgress = previous.progress(at: local)
                frozen.completionIDs = []
                contentTransitions[ghost] = frozen
                trimChain(from: ghost)
            } else {
                dropGhosts(of: previous)
            }
        }
        let completions = context.settings.completionIDs
        for c in completions { completionCounts[CompletionKey(client: id.client, id: c), default: 0] += 1 }
        contentTransitions[id] = ContentTransitionState(transition: transition, beginTime: local, ghost: ghost,
                                                        completionIDs: completions)
        context.contentTransitions.append(id)
    }

    /// A frozen copy of `id`'s subtree (its mask and departing sublayers included) from `store`.
    /// A layer below that is in a transition of its own (running or frozen) is copied with it
    /// frozen where it is at `time` (compositor time), its old rendering copied too: the
    /// snapshot shows what is on screen, and outlives that transition's end.
    private mutating func copyGhost(_ id: LayerID, from store: NodeStore, at time: Double, budget: inout Int) -> LayerID? {
        guard budget > 0, let node = store[id] else { return nil }
        budget -= 1
        if nextGhost == 0 { nextGhost = 1 }
        let gid = LayerID(client: Self.ghostClient, local: nextGhost)
        nextGhost &+= 1
        if let running = contentTransitions[id] {
            var frozen = running
            if frozen.frozenProgress == nil { frozen.frozenProgress = running.progress(at: layerTime(of: id).local(time)) }
            frozen.completionIDs = []
            frozen.ghost = running.ghost.flatMap { copyGhost($0, from: store, at: time, budget: &budget) }
            contentTransitions[gid] = frozen
        }
        var copy = LayerNode(id: gid, kind: node.kind)
        copy.properties = node.properties
        if node.properties.mask != 0 {
            let mask = copyGhost(LayerID(client: id.client, local: node.properties.mask), from: store, at: time,
                                 budget: &budget)
            copy.properties.mask = mask?.local ?? 0
        }
        nodes[gid] = copy
        var subs: [LayerID] = []
        for s in node.sublayers {
            guard let g = copyGhost(s, from: store, at: time, budget: &budget) else { continue }
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
        releaseCompletions(of: state, client: id.client)
        dropGhosts(of: state)
        bumpVersion()
    }

    /// Counts a transition that ends or is replaced against the completions waiting for it.
    private mutating func releaseCompletions(of state: ContentTransitionState, client: UInt32) {
        for c in state.completionIDs {
            let key = CompletionKey(client: client, id: c)
            if let n = completionCounts[key] { completionCounts[key] = n > 1 ? n - 1 : nil }
        }
    }

    /// Ends the transitions that are over at compositor time `t` (each in its layer's local time).
    mutating func advanceContentTransitions(to t: Double) {
        let over = contentTransitions.filter { entry in
            entry.value.frozenProgress == nil && nodes[entry.key] != nil && layerTime(of: entry.key).local(t) >= entry.value.endTime
        }
        guard !over.isEmpty else { return }
        for id in over.keys.sorted() { endContentTransition(of: id) }
        fireCompletions()
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
