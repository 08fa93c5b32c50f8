import Foundation
import Lamina
import LaminaLottie
import LaminaSceneTree
import LaminaWire
import Testing

/// Lottie files (docs/scene-format.md, "Lottie files"): small hand-written files whose
/// presentation values at given times are worked out here from Lottie's definitions
/// (frames, percent, degrees, cubic-bezier easing solved independently), and hostile files
/// that must be errors naming the JSON path, or warnings, never crashes.
@Suite struct LottieTests {
    /// A file of 200×200 at 30 fps, frames 0…60 (2 s).
    static func file(_ layers: String, assets: String = "[]", ip: Double = 0, op: Double = 60) -> String {
        #"{"v":"5.7.4","fr":30,"ip":\#(ip),"op":\#(op),"w":200,"h":200,"assets":\#(assets),"layers":[\#(layers)]}"#
    }
    /// A transform with the given members (missing ones Lottie's defaults).
    static func ks(_ members: String = "") -> String { #"{"o":{"a":0,"k":100}\#(members.isEmpty ? "" : ","+members)}"# }
    static let square = #"{"ty":"rc","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[20,20]},"r":{"a":0,"k":0}}"#
    static let redFill = #"{"ty":"fl","nm":"F","c":{"a":0,"k":[1,0,0,1]},"o":{"a":0,"k":100},"r":1}"#
    static func shapeLayer(_ name: String, ind: Int, ks: String, shapes: String = "\(square),\(redFill)", extra: String = "") -> String {
        #"{"ty":4,"nm":"\#(name)","ind":\#(ind),"ks":\#(ks),"shapes":[\#(shapes)],"ip":0,"op":60,"st":0\#(extra)}"#
    }

    func values(_ scene: Scene, _ arg: String, at t: Double) throws -> [Double] {
        guard case .object(let m) = try scene.query([arg], at: t) else { return [] }
        switch m[0].value {
        case .number(let v): return [v]
        case .array(let a): return a.map { if case .number(let v) = $0 { return v }; return .nan }
        default: return []
        }
    }
    func number(_ scene: Scene, _ arg: String, at t: Double) throws -> Double { try values(scene, arg, at: t).first ?? .nan }

    func error(_ text: String) -> String? {
        do { _ = try Scene(json: text); return nil } catch { return error.description }
    }

    /// CSS cubic-bezier y at x, by Newton's method on x(t) (independent of the importer's bisection).
    static func cubicBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x: Double) -> Double {
        func b(_ p1: Double, _ p2: Double, _ t: Double) -> Double { 3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t }
        func db(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
            3 * (1 - t) * (1 - t) * p1 + 6 * (1 - t) * t * (p2 - p1) + 3 * t * t * (1 - p2)
        }
        var t = x
        for _ in 0..<50 { t -= (b(x1, x2, t) - x) / db(x1, x2, t) }
        return b(y1, y2, t)
    }

    func close(_ a: Double, _ b: Double, _ tol: Double = 1e-3) -> Bool { abs(a - b) <= tol }

    @Test func recognisedAndSized() throws {
        let s = try Scene(json: Self.file(Self.shapeLayer("Box", ind: 1, ks: Self.ks())))
        #expect(s.isLottie && s.size.width == 200 && s.size.height == 200 && s.warnings.isEmpty)
        #expect(s.names["Box"] != nil && s.names["Box/F"] != nil)
        // A scene file is not a Lottie file.
        #expect(try !Scene(json: #"{"size": [10, 10]}"#).isLottie)
    }

