import LaminaAnimation
import LaminaExpression
import LaminaGeometry
import LaminaModel

/// The model tree: what clients committed (server thread). It owns structure, model values
/// and limits (layers per client, nesting depth, animations per layer through each layer's
/// `animationLedger(of:)`), and keeps no animations: it validates a `Commit` once, whole, and
/// turns it into a `CommitPacket` that the render tree applies without checks. Its nodes hold
/// what the render tree's hold while nothing animates, so that an idle daemon can keep them
/// once (`shareNodes(with:)`, ModelTree+Sharing.swift).
///
/// Not thread-safe: the server thread owns it.
public struct ModelTree: Sendable {
    /// The layers, flat by slot (their `animations` stay empty; the ledgers are beside them).
    public internal(set) var nodes: NodeStore
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
    /// Commits validated so far, accepted or not (a rejected one may leave the nodes in
    /// other slots and in storage of their own): it changes whenever `nodes` may have.
    public private(set) var revision: UInt64 = 0
    /// Limits on path templates and expression animations (config).
    public var expressionLimits = ExpressionLimits.default
    private var layerCounts: [UInt32: Int] = [:]
    /// Per layer that was given animations or expressions: what the render thread's tree
    /// holds — each animation's key and when it leaves (+∞: never) — so that the per-layer
    /// animation limit is enforced where commits are validated. Kept beside the nodes, not in
    /// them: a node then holds what the render tree's node holds while nothing animates.
    private var ledgers: [LayerID: [AnimationLedgerEntry]] = [:]
    /// Each mask layer → the layer it masks (its `mask` property names it): a mask has no
    /// superlayer and masks one layer.
    private var maskOwners: [LayerID: LayerID] = [:]

    /// The layer that `id` is the mask of, if any.
    public func maskOwner(of id: LayerID) -> LayerID? { maskOwners[id] }

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

    /// The animations the render tree holds for layer `id`, as far as the model knows: each
    /// key and when it leaves (+∞: never). An entry whose time has passed is dropped when
    /// the layer's animations next change.
    public func animationLedger(of id: LayerID) -> [AnimationLedgerEntry] { ledgers[id] ?? [] }

