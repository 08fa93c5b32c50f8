import Foundation
import Lamina
import LaminaWire
import Testing

/// Trims before a merge, twist and effects in the mapping: the merged outline's area and the
/// twisted outline's vertices read back from the scene's path data, against values worked out
/// by hand; the warnings of what is still left out.
@Suite struct LottieFeatureTests {
    static let merge = LottieOffsetMergeTests()
    static func file(_ shapes: String) -> String { LottieOffsetMergeTests.file(shapes) }
    static func trim(_ s: Double, _ e: Double, o: Double = 0, m: Int = 1) -> String {
        #"{"ty":"tm","s":{"a":0,"k":\#(s)},"e":{"a":0,"k":\#(e)},"o":{"a":0,"k":\#(o)},"m":\#(m)}"#
    }
    static let add = #"{"ty":"mm","mm":2}"#
    static let a = LottieOffsetMergeTests.square(0, 0, 10), b = LottieOffsetMergeTests.square(20, 0, 10)

    @Test func trimBeforeAMergeCutsItsOperand() throws {
        // Square A (0,0)–(10,10), trimmed to the first half of its perimeter: the open run
        // (0,0) (10,0) (10,10), filled as the triangle of area 50; B (after the trim) whole,
        // 100. Their union: 150 (both whole: 200).
        let s = try Scene(json: Self.file([Self.a, Self.trim(0, 50), Self.b, Self.add, LottieTests.redFill].joined(separator: ",")))
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        #expect(abs(try Self.merge.area(s) - 150) < 1e-6, "\(String(describing: try? Self.merge.vertices(s)))")
        // An offset of 90° (a quarter of the length) moves the half to 10…30: (10,0) (10,10)
        // (0,10), again a triangle of 50.
        let o = try Scene(json: Self.file([Self.a, Self.trim(0, 50, o: 90), Self.add, LottieTests.redFill].joined(separator: ",")))
        #expect(abs(try Self.merge.area(o) - 50) < 1e-6, "\(String(describing: try? Self.merge.vertices(o)))")
        // A trim after the merge still cuts the merged outline's stroke, not the operands.
        let after = try Scene(json: Self.file([Self.a, Self.b, Self.add, Self.trim(0, 50), LottieTests.redFill].joined(separator: ",")))
        #expect(abs(try Self.merge.area(after) - 200) < 1e-6)
    }

    @Test func individualTrimBeforeAMergeRunsThroughItsOperands() throws {
        // m 2: A then B as one run of 80. 0…50 % is A whole (100); 0…75 % adds B's first half
        // of perimeter, the triangle (20,0) (30,0) (30,10): 150.
        let half = try Scene(json: Self.file([Self.a, Self.b, Self.trim(0, 50, m: 2), Self.add, LottieTests.redFill].joined(separator: ",")))
        #expect(half.warnings.isEmpty, "\(half.warnings)")
        #expect(abs(try Self.merge.area(half) - 100) < 1e-6, "\(String(describing: try? Self.merge.vertices(half)))")
        let more = try Scene(json: Self.file([Self.a, Self.b, Self.trim(0, 75, m: 2), Self.add, LottieTests.redFill].joined(separator: ",")))
        #expect(abs(try Self.merge.area(more) - 150) < 1e-6, "\(String(describing: try? Self.merge.vertices(more)))")
    }

    @Test func animatedTrimBeforeAMergeIsSampled() throws {
        // The end 0 → 100 over frames 0…60, linear: at frame 30 (1 s) 50 %, the triangle (50).
        let anim = #"{"ty":"tm","s":{"a":0,"k":0},"e":{"a":1,"k":[{"t":0,"s":[0],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":60,"s":[100]}]},"o":{"a":0,"k":0},"m":1}"#
        let s = try Scene(json: Self.file([Self.a, anim, Self.add, LottieTests.redFill].joined(separator: ",")))
        #expect(abs(try Self.merge.area(s, at: 1) - 50) < 1e-6, "\(String(describing: try? Self.merge.vertices(s, at: 1)))")
    }

