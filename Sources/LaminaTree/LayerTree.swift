import LaminaAnimation
import LaminaGeometry

/// One layer in a `LayerTree`.
public struct LayerNode: Equatable, Sendable {
    public var id: LayerID
    public var kind: LayerKind
    /// Model values in the model tree; presentation values in a presentation tree.
    public var properties = LayerProperties()
    public var superlayer: LayerID?
    public var sublayers: [LayerID] = []
    /// The layer's animations in the order added (keys unique except the empty key).
    public var animations: [LayerAnimation] = []
    /// In the model tree (which keeps no animations): what the render thread's tree holds
    /// for this layer — each animation's key and when it leaves (+∞: never) — so that the
    /// per-layer animation limit is enforced where commits are validated.
    public var animationLedger: [AnimationLedgerEntry] = []

    public init(id: LayerID, kind: LayerKind) { self.id = id; self.kind = kind }
}

/// An animation as the model tree counts it: its key and the compositor time at which the
/// render thread removes it (+∞ when it never ends or stays after its end).
public struct AnimationLedgerEntry: Equatable, Sendable {
    public var key: String
    public var removedAt: Double
}

/// A tree of layers stored flat by id: the model tree (server thread) and the render thread's
/// copy are both `LayerTree`s that apply the same commits in the same order.
///
/// The root layer (`LayerID.root`) holds one container per connected client, in connection
/// order; each client's top-level layers hang under its container (`LayerID.clientRoot`).
/// Not thread-safe: each thread owns its own value.
public struct LayerTree: Sendable {
    /// The layers, flat by slot (see `NodeStore`).
    public internal(set) var nodes: NodeStore
    /// Limit on the number of layers one client may own (config `maxLayersPerClient`).
    public var maxLayersPerClient: Int
    /// Limit on the animations one layer may hold (config).
    public var maxAnimationsPerLayer: Int
    /// Limit on nesting: a client's top-level layers are at depth 1, their sublayers at 2, …
    /// (config `maxDepth`). Every traversal (drawing, hit testing) recurses once per level on
    /// the daemon's threads (64 MiB stacks), so a client must not be able to nest without bound.
    public var maxDepth: Int
    /// True for the render thread's tree: animations are kept, implicit animations made and
    /// events reported. False for the server's model tree, which only validates them.
    public let tracksAnimations: Bool
    private var layerCounts: [UInt32: Int] = [:]

    // Animation state (render thread tree only).
    /// Layers with at least one animation.
    public internal(set) var animatedLayers: Set<LayerID> = []
    /// Changes whenever model values, structure or the animation lists change (presentation
    /// trees made from an older version are rebuilt).
    public internal(set) var version: UInt64 = 0
    /// Earliest compositor time at which a running animation ends.
    var nextEndTime = Double.infinity
    /// Animations still running per (client, completion id).
    var completionCounts: [CompletionKey: Int] = [:]
    /// Declared completions not yet fired, in declaration order.
    var declaredCompletions: [CompletionKey] = []
    /// Events not yet taken by `takeEvents()`.
    public internal(set) var events: [TreeEvent] = []
    /// In a presentation tree: the flat list of animation bindings it is patched from each
    /// frame (built by `updatePresentation` for the model version it was made from).
    var presentationPlan: PresentationPlan? = nil

    struct CompletionKey: Hashable, Sendable { var client: UInt32; var id: UInt32 }

    /// - Parameter tracksAnimations: keep and run animations (the render thread's tree).
    /// The nesting limit of a tree made without one (and of the daemon's default config).
    public static let defaultMaxDepth = 512

    public init(maxLayersPerClient: Int = 1_000_000, maxAnimationsPerLayer: Int = 1024, maxDepth: Int = defaultMaxDepth,
                tracksAnimations: Bool = true) {
        self.maxLayersPerClient = maxLayersPerClient
        self.maxAnimationsPerLayer = maxAnimationsPerLayer
        self.maxDepth = maxDepth
        self.tracksAnimations = tracksAnimations
        nodes = NodeStore()
        nodes[.root] = LayerNode(id: .root, kind: .layer)
    }

    /// Takes the events reported since the last call.
    public mutating func takeEvents() -> [TreeEvent] {
        defer { events = [] }
        return events
    }

    public subscript(id: LayerID) -> LayerNode? { nodes[id] }

    /// Number of layers, the root and client containers included.
    public var count: Int { nodes.count }

    /// The layers a client owns (its container excluded).
    public func layerCount(client: UInt32) -> Int { layerCounts[client] ?? 0 }

