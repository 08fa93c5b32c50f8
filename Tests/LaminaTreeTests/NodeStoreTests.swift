import LaminaGeometry
@testable import LaminaTree
import Testing
import TestSupport
import LaminaModel

/// The flat node storage: ids map to dense slots, removal moves the last node into the hole,
/// equality is by content. Expected values come from a plain dictionary kept alongside.
@Suite struct NodeStoreTests {
    @Test func insertRemoveAndSlotsAgreeWithADictionary() {
        var store = NodeStore()
        var reference: [LayerID: LayerNode] = [:]
        var random = SeededRandom(seed: 7)
        for step in 0..<2_000 {
            let id = LayerID(client: 1, local: UInt32(random.below(64)))
            if random.below(3) == 0 {
                store[id] = nil
                reference[id] = nil
            } else {
                var node = LayerNode(id: id, kind: .layer)
                node.properties.opacity = Double(step)
                node.sublayers = [LayerID(client: 1, local: UInt32(step))]
                store[id] = node
                reference[id] = node
            }
            #expect(store.count == reference.count)
        }
        for (id, node) in reference {
            #expect(store[id] == node)
            let slot = store.slot(of: id)!
            #expect(store[slot: slot] == node)
            store.withUnsafeNodes { #expect($0[slot].id == id) }
        }
        // Slots are dense: every slot holds a node of the store.
        #expect(Set(store.nodes.map(\.id)) == Set(reference.keys))
    }

    @Test func changesInPlaceByIdAndEqualityIgnoresSlotOrder() {
        var a = NodeStore(), b = NodeStore()
        let ids = (1...5).map { LayerID(client: 2, local: UInt32($0)) }
        for id in ids { a[id] = LayerNode(id: id, kind: .shape) }
        for id in ids.reversed() { b[id] = LayerNode(id: id, kind: .shape) }
        #expect(a == b)
        a[existing: ids[2]].properties.position = Point(3, 4)
        #expect(a != b)
        #expect(a[ids[2]]?.properties.position == Point(3, 4))
        b[existing: ids[2]].properties.position = Point(3, 4)
        #expect(a == b)
        a.removeAll { $0.id.local.isMultiple(of: 2) }
        #expect(a.count == 3 && !a.contains(ids[1]) && a.contains(ids[0]))
        for id in [ids[0], ids[2], ids[4]] { #expect(a[slot: a.slot(of: id)!].id == id) }
    }

    @Test func treeDeletesKeepTheOtherLayersIntact() throws {
        // Deleting layers moves others between slots; the tree must still find each by id.
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = []
        for i in 1...20 {
            ops += [.create(UInt32(i), .layer), .addSublayer(parent: 0, child: UInt32(i)),
                    .set(UInt32(i), keyPath: "opacity", value: .number(Double(i) / 20))]
        }
        try t.apply(Commit(client: 1, content: .operations(ops)))
        try t.apply(Commit(client: 1, content: .operations([.delete(3), .delete(1), .delete(17)])))
        for i in 1...20 where ![1, 3, 17].contains(i) {
            #expect(t[LayerID(client: 1, local: UInt32(i))]?.properties.opacity == Double(i) / 20)
        }
        #expect(t[LayerID(client: 1, local: 3)] == nil)
        #expect(t[.clientRoot(1)]?.sublayers.count == 17)
    }
}
