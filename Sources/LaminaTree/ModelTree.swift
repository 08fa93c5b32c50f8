import LaminaAnimation
import LaminaExpression
import LaminaGeometry

/// The model tree: what clients committed (server thread). It owns structure, model values
/// and limits (layers per client, nesting depth, animations per layer through each layer's
/// `animationLedger`), and keeps no animations: it validates a `Commit` once, whole, and turns
/// it into a `CommitPacket` that the render tree applies without checks.
///
/// Not thread-safe: the server thread owns it.
public struct ModelTree: Sendable {
    /// The layers, flat by slot (their `animations` stay empty; their ledgers count animations).
    public private(set) var nodes: NodeStore
    /// Limit on the number of layers one client may own (config `maxLayersPerClient`).
    public var maxLayersPerClient: Int
    /// Limit on the animations one layer may hold (config).
    public var maxAnimationsPerLayer: Int
    /// Limit on nesting: a client's top-level layers are at depth 1, their sublayers at 2, …
    /// (config `maxDepth`). Every traversal (drawing, hit testing) recurses once per level on
    /// the daemon's threads (64 MiB stacks), so a client must not be able to nest without bound.
    public var maxDepth: Int
    /// Packets made so far (the last packet's `sequence`).
    public private(set) var sequence: UInt64 = 0
    /// Limits on path templates and expression animations (config).
    public var expressionLimits = ExpressionLimits.default
    private var layerCounts: [UInt32: Int] = [:]

    public init(maxLayersPerClient: Int = 1_000_000, maxAnimationsPerLayer: Int = 1024,
                maxDepth: Int = LayerTree.defaultMaxDepth) {
        self.maxLayersPerClient = maxLayersPerClient
        self.maxAnimationsPerLayer = maxAnimationsPerLayer
        self.maxDepth = maxDepth
        nodes = NodeStore()
        nodes[.root] = LayerNode(id: .root, kind: .layer)
    }

    public subscript(id: LayerID) -> LayerNode? { nodes[id] }

    /// Number of layers, the root and client containers included.
    public var count: Int { nodes.count }

    /// The layers a client owns (its container excluded).
    public func layerCount(client: UInt32) -> Int { layerCounts[client] ?? 0 }