    /// Applies a commit whole or not at all, at compositor time `time` (the time 0 of the
    /// animations it adds, and when implicit animations start from the presentation value).
    /// - Throws: `CommitError` naming the first failing operation; the tree is then unchanged.
    public mutating func apply(_ commit: Commit, at time: Double = 0) throws(CommitError) {
        version &+= 1
        switch commit.content {
        case .connect:
            let container = LayerID.clientRoot(commit.client)
            guard !nodes.contains(container) else {
                throw CommitError(code: .duplicateLayer, index: 0, message: "client \(commit.client) is already connected")
            }
            var node = LayerNode(id: container, kind: .layer)
            node.superlayer = .root
            nodes[container] = node
            nodes[existing: .root].sublayers.append(container)
            layerCounts[commit.client] = 0
        case .disconnect:
            removeClient(commit.client)
        case .operations(let ops):
            var undo = UndoLog()
            undo.steps.reserveCapacity(ops.count)
            let saved = AnimationBookkeeping(self)
            var context = ApplyContext(time: time)
            for (i, op) in ops.enumerated() {
                do {
                    try apply(op, client: commit.client, index: i, undo: &undo, context: &context)
                } catch {
                    rollBack(undo)
                    saved.restore(into: &self)
                    throw error
                }
            }
            if tracksAnimations { finishCommit(client: commit.client, context) }
        }
    }

    /// Per-commit state while applying.
    struct ApplyContext {
        var time: Double
        var settings = TransactionSettings.default
        var created: Set<LayerID> = []
        var declared: [UInt32] = []
    }

    /// The animation state outside the nodes, saved to roll back a failed commit.
    struct AnimationBookkeeping {
        var animatedLayers: Set<LayerID>
        var nextEndTime: Double
        var completionCounts: [CompletionKey: Int]
        var declaredCompletions: [CompletionKey]
        var eventCount: Int
        init(_ t: LayerTree) {
            animatedLayers = t.animatedLayers; nextEndTime = t.nextEndTime
            completionCounts = t.completionCounts; declaredCompletions = t.declaredCompletions
            eventCount = t.events.count
        }
        func restore(into t: inout LayerTree) {
            t.animatedLayers = animatedLayers; t.nextEndTime = nextEndTime
            t.completionCounts = completionCounts; t.declaredCompletions = declaredCompletions
            t.events.removeSubrange(eventCount...)
        }
    }

    // MARK: Operations

    fileprivate enum UndoStep {
        case restore(LayerNode)       // put the node back as it was
        case remove(LayerID)          // the node did not exist
        case count(UInt32, Int)       // restore a client's layer count
    }

    /// The steps that undo a commit, in order. A node is saved once per commit (its state
    /// before the commit): later saves would only copy it (and its sublayer array) again,
    /// which made building a long sublayer list quadratic.
    struct UndoLog {
        fileprivate var steps: [UndoStep] = []
        fileprivate var saved: Set<LayerID> = []
        fileprivate mutating func append(_ step: UndoStep) { steps.append(step) }
    }

    private mutating func save(_ id: LayerID, _ undo: inout UndoLog) {
        guard undo.saved.insert(id).inserted else { return }
        if let node = nodes[id] { undo.append(.restore(node)) } else { undo.append(.remove(id)) }
    }

    private mutating func rollBack(_ undo: UndoLog) {
        for step in undo.steps.reversed() {
            switch step {
            case .restore(let node): nodes[node.id] = node
            case .remove(let id): nodes[id] = nil
            case .count(let client, let n): layerCounts[client] = n
            }
        }
    }

    private func existing(_ local: UInt32, client: UInt32, index: Int) throws(CommitError) -> LayerID {
        let id = LayerID(client: client, local: local)
        guard nodes.contains(id) else {
            throw CommitError(code: .unknownLayer, index: index, message: "layer \(local) does not exist")
        }
        return id
    }

