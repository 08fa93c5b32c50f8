import Foundation
import Lamina
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaServer
import LaminaTree
import LaminaWire
import Testing
#if canImport(Glibc)
import Glibc
import LaminaModel
#endif

/// docs/protocol.md, "Order" and "Limits": replies to two requests never swap, whichever of
/// them waits for a frame or a capture; a client's requests are handled in turns, and once the
/// output waiting for it passes `maxQueuedOutput` no further reply is built for it: it is cut off
/// at once.
@Suite struct ReplyOrderAndFlowTests {
    /// The request ids of the replies, in arrival order (events with id 0 left out).
    static func replyIDs(_ events: [(event: Event, requestID: UInt32)]) -> [UInt32] {
        events.map(\.requestID).filter { $0 != 0 }
    }

    static let queries: [Request] = [.ping(token: 7), .getStats, .getTree, .advanceClock(seconds: 0),
                                     .measureText(text: StyledText("a"), font: "", fontSize: 12, width: nil),
                                     .hitTest(x: 1, y: 1), .setReduceMotion(false)]

    @Test(arguments: ["manual", "realtime"])
    func repliesKeepRequestOrderBehindAQueryThatWaitsForAFrame(clock mode: String) {
        let d = EmbeddedDaemon { $0.clock = mode }
        let c = d.connect()!
        // The commit's packet is not drawn yet when getPresentation arrives: it waits for the
        // frame; everything after it waits behind it.
        let ids = d.send([.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "opacity", value: .number(0.25)),
                          .addSublayer(parent: 0, child: 1), .commit, .getPresentation(id: 1, keyPath: "opacity")]
                         + Self.queries + [.commit, .ping(token: 8)], from: c)
        let events = d.takeEvents(c)
        #expect(Self.replyIDs(events) == Array(ids[3...]), "\(events)")
        // The query saw the commit before it.
        let presentation = events.first { $0.requestID == ids[4] }?.event
        #expect(presentation == .presentation(value: .number(0.25)))
    }

    /// A query is answered at the time it arrived even when the client pipelines an
    /// `advanceClock` behind it: the client's later requests wait for its answer.
    @Test func aPipelinedClockAdvanceDoesNotMoveAQuerySentBeforeIt() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        #expect(d.commit([.createLayer(id: 1, kind: .layer), .addSublayer(parent: 0, child: 1)], from: c) == .committed(sequence: 1))
        // Opacity 1 → 0, linear over 1 s, then three queries with advances between, in one write.
        let ids = d.send([.setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
                          .setProperty(id: 1, keyPath: "opacity", value: .number(0)), .commit,
                          .getPresentation(id: 1, keyPath: "opacity"), .advanceClock(seconds: 0.25),
                          .getPresentation(id: 1, keyPath: "opacity"), .advanceClock(seconds: 0.3),
                          .getPresentation(id: 1, keyPath: "opacity")], from: c)
        let events = d.takeEvents(c)
        #expect(Self.replyIDs(events) == Array(ids[2...]))
        let values = events.compactMap { e -> Double? in if case .presentation(.number(let v)) = e.event { v } else { nil } }
        #expect(values.count == 3)
        for (v, expected) in zip(values, [1.0, 0.75, 0.45]) { #expect(abs(v - expected) < 1e-9, "\(values)") }
    }

    @Test func aCaptureHoldsTheRepliesBehindIt() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let ids = d.send([.capture(time: nil), .ping(token: 1), .getPresentation(id: 0, keyPath: "opacity"), .ping(token: 2)],
                         from: c)
        let events = d.takeEvents(c)
        #expect(Self.replyIDs(events) == ids, "\(events)")
    }

    /// A client floods getTree and never reads: the core stops building its replies as soon as
    /// they pass the room it has, and cuts it off; with the daemon's turn budget one call
    /// builds at most one large reply, so the others are served between its turns.
    @Test func aNonReaderGetsNoReplyBuiltPastItsLimit() throws {
        var (core, _, _) = ServerCoreTests.makeCore()
        guard case .accepted(let c, _) = core.connect() else { Issue.record("refused"); return }
        _ = core.receive(MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0,
                                                      clientName: "tree"), requestID: 1), from: c)
        // 2,000 layers: a tree reply of about 250 kB.
        var build: [UInt8] = []
        for i in 1...2000 {
            build += MessageEncoder.encode(.createLayer(id: UInt32(i), kind: .layer), requestID: 2)
            build += MessageEncoder.encode(.addSublayer(parent: 0, child: UInt32(i)), requestID: 2)
        }
        build += MessageEncoder.encode(.commit, requestID: 3)
        _ = core.receive(build, from: c)
        /// Carries the effects out as the daemon does (a build's reply made at once); returns
        /// the bytes written to the client, the builds made and whether it was cut off.
        func run(_ effects: [ServerEffect]) -> (written: [UInt8], builds: Int, cut: Bool) {
            var pending = effects[...]
            var written: [UInt8] = [], builds = 0, cut = false
            while let e = pending.popFirst() {
                switch e {
                case .write(c, let bytes): written += bytes
                case .build(c, let tag, let make):
                    builds += 1
                    pending += core.captureFinished(tag: tag, make())
                case .cutOff(c): cut = true
                default: break
                }
            }
            return (written, builds, cut)
        }
        let one = run(core.receive(MessageEncoder.encode(.getTree, requestID: 4), from: c))
        var decoder = FrameDecoder()
        decoder.feed(one.written)
        guard case .message(.tree(let json), 4)? = decoder.nextEvent() else { Issue.record("no tree"); return }
        let replySize = one.written.count
        #expect(replySize > 200_000 && replySize == 16 + json.utf8.count)

        // 400 getTree requests: the first is built off the core (`build`), and the client's
        // later requests wait for it — one build in flight per client.
        let flood = (0..<400).flatMap { MessageEncoder.encode(.getTree, requestID: UInt32(10 + $0)) }
        var effects = core.receive(flood, from: c, outputRoom: .max, budget: .daemon)
        #expect(effects.count { if case .build = $0 { true } else { false } } == 1)
        #expect(ServerCoreTests.writes(effects, to: c).isEmpty)

        // The host holds the client's unread output; its limit is 10 replies' worth. A reply
        // that takes the output over it cuts the client off (the daemon's `send`), and the core
        // cuts it off before building another once its room is spent: either way the other
        // requests are never handled.
        let limit = 10 * replySize - 1
        var queued = 0, builds = 0, cut = false
        for _ in 0..<400 where !cut {
            let r = run(effects)
            queued += r.written.count
            builds += r.builds
            cut = r.cut || queued > limit
            if !cut { effects = core.resume(c, outputRoom: limit - queued, budget: .daemon) }
        }
        #expect(cut)
        #expect(builds <= 10)
        let handled = 400 - core.pendingInputBytes(c) / 12
        #expect(handled <= 11)
    }

    /// A turn ends after 4,096 requests (or 256 KiB of replies); the rest waits for the next.
    @Test func requestsAreHandledInTurns() {
        var (core, _, _) = ServerCoreTests.makeCore()
        guard case .accepted(let c, _) = core.connect() else { Issue.record("refused"); return }
        _ = core.receive(MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0,
                                                      clientName: "pings"), requestID: 1), from: c)
        let pings = (0..<5000).flatMap { MessageEncoder.encode(.ping(token: UInt64($0)), requestID: UInt32(2 + $0)) }
        let first = ServerCoreTests.writes(core.receive(pings, from: c, budget: .daemon), to: c)
        #expect(first.count == ServerCore.TurnBudget.daemon.messages && core.hasPendingInput(c))
        let rest = ServerCoreTests.writes(core.resume(c, budget: .daemon), to: c)
        #expect(rest.count == 5000 - first.count && !core.hasPendingInput(c))
        #expect((first + rest).enumerated().allSatisfy { $0.element == .pong(token: UInt64($0.offset)) })
    }

    /// The same flood through a real socket beside a client that keeps pinging and committing:
    /// the flooder is cut off, the other keeps being answered, in order.
    @Test func aGetTreeFlooderIsCutOffAndTheOthersAreServed() throws {
        let daemon = try DaemonRobustnessTests.makeDaemon(maxQueuedOutput: 4 << 20)
        defer { daemon.stop() }
        let good = try Connection(socketPath: daemon.socketPath, name: "good")
        // The flooder's own tree: 3,000 layers (replies of about 400 kB).
        let fd = try UnixSocket.connect(path: daemon.socketPath)
        defer { close(fd) }
        var build = DaemonRobustnessTests.hello("flooder")
        for i in 1...3000 {
            build += MessageEncoder.encode(.createLayer(id: UInt32(i), kind: .layer), requestID: 2)
            build += MessageEncoder.encode(.addSublayer(parent: 0, child: UInt32(i)), requestID: 2)
        }
        build += MessageEncoder.encode(.commit, requestID: 3)
        try UnixSocket.writeAll(fd, build)
        let flood = (0..<2000).flatMap { MessageEncoder.encode(.getTree, requestID: UInt32(10 + $0)) }
        // Written from another thread: its writes block once the daemon stops reading it.
        let writer = Thread { _ = try? UnixSocket.writeAll(fd, flood) }
        writer.start()
        var n = try DaemonRobustnessTests.clients(good)
        let deadline = Date().addingTimeInterval(60)   // a hang is the failure, not a slow machine
        while n != 1 && Date() < deadline {
            _ = try good.ping()
            n = try DaemonRobustnessTests.clients(good)
        }
        #expect(n == 1, "the flooder was not cut off")
        #expect(try good.ping() >= 0)
    }
}

