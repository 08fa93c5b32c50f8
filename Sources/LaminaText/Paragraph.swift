internal import CICU
import LaminaGeometry

/// The attributes of one stretch of a paragraph (from a `TextRun` over the layer's style).
struct Span {
    var range: Range<Int>          // paragraph-relative UTF-16 offsets
    var font: String
    var fontSize: Double
    var color: Color
}

/// A run of one font, size, bidi level and script: the unit HarfBuzz shapes.
struct Item {
    var range: Range<Int>
    var font: FontID
    var size: Double
    var level: UInt8
    var script: Int32
    var glyphs: [ShapedGlyph]
    var rightToLeft: Bool { level & 1 == 1 }
}

/// One paragraph analysed: bidi levels (UAX #9, ICU), scripts, a font per character
/// cluster, items shaped whole, break opportunities (UAX #14, ICU) and the advance each
/// UTF-16 offset carries (the sum of its cluster's glyphs), for measuring line candidates.
final class Paragraph {
    let text: [UInt16]
    /// Offset of the paragraph in the whole string.
    let base: Int
    let spans: [Span]
    /// Wraps a `UBiDi` holding the paragraph (lines are set from it); nil if ICU failed
    /// (then everything is left to right).
    let bidi: UnsafeMutableRawPointer?
    private let bidiText: UnsafeMutableBufferPointer<UInt16>   // ICU keeps a pointer to it
    let isRightToLeft: Bool
    private(set) var items: [Item] = []
    /// `offsetX[i]`: the sum of the advances of offsets before `i` (`text.count + 1` entries).
    private(set) var offsetX: [Double]
    /// Break opportunities after offsets, ascending; the last is `text.count`.
    private(set) var breaks: [Int] = []
    /// Grapheme cluster boundaries, ascending, from 0 to `text.count`.
    private(set) var graphemes: [Int] = []

    init(text: [UInt16], base: Int, spans: [Span], fonts: FontLibrary, shaper: Shaper) {
        self.text = text
        self.base = base
        self.spans = spans
        self.offsetX = Array(repeating: 0, count: text.count + 1)
        bidiText = .allocate(capacity: max(1, text.count))
        _ = bidiText.initialize(from: text)
        bidi = lamina_bidi_open(bidiText.baseAddress, Int32(text.count))
        isRightToLeft = bidi.map { lamina_bidi_is_rtl($0) != 0 } ?? false
        graphemes = Paragraph.boundaries(text, line: false).map(\.offset)
        breaks = Paragraph.boundaries(text, line: true).map(\.offset).filter { $0 > 0 }
        if breaks.last != text.count { breaks.append(text.count) }
        itemize(fonts: fonts, shaper: shaper)
    }

    deinit {
        lamina_bidi_close(bidi)
        bidiText.deallocate()
    }

    func level(at offset: Int) -> UInt8 { bidi.map { lamina_bidi_level_at($0, Int32(offset)) } ?? 0 }

    func span(at offset: Int) -> Span {
        spans.last { $0.range.lowerBound <= offset } ?? spans[0]
    }

    /// Sum of the advances of `range` (whole clusters).
    func width(_ range: Range<Int>) -> Double { offsetX[range.upperBound] - offsetX[range.lowerBound] }

    /// Breaks (line or grapheme) found by an ICU break iterator.
    static func boundaries(_ text: [UInt16], line: Bool) -> [(offset: Int, hard: Bool)] {
        var result: [(Int, Bool)] = []
        var out = [Int32](repeating: 0, count: text.count + 1)
        var hard = [UInt8](repeating: 0, count: text.count + 1)
        let count = text.withUnsafeBufferPointer { p in
            lamina_breaks(p.baseAddress, Int32(p.count), line ? 1 : 0, &out, &hard)
        }
        for i in 0..<max(0, Int(count)) { result.append((Int(out[i]), hard[i] != 0)) }
        if result.isEmpty || result.last!.0 != text.count { result.append((text.count, false)) }
        return result
    }