    /// Validates a commit whole at compositor time `time` (the ledger's "now"), applies it to
    /// the model and returns its packet.
    /// - Throws: `CommitError` naming the first failing operation; the tree is then unchanged
    ///   (and `sequence` too).
    public mutating func validate(_ commit: Commit, at time: Double = 0) throws(CommitError) -> CommitPacket {
        revision += 1
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
            if ledgers.keys.contains(where: { $0.client == commit.client }) {
                ledgers = ledgers.filter { $0.key.client != commit.client }
            }
            if maskOwners.keys.contains(where: { $0.client == commit.client }) {
                maskOwners = maskOwners.filter { $0.key.client != commit.client }
            }
            content = .disconnect
        case .operations(let ops):
            var v = Validation()
            for i in ops.indices {
                do {
                    try validate(ops[i], client: commit.client, index: i, time: time, &v)
                } catch {
                    rollBack(v.undo)
                    throw error
                }
            }
            for id in v.pendingOrder where v.pending.remove(id) != nil {
                v.changes.append(.properties(id, nodes[existing: id].properties))
            }
            // CATransitions first: the render tree snapshots the old rendering before any change.
            // (Each after the settings in force where it was named; the other changes then start
            // from the default settings, as a commit does.)
            content = .changes(v.transitions.isEmpty ? v.changes : v.transitions + [.transaction(.default)] + v.changes)
        }
        sequence += 1
        return CommitPacket(client: commit.client, sequence: sequence, time: commit.time, content: content,
                            wireBytes: commit.wireBytes)
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
        case ledger(LayerID, [AnimationLedgerEntry]?)   // restore a layer's ledger
        case maskOwner(LayerID, LayerID?)                // restore a mask's owner
    }

    /// The steps that undo a commit, in order. A node is saved once per commit (its state
    /// before the commit): later saves would only copy it (and its sublayer array) again,
    /// which made building a long sublayer list quadratic.
    private struct UndoLog {
        var steps: [UndoStep] = []
        var saved: Set<LayerID> = []
    }

    /// One commit's validation in progress: its undo log, the packet's changes so far, and
    /// what the `set` fast path keeps (CommitPacket.Change.properties).
    private struct Validation {
        var undo = UndoLog()
        var changes: [CommitPacket.Change] = []
        /// The commit's CATransitions (`.contentTransition`), put before `changes` in the packet.
        var transitions: [CommitPacket.Change] = []
        /// The transaction settings in force (the last `setTransaction`).
        var settings = TransactionSettings.default
        /// Layers created by this commit (their sets start no implicit animation). Only kept
        /// while actions are enabled somewhere in the commit.
        var created: Set<LayerID> = []
        /// Layers with sets that start nothing, whose values are not in `changes` yet; in
        /// the order first set (an id may repeat: `pending` says whether it still waits).
        var pending: Set<LayerID> = []
        var pendingOrder: [LayerID] = []
        /// The last key path and layer kind `PropertyTable.check` passed (a batch sets the
        /// same property of many layers: the table is looked up once).
        var checkedKeyPath = ""
        var checkedKind: LayerKind? = nil

        /// Whether a set at `keyPath` of layer `id` with the settings in force may start an
        /// implicit animation or a cross-fade (LayerTree.addImplicitAnimation, addContentsFade).
        func mayAnimate(_ id: LayerID, keyPath: String) -> Bool {
            if keyPath == "contents" { return true }   // a change ends a running fade, always
            return settings.runsActions && !created.contains(id)
        }
    }

    /// Puts the values of a layer's pending sets into the packet now, before a change that
    /// reads them on the render side.
    private func flush(_ id: LayerID, _ v: inout Validation) {
        guard v.pending.remove(id) != nil else { return }
        v.changes.append(.properties(id, nodes[existing: id].properties))
    }

    /// Sets a layer's ledger (none when empty), saving the old one for a rollback.
    private mutating func setLedger(_ id: LayerID, _ ledger: [AnimationLedgerEntry], _ undo: inout UndoLog) {
        undo.steps.append(.ledger(id, ledgers[id]))
        ledgers[id] = ledger.isEmpty ? nil : ledger
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
            case .ledger(let id, let ledger): ledgers[id] = ledger
            case .maskOwner(let mask, let owner): maskOwners[mask] = owner
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

    private mutating func validate(_ op: LayerChange, client: UInt32, index: Int, time: Double,
                                   _ v: inout Validation) throws(CommitError) {
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
            save(id, &v.undo)
            v.undo.steps.append(.count(client, n))
            nodes[id] = LayerNode(id: id, kind: kind)
            layerCounts[client] = n + 1
            if !v.settings.disableActions { v.created.insert(id) }
            v.changes.append(.create(id, kind))

        case .delete(let local):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be deleted")
            }
            let id = try existing(local, client: client, index: index)
            if let owner = maskOwners[id] {
                throw CommitError(code: .invalidHierarchy, index: index,
                                  message: "layer \(local) is the mask of layer \(owner.local): set that layer's mask to 0 first")
            }
            // Its own mask is free again (it stays alive, with no superlayer).
            let ownMask = nodes[existing: id].properties.mask
            if ownMask != 0 { setMaskOwner(LayerID(client: client, local: ownMask), nil, &v.undo) }
            detach(id, undo: &v.undo)
            // Its sublayers stay alive (the client still owns them) but leave the tree.
            for child in nodes[existing: id].sublayers {
                save(child, &v.undo)
                nodes[existing: child].superlayer = nil
            }
            save(id, &v.undo)
            nodes[id] = nil
            if ledgers[id] != nil { setLedger(id, [], &v.undo) }   // its animations go with it
            let n = layerCounts[client] ?? 0
            v.undo.steps.append(.count(client, n))
            layerCounts[client] = n - 1
            v.pending.remove(id)   // its values go with it
            v.created.remove(id)
            v.changes.append(.delete(id))

        case .set(let local, let keyPath, let value):
            guard local != 0 else {
                throw CommitError(code: .invalidProperty, index: index, message: "the client's root has no settable properties")
            }
            // One lookup of the layer's slot; its kind and values are read and changed there.
            let id = LayerID(client: client, local: local)
            guard let slot = nodes.slot(of: id) else {
                throw CommitError(code: .unknownLayer, index: index, message: "layer \(local) does not exist")
            }
            let kind = nodes.withUnsafeNodes { $0[slot].kind }
            if kind != v.checkedKind || keyPath != v.checkedKeyPath {
                try PropertyTable.check(keyPath, of: kind, index: index)
                v.checkedKeyPath = keyPath; v.checkedKind = kind
            }
            var actions = CommitPacket.ImplicitActions()
            // The first set of a custom property animates from nothing: no implicit animation.
            var startsSomething = v.mayAnimate(id, keyPath: keyPath)
                && !(keyPath.hasPrefix("custom.") && nodes[slot: slot].properties.custom[String(keyPath.dropFirst(7))] == nil)
            if startsSomething {
                actions = CommitPacket.ImplicitActions(keyPath: keyPath)
                startsSomething = actions.first != nil || keyPath == "contents"
            }
            if startsSomething {
                flush(id, &v)   // the render side reads the values before this set
                save(id, &v.undo)
            } else if v.pending.insert(id).inserted {
                save(id, &v.undo)
                v.pendingOrder.append(id)
            }
            if keyPath == "mask" { try checkMask(value, of: id, slot: slot, index: index, &v.undo) }
            // Changed in place (no copy of the values; on error nothing changes, and the
            // node is saved for the commit's rollback).
            do {
                if case .template(let source) = value {
                    try nodes[mutableSlot: slot].properties.setTemplate(source, forKeyPath: keyPath, limits: expressionLimits)
                } else {
                    try nodes[mutableSlot: slot].properties.setValue(value, forKeyPath: keyPath)
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
            if startsSomething { v.changes.append(.set(id, nodes[slot: slot].properties, actions: actions)) }

        case .addSublayer(let parentLocal, let childLocal):
            let parent = try existing(parentLocal, client: client, index: index)
            let child = try existing(childLocal, client: client, index: index)
            try attach(child, to: parent, at: nil, index: index, &v)

        case .insertSublayer(let parentLocal, let childLocal, let at):
            let parent = try existing(parentLocal, client: client, index: index)
            let child = try existing(childLocal, client: client, index: index)
            try attach(child, to: parent, at: Int(at), index: index, &v)

        case .removeFromSuperlayer(let local):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be removed")
            }
            let id = try existing(local, client: client, index: index)
            detach(id, undo: &v.undo)
            v.changes.append(.detach(id))

        case .setTransaction(let settings):
            guard settings.duration.isFinite, settings.duration >= 0 else {
                throw CommitError(code: .invalidValue, index: index, message: "transaction duration must be finite and ≥ 0")
            }
            v.settings = settings
            v.changes.append(.transaction(settings))

        case .addAnimation(let local, let key, let animation):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be animated")
            }
            let id = try existing(local, client: client, index: index)
            let props = nodes[existing: id].properties
            let compiled: CompiledAnimation
            do {
                compiled = try animation.compile { keyPath in
                    // An unset custom property has no value, so no type to animate.
                    if keyPath.hasPrefix("custom."), props.custom[String(keyPath.dropFirst(7))] == nil { return nil }
                    // A filter's number: only of a filter of that name (and kind) in the list.
                    if let f = FilterField(keyPath: keyPath), props.filterFieldValue(f) == nil { return nil }
                    return PropertySlot(keyPath: keyPath)?.kind(in: props)
                }
            } catch {
                throw CommitError(code: .invalidAnimation, index: index, message: "animation '\(key)': \(error.description)")
            }
            try PropertyTable.check(compiled, key: key, of: nodes[existing: id].kind, index: index)
            // The ledger holds what the render tree still holds now (not yet removed on
            // completion), less the one this key replaces.
            var ledger = animationLedger(of: id)
            ledger.removeAll { $0.removedAt <= time || (!key.isEmpty && $0.key == key) }
            guard ledger.count < maxAnimationsPerLayer else {
                throw CommitError(code: .limitExceeded, index: index,
                                  message: "a layer may hold at most \(maxAnimationsPerLayer) animations")
            }
            // Its end in the layer's local time as the model stands (a later change of a
            // timing moves the render tree's removal; the ledger keeps this estimate).
            var removedAt = Double.infinity
            if compiled.removedOnCompletion {
                let layerTime = nodes.layerTime(of: id)
                removedAt = layerTime.time(reaching: layerTime.local(time) + compiled.endTime, now: time)
            }
            ledger.append(AnimationLedgerEntry(key: key, removedAt: removedAt))
            setLedger(id, ledger, &v.undo)
            if !key.isEmpty, nodes[existing: id].expressions.contains(where: { $0.key == key }) {
                save(id, &v.undo)
                nodes[existing: id].expressions.removeAll { $0.key == key }
            }
            // `compile` resolved every key path (an unknown one fails it).
            v.changes.append(.addAnimation(id, key: key, compiled, slots: compiled.keyPaths.map { PropertySlot(keyPath: $0)! }))

        case .removeAnimation(let local, let key):
            let id = try existing(local, client: client, index: index)
            guard !key.isEmpty else { return }
            if ledgers[id] != nil { setLedger(id, animationLedger(of: id).filter { $0.key != key }, &v.undo) }
            if nodes[existing: id].expressions.contains(where: { $0.key == key }) {
                save(id, &v.undo)
                nodes[existing: id].expressions.removeAll { $0.key == key }
            }
            v.changes.append(.removeAnimation(id, key: key))

        case .removeAllAnimations(let local):
            let id = try existing(local, client: client, index: index)
            if ledgers[id] != nil { setLedger(id, [], &v.undo) }
            if !nodes[existing: id].expressions.isEmpty {
                save(id, &v.undo)
                nodes[existing: id].expressions.removeAll()
            }
            v.changes.append(.removeAllAnimations(id))

        case .addExpression(let local, let key, let expression):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be animated")
            }
            let id = try existing(local, client: client, index: index)
            let resolved = try resolveExpression(expression, key: key, on: id, index: index)
            try checkExpressionOrder(adding: resolved, on: id, index: index)
            var ledger = animationLedger(of: id)
            ledger.removeAll { $0.removedAt <= time || (!key.isEmpty && $0.key == key) }
            guard ledger.count < maxAnimationsPerLayer else {
                throw CommitError(code: .limitExceeded, index: index,
                                  message: "a layer may hold at most \(maxAnimationsPerLayer) animations")
            }
            ledger.append(AnimationLedgerEntry(key: key, removedAt: .infinity))
            setLedger(id, ledger, &v.undo)
            save(id, &v.undo)
            if !key.isEmpty { nodes[existing: id].expressions.removeAll { $0.key == key } }
            nodes[existing: id].expressions.append(resolved)
            v.changes.append(.addExpression(id, resolved))

        case .setTransitions(let local, let transitions):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root has no transitions")
            }
            let id = try existing(local, client: client, index: index)
            if let problem = transitions.problem {
                throw CommitError(code: .invalidValue, index: index, message: "layer \(local) transitions: \(problem)")
            }
            v.changes.append(.transitions(id, transitions))

        case .match(let fromLocal, let toLocal):
            guard fromLocal != 0, toLocal != 0, fromLocal != toLocal else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "a match needs two different layers (not the client's root)")
            }
            let from = try existing(fromLocal, client: client, index: index)
            let to = try existing(toLocal, client: client, index: index)
            v.changes.append(.match(from: from, to: to))

        case .transition(let local, let transition):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root has no transition (name one of its layers)")
            }
            let id = try existing(local, client: client, index: index)
            if let problem = transition.problem {
                throw CommitError(code: .invalidValue, index: index, message: "layer \(local) transition: \(problem)")
            }
            // Each with the settings in force (its completions wait for it).
            if let i = v.transitions.firstIndex(where: { if case .contentTransition(id, _) = $0 { true } else { false } }) {
                v.transitions.removeSubrange((i - 1)...i)
            }
            v.transitions += [.transaction(v.settings), .contentTransition(id, transition)]

        case .completion(let completionID):
            v.changes.append(.completion(completionID))
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
                                 _ v: inout Validation) throws(CommitError) {
        guard !child.isClientRoot else {
            throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be a sublayer")
        }
        if let owner = maskOwners[child] {
            throw CommitError(code: .invalidHierarchy, index: index,
                              message: "layer \(child.local) is the mask of layer \(owner.local) and cannot be a sublayer")
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
            // A mask's subtree continues at the layer it masks (no cycle through masks either).
            cursor = nodes.contains(c) ? (nodes[existing: c].superlayer ?? maskOwners[c]) : nil
        }
        parentDepth += 1
        // The child's subtree must fit below: its deepest layer at most `maxDepth`.
        let allowed = maxDepth - parentDepth
        if maxDepth != .max, allowed < 1 || subtreeHeight(child, limit: allowed) > allowed {
            throw CommitError(code: .limitExceeded, index: index,
                              message: "layers may nest at most \(maxDepth) deep (below layer \(parent.local) the sublayer's tree would reach deeper)")
        }
        detach(child, undo: &v.undo)
        save(parent, &v.undo)
        save(child, &v.undo)
        let count = nodes[existing: parent].sublayers.count
        let at = min(max(position ?? count, 0), count)
        nodes[existing: parent].sublayers.insert(child, at: at)
        nodes[existing: child].superlayer = parent
        v.changes.append(.insert(child: child, parent: parent, index: at))
    }

    private mutating func setMaskOwner(_ mask: LayerID, _ owner: LayerID?, _ undo: inout UndoLog) {
        undo.steps.append(.maskOwner(mask, maskOwners[mask]))
        maskOwners[mask] = owner
    }

    /// Checks a set of layer `id`'s `mask` to `value` (the value's own type and range are the
    /// property's: `PropertyValue.layerID`) and records the new mask's owner: the mask must be
    /// another existing layer of the client, with no superlayer, masking no other layer, and
    /// `id` must not lie inside it (through superlayers and masks' owners: no cycle).
    private mutating func checkMask(_ value: PropertyValue, of id: LayerID, slot: Int, index: Int,
                                    _ undo: inout UndoLog) throws(CommitError) {
        guard case .number(let n) = value, n >= 0, n <= Double(UInt32.max), n == n.rounded() else { return }
        let local = UInt32(n)
        let old = nodes[slot: slot].properties.mask
        guard local != old else { return }
        if local != 0 {
            let mask = LayerID(client: id.client, local: local)
            guard nodes.contains(mask) else {
                throw CommitError(code: .unknownLayer, index: index, message: "mask: layer \(local) does not exist")
            }
            if let owner = maskOwners[mask] {
                throw CommitError(code: .invalidHierarchy, index: index,
                                  message: "mask: layer \(local) is already the mask of layer \(owner.local)")
            }
            if nodes[existing: mask].superlayer != nil {
                throw CommitError(code: .invalidHierarchy, index: index,
                                  message: "mask: layer \(local) is in the layer tree (a mask has no superlayer)")
            }
            // No cycle: walking up from `id` (superlayers, and the layers masks belong to) must
            // not reach the mask.
            var cursor: LayerID? = id
            var steps = 0
            while let c = cursor, steps <= nodes.count {
                if c == mask {
                    throw CommitError(code: .invalidHierarchy, index: index,
                                      message: "mask: layer \(local) contains layer \(id.local) (a mask cycle)")
                }
                cursor = nodes.contains(c) ? (nodes[existing: c].superlayer ?? maskOwners[c]) : nil
                steps += 1
            }
            setMaskOwner(mask, id, &undo)
        }
        if old != 0 { setMaskOwner(LayerID(client: id.client, local: old), nil, &undo) }
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
