import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

@Suite struct LayerTreeTests {
    func connected(_ clients: UInt32...) -> LayerTree {
        var t = LayerTree()
        for c in clients { try! t.apply(Commit(client: c, content: .connect)) }
        return t
    }

    @Test func commitAppliesInOrder() throws {
        var t = connected(1)
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer),
            .addSublayer(parent: 0, child: 1), .addSublayer(parent: 1, child: 2),
            .set(2, keyPath: "position", value: .point(Point(3, 4))),
        ])))
        let a = LayerID(client: 1, local: 1), b = LayerID(client: 1, local: 2)
        #expect(t[.clientRoot(1)]?.sublayers == [a])
        #expect(t[a]?.sublayers == [b])
        #expect(t[b]?.superlayer == a)
        #expect(t[b]?.properties.position == Point(3, 4))
    }

    @Test func aFailingOperationRejectsTheWholeCommit() throws {
        var t = connected(1)
        try t.apply(Commit(client: 1, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)])))
        let before = t.nodes
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([
                .create(2, .layer),
                .set(1, keyPath: "opacity", value: .number(0.5)),
                .addSublayer(parent: 1, child: 2),
                .set(2, keyPath: "nonsense", value: .number(1)),
            ])))
        }
        #expect(t.nodes == before)
        #expect(t.layerCount(client: 1) == 1)
    }

    @Test func errorsNameTheOperation() {
        var t = connected(1)
        do {
            try t.apply(Commit(client: 1, content: .operations([.create(1, .layer), .set(1, keyPath: "opacity", value: .point(.zero))])))
            Issue.record("expected an error")
        } catch {
            #expect(error.index == 1)
            #expect(error.code == .invalidValue)
            #expect(error.message == "opacity: expected number, got point")
        }
    }

    @Test func cyclesAreRejected() throws {
        var t = connected(1)
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer), .addSublayer(parent: 1, child: 2)])))
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 2, child: 1)])))
        }
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 1, child: 1)])))
        }
    }

    @Test func insertClampsAndMoves() throws {
        var t = connected(1)
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer), .create(3, .layer),
            .addSublayer(parent: 0, child: 1), .addSublayer(parent: 0, child: 2),
            .insertSublayer(parent: 0, child: 3, index: 0),
            .insertSublayer(parent: 0, child: 1, index: 99),
        ])))
        #expect(t[.clientRoot(1)]?.sublayers.map(\.local) == [3, 2, 1])
    }

    @Test func clientsCannotNameEachOthersLayers() throws {
        var t = connected(1, 2)
        try t.apply(Commit(client: 1, content: .operations([.create(7, .layer)])))
        // Client 2's id 7 is its own namespace: it does not exist there.
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 2, content: .operations([.set(7, keyPath: "opacity", value: .number(0))])))
        }
        #expect(t[LayerID(client: 1, local: 7)]?.properties.opacity == 1)
    }

    @Test func disconnectRemovesOnlyThatClient() throws {
        var t = connected(1, 2)
        try t.apply(Commit(client: 1, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)])))
        try t.apply(Commit(client: 2, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)])))
        try t.apply(Commit(client: 1, content: .disconnect))
        #expect(t[LayerID(client: 1, local: 1)] == nil)
        #expect(t[LayerID(client: 2, local: 1)] != nil)
        #expect(t[.root]?.sublayers == [.clientRoot(2)])
    }

    @Test func deleteDetachesSublayers() throws {
        var t = connected(1)
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer), .addSublayer(parent: 0, child: 1), .addSublayer(parent: 1, child: 2),
            .delete(1)])))
        #expect(t[LayerID(client: 1, local: 1)] == nil)
        #expect(t[LayerID(client: 1, local: 2)]?.superlayer == nil)
        #expect(t[.clientRoot(1)]?.sublayers == [])
        #expect(t.layerCount(client: 1) == 1)
    }

    @Test func layerLimitIsAnError() throws {
        var t = LayerTree(maxLayersPerClient: 2)
        try t.apply(Commit(client: 1, content: .connect))
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([.create(1, .layer), .create(2, .layer), .create(3, .layer)])))
        }
        #expect(t.layerCount(client: 1) == 0)
    }

    @Test func nestingDepthIsLimited() throws {
        // maxDepth 4: top-level layers are at depth 1, so a chain 1 → 2 → 3 → 4 fits and a
        // fifth level does not, whichever way the chain is put together.
        var t = LayerTree(maxDepth: 4)
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations((1...6).map { .create($0, .layer) } + [
            .addSublayer(parent: 0, child: 1), .addSublayer(parent: 1, child: 2),
            .addSublayer(parent: 2, child: 3), .addSublayer(parent: 3, child: 4),
        ])))
        let before = t.nodes
        do {
            try t.apply(Commit(client: 1, content: .operations([
                .set(1, keyPath: "opacity", value: .number(0.5)), .addSublayer(parent: 4, child: 5)])))
            Issue.record("a fifth level was accepted")
        } catch {
            #expect(error.code == .limitExceeded && error.index == 1, "\(error)")
        }
        #expect(t.nodes == before, "nothing of the failed commit applied")
        // A detached two-level subtree (5 → 6) fits under depth 2 (reaching 4), not under 3.
        try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 5, child: 6)])))
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 3, child: 5)])))
        }
        try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 2, child: 5)])))
        #expect(t[LayerID(client: 1, local: 6)]?.superlayer == LayerID(client: 1, local: 5))
        // Building bottom-up hits the same limit: a detached 4-level chain 7 → … → 10 fits at
        // the top level only, and a 5-level chain nowhere.
        try t.apply(Commit(client: 1, content: .operations((7...11).map { .create($0, .layer) } + [
            .addSublayer(parent: 9, child: 10), .addSublayer(parent: 8, child: 9), .addSublayer(parent: 7, child: 8),
            .addSublayer(parent: 0, child: 7),
        ])))
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([.addSublayer(parent: 11, child: 7)])))
        }
    }

    @Test func badValuesAreRejected() {
        var p = LayerProperties()
        #expect(throws: PropertyError.notFinite(keyPath: "opacity")) { try p.setValue(.number(.nan), forKeyPath: "opacity") }
        #expect(throws: PropertyError.self) { try p.setValue(.rect(Rect(0, 0, -1, 5)), forKeyPath: "bounds") }
        #expect(throws: PropertyError.unknownKeyPath("custom.a.b")) { try p.setValue(.number(1), forKeyPath: "custom.a.b") }
        #expect(p == LayerProperties())
    }
}