    /// Whitespace that hangs at the end of a line and that justification stretches.
    static func isSpace(_ u: UInt16) -> Bool {
        u == 0x20 || u == 0x09 || u == 0x3000 || u == 0x1680 || (0x2000...0x200A).contains(u) && u != 0x2007 || u == 0x205F
    }

    /// No glyph of its own worth choosing a font for: spaces, controls, format characters.
    static func keepsFont(_ s: UInt32) -> Bool {
        s <= 0x20 || (0x7F...0xA0).contains(s) || Paragraph.isSpace(UInt16(truncatingIfNeeded: s)) && s < 0x10000
            || (0x200B...0x200F).contains(s) || (0x2028...0x202F).contains(s) || (0x2060...0x206F).contains(s)
            || s == 0xFEFF || FontLibrary.isIgnorable(s)
    }

    private func scalar(at i: Int) -> (UInt32, Int) {
        let u = text[i]
        if UTF16.isLeadSurrogate(u), i + 1 < text.count, UTF16.isTrailSurrogate(text[i + 1]) {
            return (0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(text[i + 1]) - 0xDC00), 2)
        }
        return (UInt32(u), 1)
    }

    private func itemize(fonts: FontLibrary, shaper: Shaper) {
        let n = text.count
        guard n > 0 else { return }
        // Scripts per offset; common and inherited characters take their neighbours'.
        var scripts = [Int32](repeating: -1, count: n)
        var i = 0
        var last: Int32 = -1
        while i < n {
            let (s, len) = scalar(at: i)
            var script = lamina_script(s)
            if script <= 1 { script = last }
            for k in i..<(i + len) { scripts[k] = script }
            if script >= 0 { last = script }
            i += len
        }
        let firstScript = scripts.first { $0 >= 0 } ?? 0
        for k in 0..<n where scripts[k] < 0 { scripts[k] = firstScript }
        // Fonts per grapheme cluster, within each span's font set.
        var fontAt = [FontID?](repeating: nil, count: n)
        for c in 0..<(graphemes.count - 1) {
            let r = graphemes[c]..<graphemes[c + 1]
            var scalars: [UInt32] = []
            var k = r.lowerBound
            while k < r.upperBound { let (s, len) = scalar(at: k); scalars.append(s); k += len }
            if let first = scalars.first, Paragraph.keepsFont(first) { continue }
            let set = fonts.fontSet(span(at: r.lowerBound).font)
            let font = fonts.font(for: scalars[...], in: set)
            for k in r { fontAt[k] = font }
        }
        // Clusters that keep a font take the previous one in their span, else the next.
        for span in spans {
            var previous: FontID?
            for k in span.range where fontAt[k] != nil { previous = fontAt[k]; break }
            if previous == nil { previous = fonts.primary(fonts.fontSet(span.font)) }
            for k in span.range {
                if let f = fontAt[k] { previous = f } else { fontAt[k] = previous }
            }
        }
        // Items: maximal stretches of one font, size, level and script.
        var start = 0
        for k in 1...n {
            let split = k == n || fontAt[k] != fontAt[start] || scripts[k] != scripts[start]
                || level(at: k) != level(at: start)
                || span(at: k).fontSize != span(at: start).fontSize
            guard split, !(k < n && UTF16.isTrailSurrogate(text[k])) else { continue }
            if let font = fontAt[start] {
                var item = Item(range: start..<k, font: font, size: span(at: start).fontSize,
                                level: level(at: start), script: scripts[start], glyphs: [])
                item.glyphs = shaper.shape(text, item.range, face: fonts.face(font), size: item.size,
                                           rightToLeft: item.rightToLeft, script: item.script)
                for g in item.glyphs { offsetX[g.cluster + 1] += g.advance }
                items.append(item)
            }
            start = k
        }
        for i in 0..<n { offsetX[i + 1] += offsetX[i] }
    }
}
