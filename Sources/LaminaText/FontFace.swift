internal import CFreeType
internal import CHarfBuzz

/// A font known to a `FontLibrary`: an index into its table of faces, stable for the
/// library's life.
public struct FontID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var raw: UInt32
    public init(raw: UInt32) { self.raw = raw }
    public static func < (a: FontID, b: FontID) -> Bool { a.raw < b.raw }
    public var description: String { "font#\(raw)" }
}

/// One face of one font file, opened for both shaping (a HarfBuzz font at the em's scale,
/// unhinted) and rasterization (a FreeType face). Owned by its `FontLibrary`.
final class FontFace {
    let id: FontID
    let path: String
    let index: Int
    let familyName: String
    let styleName: String
    /// Wraps `FT_New_Face`. Used by the atlas only, on the library's thread.
    let ftFace: FT_Face
    /// Wraps `hb_font_create`, scaled so that positions come out in font units.
    let hbFont: OpaquePointer
    let unitsPerEm: Double
    /// Per point of font size: ascent above and descent below the baseline (both positive),
    /// and the line gap (HarfBuzz's horizontal extents: OS/2 typo metrics where the font asks
    /// for them, else hhea — what Pango uses too).
    let ascent: Double
    let descent: Double
    let lineGap: Double

    init?(id: FontID, path: String, index: Int, library: FT_Library) {
        var face: FT_Face?
        guard FT_New_Face(library, path, FT_Long(index), &face) == 0, let face else { return nil }
        guard let blob = hb_blob_create_from_file(path) else { FT_Done_Face(face); return nil }
        let hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        guard let hbFace, let font = hb_font_create(hbFace) else { FT_Done_Face(face); return nil }
        hb_face_destroy(hbFace)
        let upem = Int32(hb_face_get_upem(hb_font_get_face(font)))
        hb_font_set_scale(font, upem, upem)
        var extents = hb_font_extents_t()
        _ = hb_font_get_h_extents(font, &extents)
        self.id = id
        self.path = path
        self.index = index
        self.ftFace = face
        self.hbFont = font
        self.unitsPerEm = Double(upem)
        self.ascent = Double(extents.ascender) / Double(upem)
        self.descent = Double(-extents.descender) / Double(upem)
        self.lineGap = Double(extents.line_gap) / Double(upem)
        self.familyName = face.pointee.family_name.map { String(cString: $0) } ?? ""
        self.styleName = face.pointee.style_name.map { String(cString: $0) } ?? ""
    }

    deinit {
        hb_font_destroy(hbFont)
        FT_Done_Face(ftFace)
    }

    /// Whether the font maps `scalar` to a glyph (HarfBuzz's cmap lookup).
    func hasGlyph(_ scalar: UInt32) -> Bool {
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(hbFont, scalar, &glyph) != 0
    }
}
