import Foundation
import Lamina
import LaminaWire
import Testing

/// Offset path (`op`) and merge paths' modes 2–5 (`mm`) in the mapping: the shapes a fill
/// draws, read back from the scene's path data, against outlines and areas worked out by
/// hand (a square of side s offset by d: side s + 2d; two overlapping squares: union,
/// difference, intersection and exclusive or of known areas).
@Suite struct LottieOffsetMergeTests {
    static func file(_ shapes: String) -> String {
        LottieTests.file(LottieTests.shapeLayer("L", ind: 1, ks: LottieTests.ks(), shapes: shapes))
    }
    static func poly(_ pts: [(Double, Double)]) -> String {
        let v = pts.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        let z = pts.map { _ in "[0,0]" }.joined(separator: ",")
        return #"{"ty":"sh","ks":{"a":0,"k":{"c":true,"v":[\#(v)],"i":[\#(z)],"o":[\#(z)]}}}"#
    }
    static func square(_ x: Double, _ y: Double, _ s: Double) -> String {
        poly([(x, y), (x + s, y), (x + s, y + s), (x, y + s)])
    }

    /// The subpaths of SVG path data (M, C, Z only, as the mapping writes it) as their
    /// vertices (a curve's end points) and control points.
    func subpaths(_ scene: Scene, at t: Double = 0) throws -> [[[Double]]] {
        guard case .object(let m) = try scene.query(["L/F.path"], at: t), case .string(let d) = m[0].value else { return [] }
        var out: [[[Double]]] = []
        for part in d.split(separator: "M") {
            let cmds = part.split(whereSeparator: { $0.isLetter }).map { $0.split(separator: " ").compactMap { Double($0) } }.filter { !$0.isEmpty }
            out.append(cmds)
        }
        return out
    }
    /// The vertices of each subpath.
    func vertices(_ scene: Scene, at t: Double = 0) throws -> [[(Double, Double)]] {
        // A closed subpath's last curve ends at its first vertex again: counted once.
        try subpaths(scene, at: t).map { sub in
            var v = sub.map { ($0[$0.count - 2], $0[$0.count - 1]) }
            if v.count > 1, v[0] == v[v.count - 1] { v.removeLast() }
            return v
        }
    }
    /// |Σ shoelace| per subpath, summed: the area of polygons that do not overlap.
    func area(_ scene: Scene, at t: Double = 0) throws -> Double {
        try vertices(scene, at: t).reduce(0) { sum, v in
            var a = 0.0
            for i in v.indices { let p = v[i], q = v[(i + 1) % v.count]; a += p.0 * q.1 - p.1 * q.0 }
            return sum + abs(a) / 2
        }
    }

