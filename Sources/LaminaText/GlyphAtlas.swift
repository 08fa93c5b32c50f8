internal import CFreeType

/// A glyph's identity in the atlas: font, glyph id and size bucket (the size in device
/// pixels per em, in quarter pixels), so text is rasterized anew as its layer's scale
/// changes and stays crisp.
public struct GlyphKey: Hashable, Sendable {
    public var font: FontID
    public var glyph: UInt32
    /// Device pixels per em × 4.
    public var bucket: UInt32

    public init(font: FontID, glyph: UInt32, pixelsPerEm: Double) {
        self.font = font
        self.glyph = glyph
        self.bucket = UInt32(max(1, min(4096, (pixelsPerEm * 4).rounded())))
    }

    /// The size it was rasterized at, in device pixels per em.
    public var pixelsPerEm: Double { Double(bucket) / 4 }
}

/// Integer pixel rectangle in the atlas.
public struct AtlasRect: Hashable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) { self.x = x; self.y = y; self.width = width; self.height = height }
}

/// Where a glyph's coverage lies in the atlas, and where it goes relative to the pen
/// position (device pixels, y down): its bitmap's top-left is at (left, top) from it.
public struct AtlasGlyph: Hashable, Sendable {
    public var rect: AtlasRect
    public var left: Int
    public var top: Int
}

/// Glyph coverage (A8) rasterized by FreeType (unhinted, grey antialiasing — as cairo does
/// with hinting off), packed on shelves in one image shared by every text layer and frame.
///
/// Eviction: least recently used *shelf* (a row of glyphs of similar height), never one used
/// in the current frame; when every shelf is in use the atlas grows (doubling its height up
/// to `maxHeight`), then a glyph that still does not fit is reported missing (not drawn).
/// Writes are recorded as dirty rectangles for the renderer to upload.
///
/// Not thread-safe: the render thread owns it.
public final class GlyphAtlas {
    public let width: Int
    public private(set) var height: Int
    public let maxHeight: Int
    /// Coverage, row-major, `width × height` bytes.
    public private(set) var pixels: [UInt8]
    public private(set) var stats = Stats()

    public struct Stats: Hashable, Sendable {
        public var rasterized = 0
        public var evictedShelves = 0
        public var evictedGlyphs = 0
        public var missing = 0
        public var dirtyBytes = 0
        /// Seconds spent in FreeType loading and rendering glyphs.
        public var rasterSeconds = 0.0
    }

    private struct Shelf {
        var y: Int
        var height: Int
        var x = 0
        var lastUsed: UInt64 = 0
        var keys: [GlyphKey] = []
    }

    private let fonts: FontLibrary
    private var entries: [GlyphKey: (glyph: AtlasGlyph?, shelf: Int)] = [:]
    private var shelves: [Shelf] = []
    private var frame: UInt64 = 1
    private var dirty: [AtlasRect] = []
    private static let padding = 1

    /// - Parameters: the atlas' width and starting height in pixels, and the height it may grow to.
    public init(fonts: FontLibrary, width: Int = 1024, height: Int = 512, maxHeight: Int = 4096) {
        precondition(width > 0 && height > 0 && maxHeight >= height, "atlas sizes must be positive and maxHeight ≥ height")
        self.fonts = fonts
        self.width = width
        self.height = height
        self.maxHeight = maxHeight
        self.pixels = Array(repeating: 0, count: width * height)
    }

    /// Starts a frame: glyphs looked up from now on are in use until the next call.
    public func beginFrame() { frame += 1 }

