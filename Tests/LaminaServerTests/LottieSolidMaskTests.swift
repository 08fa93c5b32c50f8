import Foundation
import Lamina
import LaminaLottie
import LaminaPNG
import LaminaRender
import LaminaSceneTree
import LaminaWire
import Testing
import TestSupport

/// A solid layer under one mask mapped as a fill of the mask's region clipped to the solid
/// (`Mapper.solidMasked`), not as a mask layer: the mapped tree (no `mask` anywhere, a shape
/// of the expected path and fill rule in a `masksToBounds` layer of the solid's frame), the
/// pixels against the mask mapping (`LottieImport.Options.solidMasksAsFills` off) and against
/// pixels worked out by hand, and the cases left as masks.
@Suite("Lottie solids under one mask as fills")
struct LottieSolidMaskTests {
    typealias C = LottieCompositingTests
    static let corpus = LottieCorpusFidelityTests.fixtures.appendingPathComponent("lottie-corpus")

    /// A 120×80 solid of (0.2, 0.4, 0.8) (#3366cc) centred at (100, 100) (anchor at its centre).
    static func solid(_ masks: [String], name: String = "S", ind: Int = 1, extra: String = "") -> String {
        let ks = #"{"o":\#(C.st("100")),"p":\#(C.st("[100,100]")),"a":\#(C.st("[60,40]")),"s":\#(C.st("[100,100]")),"r":\#(C.st("0"))}"#
        let color = "#3366cc"
        return #"{"ty":1,"nm":"\#(name)","ind":\#(ind),"ks":\#(ks),"sc":"\#(color)","sw":120,"sh":80,"ip":0,"op":60,"st":0,"masksProperties":[\#(masks.joined(separator: ","))]\#(extra)}"#
    }
    static let blue: [Double] = [0.2, 0.4, 0.8]

    /// A circle of radius r about (cx, cy), in the solid's coordinates.
    static func circle(_ cx: Double, _ cy: Double, _ r: Double) -> String {
        let k = 0.5523 * r
        return #"{"c":true,"v":[[\#(cx),\#(cy - r)],[\#(cx + r),\#(cy)],[\#(cx),\#(cy + r)],[\#(cx - r),\#(cy)]],"i":[[\#(-k),0],[0,\#(-k)],[\#(k),0],[0,\#(k)]],"o":[[\#(k),0],[0,\#(k)],[\#(-k),0],[0,\#(-k)]]}"#
    }
    static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> String {
        #"{"c":true,"v":[[\#(x),\#(y)],[\#(x + w),\#(y)],[\#(x + w),\#(y + h)],[\#(x),\#(y + h)]],"i":[[0,0],[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0],[0,0]]}"#
    }
    static func mask(_ mode: String, _ path: String, opacity: String = "100", inverted: Bool = false) -> String {
        #"{"mode":"\#(mode)","inv":\#(inverted),"pt":\#(C.st(path)),"o":\#(C.st(opacity))}"#
    }
    /// A rect moving from x = 20 to x = 70 over frames 0…30 (linear), 30×40 at y = 20.
    static let movingRect = #"{"a":1,"k":[{"t":0,"s":[\#(rect(20, 20, 30, 40))],"i":{"x":1,"y":1},"o":{"x":0,"y":0}},{"t":30,"s":[\#(rect(70, 20, 30, 40))]}]}"#

    static func imported(_ text: String, fills: Bool) throws -> LottieImport {
        var options = LottieImport.Options()
        options.solidMasksAsFills = fills
        return try LottieImport(json: try JSON.parse(text), playback: LottiePlayback(loopMode: .loop), options: options)
    }