    /// Validates a commit whole at compositor time `time` (the ledger's "now"), applies it to
    /// the model and returns its packet.
    /// - Throws: `CommitError` naming the first failing operation; the tree is then unchanged
    ///   (and `sequence` too).
    public mutating func validate(_ commit: Commit, at time: Double = 0) throws(CommitError) -> CommitPacket {
        let content: CommitPacket.Content
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
            content = .connect
        case .disconnect:
            let container = LayerID.clientRoot(commit.client)
            if nodes.contains(.root) { nodes[existing: .root].sublayers.removeAll { $0 == container } }
            nodes.removeAll { $0.id.client == commit.client }
            layerCounts[commit.client] = nil
            content = .disconnect
        case .operations(let ops):
            var undo = UndoLog()
            undo.steps.reserveCapacity(ops.count)
            var changes: [CommitPacket.Change] = []
            changes.reserveCapacity(ops.count)
            for (i, op) in ops.enumerated() {
                do {
                    try validate(op, client: commit.client, index: i, time: time, undo: &undo, changes: &changes)
                } catch {
                    rollBack(undo)
                    throw error
                }
            }
            content = .changes(changes)
        }
        sequence += 1
        return CommitPacket(client: commit.client, sequence: sequence, time: commit.time, content: content)
    }

    /// Visits layers depth first in painter's order (see `NodeStore.visit`).
    public func visit(from start: LayerID = .root, _ body: (LayerNode, Int) -> Bool) {
        nodes.visit(from: start, body)
    }

    // MARK: Undo

    private enum UndoStep {
        case restore(LayerNode)       // put the node back as it was
        case remove(LayerID)          // the node did not exist
        case count(UInt32, Int)       // restore a client's layer count
    }

    /// The steps that undo a commit, in order. A node is saved once per commit (its state
    /// before the commit): later saves would only copy it (and its sublayer array) again,
    /// which made building a long sublayer list quadratic.
    private struct UndoLog {
        var steps: [UndoStep] = []
        var saved: Set<LayerID> = []
    }

    private mutating func save(_ id: LayerID, _ undo: inout UndoLog) {
        guard undo.saved.insert(id).inserted else { return }
        if let node = nodes[id] { undo.steps.append(.restore(node)) } else { undo.steps.append(.remove(id)) }
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

    // MARK: Operations

    private func existing(_ local: UInt32, client: UInt32, index: Int) throws(CommitError) -> LayerID {
        let id = LayerID(client: client, local: local)
        guard nodes.contains(id) else {
            throw CommitError(code: .unknownLayer, index: index, message: "layer \(local) does not exist")
        }
        return id
    }

    private mutating func validate(_ op: Operation, client: UInt32, index: Int, time: Double, undo: inout UndoLog,
                                   changes: inout [CommitPacket.Change]) throws(CommitError) {
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
            undo.steps.append(.count(client, n))
            nodes[id] = LayerNode(id: id, kind: kind)
            layerCounts[client] = n + 1
            changes.append(.create(id, kind))

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
            nodes[id] = nil
            let n = layerCounts[client] ?? 0
            undo.steps.append(.count(client, n))
            layerCounts[client] = n - 1
            changes.append(.delete(id))

        case .set(let local, let keyPath, let value):
            guard local != 0 else {
                throw CommitError(code: .invalidProperty, index: index, message: "the client's root has no settable properties")
            }
            let id = try existing(local, client: client, index: index)
            try PropertyTable.check(keyPath, of: nodes[existing: id].kind, index: index)
            var props = nodes[existing: id].properties
            do {
                if case .template(let source) = value {
                    try props.setTemplate(source, forKeyPath: keyPath, limits: expressionLimits)
                } else {
                    try props.setValue(value, forKeyPath: keyPath)
                }
            } catch {
                if case .unknownKeyPath = error {
                    throw CommitError(code: .invalidProperty, index: index, message: error.description)
                }
                if case .template = value {
                    throw CommitError(code: .invalidValue, index: index, message: "layer \(local) \(error.description)")
                }
                throw CommitError(code: .invalidValue, index: index, message: error.description)
            }
            save(id, &undo)
            nodes[existing: id].properties = props
            changes.append(.set(id, props, actions: CommitPacket.ImplicitActions(keyPath: keyPath)))

        case .addSublayer(let parentLocal, let childLocal):
            let parent = try existing(parentLocal, client: client, index: index)
            let child = try existing(childLocal, client: client, index: index)
            try attach(child, to: parent, at: nil, index: index, undo: &undo, changes: &changes)

        case .insertSublayer(let parentLocal, let childLocal, let at):
            let parent = try existing(parentLocal, client: client, index: index)
            let child = try existing(childLocal, client: client, index: index)
            try attach(child, to: parent, at: Int(at), index: index, undo: &undo, changes: &changes)

        case .removeFromSuperlayer(let local):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be removed")
            }
            let id = try existing(local, client: client, index: index)
            detach(id, undo: &undo)
            changes.append(.detach(id))

        case .setTransaction(let settings):
            guard settings.duration.isFinite, settings.duration >= 0 else {
                throw CommitError(code: .invalidValue, index: index, message: "transaction duration must be finite and ≥ 0")
            }
            changes.append(.transaction(settings))

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
            // The ledger holds what the render tree still holds now (not yet removed on
            // completion), less the one this key replaces.
            var ledger = nodes[existing: id].animationLedger
            ledger.removeAll { $0.removedAt <= time || (!key.isEmpty && $0.key == key) }
            guard ledger.count < maxAnimationsPerLayer else {
                throw CommitError(code: .limitExceeded, index: index,
                                  message: "a layer may hold at most \(maxAnimationsPerLayer) animations")
            }
            ledger.append(AnimationLedgerEntry(key: key, removedAt: compiled.removedOnCompletion
                                               ? time + compiled.endTime : .infinity))
            save(id, &undo)
            nodes[existing: id].animationLedger = ledger
            if !key.isEmpty { nodes[existing: id].expressions.removeAll { $0.key == key } }
            // `compile` resolved every key path (an unknown one fails it).
            changes.append(.addAnimation(id, key: key, compiled, slots: compiled.keyPaths.map { PropertySlot(keyPath: $0)! }))

        case .removeAnimation(let local, let key):
            let id = try existing(local, client: client, index: index)
            guard !key.isEmpty else { return }
            save(id, &undo)
            nodes[existing: id].animationLedger.removeAll { $0.key == key }
            nodes[existing: id].expressions.removeAll { $0.key == key }
            changes.append(.removeAnimation(id, key: key))

        case .removeAllAnimations(let local):
            let id = try existing(local, client: client, index: index)
            save(id, &undo)
            nodes[existing: id].animationLedger.removeAll()
            nodes[existing: id].expressions.removeAll()
            changes.append(.removeAllAnimations(id))

        case .addExpression(let local, let key, let expression):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be animated")
            }
            let id = try existing(local, client: client, index: index)
            let resolved = try resolveExpression(expression, key: key, on: id, index: index)
            try checkExpressionOrder(adding: resolved, on: id, index: index)
            var ledger = nodes[existing: id].animationLedger
            ledger.removeAll { $0.removedAt <= time || (!key.isEmpty && $0.key == key) }
            guard ledger.count < maxAnimationsPerLayer else {
                throw CommitError(code: .limitExceeded, index: index,
                                  message: "a layer may hold at most \(maxAnimationsPerLayer) animations")
            }
            ledger.append(AnimationLedgerEntry(key: key, removedAt: .infinity))
            save(id, &undo)
            nodes[existing: id].animationLedger = ledger
            if !key.isEmpty { nodes[existing: id].expressions.removeAll { $0.key == key } }
            nodes[existing: id].expressions.append(resolved)
            changes.append(.addExpression(id, resolved))

        case .completion(let completionID):
            changes.append(.completion(completionID))
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
                                 undo: inout UndoLog, changes: inout [CommitPacket.Change]) throws(CommitError) {
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
        changes.append(.insert(child: child, parent: parent, index: at))
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
}
