import CVulkan
import LaminaFrame
import LaminaImage

/// One small image's place in an `ImageAtlas` page: its texels at (`x`, `y`), `width` ×
/// `height`, in `page`. Placed once and never moved while resident (a ring's instances keep
/// pointing at it); freed when no item has drawn it for `ImageResidency.idleFrames` frames.
final class AtlasEntry {
    let page: AtlasPage
    let x: Int, y: Int, width: Int, height: Int
    /// The image's rect in the page's unit square (u0, v0, u1, v1): where its sources go.
    let region: SIMD4<Float>
    /// Its outermost texel centres in the page's unit square: the texture positions are
    /// clamped to them, so filtering never reads a neighbour and the edge texels extend.
    let clamp: SIMD4<Float>
    /// `ImageResidency.changes` just after it was placed: a ring written before that cannot
    /// refer to it (`FrameEncoder` checks it before keeping an image instance that only moved).
    let placed: UInt64
    /// The last frame that drew it.
    var lastUsed: UInt64 = 0
    /// Bytes of its texels in the page (RGBA8).
    var byteCount: Int { width * height * 4 }

    init(page: AtlasPage, x: Int, y: Int, width: Int, height: Int, placed: UInt64) {
        self.page = page
        self.x = x; self.y = y; self.width = width; self.height = height
        self.placed = placed
        let size = Float(page.size)
        region = SIMD4(Float(x), Float(y), Float(x + width), Float(y + height)) / size
        clamp = SIMD4(Float(x) + 0.5, Float(y) + 0.5, Float(x + width) - 0.5, Float(y + height) - 0.5) / size
    }
}

/// A square RGBA8 page of the small-image atlas (one level) and its packing.
final class AtlasPage {
    let texture: TextureImage
    let size: Int
    var packer: ShelfPacker
    /// Entries placed in it.
    var entries = 0

    init(texture: TextureImage) {
        self.texture = texture
        size = texture.width
        packer = ShelfPacker(size: texture.width)
    }
}

/// Shelf packing of a `size`² square: rows (`shelves`) of one height each, stacked from the
/// top, each with the spans of its width that are free. Freed spans rejoin their neighbours;
/// wholly free shelves at the bottom give their rows back.
struct ShelfPacker {
    let size: Int
    struct Shelf {
        var y: Int, height: Int
        /// Free spans (x, width), ascending and not touching.
        var free: [(x: Int, width: Int)]
    }
    private(set) var shelves: [Shelf] = []
    /// The first row no shelf holds.
    private(set) var top = 0

    init(size: Int) { self.size = size }

    /// Shelf heights are multiples of this (fewer shelf heights, free spans shared by more images).
    static let heightStep = 4

    /// A place for `width` × `height` texels, or nil when there is no room: the first free span
    /// that fits in the lowest shelf that fits (an empty shelf takes any height up to its own,
    /// another up to twice the image's), else a new shelf.
    mutating func allocate(width: Int, height: Int) -> (x: Int, y: Int)? {
        guard width > 0, height > 0, width <= size else { return nil }
        var best: (shelf: Int, span: Int)?
        for (s, shelf) in shelves.enumerated() where shelf.height >= height {
            let empty = shelf.free.count == 1 && shelf.free[0].width == size
            guard empty || shelf.height <= 2 * height + Self.heightStep else { continue }
            guard let span = shelf.free.firstIndex(where: { $0.width >= width }) else { continue }
            if let b = best, shelves[b.shelf].height <= shelf.height { continue }
            best = (s, span)
        }
        if let (s, span) = best {
            let x = shelves[s].free[span].x
            shelves[s].free[span].x += width
            shelves[s].free[span].width -= width
            if shelves[s].free[span].width == 0 { shelves[s].free.remove(at: span) }
            return (x, shelves[s].y)
        }
        let rows = (height + Self.heightStep - 1) / Self.heightStep * Self.heightStep
        guard top + rows <= size else { return nil }
        shelves.append(Shelf(y: top, height: rows, free: width < size ? [(width, size - width)] : []))
        top += rows
        return (0, top - rows)
    }

    /// Gives back the `width` texels at (`x`, `y`) that `allocate` gave.
    mutating func free(x: Int, y: Int, width: Int) {
        guard let s = shelves.firstIndex(where: { $0.y == y }) else { return }
        var spans = shelves[s].free
        let at = spans.firstIndex(where: { $0.x > x }) ?? spans.count
        spans.insert((x, width), at: at)
        // Merge with the following span, then the previous one, where they touch.
        if at + 1 < spans.count, spans[at].x + spans[at].width == spans[at + 1].x {
            spans[at].width += spans[at + 1].width
            spans.remove(at: at + 1)
        }
        if at > 0, spans[at - 1].x + spans[at - 1].width == spans[at].x {
            spans[at - 1].width += spans[at].width
            spans.remove(at: at)
        }
        shelves[s].free = spans
        while let last = shelves.last, last.free.count == 1, last.free[0].width == size {
            top = last.y
            shelves.removeLast()
        }
    }
}

