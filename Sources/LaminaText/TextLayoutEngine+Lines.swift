internal import CICU
import LaminaGeometry

/// A glyph on a line before alignment: advance and offsets in points.
struct LineGlyph {
    var font: FontID
    var glyph: UInt32
    var advance: Double
    var xOffset: Double
    var yOffset: Double
    var size: Double
    var color: Color
    /// Whole-string UTF-16 offset.
    var cluster: Int
    var isExpandableSpace: Bool
}

/// A line in visual order, not yet aligned or placed.
struct PendingLine {
    var range: Range<Int>
    var glyphs: [LineGlyph] = []
    var ascent = 0.0
    var descent = 0.0
    var width = 0.0
    var baseline = 0.0
    var isRightToLeft = false
    var isTruncated = false
    var isLastInParagraph = true

    /// Stretches the line to `width` at its spaces (none: left as it is).
    mutating func justify(to target: Double) {
        let spaces = glyphs.indices.filter { glyphs[$0].isExpandableSpace }
        guard !spaces.isEmpty, target > width else { return }
        let extra = (target - width) / Double(spaces.count)
        for i in spaces { glyphs[i].advance += extra }
        width = target
    }
}

extension TextLayoutEngine {
    /// The glyphs of `range` (paragraph-relative) in visual order; items cut by the range are
    /// reshaped; `wrapped` lines hang their trailing spaces (zero width).
    func assemble(_ p: Paragraph, _ range: Range<Int>, wrapped: Bool) -> PendingLine {
        var line = PendingLine(range: (p.base + range.lowerBound)..<(p.base + range.upperBound))
        line.isRightToLeft = p.isRightToLeft
        var hangFrom = range.upperBound
        if wrapped { while hangFrom > range.lowerBound, Paragraph.isSpace(p.text[hangFrom - 1]) { hangFrom -= 1 } }
        // Pieces of items, logical order.
        var pieces: [(item: Item, glyphs: [ShapedGlyph])] = []
        for item in p.items where item.range.overlaps(range) {
            let r = max(item.range.lowerBound, range.lowerBound)..<min(item.range.upperBound, range.upperBound)
            let glyphs = r == item.range ? item.glyphs
                : shaper.shape(p.text, r, face: fonts.face(item.font), size: item.size,
                               rightToLeft: item.rightToLeft, script: item.script)
            pieces.append((item, glyphs))
            let face = fonts.face(item.font)
            line.ascent = max(line.ascent, face.ascent * item.size)
            line.descent = max(line.descent, face.descent * item.size)
        }
        if pieces.isEmpty {
            let span = p.span(at: range.lowerBound)
            if let font = fonts.primary(fonts.fontSet(span.font)) {
                let face = fonts.face(font)
                line.ascent = face.ascent * span.fontSize
                line.descent = face.descent * span.fontSize
            }
            return line
        }
        // Visual runs (UAX #9 L1–L2 through ICU).
        var runs: [(Range<Int>, Bool)] = []
        if let bidi = p.bidi, let lineBidi = lamina_bidi_line(bidi, Int32(range.lowerBound), Int32(range.upperBound)) {
            defer { lamina_bidi_close(lineBidi) }
            for i in 0..<lamina_bidi_run_count(lineBidi) {
                var start: Int32 = 0, length: Int32 = 0
                let rtl = lamina_bidi_visual_run(lineBidi, i, &start, &length) != 0
                let s = range.lowerBound + Int(start)
                runs.append((s..<(s + Int(length)), rtl))
            }
        } else {
            runs = [(range, false)]
        }
        for (run, rtl) in runs {
            let order = rtl ? Array(pieces.indices.reversed()) : Array(pieces.indices)
            for i in order where pieces[i].item.range.overlaps(run) {
                var selected = pieces[i].glyphs.filter { run.contains($0.cluster) }
                if pieces[i].item.rightToLeft != rtl { selected.reverse() }
                let item = pieces[i].item
                for g in selected where g.cluster < hangFrom {   // hanging spaces draw nothing
                    let cluster = p.base + g.cluster
                    line.glyphs.append(LineGlyph(font: item.font, glyph: g.glyph, advance: g.advance,
                                                 xOffset: g.xOffset, yOffset: g.yOffset, size: item.size,
                                                 color: p.span(at: g.cluster).color, cluster: cluster,
                                                 isExpandableSpace: p.text[g.cluster] == 0x20))
                    line.width += g.advance
                }
            }
        }
        return line
    }

