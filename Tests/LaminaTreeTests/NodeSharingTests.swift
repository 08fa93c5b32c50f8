import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing
import TestSupport
import LaminaModel

/// The model tree shares the render tree's node storage once nothing animates
/// (ModelTree+Sharing.swift): equal content is a precondition, sharing is buffer identity, and
/// either tree's next change copies for itself only.
@Suite struct NodeSharingTests {
    /// A model and a render tree with `n` plain layers of client 1 (and client 2's `m`).
    static func trees(_ n: Int, other m: Int = 0) -> (ModelTree, LayerTree) {
        var model = ModelTree()
        var render = LayerTree()
        for (client, count) in [(UInt32(1), n), (2, m)] {
            render.apply(try! model.validate(Commit(client: client, content: .connect)), at: 0)
            guard count > 0 else { continue }
            let ops: [LayerChange] = (1...count).flatMap { i -> [LayerChange] in
                let id = UInt32(i)
                return [.create(id, .layer), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 8, 8))),
                        .set(id, keyPath: "position", value: .point(Point(Double(i), Double(client)))),
                        .addSublayer(parent: 0, child: id)]
            }
            render.apply(try! model.validate(Commit(client: client, content: .operations(ops))), at: 0)
        }
        return (model, render)
    }

    /// Whether the model rejects the commit (a `CommitError`).
    static func rejects(_ model: inout ModelTree, _ commit: Commit, at time: Double = 0) -> Bool {
        do { _ = try model.validate(commit, at: time); return false } catch { return true }
    }

    @Test func anIdleModelSharesTheRenderTreesStorage() {
        var (model, render) = Self.trees(200)
        var presentation = LayerTree()
        render.updatePresentation(&presentation, at: 0)   // a snapshot's tree: shares the render tree's
        let before = model.nodes
        #expect(!model.nodes.sharesStorage(with: render.nodes))
        let shared1 = model.shareNodes(with: presentation)
        #expect(shared1)
        // One buffer for the three: the model's own is gone; its content is as before.
        #expect(model.nodes.sharesStorage(with: render.nodes))
        #expect(model.nodes.sharesStorage(with: presentation.nodes))
        #expect(model.nodes == before)
        let shared2 = model.shareNodes(with: render)
        #expect(shared2)   // already shared
        // The render tree is untouched: same version, same storage as its presentation.
        #expect(render.nodes.sharesStorage(with: presentation.nodes))
    }

    @Test func aCommitAfterSharingChangesTheModelOnlyUntilItsPacketIsApplied() throws {
        var (model, render) = Self.trees(50)
        let shared3 = model.shareNodes(with: render)
        #expect(shared3)
        let renderNodes = render.nodes
        let id = LayerID(client: 1, local: 7)
        let packet = try model.validate(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)), .set(7, keyPath: "opacity", value: .number(0.25)), .create(60, .layer), .addSublayer(parent: 0, child: 60),
        ])))
        // The model copied for itself; the render tree's storage is the one it had.
        #expect(model[id]!.properties.opacity == 0.25 && model.count == render.count + 1)
        #expect(!model.nodes.sharesStorage(with: render.nodes))
        #expect(render.nodes.sharesStorage(with: renderNodes))
        #expect(render[id]!.properties.opacity == 1 && render[LayerID(client: 1, local: 60)] == nil)
        render.apply(packet, at: 0)
        #expect(render[id]!.properties.opacity == 0.25)
        CommitPacketTests.expectSameModel(render, model, "after the packet")
        let shared4 = model.shareNodes(with: render)
        #expect(shared4)
    }

    @Test func theRenderTreesChangeLeavesTheSharedModelAsItWas() throws {
        var (model, render) = Self.trees(20)
        let shared5 = model.shareNodes(with: render)
        #expect(shared5)
        let modelNodes = model.nodes
        // A packet from another model (a tree fed elsewhere): the render tree copies, the
        // model's nodes stay.
        var other = model
        render.apply(try other.validate(Commit(client: 1, content: .operations([.delete(3)]))), at: 0)
        #expect(render[LayerID(client: 1, local: 3)] == nil)
        #expect(model[LayerID(client: 1, local: 3)] != nil)
        #expect(model.nodes.sharesStorage(with: modelNodes) && model.nodes == modelNodes)
    }

    @Test func notSharedWhileThePacketsAreNotAllApplied() throws {
        var (model, render) = Self.trees(10)
        let packet = try model.validate(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)), .set(1, keyPath: "opacity", value: .number(0.5)),
        ])))
        let shared6 = model.shareNodes(with: render)
        #expect(!shared6)
        render.apply(packet, at: 0)
        let shared7 = model.shareNodes(with: render)
        #expect(shared7)
    }

    @Test func notSharedWhileSomethingAnimatesAndSharedOnceItIsRemoved() throws {
        var (model, render) = Self.trees(10)
        let held = BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                  timing: AnimationTiming(duration: 1, fillMode: .forwards, removedOnCompletion: false))
        render.apply(try model.validate(Commit(client: 1, content: .operations([.addAnimation(2, key: "fade", animation: .basic(held))])), at: 0), at: 0)
        #expect(!render.presentsModelValues)
        let shared8 = model.shareNodes(with: render)
        #expect(!shared8)
        render.advance(to: 5)   // ended, but held (not removed on completion)
        let shared9 = model.shareNodes(with: render.presentation(at: 5))
        #expect(!shared9)
        render.apply(try model.validate(Commit(client: 1, content: .operations([.removeAnimation(2, key: "fade")])), at: 6), at: 6)
        #expect(render.presentsModelValues)
        let shared10 = model.shareNodes(with: render.presentation(at: 6))
        #expect(shared10)
        #expect(model.nodes.sharesStorage(with: render.nodes))
    }

    @Test func theLedgerStaysWithTheModelAcrossSharing() throws {
        var model = ModelTree(maxAnimationsPerLayer: 1)
        var render = LayerTree()
        render.apply(try model.validate(Commit(client: 1, content: .connect)), at: 0)
        render.apply(try model.validate(Commit(client: 1, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)]))), at: 0)
        let fade = Animation.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1)))
        render.apply(try model.validate(Commit(client: 1, content: .operations([.addAnimation(1, key: "a", animation: fade)])), at: 0), at: 0)
        let id = LayerID(client: 1, local: 1)
        #expect(model.animationLedger(of: id).map(\.key) == ["a"])
        render.advance(to: 2)   // ended and removed on completion
        let shared11 = model.shareNodes(with: render)
        #expect(shared11)
        #expect(model.animationLedger(of: id).map(\.key) == ["a"] && model.animationLedger(of: id).map(\.removedAt) == [1])
        // At 0.5 the ledger says the render tree still holds "a": a second animation is over the limit.
        #expect(Self.rejects(&model, Commit(client: 1, content: .operations([.addAnimation(1, key: "b", animation: fade)])), at: 0.5))
        #expect(model.nodes.sharesStorage(with: render.nodes))   // a rejected commit changed nothing here
        #expect(model.animationLedger(of: id).map(\.key) == ["a"])
        render.apply(try model.validate(Commit(client: 1, content: .operations([.addAnimation(1, key: "b", animation: fade)])), at: 2), at: 2)
        #expect(model.animationLedger(of: id).map(\.key) == ["b"])
        // A deleted layer's ledger goes with it (and comes back with its rollback).
        #expect(Self.rejects(&model, Commit(client: 1, content: .operations([.delete(1), .delete(1)])), at: 2))
        #expect(model.animationLedger(of: id).map(\.key) == ["b"])
        render.apply(try model.validate(Commit(client: 1, content: .operations([.delete(1)])), at: 2), at: 2)
        #expect(model.animationLedger(of: id).isEmpty)
    }

    @Test func eachClientsLayersStayItsOwnAfterSharingAndADisconnect() throws {
        var (model, render) = Self.trees(30, other: 30)
        let shared12 = model.shareNodes(with: render)
        #expect(shared12)
        // Client 2 cannot reach client 1's layers through the shared storage.
        #expect(Self.rejects(&model, Commit(client: 2, content: .operations([.addSublayer(parent: 31, child: 1)]))))
        let packet = try model.validate(Commit(client: 1, content: .disconnect))
        #expect(model.nodes.nodes.allSatisfy { $0.id.client != 1 })
        #expect(render.nodes.nodes.filter { $0.id.client == 1 }.count == 31)   // until the packet
        render.apply(packet, at: 0)
        CommitPacketTests.expectSameModel(render, model, "after the disconnect")
        #expect(model.count == 1 + 1 + 30)
        for i in 1...30 { #expect(model[LayerID(client: 2, local: UInt32(i))]?.properties.position == Point(Double(i), 2)) }
        let shared13 = model.shareNodes(with: render)
        #expect(shared13)
    }

    /// Random commits as `CommitPacketTests` makes them, shared at random idle moments: the
    /// render tree always holds exactly the model's nodes when nothing animates (so sharing
    /// succeeds), a commit never reaches the render tree before its packet, and a rejected one
    /// changes neither tree.
    @Test func randomCommitsWithSharingKeepBothTreesRight() {
        var rng = SeededRandom(seed: 0x5EED)
        var model = ModelTree(maxLayersPerClient: 12, maxAnimationsPerLayer: 3, maxDepth: 4)
        var render = LayerTree()
        for client: UInt32 in [1, 2] { render.apply(try! model.validate(Commit(client: client, content: .connect)), at: 0) }
        var shared = 0, refused = 0
        for step in 0..<800 {
            let time = Double(step) * 0.25
            render.advance(to: time)
            if rng.below(3) == 0 {
                if render.presentsModelValues {
                    let shared14 = model.shareNodes(with: render.presentation(at: time))
                    #expect(shared14, "step \(step): not shared")
                    #expect(model.nodes.sharesStorage(with: render.nodes))
                    shared += 1
                } else {
                    let shared15 = model.shareNodes(with: render)
                    #expect(!shared15, "step \(step): shared while animating")
                    refused += 1
                }
            }
            let client = UInt32(1 + rng.below(2))
            var commit = Commit(client: client, content: .operations((0..<(1 + rng.below(3))).map { _ in
                CommitPacketTests.operation(&rng, layers: 6)
            }))
            commit.time = time
            let (modelBefore, renderBefore, wasShared) = (model.nodes, render.nodes, model.nodes.sharesStorage(with: render.nodes))
            do {
                let packet = try model.validate(commit, at: time)
                #expect(render.nodes.sharesStorage(with: renderBefore) && render.nodes == renderBefore,
                        "step \(step): the commit reached the render tree before its packet")
                render.apply(packet, at: time)
            } catch {
                #expect(model.nodes == modelBefore, "step \(step): rejected commit changed the model")
                #expect(render.nodes.sharesStorage(with: renderBefore))
                if wasShared {
                    let again = model.shareNodes(with: render)
                    #expect(again, "step \(step): not shared after a rejection")
                }
            }
            CommitPacketTests.expectSameModel(render, model, "step \(step)")
            CommitPacketTests.expectLedgerCounts(render, model, at: time, "step \(step)")
        }
        #expect(shared > 50 && refused > 50, "shared \(shared), refused \(refused)")
    }
}
