import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing
import LaminaModel

/// docs/protocol.md read as a client author reads it: each case the daemon and the document
/// once disagreed on, checked against the document's sentence (quoted above each test).
@Suite struct ProtocolDocumentTests {
    static func error(_ e: Event?) -> (code: ErrorCode, detail: ErrorDetail)? {
        if case .error(_, let code, _, let d)? = e { return (code, d) }
        return nil
    }

    /// A client with layer 1 (a plain layer, 10 × 10) committed.
    static func client(_ d: EmbeddedDaemon) -> UInt32 {
        let c = d.connect()!
        #expect(d.commit([.createLayer(id: 1, kind: .layer), .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                          .addSublayer(parent: 0, child: 1)], from: c) == .committed(sequence: 1))
        return c
    }

    /// Sends `addAnimation` of `json` on layer 1 and returns the errors answered at once, then
    /// the commit's reply.
    static func animate(_ json: String, _ d: EmbeddedDaemon, _ c: UInt32, before: [Request] = [])
        -> (atOnce: [ErrorCode], commit: Event) {
        d.send(before + [.addAnimation(id: 1, key: "k", json: json)], from: c)
        let atOnce = d.takeEvents(c).compactMap { error($0.event)?.code }
        return (atOnce, d.request(.commit, from: c))
    }