    @Test func emptyTrimsDrawNoCaps() throws {
        // A trim whose start equals its end keeps nothing (lottie-web, rlottie, ThorVG); a
        // stroke whose strokeStart equals its strokeEnd would draw its round caps as a dot, so
        // the end is put before the start. Likewise the wrap layer of an offset range that
        // does not pass the path's end ([0, 0]).
        let stroke = #"{"ty":"st","nm":"S","c":{"a":0,"k":[1,0,0,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":8},"lc":2,"lj":2}"#
        let t = LottieTests()
        let s = try Scene(json: Self.file([Self.a, Self.trim(50, 50), stroke].joined(separator: ",")))
        #expect(try t.number(s, "L/S.strokeEnd", at: 0) < t.number(s, "L/S.strokeStart", at: 0))
        let o = try Scene(json: Self.file([Self.a, Self.trim(0, 50, o: 90), stroke].joined(separator: ",")))
        #expect(try t.number(o, "L/S.strokeStart", at: 0) == 0.25 && t.number(o, "L/S.strokeEnd", at: 0) == 0.75)
        #expect(try t.number(o, "L/S/wrap.strokeEnd", at: 0) < t.number(o, "L/S/wrap.strokeStart", at: 0))
    }

    @Test func twistBendsTheOutline() throws {
        // The 20-square about the origin twisted 90° about its centre: R = 10√2, the corners
        // turn 90° (onto each other), the middle of the right edge (10, 0), 10 away, turns
        // 90°/√2 = 63.6396° to (4.44016, 8.96019); every vertex stays 10…14.142 from the centre.
        let tw = #"{"ty":"tw","a":{"a":0,"k":90},"c":{"a":0,"k":[0,0]}}"#
        let s = try Scene(json: Self.file([LottieOffsetMergeTests.square(-10, -10, 20), tw, LottieTests.redFill].joined(separator: ",")))
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        let v = try Self.merge.vertices(s)
        #expect(v.count == 1)
        let pts = v.first ?? []
        #expect(pts.count > 40)
        for corner in [(10.0, 10.0), (-10.0, 10.0), (-10.0, -10.0), (10.0, -10.0)] {
            #expect(pts.contains { abs($0.0 - corner.0) < 2e-3 && abs($0.1 - corner.1) < 2e-3 }, "\(corner)")
        }
        #expect(pts.contains { abs($0.0 - 4.44016) < 2e-3 && abs($0.1 - 8.96019) < 2e-3 })
        for p in pts {
            let d = (p.0 * p.0 + p.1 * p.1).squareRoot()
            #expect(d > 10 - 2e-3 && d < 200.0.squareRoot() + 2e-3, "\(p)")
        }
        // An angle of 0 leaves the square as it is.
        let none = try Scene(json: Self.file([LottieOffsetMergeTests.square(-10, -10, 20), #"{"ty":"tw","a":{"a":0,"k":0}}"#, LottieTests.redFill].joined(separator: ",")))
        #expect(try Self.merge.vertices(none).first?.count == 4)
    }

    @Test func effectsMappedOrNamedInWarnings() throws {
        func layer(_ ef: String) -> String {
            LottieTests.file(LottieTests.shapeLayer("L", ind: 1, ks: LottieTests.ks(), extra: #","ef":[\#(ef)]"#))
        }
        func v(_ k: String) -> String { #"{"ty":0,"v":{"a":0,"k":\#(k)}}"# }
        // Drop shadow, Gaussian blur, fill and tint map; expression controls draw nothing.
        let mapped = [#"{"ty":25,"nm":"Drop Shadow","ef":[\#(v("[0,0,0,1]")),\#(v("128")),\#(v("135")),\#(v("5")),\#(v("10")),\#(v("0"))]}"#,
                      #"{"ty":29,"nm":"Gaussian Blur","ef":[\#(v("10")),\#(v("1")),\#(v("0"))]}"#,
                      #"{"ty":21,"nm":"Fill","ef":[\#(v("0")),\#(v("0")),\#(v("[1,0,0,1]")),\#(v("0")),\#(v("0")),\#(v("0")),\#(v("1"))]}"#,
                      #"{"ty":20,"nm":"Tint","ef":[\#(v("[0,0,0,1]")),\#(v("[1,1,1,1]")),\#(v("50"))]}"#,
                      #"{"ty":5,"nm":"Slider","mn":"ADBE Slider Control","ef":[\#(v("3"))]}"#.replacingOccurrences(of: #""ty":5"#, with: #""ty":0"#)]
        for ef in mapped {
            let s = try Scene(json: layer(ef))
            #expect(s.warnings.isEmpty, "\(ef): \(s.warnings)")
        }
        // What is not mapped is named: tritone, the stroke effect, 4-colour gradient (custom),
        // a one-way blur, shadow only, an animated fill colour.
        let tritone = try Scene(json: layer(#"{"ty":23,"nm":"Tritone","mn":"ADBE Tritone","ef":[]}"#))
        #expect(tritone.warnings.contains { $0.contains("effect \"Tritone\" (ADBE Tritone), type 23") }, "\(tritone.warnings)")
        let stroke = try Scene(json: layer(#"{"ty":22,"nm":"Stroke","ef":[]}"#))
        #expect(stroke.warnings.contains { $0.contains("layers[0].ef[0]") && $0.contains("type 22") }, "\(stroke.warnings)")
        let oneWay = try Scene(json: layer(#"{"ty":29,"ef":[\#(v("10")),\#(v("2")),\#(v("0"))]}"#))
        #expect(oneWay.warnings.contains { $0.contains("Gaussian blur in one dimension") }, "\(oneWay.warnings)")
        let only = try Scene(json: layer(#"{"ty":25,"ef":[\#(v("[0,0,0,1]")),\#(v("128")),\#(v("135")),\#(v("5")),\#(v("10")),\#(v("1"))]}"#))
        #expect(only.warnings.contains { $0.contains("shadow only") }, "\(only.warnings)")
        let animated = #"{"a":1,"k":[{"t":0,"s":[1,0,0,1],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":60,"s":[0,0,1,1]}]}"#
        let fill = try Scene(json: layer(#"{"ty":21,"ef":[\#(v("0")),\#(v("0")),{"ty":2,"v":\#(animated)},\#(v("0")),\#(v("0")),\#(v("0")),\#(v("1"))]}"#))
        #expect(fill.warnings.contains { $0.contains("animated fill effect") }, "\(fill.warnings)")
        // A disabled effect is not drawn and not warned about.
        let off = try Scene(json: layer(#"{"ty":23,"en":0,"nm":"Tritone","ef":[]}"#))
        #expect(off.warnings.isEmpty, "\(off.warnings)")
        // The corpus' 4-Color Gradient (happy) stays a warning naming it.
        let happy = try Scene(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/lottie-corpus/happy.json").path)
        #expect(happy.warnings.contains { $0.contains("ADBE 4ColorGradient") }, "\(happy.warnings)")
    }

    @Test func maskWarningsNameWhatIsLeftOut() throws {
        let sq = #"{"a":0,"k":{"c":true,"v":[[0,0],[10,0],[10,10],[0,10]],"i":[[0,0],[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0],[0,0]]}}"#
        func masks(_ modes: [String]) throws -> Scene {
            let list = modes.map { #"{"mode":"\#($0)","pt":\#(sq),"o":{"a":0,"k":100}}"# }.joined(separator: ",")
            return try Scene(json: LottieTests.file(LottieTests.shapeLayer("L", ind: 1, ks: LottieTests.ks(), extra: #","masksProperties":[\#(list)]"#)))
        }
        // Subtracts and intersects after the last add are wrappers: any number up to 12.
        #expect(try masks(["a"] + Array(repeating: "s", count: 12)).warnings.isEmpty)
        #expect(try masks(["a"] + Array(repeating: "s", count: 13)).warnings.contains { $0.contains("more than 12 subtract or intersect masks") })
        // Before an add they nest in the mask: three draw (4 levels), a fourth is left out.
        #expect(try masks(["a", "s", "i", "s", "a"]).warnings.isEmpty)
        let deep = try masks(["a", "s", "i", "s", "s", "a"])
        #expect(deep.warnings.contains { $0.contains("masksProperties[4]") && $0.contains("nested 5 deep") }, "\(deep.warnings)")
    }
}
