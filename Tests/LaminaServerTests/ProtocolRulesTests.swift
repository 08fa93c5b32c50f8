import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing
import LaminaModel

/// The rules of docs/protocol.md 1.0 that a client author relies on, through the embedded
/// daemon: error details as fields, what fails at once and what at commit, limits (what
/// counts, when the error comes, the client stays usable), the root container, completions,
/// Reduce Motion and display events, and a client cut off at every byte.
@Suite struct ProtocolRulesTests {
    static func json(_ a: Animation) -> String { AnimationJSON.encode(a).text }

    static func error(_ e: Event) -> (opcode: UInt16, code: ErrorCode, detail: ErrorDetail)? {
        if case .error(let op, let code, _, let d) = e { return (op, code, d) }
        return nil
    }

    static func layer(_ id: UInt32) -> [Request] {
        [.createLayer(id: id, kind: .layer), .setProperty(id: id, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
         .addSublayer(parent: 0, child: id)]
    }

    @Test func aRejectedCommitNamesTheFailingRequestAsFields() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let ids = d.send([.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "opacity", value: .number(0.5)),
                          .setProperty(id: 1, keyPath: "fillColor", value: .color(Color(1, 0, 0)))], from: c)
        let commitID = d.send([.commit], from: c)[0]
        let events = d.takeEvents(c)
        #expect(events.count == 1 && events[0].requestID == commitID)
        guard let e = Self.error(events[0].event) else { Issue.record("\(events)"); return }
        #expect(e.opcode == 0x20 && e.code == .invalidProperty)
        #expect(e.detail == ErrorDetail(request: ids[2], opcode: 0x12, layer: 1, key: "fillColor"))
        // Nothing of it applied: layer 1 does not exist.
        #expect(Self.error(d.request(.getPresentation(id: 1, keyPath: "opacity"), from: c))?.code == .unknownLayer)
    }

    @Test func aStagedRequestThatFailsToDecodeFailsTheCommitWithTransactionFailed() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        d.send(Self.layer(1), from: c)
        var bad = MessageEncoder.encode(.setProperty(id: 1, keyPath: "opacity", value: .number(1)), requestID: 50)
        bad[12 + 4 + 4 + 7] = 99   // the VALUE tag
        d.sendRaw(bad, from: c)
        let immediate = d.takeEvents(c)
        #expect(immediate.count == 1 && immediate[0].requestID == 50)
        #expect(Self.error(immediate[0].event).map { ($0.code, $0.detail) } ?? (.internalError, ErrorDetail(request: 0, opcode: 0))
                == (.malformed, ErrorDetail(request: 50, opcode: 0x12)))
        guard let e = Self.error(d.request(.commit, from: c)) else { Issue.record("accepted"); return }
        #expect(e.code == .transactionFailed && e.opcode == 0x20)
        #expect(e.detail.request == 50 && e.detail.opcode == 0x12)
        // The batch was discarded; the next transaction starts clean.
        #expect(d.commit(Self.layer(1), from: c) == .committed(sequence: 1))
    }

    @Test func requestIDZeroUnknownOpcodesAndFlags() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        // Request id 0 is reserved for events: malformed, and a staged one fails its transaction.
        d.sendRaw(MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 0), from: c)
        #expect(Self.error(d.takeEvents(c).first?.event ?? .pong(token: 0)).map { $0.code } == .malformed)
        #expect(Self.error(d.request(.commit, from: c))?.code == .transactionFailed)
        // An unknown opcode outside 0x10…0x1F is answered and skipped; the transaction goes on.
        d.send(Self.layer(1), from: c)
        d.sendRaw([12, 0, 0, 0, 0x7E, 0, 0, 0, 77, 0, 0, 0], from: c)
        let unknown = d.takeEvents(c)
        #expect(unknown.count == 1 && unknown[0].requestID == 77)
        #expect(Self.error(unknown[0].event).map { ($0.code, $0.detail.opcode) } ?? (.internalError, 0) == (.unknownOpcode, 0x7E))
        #expect(d.request(.commit, from: c) == .committed(sequence: 1))
        // One in 0x10…0x1F (a future layer request) fails the transaction.
        d.sendRaw([12, 0, 0, 0, 0x1F, 0, 0, 0, 78, 0, 0, 0], from: c)
        _ = d.takeEvents(c)
        #expect(Self.error(d.request(.commit, from: c))?.code == .transactionFailed)
        // Non-zero flags: malformed, skipped; the connection stays.
        d.sendRaw([20, 0, 0, 0, 0x02, 0, 1, 0, 79, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], from: c)
        #expect(Self.error(d.takeEvents(c).first?.event ?? .pong(token: 0))?.code == .malformed)
        #expect(d.request(.ping(token: 5), from: c) == .pong(token: 5))
        #expect(!d.closed.contains(c))
    }

    @Test func aHelloWithRequestIDZeroOrASecondHelloCloses() {
        let d = EmbeddedDaemon()
        let a = d.connect(hello: false)!
        d.sendRaw(MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "z"),
                                        requestID: 0), from: a)
        #expect(Self.error(d.takeEvents(a).first?.event ?? .pong(token: 0))?.code == .badHandshake)
        #expect(d.closed.contains(a))
        let b = d.connect()!
        #expect(Self.error(d.request(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "b"),
                                     from: b))?.code == .badHandshake)
        #expect(d.closed.contains(b))
        let v = d.connect(hello: false)!
        #expect(Self.error(d.request(.hello(magic: Protocol.magic, major: 0, minor: 2, clientName: "old"), from: v))?.code
                == .unsupportedVersion)
        #expect(d.closed.contains(v))
    }

    @Test func stagingLimitFailsAtOnceAndTheClientStaysUsable() {
        let d = EmbeddedDaemon { $0.maxPendingOperations = 4 }
        let c = d.connect()!
        // setTransaction and completion count too: every request 0x10…0x1A staged.
        let ids = d.send([.setTransaction(TransactionSettings()), .createLayer(id: 1, kind: .layer),
                          .addSublayer(parent: 0, child: 1), .completion(id: 1), .deleteLayer(id: 1)], from: c)
        let events = d.takeEvents(c)
        #expect(events.count == 1 && events[0].requestID == ids[4])
        #expect(Self.error(events[0].event).map { ($0.code, $0.detail.opcode) } ?? (.internalError, 0) == (.limitExceeded, 0x11))
        guard let e = Self.error(d.request(.commit, from: c)) else { Issue.record("accepted"); return }
        #expect(e.code == .transactionFailed && e.detail.request == ids[4])
        #expect(d.commit(Self.layer(1), from: c) == .committed(sequence: 1))
    }

    @Test func layerLimitFailsAtCommitNamingTheCreateThatExceedsIt() {
        let d = EmbeddedDaemon { $0.maxLayersPerClient = 2 }
        let c = d.connect()!
        #expect(d.commit(Self.layer(1), from: c) == .committed(sequence: 1))
        let ids = d.send([.createLayer(id: 2, kind: .layer), .createLayer(id: 3, kind: .layer)], from: c)
        guard let e = Self.error(d.request(.commit, from: c)) else { Issue.record("accepted"); return }
        #expect(e.code == .limitExceeded && e.detail == ErrorDetail(request: ids[1], opcode: 0x10, layer: 3))
        // Deleting one frees a place: the count is the layers the client owns now.
        #expect(d.commit([.deleteLayer(id: 1), .createLayer(id: 2, kind: .layer), .createLayer(id: 3, kind: .layer)], from: c)
                == .committed(sequence: 2))
    }

    @Test func theRootContainerIsAParentOnly() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        #expect(d.commit(Self.layer(1), from: c) == .committed(sequence: 1))
        let refused: [(Request, ErrorCode)] = [
            (.createLayer(id: 0, kind: .layer), .duplicateLayer), (.deleteLayer(id: 0), .invalidHierarchy),
            (.setProperty(id: 0, keyPath: "opacity", value: .number(0.5)), .invalidProperty),
            (.addSublayer(parent: 1, child: 0), .invalidHierarchy), (.insertSublayer(parent: 1, child: 0, index: 0), .invalidHierarchy),
            (.removeFromSuperlayer(id: 0), .invalidHierarchy),
            (.addAnimation(id: 0, key: "a", json: #"{"type": "basic", "keyPath": "opacity", "to": 0}"#), .invalidHierarchy),
        ]
        for (r, code) in refused {
            let e = Self.error(d.commit([r], from: c))
            #expect(e?.code == code && e?.detail.layer == 0, "\(r)")
        }
        #expect(d.commit([.createLayer(id: 2, kind: .layer), .insertSublayer(parent: 0, child: 2, index: 0),
                          .removeAnimation(id: 0, key: "a"), .removeAllAnimations(id: 0)], from: c) == .committed(sequence: 2))
    }

    @Test func removedOnCompletionAnimationsLeaveTheLedger() {
        let d = EmbeddedDaemon { $0.maxPendingOperations = 5000 }
        let c = d.connect()!
        #expect(d.commit(Self.layer(1), from: c) == .committed(sequence: 1))
        let short = Self.json(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                                    timing: AnimationTiming(duration: 0.1))))
        let kept = #"{"type": "basic", "keyPath": "opacity", "from": 0, "to": 1, "duration": 0.1, "removedOnCompletion": false, "fillMode": "forwards"}"#
        let batch = (0..<1024).map { _ in Request.addAnimation(id: 1, key: "", json: short) }
        #expect(d.commit(batch, from: c) == .committed(sequence: 2))
        #expect(Self.error(d.commit([.addAnimation(id: 1, key: "", json: short)], from: c))?.code == .limitExceeded)
        // Once they end they are gone: 1,024 more fit (three times over).
        for round in 0..<3 {
            _ = d.request(.advanceClock(seconds: 0.5), from: c)
            #expect(d.commit(batch, from: c) == .committed(sequence: UInt64(3 + round)))
        }
        // Animations that stay after they end keep counting.
        _ = d.request(.advanceClock(seconds: 0.5), from: c)
        #expect(d.commit((0..<1024).map { _ in Request.addAnimation(id: 1, key: "", json: kept) }, from: c) == .committed(sequence: 6))
        _ = d.request(.advanceClock(seconds: 5), from: c)
        let e = Self.error(d.commit([.addAnimation(id: 1, key: "one more", json: short)], from: c))
        #expect(e?.code == .limitExceeded && e?.detail.key == "one more")
        // Removing them frees the places.
        #expect(d.commit([.removeAllAnimations(id: 1), .addAnimation(id: 1, key: "one more", json: short)], from: c)
                == .committed(sequence: 7))
    }

    @Test func aCompletionIDIsDeclaredOnceUntilItFires() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        #expect(d.commit(Self.layer(1), from: c) == .committed(sequence: 1))
        let animated: [Request] = [.setTransaction(TransactionSettings(duration: 1, timingFunction: .linear, completionIDs: [9])),
                                   .setProperty(id: 1, keyPath: "opacity", value: .number(0)), .completion(id: 9)]
        #expect(d.commit(animated, from: c) == .committed(sequence: 2))
        // Declared again while pending: the commit is rejected naming the completion request.
        let ids = d.send([.completion(id: 9)], from: c)
        guard let e = Self.error(d.request(.commit, from: c)) else { Issue.record("accepted"); return }
        #expect(e.code == .invalidValue && e.detail == ErrorDetail(request: ids[0], opcode: 0x1A))
        // Twice in one transaction.
        #expect(Self.error(d.commit([.completion(id: 10), .completion(id: 10)], from: c))?.code == .invalidValue)
        _ = d.request(.advanceClock(seconds: 2), from: c)
        #expect(d.takeEvents(c).map(\.event) == [.transactionCompleted(id: 9)])
        // Fired: the id may be used again.
        #expect(d.commit([.completion(id: 9)], from: c) == .committed(sequence: 3))
        _ = d.request(.ping(token: 1), from: c)
        #expect(d.takeEvents(c).map(\.event) == [.transactionCompleted(id: 9)])
    }

    @Test func reduceMotionAndDisplayChangesReachEveryClient() {
        let d = EmbeddedDaemon { $0.fps = 60 }
        let a = d.connect()!, b = d.connect()!
        #expect(d.request(.setReduceMotion(true), from: a) == .reduceMotionChanged(true))
        #expect(d.takeEvents(a).isEmpty)
        #expect(d.takeEvents(b).map(\.event) == [.reduceMotionChanged(true)])
        #expect(d.takeEvents(b).isEmpty)
        // Unchanged: only the asker hears back.
        #expect(d.request(.setReduceMotion(true), from: b) == .reduceMotionChanged(true))
        #expect(d.takeEvents(a).isEmpty)
        // A new client's welcome carries the setting and the display.
        let late = d.connect(hello: false)!
        let welcome = d.request(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "late"), from: late)
        #expect(welcome == .welcome(major: 1, minor: 0, clientID: late,
                                    display: DisplayInfo(width: 200, height: 200, scale: 1, refreshRate: 60),
                                    clock: .manual, time: 0, reduceMotion: true))
        let big = DisplayInfo(width: 400, height: 300, scale: 2, refreshRate: 120)
        d.changeDisplay(big)
        for c in [a, b, late] { #expect(d.takeEvents(c).map(\.event) == [.displayChanged(big)]) }
        d.changeDisplay(big)
        #expect(d.takeEvents(a).isEmpty)
    }

    /// A client killed at any byte of its exchange leaves nothing: no layer, no half-applied
    /// transaction; the other client is untouched.
    @Test func aClientCutOffAtEveryByteLeavesNothing() {
        let d = EmbeddedDaemon()
        let other = d.connect(name: "other")!
        #expect(d.commit(Self.layer(1), from: other) == .committed(sequence: 1))
        let modelBaseline = d.core.model.count
        var stream = MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "cut"),
                                           requestID: 1)
        var id: UInt32 = 2
        for r in Self.layer(1) + [.setProperty(id: 1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))), .commit,
                                  .addAnimation(id: 1, key: "fade", json: #"{"type": "basic", "keyPath": "opacity", "to": 0}"#),
                                  .createLayer(id: 2, kind: .shape), .addSublayer(parent: 1, child: 2), .commit, .getTree] {
            stream += MessageEncoder.encode(r, requestID: id)
            id += 1
        }
        for cut in 0...stream.count {
            guard let c = d.connect(name: "cut", hello: false) else { Issue.record("refused"); return }
            d.sendRaw(Array(stream[..<cut]), from: c, chunk: 7)
            d.hangUp(c)
            _ = d.request(.ping(token: UInt64(cut)), from: other)   // a frame applies the disconnect
            #expect(d.core.model.count == modelBaseline, "cut at byte \(cut)")
            #expect(d.driver.tree.count == modelBaseline, "cut at byte \(cut)")
            #expect(d.core.clientCount == 1)
        }
        #expect(d.request(.hitTest(x: 2, y: 2), from: other) == .hitResult(.ownLayer, layer: 1))
        _ = d.takeEvents(other)
    }

    /// docs/protocol.md's example, its bytes sent as written: welcome, committed, and the red
    /// square it describes (the pixels are checked through the GPU in `DaemonTests`).
    @Test func theDocumentsExampleDoesWhatItSays() throws {
        let d = EmbeddedDaemon()
        let c = d.connect(hello: false)!
        d.sendRaw(try Self.documentExampleBytes(), from: c)
        let replies = d.takeEvents(c)
        guard replies.count == 2, case .welcome = replies[0].event, replies[0].requestID == 1,
              case .committed = replies[1].event, replies[1].requestID == 7 else { Issue.record("\(replies)"); return }
        #expect(d.request(.getPresentation(id: 1, keyPath: "backgroundColor"), from: c) == .presentation(value: .color(Color(1, 0, 0, 1))))
        #expect(d.request(.getPresentation(id: 1, keyPath: "frame"), from: c) == .presentation(value: .rect(Rect(0, 0, 100, 100))))
        for (x, y) in [(1.0, 1.0), (99.0, 99.0), (50.0, 50.0)] {
            #expect(d.request(.hitTest(x: x, y: y), from: c) == .hitResult(.ownLayer, layer: 1))
        }
        #expect(d.request(.hitTest(x: 101, y: 50), from: c) == .hitResult(.none, layer: 0))
    }

    /// The example's bytes, read from docs/protocol.md between its markers.
    static func documentExampleBytes() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/protocol.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let begin = text.range(of: "<!-- example:begin -->"), let end = text.range(of: "<!-- example:end -->") else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let hex = text[begin.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.contains(":") }
            .map { $0[$0.index(after: $0.firstIndex(of: ":")!)...] }.joined().filter(\.isHexDigit)
        let digits = Array(hex)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }
}