    /// Marks the shelves holding atlas rows `rows` as in use this frame, as looking their
    /// glyphs up would (a caller that kept glyphs' rectangles from an earlier frame, with no
    /// shelf evicted since: `stats.evictedShelves` unchanged). Shelves lie in rows in order.
    public func touch(rows: [Int32]) {
        for row in rows {
            // The last shelf starting at or above the row.
            var lo = 0, hi = shelves.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if shelves[mid].y <= Int(row) { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { shelves[lo - 1].lastUsed = frame }
        }
    }

    /// The rectangles written since the last call (to upload), and forgets them.
    public func takeDirtyRects() -> [AtlasRect] {
        defer { dirty.removeAll(keepingCapacity: true) }
        return dirty
    }

    /// The glyph's place in the atlas, rasterizing it first if it is not there; nil for a
    /// glyph that draws nothing (a space) or that found no room.
    public func glyph(_ key: GlyphKey) -> AtlasGlyph? {
        if let entry = entries[key] {
            if entry.shelf >= 0 { shelves[entry.shelf].lastUsed = frame }
            return entry.glyph
        }
        let clock = ContinuousClock.now
        defer {
            let d = (ContinuousClock.now - clock).components
            stats.rasterSeconds += Double(d.seconds) + Double(d.attoseconds) / 1e18
        }
        let face = fonts.face(key.font).ftFace
        guard FT_Set_Char_Size(face, 0, FT_F26Dot6(key.bucket * 16), 72, 72) == 0,
              FT_Load_Glyph(face, key.glyph, Int32(FT_LOAD_NO_HINTING) | Int32(FT_LOAD_NO_BITMAP)) == 0,
              FT_Render_Glyph(face.pointee.glyph, FT_RENDER_MODE_NORMAL) == 0,
              let slot = face.pointee.glyph else {
            entries[key] = (nil, -1)
            return nil
        }
        stats.rasterized += 1
        let bitmap = slot.pointee.bitmap
        let w = Int(bitmap.width), h = Int(bitmap.rows)
        guard w > 0, h > 0, let buffer = bitmap.buffer else {
            entries[key] = (nil, -1)
            return nil
        }
        guard let (shelf, x, y) = allocate(width: w, height: h) else {
            stats.missing += 1
            return nil
        }
        let pitch = Int(bitmap.pitch)
        for row in 0..<h {
            let src = pitch >= 0 ? row * pitch : (h - 1 - row) * -pitch
            for col in 0..<w { pixels[(y + row) * width + x + col] = buffer[src + col] }
        }
        let rect = AtlasRect(x: x, y: y, width: w, height: h)
        dirty.append(rect)
        stats.dirtyBytes += w * h
        let glyph = AtlasGlyph(rect: rect, left: Int(slot.pointee.bitmap_left), top: -Int(slot.pointee.bitmap_top))
        entries[key] = (glyph, shelf)
        shelves[shelf].keys.append(key)
        return glyph
    }

    /// A place for a w×h bitmap: on a shelf of fitting height with room, a new shelf, the
    /// least recently used shelf not in this frame, or a grown atlas.
    private func allocate(width w: Int, height h: Int) -> (Int, Int, Int)? {
        let pw = w + Self.padding, ph = h + Self.padding
        guard pw <= width else { return nil }
        var best: Int?
        for (i, s) in shelves.enumerated() where s.height >= ph && s.height <= ph + ph / 4 + 2 && s.x + pw <= width {
            if best == nil || s.height < shelves[best!].height { best = i }
        }
        if let i = best { return place(i, pw) }
        let bottom = shelves.last.map { $0.y + $0.height } ?? 0
        let shelfHeight = ph + ph / 8
        if bottom + shelfHeight <= height {
            shelves.append(Shelf(y: bottom, height: shelfHeight))
            return place(shelves.count - 1, pw)
        }
        if let i = shelves.indices.filter({ shelves[$0].height >= ph && shelves[$0].lastUsed < frame })
            .min(by: { shelves[$0].lastUsed < shelves[$1].lastUsed }) {
            evict(i)
            return place(i, pw)
        }
        if height < maxHeight {
            let grown = min(maxHeight, height * 2)
            pixels.append(contentsOf: repeatElement(0, count: (grown - height) * width))
            height = grown
            return allocate(width: w, height: h)
        }
        return nil
    }

    private func place(_ i: Int, _ pw: Int) -> (Int, Int, Int) {
        let x = shelves[i].x
        shelves[i].x += pw
        shelves[i].lastUsed = frame
        return (i, x, shelves[i].y)
    }

    private func evict(_ i: Int) {
        for key in shelves[i].keys { entries[key] = nil }
        stats.evictedShelves += 1
        stats.evictedGlyphs += shelves[i].keys.count
        shelves[i].keys.removeAll()
        shelves[i].x = 0
        let s = shelves[i]
        for row in s.y..<(s.y + s.height) {
            for col in 0..<width { pixels[row * width + col] = 0 }
        }
        dirty.append(AtlasRect(x: 0, y: s.y, width: width, height: s.height))
        stats.dirtyBytes += width * s.height
    }
}
