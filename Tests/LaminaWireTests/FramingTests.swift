import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaWire
import Testing
import TestSupport

/// The decoder fed its input whole, byte by byte, and split at every offset
/// (the habit of swift-nio's ByteToMessageDecoderVerifier).
@Suite struct FramingTests {
    static let requests: [Request] = [
        .hello(magic: Protocol.magic, major: 0, minor: 1, clientName: "tëst"),
        .ping(token: 0xDEAD_BEEF_0102_0304),
        .createLayer(id: 7, kind: .shape),
        .deleteLayer(id: 7),
        .setProperty(id: 3, keyPath: "position", value: .point(Point(1.5, -2))),
        .setProperty(id: 3, keyPath: "bounds", value: .rect(Rect(1, 2, 3, 4))),
        .setProperty(id: 3, keyPath: "backgroundColor", value: .color(Color(0.1, 0.2, 0.3, 0.4))),
        .setProperty(id: 3, keyPath: "backgroundColor", value: .color(nil)),
        .setProperty(id: 3, keyPath: "transform", value: .transform(.rotation(0.3))),
        .setProperty(id: 3, keyPath: "hidden", value: .bool(true)),
        .setProperty(id: 3, keyPath: "custom.v", value: .numbers([1, 2, 3])),
        .setProperty(id: 3, keyPath: "shadowOffset", value: .size(Size(0, -3))),
        .setProperty(id: 3, keyPath: "fillRule", value: .string("evenOdd")),
        .setProperty(id: 3, keyPath: "path", value: .path(Path([.move(Point(0, 0)), .line(Point(1, 0)),
                                                                   .quad(Point(2, 1), Point(3, 0)),
                                                                   .cubic(Point(4, 1), Point(5, 1), Point(6, 0)), .close]))),
        .setProperty(id: 3, keyPath: "path", value: .path(nil)),
        .setProperty(id: 3, keyPath: "colors", value: .colors([Color(1, 0, 0), Color(0, 0, 1, 0.5)])),
        .addSublayer(parent: 0, child: 3),
        .insertSublayer(parent: 1, child: 2, index: 5),
        .removeFromSuperlayer(id: 2),
        .setTransaction(TransactionSettings()),
        .setTransaction(TransactionSettings(duration: 1.5, timingFunction: .steps(3, .both), disableActions: true,
                                            completionIDs: [4, 9])),
        .setTransaction(TransactionSettings(timingFunction: .spring(Spring(mass: 2, stiffness: 50, damping: 3, initialVelocity: 1)))),
        .setTransaction(TransactionSettings(timingFunction: .linear)),
        .addAnimation(id: 3, key: "fade", json: "{\"type\": \"basic\", \"keyPath\": \"opacity\", \"to\": 0}"),
        .removeAnimation(id: 3, key: "fade"),
        .removeAllAnimations(id: 3),
        .completion(id: 12),
        .commit,
        .getPresentation(id: 3, keyPath: "transform.rotation.z"),
        .hitTest(x: 10.5, y: -3),
        .capture(time: 1.25), .capture(time: nil),
        .advanceClock(seconds: 0.5),
        .getTree, .getStats,
    ]

    func stream() -> [UInt8] {
        var bytes: [UInt8] = []
        for (i, r) in Self.requests.enumerated() { bytes += MessageEncoder.encode(r, requestID: UInt32(i + 1)) }
        return bytes
    }

    func decodeAll(_ chunks: [ArraySlice<UInt8>]) -> [Request] {
        var d = FrameDecoder()
        var out: [Request] = []
        for chunk in chunks {
            d.feed(chunk)
            while let r = d.nextRequest() {
                guard case .message(let m, let id) = r else { Issue.record("unexpected failure \(r)"); return out }
                #expect(Int(id) == out.count + 1)
                out.append(m)
            }
        }
        #expect(d.bufferedCount == 0)
        return out
    }

