import LaminaGeometry
import LaminaText
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
