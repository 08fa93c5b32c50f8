internal import CICU
import LaminaGeometry

/// Lays text out as CATextLayer does, with HarfBuzz shaping, ICU bidi and line breaking and
/// fontconfig fallback; measures it for clients.
///
/// The rule: paragraphs split at mandatory breaks; each is analysed (bidi, script, a font per
/// cluster), shaped in items, broken greedily at UAX #14 opportunities (a word wider than
/// the line breaks between graphemes), each line reshaped where a break cut an item and
/// reordered visually (UAX #9 L2). Trailing spaces of a wrapped line take no width. Lines
/// stack from the bounds' top: the first baseline is the first line's ascent below minY;
/// each next one is the previous descent plus its own ascent lower, a line's ascent and
/// descent being the largest of its fonts' (their sum is the font's line height; the
/// line gap is not added, as Pango does not).
///
/// Not thread-safe: one engine per thread. Which thread: any, but always the same.
public final class TextLayoutEngine {
    public let fonts: FontLibrary
    let shaper = Shaper()

    public init(fonts: FontLibrary = FontLibrary()) { self.fonts = fonts }

    /// Lays `text` out in a box of `bounds` (points; `bounds.width` is where lines wrap,
    /// truncate and align; `bounds.height` where wrapped text truncates).
    public func layout(_ text: AttributedText, style: TextStyle, bounds: Size) -> TextLayout {
        layout(text, style: style, width: bounds.width, height: bounds.height, alignWidth: bounds.width)
    }

    /// The size `text` needs: its lines' widest width and total height, wrapped at `width`
    /// when `style.isWrapped` and a width is given (nil: unconstrained).
    public func measure(_ text: AttributedText, style: TextStyle, width: Double? = nil) -> Size {
        var style = style
        if width == nil { style.isWrapped = false }
        style.truncation = .none
        return layout(text, style: style, width: width ?? .infinity, height: .infinity, alignWidth: 0).usedSize
    }

    private func layout(_ text: AttributedText, style: TextStyle, width: Double, height: Double,
                        alignWidth: Double) -> TextLayout {
        let (units, spans) = flatten(text, style: style)
        var result = TextLayout.empty
        var lines: [PendingLine] = []
        var paragraphs: [(Paragraph, lines: [Range<Int>])] = []
        for (range, para) in splitParagraphs(units, spans: spans) {
            let p = Paragraph(text: Array(units[range]), base: range.lowerBound, spans: para,
                              fonts: fonts, shaper: shaper)
            let ranges = style.isWrapped ? breakLines(p, width: width) : [0..<p.text.count]
            paragraphs.append((p, ranges))
        }
        var y = 0.0
        outer: for (pi, (p, ranges)) in paragraphs.enumerated() {
            for (li, range) in ranges.enumerated() {
                let lastInParagraph = li == ranges.count - 1
                var line = assemble(p, range, wrapped: !lastInParagraph)
                if style.truncation != .none && !style.isWrapped && line.width > width + 1e-9 {
                    line = truncate(p, range, width: width, mode: style.truncation)
                }
                let bottom = y + line.ascent + line.descent
                let more = !lastInParagraph || pi < paragraphs.count - 1
                if style.truncation != .none && style.isWrapped && more,
                   bottom + nextLineHeight(paragraphs, pi, li) > height + 1e-9 {
                    // The last line that fits stands for the rest of its paragraph.
                    let rest = range.lowerBound..<p.text.count
                    let full = assemble(p, rest, wrapped: false)
                    line = full.width > width + 1e-9 ? truncate(p, rest, width: width, mode: style.truncation) : full
                    line.isTruncated = true
                    append(&lines, line, &y, p)
                    break outer
                }
                line.isLastInParagraph = lastInParagraph
                append(&lines, line, &y, p)
            }
        }
        var usedWidth = 0.0
        for line in lines { usedWidth = max(usedWidth, line.width) }
        let boxWidth = alignWidth > 0 ? alignWidth : usedWidth
        for var line in lines {
            if style.alignment == .justified && !line.isLastInParagraph && !line.isTruncated {
                line.justify(to: boxWidth)
            }
            let natural: TextAlignment = line.isRightToLeft ? .right : .left
            let alignment = style.alignment == .natural || style.alignment == .justified ? natural : style.alignment
            let x: Double
            switch alignment {
            case .right: x = boxWidth - line.width
            case .center: x = (boxWidth - line.width) / 2
            default: x = 0
            }
            let first = result.glyphs.count
            var pen = x
            for g in line.glyphs {
                result.glyphs.append(PositionedGlyph(font: g.font, glyph: g.glyph,
                                                     position: Point(pen + g.xOffset, line.baseline - g.yOffset),
                                                     fontSize: g.size, color: g.color, cluster: g.cluster))
                pen += g.advance
            }
            result.lines.append(TextLine(range: line.range, baseline: line.baseline, ascent: line.ascent,
                                         descent: line.descent, x: x, width: line.width,
                                         glyphs: first..<result.glyphs.count, isTruncated: line.isTruncated,
                                         isRightToLeft: line.isRightToLeft))
        }
        result.usedSize = Size(usedWidth, y)
        return result
    }

