import LaminaGeometry
import LaminaPNG
import LaminaText
import TestSupport
import Testing

/// LaminaText against Pango (scripts/text-references): the same strings, font files, sizes,
/// bounds and options, hinting off.
///
/// Tolerances: glyph ids and fonts exact; pen positions within 0.05 pt (both are HarfBuzz's
/// unhinted advances in font units, scaled; Pango rounds to 1/1024 pt) — except where stated
/// per case below; line breaks exact (the text of every line).
@Suite struct PangoReferenceTests {
    static let cases = PangoCase.all()

    @Test func casesWereFound() {
        #expect(Self.cases.count >= 19)
    }

    /// Every reference PNG is declared, and declared as drawn by scripts/text-references.
    @Test func theManifestNamesTheScript() throws {
        let independent = Dictionary(uniqueKeysWithValues: Self.cases.map { ($0.name + ".png", "scripts/text-references") })
        #expect(try ReferenceManifest.problems(directory: "/" + PangoCase.directory, independent: independent) == [])
    }

    @Test(arguments: cases) func lineBreaks(_ c: PangoCase) {
        let engine = TextLayoutEngine()   // one per test: an engine belongs to one thread
        let layout = engine.layout(c.text, style: c.style, bounds: c.bounds)
        let utf16 = Array(c.text.string.utf16)
        let texts = layout.lines.map { String(decoding: utf16[$0.range], as: UTF16.self) }
        #expect(texts == c.lines.map(\.text))
        guard layout.lines.count == c.lines.count else { return }
        for (mine, theirs) in zip(layout.lines, c.lines) {
            #expect(abs(mine.baseline - theirs.baseline) <= 0.05, "baseline of \"\(theirs.text)\"")
            #expect(abs(mine.x - theirs.x) <= 0.05, "x of \"\(theirs.text)\": \(mine.x) vs \(theirs.x)")
        }
    }

    /// Measurement against Pango's logical size, where Pango's extents are the lines' own
    /// (natural alignment, no truncation).
    @Test(arguments: cases.filter { $0.style.alignment == .natural && $0.style.truncation == .none })
    func measurement(_ c: PangoCase) {
        let engine = TextLayoutEngine()
        let size = engine.measure(c.text, style: c.style, width: c.style.isWrapped ? c.bounds.width : nil)
        #expect(abs(size.width - c.size.width) <= 0.05 && abs(size.height - c.size.height) <= 0.05,
                "\(size) vs Pango's \(c.size)")
    }

    @Test(arguments: cases) func glyphPositions(_ c: PangoCase) {
        let engine = TextLayoutEngine()
        let layout = engine.layout(c.text, style: c.style, bounds: c.bounds)
        let mine = layout.glyphs.map { g in
            (engine.fonts.describe(g.font).family, g.glyph, g.position.x, g.position.y)
        }
        #expect(mine.count == c.glyphs.count)
        var reported = 0
        for (i, (a, b)) in zip(mine, c.glyphs).enumerated() {
            let same = a.0 == b.font && a.1 == b.glyph && abs(a.2 - b.x) <= 0.05 && abs(a.3 - b.y) <= 0.05
            if !same && reported < 5 {
                reported += 1
                Issue.record("glyph \(i): \(a.0) #\(a.1) at (\(a.2), \(a.3)); Pango: \(b.font) #\(b.glyph) at (\(b.x), \(b.y))")
            }
        }
    }
}

/// LaminaText's CPU raster (glyphs from the atlas, composited) against cairo's raster of
/// Pango's layout, with the project's rule for independent renderers: mean channel error
/// ≤ 1/255 and at most 0.5 % of pixels off by more than 64/255.
@Suite struct PangoRasterTests {
    @Test(arguments: PangoReferenceTests.cases) func raster(_ c: PangoCase) throws {
        let engine = TextLayoutEngine()
        let atlas = GlyphAtlas(fonts: engine.fonts)
        let layout = engine.layout(c.text, style: c.style, bounds: c.bounds)
        let w = Int((c.bounds.width * c.scale).rounded()), h = Int((c.bounds.height * c.scale).rounded())
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        let bg = c.background.premultiplied
        for i in 0..<(w * h) {
            pixels[4 * i] = UInt8((bg.0 * 255).rounded()); pixels[4 * i + 1] = UInt8((bg.1 * 255).rounded())
            pixels[4 * i + 2] = UInt8((bg.2 * 255).rounded()); pixels[4 * i + 3] = UInt8((bg.3 * 255).rounded())
        }
        TextRasterizer.draw(layout, scale: c.scale, atlas: atlas, into: &pixels, width: w, height: h)
        let result = try PixelComparator.compare(RGBAImage(width: w, height: h, pixels: pixels),
                                                 referencePath: PixelComparator.referencePath(c.name),
                                                 tolerance: .independent(mean: 1, percent: 0.5, threshold: 64))
        #expect(result.passed, "\(c.name): \(result)")
    }
}
