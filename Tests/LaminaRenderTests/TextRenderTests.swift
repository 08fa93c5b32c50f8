import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaPNG
import LaminaText
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
@testable import LaminaRender
import LaminaModel

/// Text layers through the whole path (layer tree → builder → glyph atlas on the GPU →
/// lavapipe) against Pango + cairo drawing the same text with the same font files, sizes and
/// hinting off: the PNGs and cases of `scripts/text-references` (LaminaTextTests' References,
/// read here, not copied). Each case is a text layer filling a canvas of its bounds at its
/// device scale over its opaque background. Tolerance: the project's rule for independent
/// references, mean ≤ 1/255 and ≤ 0.5 % of pixels off by more than 64/255 (LaminaText's
/// README: glyphs are cairo's FreeType bitmaps placed at whole pixels as cairo does; Arabic and
/// Devanagari differ where glyphs overlap, cairo adding them into one mask first).
@Suite("Text layers against Pango")
struct TextRenderTests {
    static let tolerance = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LaminaTextTests/References").path

    /// A case of scripts/text-references: its layer's properties, bounds, scale and background.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var properties: [(String, PropertyValue)]
        var bounds: Size
        var scale: Double
        var background: Color
        var color: Color
        var testDescription: String { name }
        var png: String { "\(TextRenderTests.directory)/\(name).png" }
    }

    static func color(_ any: Any?) -> Color? {
        guard let c = any as? [Double], c.count == 4 else { return nil }
        return Color(c[0], c[1], c[2], c[3])
    }

    static func load(_ name: String) -> Case? {
        guard let data = FileManager.default.contents(atPath: "\(directory)/\(name).json"),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let b = json["bounds"] as? [Double], let size = json["size"] as? Double else { return nil }
        let color = color(json["color"]) ?? Color(1, 1, 1)
        var properties: [(String, PropertyValue)] = [
            ("font", .string(json["font"] as? String ?? "sans-serif")), ("fontSize", .number(size)),
            ("foregroundColor", .color(color)),
            ("alignmentMode", .string(json["alignment"] as? String ?? "natural")),
            ("truncationMode", .string(json["truncation"] as? String ?? "none")),
            ("isWrapped", .bool(json["wrapped"] as? Bool ?? false)),
        ]
        if let runs = json["runs"] as? [[String: Any]] {
            properties.append(("string", .text(StyledText(runs: runs.map {
                StyledText.Run($0["text"] as! String, font: $0["font"] as? String, fontSize: $0["fontSize"] as? Double,
                               foregroundColor: Self.color($0["foregroundColor"]))
            }))))
        } else {
            properties.append(("string", .string(json["string"] as? String ?? "")))
        }
        return Case(name: name, properties: properties, bounds: Size(b[0], b[1]), scale: json["scale"] as? Double ?? 1,
                    background: Self.color(json["background"]) ?? .black, color: color)
    }

    static var all: [Case] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().compactMap { load(String($0.dropLast(5))) }
    }

    func tree(_ c: Case, extra: [(String, PropertyValue)] = []) throws -> LayerTree {
        try TestScene.tree(TestScene.layer(
            1, .text, frame: Rect(0, 0, c.bounds.width, c.bounds.height), c.properties + extra))
    }

    @Test(arguments: all)
    func matchesPango(_ c: Case) throws {
        let t = try tree(c)
        var builder = DrawListBuilder(widthPoints: c.bounds.width, heightPoints: c.bounds.height, scale: c.scale,
                                      background: c.background)
        let list = builder.build(t)
        #expect(list.textAtlas != nil)
        #expect(list.items.contains { if case .image(let d) = $0.kind { d.image.id == list.textAtlas?.base.id } else { false } })
        let image = try renderImage(list, alpha: .straight)
        try expectMatchesReference(image, c.png, Self.tolerance, name: "text-\(c.name)")
    }

    /// Renders `times` of `t` through one builder and one renderer (the atlas' dirty
    /// rectangles reach the GPU copy between frames); the last frame's pixels and the renderer.
    func frames(_ t: LayerTree, _ times: [Double], width: Double, height: Double, background: Color)
        throws -> (RGBAImage, OffscreenRenderer, DrawListBuilder) {
        let renderer = try makeRenderer(width: Int(width), height: Int(height))
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: background)
        var presentation = LayerTree()
        for time in times {
            t.updatePresentation(&presentation, at: time)
            try renderer.render(builder.build(presentation))
        }
        let pixels = try renderer.readPixels(alpha: .straight)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        return (RGBAImage(width: Int(width), height: Int(height), pixels: pixels), renderer, builder)
    }

    /// latin-bold-scale2's text at device scale 1 in a layer whose transform animates from
    /// scale 1 to 2 (anchor at its top-left corner): after frames at 1, 1.25, 1.5 and 1.75 the
    /// frame at scale 2 matches Pango's raster of the text at device scale 2 — the atlas
    /// rasterized the glyphs anew at 40 pixels per em (a bitmap stretched from an earlier
    /// frame's size would be blurred far past the tolerance). The later frames' glyphs reached
    /// the GPU as dirty rectangles of the first frame's atlas.
    @Test func scaleAnimationStaysCrisp() throws {
        let c = try #require(Self.load("latin-bold-scale2"))
        #expect(c.scale == 2)
        var t = try tree(Case(name: c.name, properties: c.properties, bounds: c.bounds, scale: 1, background: c.background,
                              color: c.color),
                         extra: [("anchorPoint", .point(Point(0, 0))), ("position", .point(Point(0, 0)))])
        var timing = AnimationTiming(duration: 1); timing.timingFunction = .linear
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "transform", value: .transform(.scale(2, 2, 1))),
            .addAnimation(1, key: "grow", animation: .basic(BasicAnimation(
                keyPath: "transform", from: .transform(.identity), to: .transform(.scale(2, 2, 1)), timing: timing))),
        ])))
        let (image, renderer, builder) = try frames(t, [0, 0.25, 0.5, 0.75, 1.5], width: c.bounds.width * 2,
                                                    height: c.bounds.height * 2, background: c.background)
        try expectMatchesReference(image, c.png, Self.tolerance, name: "text-scale-animation")
        #expect(renderer.atlasWrites > 0, "later frames' glyphs are dirty rectangles")
        #expect(builder.textDrawing?.layoutsMade == 1, "a transform does not lay the text out again")
    }

    /// latin-kerning (white text) with foregroundColor animating from red to white: at the
    /// middle (t = 0.5 of 1 s, linear) the color is (1, 0.5, 0.5) straight; each pixel is then
    /// the background plus the glyph coverage × (color − background), the coverage read from
    /// Pango's white raster as (white − background) / (1 − background) per channel — so the
    /// expected image comes from the reference, not from Lamina. The text is laid out once.
    @Test func foregroundColorAnimates() throws {
        let c = try #require(Self.load("latin-kerning"))
        #expect(c.color == Color(1, 1, 1))
        var t = try tree(c)
        var timing = AnimationTiming(duration: 1); timing.timingFunction = .linear
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "tint", animation: .basic(BasicAnimation(
                keyPath: "foregroundColor", from: .color(Color(1, 0, 0)), to: .color(Color(1, 1, 1)), timing: timing))),
        ])))
        let (image, _, builder) = try frames(t, [0, 0.25, 0.5], width: c.bounds.width, height: c.bounds.height,
                                             background: c.background)
        #expect(builder.textDrawing?.layoutsMade == 1, "a color change does not lay the text out again")
        let reference = try PNG.read(path: c.png)
        let bg = [c.background.red, c.background.green, c.background.blue].map { $0 * 255 }
        let tint = [255.0, 127.5, 127.5]
        var expected = reference
        for i in 0..<(reference.width * reference.height) {
            for k in 0..<3 {
                let coverage = (Double(reference.pixels[i * 4 + k]) - bg[k]) / (255 - bg[k])
                expected.pixels[i * 4 + k] = UInt8(max(0, min(255, (bg[k] + coverage * (tint[k] - bg[k])).rounded())))
            }
        }
        let result = PixelComparator.compare(image, expected, tolerance: Self.tolerance)
        #expect(result.passed, "\(result)")
    }

    /// Where text goes among a layer's items (CATextLayer draws its text as the layer's
    /// contents): one item for its glyphs (a `GlyphRun`), above the background, below the
    /// sublayers and the border; in the clip of its own masksToBounds; with the layer's opacity;
    /// and its blurred shadow's source holds the glyphs (a text layer's shadow is that of its
    /// text's alpha).
    @Test func textItemsSitAsContents() throws {
        let b = TestScene.self
        func run(_ item: DrawItem) -> GlyphRun? { if case .image(let d) = item.kind, case .glyphs(let r) = d.mode { r } else { nil } }
        func isText(_ item: DrawItem) -> Bool { run(item) != nil }
        let t = try b.tree(b.layer(1, .text, frame: Rect(10, 10, 120, 40), [
            ("string", .string("Hi")), ("fontSize", .number(24)), ("backgroundColor", .color(Color(0, 0, 1))),
            ("borderWidth", .number(2)), ("borderColor", .color(Color(1, 0, 0))), ("masksToBounds", .bool(true)),
        ]) + b.layer(2, parent: 1, frame: Rect(0, 0, 8, 8), [("backgroundColor", .color(Color(0, 1, 0)))]))
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 80, scale: 1, background: .white)
        let list = builder.build(t)
        let kinds = list.items.map { isText($0) ? "text" : $0.borderWidth > 0 ? "border" : "rect" }
        #expect(kinds == ["rect", "text", "rect", "border"])
        #expect(list.items.compactMap(run).map(\.quads.count) == [2], "two glyphs, one item")
        #expect(list.items.filter(isText).allSatisfy { $0.clip == 0 && $0.opacity == 1 }, "in its own clip")

        let shadowed = try b.tree(b.layer(1, .text, frame: Rect(10, 10, 120, 40), [
            ("string", .string("Hi")), ("opacity", .number(0.5)), ("shadowOpacity", .number(1)),
            ("shadowRadius", .number(3)), ("foregroundColor", .color(Color(1, 1, 0))),
        ]))
        let list2 = builder.build(shadowed)
        guard case .shadowGroup(_, let sigma, let count)? = list2.items.first?.kind else {
            Issue.record("the first item is the blurred shadow: \(list2.items.map(\.kind))")
            return
        }
        #expect(sigma == 3 && count == 1)
        #expect(list2.items.dropFirst().allSatisfy(isText) && list2.items.count == 3)
        #expect(list2.items.last?.opacity == 0.5)
        for item in list2.items {
            guard let r = run(item) else { continue }
            #expect(r.quads.count == 2 && r.quads.allSatisfy { $0.color == Color(1, 1, 0) })
        }
    }

    /// A text layer's draw list has one item whose quads are its layout's, computed here
    /// apart from the builder: the same string laid out by a `TextLayoutEngine` of its own and
    /// its quads taken from an atlas of its own at the device scale, clipped to the bounds —
    /// the same count (one per glyph: ten letters, no space), rects (moved by the bounds'
    /// origin) and sizes in atlas pixels, and each run's color. With runs of their own colors,
    /// a layer color left unset, and glyphs past the bounds cut off, the same.
    @Test func aTextLayersGlyphsAreOneItemOfItsLayoutsQuads() throws {
        let b = TestScene.self
        let red = Color(1, 0, 0), green = Color(0, 0.6, 0, 0.8), ink = Color(0.1, 0.2, 0.3)
        for scale in [1.0, 2.0] {
            for clipped in [false, true] {
                let width = clipped ? 60.0 : 200.0
                let styled = StyledText(runs: [StyledText.Run("Hello", foregroundColor: red),
                                               StyledText.Run("World", fontSize: 22, foregroundColor: nil),
                                               StyledText.Run("Kerning", foregroundColor: green)])
                let t = try b.tree(b.layer(1, frame: Rect(0, 0, 240, 80))
                    + [.set(1, keyPath: "bounds", value: .rect(Rect(-7, 3, 240, 80)))]
                    + b.layer(2, .text, parent: 1, frame: Rect(5, 6, width, 40), [
                        ("string", .text(styled)), ("font", .string("sans-serif")), ("fontSize", .number(18)),
                        ("foregroundColor", .color(ink)),
                    ]) + [.set(2, keyPath: "bounds", value: .rect(Rect(4, -2, width, 40)))])
                let list = b.list(t, width: 260, height: 100, scale: scale)
                let runs = list.items.compactMap { item -> GlyphRun? in
                    if case .image(let d) = item.kind, case .glyphs(let r) = d.mode { r } else { nil }
                }
                try #require(runs.count == 1, "one item for the layer's text")
                let r = runs[0]

                let engine = TextLayoutEngine()
                let atlas = GlyphAtlas(fonts: engine.fonts)
                let text = AttributedText(runs: [TextRun("Hello", foregroundColor: red), TextRun("World", fontSize: 22),
                                                 TextRun("Kerning", foregroundColor: green)])
                let layout = engine.layout(text, style: TextStyle(font: "sans-serif", fontSize: 18, foregroundColor: ink),
                                           bounds: Size(width, 40))
                #expect(layout.glyphs.count == 17)
                let quads = layout.quads(scale: scale, atlas: atlas, clip: Rect(0, 0, width, 40))
                #expect(clipped ? quads.count < 17 && quads.count > 3 : quads.count == 17)
                #expect(r.quads.count == quads.count, "scale \(scale), clipped \(clipped)")
                #expect(r.scale == scale)
                for (got, want) in zip(r.quads, quads) {
                    #expect(got.rect == Rect(want.rect.origin.x + 4, want.rect.origin.y - 2, want.rect.size.width,
                                             want.rect.size.height))
                    #expect(Int(got.atlasWidth) == want.atlas.width && Int(got.atlasHeight) == want.atlas.height)
                    #expect(got.color == want.color)
                }
                // (Clipped, the third run is past the bounds.)
                #expect(Set(r.quads.map(\.color)) == (clipped ? [red, ink] : [red, ink, green]))
            }
        }
    }

    /// Damage with text: a static label, a label whose color and then string change, and a
    /// small square moving across: frames drawn over their damage equal the same frames drawn
    /// whole, byte for byte; while only the square moves, the labels are not redrawn (the
    /// damage stays inside the square's path, away from them).
    @Test func damageLimitedTextFramesEqualFullRedraws() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 160, heightPoints: 96, scale: 1, background: Color(0.1, 0.1, 0.15),
                                 targetFPS: 60)
        let b = TestScene.self
        let ops = b.layer(1, .text, frame: Rect(4, 4, 150, 30), [("string", .string("Static label")), ("fontSize", .number(20))])
            + b.layer(2, .text, frame: Rect(4, 36, 150, 30), [("string", .string("Changing")), ("fontSize", .number(18)),
                                                                ("foregroundColor", .color(Color(1, 0.8, 0.3)))])
            + b.layer(3, frame: Rect(0, 76, 12, 12), [("backgroundColor", .color(Color(0.3, 1, 0.5)))])
        var pending = [try model.validate(Commit(client: 1, content: .connect)),
                       try model.validate(Commit(client: 1, content: .operations(ops)))]
        let damaged = try makeRenderer(width: 160, height: 96)
        let whole = try makeRenderer(width: 160, height: 96)
        for frame in 0..<8 {
            var changes: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true)),
                                                   .set(3, keyPath: "position", value: .point(Point(10 + 18 * Double(frame), 82)))]
            if frame == 3 { changes.append(.set(2, keyPath: "foregroundColor", value: .color(Color(0.4, 0.7, 1)))) }
            if frame == 5 { changes.append(.set(2, keyPath: "string", value: .string("Changed: new glyphs ÆØ"))) }
            if frame > 0 { pending.append(try model.validate(Commit(client: 1, content: .operations(changes)))) }
            let f = driver.frame(applying: pending, at: Double(frame) / 60)
            pending = []
            if frame > 0, frame != 3, frame != 5 {
                let d = try #require(f.drawList.damage).rect
                #expect(d.minY >= 66, "frame \(frame): only the square's path is damaged (\(d))")
            }
            try damaged.render(f.drawList)
            var full = f.drawList
            full.damage = nil
            try whole.render(full)
            let x = try damaged.readPixels(), y = try whole.readPixels()
            #expect(zip(x, y).filter { $0 != $1 }.isEmpty, "frame \(frame) differs from a full redraw")
        }
        #expect(damaged.validationMessages.isEmpty, "\(damaged.validationMessages)")
    }
}