    @Test func wholeStream() { #expect(decodeAll([stream()[...]]) == Self.requests) }

    @Test func byteByByte() {
        let s = stream()
        #expect(decodeAll(s.indices.map { s[$0...$0] }) == Self.requests)
    }

    @Test func splitAtEveryOffset() {
        let s = stream()
        for cut in 0...s.count {
            #expect(decodeAll([s[..<cut], s[cut...]]) == Self.requests)
        }
    }

    @Test func eventsRoundTrip() {
        let events: [Event] = [
            .welcome(major: 1, minor: 0, clientID: 9, display: DisplayInfo(width: 1280, height: 720, scale: 2, refreshRate: 120),
                     clock: .manual, time: 1.5, reduceMotion: true),
            .pong(token: 42), .error(opcode: 0x12, code: .unknownLayer, message: "layer 5 does not exist", request: 4, layer: 5, key: "opacity"),
            .error(opcode: 0x20, code: .invalidValue, message: "x", detail: ErrorDetail(request: 3, opcode: 0x12, layer: 2, key: "opacity")),
            .committed(sequence: 3), .captured(time: 0.5, width: 2, height: 1, png: [1, 2, 3]),
            .clockAdvanced(time: 2), .tree(json: "{}"), .stats(json: "{\"fps\": 1}"),
            .presentation(value: .point(Point(1, 2))), .presentation(value: .color(nil)),
            .hitResult(.ownLayer, layer: 5), .hitResult(.none, layer: 0), .hitResult(.otherClient, layer: 0),
            .animationStarted(layer: 5, key: "spin"), .animationStopped(layer: 5, key: "spin", finished: true),
            .animationStopped(layer: 6, key: "", finished: false), .transactionCompleted(id: 77),
            .displayChanged(DisplayInfo(width: 640, height: 480, scale: 2, refreshRate: 60)), .reduceMotionChanged(true),
        ]
        var d = FrameDecoder()
        for (i, e) in events.enumerated() { d.feed(MessageEncoder.encode(e, requestID: UInt32(i))) }
        for (i, e) in events.enumerated() {
            guard case .message(let got, let id)? = d.nextEvent() else { Issue.record("missing event"); return }
            #expect(got == e && id == UInt32(i))
        }
    }

    @Test func oversizedMessageIsSkippedAndTheStreamGoesOn() {
        var d = FrameDecoder(maxMessageSize: 64)
        let big = MessageEncoder.encode(.setProperty(id: 1, keyPath: String(repeating: "x", count: 200), value: .number(1)), requestID: 5)
        let ping = MessageEncoder.encode(.ping(token: 1), requestID: 6)
        // Feed it in pieces to exercise the skipping across feeds.
        d.feed(big[0..<30])
        guard case .failure(.tooLarge(let n, 64), let op, 5)? = d.nextRequest() else { Issue.record("expected tooLarge"); return }
        #expect(n == big.count && op == 0x12)
        d.feed(big[30...])
        d.feed(ping)
        guard case .message(.ping(1), 6)? = d.nextRequest() else { Issue.record("expected the ping after it"); return }
    }

    @Test func truncatedBodyIsReportedAndSkipped() {
        // A createLayer whose length covers only 2 bytes of the 5-byte body.
        var bad = MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 3)
        bad.removeLast(3)
        bad[0] = UInt8(bad.count)
        var d = FrameDecoder()
        d.feed(bad + MessageEncoder.encode(.ping(token: 9), requestID: 4))
        guard case .failure(.truncated, 0x10, 3)? = d.nextRequest() else { Issue.record("expected truncated"); return }
        guard case .message(.ping(9), 4)? = d.nextRequest() else { Issue.record("expected ping"); return }
    }

    @Test func unknownOpcodeAndBadTags() {
        var d = FrameDecoder()
        var w = MessageEncoder.encode(.ping(token: 1), requestID: 1)
        w[4] = 0x7F   // opcode 0x7F
        d.feed(w)
        guard case .failure(.unknownOpcode(0x7F), 0x7F, 1)? = d.nextRequest() else { Issue.record("expected unknownOpcode"); return }
        var s = MessageEncoder.encode(.setProperty(id: 1, keyPath: "opacity", value: .number(1)), requestID: 2)
        s[12 + 4 + 4 + 7] = 200   // the value tag
        d.feed(s)
        guard case .failure(.malformed, 0x12, 2)? = d.nextRequest() else { Issue.record("expected malformed"); return }
    }

    @Test func lengthBelowHeaderBreaksTheStream() {
        var d = FrameDecoder()
        d.feed([3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        guard case .failure(.badFraming, _, _)? = d.nextRequest() else { Issue.record("expected badFraming"); return }
        #expect(d.isBroken)
        d.feed(MessageEncoder.encode(.ping(token: 1), requestID: 1))
        #expect(d.nextRequest() == nil)
    }

    @Test func randomBytesNeverTrap() {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<2000 {
            var d = FrameDecoder(maxMessageSize: 4096)
            var bytes = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if rng.next() % 2 == 0, bytes.count >= 4 { bytes[0] = UInt8(min(bytes.count, 255)); bytes[1] = 0; bytes[2] = 0; bytes[3] = 0 }
            d.feed(bytes)
            var n = 0
            while d.nextRequest() != nil, n < 1000 { n += 1 }
        }
    }
}

