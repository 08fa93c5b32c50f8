/// A tree's layers stored flat: the nodes in one array addressed by slot, and the slot of
/// each id.
///
/// Slots are dense (`0..<count`): removing a node moves the last one into its slot, so a
/// slot is valid only until the next insertion or removal. Whoever keeps slots (the
/// presentation plan, the draw-list builder) keeps them for one tree version.
///
/// Reading a node by slot through `withUnsafeNodes` borrows it in place: no copy of the node
/// and no retain of its arrays, which is what the render thread does for every layer every
/// frame. Equality is by content (the same ids with equal nodes), not by slot layout.
public struct NodeStore: Sendable, Equatable {
    @usableFromInline var storage: [LayerNode] = []
    @usableFromInline var slots: [LayerID: Int] = [:]

    public init() {}

    /// Number of nodes.
    @inlinable public var count: Int { storage.count }

    /// The slot of a node, or nil when there is none with that id.
    @inlinable public func slot(of id: LayerID) -> Int? { slots[id] }

    /// Whether a node with that id exists.
    @inlinable public func contains(_ id: LayerID) -> Bool { slots[id] != nil }

    /// The node with `id` (a copy), or nil; setting inserts, replaces or (nil) removes it.
    public subscript(id: LayerID) -> LayerNode? {
        get { slots[id].map { storage[$0] } }
        set {
            if let node = newValue {
                precondition(node.id == id, "a node is stored under its own id")
                if let s = slots[id] { storage[s] = node } else { slots[id] = storage.count; storage.append(node) }
            } else if let s = slots.removeValue(forKey: id) {
                let last = storage.count - 1
                if s != last {
                    storage.swapAt(s, last)
                    slots[storage[s].id] = s
                }
                storage.removeLast()
            }
        }
    }

    /// The node with `id`, which must exist, read or changed in place.
    @inlinable public subscript(existing id: LayerID) -> LayerNode {
        get { storage[slots[id]!] }
        _modify {
            guard let s = slots[id] else { preconditionFailure("no layer \(id) in the tree") }
            yield &storage[s]
        }
    }

    /// The node in `slot` (a copy; see `withUnsafeNodes` to borrow).
    @inlinable public subscript(slot slot: Int) -> LayerNode { storage[slot] }

    /// The node in `slot`, changed in place (the presentation patch).
    @inlinable subscript(mutableSlot slot: Int) -> LayerNode {
        get { storage[slot] }
        _modify { yield &storage[slot] }
    }

    /// Calls `body` with the nodes by slot, borrowed in place for the call.
    @inlinable public func withUnsafeNodes<R>(_ body: (UnsafeBufferPointer<LayerNode>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer(body)
    }

    /// The nodes in slot order.
    public var nodes: [LayerNode] { storage }

    /// Removes every node for which `remove` is true.
    mutating func removeAll(where remove: (LayerNode) -> Bool) {
        storage.removeAll(where: remove)
        slots.removeAll(keepingCapacity: true)
        for (s, node) in storage.enumerated() { slots[node.id] = s }
    }

    public static func == (a: NodeStore, b: NodeStore) -> Bool {
        guard a.count == b.count else { return false }
        for node in a.storage {
            guard let s = b.slots[node.id], b.storage[s] == node else { return false }
        }
        return true
    }
}

extension NodeStore {
    /// Visits nodes depth first in painter's order (a layer before its sublayers, sublayers
    /// back to front), from `start`; `body` gets each node and its depth and returns whether
    /// to visit its sublayers.
    public func visit(from start: LayerID = .root, _ body: (LayerNode, Int) -> Bool) {
        func walk(_ id: LayerID, _ depth: Int) {
            guard let node = self[id] else { return }
            guard body(node, depth) else { return }
            for child in node.sublayers { walk(child, depth + 1) }
        }
        walk(start, 0)
    }
}