    /// Every layer of a scene's tree (sublayers and masks), depth first.
    static func layers(_ j: JSON) -> [[String: JSON]] {
        guard case .object(let members) = j else { return [] }
        var m: [String: JSON] = [:]
        for x in members { m[x.key] = x.value }
        var out = [m]
        if case .array(let subs)? = m["sublayers"] { out += subs.flatMap(layers) }
        if let mask = m["mask"] { out += layers(mask) }
        return out
    }
    static func sceneLayers(_ l: LottieImport) -> [[String: JSON]] {
        guard case .object(let top) = l.scene, case .array(let roots)? = top.first(where: { $0.key == "layers" })?.value else { return [] }
        return roots.flatMap(layers)
    }
    static func hasMask(_ l: LottieImport) -> Bool { sceneLayers(l).contains { $0["mask"] != nil } }
    /// The fill shape a solid maps to: its clip layer (named `<name>/solid`) and the shape in it.
    static func fill(_ l: LottieImport, _ name: String = "S") throws -> (clip: [String: JSON], shape: [String: JSON]) {
        let clip = try #require(sceneLayers(l).first { $0["name"] == .string(name + "/solid") })
        var subs: [JSON] = []
        if case .array(let a)? = clip["sublayers"] { subs = a }
        try #require(subs.count == 1, "the solid's layer holds one shape")
        return (clip, try #require(layers(subs[0]).first))
    }

    /// The file rendered with and without the fills at time t: straight RGBA images.
    static func renderBoth(_ text: String, at t: Double) throws -> (new: RGBAImage, old: RGBAImage) {
        func render(_ fills: Bool) throws -> RGBAImage {
            let l = try imported(text, fills: fills)
            let scene = try Scene(json: l.scene.text)
            let c = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                           scale: scene.scale, background: scene.background)
            let pixels = try c.render(try scene.tree(at: t).presentation(at: t), at: t)
            return RGBAImage(width: c.pixelWidth, height: c.pixelHeight, pixels: pixels)
        }
        return (try render(true), try render(false))
    }
    static func pixel(_ image: RGBAImage, _ x: Int, _ y: Int) -> [Double] {
        (0..<4).map { Double(image.pixels[4 * (y * image.width + x) + $0]) / 255 }
    }
    /// Colours multiplied by alpha (rounded): where alpha is small, the straight colour the
    /// compositor reports is the premultiplied value divided by it, so a difference of one
    /// in the drawn value shows as tens there.
    static func premultiplied(_ image: RGBAImage) -> RGBAImage {
        var p = image.pixels
        for i in stride(from: 0, to: p.count, by: 4) {
            let a = Int(p[i + 3])
            for c in 0..<3 { p[i + c] = UInt8((Int(p[i + c]) * a + 127) / 255) }
        }
        return RGBAImage(width: image.width, height: image.height, pixels: p)
    }
    /// New against old (premultiplied) within a tight bound: mean ≤ 0.1/255, no pixel off by
    /// more than 2/255.
    static let tight = PixelTolerance.independent(mean: 0.1, percent: 0, threshold: 2)

    static func expectSame(_ text: String, at times: [Double], _ what: String,
                           sourceLocation: SourceLocation = #_sourceLocation) throws -> [RGBAImage] {
        var news: [RGBAImage] = []
        for t in times {
            let (new, old) = try renderBoth(text, at: t)
            let c = PixelComparator.compare(premultiplied(new), premultiplied(old), tolerance: tight)
            #expect(c.passed, "\(what) at \(t) s: \(c)", sourceLocation: sourceLocation)
            news.append(new)
        }
        return news
    }

