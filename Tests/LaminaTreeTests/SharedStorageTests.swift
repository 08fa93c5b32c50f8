import Foundation
import LaminaAnimation
import LaminaGeometry
@testable import LaminaTree
import Testing
import TestSupport
@testable import LaminaModel

/// The trees' compact storage: a transform other than the identity is boxed, custom numbers
/// and templates sit with the rare properties, a node's rarely non-empty lists in one optional
/// box, and the slots of ids are an open-addressing table. Values must behave as if every
/// field were stored inline.
@Suite struct SharedStorageTests {
    func rotation(_ angle: Double) -> Transform3D { .rotation(angle, 0, 0, 1) }

    @Test func theTransformIsTheIdentityWithoutABox() {
        let p = LayerProperties()
        #expect(p.transform == .identity)
        #expect(p.transformStorage.box == nil)
        var q = p
        q.transform = .identity          // an identity write to no box makes none
        #expect(q.transformStorage.box == nil)
        #expect(q == p)
    }

    @Test func aTransformIsSetReadAndResetByValue() {
        var p = LayerProperties()
        let r = rotation(0.5)
        p.transform = r
        #expect(p.transform == r)
        #expect(p.transformStorage.box != nil)
        p.transform.m41 = 12             // in place, through `_modify`
        var expected = r
        expected.m41 = 12
        #expect(p.transform == expected)
        // Back to the identity through a component write: the box stays, the value is equal to
        // an unboxed identity, and hashes alike.
        var q = p
        q.transform = rotation(0)
        q.transform.m41 = 0
        #expect(q.transform == .identity)
        #expect(q.transformStorage.box != nil)
        #expect(q == LayerProperties())
        #expect(q.hashValue == LayerProperties().hashValue)
        #expect(Set([q, LayerProperties(), p]).count == 2)
        // A shared box is not written: the original keeps its value.
        #expect(p.transform == expected)
    }

    @Test func aNegativeZeroInTheTransformIsKeptBitForBit() {
        var p = LayerProperties()
        var m = Transform3D.identity
        m.m42 = -0.0
        p.transform = m
        #expect(p.transform.m42.sign == .minus)
        #expect(p.transform == .identity)   // equal by value (-0 == 0)
    }

    @Test func copiesAreIndependent() {
        var a = LayerProperties()
        a.opacity = 0.25
        a.transform = rotation(1)
        var b = a                        // shares the transform's box
        #expect(!isKnownUniquelyReferenced(&a.transformStorage.box))
        b.opacity = 0.75
        b.transform.m11 = 2              // copies it: each holds its own again
        #expect(isKnownUniquelyReferenced(&a.transformStorage.box) && isKnownUniquelyReferenced(&b.transformStorage.box))
        #expect(a.opacity == 0.25 && b.opacity == 0.75)
        #expect(a.transform == rotation(1))
        #expect(b.transform.m11 == 2)
        a.custom["k"] = [1]
        #expect(b.custom.isEmpty)
        #expect(a.custom["k"] == [1])
    }

