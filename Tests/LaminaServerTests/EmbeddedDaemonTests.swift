import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing
import LaminaModel

/// The protocol end to end through the embedded daemon (ServerCore + FrameDriver, manual
/// clock): no sockets, threads, sleeps or GPU. The socket + lavapipe versions of the pixel
/// checks stay in `DaemonTests`.
@Suite struct EmbeddedDaemonTests {
    static func number(_ e: Event) -> Double {
        if case .presentation(.number(let x)) = e { return x }
        return .nan
    }

    static func json(_ a: Animation) -> String { AnimationJSON.encode(a).text }

    /// The issue's scene (see `DaemonTests.buildScene`): A red at (20, 20) anchor (0, 0); C a
    /// green child of A at (50, 50) rotated 45°; B blue 80×80 anchor (1, 1) at (180, 180).
    static func buildScene(_ d: EmbeddedDaemon, _ c: UInt32) {
        let reply = d.commit([
            .createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 100))),
            .setProperty(id: 1, keyPath: "anchorPoint", value: .point(Point(0, 0))),
            .setProperty(id: 1, keyPath: "position", value: .point(Point(20, 20))),
            .setProperty(id: 1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
            .addSublayer(parent: 0, child: 1),
            .createLayer(id: 2, kind: .layer), .setProperty(id: 2, keyPath: "bounds", value: .rect(Rect(0, 0, 40, 40))),
            .setProperty(id: 2, keyPath: "position", value: .point(Point(50, 50))),
            .setProperty(id: 2, keyPath: "transform", value: .transform(.rotation(.pi / 4))),
            .addSublayer(parent: 1, child: 2),
            .createLayer(id: 3, kind: .layer), .setProperty(id: 3, keyPath: "bounds", value: .rect(Rect(0, 0, 80, 80))),
            .setProperty(id: 3, keyPath: "anchorPoint", value: .point(Point(1, 1))),
            .setProperty(id: 3, keyPath: "position", value: .point(Point(180, 180))),
            .setProperty(id: 3, keyPath: "opacity", value: .number(0.5)),
            .addSublayer(parent: 0, child: 3),
        ], from: c)
        guard case .committed = reply else { Issue.record("scene commit: \(reply)"); return }
    }

    @Test func hitTestsFollowTheScenesGeometry() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        Self.buildScene(d, c)
        // C is the diamond |dx| + |dy| ≤ 20√2 around (70, 70); (52.5, 52.5) is outside it, in A.
        #expect(d.request(.hitTest(x: 70.5, y: 45.5), from: c) == .hitResult(.ownLayer, layer: 2))
        #expect(d.request(.hitTest(x: 52.5, y: 52.5), from: c) == .hitResult(.ownLayer, layer: 1))
        #expect(d.request(.hitTest(x: 150, y: 150), from: c) == .hitResult(.ownLayer, layer: 3))
        #expect(d.request(.hitTest(x: 10, y: 10), from: c) == .hitResult(.none, layer: 0))
    }

    @Test func implicitAnimationCompletionAndPresentation() {
        // What the client library sends for a transaction with a completion.
        let d = EmbeddedDaemon()
        let c = d.connect(name: "anim")!
        _ = d.commit([.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 50, 50))),
                      .setProperty(id: 1, keyPath: "position", value: .point(Point(100, 100))),
                      .addSublayer(parent: 0, child: 1)], from: c)
        let reply = d.commit([.setTransaction(TransactionSettings(duration: 1, timingFunction: .linear, completionIDs: [1])),
                              .setProperty(id: 1, keyPath: "opacity", value: .number(0)), .completion(id: 1)], from: c)
        guard case .committed = reply else { Issue.record("\(reply)"); return }
        #expect(!d.takeEvents(c).contains { $0.event == .transactionCompleted(id: 1) })
        #expect(d.request(.advanceClock(seconds: 0.25), from: c) == .clockAdvanced(time: 0.25))
        // Linear from the presentation value 1 to 0 over 1 s: 0.75 at a quarter.
        #expect(abs(Self.number(d.request(.getPresentation(id: 1, keyPath: "opacity"), from: c)) - 0.75) < 1e-9)
        #expect(d.request(.hitTest(x: 100, y: 100), from: c) == .hitResult(.ownLayer, layer: 1))
        _ = d.request(.advanceClock(seconds: 1), from: c)
        #expect(d.takeEvents(c).map(\.event) == [.transactionCompleted(id: 1)])
        #expect(Self.number(d.request(.getPresentation(id: 1, keyPath: "opacity"), from: c)) == 0)
        _ = d.request(.ping(token: 1), from: c)
        #expect(d.takeEvents(c).isEmpty, "the completion fires once")
    }

    @Test func explicitAnimationEventsAndRemoval() {
        let d = EmbeddedDaemon()
        let c = d.connect(name: "anim")!
        _ = d.commit([.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                      .addSublayer(parent: 0, child: 1)], from: c)
        let slide = Animation.basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(100),
                                                   timing: AnimationTiming(duration: 2)))
        _ = d.commit([.addAnimation(id: 1, key: "slide", json: Self.json(slide))], from: c)
        _ = d.request(.advanceClock(seconds: 0.5), from: c)
        #expect(Self.number(d.request(.getPresentation(id: 1, keyPath: "position.x"), from: c)) == 25)
        _ = d.commit([.removeAnimation(id: 1, key: "slide")], from: c)
        #expect(Self.number(d.request(.getPresentation(id: 1, keyPath: "position.x"), from: c)) == 0)
        _ = d.request(.ping(token: 2), from: c)
        #expect(d.takeEvents(c).map(\.event) == [.animationStarted(layer: 1, key: "slide"),
                                                 .animationStopped(layer: 1, key: "slide", finished: false)])
    }

    @Test func aBadAnimationRejectsTheCommit() {
        let d = EmbeddedDaemon()
        let c = d.connect(name: "anim")!
        let bad = Animation.basic(BasicAnimation(keyPath: "opacity", from: .point(.zero), to: .double(1)))
        let ids = d.send([.createLayer(id: 1, kind: .layer), .addSublayer(parent: 0, child: 1),
                          .addAnimation(id: 1, key: "bad", json: Self.json(bad))], from: c)
        guard case .error(_, let code, _, _) = d.request(.commit, from: c) else { Issue.record("accepted"); return }
        #expect(code == .transactionFailed)
        // The animation's JSON was refused when staged.
        #expect(d.takeEvents(c).compactMap { if case .error(_, let code, _, _) = $0.event { ($0.requestID, code) } else { nil } }
            .elementsEqual([(ids[2], ErrorCode.invalidAnimation)], by: { $0.0 == $1.0 && $0.1 == $1.1 }))
        guard case .tree(let json) = d.request(.getTree, from: c) else { Issue.record("no tree"); return }
        #expect(!json.contains("\"kind\": \"layer\", \"depth\": 2"))
    }

    @Test func garbageFromAnotherClientChangesNothing() {
        let d = EmbeddedDaemon()
        let good = d.connect(name: "good")!
        Self.buildScene(d, good)
        let treeBefore = d.request(.getTree, from: good)
        // A client that never says hello: a badHandshake error, and it is closed.
        let raw = d.connect(hello: false)!
        d.sendRaw(Array("\u{1}\u{2}garbage that is not a lamina message at all....".utf8), from: raw)
        guard case .error(_, .badHandshake, _, _)? = d.takeEvents(raw).first?.event else {
            Issue.record("expected badHandshake"); return
        }
        #expect(d.closed.contains(raw))
        // A client that says hello, then sends a broken and an oversized message, split at
        // every few bytes.
        let bad = d.connect(name: "bad")!
        var junk = MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 900)
        junk[16] = 77
        let oversized = [0x50, 0x46, 0, 0, 0x12, 0, 0, 0, 0x85, 3, 0, 0] + [UInt8](repeating: 0xAB, count: 0x4650 - 12)
        d.sendRaw(junk + oversized, from: bad, chunk: 7)
        let errors = d.takeEvents(bad).compactMap { e -> (ErrorCode, UInt32)? in
            if case .error(_, let code, _, _) = e.event { (code, e.requestID) } else { nil }
        }
        #expect(errors.map(\.0) == [.malformed, .messageTooLarge])
        #expect(errors.map(\.1) == [900, 901])
        guard case .error(_, let code, _, _) = d.request(.commit, from: bad) else { Issue.record("accepted"); return }
        #expect(code == .transactionFailed)
        // Nothing of the bad client's transaction exists; the good client's scene is as it was.
        guard case .tree(let json) = d.request(.getTree, from: good), case .tree(let before) = treeBefore else {
            Issue.record("no tree"); return
        }
        #expect(!json.contains("\"id\": \"\(bad):1\""))
        let goodLayers = before[before.range(of: "{\"id\": \"1:0\"")!.lowerBound...].dropLast(2)
        #expect(goodLayers.count > 100 && json.contains(goodLayers))
        #expect(d.request(.hitTest(x: 100, y: 30), from: good) == .hitResult(.ownLayer, layer: 1))
        #expect(d.request(.ping(token: 9), from: good) == .pong(token: 9))
    }

    @Test func aDisconnectedClientsLayersAreGone() {
        let d = EmbeddedDaemon()
        let c = d.connect(name: "stays")!
        Self.buildScene(d, c)
        let other = d.connect(name: "leaves")!
        _ = d.commit([.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "frame", value: .rect(Rect(0, 0, 200, 200))),
                      .addSublayer(parent: 0, child: 1)], from: other)
        // A later client stacks above an earlier one.
        #expect(d.request(.hitTest(x: 10, y: 10), from: c) == .hitResult(.otherClient, layer: 0))
        #expect(d.request(.hitTest(x: 100, y: 30), from: c) == .hitResult(.otherClient, layer: 0))
        d.hangUp(other)
        guard case .tree(let json) = d.request(.getTree, from: c) else { Issue.record("no tree"); return }
        #expect(!json.contains("leaves") && !json.contains("\"owner\": 2"))
        #expect(d.request(.hitTest(x: 10, y: 10), from: c) == .hitResult(.none, layer: 0))
        #expect(d.request(.hitTest(x: 100, y: 30), from: c) == .hitResult(.ownLayer, layer: 1))
    }

    @Test func commitsAreAllOrNothing() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        Self.buildScene(d, c)
        let tree = d.request(.getTree, from: c)
        d.send([.createLayer(id: 4, kind: .layer), .setProperty(id: 4, keyPath: "frame", value: .rect(Rect(0, 0, 200, 200))),
                .addSublayer(parent: 0, child: 4)], from: c)
        d.sendRaw(MessageEncoder.encode(.setProperty(id: 4242, keyPath: "opacity", value: .number(1)), requestID: 77), from: c)
        guard case .error(_, let code, let message, _) = d.request(.commit, from: c) else { Issue.record("accepted"); return }
        #expect(code == .unknownLayer)
        #expect(message.contains("request 77"))
        #expect(message.contains("layer 4242 does not exist"))
        #expect(d.request(.getTree, from: c) == tree)
        #expect(d.request(.hitTest(x: 10, y: 10), from: c) == .hitResult(.none, layer: 0))
    }

    @Test func theDeepestAllowedNestingIsHitAndOneMoreIsRefused() {
        let depth = 40
        let d = EmbeddedDaemon { $0.maxDepth = depth }
        let c = d.connect()!
        var requests: [Request] = []
        for level in 1...depth {
            let id = UInt32(level)
            requests += [.createLayer(id: id, kind: .layer),
                         .setProperty(id: id, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 100))),
                         .setProperty(id: id, keyPath: "position", value: .point(Point(50, 50))),
                         .addSublayer(parent: id - 1, child: id)]
        }
        _ = d.commit(requests, from: c)
        #expect(d.request(.hitTest(x: 50, y: 50), from: c) == .hitResult(.ownLayer, layer: UInt32(depth)))
        let reply = d.commit([.createLayer(id: 999, kind: .layer), .addSublayer(parent: UInt32(depth), child: 999)], from: c)
        guard case .error(_, let code, _, _) = reply else { Issue.record("a level beyond maxDepth was accepted"); return }
        #expect(code == .limitExceeded)
    }

    @Test func manualClockAdvancesTreeShowsOwnersAndStatsCountFrames() {
        let d = EmbeddedDaemon()
        let c = d.connect(name: "owner-a")!
        Self.buildScene(d, c)
        #expect(d.request(.advanceClock(seconds: 0.5), from: c) == .clockAdvanced(time: 0.5))
        #expect(d.request(.advanceClock(seconds: 0.25), from: c) == .clockAdvanced(time: 0.75))
        guard case .tree(let tree) = d.request(.getTree, from: c), case .stats(let stats) = d.request(.getStats, from: c) else {
            Issue.record("no tree or stats"); return
        }
        #expect(tree.contains("\"ownerName\": \"owner-a\""))
        #expect(tree.contains("\"frame\": [20, 20, 100, 100]"))
        #expect(stats.contains("\"frames\": \(d.frames)") && stats.contains("\"clients\": 1"))
    }

    @Test func errorsCapturesAndTheClientLimit() {
        let d = EmbeddedDaemon { $0.maxClients = 1 }
        let c = d.connect()!
        #expect(d.connect() == nil)
        guard case .error(_, .limitExceeded, _, _)? = d.refusal else { Issue.record("no refusal"); return }
        // A presentation query of a missing layer or key path.
        guard case .error(_, .unknownLayer, _, _) = d.request(.getPresentation(id: 5, keyPath: "opacity"), from: c) else {
            Issue.record("expected errors"); return
        }
        _ = d.commit([.createLayer(id: 1, kind: .layer)], from: c)
        guard case .error(_, .invalidProperty, _, _) = d.request(.getPresentation(id: 1, keyPath: "nope"), from: c),
              case .error(0x30, .captureFailed, _, _) = d.request(.capture(time: nil), from: c) else {
            Issue.record("expected errors"); return
        }
        // A second hello is refused and closes the connection (docs/protocol.md, Handshake).
        guard case .error(_, .badHandshake, _, _) = d.request(.hello(magic: Protocol.magic, major: Protocol.versionMajor,
                                                                    minor: 0, clientName: "again"), from: c) else {
            Issue.record("expected errors"); return
        }
        #expect(d.closed.contains(c))
    }
}