    @Test func addMaskIsTheCircleFilled() throws {
        let text = C.file([Self.solid([Self.mask("a", Self.circle(60, 40, 30))])])
        let l = try Self.imported(text, fills: true)
        #expect(!Self.hasMask(l))
        let (clip, shape) = try Self.fill(l)
        #expect(clip["frame"] == .array([0, 0, 120, 80].map { JSON.number($0) }))
        #expect(clip["masksToBounds"] == .bool(true))
        #expect(shape["type"] == .string("shape"))
        #expect(shape["fillRule"] == .string("nonZero"))
        guard case .string(let d)? = shape["path"] else { Issue.record("no path"); return }
        #expect(d.hasPrefix("M60 10 C"), "the circle's first vertex: \(d)")
        #expect(Self.hasMask(try Self.imported(text, fills: false)), "the switch maps it as a mask")
        let px = try Self.expectSame(text, at: [0], "add")[0]
        C().expectColor(Self.pixel(px, 100, 100), Self.blue + [1], "inside the circle")
        C().expectColor(Self.pixel(px, 50, 70), [0, 0, 0, 0], "in the solid, outside the circle")
        C().expectColor(Self.pixel(px, 100, 135), [0, 0, 0, 0], "outside the solid")
    }

    @Test func subtractOfAMovingRectIsTheRectAndPathEvenOdd() throws {
        // The solid spans canvas x 40…160, y 60…140; the hole x 60…90 at frame 0, 85…115 at
        // frame 15 (0.5 s), y 80…120.
        let m = #"{"mode":"s","inv":false,"pt":\#(Self.movingRect),"o":\#(C.st("100"))}"#
        let text = C.file([Self.solid([m])])
        let l = try Self.imported(text, fills: true)
        #expect(!Self.hasMask(l))
        let (_, shape) = try Self.fill(l)
        #expect(shape["fillRule"] == .string("evenOdd"))
        guard case .string(let d)? = shape["path"] else { Issue.record("no path"); return }
        #expect(d.hasPrefix("M0 0 C0 0 120 0 120 0 C120 0 120 80 120 80 C120 80 0 80 0 80 C0 80 0 0 0 0 Z M20 20 C"),
                "the solid's rect, then the hole: \(d)")
        let anims = "\(shape["animations"] ?? .null)"
        #expect(anims.contains("path"), "the path animates")
        let px = try Self.expectSame(text, at: [0, 0.5], "subtract")
        C().expectColor(Self.pixel(px[0], 75, 100), [0, 0, 0, 0], "frame 0: in the hole")
        C().expectColor(Self.pixel(px[0], 100, 100), Self.blue + [1], "frame 0: beside the hole")
        C().expectColor(Self.pixel(px[1], 100, 100), [0, 0, 0, 0], "frame 15: in the hole")
        C().expectColor(Self.pixel(px[1], 75, 100), Self.blue + [1], "frame 15: where the hole was")
        C().expectColor(Self.pixel(px[1], 100, 70), Self.blue + [1], "frame 15: above the hole")
        C().expectColor(Self.pixel(px[1], 30, 100), [0, 0, 0, 0], "outside the solid")
    }

    @Test func invertedAddAtHalfOpacityAndAClippedCircle() throws {
        // Inverted at 50 %: the solid outside the circle at alpha 0.5.
        let inv = C.file([Self.solid([Self.mask("a", Self.circle(60, 40, 30), opacity: "50", inverted: true)])])
        let l = try Self.imported(inv, fills: true)
        #expect(!Self.hasMask(l))
        #expect(try Self.fill(l).shape["fillRule"] == .string("evenOdd"))
        #expect(try Self.fill(l).shape["opacity"] == .number(0.5))
        let px = try Self.expectSame(inv, at: [0], "inverted add")[0]
        C().expectColor(Self.pixel(px, 100, 100), [0, 0, 0, 0], "inside the circle")
        C().expectColor(Self.pixel(px, 50, 70), Self.blue + [0.5], "in the solid, outside the circle")
        C().expectColor(Self.pixel(px, 100, 150), [0, 0, 0, 0], "outside the solid")
        // A circle of radius 50 about the solid's centre reaches past its top and bottom: cut there.
        let big = C.file([Self.solid([Self.mask("a", Self.circle(60, 40, 50), opacity: "70")])])
        let bpx = try Self.expectSame(big, at: [0], "clipped circle")[0]
        C().expectColor(Self.pixel(bpx, 100, 100), Self.blue + [0.7], "inside both")
        C().expectColor(Self.pixel(bpx, 100, 145), [0, 0, 0, 0], "in the circle, below the solid")
        C().expectColor(Self.pixel(bpx, 45, 65), [0, 0, 0, 0], "in the solid's corner, outside the circle")
    }

    @Test func loneIntersectAndInvertedSubtractAreFills() throws {
        for (m, outside) in [(Self.mask("i", Self.circle(60, 40, 30)), false), (Self.mask("f", Self.circle(60, 40, 30)), false),
                             (Self.mask("s", Self.circle(60, 40, 30), inverted: true), false),
                             (#"{"mode":"n","pt":\#(C.st(Self.circle(0, 0, 5)))},"# + Self.mask("s", Self.circle(60, 40, 30)), true)] {
            let text = C.file([Self.solid([m])])
            let l = try Self.imported(text, fills: true)
            #expect(!Self.hasMask(l), "\(m)")
            #expect(try Self.fill(l).shape["fillRule"] == .string(outside ? "evenOdd" : "nonZero"), "\(m)")
            let px = try Self.expectSame(text, at: [0], m)[0]
            C().expectColor(Self.pixel(px, 100, 100), outside ? [0, 0, 0, 0] : Self.blue + [1], "\(m): the circle's centre")
        }
    }

    @Test func chainsTranslucentSubtractsAndExpansionsStayMasks() throws {
        let cases = [
            [Self.mask("a", Self.circle(60, 40, 30)), Self.mask("s", Self.circle(60, 40, 10))],
            [Self.mask("s", Self.circle(60, 40, 30), opacity: "50")],
            [#"{"mode":"a","pt":\#(C.st(Self.circle(60, 40, 30))),"o":\#(C.st("100")),"x":\#(C.st("4"))}"#],
        ]
        for masks in cases {
            let l = try Self.imported(C.file([Self.solid(masks)]), fills: true)
            #expect(Self.hasMask(l), "\(masks)")
            let solid = try #require(Self.sceneLayers(l).first { $0["name"] == .string("S/solid") })
            #expect(solid["backgroundColor"] != nil, "\(masks): the solid as before")
        }
    }

    @Test func mattedSolidsAndSolidMattesKeepTheirRoles() throws {
        // A masked solid as an alpha matte of a red square, and a masked solid matted by a circle.
        let matte = Self.solid([Self.mask("a", Self.circle(60, 40, 30))], name: "M", ind: 1, extra: #","td":1"#)
        let red = C.layer("R", 2, "[100,100]", C.square(100, "1,0,0"), #","tt":1"#)
        let text = C.file([matte, red])
        #expect(!Self.sceneLayers(try Self.imported(text, fills: true)).contains { $0["backgroundColor"] != nil })
        let px = try Self.expectSame(text, at: [0], "masked solid as a matte")[0]
        C().expectColor(Self.pixel(px, 100, 100), [1, 0, 0, 1], "inside the matte's circle")
        C().expectColor(Self.pixel(px, 55, 100), [0, 0, 0, 0], "in the square, outside the circle")
        let circleMatte = C.layer("C", 1, "[100,100]", #"{"ty":"gr","it":[{"ty":"el","p":\#(C.st("[0,0]")),"s":\#(C.st("[40,40]"))},{"ty":"fl","c":\#(C.st("[1,1,1,1]")),"o":\#(C.st("100")),"r":1}]}"#, #","td":1"#)
        let matted = Self.solid([Self.mask("s", Self.rect(55, 0, 10, 80))], ind: 2, extra: #","tt":1"#)
        let m2 = try Self.expectSame(C.file([circleMatte, matted]), at: [0], "masked solid under a matte")[0]
        C().expectColor(Self.pixel(m2, 90, 100), Self.blue + [1], "in the circle, beside the cut")
        C().expectColor(Self.pixel(m2, 100, 100), [0, 0, 0, 0], "in the cut")
        C().expectColor(Self.pixel(m2, 130, 100), [0, 0, 0, 0], "outside the circle")
    }

    /// A Fill effect (`ty` 21) of colour `rgb` at opacity `o`, animated from `o` to `to` when given.
    static func fillEffect(_ rgb: String, _ o: Double, to: Double? = nil) -> String {
        let opacity = to.map { #"{"a":1,"k":[{"t":0,"s":[\#(o)],"i":{"x":[1],"y":[1]},"o":{"x":[0],"y":[0]}},{"t":30,"s":[\#($0)]}]}"# }
            ?? #"{"a":0,"k":\#(o)}"#
        return #","ef":[{"ty":21,"nm":"Fill","en":1,"ef":[{"ty":10,"v":{"a":0,"k":0}},{"ty":7,"v":{"a":0,"k":0}},{"ty":2,"v":{"a":0,"k":[\#(rgb),1]}},{"ty":7,"v":{"a":0,"k":0}},{"ty":0,"v":{"a":0,"k":0}},{"ty":0,"v":{"a":0,"k":0}},{"ty":0,"v":\#(opacity)}]}]"#
    }

    @Test func aFillEffectIsTheSolidsOwnColour() throws {
        // Fill (1, 0.5, 0) at 60 % over the solid: every pixel (1, 0.5, 0) at 0.6 × its alpha.
        let masked = C.file([Self.solid([Self.mask("a", Self.circle(60, 40, 30))], extra: Self.fillEffect("1,0.5,0", 0.6))])
        let l = try Self.imported(masked, fills: true)
        #expect(!Self.sceneLayers(l).contains { $0["filters"] != nil || $0["mask"] != nil })
        #expect(try Self.fill(l).shape["fillColor"] == .array([1, 0.5, 0, 0.6].map { JSON.number($0) }))
        let px = try Self.expectSame(masked, at: [0], "fill effect over a masked solid")[0]
        C().expectColor(Self.pixel(px, 100, 100), [1, 0.5, 0, 0.6], "inside the circle")
        C().expectColor(Self.pixel(px, 50, 70), [0, 0, 0, 0], "outside the circle")
        // Without a mask: the solid's background.
        let plain = C.file([Self.solid([], extra: Self.fillEffect("0,1,0", 1))])
        let p = try Self.imported(plain, fills: true)
        #expect(!Self.sceneLayers(p).contains { $0["filters"] != nil })
        let ppx = try Self.expectSame(plain, at: [0], "fill effect over a solid")[0]
        C().expectColor(Self.pixel(ppx, 45, 65), [0, 1, 0, 1], "the solid's corner")
        // Animated, the effect stays a colour matrix (as before).
        let animated = C.file([Self.solid([], extra: Self.fillEffect("0,1,0", 1, to: 0.5))])
        #expect(Self.sceneLayers(try Self.imported(animated, fills: true)).contains { $0["filters"] != nil })
    }

    @Test(arguments: ["bell", "mask", "like"])
    func corpusFilesDrawAsBefore(_ name: String) throws {
        let text = try String(contentsOf: Self.corpus.appendingPathComponent(name + ".json"), encoding: .utf8)
        let l = try Self.imported(text, fills: true)
        let old = try Self.imported(text, fills: false)
        #expect(Self.sceneLayers(l).filter { $0["mask"] != nil }.count < Self.sceneLayers(old).filter { $0["mask"] != nil }.count)
        let root = try JSON.parse(text)
        guard case .object(let m) = root, case .number(let ip)? = m.first(where: { $0.key == "ip" })?.value,
              case .number(let op)? = m.first(where: { $0.key == "op" })?.value,
              case .number(let fr)? = m.first(where: { $0.key == "fr" })?.value else { Issue.record("no ip/op/fr"); return }
        let d = (op - ip) / fr
        _ = try Self.expectSame(text, at: [0, 0.25 * d, 0.5 * d, 0.8 * d], name)
    }
}
