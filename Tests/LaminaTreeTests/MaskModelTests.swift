import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing

/// CALayer.mask in the model: the `mask` property names another layer of the same client,
/// which must exist, have no superlayer, mask no other layer and not contain the masked layer;
/// a mask cannot then become a sublayer or be deleted while it masks. Each refusal names the
/// operation and leaves the tree as it was.
@Suite struct MaskModelTests {
    func tree() throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 2, content: .connect))
        // 1 in the tree with sublayer 2; 3, 4 and 5 detached; 5 has sublayer 6.
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer), .create(3, .layer), .create(4, .layer), .create(5, .layer),
            .create(6, .layer), .addSublayer(parent: 0, child: 1), .addSublayer(parent: 1, child: 2),
            .addSublayer(parent: 5, child: 6),
        ])))
        try t.apply(Commit(client: 2, content: .operations([.create(9, .layer)])))
        return t
    }

    func refusal(_ t: inout LayerTree, _ ops: [LayerChange], client: UInt32 = 1) -> CommitError? {
        let before = t.version
        do {
            try t.apply(Commit(client: client, content: .operations(ops)))
            return nil
        } catch {
            #expect(t.version == before, "a refused commit changes nothing")
            return error
        }
    }

    func mask(_ t: LayerTree, _ local: UInt32) -> UInt32? {
        t.nodes[LayerID(client: 1, local: local)]?.properties.mask
    }

    @Test func aDetachedLayerBecomesAMaskAndIsReleased() throws {
        var t = try tree()
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "mask", value: .number(3))])))
        #expect(mask(t, 1) == 3)
        // Replaced: 3 is free again and can mask another layer.
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "mask", value: .number(4)),
                                                             .set(2, keyPath: "mask", value: .number(3))])))
        #expect(mask(t, 1) == 4 && mask(t, 2) == 3)
        // Unset: 4 may join the tree.
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "mask", value: .number(0)),
                                                             .addSublayer(parent: 1, child: 4)])))
        #expect(mask(t, 1) == 0)
        // Deleting a masked layer frees its mask.
        try t.apply(Commit(client: 1, content: .operations([.delete(2), .set(1, keyPath: "mask", value: .number(3))])))
        #expect(mask(t, 1) == 3)
    }

    @Test func badMasksAreRefusedWithClearErrors() throws {
        var t = try tree()
        func expectRefused(_ ops: [LayerChange], _ code: CommitError.Code, _ text: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
            let e = refusal(&t, ops)
            #expect(e?.code == code, sourceLocation: sourceLocation)
            #expect(e?.message.contains(text) == true, "\(String(describing: e?.message))", sourceLocation: sourceLocation)
        }
        expectRefused([.set(1, keyPath: "mask", value: .number(42))], .unknownLayer, "mask: layer 42 does not exist")
        // Another client's layer: ids are the client's own, so client 2's layer 9 is unknown here.
        expectRefused([.set(1, keyPath: "mask", value: .number(9))], .unknownLayer, "does not exist")
        expectRefused([.set(1, keyPath: "mask", value: .number(2))], .invalidHierarchy, "is in the layer tree")
        expectRefused([.set(1, keyPath: "mask", value: .number(1))], .invalidHierarchy, "is in the layer tree")
        expectRefused([.set(1, keyPath: "mask", value: .number(1.5))], .invalidValue, "layer id")
        expectRefused([.set(1, keyPath: "mask", value: .number(-1))], .invalidValue, "layer id")
        expectRefused([.set(1, keyPath: "mask", value: .string("x"))], .invalidValue, "number")
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "mask", value: .number(3))])))
        expectRefused([.set(2, keyPath: "mask", value: .number(3))], .invalidHierarchy, "already the mask of layer 1")
        expectRefused([.addSublayer(parent: 1, child: 3)], .invalidHierarchy, "is the mask of layer 1")
        expectRefused([.insertSublayer(parent: 4, child: 3, index: 0)], .invalidHierarchy, "is the mask of layer 1")
        expectRefused([.delete(3)], .invalidHierarchy, "is the mask of layer 1")
        // Cycles: a mask containing the masked layer, directly or through masks.
        expectRefused([.set(6, keyPath: "mask", value: .number(5))], .invalidHierarchy, "cycle")
        try t.apply(Commit(client: 1, content: .operations([.set(3, keyPath: "mask", value: .number(5))])))
        expectRefused([.set(6, keyPath: "mask", value: .number(3))], .invalidHierarchy, "is already the mask")
        // Layer 1 (in the tree) cannot go under its mask's mask's sublayer: 6 → 5 → masks 3 → masks 1.
        expectRefused([.removeFromSuperlayer(1), .addSublayer(parent: 6, child: 1)], .invalidHierarchy,
                      "cannot become a sublayer of itself")
        #expect(mask(t, 1) == 3 && mask(t, 3) == 5)
        // A refused commit rolls the mask relation back too: 4 is still free afterwards.
        expectRefused([.set(2, keyPath: "mask", value: .number(4)), .set(1, keyPath: "mask", value: .number(42))],
                      .unknownLayer, "42")
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "mask", value: .number(0)),
                                                             .set(2, keyPath: "mask", value: .number(3)),
                                                             .set(1, keyPath: "mask", value: .number(4))])))
        #expect(mask(t, 1) == 4 && mask(t, 2) == 3)
    }
}