    /// "`custom.NAME` … absent until set (reading or animating an unset one is
    /// `invalidProperty` / `invalidAnimation`)", at commit: whether it is set is the layer's.
    @Test func animatingAnUnsetCustomPropertyIsInvalidAnimationAtCommit() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        let basic = #"{"type": "basic", "keyPath": "custom.phase", "from": 0, "to": 1, "duration": 1}"#
        let r = Self.animate(basic, d, c)
        #expect(r.atOnce.isEmpty)
        #expect(Self.error(r.commit)?.code == .invalidAnimation)
        #expect(Self.error(r.commit)?.detail == ErrorDetail(request: Self.error(r.commit)?.detail.request ?? 0, opcode: 0x17,
                                                             layer: 1, key: "k"))
        #expect(Self.error(d.request(.getPresentation(id: 1, keyPath: "custom.phase"), from: c))?.code == .invalidProperty)
        // Set first, in the same transaction: accepted.
        let ok = Self.animate(basic, d, c, before: [.setProperty(id: 1, keyPath: "custom.phase", value: .number(0))])
        #expect(ok.atOnce.isEmpty)
        if case .committed = ok.commit {} else { Issue.record("\(ok.commit)") }
        // The layer holds a number: a list animation of it fails at commit (its type is the layer's).
        let list = Self.animate(#"{"type": "basic", "keyPath": "custom.phase", "from": [0, 1], "to": [1, 2]}"#, d, c)
        #expect(list.atOnce.isEmpty && Self.error(list.commit)?.code == .invalidAnimation)
    }

    /// "The first set of a `custom.NAME` … makes no implicit animation (there is no earlier
    /// value to animate from); later sets animate like any animatable property."
    @Test func theFirstSetOfACustomPropertyDoesNotAnimate() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        #expect(d.commit([.setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
                          .setProperty(id: 1, keyPath: "custom.phase", value: .number(8))], from: c) == .committed(sequence: 2))
        _ = d.clock.advance(by: 0.25)
        #expect(d.request(.getPresentation(id: 1, keyPath: "custom.phase"), from: c) == .presentation(value: .number(8)))
        // The second set animates from 8 to 16 over 1 s, linearly: 10 a quarter of the way.
        #expect(d.commit([.setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
                          .setProperty(id: 1, keyPath: "custom.phase", value: .number(16))], from: c) == .committed(sequence: 3))
        _ = d.clock.advance(by: 0.25)
        guard case .presentation(.number(let v)) = d.request(.getPresentation(id: 1, keyPath: "custom.phase"), from: c) else {
            Issue.record("no value"); return
        }
        #expect(abs(v - 10) < 1e-9)
    }

    /// "`frame` | rect (size ≥ 0)" — as `bounds`, a negative size is `invalidValue` at commit.
    @Test func aFrameWithANegativeSizeIsRefusedAsBoundsIs() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        for keyPath in ["frame", "bounds"] {
            for rect in [Rect(0, 0, 10, -1), Rect(0, 0, -1, 10)] {
                let reply = d.commit([.setProperty(id: 1, keyPath: keyPath, value: .rect(rect))], from: c)
                #expect(Self.error(reply)?.code == .invalidValue, "\(keyPath) \(rect)")
                #expect(Self.error(reply)?.detail.key == keyPath)
            }
        }
        // Nothing applied: bounds 10 × 10 about position (0, 0) and the anchor (0.5, 0.5).
        #expect(d.request(.getPresentation(id: 1, keyPath: "frame"), from: c) == .presentation(value: .rect(Rect(-5, -5, 10, 10))))
    }

    /// "`tileSize` (and `.width`, `.height`) | tiled | size (3) | finite, width and height
    /// 16…4096", "`levelsOfDetail` … 1…30", "`levelsOfDetailBias` … 0…30": outside, the set is
    /// `invalidValue` at commit naming the key path and the range (they were clamped once);
    /// the ends of each range are accepted and read back unchanged.
    @Test func tiledLayerFieldsOutOfRangeAreRefused() {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        #expect(d.commit([.createLayer(id: 1, kind: .tiled), .addSublayer(parent: 0, child: 1)], from: c) == .committed(sequence: 1))
        let refused: [(String, PropertyValue, String)] = [
            ("tileSize", .size(Size(15, 256)), "16…4096"), ("tileSize", .size(Size(256, 4097)), "16…4096"),
            ("tileSize", .size(Size(0, 0)), "16…4096"), ("tileSize.width", .number(8), "16…4096"),
            ("tileSize.height", .number(1e9), "16…4096"), ("levelsOfDetail", .number(0), "1…30"),
            ("levelsOfDetail", .number(0.5), "1…30"), ("levelsOfDetail", .number(31), "1…30"),
            ("levelsOfDetailBias", .number(30.5), "0…30"), ("levelsOfDetailBias", .number(-1), "0…30"),
        ]
        for (keyPath, value, range) in refused {
            let reply = d.commit([.setProperty(id: 1, keyPath: keyPath, value: value)], from: c)
            guard case .error(_, let code, let message, let detail) = reply else { Issue.record("\(keyPath) \(value): \(reply)"); continue }
            #expect(code == .invalidValue && detail.key == keyPath, "\(keyPath) \(value)")
            #expect(message.contains(keyPath) && message.contains(range), "\(message)")
        }
        // Nothing of those applied: the defaults read back.
        #expect(d.request(.getPresentation(id: 1, keyPath: "tileSize"), from: c) == .presentation(value: .size(Size(256, 256))))
        #expect(d.request(.getPresentation(id: 1, keyPath: "levelsOfDetail"), from: c) == .presentation(value: .number(1)))
        let accepted: [(String, PropertyValue)] = [
            ("tileSize", .size(Size(16, 4096))), ("levelsOfDetail", .number(30)), ("levelsOfDetailBias", .number(30)),
        ]
        for (keyPath, value) in accepted {
            let reply = d.commit([.setProperty(id: 1, keyPath: keyPath, value: value)], from: c)
            if case .committed = reply {} else { Issue.record("\(keyPath): \(reply)") }
            #expect(d.request(.getPresentation(id: 1, keyPath: keyPath), from: c) == .presentation(value: value), "\(keyPath)")
        }
    }

    /// "At once … a bad `addAnimation` JSON: anything the animation's JSON alone decides —
    /// ranges, spring parameters, key times, key paths and the type of their values" — then
    /// the commit is `transactionFailed`.
    @Test(arguments: [
        #"{"type": "spring", "keyPath": "opacity", "from": 0, "to": 1, "damping": 0}"#,
        #"{"type": "keyframe", "keyPath": "opacity", "values": [0, 1, 0], "keyTimes": [0, 0.8, 0.5]}"#,
        #"{"type": "basic", "keyPath": "opacity", "from": [0, 1], "to": 1}"#,
        #"{"type": "basic", "keyPath": "noSuchProperty", "from": 0, "to": 1}"#,
        #"{"type": "basic", "keyPath": "contents", "from": "a", "to": "b"}"#,
        #"{"type": "basic", "keyPath": "opacity", "to": 1, "duration": -1}"#,
        #"{"type": "group", "animations": [{"type": "basic", "keyPath": "position", "to": 1}]}"#,
        #"{"type": "basic", "keyPath": "opacity", "to": 1, "timingFunction": {"spring": {"damping": 0}}}"#,
        #"{"type": "basic", "keyPath": "opacity", "to": 1, "timingFunction": {"spring": {"bounce": 1}}}"#,
        #"{"type": "basic", "keyPath": "opacity", "to": 1, "timingFunction": {"spring": {"mass": 2, "bounce": 0.2}}}"#,
        #"{"type": "expression", "keyPath": "opacity", "expression": "1", "layers": {"self": 1}}"#,
    ])
    func whatTheJSONAloneDecidesFailsAtOnce(json: String) {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        let r = Self.animate(json, d, c)
        #expect(r.atOnce == [.invalidAnimation])
        #expect(Self.error(r.commit)?.code == .transactionFailed)
    }

    /// "At commit … what needs the layer: the layer's kind having the key path" —
    /// `invalidAnimation` from the commit itself.
    @Test func whatNeedsTheLayerFailsAtCommit() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        let r = Self.animate(#"{"type": "basic", "keyPath": "strokeEnd", "from": 0, "to": 1}"#, d, c)
        #expect(r.atOnce.isEmpty)
        #expect(Self.error(r.commit)?.code == .invalidAnimation)
        let missing = d.send([.addAnimation(id: 9, key: "k", json: #"{"type": "basic", "keyPath": "opacity", "to": 1}"#)], from: c)
        #expect(d.takeEvents(c).isEmpty)
        let reply = d.request(.commit, from: c)
        #expect(Self.error(reply)?.code == .unknownLayer && Self.error(reply)?.detail.request == missing[0])
    }

    /// "names are … a letter or `_`, then letters, digits and `_`" — any other name in
    /// `layers` is `invalidAnimation` at once.
    @Test(arguments: ["a-b", "a b", "", "1a", "é"])
    func expressionLayerNamesAreIdentifiers(name: String) throws {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        let escaped = String(data: try JSONSerialization.data(withJSONObject: [name], options: []), encoding: .utf8)!.dropFirst().dropLast()
        let bad = Self.animate(#"{"type": "expression", "keyPath": "opacity", "expression": "1", "layers": {\#(escaped): 1}}"#, d, c)
        #expect(bad.atOnce == [.invalidAnimation], "\(name)")
        #expect(Self.error(bad.commit)?.code == .transactionFailed)
        let good = Self.animate(#"{"type": "expression", "keyPath": "opacity", "expression": "_a1.cornerRadius", "layers": {"_a1": 1}}"#, d, c)
        #expect(good.atOnce.isEmpty)
        if case .committed = good.commit {} else { Issue.record("\(good.commit)") }
    }

    /// TIMING: "3 spring … damping > 0" — an undamped spring as a transaction's timing function
    /// is `malformed` at once, and the transaction fails.
    @Test func anUndampedSpringTimingIsMalformed() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        d.send([.setTransaction(TransactionSettings(duration: 1, timingFunction: .spring(Spring(mass: 1, stiffness: 100, damping: 0)))),
                .setProperty(id: 1, keyPath: "opacity", value: .number(0))], from: c)
        #expect(d.takeEvents(c).compactMap { Self.error($0.event)?.code } == [.malformed])
        #expect(Self.error(d.request(.commit, from: c))?.code == .transactionFailed)
    }

    /// "`getPresentation` … a property the layer's kind lacks (`fillColor` on a plain layer) is
    /// `invalidProperty`".
    @Test func readingAPropertyTheKindLacksIsInvalidProperty() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        let reply = d.request(.getPresentation(id: 1, keyPath: "fillColor"), from: c)
        #expect(Self.error(reply)?.code == .invalidProperty && Self.error(reply)?.detail.key == "fillColor")
        #expect(d.request(.getPresentation(id: 1, keyPath: "position.x"), from: c) == .presentation(value: .number(0)))
    }

    /// "An expression may drive a `custom.NAME` the layer has not set … `getPresentation`
    /// answers the expression's value …; an expression reads an unset `custom.NAME` as 0."
    @Test func expressionsAndUnsetCustomProperties() {
        let d = EmbeddedDaemon()
        let c = Self.client(d)
        let reads = Self.animate(#"{"type": "expression", "keyPath": "opacity", "expression": "self.custom.nope + 0.5"}"#, d, c)
        #expect(reads.atOnce.isEmpty)
        if case .committed = reads.commit {} else { Issue.record("\(reads.commit)") }
        #expect(d.request(.getPresentation(id: 1, keyPath: "opacity"), from: c) == .presentation(value: .number(0.5)))
        let drives = Self.animate(#"{"type": "expression", "keyPath": "custom.zz", "expression": "0.75"}"#, d, c)
        if case .committed = drives.commit {} else { Issue.record("\(drives.commit)") }
        #expect(d.request(.getPresentation(id: 1, keyPath: "custom.zz"), from: c) == .presentation(value: .number(0.75)))
    }
}
