internal import CICU
internal import CHarfBuzz

/// A glyph as HarfBuzz shaped it, in points, before it has a line.
struct ShapedGlyph {
    var glyph: UInt32
    /// Paragraph-relative UTF-16 offset of its cluster's first character.
    var cluster: Int
    var advance: Double
    var xOffset: Double
    var yOffset: Double
}

/// Shapes a run of one font, size, bidi level and script with HarfBuzz. Reuses one buffer.
final class Shaper {
    private let buffer: OpaquePointer
    private var scripts: [Int32: hb_script_t] = [:]

    init() { buffer = hb_buffer_create() }
    deinit { hb_buffer_destroy(buffer) }

    /// Wraps `hb_shape`: shapes `range` of `text` (the whole paragraph is context), glyphs in
    /// visual order (right-to-left runs come out reversed), advances and offsets in points.
    func shape(_ text: [UInt16], _ range: Range<Int>, face: FontFace, size: Double,
               rightToLeft: Bool, script: Int32) -> [ShapedGlyph] {
        hb_buffer_clear_contents(buffer)
        text.withUnsafeBufferPointer { p in
            hb_buffer_add_utf16(buffer, p.baseAddress, Int32(p.count), UInt32(range.lowerBound), Int32(range.count))
        }
        hb_buffer_set_direction(buffer, rightToLeft ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, hbScript(script))
        hb_buffer_set_language(buffer, hb_language_get_default())
        hb_shape(face.hbFont, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        let scale = size / face.unitsPerEm
        var glyphs: [ShapedGlyph] = []
        glyphs.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            glyphs.append(ShapedGlyph(glyph: infos[i].codepoint, cluster: Int(infos[i].cluster),
                                      advance: Double(positions[i].x_advance) * scale,
                                      xOffset: Double(positions[i].x_offset) * scale,
                                      yOffset: Double(positions[i].y_offset) * scale))
        }
        return glyphs
    }

    private func hbScript(_ icu: Int32) -> hb_script_t {
        if let s = scripts[icu] { return s }
        let name = scriptName(icu)
        let s = name.withCString { hb_script_from_string($0, -1) }
        scripts[icu] = s
        return s
    }
}

/// ISO 15924 code of an ICU script ("Latn"); "Zyyy" (common) when ICU has none.
func scriptName(_ script: Int32) -> String {
    guard let name = lamina_script_code(script) else { return "Zyyy" }
    return String(cString: name)
}
