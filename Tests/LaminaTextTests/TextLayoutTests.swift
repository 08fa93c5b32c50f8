import LaminaGeometry
import LaminaText
import Testing

/// Layout rules stated in docs/scene-format.md and CATextLayer's documentation, checked against
/// numbers derived from the font's tables (DejaVu Sans: 2048 units per em, hhea ascender
/// 1901, descender 483).
@Suite struct TextLayoutTests {
    let engine = TextLayoutEngine()
    static let ascent = 1901.0 / 2048, descent = 483.0 / 2048

    @Test func catextLayerDefaults() {
        let style = TextStyle()
        #expect(style.font == "sans-serif" && style.fontSize == 36 && style.foregroundColor == Color(1, 1, 1, 1))
        #expect(style.alignment == .natural && !style.isWrapped && style.truncation == .none)
        let font = engine.fonts.font(forPattern: style.font)
        #expect(font.map { engine.fonts.describe($0).family } == "DejaVu Sans")
    }

    @Test func emptyTextHasOneLineOfTheFontsHeight() {
        let layout = engine.layout("", style: TextStyle(), bounds: Size(100, 100))
        #expect(layout.lines.count == 1 && layout.glyphs.isEmpty)
        #expect(abs(layout.usedSize.height - 36 * (Self.ascent + Self.descent)) < 1e-9)
        #expect(abs(layout.lines[0].baseline - 36 * Self.ascent) < 1e-9)
    }

    @Test func linesStackByTheFontsLineHeightFromTheTop() {
        let layout = engine.layout("a\nb\n\nc", style: TextStyle(fontSize: 20), bounds: Size(100, 200))
        #expect(layout.lines.count == 4)
        for (i, line) in layout.lines.enumerated() {
            #expect(abs(line.baseline - (20 * Self.ascent + Double(i) * 20 * (Self.ascent + Self.descent))) < 1e-9)
        }
        #expect(layout.lines.map(\.range) == [0..<1, 2..<3, 4..<4, 5..<6])
    }

    @Test func crlfAndParagraphSeparatorsAreMandatoryBreaks() {
        let layout = engine.layout("a\r\nb\u{2029}c", style: TextStyle(fontSize: 20), bounds: Size(100, 200))
        #expect(layout.lines.map(\.range) == [0..<1, 3..<4, 5..<6])
    }