    @Test func offsetPathMovesTheOutline() throws {
        // A 10-square offset by 2, mitred: the square (−2, −2)–(12, 12).
        let s = try Scene(json: Self.file(Self.square(0, 0, 10) + #",{"ty":"op","a":{"a":0,"k":2},"lj":1,"ml":{"a":0,"k":4}},"# + LottieTests.redFill))
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        let v = try vertices(s)
        #expect(v.count == 1)
        #expect(Set(v[0].map { "\($0.0),\($0.1)" }) == ["-2.0,-2.0", "12.0,-2.0", "12.0,12.0", "-2.0,12.0"], "\(v)")
        // Round joins: quarter circles of radius 2 about each corner; inward, a 6-square.
        let r = try Scene(json: Self.file(Self.square(0, 0, 10) + #",{"ty":"op","a":{"a":0,"k":2},"lj":2},"# + LottieTests.redFill))
        for (x, y) in try vertices(r)[0] {
            let cx = x < 5 ? 0.0 : 10, cy = y < 5 ? 0.0 : 10
            // Each vertex lies on the grown square's sides or on a corner's circle.
            let onSide = (abs(x + 2) < 1e-3 || abs(x - 12) < 1e-3 || abs(y + 2) < 1e-3 || abs(y - 12) < 1e-3)
            #expect(onSide || abs(((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot() - 2) < 1e-3, "(\(x), \(y))")
        }
        let inner = try Scene(json: Self.file(Self.square(0, 0, 10) + #",{"ty":"op","a":{"a":0,"k":-3},"lj":2},"# + LottieTests.redFill))
        #expect(abs(try area(inner) - 16) < 1e-6)
    }

    @Test func offsetEllipseAndAnimatedAmount() throws {
        // An ellipse of radius 10 offset by 3: every vertex 13 from its centre (60, 40).
        let el = #"{"ty":"el","p":{"a":0,"k":[60,40]},"s":{"a":0,"k":[20,20]}}"#
        let s = try Scene(json: Self.file(el + #",{"ty":"op","a":{"a":0,"k":3},"lj":1},"# + LottieTests.redFill))
        for (x, y) in try vertices(s)[0] { #expect(abs(((x - 60) * (x - 60) + (y - 40) * (y - 40)).squareRoot() - 13) < 2e-3) }
        // The amount 0 → 4 over frames 0…60, linear: at 1 s (frame 30) 2, the mitred 14-square;
        // at 0.5 s (frame 15) 1, the 12-square.
        let anim = #",{"ty":"op","a":{"a":1,"k":[{"t":0,"s":[0],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":60,"s":[4]}]},"lj":1},"#
        let a = try Scene(json: Self.file(Self.square(0, 0, 10) + anim + LottieTests.redFill))
        #expect(a.warnings.isEmpty, "\(a.warnings)")
        #expect(abs(try area(a, at: 1) - 196) < 1e-6)
        #expect(abs(try area(a, at: 0.5) - 12 * 12) < 1e-6)
    }

    @Test func mergeModesCombineTheRegions() throws {
        // A (listed first: the topmost, the first operand) = (5, 5)–(15, 15); B (listed
        // last) = (0, 0)–(10, 10).
        let a = Self.square(5, 5, 10), b = Self.square(0, 0, 10)
        for (mode, expected) in [(2, 175.0), (3, 75), (4, 25), (5, 150)] {
            let s = try Scene(json: Self.file(a + "," + b + #",{"ty":"mm","mm":\#(mode)},"# + LottieTests.redFill))
            #expect(s.warnings.isEmpty, "mode \(mode): \(s.warnings)")
            #expect(abs(try area(s) - expected) < 1e-6, "mode \(mode)")
        }
        // Subtract is the topmost less the others ("the areas defined by the topmost path,
        // subtracting the area defined by underlying paths"): A less B keeps A's corner
        // (15, 15) and loses B's (0, 0).
        let sub = try Scene(json: Self.file(a + "," + b + #",{"ty":"mm","mm":3},"# + LottieTests.redFill))
        let v = try vertices(sub).flatMap { $0 }
        #expect(!v.contains { $0 == (0, 0) } && v.contains { $0 == (15, 15) } && v.contains { $0 == (10, 10) }, "\(v)")
        // Three: the topmost less both others — (0, 0)–(30, 10) less (−5, −5)–(5, 5) and
        // (25, 5)–(35, 15): 300 − 25 − 25.
        let bar = Self.poly([(0, 0), (30, 0), (30, 10), (0, 10)])
        let three = try Scene(json: Self.file(bar + "," + Self.square(-5, -5, 10) + "," + Self.square(25, 5, 10) + #",{"ty":"mm","mm":3},"# + LottieTests.redFill))
        #expect(abs(try area(three) - 250) < 1e-6)
        // Merge (1) still draws the paths together; an unknown mode warns and does too.
        let merge = try Scene(json: Self.file(a + "," + b + #",{"ty":"mm","mm":1},"# + LottieTests.redFill))
        #expect(try vertices(merge).count == 2 && merge.warnings.isEmpty)
        let odd = try Scene(json: Self.file(a + "," + b + #",{"ty":"mm","mm":9},"# + LottieTests.redFill))
        #expect(try vertices(odd).count == 2 && odd.warnings.contains { $0.contains("merge paths mode 9") }, "\(odd.warnings)")
    }

    @Test func mergeTakesGroupTransformsAndAnimates() throws {
        // A group moved (10, 0) holding a 10-square at the origin, intersected with the
        // square (5, 0)–(15, 10): (10, 0)–(15, 10), 50.
        let group = #"{"ty":"gr","it":[\#(Self.square(0, 0, 10)),{"ty":"tr","p":{"a":0,"k":[10,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}]}"#
        let s = try Scene(json: Self.file(group + "," + Self.square(5, 0, 10) + #",{"ty":"mm","mm":4},"# + LottieTests.redFill))
        #expect(abs(try area(s) - 50) < 1e-6)
        // A rectangle (listed first) growing 0 → 20 wide over frames 0…60 less a fixed
        // 10-square on its left half: at frame 30 (10 wide, centred at 0: x −5…5) less
        // x −10…0 → 5 × 10.
        let grow = #"{"ty":"rc","p":{"a":0,"k":[0,5]},"s":{"a":1,"k":[{"t":0,"s":[0,10],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":60,"s":[20,10]}]},"r":{"a":0,"k":0}}"#
        let anim = try Scene(json: Self.file(grow + "," + Self.square(-10, 0, 10) + #",{"ty":"mm","mm":3},"# + LottieTests.redFill))
        #expect(abs(try area(anim, at: 1) - 50) < 1e-6)
        #expect(abs(try area(anim, at: 1.5) - 75) < 1e-6)
    }

    @Test func strokeOfMergedPathsStrokesTheOutline() throws {
        let stroke = #"{"ty":"st","nm":"F","c":{"a":0,"k":[0,0,0,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":1},"lc":2,"lj":1}"#
        let s = try Scene(json: Self.file(Self.square(5, 5, 10) + "," + Self.square(0, 0, 10) + #",{"ty":"mm","mm":2},"# + stroke))
        // The union's outline: one loop of 8 corners (no inner edges).
        let v = try vertices(s)
        #expect(v.count == 1 && v[0].count == 8, "\(v)")
    }
}
