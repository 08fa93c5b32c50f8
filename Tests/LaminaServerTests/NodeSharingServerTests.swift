import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaServer
import LaminaTree
import LaminaWire
import Testing
import LaminaModel

/// The server shares the model's node storage with the render side's once the daemon is idle
/// (ServerCore+Sharing.swift), through the embedded daemon (ServerCore + FrameDriver, manual
/// compositor clock; the host's clock is the test's `now`).
@Suite struct NodeSharingServerTests {
    static func layers(_ d: EmbeddedDaemon, _ c: UInt32, _ range: ClosedRange<UInt32>, y: Double = 4) {
        var requests: [Request] = [.setTransaction(TransactionSettings(disableActions: true))]
        for i in range {
            requests += [.createLayer(id: i, kind: .layer), .setProperty(id: i, keyPath: "bounds", value: .rect(Rect(0, 0, 8, 8))),
                         .setProperty(id: i, keyPath: "position", value: .point(Point(Double(i) * 8, y))),
                         .setProperty(id: i, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
                         .addSublayer(parent: 0, child: i)]
        }
        guard case .committed = d.commit(requests, from: c) else { Issue.record("commit"); return }
    }

    static func number(_ e: Event) -> Double {
        if case .presentation(.number(let x)) = e { return x }
        if case .presentation(.point(let p)) = e { return p.x }
        return .nan
    }

    /// The model's, the render tree's and the published snapshot's nodes are one buffer.
    static func isShared(_ d: EmbeddedDaemon) -> Bool {
        d.core.model.nodes.sharesStorage(with: d.driver.tree.nodes)
            && d.core.model.nodes.sharesStorage(with: d.driver.snapshot!.tree.nodes)
    }

    @Test func anIdleDaemonKeepsItsNodesOnceAndACommitStillWorks() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        Self.layers(d, c, 1...40)
        #expect(!d.shareIdleNodes(at: 100))   // the model changed: due at 100.5
        #expect(!d.shareIdleNodes(at: 100.4))
        #expect(!Self.isShared(d))
        #expect(d.core.nodeSharingDue == 100 + ServerCore.nodeSharingDelay)
        #expect(d.shareIdleNodes(at: 100.6))
        #expect(Self.isShared(d))
        #expect(d.core.nodeSharingDue == nil)
        #expect(!d.shareIdleNodes(at: 200))   // nothing more to do
        // A commit after sharing: the model and the render tree each copy; values as committed.
        guard case .committed = d.commit([.setTransaction(TransactionSettings(disableActions: true)),
                                          .setProperty(id: 5, keyPath: "opacity", value: .number(0.25))], from: c) else {
            Issue.record("commit"); return
        }
        #expect(!Self.isShared(d))
        #expect(Self.number(d.request(.getPresentation(id: 5, keyPath: "opacity"), from: c)) == 0.25)
        #expect(Self.number(d.request(.getPresentation(id: 6, keyPath: "opacity"), from: c)) == 1)
        #expect(d.core.model[LayerID(client: c, local: 5)]!.properties.opacity == 0.25)
        CommitPacketTestsBridge.expectSameModel(d.driver.tree, d.core.model)
        // Idle again: shared again.
        #expect(!d.shareIdleNodes(at: 300))
        #expect(d.shareIdleNodes(at: 301))
        #expect(Self.isShared(d))
    }

