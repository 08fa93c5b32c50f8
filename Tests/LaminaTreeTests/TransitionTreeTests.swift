import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing

/// The render tree's removal transitions where the model moves layers around a leaving one.
@Suite struct TransitionTreeTests {
    func tree() throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer), .addSublayer(parent: 0, child: 1), .addSublayer(parent: 1, child: 2),
        ])), at: 0)
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
            .setTransitions(2, LayerTransitions(removal: .opacity)), .removeFromSuperlayer(2),
        ])), at: 1)
        return t
    }

    @Test func aLeavingLayerStaysUnderItsSuperlayerUntilItsEnd() throws {
        var t = try tree()
        let p = LayerID(client: 1, local: 1), a = LayerID(client: 1, local: 2)
        t.advance(to: 1.5)
        #expect(t[a]?.superlayer == p && t.isDeparting(a))
        #expect(t.presentation(at: 1.5)[a]?.properties.opacity == 0.5)
        t.advance(to: 2)
        #expect(t[a]?.superlayer == nil && !t.isDeparting(a) && t[p]?.sublayers == [])
    }

    /// The model may put the leaving layer's superlayer under it: the departure ends at once
    /// rather than make a cycle in the render tree.
    @Test func puttingTheOldSuperlayerUnderALeavingLayerMakesNoCycle() throws {
        var t = try tree()
        let p = LayerID(client: 1, local: 1), a = LayerID(client: 1, local: 2)
        t.advance(to: 1.5)
        try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 2, child: 1)])), at: 1.5)
        #expect(t[a]?.superlayer == nil && !t.isDeparting(a))
        #expect(t[p]?.superlayer == a && t[a]?.sublayers == [p])
        var count = 0
        t.presentation(at: 1.6).visit { _, _ in count += 1; return count < 100 }
        #expect(count == 2)   // the root and client 1's container: a and p hang from nothing now
    }

    /// An insertion at a model index goes just before the model's layer at that index (else at
    /// the end): leaving layers keep their place.
    @Test func insertionIndicesSkipLeavingLayers() throws {
        var t = try tree()
        let p = LayerID(client: 1, local: 1), a = LayerID(client: 1, local: 2), b = LayerID(client: 1, local: 3)
        try t.apply(Commit(client: 1, content: .operations([.create(3, .layer), .insertSublayer(parent: 1, child: 3, index: 0)])), at: 1.2)
        #expect(t[p]?.sublayers == [a, b])
        try t.apply(Commit(client: 1, content: .operations([.create(4, .layer), .insertSublayer(parent: 1, child: 4, index: 1)])), at: 1.3)
        // Model: [3, 4]; the leaving a stays first here.
        #expect(t[p]?.sublayers == [a, b, LayerID(client: 1, local: 4)])
        try t.apply(Commit(client: 1, content: .operations([.create(5, .layer), .insertSublayer(parent: 1, child: 5, index: 1)])), at: 1.4)
        #expect(t[p]?.sublayers == [a, b, LayerID(client: 1, local: 5), LayerID(client: 1, local: 4)])
    }
}