/// The `tree` reply, written as bytes: valid JSON with the document's schema, names escaped,
/// numbers as the layers' frames.
@Suite struct TreeReplyTests {
    @Test func theTreeIsValidJSONWithTheLayersFrames() throws {
        let d = EmbeddedDaemon()
        let c = d.connect(name: "quote \" back \\ tab \t bell \u{7}")!
        #expect(d.commit([.createLayer(id: 1, kind: .shape), .setProperty(id: 1, keyPath: "frame", value: .rect(Rect(-3, 2.5, 10, 1e12))),
                          .addSublayer(parent: 0, child: 1), .createLayer(id: 2, kind: .layer), .addSublayer(parent: 1, child: 2)],
                         from: c) == .committed(sequence: 1))
        guard case .tree(let json) = d.request(.getTree, from: c) else { Issue.record("no tree"); return }
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let layers = try #require(object?["layers"] as? [[String: Any]])
        // The compositor's root, the client's container, its layers 1 and 2, in painter's order.
        #expect(layers.map { $0["id"] as? String } == ["0:0", "\(c):0", "\(c):1", "\(c):2"])
        #expect(layers.map { ($0["depth"] as? NSNumber)?.intValue } == [0, 1, 2, 3])
        #expect(layers[0]["ownerName"] as? String == "compositor")
        #expect(layers[2]["ownerName"] as? String == "quote \" back \\ tab \t bell \u{7}")
        #expect(layers[2]["kind"] as? String == "shape")
        #expect((layers[2]["frame"] as? [NSNumber])?.map(\.doubleValue) == [-3, 2.5, 10, 1e12])
        #expect(layers[2]["sublayers"] as? [String] == ["\(c):2"])
        #expect((layers[1]["owner"] as? NSNumber)?.uint32Value == c)
        // A client with an empty name: its container's ownerName is "".
        let e = d.connect(name: "")!
        guard case .tree(let again) = d.request(.getTree, from: e) else { Issue.record("no tree"); return }
        let all = try #require((try JSONSerialization.jsonObject(with: Data(again.utf8)) as? [String: Any])?["layers"] as? [[String: Any]])
        #expect(all.last?["id"] as? String == "\(e):0" && all.last?["ownerName"] as? String == "")
    }
}

