import LaminaGeometry
import LaminaModel
@testable import LaminaWire
import Testing

/// Path templates and expression animations on the wire (docs/protocol.md, "Path templates
/// and expression animations"): the template VALUE tag and the expression animation JSON.
@Suite struct ProgramWireTests {
    func roundTrip(_ request: Request) -> Request? {
        var decoder = FrameDecoder()
        decoder.feed(MessageEncoder.encode(request, requestID: 9))
        guard case .message(let decoded, 9)? = decoder.nextRequest() else { return nil }
        return decoded
    }

    @Test func templateValueBytes() {
        // setProperty(1, "k", template "close()"): 12 + 4 + 5 + tag 13 + u32 7 + 7 bytes = 33.
        let request = Request.setProperty(id: 1, keyPath: "k", value: .template("close()"))
        let bytes = MessageEncoder.encode(request, requestID: 1)
        let expected: [UInt8] = [0x21, 0, 0, 0, 0x12, 0, 0, 0, 1, 0, 0, 0,  1, 0, 0, 0,  1, 0, 0, 0, 0x6B,
                                 0x0D, 7, 0, 0, 0, 0x63, 0x6C, 0x6F, 0x73, 0x65, 0x28, 0x29]
        #expect(bytes == expected)
        let long = String(repeating: "line(1, 2)\n", count: 300)
        #expect(roundTrip(.setProperty(id: 4, keyPath: "path", value: .template(long))) ==
                .setProperty(id: 4, keyPath: "path", value: .template(long)))
    }

    @Test func expressionAnimationRoundTrip() throws {
        let e = ExpressionAnimation(keyPath: "position.x", expression: "slider.custom.v * 2 + sin(t)",
                                    layers: ["slider": 12, "b": 3])
        let text = ExpressionJSON.encode(e).text
        #expect(text == #"{"type": "expression", "keyPath": "position.x", "expression": "slider.custom.v * 2 + sin(t)", "layers": {"b": 3, "slider": 12}}"#)
        // Through the addAnimation request and back to the operation the server stages.
        guard case .addAnimation(let id, let key, let json)? = roundTrip(.addAnimation(id: 5, key: "follow", json: text)) else {
            Issue.record("no addAnimation"); return
        }
        #expect(try AnimationJSON.operation(layer: id, key: key, text: json) == .addExpression(5, key: "follow", expression: e))
        // Other animations stay what they were.
        let basic = #"{"type": "basic", "keyPath": "opacity", "from": 0, "to": 1, "duration": 1}"#
        guard case .addAnimation(5, "fade", _) = try AnimationJSON.operation(layer: 5, key: "fade", text: basic) else {
            Issue.record("not an animation"); return
        }
    }

    @Test func expressionJSONErrors() {
        func error(_ text: String) -> String? {
            do { _ = try AnimationJSON.operation(layer: 1, key: "k", text: text); return nil } catch { return error.description }
        }
        #expect(error(#"{"type": "expression", "expression": "1"}"#) == "animation.keyPath: is required")
        #expect(error(#"{"type": "expression", "keyPath": "opacity"}"#) == "animation.expression: is required")
        #expect(error(#"{"type": "expression", "keyPath": "nope", "expression": "1"}"#)
                == "animation.keyPath: unknown or non-animatable key path 'nope'")
        #expect(error(#"{"type": "expression", "keyPath": "opacity", "expression": "1", "layers": {"a": 0}}"#)
                == "animation.layers.a: must be a layer id (an integer ≥ 1)")
        #expect(error(#"{"type": "expression", "keyPath": "opacity", "expression": "1", "duration": 1}"#)
                == "animation.duration: unknown field")
    }
}