/// The small-image atlas (issue 30 item 1): images up to `maxSide` texels a side that are
/// drawn with level 0 alone (linear or nearest, the same filter both ways) are packed into
/// shared `pageSize`² RGBA8 pages, so that consecutive items showing different small images
/// draw with one descriptor set — one instanced draw — instead of one draw per image (on
/// lavapipe each draw break cost the queue thread about 8 µs; performance.md, "The textured
/// path"). Sampling stays exact: an item's instances are moved into the page
/// (`RectInstance.placeInAtlas`) with their texture position clamped to the entry's outermost
/// texel centres, which for level 0 with linear or nearest filtering reads exactly what
/// `CLAMP_TO_EDGE` on an image of its own reads, and never a neighbour's texel, so entries need
/// no gutter. Trilinear images (mip levels) and larger ones keep textures of their own.
/// Entries are freed when no item has drawn them for `ImageResidency.idleFrames` frames; their
/// space is reused, and a page left empty is freed. Entries are never moved (no compaction).
/// Render thread only; owned by `ImageResidency`.
final class ImageAtlas {
    /// The largest side, in texels, of an image placed in the atlas.
    static let maxSide = 256
    /// A page's side, in texels.
    static let pageSize = 1024

    private(set) var pages: [AtlasPage] = []
    private(set) var entries: [UInt64: AtlasEntry] = [:]
    /// Bytes of the entries' texels.
    private(set) var entryBytes = 0

    /// Whether `draw` is drawn from the atlas: a still image (not a surface's) of at most
    /// `limit` texels a side, with the same filter for minification and magnification and no
    /// mip levels, in color or coverage mode.
    static func accepts(_ draw: ImageDraw, limit: Int) -> Bool {
        let image = draw.image
        guard image.surface == nil, image.width <= limit, image.height <= limit,
              draw.minification != .trilinear, draw.minification == draw.magnification else { return false }
        switch draw.mode {
        case .color, .coverage: return true
        case .shape, .glyphs, .maskedGradient: return false
        }
    }

    func entry(_ id: UInt64) -> AtlasEntry? { entries[id] }

    /// Places `image` (not yet in the atlas): in the first page with room, else a new page
    /// (`makePage`). Returns the entry.
    func place(_ image: Image, placed: UInt64, makePage: () throws(RenderError) -> AtlasPage) throws(RenderError)
        -> AtlasEntry {
        for page in pages {
            if let (x, y) = page.packer.allocate(width: image.width, height: image.height) {
                return add(image, page: page, x: x, y: y, placed: placed)
            }
        }
        let page = try makePage()
        pages.append(page)
        guard let (x, y) = page.packer.allocate(width: image.width, height: image.height) else {
            preconditionFailure("an image of at most maxSide fits an empty page")
        }
        return add(image, page: page, x: x, y: y, placed: placed)
    }

    private func add(_ image: Image, page: AtlasPage, x: Int, y: Int, placed: UInt64) -> AtlasEntry {
        let entry = AtlasEntry(page: page, x: x, y: y, width: image.width, height: image.height, placed: placed)
        page.entries += 1
        entries[image.id] = entry
        entryBytes += entry.byteCount
        return entry
    }

    /// Frees the entries no item has drawn since `before` (their space reused by later
    /// placements) and returns the pages left empty (removed here; the caller retires their
    /// textures once the frames that read them have finished). Returns whether anything went.
    func forget(usedBefore before: UInt64, emptied: (AtlasPage) -> Void) -> Bool {
        var any = false
        for (id, entry) in entries where entry.lastUsed < before {
            entries[id] = nil
            entryBytes -= entry.byteCount
            entry.page.packer.free(x: entry.x, y: entry.y, width: entry.width)
            entry.page.entries -= 1
            any = true
        }
        guard any else { return false }
        pages.removeAll { page in
            guard page.entries == 0 else { return false }
            emptied(page)
            return true
        }
        return true
    }

    /// The staging bytes of `image` for its entry: RGBA8 rows, an A8 image's coverage repeated in
    /// all four channels (what the swizzled view of an image of its own reads).
    static func rgba(_ image: Image) -> [UInt8] {
        guard image.format == .a8 else { return image.pixels }
        var bytes = [UInt8](repeating: 0, count: image.width * image.height * 4)
        image.pixels.withUnsafeBytes { source in
            for (k, a) in source.enumerated() {
                bytes[4 * k] = a; bytes[4 * k + 1] = a; bytes[4 * k + 2] = a; bytes[4 * k + 3] = a
            }
        }
        return bytes
    }

    /// Every page (for `ImageResidency.destroy`), forgetting them.
    func removeAll() -> [AtlasPage] {
        let all = pages
        pages.removeAll()
        entries.removeAll()
        entryBytes = 0
        return all
    }
}
