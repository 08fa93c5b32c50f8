import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaWire
import Testing

/// Every request and event of docs/protocol.md as bytes written out by hand from that
/// document (the header table, each message's body, `string`, VALUE, TIMING), not produced by
/// the encoder: each message must encode to exactly these bytes, and these bytes must decode
/// to the message. The document is normative: where they disagree, the code is wrong.
///
/// Numbers are little-endian; an f64 is its IEEE 754 binary64 bits, least significant byte
/// first (1.0 = 0x3FF0000000000000 → `000000000000F03F`). Each message is written
/// `length opcode flags request  body`, the length counting the 12-byte header.
@Suite("Wire bytes from docs/protocol.md")
struct GoldenBytesTests {
    // f64 values, written out by hand.
    static let f0 = "0000000000000000", f025 = "000000000000D03F", f05 = "000000000000E03F"
    static let f1 = "000000000000F03F", f15 = "000000000000F83F", f2 = "0000000000000040"
    static let f3 = "0000000000000840", fm3 = "00000000000008C0", f4 = "0000000000001040"
    static let f10 = "0000000000002440", f20 = "0000000000003440", f100 = "0000000000005940"
    static let f01 = "9A9999999999B93F", f60 = "0000000000004E40", f120 = "0000000000005E40"
    /// The quiet NaN 0x7FF8000000000000.
    static let nan = "000000000000F87F"