    private func append(_ lines: inout [PendingLine], _ line: PendingLine, _ y: inout Double, _ p: Paragraph) {
        var line = line
        line.baseline = y + line.ascent
        y += line.ascent + line.descent
        lines.append(line)
    }

    /// The height of the line after line `li` of paragraph `pi` (estimated from its first
    /// item's font), used only to decide where wrapped text truncates.
    private func nextLineHeight(_ paragraphs: [(Paragraph, lines: [Range<Int>])], _ pi: Int, _ li: Int) -> Double {
        let (p, ranges) = paragraphs[pi]
        if li + 1 < ranges.count {
            let line = assemble(p, ranges[li + 1], wrapped: false)
            return line.ascent + line.descent
        }
        guard pi + 1 < paragraphs.count else { return 0 }
        let (q, next) = paragraphs[pi + 1]
        let line = assemble(q, next.first ?? 0..<0, wrapped: false)
        return line.ascent + line.descent
    }

    /// The string as UTF-16 and its spans (a run's attributes over the style's).
    private func flatten(_ text: AttributedText, style: TextStyle) -> ([UInt16], [Span]) {
        var units: [UInt16] = []
        var spans: [Span] = []
        for run in text.runs {
            let start = units.count
            units.append(contentsOf: run.text.utf16)
            guard units.count > start else { continue }
            spans.append(Span(range: start..<units.count, font: run.font ?? style.font,
                              fontSize: run.fontSize ?? style.fontSize, color: run.foregroundColor ?? style.foregroundColor))
        }
        if spans.isEmpty {
            spans = [Span(range: 0..<0, font: style.font, fontSize: style.fontSize, color: style.foregroundColor)]
        }
        return (units, spans)
    }

    /// Paragraph ranges (separators excluded) with their spans made paragraph-relative.
    private func splitParagraphs(_ units: [UInt16], spans: [Span]) -> [(Range<Int>, [Span])] {
        var result: [(Range<Int>, [Span])] = []
        var start = 0
        var i = 0
        func close(_ end: Int) {
            var local = spans.compactMap { s -> Span? in
                let r = max(s.range.lowerBound, start)..<min(s.range.upperBound, end)
                guard !r.isEmpty else { return nil }
                var t = s
                t.range = (r.lowerBound - start)..<(r.upperBound - start)
                return t
            }
            if local.isEmpty {
                var s = spans.last { $0.range.lowerBound <= start } ?? spans[0]
                s.range = 0..<0
                local = [s]
            }
            result.append((start..<end, local))
        }
        while i < units.count {
            let u = units[i]
            if u == 0x0A || u == 0x0D || u == 0x2028 || u == 0x2029 || u == 0x85 || u == 0x0B || u == 0x0C {
                close(i)
                i += (u == 0x0D && i + 1 < units.count && units[i + 1] == 0x0A) ? 2 : 1
                start = i
            } else {
                i += 1
            }
        }
        close(units.count)
        return result
    }

    /// Greedy breaking at UAX #14 opportunities; trailing spaces hang; a word wider than the
    /// line alone breaks between grapheme clusters.
    func breakLines(_ p: Paragraph, width: Double) -> [Range<Int>] {
        let n = p.text.count
        guard n > 0 else { return [0..<0] }
        var lines: [Range<Int>] = []
        var start = 0
        var b = 0   // the first break after `start`
        var g = 0   // the first grapheme boundary after `start`
        while start < n {
            while b < p.breaks.count && p.breaks[b] <= start { b += 1 }
            var best: Int?
            var i = b
            while i < p.breaks.count {
                var end = p.breaks[i]
                while end > start, Paragraph.isSpace(p.text[end - 1]) { end -= 1 }
                guard p.width(start..<end) <= width + 1e-9 else { break }
                best = i
                i += 1
            }
            if let best {
                lines.append(start..<p.breaks[best])
                start = p.breaks[best]
                continue
            }
            let wordEnd = b < p.breaks.count ? p.breaks[b] : n
            while g < p.graphemes.count && p.graphemes[g] <= start { g += 1 }
            var cut = g < p.graphemes.count ? p.graphemes[g] : n
            var j = g
            while j < p.graphemes.count && p.graphemes[j] < wordEnd && p.width(start..<p.graphemes[j]) <= width + 1e-9 {
                cut = p.graphemes[j]
                j += 1
            }
            lines.append(start..<cut)
            start = cut
        }
        return lines
    }
}
