import Synchronization
import LaminaGeometry
import LaminaImage
import LaminaModel

/// Where a rasterized subtree lies in the raster atlas (`DrawItem.Kind.raster`): atlas page
/// `page` (`DrawList.rasterAtlas.pages[page]`), the pixels `region` of it (cleared and drawn
/// whole when the subtree is drawn), the content `version` (distinct for every content any
/// builder ever put in a region: a backend that holds `version` in `region` of the page need
/// not draw it again) and the `count` items of the subtree that follow the marker.
public struct RasterDraw: Sendable, Hashable {
    public var page: Int
    public var region: PixelRect
    public var version: UInt64
    public var count: Int

    public init(page: Int, region: PixelRect, version: UInt64, count: Int) {
        self.page = page; self.region = region; self.version = version; self.count = count
    }

    private static let counter = Atomic<UInt64>(0)
    /// A version never handed out before in this process.
    static func nextVersion() -> UInt64 { counter.add(1, ordering: .relaxed).newValue }
}

/// The raster atlas a draw list's `.raster` items draw into and composite from: `pages`
/// images of `width` × `height` pixels (the target's size, so that the offscreen images of
/// groups inside a rasterized subtree line up with the page). Each page is named by a
/// placeholder `Image` (1 × 1, never drawn itself): the composite items draw
/// `ImageDraw.image` = that placeholder, and the backend draws its page in its place.
public struct RasterAtlasState: Sendable {
    public var pages: [Image]
    public var width: Int
    public var height: Int
}

/// Bounds on the raster atlas.
public enum RasterCacheLimits {
    /// Atlas pages at most (besides `RasterCache.budgetBytes`).
    public static let maxPages = 16
}

/// What the raster cache did in a frame (`DrawList.rasterStats`): layers composited from an
/// entry drawn before (`hits`), layers whose entry was drawn this frame (`misses`: new,
/// changed, or at a new scale bucket), layers drawn directly because the atlas had no room
/// (`uncached`), live entries and the atlas' bytes (pages × width × height × 4).
public struct RasterStats: Sendable, Hashable {
    public var hits = 0
    public var misses = 0
    public var uncached = 0
    public var entries = 0
    public var bytes = 0
    public init() {}
}

/// The raster cache of `DrawListBuilder` (CALayer.shouldRasterize): per rasterized layer an
/// entry — a region of an atlas page, the subtree's items as last drawn there and their
/// version. The builder draws the subtree in the region's pixels each frame and compares the
/// items with the entry's: equal, the version stays (the backend composites what it holds);
/// else a new version (the backend draws the region again). Entries not drawn in a frame are
/// evicted at its end (as Flutter's raster cache sweeps); pages are the target's size, at
/// most `budgetBytes` of them, packed in shelves; a subtree that finds no room is drawn
/// directly (`RasterStats.uncached`).
struct RasterCache {
    /// A layer's entry: the layer and which of its draws this frame (a replicator draws a
    /// layer once per instance).
    struct Key: Hashable { var layer: LayerID; var occurrence: Int }

    struct Entry {
        var page: Int
        var shelf: Int
        var region: PixelRect
        var version: UInt64
        /// The subtree's items and clips as drawn in the region, clip indices relative to the
        /// subtree's first clip.
        var items: [DrawItem]
        var clips: [Clip]
        var frame: UInt64
    }

    struct Shelf {
        var y: Int, height: Int, x: Int
        /// Freed slots (evicted entries) of the shelf, reused first.
        var free: [(x: Int, width: Int)] = []
    }

    struct Page {
        var image: Image
        var shelves: [Shelf] = []
        var top = 0
        var live = 0
    }

    /// Bytes of atlas pages at most (64 MiB: 17 pages of 1280 × 720).
    static let budgetBytes = 64 << 20
    private(set) var entries: [Key: Entry] = [:]
    private(set) var pages: [Page] = []
    private(set) var width = 0
    private(set) var height = 0
    private var frame: UInt64 = 0
    private var occurrences: [LayerID: Int] = [:]
    var stats = RasterStats()

    /// Starts a frame on a `width` × `height` target (a new size empties the cache).
    mutating func beginFrame(_ frame: UInt64, width: Int, height: Int) {
        if width != self.width || height != self.height {
            entries.removeAll()
            pages.removeAll()
            self.width = width
            self.height = height
        }
        self.frame = frame
        occurrences.removeAll(keepingCapacity: true)
        stats = RasterStats()
    }

    /// Ends the frame: entries not drawn in it are evicted (and every page once none is left).
    /// Returns the atlas for the list (nil when no page exists).
    mutating func endFrame() -> RasterAtlasState? {
        var evicted: [Key] = []
        for (key, entry) in entries where entry.frame != frame { evicted.append(key) }
        for key in evicted { free(entries.removeValue(forKey: key)!) }
        // No rasterized layer left: the pages go too (the backend frees them once unnamed).
        if entries.isEmpty { pages.removeAll() }
        stats.entries = entries.count
        stats.bytes = pages.count * width * height * 4
        guard !pages.isEmpty else { return nil }
        return RasterAtlasState(pages: pages.map(\.image), width: width, height: height)
    }

    /// The key of `layer`'s next draw this frame.
    mutating func key(for layer: LayerID) -> Key {
        let n = occurrences[layer, default: 0]
        occurrences[layer] = n + 1
        return Key(layer: layer, occurrence: n)
    }