    private mutating func apply(_ op: Operation, client: UInt32, index: Int, undo: inout UndoLog,
                                context: inout ApplyContext) throws(CommitError) {
        switch op {
        case .create(let local, let kind):
            guard local != 0 else {
                throw CommitError(code: .duplicateLayer, index: index, message: "layer id 0 is reserved for the client's root")
            }
            let id = LayerID(client: client, local: local)
            guard !nodes.contains(id) else {
                throw CommitError(code: .duplicateLayer, index: index, message: "layer \(local) already exists")
            }
            let n = layerCounts[client] ?? 0
            guard n < maxLayersPerClient else {
                throw CommitError(code: .limitExceeded, index: index,
                                  message: "a client may own at most \(maxLayersPerClient) layers")
            }
            save(id, &undo)
            undo.append(.count(client, n))
            nodes[id] = LayerNode(id: id, kind: kind)
            layerCounts[client] = n + 1
            context.created.insert(id)

        case .delete(let local):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be deleted")
            }
            let id = try existing(local, client: client, index: index)
            detach(id, undo: &undo)
            // Its sublayers stay alive (the client still owns them) but leave the tree.
            for child in nodes[existing: id].sublayers {
                save(child, &undo)
                nodes[existing: child].superlayer = nil
            }
            save(id, &undo)
            if tracksAnimations { removeAnimations(of: id, where: { _ in true }) }
            nodes[id] = nil
            let n = layerCounts[client] ?? 0
            undo.append(.count(client, n))
            layerCounts[client] = n - 1

        case .set(let local, let keyPath, let value):
            guard local != 0 else {
                throw CommitError(code: .invalidProperty, index: index, message: "the client's root has no settable properties")
            }
            let id = try existing(local, client: client, index: index)
            try PropertyTable.check(keyPath, of: nodes[existing: id].kind, index: index)
            var props = nodes[existing: id].properties
            do {
                try props.setValue(value, forKeyPath: keyPath)
            } catch {
                if case .unknownKeyPath = error {
                    throw CommitError(code: .invalidProperty, index: index, message: error.description)
                }
                throw CommitError(code: .invalidValue, index: index, message: error.description)
            }
            save(id, &undo)
            let before = nodes[existing: id].properties
            nodes[existing: id].properties = props
            if tracksAnimations {
                try addImplicitAnimations(id, keyPath: keyPath, before: before, index: index, context: context)
            }

        case .addSublayer(let parentLocal, let childLocal):
            let parent = try existing(parentLocal, client: client, index: index)
            let child = try existing(childLocal, client: client, index: index)
            try attach(child, to: parent, at: nil, index: index, undo: &undo)

        case .insertSublayer(let parentLocal, let childLocal, let at):
            let parent = try existing(parentLocal, client: client, index: index)
            let child = try existing(childLocal, client: client, index: index)
            try attach(child, to: parent, at: Int(at), index: index, undo: &undo)

        case .removeFromSuperlayer(let local):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be removed")
            }
            let id = try existing(local, client: client, index: index)
            detach(id, undo: &undo)

        case .setTransaction(let settings):
            guard settings.duration.isFinite, settings.duration >= 0 else {
                throw CommitError(code: .invalidValue, index: index, message: "transaction duration must be finite and ≥ 0")
            }
            context.settings = settings

