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
    /// An entry not drawn for this many frames (full builds) leaves the cache; before that it
    /// stays for a layer hidden or scrolled away for a moment, unless its room is needed (the
    /// least recently drawn entries give way first) or no entry was drawn in a frame (then
    /// every entry and page goes).
    public static let keptFrames: UInt64 = 30
    /// Full builds in a row a layer's content (everything but its position, transform and
    /// opacity) must stay the same before the automatic raster cache takes it.
    public static let stableFrames = 3
    /// Sublayers (all descendants) at most of a layer the automatic cache takes.
    public static let maxAutoDescendants = 16
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
    /// Of `entries`, those the automatic raster cache made (not `shouldRasterize`).
    public var autoEntries = 0
    /// Entries evicted this frame: not drawn for `RasterCacheLimits.keptFrames`, or the least
    /// recently drawn giving way to a new one under the budget.
    public var evicted = 0
    public init() {}
}

/// The raster cache of `DrawListBuilder` (CALayer.shouldRasterize): per rasterized layer an
/// entry — a region of an atlas page, the subtree's items as last drawn there and their
/// version. The builder draws the subtree in the region's pixels each frame and compares the
/// items with the entry's: equal, the version stays (the backend composites what it holds);
/// else a new version (the backend draws the region again). Entries not drawn for
/// `RasterCacheLimits.keptFrames` frames are evicted at a frame's end, every entry when none
/// was drawn in it; pages are the target's size, at most `budgetBytes` of them, packed in
/// shelves; with no room the least recently drawn entries give way (LRU), and a subtree that
/// still finds none is drawn directly (`RasterStats.uncached`). The automatic cache
/// (`DrawListBuilder.rasterizesAutomatically`) watches layers through `observe` and puts
/// those that stay the same in the same entries.
struct RasterCache {
    /// A layer's entry: the layer and which of its draws this frame (a replicator draws a
    /// layer once per instance).
    /// `part`: 0 for the whole layer; the automatic cache's parts of a translucent leaf (its
    /// shadow, its background with its border) are 1, 2, ….
    struct Key: Hashable { var layer: LayerID; var occurrence: Int; var part = 0 }

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
        var automatic = false
    }

    /// What the automatic cache saw of a layer at the last full build: its content (the
    /// properties of the layer, with position, transform and opacity left out, and of its
    /// descendants, with their ids) and scale bucket, and in how many full builds in a row
    /// that was the same.
    struct Probe {
        var content: [LayerProperties]
        var ids: [LayerID]
        var bucket: Double
        var stable: Int
        var frame: UInt64
        /// Found larger than an atlas page when taken (`refuse`): not taken again while the
        /// content and bucket stay the same.
        var refused = false
        /// Whether the layer's last direct drawing made offscreen passes (a mask or filter
        /// group) and would fit an atlas page (`noteDrawn`); nil before it was drawn.
        var passes: Bool? = nil
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
    private var probes: [LayerID: Probe] = [:]
    /// Whether a layer the automatic cache watches may become stable at the next full builds:
    /// the list is not patched meanwhile (a patch visits no layer, so nothing is watched).
    private(set) var watching = false
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
        watching = false
    }

    /// Records what the automatic cache sees of `layer` this full build (`content`, `ids`,
    /// `bucket`: see `Probe`); returns whether it has been the same for
    /// `RasterCacheLimits.stableFrames` full builds in a row (this one included).
    mutating func observe(_ layer: LayerID, content: [LayerProperties], ids: [LayerID], bucket: Double) -> Bool {
        let last = probes[layer].flatMap { $0.frame + 1 == frame ? $0 : nil }
        var probe: Probe
        if var last, last.bucket == bucket, last.ids == ids, last.content == content {
            last.stable += 1
            last.frame = frame
            probe = last
        } else {
            probe = Probe(content: content, ids: ids, bucket: bucket, stable: 1, frame: frame, passes: probes[layer]?.passes)
        }
        probes[layer] = probe
        let stable = probe.stable >= RasterCacheLimits.stableFrames && !probe.refused
        // Seen for the first time, or the same again but not yet long enough: the next builds
        // are full, to count on. A layer whose content changed since the last full build
        // starts again without holding patches back (animated content stays patched).
        if !stable, !probe.refused, last == nil || probe.stable > 1 { watching = true }
        return stable
    }

    /// Whether `layer`'s last direct drawing made offscreen passes and would fit a page (nil:
    /// not drawn directly while watched).
    func drewPasses(_ layer: LayerID) -> Bool? { probes[layer]?.passes }

    /// Whether `layer`'s last direct drawing made no offscreen pass (or would not fit a page);
    /// if so, it stays watched
    /// this frame without its content being looked at (`DrawListBuilder.autoRaster` for
    /// effects: its stable count starts again).
    mutating func drewNoPasses(_ layer: LayerID) -> Bool {
        guard let i = probes.index(forKey: layer), probes.values[i].passes == false else { return false }
        probes.values[i].frame = frame
        probes.values[i].stable = 0
        return true
    }

    /// Whether any layer is watched (`noteDrawn` has something to note).
    var watchesLayers: Bool { !probes.isEmpty }

    /// Notes whether a watched `layer`'s drawing this frame (`items`) made offscreen passes — a
    /// mask or filter group (a mask drawn as a clip makes none) — and would fit an atlas page
    /// (its device box, grown by a tenth for the scale bucket and by the padding, within the
    /// page): a layer larger than a page would be refused after its content was watched and
    /// drawn for nothing, and its ancestors and sublayers after it, one a frame.
    mutating func noteDrawn(_ layer: LayerID, _ items: ArraySlice<DrawItem>) {
        guard let i = probes.index(forKey: layer), probes.values[i].frame == frame else { return }
        let passes = items.contains {
            switch $0.kind {
            case .mask, .filter: true
            default: false
            }
        }
        guard passes else { probes.values[i].passes = false; return }
        let box = items.withUnsafeBufferPointer { FramePlanner.deviceBounds($0, 0..<$0.count, width: width, height: height) }
        guard let b = box else { probes.values[i].passes = false; return }
        probes.values[i].passes = (b.maxX - b.minX) * 1.1 + 8 <= Double(width) && (b.maxY - b.minY) * 1.1 + 8 <= Double(height)
    }

    /// Leaves `layer` to be drawn directly while what `observe` sees of it stays the same (it
    /// was found larger than an atlas page).
    mutating func refuse(_ layer: LayerID) {
        probes[layer]?.refused = true
    }

    /// Ends the frame: entries not drawn for `keptFrames` are evicted, all of them when none was
    /// drawn (and every page once none is left); layers not seen this frame are no longer watched.
    /// Returns the atlas for the list (nil when no page exists).
    mutating func endFrame() -> RasterAtlasState? {
        // Kept while some entry was drawn this frame and it was drawn in the last `keptFrames`.
        let drawnNow = entries.values.contains { $0.frame == frame }
        var evicted: [Key] = []
        for (key, entry) in entries where !drawnNow || entry.frame + RasterCacheLimits.keptFrames <= frame {
            evicted.append(key)
        }
        for key in evicted { free(entries.removeValue(forKey: key)!) }
        stats.evicted += evicted.count
        // No rasterized layer left: the pages go too (the backend frees them once unnamed).
        if entries.isEmpty { pages.removeAll() }
        var unseen: [LayerID] = []
        for (layer, probe) in probes where probe.frame != frame { unseen.append(layer) }
        for layer in unseen { probes.removeValue(forKey: layer) }
        stats.entries = entries.count
        stats.autoEntries = entries.values.reduce(0) { $0 + ($1.automatic ? 1 : 0) }
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
    /// when that is as large, else a new one (the old one freed; with no room, the least
    /// recently drawn entries not drawn this frame give way, oldest first); nil when no page
    /// has room. `automatic`: the entry is the automatic cache's (`RasterStats.autoEntries`).
    mutating func region(for key: Key, width w: Int, height h: Int, automatic: Bool = false)
        -> (page: Int, region: PixelRect, new: Bool)? {
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
        while true {
            if let (page, shelf, x, y) = place(w, h) {
                let region = PixelRect(minX: x, minY: y, maxX: x + w, maxY: y + h)
                entries[key] = Entry(page: page, shelf: shelf, region: region, version: 0, items: [], clips: [], frame: frame,
                                     automatic: automatic)
                return (page, region, true)
            }
            // Least recently used first (LRU under the budget).
            guard let victim = entries.filter({ $0.value.frame != frame }).min(by: { $0.value.frame < $1.value.frame })
            else { return nil }
            free(entries.removeValue(forKey: victim.key)!)
            stats.evicted += 1
        }
    }

    /// A slot of `w` × `h` in a page, a new page if none has room and the budget allows one.
    private mutating func place(_ w: Int, _ h: Int) -> (page: Int, shelf: Int, x: Int, y: Int)? {
        for p in pages.indices {
            if let (shelf, x, y) = allocate(in: p, w, h) { return (p, shelf, x, y) }
        }
        guard pages.count < RasterCacheLimits.maxPages,
              (pages.count + 1) * width * height * 4 <= Self.budgetBytes || pages.isEmpty else { return nil }
        pages.append(Page(image: Image(width: 1, height: 1, premultipliedPixels: [0, 0, 0, 0])))
        guard let (shelf, x, y) = allocate(in: pages.count - 1, w, h) else { return nil }
        return (pages.count - 1, shelf, x, y)
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
