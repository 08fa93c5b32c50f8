import LaminaGeometry

/// One layer in a `LayerTree`.
public struct LayerNode: Hashable, Sendable {
    public var id: LayerID
    public var kind: LayerKind
    public var properties = LayerProperties()
    public var superlayer: LayerID?
    public var sublayers: [LayerID] = []

    public init(id: LayerID, kind: LayerKind) { self.id = id; self.kind = kind }
}

/// A tree of layers stored flat by id: the model tree (server thread) and the render thread's
/// copy are both `LayerTree`s that apply the same commits in the same order.
///
/// The root layer (`LayerID.root`) holds one container per connected client, in connection
/// order; each client's top-level layers hang under its container (`LayerID.clientRoot`).
/// Not thread-safe: each thread owns its own value.
public struct LayerTree: Sendable {
    public private(set) var nodes: [LayerID: LayerNode]
    /// Limit on the number of layers one client may own (config `maxLayersPerClient`).
    public var maxLayersPerClient: Int
    private var layerCounts: [UInt32: Int] = [:]

    public init(maxLayersPerClient: Int = 1_000_000) {
        self.maxLayersPerClient = maxLayersPerClient
        nodes = [.root: LayerNode(id: .root, kind: .layer)]
    }

    public subscript(id: LayerID) -> LayerNode? { nodes[id] }

    /// Number of layers, the root and client containers included.
    public var count: Int { nodes.count }

    /// The layers a client owns (its container excluded).
    public func layerCount(client: UInt32) -> Int { layerCounts[client] ?? 0 }

    /// Applies a commit whole or not at all.
    /// - Throws: `CommitError` naming the first failing operation; the tree is then unchanged.
    public mutating func apply(_ commit: Commit) throws(CommitError) {
        switch commit.content {
        case .connect:
            let container = LayerID.clientRoot(commit.client)
            guard nodes[container] == nil else {
                throw CommitError(code: .duplicateLayer, index: 0, message: "client \(commit.client) is already connected")
            }
            var node = LayerNode(id: container, kind: .layer)
            node.superlayer = .root
            nodes[container] = node
            nodes[.root]!.sublayers.append(container)
            layerCounts[commit.client] = 0
        case .disconnect:
            removeClient(commit.client)
        case .operations(let ops):
            var undo: [UndoStep] = []
            undo.reserveCapacity(ops.count)
            for (i, op) in ops.enumerated() {
                do {
                    try apply(op, client: commit.client, index: i, undo: &undo)
                } catch {
                    rollBack(undo)
                    throw error
                }
            }
        }
    }

    // MARK: Operations

    private enum UndoStep {
        case restore(LayerNode)       // put the node back as it was
        case remove(LayerID)          // the node did not exist
        case count(UInt32, Int)       // restore a client's layer count
    }

    private mutating func save(_ id: LayerID, _ undo: inout [UndoStep]) {
        if let node = nodes[id] { undo.append(.restore(node)) } else { undo.append(.remove(id)) }
    }

    private mutating func rollBack(_ undo: [UndoStep]) {
        for step in undo.reversed() {
            switch step {
            case .restore(let node): nodes[node.id] = node
            case .remove(let id): nodes[id] = nil
            case .count(let client, let n): layerCounts[client] = n
            }
        }
    }

    private func existing(_ local: UInt32, client: UInt32, index: Int) throws(CommitError) -> LayerID {
        let id = LayerID(client: client, local: local)
        guard nodes[id] != nil else {
            throw CommitError(code: .unknownLayer, index: index, message: "layer \(local) does not exist")
        }
        return id
    }

    private mutating func apply(_ op: Operation, client: UInt32, index: Int, undo: inout [UndoStep]) throws(CommitError) {
        switch op {
        case .create(let local, let kind):
            guard local != 0 else {
                throw CommitError(code: .duplicateLayer, index: index, message: "layer id 0 is reserved for the client's root")
            }
            let id = LayerID(client: client, local: local)
            guard nodes[id] == nil else {
                throw CommitError(code: .duplicateLayer, index: index, message: "layer \(local) already exists")
            }
            let n = layerCounts[client] ?? 0
            guard n < maxLayersPerClient else {
                throw CommitError(code: .limitExceeded, index: index,
                                  message: "a client may own at most \(maxLayersPerClient) layers")
            }
            undo.append(.remove(id))
            undo.append(.count(client, n))
            nodes[id] = LayerNode(id: id, kind: kind)
            layerCounts[client] = n + 1

        case .delete(let local):
            guard local != 0 else {
                throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be deleted")
            }
            let id = try existing(local, client: client, index: index)
            detach(id, undo: &undo)
            // Its sublayers stay alive (the client still owns them) but leave the tree.
            for child in nodes[id]!.sublayers {
                save(child, &undo)
                nodes[child]!.superlayer = nil
            }
            save(id, &undo)
            nodes[id] = nil
            let n = layerCounts[client] ?? 0
            undo.append(.count(client, n))
            layerCounts[client] = n - 1

        case .set(let local, let keyPath, let value):
            guard local != 0 else {
                throw CommitError(code: .invalidProperty, index: index, message: "the client's root has no settable properties")
            }
            let id = try existing(local, client: client, index: index)
            var props = nodes[id]!.properties
            do {
                try props.setValue(value, forKeyPath: keyPath)
            } catch {
                if case .unknownKeyPath = error {
                    throw CommitError(code: .invalidProperty, index: index, message: error.description)
                }
                throw CommitError(code: .invalidValue, index: index, message: error.description)
            }
            save(id, &undo)
            nodes[id]!.properties = props

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
        }
    }

    private mutating func detach(_ id: LayerID, undo: inout [UndoStep]) {
        guard let parent = nodes[id]?.superlayer else { return }
        save(parent, &undo)
        save(id, &undo)
        nodes[parent]!.sublayers.removeAll { $0 == id }
        nodes[id]!.superlayer = nil
    }

    private mutating func attach(_ child: LayerID, to parent: LayerID, at position: Int?, index: Int,
                                 undo: inout [UndoStep]) throws(CommitError) {
        guard !child.isClientRoot else {
            throw CommitError(code: .invalidHierarchy, index: index, message: "the client's root cannot be a sublayer")
        }
        // No cycles: the parent must not be the child or one of its descendants.
        var cursor: LayerID? = parent
        while let c = cursor {
            if c == child {
                throw CommitError(code: .invalidHierarchy, index: index,
                                  message: "layer \(child.local) cannot become a sublayer of itself or of its own sublayer \(parent.local)")
            }
            cursor = nodes[c]?.superlayer
        }
        detach(child, undo: &undo)
        save(parent, &undo)
        save(child, &undo)
        let count = nodes[parent]!.sublayers.count
        let at = min(max(position ?? count, 0), count)
        nodes[parent]!.sublayers.insert(child, at: at)
        nodes[child]!.superlayer = parent
    }

    private mutating func removeClient(_ client: UInt32) {
        let container = LayerID.clientRoot(client)
        nodes[.root]?.sublayers.removeAll { $0 == container }
        nodes = nodes.filter { $0.key.client != client }
        layerCounts[client] = nil
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
