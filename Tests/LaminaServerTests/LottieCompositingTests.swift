import Foundation
import Lamina
import LaminaPNG
import LaminaRender
import Testing
import TestSupport
import LaminaSceneTree

/// Lottie masks, track mattes, blend modes, repeaters and time remapping through the whole
/// render path, against values worked out by hand: each file is a few flat-coloured layers,
/// and pixels well inside each region must have the colour Lottie's definitions give there
/// (alpha matte = the matte's alpha, luma = 0.2126 R + 0.7152 G + 0.0722 B of the matte,
/// inverted = 1 − that; a mask of opacity o inverted covers the outside of its path at o;
/// multiply = Cs·Cb). `compositing.json` (masks add/subtract/intersect with a morphing
/// path, a repeater, a time-remapped precomp) is also compared with rlottie's frames in
/// `LottieGoldenTests`; rlottie 0.1 draws neither mattes nor inverted masks, so those are
/// judged here only.
@Suite("Lottie compositing: masks, mattes, blend modes")
struct LottieCompositingTests {
    static func st(_ v: String) -> String { #"{"a":0,"k":\#(v)}"# }
    static func ks(_ p: String) -> String { #"{"o":\#(st("100")),"p":\#(st(p)),"a":\#(st("[0,0]")),"s":\#(st("[100,100]")),"r":\#(st("0"))}"# }
    static func square(_ side: Double, _ rgb: String, height: Double? = nil) -> String {
        #"{"ty":"gr","it":[{"ty":"rc","p":\#(st("[0,0]")),"s":\#(st("[\(side),\(height ?? side)]")),"r":\#(st("0"))},{"ty":"fl","c":\#(st("[\(rgb),1]")),"o":\#(st("100")),"r":1},{"ty":"tr","p":\#(st("[0,0]")),"a":\#(st("[0,0]")),"s":\#(st("[100,100]")),"r":\#(st("0")),"o":\#(st("100"))}]}"#
    }
    static func circle(_ r: Double) -> String {
        let k = 0.5523 * r
        return #"{"c":true,"v":[[0,\#(-r)],[\#(r),0],[0,\#(r)],[\#(-r),0]],"i":[[\#(-k),0],[0,\#(-k)],[\#(k),0],[0,\#(k)]],"o":[[\#(k),0],[0,\#(k)],[\#(-k),0],[0,\#(-k)]]}"#
    }
    static func layer(_ name: String, _ ind: Int, _ p: String, _ shapes: String, _ extra: String = "") -> String {
        #"{"ty":4,"nm":"\#(name)","ind":\#(ind),"ks":\#(ks(p)),"shapes":[\#(shapes)],"ip":0,"op":60,"st":0\#(extra)}"#
    }
    static func file(_ layers: [String], assets: String = "[]") -> String {
        #"{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":200,"h":200,"assets":\#(assets),"layers":[\#(layers.joined(separator: ","))]}"#
    }

    /// The straight-alpha RGBA (0…1) at canvas points.
    func render(_ text: String, at t: Double = 0) throws -> (Int, Int) -> [Double] {
        let scene = try Scene(json: text)
        #expect(scene.warnings.isEmpty, "\(scene.warnings)")
        let c = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                       scale: 1, background: scene.background)
        let pixels = try c.render(try scene.tree(at: t).presentation(at: t))
        let w = c.pixelWidth
        return { x, y in (0..<4).map { Double(pixels[4 * (y * w + x) + $0]) / 255 } }
    }

    func expectColor(_ got: [Double], _ want: [Double], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        // Colour is compared only where the pixel is not transparent.
        let channels = want[3] < 0.01 ? [3] : [0, 1, 2, 3]
        let off = channels.map { abs(got[$0] - want[$0]) }.max() ?? 0
        #expect(off <= 3.0 / 255, "\(what): got \(got), want \(want)", sourceLocation: sourceLocation)
    }

    @Test func invertedMaskAtHalfOpacity() throws {
        // A green 70×70 square at (100, 100), masked by the outside of a circle of radius 20 at 50 %.
        let mask = #","masksProperties":[{"inv":true,"mode":"a","pt":\#(Self.st(Self.circle(20))),"o":\#(Self.st("50"))}]"#
        let px = try render(Self.file([Self.layer("G", 1, "[100,100]", Self.square(70, "0,0.8,0"), mask)]))
        expectColor(px(100, 100), [0, 0, 0, 0], "inside the circle")
        expectColor(px(70, 100), [0, 0.8, 0, 0.5], "outside the circle, inside the square")
        expectColor(px(140, 100), [0, 0, 0, 0], "outside the square")
    }

    @Test func maskModesAndFirstSubtract() throws {
        // A lone subtract starts from everywhere: the square with a circle cut out.
        let sub = #","masksProperties":[{"mode":"s","pt":\#(Self.st(Self.circle(20))),"o":\#(Self.st("100"))}]"#
        let px = try render(Self.file([Self.layer("S", 1, "[100,100]", Self.square(70, "0,0,1"), sub)]))
        expectColor(px(100, 100), [0, 0, 0, 0], "cut out")
        expectColor(px(70, 100), [0, 0, 1, 1], "kept")
        // Add at 50 % then subtract at 50 %: 0.5 · (1 − 0.5) inside both, 0.5 inside the first only.
        let two = #","masksProperties":[{"mode":"a","pt":\#(Self.st(Self.circle(30))),"o":\#(Self.st("50"))},{"mode":"s","pt":\#(Self.st(Self.circle(10))),"o":\#(Self.st("50"))}]"#
        let px2 = try render(Self.file([Self.layer("T", 1, "[100,100]", Self.square(70, "1,0,0"), two)]))
        expectColor(px2(100, 100), [1, 0, 0, 0.25], "in both")
        expectColor(px2(100, 80), [1, 0, 0, 0.5], "in the first only")
        expectColor(px2(100, 133), [0, 0, 0, 0], "in neither")
    }

    @Test func trackMattes() throws {
        // A matte circle (radius 25, white) over a red 60×30 rectangle, both at (100, 100).
        let matte = Self.layer("Matte", 1, "[100,100]", #"{"ty":"gr","it":[{"ty":"el","p":\#(Self.st("[0,0]")),"s":\#(Self.st("[50,50]"))},{"ty":"fl","c":\#(Self.st("[1,1,1,1]")),"o":\#(Self.st("100")),"r":1}]}"#, #","td":1"#)
        func matted(_ tt: Int) -> String { Self.layer("Red", 2, "[100,100]", Self.square(60, "1,0,0", height: 30), #","tt":\#(tt)"#) }
        let alpha = try render(Self.file([matte, matted(1)]))
        expectColor(alpha(100, 100), [1, 0, 0, 1], "alpha matte: inside both")
        expectColor(alpha(128, 100), [0, 0, 0, 0], "alpha matte: outside the circle")
        let inverted = try render(Self.file([matte, matted(2)]))
        expectColor(inverted(100, 100), [0, 0, 0, 0], "inverted alpha: inside the circle")
        expectColor(inverted(128, 100), [1, 0, 0, 1], "inverted alpha: outside the circle, inside the rectangle")
        expectColor(inverted(100, 120), [0, 0, 0, 0], "inverted alpha: outside the rectangle")
        // Luma: a 24×24 square of grey (0.2, 0.6, 0.9) over a purple 30×30 square.
        let grey = Self.layer("Luma", 1, "[100,100]", Self.square(24, "0.2,0.6,0.9"), #","td":1"#)
        func purple(_ tt: Int) -> String { Self.layer("P", 2, "[100,100]", Self.square(30, "0.6,0,0.8"), #","tt":\#(tt)"#) }
        let luma = 0.2126 * 0.2 + 0.7152 * 0.6 + 0.0722 * 0.9
        let l = try render(Self.file([grey, purple(3)]))
        expectColor(l(100, 100), [0.6, 0, 0.8, luma], "luma inside the matte")
        expectColor(l(113, 100), [0, 0, 0, 0], "luma outside the matte")
        let li = try render(Self.file([grey, purple(4)]))
        expectColor(li(100, 100), [0.6, 0, 0.8, 1 - luma], "inverted luma inside the matte")
        expectColor(li(113, 100), [0.6, 0, 0.8, 1], "inverted luma outside the matte")
        expectColor(li(120, 100), [0, 0, 0, 0], "inverted luma outside the layer")
        // The matte layer itself is not drawn: nothing outside the rectangle.
        expectColor(alpha(100, 122), [0, 0, 0, 0], "the matte is not drawn")
    }

    @Test func blendModes() throws {
        // A yellow square under a (0.5, 0.5, 1) square blended: multiply gives Cs·Cb, screen
        // Cs + Cb − Cs·Cb, difference |Cs − Cb|, add (plusLighter) min(1, Cs + Cb).
        let below = Self.layer("Y", 2, "[100,100]", Self.square(80, "1,1,0"))
        for (bm, want) in [(1, [0.5, 0.5, 0]), (2, [1, 1, 1]), (10, [0.5, 0.5, 1]), (16, [1, 1, 1])] {
            let above = Self.layer("B", 1, "[100,100]", Self.square(40, "0.5,0.5,1"), #","bm":\#(bm)"#)
            let px = try render(Self.file([above, below]))
            expectColor(px(100, 100), want + [1], "bm \(bm)")
            expectColor(px(70, 100), [1, 1, 0, 1], "bm \(bm) outside the blended layer")
        }
    }

    @Test func repeaterCopiesStepAndFade() throws {
        // Four 8×8 squares, each 20 right of the previous, opacity 100 % → 40 %: copy k at
        // 1 − 0.2k; with offset 1 the first copy is already one step along.
        func rep(_ offset: Int) -> String {
            #"{"ty":"gr","it":[{"ty":"rc","p":\#(Self.st("[0,0]")),"s":\#(Self.st("[8,8]")),"r":\#(Self.st("0"))},{"ty":"fl","c":\#(Self.st("[0,0,0,1]")),"o":\#(Self.st("100")),"r":1},{"ty":"rp","c":\#(Self.st("4")),"o":\#(Self.st("\(offset)")),"m":1,"tr":{"ty":"tr","p":\#(Self.st("[20,0]")),"a":\#(Self.st("[0,0]")),"s":\#(Self.st("[100,100]")),"r":\#(Self.st("0")),"so":\#(Self.st("100")),"eo":\#(Self.st("40"))}}]}"#
        }
        let px = try render(Self.file([Self.layer("R", 1, "[40,100]", rep(0))]))
        for k in 0..<4 { expectColor(px(40 + 20 * k, 100), [0, 0, 0, 1 - 0.2 * Double(k)], "copy \(k)") }
        expectColor(px(120, 100), [0, 0, 0, 0], "no fifth copy")
        let shifted = try render(Self.file([Self.layer("R", 1, "[40,100]", rep(1))]))
        expectColor(shifted(40, 100), [0, 0, 0, 0], "offset 1: nothing at the origin")
        expectColor(shifted(120, 100), [0, 0, 0, 0.4], "offset 1: the last copy")
        // Rotation about the anchor: 4 copies turned 90° each about (0, 20) from (0, 0):
        // the squares sit at (0,0), (20,20), (0,40), (−20,20) relative to the layer.
        let turned = rep(0).replacingOccurrences(of: #""p":{"a":0,"k":[20,0]}"#, with: #""p":{"a":0,"k":[0,0]}"#)
            .replacingOccurrences(of: #""a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"so""#,
                                  with: #""a":{"a":0,"k":[0,20]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":90},"so""#)
        let rot = try render(Self.file([Self.layer("R", 1, "[100,80]", turned)]))
        for (k, (dx, dy)) in [(0, 0), (20, 20), (0, 40), (-20, 20)].enumerated() {
            expectColor(rot(100 + dx, 80 + dy), [0, 0, 0, 1 - 0.2 * Double(k)], "turned copy \(k)")
        }
    }

    @Test func animatedRepeaterCopiesShowTheWholeCountOfEachFrame() throws {
        // Copies c: 0 at frame 0 → 5 at frame 10 (linear), 20 apart: at frame f rlottie and
        // ThorVG draw ⌊f/2⌋ copies, so frame 5 shows 2 (c = 2.5), frame 7 shows 3 (c = 3.5) and
        // frame 0 none; every copy opaque.
        let count = #"{"a":1,"k":[{"t":0,"s":[0],"i":{"x":[1],"y":[1]},"o":{"x":[0],"y":[0]}},{"t":10,"s":[5]}]}"#
        let rep = #"{"ty":"gr","it":[{"ty":"rc","p":\#(Self.st("[0,0]")),"s":\#(Self.st("[8,8]")),"r":\#(Self.st("0"))},{"ty":"fl","c":\#(Self.st("[0,0,0,1]")),"o":\#(Self.st("100")),"r":1},{"ty":"rp","c":\#(count),"o":\#(Self.st("0")),"m":1,"tr":{"ty":"tr","p":\#(Self.st("[20,0]")),"a":\#(Self.st("[0,0]")),"s":\#(Self.st("[100,100]")),"r":\#(Self.st("0")),"so":\#(Self.st("100")),"eo":\#(Self.st("100"))}}]}"#
        let text = Self.file([Self.layer("R", 1, "[40,100]", rep)])
        for (frame, shown) in [(0.0, 0), (5, 2), (7, 3), (10, 5), (30, 5)] {
            let px = try render(text, at: frame / 30)
            for k in 0..<6 {
                expectColor(px(40 + 20 * k, 100), [0, 0, 0, k < shown ? 1 : 0], "frame \(frame), copy \(k)")
            }
        }
    }

    @Test func threeDRotationIsProjectedAsRlottieProjectsIt() throws {
        // A 3D layer (ddd) at (100, 100) turned 60° about y: rlottie maps (x, y) to
        // (x cos 60°, y) / w, w = 1 − x sin 60° / 1024. The 160×40 bar's right edge x = 80 lands
        // at 40 / 0.93234 = 42.90 and its left edge x = −80 at −40 / 1.06766 = −37.47 (turned
        // without the projection: ±40). At canvas column 141 (x′ 41.5: x 77.56, w 0.93441) the
        // bar reaches y ±21.40; at column 63 (x′ −36.5: x −77.80, w 1.06580) y ±18.77.
        let ks = #"{"o":\#(Self.st("100")),"p":\#(Self.st("[100,100]")),"a":\#(Self.st("[0,0]")),"s":\#(Self.st("[100,100]")),"rx":\#(Self.st("0")),"ry":\#(Self.st("60")),"rz":\#(Self.st("0"))}"#
        let layer = #"{"ty":4,"ddd":1,"nm":"T","ind":1,"ks":\#(ks),"shapes":[\#(Self.square(160, "0,0,0", height: 40))],"ip":0,"op":60,"st":0}"#
        let px = try render(Self.file([layer]))
        expectColor(px(141, 100), [0, 0, 0, 1], "inside the right edge (x 142.90)")
        expectColor(px(143, 100), [0, 0, 0, 0], "past the right edge")
        expectColor(px(63, 100), [0, 0, 0, 1], "inside the left edge (x 62.53)")
        expectColor(px(61, 100), [0, 0, 0, 0], "past the left edge")
        expectColor(px(141, 120), [0, 0, 0, 1], "the near end is taller (y 121.40)")
        expectColor(px(141, 122), [0, 0, 0, 0], "above the near end")
        expectColor(px(63, 117), [0, 0, 0, 1], "the far end (y 118.77)")
        expectColor(px(63, 119), [0, 0, 0, 0], "the far end is shorter")
    }

    @Test func aLayersStartTimeShiftsOnlyAPrecompsContent() throws {
        // A shape layer with st 10 whose square moves x 40 → 160 over frames 0…30 (linear) is
        // at x 100 at frame 15 (rlottie and ThorVG do not shift its own keyframes); the same
        // layer inside a precomp whose layer has st 10 is at x 60 (content frame 5).
        let move = #"{"o":\#(Self.st("100")),"p":{"a":1,"k":[{"t":0,"s":[40,100],"i":{"x":1,"y":1},"o":{"x":0,"y":0}},{"t":30,"s":[160,100]}]},"a":\#(Self.st("[0,0]")),"s":\#(Self.st("[100,100]")),"r":\#(Self.st("0"))}"#
        let inner = #"{"ty":4,"nm":"M","ind":1,"ks":\#(move),"shapes":[\#(Self.square(10, "0,0,0"))],"ip":0,"op":60,"st":10}"#
        let own = try render(Self.file([inner]), at: 15.0 / 30)
        expectColor(own(100, 100), [0, 0, 0, 1], "own st not applied: x 100")
        expectColor(own(140, 100), [0, 0, 0, 0], "not at x 140 (lottie-web's reading)")
        let pre = #"{"ty":0,"nm":"P","ind":1,"refId":"c","w":200,"h":200,"ks":\#(Self.ks("[0,0]")),"ip":0,"op":60,"st":10}"#
        let nested = #"{"ty":4,"nm":"M","ind":1,"ks":\#(move),"shapes":[\#(Self.square(10, "0,0,0"))],"ip":0,"op":60,"st":0}"#
        let inPrecomp = try render(Self.file([pre], assets: #"[{"id":"c","layers":[\#(nested)]}]"#), at: 15.0 / 30)
        expectColor(inPrecomp(60, 100), [0, 0, 0, 1], "precomp st applied: x 60")
        expectColor(inPrecomp(100, 100), [0, 0, 0, 0], "not at x 100")
    }

    @Test func timeRemappingRunsTheContentBackwardsAndHolds() throws {
        // The content moves a 10×10 square from x = 10 to 110 over frames 0…60 (linear); the
        // remap shows content second 1.5 → 0.5 over the layer's frames 0…60, so at scene time
        // t the square is at 10 + 100·(1.5 − t/2)·30/60 (clamped to the content's 2 s).
        let mover = #"{"ty":4,"nm":"Mover","ind":1,"ks":{"o":\#(Self.st("100")),"p":{"a":1,"k":[{"t":0,"s":[10,10]},{"t":60,"s":[110,10]}]},"a":\#(Self.st("[0,0]")),"s":\#(Self.st("[100,100]")),"r":\#(Self.st("0"))},"shapes":[\#(Self.square(10, "0,0,0"))],"ip":0,"op":60,"st":0}"#
        let assets = #"[{"id":"c","layers":[\#(mover)]}]"#
        let remapped = #"{"ty":0,"nm":"Remapped","ind":1,"refId":"c","ks":\#(Self.ks("[0,0]")),"w":200,"h":40,"ip":0,"op":60,"st":0,"tm":{"a":1,"k":[{"t":0,"s":[1.5]},{"t":60,"s":[0.5]}]}}"#
        let scene = try Scene(json: Self.file([remapped], assets: assets))
        #expect(scene.warnings.isEmpty, "\(scene.warnings)")
        for t in [0.0, 0.4, 1.0, 1.7] {
            let contentSeconds = 1.5 - t / 2
            let x = 10 + 100 * contentSeconds / 2
            let got = try scene.query(["Mover.position"], at: t)
            guard case .object(let m) = got, case .array(let a) = m[0].value, case .number(let gx) = a[0] else {
                Issue.record("no position"); continue
            }
            #expect(abs(gx - x) < 1e-6, "at \(t) s: \(gx) vs \(x)")
        }
        // A static remap holds the content at that second: 0.5 s → x = 35.
        let held = remapped.replacingOccurrences(of: #""tm":{"a":1,"k":[{"t":0,"s":[1.5]},{"t":60,"s":[0.5]}]}"#, with: #""tm":{"a":0,"k":0.5}"#)
        let hs = try Scene(json: Self.file([held], assets: assets))
        for t in [0.0, 1.3] {
            guard case .object(let m) = try hs.query(["Mover.position.x"], at: t), case .number(let gx) = m[0].value else {
                Issue.record("no position"); continue
            }
            #expect(abs(gx - 35) < 1e-6, "held at \(t) s: \(gx)")
        }
    }
}