    @Test func theModelAndRenderTreesChangeApart() throws {
        var model = ModelTree()
        var render = LayerTree()
        render.apply(try model.validate(Commit(client: 1, content: .connect)), at: 0)
        render.apply(try model.validate(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 8, 8))),
            .set(1, keyPath: "transform", value: .transform(rotation(0.3))),
        ]))), at: 0)
        let id = LayerID(client: 1, local: 1)
        #expect(render[id]!.properties == model[id]!.properties)
        // The model tree changes its own copy; the render tree keeps what it was sent.
        let packet = try model.validate(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "transform.rotation.z", value: .number(0.6)),
        ])))
        #expect(render[id]!.properties.transform == rotation(0.3))
        #expect(abs(model[id]!.properties.transform.m12 - sin(0.6)) < 1e-12)
        render.apply(packet, at: 0)
        #expect(render[id]!.properties == model[id]!.properties)
    }

    @Test func aRotatingLayersPatchWritesInPlaceAndLeavesTheModelAlone() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .addAnimation(1, key: "spin", animation: .basic(BasicAnimation(
                keyPath: "transform.rotation.z", from: .double(0), to: .double(3),
                timing: AnimationTiming(duration: 1, repeatCount: .infinity)))),
        ])), at: 0)
        let id = LayerID(client: 1, local: 1)
        var p = LayerTree()
        t.updatePresentation(&p, at: 0.1)
        // Weak: holding the box would make the patch copy it.
        weak var transformBox = p[id]!.properties.transformStorage.box
        #expect(transformBox != nil)
        for frame in 2...5 {
            let time = Double(frame) / 10
            t.updatePresentation(&p, at: time)
            // The first frame's box, alive and written in place (no allocation per frame): it
            // holds this frame's transform.
            #expect(transformBox != nil && transformBox?.value == p[id]!.properties.transform)
            #expect(p[id]!.properties == t.presentationProperties(of: id, at: time))
        }
        #expect(t[id]!.properties.transform == .identity)
        #expect(t[id]!.properties.transformStorage.box == nil)
        // The animation removed: the presentation shows the model's identity again.
        try t.apply(Commit(client: 1, content: .operations([.removeAnimation(1, key: "spin")])), at: 0.6)
        t.updatePresentation(&p, at: 0.7)
        #expect(p[id]!.properties.transform == .identity)
        #expect(p[id]!.properties == t[id]!.properties)
    }

    @Test func theListsBoxIsMadeForAnimationsAndDroppedWhenEmpty() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)])))
        let id = LayerID(client: 1, local: 1)
        #expect(t[id]!.extras.box == nil)
        #expect(t[id]!.animations.isEmpty && t[id]!.expressions.isEmpty && !t[id]!.hasContentsFade)
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "fade", animation: .basic(BasicAnimation(
                keyPath: "opacity", from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1)))),
        ])), at: 0)
        #expect(t[id]!.extras.box != nil)
        #expect(t[id]!.animations.map(\.key) == ["fade"])
        try t.apply(Commit(client: 1, content: .operations([.removeAnimation(1, key: "fade")])), at: 0.5)
        #expect(t[id]!.animations.isEmpty)
        #expect(t[id]!.extras.box == nil)
        // A node with a box of empty lists equals one without.
        var a = LayerNode(id: id, kind: .layer)
        let b = a
        a.contentsFade = ContentsFade(from: "x", beginTime: 0, duration: 1, timingFunction: .linear)
        #expect(a != b)
        a.contentsFade = nil
        #expect(a == b)
    }

    @Test func manyClientsIdsAgreeWithADictionary() {
        // Enough ids to grow the table several times, from three clients whose local ids
        // overlap, with removals (which move later entries of a probe run back).
        var store = NodeStore()
        var reference: [LayerID: Double] = [:]
        var random = SeededRandom(seed: 11)
        for step in 0..<30_000 {
            let id = LayerID(client: UInt32(1 + random.below(3)), local: UInt32(random.below(4_000)))
            if random.below(4) == 0 {
                store[id] = nil
                reference[id] = nil
            } else {
                var node = LayerNode(id: id, kind: .layer)
                node.properties.opacity = Double(step)
                store[id] = node
                reference[id] = Double(step)
            }
        }
        #expect(store.count == reference.count)
        for (id, opacity) in reference {
            #expect(store[id]?.properties.opacity == opacity)
        }
        // Ids never stored, or removed, are not found.
        for local in UInt32(4_000)..<4_100 { #expect(!store.contains(LayerID(client: 2, local: local))) }
        for client in UInt32(1)...3 {
            for local in UInt32(0)..<4_000 {
                let id = LayerID(client: client, local: local)
                #expect(store.contains(id) == (reference[id] != nil))
            }
        }
        store.removeAll { $0.id.client == 2 }
        #expect(store.count == reference.keys.filter { $0.client != 2 }.count)
        for (id, opacity) in reference where id.client != 2 { #expect(store[id]?.properties.opacity == opacity) }
    }

    @Test func depthAndShadowFieldsLiveWithTheRareOnes() throws {
        // Properties.table's defaults, without a box.
        let p = LayerProperties()
        #expect(p.zPosition == 0 && p.anchorPointZ == 0 && p.shadowOpacity == 0)
        #expect(p.rare.box == nil)
        var q = p
        q.zPosition = 3
        #expect(q.rare.box != nil && q.zPosition == 3 && p.zPosition == 0)
        q.zPosition = 0
        #expect(q == p && q.hashValue == p.hashValue)
        // Animated on the render side: the presentation changes, the model keeps its values.
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "shadowOpacity", value: .number(0.5)),
            .addAnimation(1, key: "z", animation: .basic(BasicAnimation(
                keyPath: "zPosition", from: .double(0), to: .double(10), timing: AnimationTiming(duration: 1)))),
        ])), at: 0)
        let id = LayerID(client: 1, local: 1)
        var presentation = LayerTree()
        t.updatePresentation(&presentation, at: 0.5)
        #expect(presentation[id]!.properties == t.presentationProperties(of: id, at: 0.5))
        #expect(presentation[id]!.properties.zPosition > 0)
        #expect(presentation[id]!.properties.shadowOpacity == 0.5)
        #expect(t[id]!.properties.zPosition == 0 && t[id]!.properties.shadowOpacity == 0.5)
    }

    @Test func aPlainLayerIsSmallInEachTree() {
        // The inline fields without padding: 9 words of numbers (bounds, position, anchorPoint,
        // opacity), the transform's and the rare box's references, a 33-byte optional color,
        // 4 one-byte fields.
        #expect(MemoryLayout<LayerProperties>.size <= 9 * 8 + 2 * 8 + 33 + 4)
        // The properties, the kind and the fade flag in their tail padding (to 127 bytes), then
        // (at 128) the id, two references and the superlayer's id: 160 bytes.
        #expect(MemoryLayout<LayerProperties>.size + 2 <= 128)
        #expect(MemoryLayout<LayerNode>.stride <= 128 + 8 + 2 * 8 + 8)
        var node = LayerNode(id: LayerID(client: 1, local: 2), kind: .layer)
        #expect(node.superlayer == nil)
        node.superlayer = LayerID(client: 1, local: 0)
        #expect(node.superlayer == LayerID(client: 1, local: 0))
        node.superlayer = nil
        #expect(node.superlayer == nil && node == LayerNode(id: LayerID(client: 1, local: 2), kind: .layer))
    }
    @Test func snapshotsKeepNoNodesOfAnOlderModelVersion() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)])))
        var maker = SnapshotMaker()
        weak var second: PresentationSnapshot?
        _ = maker.make(from: t, at: 0)
        second = maker.make(from: t, at: 1)
        // Nothing animates: the snapshots share the render tree's nodes, and the older one
        // is kept for reuse while the model version stays.
        #expect(second != nil && second!.tree.nodes.sharesStorage(with: t.nodes))
        // A commit copies the render tree's nodes on write (the snapshots share them): the
        // next frame's snapshot shares the new nodes, and the one before, which holds the
        // old ones, is let go.
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "opacity", value: .number(0.5)),
        ])), at: 2)
        weak var third: PresentationSnapshot?
        third = maker.make(from: t, at: 2)
        #expect(second == nil)
        #expect(third!.tree.nodes.sharesStorage(with: t.nodes))
        #expect(third!.tree[LayerID(client: 1, local: 1)]?.properties.opacity == 0.5)
        // With the model unchanged again, two snapshots alternate as before (the maker holds
        // the only reference to the one it reuses).
        let fourth = maker.make(from: t, at: 3)
        #expect(third?.time == 2 && fourth.time == 3)                  // a new one; the older kept as it was
        let fifth = maker.make(from: t, at: 4)
        #expect(third?.time == 4 && third?.frame == fifth.frame)       // the older one, patched in place
        #expect(fourth.time == 3)
    }
}