    @Test func aStreamOfCommitsIsNeverShared() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        Self.layers(d, c, 1...10)
        var now = 10.0
        for step in 0..<20 {
            #expect(!d.shareIdleNodes(at: now), "step \(step)")
            now += ServerCore.nodeSharingDelay * 0.8
            #expect(!d.shareIdleNodes(at: now), "step \(step)")
            _ = d.commit([.setProperty(id: 1, keyPath: "opacity", value: .number(Double(step) / 20))], from: c)
        }
        #expect(!Self.isShared(d))
    }

    @Test func notSharedWhileSomethingAnimatesThenShared() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        Self.layers(d, c, 1...10)
        let spin = Animation.basic(BasicAnimation(keyPath: "transform.rotation.z", from: .double(0), to: .double(6),
                                                  timing: AnimationTiming(duration: 1, repeatCount: .infinity)))
        _ = d.commit([.addAnimation(id: 3, key: "spin", json: AnimationJSON.encode(spin).text)], from: c)
        d.tick(3, interval: 1 / 60)
        #expect(!d.shareIdleNodes(at: 0))
        #expect(!d.shareIdleNodes(at: 1))
        #expect(!Self.isShared(d))
        #expect(d.core.nodeSharingDue == 1 + ServerCore.nodeSharingRetry)   // tried again later
        #expect(!d.shareIdleNodes(at: 2))
        #expect(d.core.nodeSharingDue == 2 + 2 * ServerCore.nodeSharingRetry)   // and less often
        for t in 0..<6 { d.shareIdleNodes(at: 100 + 100 * Double(t)) }
        #expect(d.core.nodeSharingDue == 600 + 8 * ServerCore.nodeSharingRetry)
        _ = d.commit([.removeAnimation(id: 3, key: "spin")], from: c)
        d.tick(2, interval: 1 / 60)
        #expect(!d.shareIdleNodes(at: 1003))
        #expect(d.shareIdleNodes(at: 1004))
        #expect(Self.isShared(d))
        // The render side kept what it draws: the layer's model transform again.
        #expect(d.driver.tree[LayerID(client: c, local: 3)]!.animations.isEmpty)
    }

    @Test func aRejectedCommitAfterSharingChangesNothingAndIsSharedAgain() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        Self.layers(d, c, 1...10)
        d.shareIdleNodes(at: 0); #expect(d.shareIdleNodes(at: 1))
        let nodes = d.core.model.nodes
        // Deletes layer 2, then fails: the rollback puts layer 2 back in another slot.
        guard case .error = d.commit([.deleteLayer(id: 2), .deleteLayer(id: 99)], from: c) else {
            Issue.record("not rejected"); return
        }
        #expect(d.core.model.nodes == nodes)
        #expect(!d.core.model.nodes.sharesStorage(with: nodes))   // the rollback's own copy
        #expect(d.driver.tree.nodes.sharesStorage(with: nodes))    // the render tree never saw it
        #expect(!d.shareIdleNodes(at: 2))
        #expect(d.shareIdleNodes(at: 3))
        #expect(Self.isShared(d))
    }

    @Test func aDisconnectAfterSharingTakesOnlyThatClientsLayers() {
        let d = EmbeddedDaemon()
        let a = d.connect(name: "a")!, b = d.connect(name: "b")!
        Self.layers(d, a, 1...20, y: 4)
        Self.layers(d, b, 1...20, y: 40)
        d.shareIdleNodes(at: 0); #expect(d.shareIdleNodes(at: 1))
        // b cannot see a's layers through the shared storage: its own layer 3 is at y 40.
        #expect(d.request(.hitTest(x: 24, y: 4), from: b) == .hitResult(.otherClient, layer: 0))
        #expect(d.request(.hitTest(x: 24, y: 40), from: b) == .hitResult(.ownLayer, layer: 3))
        d.hangUp(a)
        _ = d.request(.ping(token: 1), from: b)
        #expect(d.core.model.nodes.nodes.allSatisfy { $0.id.client != a })
        #expect(d.driver.tree.nodes.nodes.allSatisfy { $0.id.client != a })
        #expect(d.core.model.count == 1 + 1 + 20)
        CommitPacketTestsBridge.expectSameModel(d.driver.tree, d.core.model)
        #expect(d.request(.hitTest(x: 24, y: 4), from: b) == .hitResult(.none, layer: 0))
        #expect(Self.number(d.request(.getPresentation(id: 3, keyPath: "position"), from: b)) == 24)
        d.shareIdleNodes(at: 2); #expect(d.shareIdleNodes(at: 3))
        #expect(Self.isShared(d))
    }
}

/// The render tree holds exactly the model's layers, structure and values.
enum CommitPacketTestsBridge {
    static func expectSameModel(_ render: LayerTree, _ model: ModelTree) {
        #expect(render.count == model.count)
        for node in model.nodes.nodes {
            guard let r = render[node.id] else { Issue.record("\(node.id) missing"); continue }
            #expect(r.kind == node.kind && r.superlayer == node.superlayer && r.sublayers == node.sublayers)
            #expect(r.properties == node.properties)
        }
    }
}