/// docs/protocol.md, "Presentation queries": a query is answered from a frame that includes
/// every commit accepted before it, another client's too.
@Suite struct QueryFreshnessTests {
    @Test func aHitTestSeesAnotherClientsCommitAcceptedBeforeIt() {
        var (core, driver, clock) = ServerCoreTests.makeCore()
        var queued: [CommitPacket] = []
        func hello(_ name: String) -> UInt32 {
            guard case .accepted(let c, let effects) = core.connect() else { preconditionFailure() }
            queued += ServerCoreTests.packets(effects)
            _ = core.receive(MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0,
                                                          clientName: name), requestID: 1), from: c)
            return c
        }
        let a = hello("a"), b = hello("b")
        // The render side draws both connects.
        _ = core.snapshotPublished(driver.frame(applying: queued, at: clock.now).snapshot)
        queued = []
        // b commits a 10 × 10 layer at the origin: accepted, not drawn yet.
        var staged: [UInt8] = []
        for r: Request in [.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "frame", value: .rect(Rect(0, 0, 10, 10))),
                           .addSublayer(parent: 0, child: 1), .commit] {
            staged += MessageEncoder.encode(r, requestID: 2)
        }
        let committed = core.receive(staged, from: b)
        queued = ServerCoreTests.packets(committed)
        #expect(ServerCoreTests.writes(committed, to: b) == [.committed(sequence: 1)])
        // a's hit test waits for the frame with b's commit — the snapshot it has is older.
        let asked = core.receive(MessageEncoder.encode(.hitTest(x: 5, y: 5), requestID: 2), from: a)
        #expect(ServerCoreTests.writes(asked, to: a).isEmpty && core.parkedQueries == 1)
        let answered = core.snapshotPublished(driver.frame(applying: queued, at: clock.now).snapshot)
        #expect(ServerCoreTests.writes(answered, to: a) == [.hitResult(.otherClient, layer: 0)])
    }
}