    @Test func bezierEasedPositionScaleRotationOpacity() throws {
        // Position 50→150 over frames 0…30 eased (0.42, 0, 0.58, 1); scale 0→100 % over 0…20
        // eased (0.2, 0, 0.8, 1); rotation 0→360° linear over 0…60; opacity 0→100 % held until 30.
        let ks = Self.ks(#"""
        "p":{"a":1,"k":[{"t":0,"s":[50,100,0],"o":{"x":0.42,"y":0},"i":{"x":0.58,"y":1}},{"t":30,"s":[150,100,0]}]},
        "s":{"a":1,"k":[{"t":0,"s":[0,0,100],"o":{"x":[0.2,0.2,0.2],"y":[0,0,0]},"i":{"x":[0.8,0.8,0.8],"y":[1,1,1]}},{"t":20,"s":[100,100,100]}]},
        "r":{"a":1,"k":[{"t":0,"s":[0]},{"t":60,"s":[360]}]}
        """#).replacingOccurrences(of: #""o":{"a":0,"k":100}"#, with: #""o":{"a":1,"k":[{"t":0,"s":[0],"h":1},{"t":30,"s":[100]}]}"#)
        let s = try Scene(json: Self.file(Self.shapeLayer("Box", ind: 1, ks: ks)))
        for frame in [3.0, 7.5, 15, 22, 29] {
            let t = frame / 30
            let x = 50 + 100 * Self.cubicBezier(0.42, 0, 0.58, 1, frame / 30)
            #expect(close(try number(s, "Box.position.x", at: t), x), "position at frame \(frame)")
            let sc = frame >= 20 ? 1 : Self.cubicBezier(0.2, 0, 0.8, 1, frame / 20)
            #expect(close(try number(s, "Box.transform.scale.x", at: t), sc), "scale at frame \(frame)")
            #expect(close(try number(s, "Box.transform.rotation.z", at: t), 2 * .pi * frame / 60), "rotation at \(frame)")
            #expect(try number(s, "Box.opacity", at: t) == (frame < 30 ? 0 : 1), "held opacity at \(frame)")
        }
        #expect(close(try number(s, "Box.position.x", at: 1.5), 150))
        // It loops: 2 s + 0.25 s shows frame 7.5 again.
        #expect(close(try number(s, "Box.position.x", at: 2.25), try number(s, "Box.position.x", at: 0.25)))
        // Played once, it holds the last frame.
        let once = try Scene(json: Self.file(Self.shapeLayer("Box", ind: 1, ks: ks)), lottieLoops: false)
        #expect(close(try number(once, "Box.position.x", at: 2.25), 150))
        // (A whole turn: the transform's decomposed angle is 0 again.)
        #expect(close(try number(once, "Box.transform.rotation.z", at: 2.25), 0, 1e-6))
    }

    @Test func perDimensionEasingAndSplitPosition() throws {
        // x eased (1, 0, 1, 1) and y linear in one keyframe: split into position.x and .y.
        let ks1 = Self.ks(#""p":{"a":1,"k":[{"t":0,"s":[0,0],"o":{"x":[1,0],"y":[0,0]},"i":{"x":[1,1],"y":[1,1]}},{"t":60,"s":[100,100]}]}"#)
        // Split position (s: true) with x and y keyframed separately.
        let ks2 = Self.ks(#""p":{"s":true,"x":{"a":1,"k":[{"t":0,"s":[10]},{"t":30,"s":[40]}]},"y":{"a":0,"k":70}}"#)
        let s = try Scene(json: Self.file(Self.shapeLayer("A", ind: 1, ks: ks1) + "," + Self.shapeLayer("B", ind: 2, ks: ks2)))
        let u = 0.4
        #expect(close(try number(s, "A.position.x", at: u * 2), 100 * Self.cubicBezier(1, 0, 1, 1, u)))
        #expect(close(try number(s, "A.position.y", at: u * 2), 100 * u))
        #expect(close(try number(s, "B.position.x", at: 0.5), 25))
        #expect(close(try number(s, "B.position.y", at: 0.5), 70))
    }

    @Test func spatialTangentsFollowTheCurve() throws {
        // From (0,100) to (200,100) with tangents bulging up by 100: at half the time (linear
        // easing) the layer is at the middle of the curve's length, x = 100 by symmetry, and y
        // on the cubic at t = 0.5: 100 − 0.75·100.
        let ks = Self.ks(#""p":{"a":1,"k":[{"t":0,"s":[0,100],"to":[0,-100],"ti":[0,-100]},{"t":60,"s":[200,100]}]}"#)
        let s = try Scene(json: Self.file(Self.shapeLayer("P", ind: 1, ks: ks)))
        let p = try values(s, "P.position", at: 1)
        #expect(close(p[0], 100, 0.5))
        #expect(close(p[1], 25, 0.5))
    }

    @Test func parentingInheritsTransformOnly() throws {
        // A null at (100, 50) turned 90° with opacity 0; its child square at (20, 0) in the
        // null's space: on the canvas at (100, 70) and drawn (a parent's opacity is not inherited).
        let null = #"{"ty":3,"nm":"N","ind":1,"ks":{"o":{"a":0,"k":0},"p":{"a":0,"k":[100,50]},"r":{"a":0,"k":90}},"ip":0,"op":60,"st":0}"#
        let child = Self.shapeLayer("C", ind: 2, ks: Self.ks(#""p":{"a":0,"k":[20,0]}"#), extra: #","parent":1"#)
        let s = try Scene(json: Self.file(child + "," + null))
        #expect(try s.hitTest(.init(100, 70), at: 0.1) == "C/F")
        #expect(try s.hitTest(.init(120, 50), at: 0.1) == nil)
        // A cycle is an error naming the field.
        let a = Self.shapeLayer("A", ind: 1, ks: Self.ks(), extra: #","parent":2"#)
        let b = Self.shapeLayer("B", ind: 2, ks: Self.ks(), extra: #","parent":1"#)
        #expect(error(Self.file(a + "," + b))?.contains(".parent: parenting cycle") == true)
    }

    @Test func skewAndGroupTransforms() throws {
        // Skew 30° along the x axis (sa 0): lottie-web's skewFromAxis(−sk, 0) maps a local point
        // (x, y) to (x − tan 30°·y, y). The 20×20 square at (100, 100): the local corner region
        // (−8, 8) lands at (100 − 8 − 4.62, 108), outside the unskewed square.
        let ks = Self.ks(#""p":{"a":0,"k":[100,100]},"sk":{"a":0,"k":30},"sa":{"a":0,"k":0}"#)
        let s = try Scene(json: Self.file(Self.shapeLayer("K", ind: 1, ks: ks)))
        let t = tan(30 * Double.pi / 180)
        #expect(try s.hitTest(.init(100 - 8 - 8 * t, 108), at: 0) == "K/F")
        // (91, 92) is inside the unskewed square but local x = −9 − 8·tan 30° < −10 skewed.
        #expect(try s.hitTest(.init(91, 92), at: 0) == nil)
        #expect(try s.hitTest(.init(100 + 8 + 8 * t, 92), at: 0) == "K/F")
        // A group transform: the group's square scaled 200 % and moved by (50, 0) about the
        // group anchor (10, 0): local (x, y) → 2·(x − 10) + 50.
        let group = #"{"ty":"gr","it":[\#(Self.square),\#(Self.redFill),{"ty":"tr","p":{"a":0,"k":[50,0]},"a":{"a":0,"k":[10,0]},"s":{"a":0,"k":[200,200]},"r":{"a":0,"k":0},"o":{"a":0,"k":50}}]}"#
        let g = try Scene(json: Self.file(Self.shapeLayer("G", ind: 1, ks: Self.ks(#""p":{"a":0,"k":[0,100]}"#), shapes: group)))
        // So the square covers x 10…50, y 80…120 of the canvas.
        #expect(try g.hitTest(.init(11.5, 100), at: 0) == "G/F")
        #expect(try g.hitTest(.init(50 + 2 * (9 - 10), 118), at: 0) == "G/F")
        #expect(try g.hitTest(.init(50 + 2 * (11 - 10), 100), at: 0) == nil)
    }

    @Test func inOutPointsAndAnchor() throws {
        // Shown from frame 15 to 45; anchor (10, 10) puts the square's centre at p − a.
        let l = #"{"ty":4,"nm":"V","ind":1,"ks":{"p":{"a":0,"k":[100,100]},"a":{"a":0,"k":[10,10]}},"shapes":[\#(Self.square),\#(Self.redFill)],"ip":15,"op":45,"st":0}"#
        let s = try Scene(json: Self.file(l))
        #expect(try s.hitTest(.init(90, 90), at: 0.25) == nil)
        #expect(try s.hitTest(.init(90, 90), at: 0.75) == "V/F")
        #expect(try s.hitTest(.init(90, 90), at: 1.6) == nil)
        #expect(try s.hitTest(.init(100, 100), at: 0.75) == nil)
        #expect(try s.hitTest(.init(90, 90), at: 2.75) == "V/F")  // looped
    }

    @Test func precompStartTimeAndStretch() throws {
        // The asset moves x 0→60 over its frames 0…30; the precomp layer starts at frame 10
        // and is stretched 2×: at root frame 10 + 2·f the inner frame is f.
        let inner = Self.shapeLayer("In", ind: 1, ks: Self.ks(#""p":{"a":1,"k":[{"t":0,"s":[0,0]},{"t":30,"s":[60,0]}]}"#))
        let assets = #"[{"id":"comp1","w":200,"h":200,"layers":[\#(inner)]}]"#
        let pre = #"{"ty":0,"nm":"Pre","ind":1,"refId":"comp1","w":200,"h":200,"ks":{},"ip":0,"op":60,"st":10,"sr":2}"#
        let s = try Scene(json: Self.file(pre, assets: assets))
        for rootFrame in [10.0, 20, 40, 55] {
            let f = min(max((rootFrame - 10) / 2, 0), 30)
            #expect(close(try number(s, "In.position.x", at: rootFrame / 30), 2 * f), "root frame \(rootFrame)")
        }
        // An asset that contains itself is an error, not a hang.
        let selfRef = #"[{"id":"c","layers":[{"ty":0,"refId":"c","ks":{},"ip":0,"op":60}]}]"#
        #expect(error(Self.file(#"{"ty":0,"refId":"c","ks":{},"ip":0,"op":60}"#, assets: selfRef))?.contains("precomps nest deeper") == true)
    }

    @Test func shapesFillsStrokesTrimAndMorph() throws {
        // Stroke over an ellipse, trimmed 0→100 % over frames 0…30 (linear); fill over a path
        // morphing between two triangles.
        let tri0 = #"{"c":true,"v":[[0,0],[10,0],[0,10]],"i":[[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0]]}"#
        let tri1 = #"{"c":true,"v":[[0,0],[30,0],[0,30]],"i":[[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0]]}"#
        let shapes = #"""
        {"ty":"gr","nm":"G1","it":[
          {"ty":"el","p":{"a":0,"k":[50,50]},"s":{"a":0,"k":[40,20]}},
          {"ty":"tm","s":{"a":0,"k":0},"e":{"a":1,"k":[{"t":0,"s":[0]},{"t":30,"s":[100]}]},"o":{"a":0,"k":0},"m":1},
          {"ty":"st","nm":"S","c":{"a":0,"k":[0,0,1,1]},"o":{"a":0,"k":50},"w":{"a":0,"k":4},"lc":2,"lj":3,"ml":4,
           "d":[{"n":"d","v":{"a":0,"k":6}},{"n":"g","v":{"a":0,"k":3}},{"n":"o","v":{"a":0,"k":1}}]},
          {"ty":"tr","p":{"a":0,"k":[0,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}]},
        {"ty":"sh","ks":{"a":1,"k":[{"t":0,"s":[\#(tri0)]},{"t":60,"s":[\#(tri1)]}]}},
        {"ty":"fl","nm":"M","c":{"a":0,"k":[0,1,0,1]},"o":{"a":0,"k":100},"r":2}
        """#
        let s = try Scene(json: Self.file(Self.shapeLayer("L", ind: 1, ks: Self.ks(), shapes: shapes)))
        #expect(close(try number(s, "L/S.strokeEnd", at: 0.5), 0.5))
        #expect(try values(s, "L/S.strokeColor", at: 0) == [0, 0, 1, 0.5])
        #expect(try number(s, "L/S.lineWidth", at: 0) == 4)
        #expect(try values(s, "L/S.lineDashPattern", at: 0) == [6, 3])
        guard case .object(let m) = try s.query(["L/M.path", "L/S.lineJoin", "L/M.fillRule"], at: 1) else { Issue.record(); return }
        // The outer fill draws every path before it, the group's ellipse too (static), then the
        // triangle halfway: vertices at (0,0), (20,0), (0,20).
        #expect(m[0].value == .string("M50 40 C61.038 40 70 44.481 70 50 C70 55.519 61.038 60 50 60 C38.962 60 30 55.519 30 50 "
                                      + "C30 44.481 38.962 40 50 40 Z M0 0 C0 0 20 0 20 0 C20 0 0 20 0 20 C0 20 0 0 0 0 Z"))
        #expect(m[1].value == .string("bevel") && m[2].value == .string("evenOdd"))
        // The ellipse: from the top, clockwise, radii 20 and 10 about (50, 50).
        guard case .object(let e) = try s.query(["L/S.path"], at: 0), case .string(let d) = e[0].value else { Issue.record(); return }
        #expect(d.hasPrefix("M50 40 C61.038 40 70 44.481 70 50"))
    }

    @Test func gradientFillsOfRectanglesAndCircles() throws {
        // A linear gradient over the rect centred (50, 40), 80×20, from x 10 to x 90 (so the
        // start is 0 − 0.5·… : (10 − 10)/80 = 0 … (90 − 10)/80 = 1), two stops with alpha stops
        // 1 → 0.5 (interpolated at the colour stops 0 and 1); radial about a circle's centre.
        let grad = #"""
        {"ty":"rc","p":{"a":0,"k":[50,40]},"s":{"a":0,"k":[80,20]},"r":{"a":0,"k":4}},
        {"ty":"gf","nm":"G","o":{"a":0,"k":50},"t":1,"s":{"a":0,"k":[10,40]},"e":{"a":0,"k":[90,40]},
         "g":{"p":2,"k":{"a":0,"k":[0,1,0,0,1,0,0,1,0,1,1,0.5]}}}
        """#
        let s = try Scene(json: Self.file(Self.shapeLayer("L", ind: 1, ks: Self.ks(), shapes: grad)))
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        #expect(try values(s, "L/G.bounds", at: 0) == [10, 30, 80, 20])
        #expect(try values(s, "L/G.position", at: 0) == [50, 40])
        #expect(try values(s, "L/G.startPoint", at: 0) == [0, 0.5])
        #expect(try values(s, "L/G.endPoint", at: 0) == [1, 0.5])
        #expect(try values(s, "L/G.locations", at: 0) == [0, 1])
        #expect(try values(s, "L/G.cornerRadius", at: 0) == [4])
        #expect(try number(s, "L/G.opacity", at: 0) == 0.5)
        guard case .object(let m) = try s.query(["L/G.colors"], at: 0) else { Issue.record(); return }
        #expect(m[0].value == .array([.array([1, 0, 0, 1].map { .number($0) }), .array([0, 0, 1, 0.5].map { .number($0) })]))
        // Radial: the circle of radius 10 about (30, 30); the gradient's radius 5 → endPoint
        // 0.5 + 5/20 along x and y.
        let radial = #"""
        {"ty":"el","p":{"a":0,"k":[30,30]},"s":{"a":0,"k":[20,20]}},
        {"ty":"gf","nm":"R","t":2,"s":{"a":0,"k":[30,30]},"e":{"a":0,"k":[34,33]},"g":{"p":2,"k":{"a":0,"k":[0,1,1,1,1,0,0,0]}}}
        """#
        let r = try Scene(json: Self.file(Self.shapeLayer("C", ind: 1, ks: Self.ks(), shapes: radial)))
        #expect(try values(r, "C/R.endPoint", at: 0) == [0.75, 0.75])
        #expect(try values(r, "C/R.cornerRadius", at: 0) == [10])
        // Over a free path: a gradient layer masked by the path (no warning).
        let path = #"{"ty":"sh","ks":{"a":0,"k":{"c":true,"v":[[0,0],[9,0],[0,9]]}}}"#
        let f = try Scene(json: Self.file(Self.shapeLayer("P", ind: 1, ks: Self.ks(),
                                                          shapes: path + "," + radial.split(separator: "\n")[1])))
        #expect(f.warnings.isEmpty, "\(f.warnings)")
        #expect(try values(f, "P/R.bounds", at: 0) == [-1, -1, 11, 11])
    }

    /// The path query of a layer at a time, as SVG path data.
    func pathData(_ scene: Scene, _ name: String, at t: Double) throws -> String {
        guard case .object(let m) = try scene.query(["\(name).path"], at: t), case .string(let d) = m[0].value else { return "" }
        return d
    }

    @Test func morphBetweenDifferentVertexCountsAsRlottie() throws {
        // A closed triangle (3 vertices: 10 control points in rlottie's list) morphing into a
        // closed square (4 vertices: 13 points) over frames 0…30, linear. rlottie interpolates
        // the first 10 points of each: 3 segments, the third ending at the triangle's first
        // vertex and the square's fourth, then a straight line back. Halfway: (0,0), (15,0),
        // (10,15), (0,10) [= ((0,0) + (0,20)) / 2], closed.
        let tri = #"{"c":true,"v":[[0,0],[10,0],[0,10]],"i":[[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0]]}"#
        let sq = #"{"c":true,"v":[[0,0],[20,0],[20,20],[0,20]],"i":[[0,0],[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0],[0,0]]}"#
        let shapes = #"{"ty":"sh","ks":{"a":1,"k":[{"t":0,"s":[\#(tri)],"i":{"x":[1],"y":[1]},"o":{"x":[0],"y":[0]}},{"t":30,"s":[\#(sq)]}]}},"#
            + Self.redFill
        let s = try Scene(json: Self.file(Self.shapeLayer("M", ind: 1, ks: Self.ks(), shapes: shapes)))
        #expect(!s.warnings.contains { $0.contains("vertex counts") }, "\(s.warnings)")
        #expect(try pathData(s, "M/F", at: 0.5) == "M0 0 C0 0 15 0 15 0 C15 0 10 15 10 15 C10 15 0 10 0 10 C0 10 0 0 0 0 Z")
        // At the first key the triangle whole (its closing side to the first vertex, then
        // a vertex there that draws nothing); after the last the square as it is.
        #expect(try pathData(s, "M/F", at: 0) == "M0 0 C0 0 10 0 10 0 C10 0 0 10 0 10 C0 10 0 0 0 0 C0 0 0 0 0 0 Z")
        #expect(try pathData(s, "M/F", at: 1.5) == "M0 0 C0 0 20 0 20 0 C20 0 20 20 20 20 C20 20 0 20 0 20 C0 20 0 0 0 0 Z")
        // A quarter of the way: 0.25 of each difference.
        #expect(try pathData(s, "M/F", at: 0.25) == "M0 0 C0 0 12.5 0 12.5 0 C12.5 0 5 12.5 5 12.5 C5 12.5 0 5 0 5 C0 5 0 0 0 0 Z")
    }

    @Test func polystarsAsRlottieDrawsThem() throws {
        func star(_ members: String) throws -> [[Double]] {
            let shapes = #"{"ty":"sr","sy":1,"d":1,"p":{"a":0,"k":[0,0]},"r":{"a":0,"k":0},"#
                + members + "}," + Self.redFill
            let s = try Scene(json: Self.file(Self.shapeLayer("S", ind: 1, ks: Self.ks(), shapes: shapes)))
            #expect(s.warnings.isEmpty, "\(s.warnings)")
            // The path's numbers, grouped per command.
            let d = try pathData(s, "S/F", at: 0)
            return d.split(whereSeparator: { $0.isLetter }).map { $0.split(separator: " ").compactMap { Double($0) } }.filter { !$0.isEmpty }
        }
        func near(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 2e-3 } }
        func polar(_ r: Double, _ deg: Double) -> [Double] { [r * cos(deg * .pi / 180), r * sin(deg * .pi / 180)] }
        // 2.5 points, outer 10, inner 4: a point spans 144°; the partial point (radius
        // 4 + 0.5·6 = 7) sits at −90° + 72°·0.5 = −54°, then inner 4 at −18°, outer 10 at
        // 54°, inner at 126°, outer at 198°, inner at 270° (the last step 144°·0.5/2 back to −54°).
        let p = try star(#""pt":{"a":0,"k":2.5},"or":{"a":0,"k":10},"ir":{"a":0,"k":4},"os":{"a":0,"k":0},"is":{"a":0,"k":0}"#)
        let corners = [polar(7, -54), polar(4, -18), polar(10, 54), polar(4, 126), polar(10, 198), polar(4, 270)]
        #expect(p.count == 7 && near(p[0], corners[0]), "\(p)")
        for i in 1..<min(p.count, 7) { #expect(near(Array(p[i].suffix(2)), corners[i % 6]), "corner \(i): \(p[i])") }
        // 5 points with outer roundness 50 %: the top corner's handles are horizontal (a
        // quarter turn from its radius), 10 · 0.5 · 0.47829 / 0.28 / 5 = 0.85409 long; the
        // inner corners have none.
        let r = try star(#""pt":{"a":0,"k":5},"or":{"a":0,"k":10},"ir":{"a":0,"k":5},"os":{"a":0,"k":50},"is":{"a":0,"k":0}"#)
        let h = 10 * 0.5 * 0.47829 / 0.28 / 5
        #expect(near(r.first ?? [], [0, -10]))
        #expect(r.count == 11 && near(Array(r[1].prefix(2)), [h, -10]), "\(r[1])")
        #expect(near(Array(r[1][2..<4]), polar(5, -54)))
        // The closing segment comes into the top corner from the left: its in handle.
        #expect(near(Array(r[10].prefix(4)), Array(polar(5, 234)) + [-h, -10]), "\(r[10])")
    }

    /// A polystar whose point count animates is built at every frame (rlottie's way), each
    /// frame exactly: no morph is involved, so no "vertex counts" warning; 3 points at frame 0
    /// (a star: 6 corners, M + 6 curves) and 5 at frame 30 (M + 10 curves).
    @Test func animatedPointCountIsSampledWithoutAMorphWarning() throws {
        let shapes = #"{"ty":"sr","sy":1,"d":1,"p":{"a":0,"k":[0,0]},"r":{"a":0,"k":0},"pt":{"a":1,"k":[{"t":0,"s":[3],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":30,"s":[5]}]},"or":{"a":0,"k":10},"ir":{"a":0,"k":4},"os":{"a":0,"k":0},"is":{"a":0,"k":0}},"#
            + Self.redFill
        let s = try Scene(json: Self.file(Self.shapeLayer("S", ind: 1, ks: Self.ks(), shapes: shapes)))
        #expect(!s.warnings.contains { $0.contains("vertex counts") }, "\(s.warnings)")
        func commands(_ t: Double) throws -> Int { try pathData(s, "S/F", at: t).filter { $0.isLetter && $0 != "Z" }.count }
        #expect(try commands(0) == 7)
        #expect(try commands(1.0) == 11)
        // The first inner corner: radius 4 at −90° + 180°/3 = −30° (3 points), −90° + 36° = −54° (5).
        func corner(_ t: Double) throws -> [Double] {
            let d = try pathData(s, "S/F", at: t).split(separator: "C")[1].split(separator: " ").compactMap { Double($0) }
            return Array(d.suffix(2))
        }
        func near(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 2e-3 } }
        #expect(near(try corner(0), [4 * cos(-Double.pi / 6), 4 * sin(-Double.pi / 6)]))
        #expect(near(try corner(1.0), [4 * cos(-0.3 * Double.pi), 4 * sin(-0.3 * Double.pi)]))
    }

    /// Animated dashes: the dash (10 → 20) and the offset (0 → 30) keyed at frames 0 and 30,
    /// linear, with a static gap 5: at frame 15 the pattern is [15, 5] and the phase 15, at
    /// frame 30 [20, 5] and 30; a pattern of three lengths is repeated (odd counts, as SVG).
    @Test func animatedDashesAreKeyframed() throws {
        func scene(_ dashes: String) throws -> Scene {
            let stroke = #"{"ty":"st","nm":"K","c":{"a":0,"k":[0,0,1,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":2},"lc":1,"lj":1,"d":["#
                + dashes + "]}"
            return try Scene(json: Self.file(Self.shapeLayer("S", ind: 1, ks: Self.ks(), shapes: Self.square + "," + stroke)))
        }
        let s = try scene(#"{"n":"d","v":{"a":1,"k":[{"t":0,"s":[10]},{"t":30,"s":[20]}]}},{"n":"g","v":{"a":0,"k":5}},{"n":"o","v":{"a":1,"k":[{"t":0,"s":[0]},{"t":30,"s":[30]}]}}"#)
        #expect(!s.warnings.contains { $0.contains("dash") }, "\(s.warnings)")
        func close(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 1e-9 } }
        #expect(close(try values(s, "S/K.lineDashPattern", at: 0), [10, 5]))
        #expect(close(try values(s, "S/K.lineDashPattern", at: 0.5), [15, 5]))
        #expect(close(try values(s, "S/K.lineDashPhase", at: 0.5), [15]))
        #expect(close(try values(s, "S/K.lineDashPattern", at: 1.5), [20, 5]))
        #expect(close(try values(s, "S/K.lineDashPhase", at: 1.5), [30]))
        let odd = try scene(#"{"n":"d","v":{"a":0,"k":4}},{"n":"g","v":{"a":0,"k":2}},{"n":"d","v":{"a":0,"k":1}}"#)
        #expect(close(try values(odd, "S/K.lineDashPattern", at: 0), [4, 2, 1, 4, 2, 1]))
        let zero = try scene(#"{"n":"d","v":{"a":0,"k":0}},{"n":"g","v":{"a":0,"k":0}}"#)
        #expect(try values(zero, "S/K.lineDashPattern", at: 0).isEmpty, "all zeros: a solid line")
    }

    @Test func gradientsOfAnyShapeAreMaskedGradientLayers() throws {
        // A linear gradient fill of a triangle (0,0), (40,0), (0,20): a gradient layer of the
        // triangle's bounds grown by 1 (−1, −1, 42, 22), masked by the triangle drawn opaque;
        // start (0, 10) → unit ((0 + 1)/42, (10 + 1)/22). Colour stops red at 0 and blue at
        // 1; alpha stops 1 at 0 and 0.5 at 0.5: merged, a stop at 0, 0.5 (purple, alpha 0.5)
        // and 1 (alpha 0.5 past the last alpha stop). The stops animate: green at frame 30.
        let path = #"{"ty":"sh","ks":{"a":0,"k":{"c":true,"v":[[0,0],[40,0],[0,20]]}}}"#
        let grad = #"{"ty":"gf","nm":"G","o":{"a":0,"k":100},"t":1,"s":{"a":0,"k":[0,10]},"e":{"a":0,"k":[40,10]},"#
            + #""g":{"p":2,"k":{"a":1,"k":[{"t":0,"s":[0,1,0,0,1,0,0,1,0,1,0.5,0.5],"i":{"x":[1],"y":[1]},"o":{"x":[0],"y":[0]}},"#
            + #"{"t":30,"s":[0,0,1,0,1,0,0,1,0,1,0.5,0.5]}]}}}"#
        let s = try Scene(json: Self.file(Self.shapeLayer("T", ind: 1, ks: Self.ks(), shapes: path + "," + grad)))
        #expect(!s.warnings.contains { $0.contains("gradient") }, "\(s.warnings)")
        #expect(try values(s, "T/G.bounds", at: 0) == [-1, -1, 42, 22])
        #expect(try values(s, "T/G.position", at: 0) == [20, 10])
        let start = try values(s, "T/G.startPoint", at: 0), end = try values(s, "T/G.endPoint", at: 0)
        #expect(close(start[0], 1.0 / 42) && close(start[1], 11.0 / 22) && close(end[0], 41.0 / 42) && close(end[1], 0.5))
        #expect(try values(s, "T/G.locations", at: 0) == [0, 0.5, 1])
        guard case .object(let m) = try s.query(["T/G.colors"], at: 0), case .object(let m1) = try s.query(["T/G.colors"], at: 0.5)
        else { Issue.record(); return }
        let rgba = { (v: [Double]) in JSON.array(v.map { .number($0) }) }
        #expect(m[0].value == .array([rgba([1, 0, 0, 1]), rgba([0.5, 0, 0.5, 0.5]), rgba([0, 0, 1, 0.5])]))
        // Halfway through the stops' animation: the first stop (1,0,0) → (0,1,0) at 0.5.
        #expect(m1[0].value == .array([rgba([0.5, 0.5, 0, 1]), rgba([0.25, 0.25, 0.5, 0.5]), rgba([0, 0, 1, 0.5])]))
        // A gradient stroke: a stroke of width 4 (mitre limit 4) grows the bounds by 1 + 2·4.
        let stroke = #"{"ty":"gs","nm":"GS","o":{"a":0,"k":100},"w":{"a":0,"k":4},"lc":2,"lj":1,"ml":4,"t":2,"#
            + #""s":{"a":0,"k":[0,0]},"e":{"a":0,"k":[3,4]},"g":{"p":2,"k":{"a":0,"k":[0,1,1,1,1,0,0,0]}}}"#
        let g = try Scene(json: Self.file(Self.shapeLayer("U", ind: 1, ks: Self.ks(), shapes: path + "," + stroke)))
        #expect(try values(g, "U/GS.bounds", at: 0) == [-9, -9, 58, 38])
        // Radial: radius |(3,4)| = 5 about s → endPoint s + 5 in both axes, in unit coordinates.
        let e = try values(g, "U/GS.endPoint", at: 0)
        #expect(close(e[0], 14.0 / 58) && close(e[1], 14.0 / 38), "\(e)")
    }

    @Test func puckerBloatAndZigZagModifyThePath() throws {
        let square = #"{"ty":"sh","ks":{"a":0,"k":{"c":true,"v":[[0,0],[10,0],[10,10],[0,10]],"i":[[0,0],[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0],[0,0]]}}}"#
        // Bloat 50 %: the centre is (5, 5); (0, 0) moves halfway in, to (2.5, 2.5); its handle
        // end (0, 0) moves half of (5, 5) the other way, to (−2.5, −2.5); (10, 0) → (7.5, 2.5)
        // with its handle end (10, 0) → (12.5, −2.5).
        let pb = try Scene(json: Self.file(Self.shapeLayer("B", ind: 1, ks: Self.ks(),
                                                           shapes: square + #",{"ty":"pb","a":{"a":0,"k":50}},"# + Self.redFill)))
        #expect(pb.warnings.isEmpty, "\(pb.warnings)")
        #expect(try pathData(pb, "B/F", at: 0).hasPrefix("M2.5 2.5 C-2.5 -2.5 12.5 -2.5 7.5 2.5 C"))
        // Zig-zag, one ridge per side, size 2, corners: the first vertex moves 2 along the
        // normal (vy, −vx)/|v| of prev → next = (0,10) → (10,0), the negative way: to
        // (√2, √2); the middle of the top side 2 up (its normal (0, −1), the positive way):
        // (5, −2); the next corner the negative way along the normal of (0,0) → (10,10):
        // (10 − √2, √2). Nine vertices (the last the first again), no handles.
        let zz = try Scene(json: Self.file(Self.shapeLayer("Z", ind: 1, ks: Self.ks(),
            shapes: square + #",{"ty":"zz","s":{"a":0,"k":2},"r":{"a":0,"k":1},"pt":{"a":0,"k":1}},"# + Self.redFill)))
        #expect(zz.warnings.isEmpty, "\(zz.warnings)")
        let d = try pathData(zz, "Z/F", at: 0)
        let cmds = d.split(whereSeparator: { $0.isLetter }).map { $0.split(separator: " ").compactMap { Double($0) } }.filter { !$0.isEmpty }
        func near(_ a: [Double], _ b: [Double]) -> Bool { a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) < 2e-3 } }
        let r2 = 2.0.squareRoot()
        #expect(cmds.count == 10, "\(d)")
        #expect(near(cmds.first ?? [], [r2, r2]) && near(Array(cmds[1].suffix(2)), [5, -2]) && near(Array(cmds[2].suffix(2)), [10 - r2, r2]), "\(d)")
        #expect(near(Array(cmds[9].suffix(2)), [r2, r2]), "\(d)")
        // A hostile ridge count stays within the vertex limit: 4 sides × 24,999 ridges + 1.
        let huge = try Scene(json: Self.file(Self.shapeLayer("H", ind: 1, ks: Self.ks(),
            shapes: square + #",{"ty":"zz","s":{"a":0,"k":2},"r":{"a":0,"k":1e12},"pt":{"a":0,"k":1}},"# + Self.redFill)))
        #expect(try pathData(huge, "H/F", at: 0).filter { $0 == "C" }.count == 4 * 25_000 + 1)
    }

    @Test func zeroWidthStrokeDrawsNothing() throws {
        // rlottie and lottie-web draw nothing for a stroke of width 0 (no hairline).
        let shapes = Self.square + #",{"ty":"st","nm":"S","c":{"a":0,"k":[0,0,0,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":0}},"# + Self.redFill
        let s = try Scene(json: Self.file(Self.shapeLayer("Z", ind: 1, ks: Self.ks(), shapes: shapes)))
        #expect(s.names["Z/S"] == nil && s.names["Z/F"] != nil)
    }

    @Test func trimOffsetPastThePathStartIsASecondStroke() throws {
        // Trim 10 %…30 % with the offset turning 0 → 360° over frames 0…60 (linear): at frame
        // f the range is moved by f/60; past 1 it continues from the path's start.
        let shapes = #"""
        {"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[120,120]}},
        {"ty":"tm","s":{"a":0,"k":10},"e":{"a":0,"k":30},"o":{"a":1,"k":[{"t":0,"s":[0],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":60,"s":[360]}]},"m":1},
        {"ty":"st","nm":"S","c":{"a":0,"k":[0,0,1,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":20},"lc":2,"lj":2}
        """#
        let s = try Scene(json: Self.file(Self.shapeLayer("T", ind: 1, ks: Self.ks(), shapes: shapes)))
        for (frame, a, b, c) in [(6.0, 0.2, 0.4, 0.0), (51, 0.95, 1, 0.15), (45, 0.85, 1, 0.05)] {
            let t = frame / 30
            let main = [try number(s, "T/S.strokeStart", at: t), try number(s, "T/S.strokeEnd", at: t)]
            let wrap = [try number(s, "T/S/wrap.strokeStart", at: t), try number(s, "T/S/wrap.strokeEnd", at: t)]
            #expect(close(main[0], a) && close(main[1], b), "frame \(frame): \(main)")
            #expect(close(wrap[0], 0) && close(wrap[1], c), "frame \(frame): \(wrap)")
        }
    }

    @Test func drawOrderFollowsLottie() throws {
        // Two layers at the same place: the first in the file is on top; within a group, the
        // first fill listed is on top.
        let top = Self.shapeLayer("Top", ind: 1, ks: Self.ks(#""p":{"a":0,"k":[100,100]}"#))
        let bottom = Self.shapeLayer("Bottom", ind: 2, ks: Self.ks(#""p":{"a":0,"k":[100,100]}"#))
        #expect(try Scene(json: Self.file(top + "," + bottom)).hitTest(.init(100, 100), at: 0) == "Top/F")
        let fills = "\(Self.square),{\"ty\":\"fl\",\"nm\":\"A\",\"c\":{\"a\":0,\"k\":[0,0,1,1]}},\(Self.redFill)"
        let s = try Scene(json: Self.file(Self.shapeLayer("L", ind: 1, ks: Self.ks(#""p":{"a":0,"k":[50,50]}"#), shapes: fills)))
        #expect(try s.hitTest(.init(50, 50), at: 0) == "L/A")
    }

    @Test func solidImageAndText() throws {
        // A 1×1 PNG as a data URI.
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
        let assets = #"[{"id":"img","w":40,"h":30,"e":1,"u":"","p":"data:image/png;base64,\#(png)"}]"#
        let solid = ##"{"ty":1,"nm":"Solid","ind":1,"ks":{"p":{"a":0,"k":[10,10]},"a":{"a":0,"k":[0,0]}},"sc":"#ff8000","sw":50,"sh":40,"ip":0,"op":60,"st":0}"##
        let image = #"{"ty":2,"nm":"Img","ind":2,"refId":"img","ks":{"p":{"a":0,"k":[100,100]},"a":{"a":0,"k":[0,0]}},"ip":0,"op":60,"st":0}"#
        let text = #"{"ty":5,"nm":"Txt","ind":3,"ks":{},"t":{"d":{"k":[{"s":{"t":"Hi","s":24,"fc":[0,1,0],"f":"x","j":2},"t":0}]},"a":[]},"ip":0,"op":60,"st":0}"#
        let s = try Scene(json: Self.file([solid, image, text].joined(separator: ","), assets: assets))
        #expect(s.imageData["img"]?.count == 70)
        #expect(try s.hitTest(.init(30, 30), at: 0) == "Solid/solid")
        #expect(try s.hitTest(.init(120, 110), at: 0) == "Img/image")
        #expect(try values(s, "Txt/text.fontSize", at: 0) == [24])
        #expect(try values(s, "Txt/text.foregroundColor", at: 0) == [0, 1, 0, 1])
        #expect(s.warnings.isEmpty, "\(s.warnings)")
        #expect(error(Self.file(image, assets: #"[{"id":"img","p":"data:image/png;base64"}]"#)) == "assets[0].p: must be a base64 data URI")
    }

    @Test func unsupportedFeaturesWarnAndStillPlay() throws {
        let extra = #","masksProperties":[{"mode":"f","pt":{"a":0,"k":{"c":true,"v":[[0,0],[9,0],[9,9]]}}},{"mode":"f","pt":{"a":0,"k":{"c":true,"v":[[0,0],[9,0],[9,9]]}}}],"ef":[{"ty":5}],"tm":{"a":0,"k":0},"bm":17"#
        let shapes = "\(Self.square),{\"ty\":\"tw\",\"a\":{\"a\":0,\"k\":90},\"c\":{\"a\":0,\"k\":[0,0]}},{\"ty\":\"mm\",\"mm\":3},\(Self.redFill)"
        let ks = #"{"p":{"a":0,"k":[50,50],"x":"wiggle(1,2)"}}"#
        let s = try Scene(json: Self.file(Self.shapeLayer("W", ind: 1, ks: ks, shapes: shapes, extra: extra)))
        // (Twist is mapped now, by Lamina's own definition: no warning; LottieFeatureTests.)
        let expected = ["layers[0].masksProperties[1].mode: mask mode difference after another mask", "layers[0].ef[0]: effect",
                        "layers[0].bm: blend mode 17", "layers[0].tm: time remapping", "layers[0].ks.p.x: expression"]
        for e in expected { #expect(s.warnings.contains { $0.hasPrefix(e) }, "\(e) in \(s.warnings)") }
        // The first difference mask is the mask itself (|0 − v|), mapped exactly: no warning for it.
        #expect(!s.warnings.contains { $0.hasPrefix("layers[0].masksProperties[0]") }, "\(s.warnings)")
        #expect(try s.hitTest(.init(50, 50), at: 0) == "W/F")
        // Merge paths' mode 1 (merge) is the compound path the fill draws anyway: no warning.
        let merged = try Scene(json: Self.file(Self.shapeLayer("Mg", ind: 1, ks: Self.ks(), shapes: "\(Self.square),{\"ty\":\"mm\",\"mm\":1},\(Self.redFill)")))
        #expect(merged.warnings.isEmpty, "\(merged.warnings)")
        #expect(try merged.hitTest(.init(5, 5), at: 0) == "Mg/F")
        // A mask without its path is an error naming it; a track matte with no matte layer a warning.
        #expect(error(Self.file(Self.shapeLayer("M", ind: 1, ks: Self.ks(), extra: #","masksProperties":[{"mode":"a"}]"#)))
                == "layers[0].masksProperties[0].pt: is required")
        let lone = try Scene(json: Self.file(Self.shapeLayer("L", ind: 1, ks: Self.ks(), extra: #","tt":1"#)))
        #expect(lone.warnings.contains { $0.hasPrefix("layers[0].tt: track matte without a matte layer") }, "\(lone.warnings)")
    }

    @Test func malformedFilesNameTheField() throws {
        #expect(error(Self.file(#"{"ty":4,"ks":{},"shapes":[{"ty":"rc","p":{"a":0,"k":[0,0]}}]}"#)) == "layers[0].shapes[0].s: is required")
        #expect(error(Self.file(#"{"ty":"4","ks":{}}"#)) == "layers[0].ty: must be a number (got a string)")
        #expect(error(Self.file(#"{"ty":4,"ks":{"p":{"a":1,"k":[{"t":5,"s":[0,0]},{"t":2,"s":[1,1]}]}},"shapes":[]}"#))
                == "layers[0].ks.p.k[1].t: keyframe times must not decrease")
        #expect(error(Self.file(#"{"ty":0,"refId":"nope","ks":{}}"#)) == "layers[0].refId: no asset has the id \"nope\"")
        #expect(error(#"{"v":"5","fr":0,"ip":0,"op":10,"w":10,"h":10,"layers":[]}"#)?.hasPrefix("fr:") == true)
        #expect(error(#"{"v":"5","fr":30,"ip":0,"op":10,"w":10,"h":10,"layers":{}}"#) == "layers: must be a list (got an object)")
    }

    @Test func limitsHold() throws {
        // More layers than the limit allows is an error, not an exhausted daemon.
        var limits = LottieImport.Limits()
        limits.maxLayers = 50
        let many = (1...40).map { Self.shapeLayer("L\($0)", ind: $0, ks: Self.ks()) }.joined(separator: ",")
        #expect(throws: SceneError.self) { try LottieImport(json: try JSON.parse(Self.file(many)), limits: limits) }
        // A deep parent chain is bounded.
        let chain = (1...100).map { Self.shapeLayer("C\($0)", ind: $0, ks: Self.ks(), extra: $0 < 100 ? ",\"parent\":\($0 + 1)" : "") }
        #expect(error(Self.file(chain.joined(separator: ",")))?.contains("parent chain longer than 64") == true)
        // Two big morphing paths keyed at different frames would be sampled 1000 times each
        // 6 × 40,000 numbers: an error before any sample is made.
        let pts = (0..<20_000).map { "[\($0),0]" }.joined(separator: ",")
        let zeros = Array(repeating: "[0,0]", count: 20_000).joined(separator: ",")
        let big = #"{"c":false,"v":[\#(pts)],"i":[\#(zeros)],"o":[\#(zeros)]}"#
        let morph = { (end: Int) in #"{"ty":"sh","ks":{"a":1,"k":[{"t":0,"s":[\#(big)]},{"t":\#(end),"s":[\#(big)]}]}}"# }
        let heavy = Self.shapeLayer("H", ind: 1, ks: Self.ks(), shapes: morph(1000) + "," + morph(999) + "," + Self.redFill)
        #expect(error(Self.file(heavy))?.contains("more than 4000000 keyframe numbers") == true)
        // A property that cannot map keyframe to keyframe is sampled at most 1000 times.
        let long = Self.ks(#""p":{"a":1,"k":[{"t":0,"s":[0,0],"to":[5,5],"ti":[5,5]},{"t":1000000,"s":[9,9]}]}"#)
        let imp = try LottieImport(json: try JSON.parse(Self.file(Self.shapeLayer("S", ind: 1, ks: long))))
        #expect(imp.scene.text.count < 100_000)
    }

    @Test func hugeNumbersAreErrorsOrClampedNeverTraps() throws {
        let huge = "1e300"
        let cases = [
            #"{"ty":\#(huge),"ks":{}}"#,
            Self.shapeLayer("A", ind: 1, ks: Self.ks(), extra: ",\"parent\":\(huge)"),
            Self.shapeLayer("A", ind: 1, ks: Self.ks(), shapes: #"{"ty":"sr","sy":1,"pt":{"a":1,"k":[{"t":0,"s":[3]},{"t":9,"s":[\#(huge)]}]},"or":{"a":0,"k":9},"ir":{"a":0,"k":4}},\#(Self.redFill)"#),
            Self.shapeLayer("A", ind: 1, ks: Self.ks(), shapes: #"\#(Self.square),{"ty":"st","c":{"a":0,"k":[0,0,0,1]},"w":{"a":0,"k":1},"lc":\#(huge),"lj":-\#(huge)}"#),
            Self.shapeLayer("A", ind: 1, ks: Self.ks(), shapes: #"\#(Self.square),{"ty":"gf","s":{"a":0,"k":[0,0]},"e":{"a":0,"k":[1,0]},"g":{"p":\#(huge),"k":{"a":0,"k":[0,1,1,1]}}}"#),
            Self.shapeLayer("A", ind: 1, ks: Self.ks(#""p":{"a":1,"k":[{"t":-\#(huge),"s":[0,0],"to":[1,1],"ti":[1,1]},{"t":\#(huge),"s":[1,1]}]}"#)),
            Self.shapeLayer("A", ind: 1, ks: Self.ks(), extra: ",\"st\":\(huge)"),
            #"{"ty":5,"ks":{},"t":{"d":{"k":[{"s":{"t":"x","s":12,"j":\#(huge)},"t":0}]}}}"#,
        ]
        for c in cases {
            // Loads or fails with an error naming a field; either way no trap.
            if let e = error(Self.file(c)) { #expect(e.contains(":"), "\(e)") }
        }
        #expect(error(Self.file(cases[1])) == nil)   // a parent no layer has: a warning
        #expect(error(Self.file(cases[5]))?.hasPrefix("layers[0].ks.p.k[0].t: must be within") == true)
    }

    @Test func truncatedAndMutatedFilesNeverCrash() throws {
        let text = Self.file(Self.shapeLayer("A", ind: 1, ks: Self.ks(#""p":{"a":1,"k":[{"t":0,"s":[0,0],"o":{"x":0.5,"y":0},"i":{"x":0.5,"y":1}},{"t":30,"s":[9,9]}]}"#))
                             + "," + #"{"ty":0,"nm":"P","refId":"c","ks":{},"ip":0,"op":60}"#,
                             assets: #"[{"id":"c","w":10,"h":10,"layers":[{"ty":3,"ind":1,"ks":{"r":{"a":0,"k":45}}}]}]"#)
        let bytes = Array(text.utf8)
        var loaded = 0, failed = 0
        for cut in stride(from: 0, to: bytes.count, by: 3) {
            do { _ = try Scene(json: String(decoding: bytes[..<cut], as: UTF8.self)); loaded += 1 } catch { failed += 1 }
        }
        // Mutations: each digit, bracket or quote replaced by something else.
        var rng = SystemRandomNumberGenerator()
        let replacements: [UInt8] = Array("0-9e\"[]{},:tn".utf8)
        for _ in 0..<600 {
            var m = bytes
            for _ in 0..<3 { m[Int.random(in: 0..<m.count, using: &rng)] = replacements.randomElement(using: &rng)! }
            do {
                let s = try Scene(json: String(decoding: m, as: UTF8.self))
                _ = try? s.query(["A.position"], at: 0.5)
                loaded += 1
            } catch { failed += 1 }
        }
        #expect(loaded + failed == (bytes.count + 2) / 3 + 600 && failed > 0)
    }
}
