import LaminaModel

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
    /// The slot of each id: an open-addressing table (linear probing) of slot + 1 (0: empty),
    /// a power of two long and at most three quarters full; an entry's key is the id of the
    /// node in its slot. Four bytes per entry where a `[LayerID: Int]` took 16 and more.
    @usableFromInline var table: [UInt32] = []

    public init() {}

    /// Number of nodes.
    @inlinable public var count: Int { storage.count }

    /// Where `id` starts its probe in a table of `mask + 1` entries (a power of two):
    /// Fibonacci hashing, the product's top bits, so the dense ids of one client spread evenly.
    @inlinable @inline(__always) static func home(_ id: LayerID, _ mask: Int) -> Int {
        let key = UInt64(id.client) << 32 | UInt64(id.local)
        return Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(mask.leadingZeroBitCount))
    }

    /// The slot of a node, or nil when there is none with that id.
    @inlinable public func slot(of id: LayerID) -> Int? {
        let mask = table.count &- 1
        guard mask > 0 else { return nil }
        return table.withUnsafeBufferPointer { t in
            storage.withUnsafeBufferPointer { nodes in
                var i = NodeStore.home(id, mask)
                while true {
                    let e = Int(t[i])
                    if e == 0 { return nil }
                    if nodes[e &- 1].id == id { return e &- 1 }
                    i = (i &+ 1) & mask
                }
            }
        }
    }

    /// The table index that holds `id`'s slot, or nil.
    private func entry(of id: LayerID) -> Int? {
        let mask = table.count - 1
        guard mask > 0 else { return nil }
        var i = NodeStore.home(id, mask)
        while true {
            let e = Int(table[i])
            if e == 0 { return nil }
            if storage[e - 1].id == id { return i }
            i = (i + 1) & mask
        }
    }

    /// Records that `slot` holds `id` (not in the table yet; the node is already stored).
    private mutating func insertEntry(_ id: LayerID, slot: Int) {
        if storage.count * 4 > table.count * 3 {
            rehash(minimumCapacity: storage.count)   // enters every stored node, this one too
            return
        }
        let mask = table.count - 1
        var i = NodeStore.home(id, mask)
        while table[i] != 0 { i = (i + 1) & mask }
        table[i] = UInt32(slot + 1)
    }

    /// Removes the entry at table index `hole`, moving later entries of its run back
    /// (no tombstones: lookups stop at the first empty entry).
    private mutating func removeEntry(at hole: Int) {
        let mask = table.count - 1
        var hole = hole
        var i = hole
        table[hole] = 0
        while true {
            i = (i + 1) & mask
            let e = Int(table[i])
            if e == 0 { return }
            let home = NodeStore.home(storage[e - 1].id, mask)
            // The entry may move to the hole when its home is not cyclically in (hole, i].
            let stays = hole <= i ? (hole < home && home <= i) : (hole < home || home <= i)
            if !stays {
                table[hole] = UInt32(e)
                table[i] = 0
                hole = i
            }
        }
    }

    /// Rebuilds the table for at least `count` nodes (and at most three quarters full).
    private mutating func rehash(minimumCapacity count: Int) {
        var capacity = 8
        while capacity * 3 < (count + 1) * 4 { capacity *= 2 }
        table = [UInt32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (s, node) in storage.enumerated() {
            var i = NodeStore.home(node.id, mask)
            while table[i] != 0 { i = (i + 1) & mask }
            table[i] = UInt32(s + 1)
        }
    }

    /// Whether a node with that id exists.
    @inlinable public func contains(_ id: LayerID) -> Bool { slot(of: id) != nil }

    /// The node with `id` (a copy), or nil; setting inserts, replaces or (nil) removes it.
    public subscript(id: LayerID) -> LayerNode? {
        get { slot(of: id).map { storage[$0] } }
        set {
            if let node = newValue {
                precondition(node.id == id, "a node is stored under its own id")
                if let s = slot(of: id) {
                    storage[s] = node
                } else {
                    precondition(storage.count < Int(UInt32.max), "too many layers")
                    storage.append(node)
                    insertEntry(id, slot: storage.count - 1)
                }
            } else if let e = entry(of: id) {
                let s = Int(table[e]) - 1
                removeEntry(at: e)
                let last = storage.count - 1
                if s != last {
                    // The last node moves into the hole: its entry now names slot `s`.
                    let moved = entry(of: storage[last].id)!
                    storage.swapAt(s, last)
                    table[moved] = UInt32(s + 1)
                }
                storage.removeLast()
            }
        }
    }

    /// The node with `id`, which must exist, read or changed in place.
    @inlinable public subscript(existing id: LayerID) -> LayerNode {
        get { storage[slot(of: id)!] }
        _modify {
            guard let s = slot(of: id) else { preconditionFailure("no layer \(id) in the tree") }
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

    /// Whether `other` is this store's very storage (the nodes and the slot table), shared
    /// copy-on-write rather than equal by content: what the model and render trees of an
    /// idle daemon hold once (ModelTree+Sharing.swift).
    public func sharesStorage(with other: NodeStore) -> Bool {
        func same<T>(_ a: [T], _ b: [T]) -> Bool {
            a.withUnsafeBufferPointer { p in b.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
        }
        return same(storage, other.storage) && same(table, other.table)
    }

    /// Removes every node for which `remove` is true.
    mutating func removeAll(where remove: (LayerNode) -> Bool) {
        storage.removeAll(where: remove)
        rehash(minimumCapacity: storage.count)
    }

    public static func == (a: NodeStore, b: NodeStore) -> Bool {
        guard a.count == b.count else { return false }
        if a.storage == b.storage { return true }   // the same slots (shared storage at once)
        for node in a.storage {
            guard let s = b.slot(of: node.id), b.storage[s] == node else { return false }
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