        case .addAnimation(let local, let key, let animation):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be animated")
            }
            let id = try existing(local, client: client, index: index)
            let props = nodes[existing: id].properties
            let compiled: CompiledAnimation
            do {
                compiled = try animation.compile { PropertySlot(keyPath: $0)?.kind(in: props) }
            } catch {
                throw CommitError(code: .invalidAnimation, index: index, message: "animation '\(key)': \(error.description)")
            }
            try PropertyTable.check(compiled, key: key, of: nodes[existing: id].kind, index: index)
            guard nodes[existing: id].animations.count < maxAnimationsPerLayer || nodes[existing: id].animations.contains(where: { $0.key == key && !key.isEmpty }) else {
                throw CommitError(code: .limitExceeded, index: index, message: "a layer may hold at most \(maxAnimationsPerLayer) animations")
            }
            guard tracksAnimations else {
                // The model keeps a ledger instead: the ones the render tree still holds now
                // (not yet removed on completion), less the one this key replaces.
                let now = context.time
                var ledger = nodes[existing: id].animationLedger
                ledger.removeAll { $0.removedAt <= now || (!key.isEmpty && $0.key == key) }
                guard ledger.count < maxAnimationsPerLayer else {
                    throw CommitError(code: .limitExceeded, index: index,
                                      message: "a layer may hold at most \(maxAnimationsPerLayer) animations")
                }
                ledger.append(AnimationLedgerEntry(key: key, removedAt: compiled.removedOnCompletion
                                                   ? now + compiled.endTime : .infinity))
                save(id, &undo)
                nodes[existing: id].animationLedger = ledger
                return
            }
            save(id, &undo)
            insert(LayerAnimation(key: key, compiled: compiled, slots: compiled.keyPaths.map { PropertySlot(keyPath: $0)! },
                                  beginTime: context.time, isImplicit: false,
                                  completionIDs: context.settings.completionIDs), into: id)

        case .removeAnimation(let local, let key):
            let id = try existing(local, client: client, index: index)
            guard !key.isEmpty else { return }
            guard tracksAnimations else {
                save(id, &undo)
                nodes[existing: id].animationLedger.removeAll { $0.key == key }
                return
            }
            save(id, &undo)
            removeAnimations(of: id) { $0.key == key }

        case .removeAllAnimations(let local):
            let id = try existing(local, client: client, index: index)
            guard tracksAnimations else {
                save(id, &undo)
                nodes[existing: id].animationLedger.removeAll()
                return
            }
            save(id, &undo)
            removeAnimations(of: id) { _ in true }

        case .completion(let completionID):
            context.declared.append(completionID)
        }
    }

    private mutating func detach(_ id: LayerID, undo: inout UndoLog) {
        guard nodes.contains(id), let parent = nodes[existing: id].superlayer else { return }
        save(parent, &undo)
        save(id, &undo)
        nodes[existing: parent].sublayers.removeAll { $0 == id }
        nodes[existing: id].superlayer = nil
    }

    private mutating func attach(_ child: LayerID, to parent: LayerID, at position: Int?, index: Int,
                                 undo: inout UndoLog) throws(CommitError) {
        guard !child.isClientRoot else {
            throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be a sublayer")
        }
        // No cycles: the parent must not be the child or one of its descendants. The same walk
        // measures the parent's depth (client roots at 0; detached layers count from their top).
        var cursor: LayerID? = parent
        var parentDepth = -1
        while let c = cursor {
            if c == child {
                throw CommitError(code: .invalidHierarchy, index: index,
                                  message: "layer \(child.local) cannot become a sublayer of itself or of its own sublayer \(parent.local)")
            }
            if c.isClientRoot || c == .root { break }
            parentDepth += 1
            cursor = nodes.contains(c) ? nodes[existing: c].superlayer : nil
        }
        parentDepth += 1
        // The child's subtree must fit below: its deepest layer at most `maxDepth`.
        let allowed = maxDepth - parentDepth
        if maxDepth != .max, allowed < 1 || subtreeHeight(child, limit: allowed) > allowed {
            throw CommitError(code: .limitExceeded, index: index,
                              message: "layers may nest at most \(maxDepth) deep (below layer \(parent.local) the sublayer's tree would reach deeper)")
        }
        detach(child, undo: &undo)
        save(parent, &undo)
        save(child, &undo)
        let count = nodes[existing: parent].sublayers.count
        let at = min(max(position ?? count, 0), count)
        nodes[existing: parent].sublayers.insert(child, at: at)
        nodes[existing: child].superlayer = parent
    }

    /// Levels in `id`'s subtree (1 for a layer without sublayers), counting no further than
    /// `limit` + 1: iterative, and it stops as soon as the subtree is known to be too deep.
    private func subtreeHeight(_ id: LayerID, limit: Int) -> Int {
        guard nodes.contains(id), !nodes[existing: id].sublayers.isEmpty else { return 1 }
        var height = 1
        var stack: [(LayerID, Int)] = [(id, 1)]
        while let (layer, level) = stack.popLast() {
            height = max(height, level)
            if height > limit { return height }
            guard nodes.contains(layer) else { continue }
            for sublayer in nodes[existing: layer].sublayers { stack.append((sublayer, level + 1)) }
        }
        return height
    }

    private mutating func removeClient(_ client: UInt32) {
        let container = LayerID.clientRoot(client)
        if nodes.contains(.root) { nodes[existing: .root].sublayers.removeAll { $0 == container } }
        nodes.removeAll { $0.id.client == client }
        layerCounts[client] = nil
        animatedLayers = animatedLayers.filter { $0.client != client }
        completionCounts = completionCounts.filter { $0.key.client != client }
        declaredCompletions.removeAll { $0.client == client }
    }

    /// Visits layers depth first in painter's order (a layer before its sublayers, sublayers
    /// back to front), from `start`.
    public func visit(from start: LayerID = .root, _ body: (LayerNode, Int) -> Bool) {
        func walk(_ id: LayerID, _ depth: Int) {
            guard let node = nodes[id] else { return }
            guard body(node, depth) else { return }
            for child in node.sublayers { walk(child, depth + 1) }
        }
        walk(start, 0)
    }
}
