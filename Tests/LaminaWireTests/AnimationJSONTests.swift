import LaminaAnimation
import LaminaGeometry
import LaminaWire
import Testing

/// docs/scene-format.md's ANIMATION and value forms, and their errors with JSON paths.
@Suite struct AnimationJSONTests {
    func decode(_ text: String) throws -> Animation { try AnimationJSON.decode(text: text, path: "a") }

    func error(_ text: String) -> String? {
        do { _ = try AnimationJSON.decode(text: text, path: "a"); return nil } catch { return error.description }
    }

    @Test func basicWithTimingFields() throws {
        let a = try decode("""
        {"type": "basic", "keyPath": "position", "from": [0, 0], "to": [10, 20], "duration": 2, "beginTime": 0.5,
         "timingFunction": [0.1, 0.2, 0.3, 1], "repeatCount": "infinity", "autoreverses": true, "fillMode": "both",
         "removedOnCompletion": false, "speed": 2, "timeOffset": 0.25, "additive": true, "cumulative": true,
         "essential": false}
        """)
        let t = AnimationTiming(beginTime: 0.5, duration: 2, timingFunction: .cubicBezier(0.1, 0.2, 0.3, 1),
                                repeatCount: .infinity, autoreverses: true, fillMode: .both, removedOnCompletion: false,
                                speed: 2, timeOffset: 0.25, additive: true, cumulative: true, essential: false)
        #expect(a == .basic(BasicAnimation(keyPath: "position", from: .point(Point(0, 0)), to: .point(Point(10, 20)), timing: t)))
    }

    @Test func everyKindRoundTripsThroughEncode() throws {
        let texts = [
            #"{"type": "keyframe", "keyPath": "opacity", "values": [0, 1, 0.5], "keyTimes": [0, 0.3, 1], "timingFunctions": ["easeIn", {"steps": 2, "position": "start"}], "calculationMode": "cubic"}"#,
            #"{"type": "keyframe", "keyPath": "position", "path": "M0 0 L10 0 Q20 10 30 0", "calculationMode": "paced"}"#,
            #"{"type": "spring", "keyPath": "transform.scale", "from": 0.5, "to": 1, "mass": 2, "stiffness": 80, "damping": 7, "initialVelocity": 1}"#,
            ##"{"type": "group", "duration": 2, "animations": [{"type": "basic", "keyPath": "backgroundColor", "to": "#ff000080"}, {"type": "basic", "keyPath": "transform", "to": [{"rotate": 1}, {"scale": 2}]}]}"##,
            #"{"type": "keyframes", "tracks": {"position.x": [{"linear": 10, "duration": 1}, {"move": 0}, {"spring": 5, "duration": 0.5, "bounce": 0.2}], "custom.phase": [{"cubic": 1, "duration": 2}]}}"#,
            #"{"type": "phases", "repeat": false, "phases": [{"values": {"opacity": 1}}, {"values": {"opacity": 0}, "animation": {"spring": {"perceptualDuration": 0.4, "bounce": 0.1}}, "duration": 0.6}]}"#,
        ]
        for text in texts {
            let a = try decode(text)
            let again = try AnimationJSON.decode(AnimationJSON.encode(a), "b")
            #expect(again == a, "\(text)")
        }
    }

    @Test func springPerceptualParameters() throws {
        // SwiftUI's mapping: stiffness (2π/d)², damping ratio 1 − b, damping 4πζ/d, mass 1.
        guard case .spring(let s) = try decode(#"{"type": "spring", "keyPath": "opacity", "to": 0, "perceptualDuration": 0.5, "bounce": 0.25}"#) else {
            Issue.record("not a spring"); return
        }
        #expect(abs(s.spring.stiffness - (2 * .pi / 0.5) * (2 * .pi / 0.5)) < 1e-9)
        #expect(abs(s.spring.damping - 4 * .pi * 0.75 / 0.5) < 1e-9)
        #expect(s.spring.mass == 1)
    }

    @Test func cssTransformListAppliesTheLastOperationFirst() throws {
        // [translate(10, 0), scale(2)]: the point is scaled, then translated: (1, 0) → (12, 0).
        let m = try SceneValues.transform(JSON.parse(#"[{"translate": [10, 0]}, {"scale": 2}]"#), "t")
        #expect(m.apply(Point(1, 0)) == Point(12, 0))
        let raw = try SceneValues.transform(JSON.parse("[1,0,0,0, 0,1,0,0, 0,0,1,0, 5,6,0,1]"), "t")
        #expect(raw == .translation(5, 6))
    }

    @Test func colorsAndPaths() throws {
        #expect(try SceneValues.color(JSON.parse(##""#f80""##), "c") == Color(1, 0x88 / 255, 0))
        #expect(try SceneValues.color(JSON.parse("[1, 0, 0, 0.5]"), "c") == Color(1, 0, 0, 0.5))
        #expect(try SceneValues.color(.null, "c") == nil)
        #expect(try SceneValues.path(JSON.parse(#"{"rect": [0, 0, 2, 3]}"#), "p") == .rect(Rect(0, 0, 2, 3)))
        #expect(try SceneValues.path(JSON.parse(#"{"roundedRect": [0, 0, 10, 10], "radius": 2}"#), "p") == .roundedRect(Rect(0, 0, 10, 10), radius: 2))
    }

    @Test func errorsNameTheField() {
        #expect(error(#"{"type": "basic", "keyPath": "opacity", "to": 1, "duration": -1}"#) == "a.duration: must be ≥ 0")
        #expect(error(#"{"type": "basic", "keyPath": "opacity", "to": 1, "durration": 1}"#) == "a.durration: unknown field")
        #expect(error(#"{"type": "basic", "keyPath": "opacity", "to": "x"}"#) == "a.to: must be a number (got a string)")
        #expect(error(#"{"type": "basic", "keyPath": "position", "to": [1]}"#) == "a.to: must be a point [x, y]")
        #expect(error(#"{"type": "basic", "keyPath": "hidden", "to": 1}"#) == "a.keyPath: unknown or non-animatable key path 'hidden'")
        #expect(error(#"{"type": "wobble"}"#)?.hasPrefix("a.type: must be") == true)
        #expect(error(#"{"keyPath": "opacity"}"#) == "a.type: is required")
        #expect(error(#"{"type": "basic", "keyPath": "opacity", "to": 1, "fillMode": "sideways"}"#)?.hasPrefix("a.fillMode: must be one of") == true)
        #expect(error(#"{"type": "basic", "keyPath": "opacity", "to": 1, "timingFunction": "bouncey"}"#)?.hasPrefix("a.timingFunction: unknown timing function") == true)
        #expect(error(#"{"type": "group", "animations": [{"type": "basic", "keyPath": "opacity", "to": 1, "speed": "fast"}]}"#) == "a.animations[0].speed: must be a number (got a string)")
        #expect(error(#"{"type": "keyframes", "tracks": {"opacity": [{"linear": 1}]}}"#) == "a.tracks.opacity[0].duration: is required")
        #expect(error(#"{"type": "basic", "keyPath": "backgroundColor", "to": [2, 0, 0]}"#) == "a.to[0]: must be in 0…1")
        #expect(error(#"{"type": "basic", "keyPath": "opacity", "to": 1,}"#)?.hasPrefix("invalid JSON at line 1") == true)
    }
}