    /// The bytes of a hex string; spaces and line breaks are ignored.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        precondition(digits.count % 2 == 0, "odd number of hex digits in \(hex)")
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }

    /// `request` encodes to `expected`, and `expected` decodes to `request` with request id `id`
    /// and nothing left over.
    func check(_ request: Request, id: UInt32, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(request, id: id, expected, encode: MessageEncoder.encode, next: { $0.nextRequest() }, sourceLocation)
    }

    /// The same for an event.
    func check(_ event: Event, id: UInt32, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(event, id: id, expected, encode: MessageEncoder.encode, next: { $0.nextEvent() }, sourceLocation)
    }

    func check<M: Equatable>(_ message: M, id: UInt32, _ expected: String, encode: (M, UInt32) -> [UInt8],
                             next: (inout FrameDecoder) -> DecodeResult<M>?, _ sourceLocation: SourceLocation) {
        let want = Self.bytes(expected)
        let got = encode(message, id)
        #expect(got == want, "\(message): encoder wrote \(Self.hex(got)), the document says \(Self.hex(want))",
                sourceLocation: sourceLocation)
        var decoder = FrameDecoder()
        decoder.feed(want)
        guard case .message(let decoded, let decodedID)? = next(&decoder) else {
            Issue.record("the document's bytes for \(message) do not decode", sourceLocation: sourceLocation)
            return
        }
        #expect(decoded == message && decodedID == id, "decoded \(decoded) id \(decodedID)", sourceLocation: sourceLocation)
        #expect(decoder.bufferedCount == 0, sourceLocation: sourceLocation)
    }

    // MARK: Requests

    @Test func handshakeAndPing() {
        // hello: magic "LMNA", major 1, minor 0, clientName "demo" (u32 4 + bytes); 12 + 16 = 28.
        check(.hello(magic: Protocol.magic, major: 1, minor: 0, clientName: "demo"), id: 1,
              "1C000000 0100 0000 01000000  4C4D4E41 0100 0000 04000000 64656D6F")
        // An empty string is its count alone.
        check(.hello(magic: Protocol.magic, major: 1, minor: 0, clientName: ""), id: 1,
              "18000000 0100 0000 01000000  4C4D4E41 0100 0000 00000000")
        // UTF-8: "é" is C3 A9, counted in bytes.
        check(.hello(magic: Protocol.magic, major: 1, minor: 0, clientName: "é"), id: 1,
              "1A000000 0100 0000 01000000  4C4D4E41 0100 0000 02000000 C3A9")
        check(.ping(token: 0x0102_0304_0506_0708), id: 0xA0B0C0D0,
              "14000000 0200 0000 D0C0B0A0  0807060504030201")
    }

    @Test func layerRequests() {
        check(.createLayer(id: 1, kind: .layer), id: 2, "11000000 1000 0000 02000000  01000000 00")
        check(.createLayer(id: 1, kind: .shape), id: 2, "11000000 1000 0000 02000000  01000000 01")
        check(.createLayer(id: 1, kind: .gradient), id: 2, "11000000 1000 0000 02000000  01000000 02")
        check(.deleteLayer(id: 0x0102_0304), id: 3, "10000000 1100 0000 03000000  04030201")
        // setProperty: u32 layer, string keyPath, VALUE (rect 0 0 100 100); 12 + 4 + 10 + 33 = 59.
        check(.setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 100))), id: 4,
              "3B000000 1200 0000 04000000  01000000 06000000 626F756E6473 04 \(Self.f0) \(Self.f0) \(Self.f100) \(Self.f100)")
        check(.addSublayer(parent: 0, child: 1), id: 5, "14000000 1300 0000 05000000  00000000 01000000")
        check(.insertSublayer(parent: 1, child: 2, index: 3), id: 6,
              "18000000 1400 0000 06000000  01000000 02000000 03000000")
        check(.removeFromSuperlayer(id: 2), id: 7, "10000000 1500 0000 07000000  02000000")
        check(.commit, id: 8, "0C000000 2000 0000 08000000")
    }

    @Test func transactionRequests() {
        // f64 duration, TIMING (tag 1: cubic Bézier 0.25 0.1 0.25 1), u8 disableActions,
        // u32 n, n × u32 completion id; 12 + 8 + 33 + 1 + 12 = 66.
        check(.setTransaction(TransactionSettings(duration: 0.5, timingFunction: .cubicBezier(0.25, 0.1, 0.25, 1),
                                                  disableActions: true, completionIDs: [7, 9])), id: 9,
              "42000000 1600 0000 09000000  \(Self.f05) 01 \(Self.f025) \(Self.f01) \(Self.f025) \(Self.f1) 01 02000000 07000000 09000000")
        // TIMING tag 0: linear.
        check(.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear)), id: 9,
              "1A000000 1600 0000 09000000  \(Self.f0) 00 00 00000000")
        // TIMING tag 2: steps, u32 count, u8 position 0 start, 1 end, 2 none, 3 both.
        for (position, byte) in [(TimingFunction.StepPosition.start, "00"), (.end, "01"), (.none, "02"), (.both, "03")] {
            check(.setTransaction(TransactionSettings(duration: 1, timingFunction: .steps(3, position))), id: 9,
                  "1F000000 1600 0000 09000000  \(Self.f1) 02 03000000 \(byte) 00 00000000")
        }
        // TIMING tag 3: spring, f64 mass, stiffness, damping, initialVelocity.
        let spring = Spring(mass: 1, stiffness: 100, damping: 10, initialVelocity: -3)
        check(.setTransaction(TransactionSettings(duration: 1, timingFunction: .spring(spring))), id: 9,
              "3A000000 1600 0000 09000000  \(Self.f1) 03 \(Self.f1) \(Self.f100) \(Self.f10) \(Self.fm3) 00 00000000")
        check(.completion(id: 7), id: 10, "10000000 1A00 0000 0A000000  07000000")
    }

    @Test func animationRequests() {
        // u32 layer, string key, string animation (JSON).
        check(.addAnimation(id: 1, key: "fade", json: "{}"), id: 11,
              "1E000000 1700 0000 0B000000  01000000 04000000 66616465 02000000 7B7D")
        check(.removeAnimation(id: 1, key: "fade"), id: 12, "18000000 1800 0000 0C000000  01000000 04000000 66616465")
        check(.removeAllAnimations(id: 1), id: 13, "10000000 1900 0000 0D000000  01000000")
    }

    @Test func queryRequests() {
        check(.capture(time: 1.5), id: 14, "14000000 3000 0000 0E000000  \(Self.f15)")
        // NaN: the current frame.
        check(.capture(time: nil), id: 14, "14000000 3000 0000 0E000000  \(Self.nan)")
        check(.advanceClock(seconds: 0.25), id: 15, "14000000 3100 0000 0F000000  \(Self.f025)")
        check(.getTree, id: 16, "0C000000 3200 0000 10000000")
        check(.getStats, id: 17, "0C000000 3300 0000 11000000")
        check(.getPresentation(id: 1, keyPath: "opacity"), id: 18,
              "1B000000 3400 0000 12000000  01000000 07000000 6F706163697479")
        check(.hitTest(x: 10, y: 20), id: 19, "1C000000 3500 0000 13000000  \(Self.f10) \(Self.f20)")
        // u8 on (0/1).
        check(.setReduceMotion(true), id: 20, "0D000000 3600 0000 14000000  01")
    }

    /// CATransition (0x42): u32 layer, u8 type, u8 subtype, f64 duration, TIMING; 12 + 15 = 27.
    @Test func contentTransition() {
        check(.transition(id: 7, ContentTransition(type: .push, subtype: .fromRight, duration: 0.5, timingFunction: .linear)),
              id: 1, "1B000000 4200 0000 01000000  07000000 02 01 000000000000E03F 00")
        check(.transition(id: 7, ContentTransition(type: .fade, subtype: .fromBottom, duration: 1, timingFunction: .linear)),
              id: 2, "1B000000 4200 0000 02000000  07000000 00 03 \(Self.f1) 00")
        #expect(Request.isLayerOpcode(0x42))
        // An unknown type or subtype, a negative duration: malformed, skipped.
        for body in ["07000000 04 00 000000000000E03F 00", "07000000 00 04 000000000000E03F 00",
                     "07000000 00 00 000000000000E0BF 00"] {
            var decoder = FrameDecoder()
            decoder.feed(Self.bytes("1B000000 4200 0000 01000000 " + body))
            guard case .failure(.malformed(let why), 0x42, 1)? = decoder.nextRequest() else {
                Issue.record("\(body) decoded"); continue
            }
            #expect(why.contains("transition"))
        }
    }

    /// Any NaN means the current frame, not only the one the encoder writes.
    @Test func captureTakesAnyNaN() {
        var decoder = FrameDecoder()
        decoder.feed(Self.bytes("14000000 3000 0000 01000000  010000000000F8FF"))
        guard case .message(.capture(time: nil), 1)? = decoder.nextRequest() else {
            Issue.record("a negative NaN with a payload is the current frame too"); return
        }
    }

    // MARK: VALUE

    /// Each VALUE tag through `setProperty(layer 1, "k", VALUE)`: 12 + 4 + 5 + the value.
    @Test func values() {
        let head = "01000000 01000000 6B"
        func value(_ v: PropertyValue, _ length: String, _ bytes: String, sourceLocation: SourceLocation = #_sourceLocation) {
            check(.setProperty(id: 1, keyPath: "k", value: v), id: 1, "\(length) 1200 0000 01000000  \(head) \(bytes)",
                  sourceLocation: sourceLocation)
        }
        value(.color(nil), "16000000", "00")
        value(.number(1), "1E000000", "01 \(Self.f1)")
        value(.point(Point(1, 2)), "26000000", "02 \(Self.f1) \(Self.f2)")
        value(.size(Size(3, -3)), "26000000", "03 \(Self.f3) \(Self.fm3)")
        value(.rect(Rect(1, 2, 3, 4)), "36000000", "04 \(Self.f1) \(Self.f2) \(Self.f3) \(Self.f4)")
        // sRGB-encoded straight-alpha red, green, blue, alpha.
        value(.color(Color(1, 0.5, 0, 0.25)), "36000000", "05 \(Self.f1) \(Self.f05) \(Self.f0) \(Self.f025)")
        // 16 × f64 row by row; CATransform3DMakeTranslation(10, 20, 0) has them in m41 and m42.
        let one = Self.f1, zero = Self.f0
        value(.transform(.translation(10, 20)), "96000000", """
              06 \(one) \(zero) \(zero) \(zero)  \(zero) \(one) \(zero) \(zero)
                 \(zero) \(zero) \(one) \(zero)  \(Self.f10) \(Self.f20) \(zero) \(one)
              """)
        value(.bool(true), "17000000", "07 01")
        value(.bool(false), "17000000", "07 00")
        value(.string("evenOdd"), "21000000", "08 07000000 6576656E4F6464")
        value(.numbers([1, 2]), "2A000000", "09 02000000 \(Self.f1) \(Self.f2)")
        value(.numbers([]), "1A000000", "09 00000000")
        value(.path(nil), "16000000", "0A")
        // u32 count, then u8 op and its points: 0 move, 1 line, 2 quad, 3 cubic, 4 close.
        // 1 + 4 + (1 + 16) × 2 + (1 + 32) + (1 + 48) + 1 = 122; 21 + 122 = 143.
        value(.path(Path([.move(Point(0, 0)), .line(Point(1, 0)), .quad(Point(1, 1), Point(0, 1)),
                          .cubic(Point(0, 2), Point(1, 2), Point(1, 3)), .close])), "8F000000", """
              0B 05000000  00 \(zero) \(zero)  01 \(one) \(zero)  02 \(one) \(one) \(zero) \(one)
                 03 \(zero) \(Self.f2) \(one) \(Self.f2) \(one) \(Self.f3)  04
              """)
        value(.colors([Color(1, 0, 0, 1), Color(0, 0, 1, 0.5)]), "5A000000", """
              0C 02000000 \(one) \(zero) \(zero) \(one)  \(zero) \(zero) \(one) \(Self.f05)
              """)
    }

    // MARK: Events

    @Test func events() {
        // u16 major, u16 minor, u32 clientID, DISPLAY (u32 width, u32 height, f64 scale,
        // f64 refreshRate), u8 clock, f64 time, u8 reduceMotion.
        check(.welcome(major: 1, minor: 0, clientID: 3, display: DisplayInfo(width: 800, height: 600, scale: 2, refreshRate: 60),
                       clock: .manual, time: 0, reduceMotion: false), id: 1,
              "36000000 8100 0000 01000000  0100 0000 03000000 20030000 58020000 \(Self.f2) \(Self.f60) 01 \(Self.f0) 00")
        check(.welcome(major: 1, minor: 0, clientID: 3, display: DisplayInfo(width: 800, height: 600, scale: 1, refreshRate: 120),
                       clock: .realtime, time: 1.5, reduceMotion: true), id: 1,
              "36000000 8100 0000 01000000  0100 0000 03000000 20030000 58020000 \(Self.f1) \(Self.f120) 00 \(Self.f15) 01")
        check(.pong(token: 0x0102_0304_0506_0708), id: 2, "14000000 8200 0000 02000000  0807060504030201")
        // u16 opcode of the request answered, u16 code (9 invalidValue), u32 failed request,
        // u16 failed opcode, u32 layer, string key, string message.
        check(.error(opcode: 0x12, code: .invalidValue, message: "bad", request: 3, layer: 1, key: "opacity"), id: 3,
              "2C000000 8300 0000 03000000  1200 0900 03000000 1200 01000000 07000000 6F706163697479 03000000 626164")
        // A rejected commit (request 9) names its staged setProperty (request 4) of layer 2.
        check(.error(opcode: 0x20, code: .invalidProperty, message: "x",
                     detail: ErrorDetail(request: 4, opcode: 0x12, layer: 2, key: "a")), id: 9,
              "24000000 8300 0000 09000000  2000 0800 04000000 1200 02000000 01000000 61 01000000 78")
        // A refusal before any hello (maxClients): opcode 0, request 0.
        check(.error(opcode: 0, code: .limitExceeded, message: "", request: 0), id: 0,
              "22000000 8300 0000 00000000  0000 0B00 00000000 0000 00000000 00000000 00000000")
        check(.committed(sequence: 5), id: 4, "14000000 8400 0000 04000000  0500000000000000")
        // f64 time, u32 width, u32 height, bytes png (u32 count + bytes).
        check(.captured(time: 0, width: 2, height: 1, png: [0x89, 0x50]), id: 5,
              "22000000 8500 0000 05000000  \(Self.f0) 02000000 01000000 02000000 8950")
        check(.clockAdvanced(time: 1.5), id: 6, "14000000 8600 0000 06000000  \(Self.f15)")
        check(.tree(json: "{}"), id: 7, "12000000 8700 0000 07000000  02000000 7B7D")
        check(.stats(json: "{}"), id: 8, "12000000 8800 0000 08000000  02000000 7B7D")
        check(.presentation(value: .number(1)), id: 9, "15000000 8900 0000 09000000  01 \(Self.f1)")
        check(.presentation(value: .color(nil)), id: 9, "0D000000 8900 0000 09000000  00")
        // u8 kind (0 none, 1 own layer, 2 another client's layer), u32 layer.
        check(.hitResult(.none, layer: 0), id: 10, "11000000 8A00 0000 0A000000  00 00000000")
        check(.hitResult(.ownLayer, layer: 4), id: 10, "11000000 8A00 0000 0A000000  01 04000000")
        check(.hitResult(.otherClient, layer: 0), id: 10, "11000000 8A00 0000 0A000000  02 00000000")
        // Request id 0: not caused by a request.
        check(.animationStarted(layer: 1, key: "fade"), id: 0, "18000000 8B00 0000 00000000  01000000 04000000 66616465")
        check(.animationStopped(layer: 1, key: "fade", finished: true), id: 0,
              "19000000 8C00 0000 00000000  01000000 04000000 66616465 01")
        check(.animationStopped(layer: 1, key: "", finished: false), id: 0,
              "15000000 8C00 0000 00000000  01000000 00000000 00")
        check(.transactionCompleted(id: 7), id: 0, "10000000 8D00 0000 00000000  07000000")
        // DISPLAY: u32 width, u32 height, f64 scale, f64 refreshRate.
        check(.displayChanged(DisplayInfo(width: 800, height: 600, scale: 2, refreshRate: 60)), id: 0,
              "24000000 8E00 0000 00000000  20030000 58020000 \(Self.f2) \(Self.f60)")
        // u8 reduceMotion; the answer to setReduceMotion carries its request id.
        check(.reduceMotionChanged(true), id: 0, "0D000000 8F00 0000 00000000  01")
        check(.reduceMotionChanged(false), id: 5, "0D000000 8F00 0000 05000000  00")
    }

    /// The error codes' numbers, as the document's table gives them.
    @Test func errorCodes() {
        let table: [(Int, String)] = [
            (1, "badHandshake"), (2, "unsupportedVersion"), (3, "messageTooLarge"), (4, "malformed"),
            (5, "unknownOpcode"), (6, "unknownLayer"), (7, "duplicateLayer"), (8, "invalidProperty"),
            (9, "invalidValue"), (10, "invalidHierarchy"), (11, "limitExceeded"), (12, "clockNotManual"),
            (13, "captureFailed"), (14, "transactionFailed"), (15, "internalError"), (16, "invalidAnimation"),
            (17, "unknownImage"), (18, "invalidImage"), (19, "duplicateImage"), (20, "unknownBuffer"), (21, "invalidBuffer"),
        ]
        #expect(ErrorCode.allCases.count == table.count)
        for (number, name) in table {
            let code = ErrorCode(rawValue: UInt16(number))
            #expect(code.map { "\($0)" } == name, "code \(number)")
        }
    }

    // MARK: Framing

    /// The example of docs/protocol.md, read from the document itself (between its
    /// `example:begin`/`example:end` markers): one message per line, `name:` then hex.
    static func documentExampleBytes() throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/protocol.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        guard let begin = text.range(of: "<!-- example:begin -->"), let end = text.range(of: "<!-- example:end -->") else {
            throw CocoaError(.fileReadCorruptFile)
        }
        let lines = text[begin.upperBound..<end.lowerBound].split(separator: "\n").filter { $0.contains(":") }
        return bytes(lines.map { String($0[$0.index(after: $0.firstIndex(of: ":")!)...]) }.joined(separator: " "))
    }

    /// The document's example, byte for byte: the requests it says, and nothing else.
    @Test func documentExample() throws {
        let stream = try Self.documentExampleBytes()
        let red = PropertyValue.color(Color(1, 0, 0, 1))
        let expected: [(Request, UInt32)] = [
            (.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: Protocol.versionMinor, clientName: "demo-1"), 1),
            (.createLayer(id: 1, kind: .layer), 2),
            (.setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 100))), 3),
            (.setProperty(id: 1, keyPath: "position", value: .point(Point(50, 50))), 4),
            (.setProperty(id: 1, keyPath: "backgroundColor", value: red), 5),
            (.addSublayer(parent: 0, child: 1), 6), (.commit, 7),
        ]
        var decoder = FrameDecoder()
        decoder.feed(stream)
        for (request, id) in expected {
            guard case .message(let got, let gotID)? = decoder.nextRequest() else { Issue.record("missing \(request)"); return }
            #expect(got == request && gotID == id)
        }
        #expect(decoder.bufferedCount == 0)
        #expect(expected.flatMap { MessageEncoder.encode($0.0, requestID: $0.1) } == stream)
    }

    /// flags must be 0; a body must contain exactly its fields; a length below 12 breaks the framing.
    @Test func framingRules() {
        var decoder = FrameDecoder()
        decoder.feed(Self.bytes("0C000000 2000 0100 01000000"))
        guard case .failure(.malformed, 0x20, 1)? = decoder.nextRequest() else { Issue.record("flags 1 accepted"); return }
        decoder.feed(Self.bytes("11000000 2000 0000 02000000  01000000 00"))
        guard case .failure(.malformed, 0x20, 2)? = decoder.nextRequest() else { Issue.record("trailing bytes accepted"); return }
        decoder.feed(Self.bytes("0F000000 1000 0000 03000000  010000"))
        guard case .failure(.truncated, 0x10, 3)? = decoder.nextRequest() else { Issue.record("short body accepted"); return }
        decoder.feed(Self.bytes("0B000000 2000 0000 04000000"))
        guard case .failure(.badFraming, 0x20, 4)? = decoder.nextRequest() else { Issue.record("length 11 accepted"); return }
        #expect(decoder.isBroken)
    }
}