    /// The region for a drawing of `w` × `h` pixels (padding included) under `key`: its entry's
    /// when that is as large, else a new one (the old one freed); nil when no page has room.
    mutating func region(for key: Key, width w: Int, height h: Int) -> (page: Int, region: PixelRect, new: Bool)? {
        if var entry = entries[key] {
            let r = entry.region
            if r.maxX - r.minX == w && r.maxY - r.minY == h {
                entry.frame = frame
                entries[key] = entry
                return (entry.page, r, false)
            }
            free(entries.removeValue(forKey: key)!)
        }
        guard w > 0, h > 0, w <= width, h <= height else { return nil }
        for p in pages.indices {
            if let (shelf, x, y) = allocate(in: p, w, h) {
                let region = PixelRect(minX: x, minY: y, maxX: x + w, maxY: y + h)
                entries[key] = Entry(page: p, shelf: shelf, region: region, version: 0, items: [], clips: [], frame: frame)
                return (p, region, true)
            }
        }
        guard pages.count < RasterCacheLimits.maxPages,
              (pages.count + 1) * width * height * 4 <= Self.budgetBytes || pages.isEmpty else { return nil }
        pages.append(Page(image: Image(width: 1, height: 1, premultipliedPixels: [0, 0, 0, 0])))
        guard let (shelf, x, y) = allocate(in: pages.count - 1, w, h) else { return nil }
        let region = PixelRect(minX: x, minY: y, maxX: x + w, maxY: y + h)
        entries[key] = Entry(page: pages.count - 1, shelf: shelf, region: region, version: 0, items: [], clips: [],
                             frame: frame)
        return (pages.count - 1, region, true)
    }

    /// The version of `key`'s drawing: its entry's when `items` (clips from `clipStart` on in
    /// `clips`) draw the same as last drawn there, else a new one (the items kept).
    mutating func version(for key: Key, items: ArraySlice<DrawItem>, clips: ArraySlice<Clip>, clipStart: Int) -> UInt64 {
        guard var entry = entries[key] else { return RasterDraw.nextVersion() }
        if entry.version != 0, Self.same(items, clips, clipStart: clipStart, as: entry) {
            stats.hits += 1
            return entry.version
        }
        stats.misses += 1
        entry.items = items.map { item in
            var item = item
            if item.clip >= 0 { item.clip -= clipStart }
            return item
        }
        entry.clips = clips.map { clip in
            var clip = clip
            if clip.parent >= 0 { clip.parent -= clipStart }
            return clip
        }
        entry.version = RasterDraw.nextVersion()
        entries[key] = entry
        return entry.version
    }

    /// Gives up `key`'s entry (its subtree drawn directly instead).
    mutating func drop(_ key: Key) {
        if let entry = entries.removeValue(forKey: key) { free(entry) }
    }

    private static func same(_ items: ArraySlice<DrawItem>, _ clips: ArraySlice<Clip>, clipStart: Int, as entry: Entry) -> Bool {
        guard items.count == entry.items.count, clips.count == entry.clips.count else { return false }
        for (k, item) in zip(entry.items.indices, items) {
            var item = item
            if item.clip >= 0 { item.clip -= clipStart }
            guard item.drawsSame(as: entry.items[k]) else { return false }
        }
        for (k, c) in zip(entry.clips.indices, clips) {
            let o = entry.clips[k]
            let parent = c.parent >= 0 ? c.parent - clipStart : c.parent
            guard parent == o.parent, c.transform == o.transform, c.rect == o.rect, c.radii == o.radii else { return false }
        }
        return true
    }

    // MARK: Shelves

    /// A slot of `w` × `h` in page `p`: a freed slot of a shelf as tall (at most a quarter
    /// taller), the end of such a shelf, or a new shelf.
    private mutating func allocate(in p: Int, _ w: Int, _ h: Int) -> (shelf: Int, x: Int, y: Int)? {
        let fits = { (shelf: Shelf) in shelf.height >= h && shelf.height <= h + max(8, h / 4) }
        for s in pages[p].shelves.indices where fits(pages[p].shelves[s]) {
            if let f = pages[p].shelves[s].free.firstIndex(where: { $0.width >= w }) {
                let slot = pages[p].shelves[s].free[f]
                if slot.width > w {
                    pages[p].shelves[s].free[f] = (slot.x + w, slot.width - w)
                } else {
                    pages[p].shelves[s].free.remove(at: f)
                }
                pages[p].live += 1
                return (s, slot.x, pages[p].shelves[s].y)
            }
            if pages[p].shelves[s].x + w <= width {
                let x = pages[p].shelves[s].x
                pages[p].shelves[s].x += w
                pages[p].live += 1
                return (s, x, pages[p].shelves[s].y)
            }
        }
        let shelfHeight = min((h + 7) / 8 * 8, height)
        guard pages[p].top + shelfHeight <= height else { return nil }
        pages[p].shelves.append(Shelf(y: pages[p].top, height: shelfHeight, x: w))
        pages[p].top += shelfHeight
        pages[p].live += 1
        return (pages[p].shelves.count - 1, 0, pages[p].shelves[pages[p].shelves.count - 1].y)
    }

    private mutating func free(_ entry: Entry) {
        let p = entry.page
        guard p < pages.count else { return }
        pages[p].live -= 1
        if pages[p].live <= 0 {
            pages[p].shelves.removeAll()
            pages[p].top = 0
            pages[p].live = 0
            return
        }
        pages[p].shelves[entry.shelf].free.append((entry.region.minX, entry.region.maxX - entry.region.minX))
    }
}