    /// `range` of `p` as one line no wider than `width`, "…" standing for the clusters
    /// removed at its start, middle or end (Pango's rule: the gap grows one grapheme at a time
    /// from the start, the end, or the middle of the line's width, on the side that keeps it
    /// centred, until the rest and the ellipsis fit). The ellipsis is shaped alone and its
    /// advance takes the slack, so a truncated line is exactly `width` wide.
    func truncate(_ p: Paragraph, _ range: Range<Int>, width: Double, mode: TextTruncation) -> PendingLine {
        var bounds = [range.lowerBound]
        bounds += p.graphemes.filter { $0 > range.lowerBound && $0 < range.upperBound }
        bounds.append(range.upperBound)
        var x = [0.0]
        for c in 0..<(bounds.count - 1) { x.append(x[c] + p.width(bounds[c]..<bounds[c + 1])) }
        let total = x.last!
        let count = bounds.count - 1
        guard count > 0 else { return assemble(p, range, wrapped: false) }
        let center: Double = mode == .start ? 0 : mode == .end ? total : total / 2
        var first = count - 1
        for c in 0..<count where x[c + 1] > center { first = c; break }
        if mode == .start { first = 0 }
        var lo = first, hi = first + 1          // the gap: clusters lo..<hi
        var ellipsisWidths: [Int: Double] = [:]   // by the span the gap starts in
        func fits() -> Bool {
            let span = p.spans.lastIndex { $0.range.lowerBound <= bounds[lo] } ?? 0
            let e = ellipsisWidths[span] ?? ellipsisWidth(p, at: bounds[lo])
            ellipsisWidths[span] = e
            return total - (x[hi] - x[lo]) + e <= width + 1e-9
        }
        while !fits() {
            let canLeft = lo > 0, canRight = hi < count
            guard canLeft || canRight else { break }
            if !canRight || (canLeft && center - x[lo - 1] < x[hi + 1] - center) { lo -= 1 } else { hi += 1 }
        }
        let gapStart = p.base + bounds[lo], gapEnd = p.base + bounds[hi]
        // The line as shaped, less the gap's glyphs (kept glyphs keep their advances, as
        // Pango keeps them), with the ellipsis shaped alone where the gap's first glyph was.
        var line = assemble(p, range, wrapped: false)
        let gap = gapStart..<gapEnd
        let at = line.glyphs.firstIndex { gap.contains($0.cluster) } ?? line.glyphs.count
        let before = line.glyphs[..<at].filter { !gap.contains($0.cluster) }
        let after = line.glyphs[at...].filter { !gap.contains($0.cluster) }
        let span = p.span(at: min(bounds[lo], max(0, p.text.count - 1)))
        var ellipsis: [LineGlyph] = []
        if let font = fonts.font(for: [0x2026][...], in: fonts.fontSet(span.font)) {
            let face = fonts.face(font)
            line.ascent = max(line.ascent, face.ascent * span.fontSize)
            line.descent = max(line.descent, face.descent * span.fontSize)
            ellipsis = shaper.shape([0x2026], 0..<1, face: face, size: span.fontSize, rightToLeft: false, script: 0).map {
                LineGlyph(font: font, glyph: $0.glyph, advance: $0.advance, xOffset: $0.xOffset, yOffset: $0.yOffset,
                          size: span.fontSize, color: span.color, cluster: gapStart, isExpandableSpace: false)
            }
        }
        line.glyphs = before + ellipsis + after
        line.width = line.glyphs.reduce(0) { $0 + $1.advance }
        // The ellipsis takes the slack, so the line is exactly `width` wide (Pango's rule).
        if line.width < width, !ellipsis.isEmpty {
            line.glyphs[before.count + ellipsis.count - 1].advance += width - line.width
            line.width = width
        }
        line.isTruncated = true
        return line
    }

    /// The width of "…" in the font and size at `offset`.
    func ellipsisWidth(_ p: Paragraph, at offset: Int) -> Double {
        let span = p.span(at: min(offset, max(0, p.text.count - 1)))
        guard let font = fonts.font(for: [0x2026][...], in: fonts.fontSet(span.font)) else { return 0 }
        return shaper.shape([0x2026], 0..<1, face: fonts.face(font), size: span.fontSize, rightToLeft: false, script: 0)
            .reduce(0) { $0 + $1.advance }
    }
}
