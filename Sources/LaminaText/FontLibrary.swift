internal import CFontconfig
internal import CFreeType

/// The fonts a fontconfig pattern stands for, best first: the first is the pattern's font,
/// the rest are its fallbacks (fontconfig's `FcFontSort` order), each with its coverage.
struct FontSet {
    struct Candidate {
        let path: String
        let index: Int
        /// Wraps the pattern's `FC_CHARSET`; owned by the library (released in its deinit).
        let charset: OpaquePointer?
    }
    let candidates: [Candidate]
}

/// Finds fonts through fontconfig, opens them once, and picks a font per character cluster
/// (the pattern's own font when it has every character, else the first fallback that does).
///
/// Not thread-safe: one library per thread (the render thread has one; a server thread that
/// measures text has its own). Faces live as long as the library.
public final class FontLibrary {
    private var ftLibrary: FT_Library
    private var config: OpaquePointer
    private var sets: [String: FontSet] = [:]
    private var faceIDs: [String: FontID] = [:]   // "path\u{0}index" → id
    private(set) var faces: [FontFace] = []
    private var charsets: [OpaquePointer] = []

    /// Opens FreeType and fontconfig's current configuration.
    public init() {
        var library: FT_Library?
        let error = FT_Init_FreeType(&library)
        precondition(error == 0 && library != nil, "FreeType failed to initialise (error \(error))")
        ftLibrary = library!
        precondition(FcInit() != 0, "fontconfig failed to initialise")
        config = FcConfigReference(nil)
    }

    deinit {
        for charset in charsets { FcCharSetDestroy(charset) }
        faces.removeAll()
        FcConfigDestroy(config)
        FT_Done_FreeType(ftLibrary)
    }

    /// The font a pattern resolves to (its primary face), or nil when fontconfig finds none.
    public func font(forPattern pattern: String) -> FontID? {
        fontSet(pattern).candidates.lazy.compactMap { self.face(path: $0.path, index: $0.index)?.id }.first
    }

    /// The family and style of a font ("DejaVu Sans", "Bold"), its file and face index.
    public func describe(_ font: FontID) -> (family: String, style: String, path: String, index: Int) {
        let face = faces[Int(font.raw)]
        return (face.familyName, face.styleName, face.path, face.index)
    }

    /// Ascent, descent (positive, below the baseline) and line gap at `size` points.
    public func metrics(_ font: FontID, size: Double) -> (ascent: Double, descent: Double, lineGap: Double) {
        let face = faces[Int(font.raw)]
        return (face.ascent * size, face.descent * size, face.lineGap * size)
    }

    func face(_ id: FontID) -> FontFace { faces[Int(id.raw)] }

    func fontSet(_ pattern: String) -> FontSet {
        if let set = sets[pattern] { return set }
        let set = sortFonts(pattern)
        sets[pattern] = set
        return set
    }

    /// The font for one character cluster: the set's first font having all of `scalars`;
    /// else the first having its first scalar; else the primary (which draws .notdef).
    func font(for scalars: ArraySlice<UInt32>, in set: FontSet) -> FontID? {
        guard let first = scalars.first else { return primary(set) }
        var firstHaving: Int?
        for (i, candidate) in set.candidates.enumerated() {
            guard let charset = candidate.charset else { continue }
            if FcCharSetHasChar(charset, first) == 0 { continue }
            if firstHaving == nil { firstHaving = i }
            if scalars.allSatisfy({ FontLibrary.isIgnorable($0) || FcCharSetHasChar(charset, $0) != 0 }) {
                if let face = face(path: candidate.path, index: candidate.index) { return face.id }
            }
        }
        if let i = firstHaving, let face = face(path: set.candidates[i].path, index: set.candidates[i].index) {
            return face.id
        }
        return primary(set)
    }

    func primary(_ set: FontSet) -> FontID? {
        set.candidates.lazy.compactMap { self.face(path: $0.path, index: $0.index)?.id }.first
    }

    /// Joiners and variation selectors never choose a font.
    static func isIgnorable(_ s: UInt32) -> Bool {
        s == 0x200C || s == 0x200D || (0xFE00...0xFE0F).contains(s) || (0xE0100...0xE01EF).contains(s)
    }

    private func face(path: String, index: Int) -> FontFace? {
        let key = path + "\u{0}" + String(index)
        if let id = faceIDs[key] { return faces[Int(id.raw)] }
        let id = FontID(raw: UInt32(faces.count))
        guard let face = FontFace(id: id, path: path, index: index, library: ftLibrary) else { return nil }
        faces.append(face)
        faceIDs[key] = id
        return face
    }

    /// Wraps `FcNameParse`, `FcConfigSubstitute`, `FcDefaultSubstitute` and `FcFontSort`.
    private func sortFonts(_ pattern: String) -> FontSet {
        let parsed = pattern.withCString { FcNameParse(UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
        guard let parsed else { return pattern == "sans-serif" ? FontSet(candidates: []) : sortFonts("sans-serif") }
        defer { FcPatternDestroy(parsed) }
        FcConfigSubstitute(config, parsed, FcMatchPattern)
        FcDefaultSubstitute(parsed)
        var result = FcResultMatch
        guard let sorted = FcFontSort(config, parsed, 1, nil, &result) else { return FontSet(candidates: []) }
        defer { FcFontSetDestroy(sorted) }
        var candidates: [FontSet.Candidate] = []
        for i in 0..<Int(sorted.pointee.nfont) {
            guard let font = sorted.pointee.fonts[i] else { continue }
            var file: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
            var index: Int32 = 0
            _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
            var charset: OpaquePointer?
            if FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) == FcResultMatch, let found = charset {
                charset = FcCharSetCopy(found)
                charsets.append(charset!)
            }
            let path = String(cString: UnsafeRawPointer(file).assumingMemoryBound(to: CChar.self))
            candidates.append(.init(path: path, index: Int(index), charset: charset))
        }
        return FontSet(candidates: candidates)
    }
}