    /// A word wider than the line breaks between graphemes; nothing is lost or repeated.
    @Test func aWordWiderThanTheLineBreaksBetweenGraphemes() {
        let s = "Supercalifragilisticexpialidocious"
        let style = TextStyle(fontSize: 20, isWrapped: true)
        let layout = engine.layout(AttributedText(s), style: style, bounds: Size(80, 400))
        #expect(layout.lines.count >= 4)
        let utf16 = Array(s.utf16)
        #expect(layout.lines.map { String(decoding: utf16[$0.range], as: UTF16.self) }.joined() == s)
        for line in layout.lines { #expect(line.width <= 80 + 1e-9) }
    }

    /// A long paragraph (20,000 characters) wraps completely, nothing lost, every line within
    /// the width; and one unbreakable 5,000-character word breaks between every few graphemes.
    @Test func longParagraphsWrapCompletely() {
        let words = (0..<4000).map { ["tiny", "words", "in", "a", "long", "paragraph"][$0 % 6] }.joined(separator: " ")
        let style = TextStyle(fontSize: 12, isWrapped: true)
        let layout = engine.layout(AttributedText(words), style: style, bounds: Size(300, 1e6))
        let utf16 = Array(words.utf16)
        #expect(layout.lines.map { String(decoding: utf16[$0.range], as: UTF16.self) }.joined() == words)
        for line in layout.lines { #expect(line.width <= 300 + 1e-9) }
        let word = String(repeating: "x", count: 5000)
        let broken = engine.layout(AttributedText(word), style: style, bounds: Size(40, 1e6))
        #expect(broken.lines.reduce(0) { $0 + $1.range.count } == 5000)
        #expect(broken.lines.allSatisfy { $0.width <= 40 + 1e-9 && !$0.range.isEmpty })
    }

    /// Measurement is the used size of the unconstrained (or wrapped) layout.
    @Test func measurementMatchesLayout() {
        let text: AttributedText = "Measure me, then wrap me at a width."
        let style = TextStyle(fontSize: 18, isWrapped: true)
        let free = engine.measure(text, style: style)
        #expect(abs(free.height - 18 * (Self.ascent + Self.descent)) < 1e-9)
        let wrapped = engine.measure(text, style: style, width: 120)
        let layout = engine.layout(text, style: style, bounds: Size(120, 1000))
        #expect(wrapped == layout.usedSize)
        #expect(wrapped.width <= 120 && wrapped.height > free.height * 2)
        // Wider than the text: one line, its natural width.
        #expect(engine.measure(text, style: style, width: free.width + 1) == free)
    }

    /// CATextLayer's alignments in the bounds; natural follows the paragraph's direction.
    @Test func alignmentPlacesLinesInTheBounds() {
        func line(_ s: String, _ a: TextAlignment) -> TextLine {
            engine.layout(AttributedText(s), style: TextStyle(fontSize: 20, alignment: a), bounds: Size(300, 40)).lines[0]
        }
        let left = line("Hello", .left)
        #expect(left.x == 0)
        #expect(abs(line("Hello", .right).x - (300 - left.width)) < 1e-9)
        #expect(abs(line("Hello", .center).x - (300 - left.width) / 2) < 1e-9)
        #expect(line("Hello", .natural).x == 0)
        let hebrew = line("שלום", .natural)
        #expect(hebrew.isRightToLeft && abs(hebrew.x + hebrew.width - 300) < 1e-9)
        #expect(line("שלום", .left).x == 0)
    }

    /// Styled runs: each glyph carries its run's color and size; unset attributes are the layer's.
    @Test func styledRunsCarryTheirAttributes() {
        let red = Color(1, 0, 0, 1)
        let text = AttributedText(runs: [TextRun("ab", foregroundColor: red), TextRun("cd", fontSize: 10)])
        let layout = engine.layout(text, style: TextStyle(fontSize: 30), bounds: Size(300, 60))
        #expect(layout.glyphs.map(\.color) == [red, red, Color(1, 1, 1, 1), Color(1, 1, 1, 1)])
        #expect(layout.glyphs.map(\.fontSize) == [30, 30, 10, 10])
        // The line is as tall as its largest font.
        #expect(abs(layout.lines[0].baseline - 30 * Self.ascent) < 1e-9)
    }

    /// Truncation keeps the line within the bounds and puts "…" where the mode says.
    @Test(arguments: [TextTruncation.start, .middle, .end])
    func truncationFitsAndPlacesTheEllipsis(_ mode: TextTruncation) throws {
        let s = "The quick brown fox jumps over the lazy dog"
        let layout = engine.layout(AttributedText(s), style: TextStyle(fontSize: 20, truncation: mode), bounds: Size(150, 30))
        let line = try #require(layout.lines.first)
        #expect(line.isTruncated && abs(line.width - 150) < 1e-9)
        let ellipsisFont = try #require(engine.fonts.font(forPattern: "sans-serif"))
        let glyphs = layout.glyphs[line.glyphs]
        // DejaVu Sans maps U+2026 to glyph 2825 (the reference files name it too).
        let at = try #require(glyphs.firstIndex { $0.glyph == 2825 && $0.font == ellipsisFont })
        switch mode {
        case .start: #expect(at == glyphs.startIndex)
        case .end: #expect(at == glyphs.endIndex - 1)
        default: #expect(at > glyphs.startIndex && at < glyphs.endIndex - 1)
        }
        // Not truncated when it fits.
        let wide = engine.layout(AttributedText(s), style: TextStyle(fontSize: 20, truncation: mode), bounds: Size(1000, 30))
        #expect(!wide.lines[0].isTruncated)
    }
}

/// Inputs a client may send: odd patterns, sizes, and strings lay out without trapping.
@Suite struct TextHostileInputTests {
    let engine = TextLayoutEngine()

    @Test(arguments: ["", ":", "::::=::", "no such family at all", "DejaVu Sans:weight=banana", String(repeating: "x", count: 10_000)])
    func oddPatternsFallBackToAFont(_ pattern: String) {
        let layout = engine.layout("Hello", style: TextStyle(font: pattern, fontSize: 20), bounds: Size(200, 40))
        #expect(layout.glyphs.count == 5)
    }

    @Test(arguments: [0.0, 0.001, 1e6])
    func extremeSizes(_ size: Double) {
        let layout = engine.layout("Size", style: TextStyle(fontSize: size, isWrapped: true, truncation: .end), bounds: Size(100, 100))
        #expect(layout.glyphs.allSatisfy { $0.position.x.isFinite && $0.position.y.isFinite })
        let atlas = GlyphAtlas(fonts: engine.fonts)
        _ = layout.quads(scale: 2, atlas: atlas, clip: Rect(0, 0, 100, 100))
    }

    @Test func oddStrings() {
        let strings = ["\u{0301}\u{0301}\u{0301}", "a" + String(repeating: "\u{0301}", count: 5000), "\u{200D}\u{FE0F}",
                       "\t\t\u{0000}\u{001B}", "\u{202E}reversed\u{202C} text", "\n\n\n", "\u{2029}", "🙂 emoji"]
        for s in strings {
            for wrapped in [false, true] {
                let style = TextStyle(fontSize: 14, alignment: .justified, isWrapped: wrapped, truncation: .middle)
                let layout = engine.layout(AttributedText(s), style: style, bounds: Size(30, 30))
                #expect(!layout.lines.isEmpty, "\(s.debugDescription)")
            }
        }
    }
}
