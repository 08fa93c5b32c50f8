import Foundation
import Lamina
import LaminaWire
import Testing
import LaminaSceneTree

/// Scene files as docs/scene-format.md specifies them: every feature loads and plays with the
/// values worked out by hand from CA's formulas; every kind of bad field is an error naming
/// its JSON path.
@Suite struct SceneTests {
    func load(_ text: String) throws -> Scene { try Scene(json: text) }

    func error(_ text: String) -> String? {
        do { _ = try Scene(json: text); return nil } catch { return error.description }
    }

    func number(_ scene: Scene, _ arg: String, at t: Double) throws -> Double {
        guard case .object(let m) = try scene.query([arg], at: t), case .number(let v) = m[0].value else { return .nan }
        return v
    }

    @Test func layerTimeNestsAndTransactionsScrubIt() throws {
        // p: beginTime 0.5, speed 2 → 2t − 1; dot: speed 0.5, timeOffset 1 → (2t − 1)/2 + 1 = t + 0.5.
        // dot's animation (0 → 100 in 4 s, linear) is added at scene time 0: it begins at local 0.5.
        // At 2 the TX freezes p at local 3: dot's local is 3/2 + 1 = 2.5 from then on.
        let s = try load(#"""
        {"layers": [
          {"name": "p", "bounds": [0, 0, 10, 10], "speed": 2, "beginTime": 0.5,
           "sublayers": [{"name": "dot", "bounds": [0, 0, 10, 10], "speed": 0.5, "timeOffset": 1,
             "animations": {"m": {"type": "basic", "keyPath": "position.x", "from": 0, "to": 100, "duration": 4}}}]}],
         "transactions": [{"at": 2, "set": {"p.speed": 0, "p.timeOffset": 3}}]}
        """#)
        #expect(abs(try number(s, "dot.position.x", at: 1) - 25) < 1e-9)     // local 1.5: 1 s in
        #expect(abs(try number(s, "dot.position.x", at: 1.5) - 37.5) < 1e-9)  // local 2: 1.5 s in
        #expect(abs(try number(s, "dot.position.x", at: 3) - 50) < 1e-9)     // frozen at local 2.5: 2 s in
        #expect(abs(try number(s, "dot.position.x", at: 30) - 50) < 1e-9)
        #expect(try number(s, "p.speed", at: 3) == 0)
    }

    @Test func topLevelDefaults() throws {
        let s = try load("{}")
        #expect(s.size == Size(800, 600) && s.scale == 1 && s.background == .black)
        let t = try load(#"{"size": [320, 240], "scale": 2, "background": [0, 0.5, 1]}"#)
        #expect(t.size == Size(320, 240) && t.scale == 2 && t.background == Color(0, 0.5, 1))
    }

    @Test func everyLayerPropertyLoads() throws {
        let s = try load(##"""
        {"layers": [
          {"name": "a", "bounds": [1, 2, 30, 40], "position": [5, 6], "zPosition": 2, "anchorPoint": [0, 1],
           "anchorPointZ": 3, "transform": [{"rotate": 0.5}], "sublayerTransform": [{"perspective": 500}],
           "opacity": 0.5, "hidden": true, "masksToBounds": true, "cornerRadius": 4,
           "maskedCorners": ["minXMinY", "maxXMaxY"], "borderWidth": 1, "borderColor": "#00ff00",
           "backgroundColor": [1, 0, 0, 0.5], "shadowColor": null, "shadowOpacity": 0.3, "shadowOffset": [1, 2],
           "shadowRadius": 5, "shadowPath": {"rect": [0, 0, 1, 1]}, "custom": {"phase": 2, "list": [1, 2]},
           "sublayers": [
             {"name": "s", "type": "shape", "path": "M0 0 L10 0 L0 10 Z", "fillColor": "#123", "fillRule": "evenOdd",
              "strokeColor": "#ffffff80", "lineWidth": 3, "lineCap": "round", "lineJoin": "bevel", "miterLimit": 4,
              "lineDashPattern": [2, 1], "lineDashPhase": 1, "strokeStart": 0.1, "strokeEnd": 0.9},
             {"name": "g", "type": "gradient", "colors": ["#000", [1, 1, 1]], "locations": [0, 1],
              "startPoint": [0, 0], "endPoint": [1, 1], "gradientType": "radial"}
           ]}
        ]}
        """##)
        let tree = try s.tree(at: 0)
        let a = try #require(tree[s.layerID(named: "a")!]?.properties)
        #expect(a.bounds == Rect(1, 2, 30, 40) && a.position == Point(5, 6) && a.zPosition == 2)
        #expect(a.anchorPoint == Point(0, 1) && a.anchorPointZ == 3 && a.transform == .rotation(0.5))
        #expect(a.sublayerTransform == .perspective(500) && a.opacity == 0.5 && a.isHidden && a.masksToBounds)
        #expect(a.cornerRadius == 4 && a.maskedCorners == [.minXMinY, .maxXMaxY] && a.borderWidth == 1)
        #expect(a.borderColor == Color(0, 1, 0) && a.backgroundColor == Color(1, 0, 0, 0.5) && a.shadowColor == nil)
        #expect(a.shadowOpacity == 0.3 && a.shadowOffset == Size(1, 2) && a.shadowRadius == 5)
        #expect(a.shadowPath == .rect(Rect(0, 0, 1, 1)) && a.custom == ["phase": [2], "list": [1, 2]])
        let sh = try #require(tree[s.layerID(named: "s")!])
        #expect(sh.kind == .shape && sh.superlayer == s.layerID(named: "a"))
        #expect(sh.properties.fillColor == Color(0x11 / 255, 0x22 / 255, 0x33 / 255) && sh.properties.fillRule == .evenOdd)
        #expect(sh.properties.lineCap == .round && sh.properties.lineJoin == .bevel && sh.properties.lineDashPattern == [2, 1])
        #expect(sh.properties.strokeStart == 0.1 && sh.properties.strokeEnd == 0.9 && sh.properties.miterLimit == 4)
        let g = try #require(tree[s.layerID(named: "g")!]?.properties)
        #expect(g.colors == [.black, .white] && g.locations == [0, 1] && g.gradientType == .radial && g.endPoint == Point(1, 1))
    }

    @Test func layersStackInOrderAndHitTest() throws {
        let s = try load(#"""
        {"layers": [
          {"name": "back", "bounds": [0, 0, 100, 100], "position": [50, 50]},
          {"name": "front", "bounds": [0, 0, 50, 50], "position": [50, 50]},
          {"name": "ring", "type": "shape", "position": [200, 200], "path": {"ellipse": [-20, -20, 40, 40]}}
        ]}
        """#)
        #expect(try s.hitTest(Point(50, 50), at: 0) == "front")
        #expect(try s.hitTest(Point(10, 10), at: 0) == "back")
        #expect(try s.hitTest(Point(200, 210), at: 0) == "ring")
        #expect(try s.hitTest(Point(217, 217), at: 0) == nil)          // inside the bounding box, outside the circle
        #expect(try s.hitTest(Point(500, 500), at: 0) == nil)
    }

    @Test func layerAnimationsPlayFromSceneTimeZero() throws {
        let s = try load(#"""
        {"layers": [{"name": "box", "bounds": [0, 0, 10, 10], "custom": {"phase": 0},
          "animations": {
            "move": {"type": "basic", "keyPath": "position.x", "from": 0, "to": 100, "duration": 2},
            "nudge": {"type": "basic", "keyPath": "position.x", "from": 0, "to": 10, "duration": 1, "additive": true},
            "spin": {"type": "basic", "keyPath": "transform.rotation.z", "to": 1, "duration": 1, "timingFunction": "easeInEaseOut"},
            "phase": {"type": "keyframe", "keyPath": "custom.phase", "values": [0, 4, 2], "keyTimes": [0, 0.5, 1], "duration": 4}
          }}]}
        """#)
        // move: 100·(0.5/2) = 25; nudge (additive) 0 → 10 at ½ adds 5 onto the underlying 25.
        #expect(try number(s, "box.position.x", at: 0.5) == 30)
        // easeInEaseOut is symmetric: f(½) = ½ → 0.5 rad.
        #expect(abs(try number(s, "box.transform.rotation.z", at: 0.5) - 0.5) < 1e-9)
        // keyframes: t = 3 is ½ of the second segment (2 s … 4 s): 4 + (2 − 4)·½ = 3.
        #expect(abs(try number(s, "box.custom.phase", at: 3) - 3) < 1e-9)
        // After 2 s "move" is removed: the model value 0.
        #expect(try number(s, "box.position.x", at: 2.5) == 0)
    }

    @Test func transactionsSetAddAndRemoveAtTheirTimes() throws {
        let s = try load(#"""
        {"layers": [{"name": "box", "bounds": [0, 0, 10, 10], "opacity": 1,
                     "animations": {"long": {"type": "basic", "keyPath": "zPosition", "from": 0, "to": 10, "duration": 10}}}],
         "transactions": [
          {"at": 2, "remove": {"box": ["long"]}},
          {"at": 1, "duration": 2, "timingFunction": "linear", "set": {"box.opacity": 0, "box.position.y": 20}},
          {"at": 3, "disableActions": true, "set": {"box.shadowOffset.height": 7}},
          {"at": 3, "add": {"box": {"late": {"type": "basic", "keyPath": "cornerRadius", "from": 0, "to": 8, "duration": 1}}}}
         ]}
        """#)
        #expect(s.transactions.map(\.at) == [1, 2, 3, 3])
        // Implicit from the presentation value 1 to 0 over 2 s, linear: ¼ of the way at 1.5.
        #expect(try number(s, "box.opacity", at: 1.5) == 0.75)
        #expect(try number(s, "box.position.y", at: 2) == 10)
        #expect(try number(s, "box.zPosition", at: 1) == 1)
        #expect(try number(s, "box.zPosition", at: 2.5) == 0)      // removed at 2
        #expect(try number(s, "box.shadowOffset.height", at: 3) == 7)
        #expect(try number(s, "box.cornerRadius", at: 3.5) == 4)
        #expect(try number(s, "box.opacity", at: 0.5) == 1)        // before the change
    }

    /// A transaction's `set` of a named filter's number animates it implicitly (linear 2 → 10
    /// over 2 s from t = 1; the amount 1 → 0.5 likewise) and a missing filter is an error.
    @Test func transactionsAnimateNamedFilterNumbers() throws {
        let s = try load(#"""
        {"layers": [{"name": "box", "bounds": [0, 0, 10, 10],
                     "filters": [{"name": "blur", "type": "gaussianBlur", "radius": 2}, {"name": "g", "type": "grayscale", "amount": 1}],
                     "backgroundFilters": [{"name": "frost", "type": "gaussianBlur", "radius": 8}]}],
         "transactions": [{"at": 1, "duration": 2, "timingFunction": "linear",
                           "set": {"box.filters.blur.radius": 10, "box.filters.g.amount": 0.5, "box.backgroundFilters.frost.radius": 0}}]}
        """#)
        #expect(try number(s, "box.filters.blur.radius", at: 0.5) == 2)
        #expect(try number(s, "box.filters.blur.radius", at: 1.5) == 4)
        #expect(try number(s, "box.filters.g.amount", at: 2) == 0.75)
        #expect(try number(s, "box.backgroundFilters.frost.radius", at: 2.5) == 2)
        #expect(try number(s, "box.filters.blur.radius", at: 4) == 10)
        #expect(throws: (any Error).self) {
            _ = try load(#"""
            {"layers": [{"name": "box", "filters": [{"name": "blur", "type": "gaussianBlur", "radius": 2}]}],
             "transactions": [{"at": 1, "set": {"box.filters.blur.amount": 1}}]}
            """#)
        }
    }

    @Test func queryFormats() throws {
        let s = try load(##"{"layers": [{"name": "b", "bounds": [0, 0, 4, 2], "backgroundColor": "#ff0000"}]}"##)
        #expect(try s.query(["b.bounds", "b.backgroundColor", "b.borderColor", "b.position", "b.shadowColor"], at: 0).text
                == #"{"b.bounds": [0, 0, 4, 2], "b.backgroundColor": [1, 0, 0, 1], "b.borderColor": [0, 0, 0, 1], "b.position": [0, 0], "b.shadowColor": [0, 0, 0, 1]}"#)
        guard case .object(let m) = try s.query(["b.transform"], at: 0), case .array(let t) = m[0].value else {
            Issue.record("no transform"); return
        }
        #expect(t.count == 16)
    }

    @Test func badFieldsNameTheirPath() {
        #expect(error(#"{"layers": [{}, {}, {"animations": {"fade": {"type": "basic", "keyPath": "opacity", "to": 0, "duration": -1}}}]}"#)
                == "layers[2].animations.fade.duration: must be ≥ 0")
        #expect(error(#"{"sise": [1, 2]}"#) == "sise: unknown field")
        #expect(error(#"{"size": [0, 2]}"#) == "size: must be positive (at most 16384)")
        #expect(error(#"{"layers": [{"opacty": 1}]}"#) == "layers[0].opacty: unknown field")
        #expect(error(#"{"layers": [{"opacity": "1"}]}"#) == "layers[0].opacity: must be a number (got a string)")
        #expect(error(#"{"layers": [{"bounds": [0, 0, -1, 1]}]}"#) == "layers[0].bounds: size must be ≥ 0")
        #expect(error(#"{"layers": [{"type": "circle"}]}"#) == #"layers[0].type: must be "layer", "shape", "gradient", "text", "replicator", "emitter" or "tiled""#)
        #expect(error(#"{"layers": [{"path": "M0 0"}]}"#) == "layers[0].path: only shape layers have this property")
        #expect(error(#"{"layers": [{"type": "shape", "path": "M0 0 Q"}]}"#)?.hasPrefix("layers[0].path: bad SVG path data") == true)
        #expect(error(#"{"layers": [{"type": "shape", "fillRule": "odd"}]}"#) == #"layers[0].fillRule: must be one of "nonZero", "evenOdd""#)
        #expect(error(#"{"layers": [{"backgroundColor": "red"}]}"#)?.hasPrefix("layers[0].backgroundColor: must be a color") == true)
        #expect(error(#"{"layers": [{"transform": [{"twist": 1}]}]}"#) == "layers[0].transform[0].twist: unknown transform operation")
        #expect(error(#"{"layers": [{"maskedCorners": ["top"]}]}"#)?.hasPrefix("layers[0].maskedCorners[0]: must be one of") == true)
        #expect(error(#"{"layers": [{"name": "a"}, {"name": "a"}]}"#) == #"layers[1].name: the name "a" is already used"#)
        #expect(error(#"{"layers": [{"name": "a.b"}]}"#) == "layers[0].name: must be non-empty and contain no dots")
        #expect(error(#"{"layers": [{"sublayers": [{"cornerRadius": -2}]}]}"#) == "layers[0].sublayers[0].cornerRadius: must be ≥ 0")
        #expect(error(#"{"layers": [{"animations": {"x": {"type": "basic", "keyPath": "opacity"}}}]}"#)
                == "layers[0].animations.x.from: one of from, to or by is required")
        #expect(error(#"{"transactions": [{"at": -1}]}"#) == "transactions[0].at: must be ≥ 0")
        // Tiled layers' fields out of their ranges (they were clamped once).
        #expect(error(#"{"layers": [{"type": "tiled", "tileSize": [8, 256]}]}"#)
                == "layers[0].tileSize: width and height must be in 16…4096 (got 8 × 256)")
        #expect(error(#"{"layers": [{"type": "tiled", "tileSize": [256, 5000]}]}"#)
                == "layers[0].tileSize: width and height must be in 16…4096 (got 256 × 5000)")
        #expect(error(#"{"layers": [{"type": "tiled", "levelsOfDetail": 0}]}"#) == "layers[0].levelsOfDetail: must be in 1…30 (got 0)")
        #expect(error(#"{"layers": [{"type": "tiled", "levelsOfDetail": 40}]}"#) == "layers[0].levelsOfDetail: must be in 1…30 (got 40)")
        #expect(error(#"{"layers": [{"type": "tiled", "levelsOfDetailBias": 30.5}]}"#)
                == "layers[0].levelsOfDetailBias: must be in 0…30 (got 30.5)")
        #expect(error(#"{"layers": [{"name": "t", "type": "tiled"}], "transactions": [{"set": {"t.tileSize.width": 4097}}]}"#)
                == "transactions[0].set.t.tileSize.width: must be in 16…4096 (got 4097)")
        #expect(error(#"{"layers": [{"type": "tiled", "tileSize": [16, 4096], "levelsOfDetail": 30, "levelsOfDetailBias": 0}]}"#) == nil)
        #expect(error(#"{"transactions": [{"set": {"nobody.opacity": 1}}]}"#) == #"transactions[0].set.nobody.opacity: no layer is named "nobody""#)
        #expect(error(#"{"layers": [{"name": "b"}], "transactions": [{"set": {"b.opacity": true}}]}"#)
                == "transactions[0].set.b.opacity: must be a number (got a bool)")
        #expect(error(#"{"layers": [{"name": "b"}], "transactions": [{"set": {"b.wobble": 1}}]}"#) == "transactions[0].set.b.wobble: unknown property")
        #expect(error(#"{"layers": [{"name": "b"}], "transactions": [{"remove": {"b": "x"}}]}"#) == "transactions[0].remove.b: must be a list of animation keys")
        #expect(error(#"{"layers": [{"name": "b"}], "transactions": [{"when": 1}]}"#) == "transactions[0].when: unknown field")
        #expect(error(#"{"layers": [{"name": "b"}], "transactions": [{"add": {"b": {"k": {"type": "spring", "keyPath": "opacity", "to": 1, "mass": 0}}}}]}"#)
                == "transactions[0].add.b.k.mass: must be > 0")
    }
}
