import CLaminaImage
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// One tile of a tiled image: its level of detail (ℓ ≥ 0: the image scaled by 2^−ℓ, each
/// pixel the mean of a 2^ℓ × 2^ℓ block of the image's, cut at the image's right and bottom
/// edges; ℓ < 0: magnified 2^−ℓ times, bilinear), its column and row, and the tile size in
/// pixels of that level (tile (x, y) holds the level's pixels [x·width, (x+1)·width) ×
/// [y·height, (y+1)·height), cut at the level's edges).
public struct TileKey: Hashable, Sendable, CustomStringConvertible {
    public var level: Int
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(level: Int, x: Int, y: Int, width: Int, height: Int) {
        self.level = level; self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var description: String { "tile(\(level), \(x), \(y)) \(width)×\(height)" }
}

/// An image a tiled layer shows, whose tiles a `TileStore` makes on its worker thread: a
/// decoded `Image` (cut into tiles), or a PNG file decoded region by region — band by band of
/// rows, streamed through libpng, so that an image larger than memory allows (or than the
/// GPU's largest texture) is never held whole. Immutable; any thread.
public final class TileSource: Sendable, CustomStringConvertible {
    public let id: UInt64
    public let width: Int
    public let height: Int
    enum Origin: Sendable {
        case image(Image)
        case png(String)
        case pngDescriptor(PNGDescriptor)
        case client(ClientTileWishes)
    }
    let origin: Origin

    /// Largest side of a tiled image (pixels): 2^30.
    public static let maxSide = 1 << 30

    /// Tiles of a decoded image (`.rgba8`).
    public init(image: Image) {
        precondition(image.format == .rgba8, "a tile source shows RGBA images")
        id = Image.nextID()
        width = image.width
        height = image.height
        origin = .image(image)
    }

    /// Tiles of the PNG file at `path`, decoded region by region: reads only the header here.
    /// - Throws: `ImageError` naming the file when it cannot be opened, is not a PNG, is
    ///   interlaced, or is larger than `maxSide` a side.
    public convenience init(pngFile path: String) throws(ImageError) {
        try self.init(png: .png(path), label: path)
    }

    /// Tiles of the PNG file open on descriptor `fd` (a client's, received with SCM_RIGHTS),
    /// read with `pread` from offset 0 — the file need not be reachable by any path the
    /// daemon may open. The source owns `fd` from here on, also when this throws: it is closed
    /// once the source and every read of it are gone. `label` names the file in errors.
    /// - Throws: `ImageError` `.unsupported` when `fd` is not a regular file or not a
    ///   non-interlaced PNG, `.tooLarge` past `maxSide` a side, `.corrupt` for a bad header.
    public convenience init(pngDescriptor fd: Int32, label: String) throws(ImageError) {
        let owned = PNGDescriptor(fd: fd, label: label)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ImageError(.unsupported, "\(label): not a regular file (a tiled image's descriptor must be a PNG file's)")
        }
        try self.init(png: .pngDescriptor(owned), label: label)
    }

    private init(png origin: Origin, label path: String) throws(ImageError) {
        var result = lamina_image_result()
        guard let stream = PNGReader.open(origin, &result) else {
            let message = withUnsafeBytes(of: &result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let kind: ImageError.Kind = message.hasPrefix("cannot open") ? .empty
                : message.hasPrefix("interlaced") || message.hasPrefix("not a PNG") ? .unsupported : .corrupt
            throw ImageError(kind, "\(path): \(message)")
        }
        lamina_png_stream_close(stream)
        guard result.width > 0, result.height > 0, Int(result.width) <= Self.maxSide, Int(result.height) <= Self.maxSide else {
            throw ImageError(.tooLarge, "\(path): \(result.width)×\(result.height) pixels")
        }
        id = Image.nextID()
        width = Int(result.width)
        height = Int(result.height)
        self.origin = origin
    }

    /// A `width` × `height` image whose tiles a client draws on request (`createTiledImage`):
    /// the store never makes them; it publishes the tiles frames want (`clientWishes`) and
    /// takes the client's answers (`TileStore.provide`).
    public init(clientWidth width: Int, height: Int) {
        precondition(width > 0 && height > 0 && width <= Self.maxSide && height <= Self.maxSide)
        id = Image.nextID()
        self.width = width
        self.height = height
        origin = .client(ClientTileWishes())
    }

    /// The wishes of a client-drawn image (nil for the others).
    public var clientWishes: ClientTileWishes? {
        if case .client(let w) = origin { return w }
        return nil
    }

    /// The key of tile (`x`, `y`) of `level` in a grid of `tileWidth` × `tileHeight` tiles, when
    /// the level and the tile exist (levels −`maxMagnified`…, down to the one of 1 × 1 pixel),
    /// with its pixel size: nil otherwise.
    public func tile(level: Int, x: Int, y: Int, tileWidth: Int, tileHeight: Int, maxMagnified: Int)
        -> (key: TileKey, width: Int, height: Int)? {
        guard level >= -maxMagnified, tileWidth > 0, tileHeight > 0, x >= 0, y >= 0 else { return nil }
        if level >= 0 {
            // The coarsest level has one pixel a side on the image's longer side.
            guard level == 0 || (level <= 62 && max(width, height) > 1 << (level - 1)) else { return nil }
        }
        let (lw, lh) = levelSize(level)
        guard x < (lw + tileWidth - 1) / tileWidth, y < (lh + tileHeight - 1) / tileHeight else { return nil }
        return (TileKey(level: level, x: x, y: y, width: tileWidth, height: tileHeight),
                min(tileWidth, lw - x * tileWidth), min(tileHeight, lh - y * tileHeight))
    }

    /// The size of level `level` in pixels (ℓ ≥ 0: ⌈size / 2^ℓ⌉; ℓ < 0: size × 2^−ℓ).
    public func levelSize(_ level: Int) -> (width: Int, height: Int) {
        if level >= 0 {
            let f = 1 << min(level, 62)
            return ((width + f - 1) / f, (height + f - 1) / f)
        }
        return (width << -level, height << -level)
    }

    /// The image's rect (pixels of level 0, fractional for magnified levels) that `key` covers.
    public func imageRect(_ key: TileKey) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        let (lw, lh) = levelSize(key.level)
        let px0 = key.x * key.width, py0 = key.y * key.height
        let px1 = min(px0 + key.width, lw), py1 = min(py0 + key.height, lh)
        if key.level >= 0 {
            let f = 1 << key.level
            return (Double(px0 * f), Double(py0 * f), Double(min(px1 * f, width)), Double(min(py1 * f, height)))
        }
        let m = Double(1 << -key.level)
        return (Double(px0) / m, Double(py0) / m, Double(px1) / m, Double(py1) / m)
    }

    /// The file's path, or the label a descriptor's file was given.
    var fileLabel: String {
        switch origin {
        case .image: description
        case .png(let path): path
        case .pngDescriptor(let d): d.label
        case .client: "the client's tiles"
        }
    }

    public var description: String {
        switch origin {
        case .image(let image): "tiles of \(image)"
        case .png(let path): "tiles of \(path) (\(width)×\(height))"
        case .pngDescriptor(let d): "tiles of \(d.label) (\(width)×\(height))"
        case .client: "client-drawn tiles (\(width)×\(height))"
        }
    }
}

/// The tiles of every `TileSource` a frame draws: made on one worker thread (never the render
/// or the socket thread) as frames ask for them, kept in memory under `budgetBytes` with the
/// least recently drawn tiles not drawn in the latest frame evicted first. The render thread
/// only takes tiles that are ready (`ready`), asks for missing ones (`want`), and hands the
/// frame's wishes to the worker (`endFrame`); it never waits.
///
/// The tiles a frame draws stay even when they exceed the budget (a screen's worth); tiles
/// made beside them (a band is decoded whole) are evicted at once then.
public final class TileStore: Sendable {
    /// Default `budgetBytes`: 256 MiB (a 3840×2160 screen's tiles at one level take about 40 MiB).
    public static let defaultBudget = 256 << 20

    public let budgetBytes: Int

    struct Entry {
        var image: Image
        var used: UInt64
        var shownAt: Double?
    }
    struct CacheKey: Hashable {
        var source: UInt64
        var tile: TileKey
    }
    /// A band: one row of tiles of one level, decoded together.
    struct Band: Hashable {
        var source: UInt64
        var level: Int
        var row: Int
        var width: Int
        var height: Int
    }
    struct State: ~Copyable {
        var tiles: [CacheKey: Entry] = [:]
        var bytes = 0
        var peakBytes = 0
        /// Bands made, and the worker's seconds making them (reading, box-filtering, cutting).
        var bands = 0
        var bandSeconds = 0.0
        /// Bumped by every `endFrame`: tiles drawn since carry it.
        var stamp: UInt64 = 1
        /// This frame's wishes, in order, and the worker's queue (the last frame's wishes).
        var wishes: [Band] = []
        var wished: Set<Band> = []
        var queue: [Band] = []
        var sources: [UInt64: TileSource] = [:]
        var working = false
        var errors: [UInt64: ImageError] = [:]
        var made = 0
        /// Client-drawn sources' tiles this frame wants, in order, and the sources whose last
        /// published wishes were not empty.
        var clientWishes: [UInt64: [TileKey]] = [:]
        var clientWished: Set<CacheKey> = []
        var clientPublished: [UInt64: TileSource] = [:]
        var clientChanged = false
    }
    private let state = Mutex(State())
    private let worker = DispatchQueue(label: "lamina.tiles", qos: .userInitiated)
    /// The worker's open PNG readers (worker thread only).
    private let readers = Mutex([UInt64: PNGReader]())

    public init(budgetBytes: Int = TileStore.defaultBudget) {
        self.budgetBytes = max(budgetBytes, 0)
    }

    /// The tile when it is ready (nil otherwise), marked as drawn in this frame; `shownAt` is
    /// the `time` of the first frame that drew it (a tile fades in from then).
    public func ready(_ source: TileSource, _ key: TileKey, time: Double) -> (image: Image, shownAt: Double)? {
        state.withLock { s in
            let k = CacheKey(source: source.id, tile: key)
            guard var e = s.tiles[k] else { return nil }
            e.used = s.stamp
            let shown = e.shownAt ?? time
            e.shownAt = shown
            s.tiles[k] = e
            return (e.image, shown)
        }
    }

    /// Asks for `key` (made after this frame's `endFrame`, with the rest of its band).
    public func want(_ source: TileSource, _ key: TileKey) {
        state.withLock { s in
            if source.clientWishes != nil {
                if s.clientWished.insert(CacheKey(source: source.id, tile: key)).inserted {
                    s.clientWishes[source.id, default: []].append(key)
                    s.sources[source.id] = source
                }
                return
            }
            let band = Band(source: source.id, level: key.level, row: key.y, width: key.width, height: key.height)
            s.sources[source.id] = source
            if s.wished.insert(band).inserted { s.wishes.append(band) }
        }
    }

    /// Ends a frame: its wishes replace the worker's queue (tiles no longer in view are not
    /// made), and the worker starts if it is idle.
    public func endFrame() {
        let start = state.withLock { s -> Bool in
            s.stamp += 1
            // Client-drawn sources: the frame's wishes are published (an empty list for one no
            // longer drawn or wanting nothing).
            if !s.clientWishes.isEmpty || !s.clientPublished.isEmpty {
                for (id, source) in s.clientPublished where s.clientWishes[id] == nil {
                    if source.clientWishes!.publish([]) { s.clientChanged = true }
                    s.clientPublished[id] = nil
                }
                for (id, keys) in s.clientWishes {
                    guard let source = s.sources[id] else { continue }
                    if source.clientWishes!.publish(keys) { s.clientChanged = true }
                    s.clientPublished[id] = source
                }
                s.clientWishes.removeAll(keepingCapacity: true)
                s.clientWished.removeAll(keepingCapacity: true)
            }
            s.queue = s.wishes.filter { s.errors[$0.source] == nil }
            s.wishes.removeAll(keepingCapacity: true)
            s.wished.removeAll(keepingCapacity: true)
            guard !s.working, !s.queue.isEmpty else { return false }
            s.working = true
            return true
        }
        if start { worker.async { self.work() } }
    }

    /// Whether a client-drawn source's published wishes changed since the last call (the
    /// render side then wakes the server, which asks the client for the new ones).
    public func takeClientWishesChanged() -> Bool {
        state.withLock { s in defer { s.clientChanged = false }; return s.clientChanged }
    }

    /// Whether a client-drawn source has wishes published (its frames must end even when no
    /// tiled layer is drawn, so that they are withdrawn).
    public var hasClientWishes: Bool { state.withLock { !$0.clientPublished.isEmpty || !$0.clientWishes.isEmpty } }

    /// A client's tile of a client-drawn source (its pixels checked by the server: `key`'s
    /// size): cached under the budget as a made tile, and `serial` noted in the source's wishes.
    public func provide(_ source: TileSource, _ key: TileKey, _ image: Image, serial: UInt64) {
        insert([(key, image)], source: source.id)
        source.clientWishes?.noteProvided(serial)
    }

    /// Bytes of the tiles in memory, the most there were at once (after each insertion's
    /// eviction), and how many.
    public var residentBytes: Int { state.withLock { $0.bytes } }
    public var peakBytes: Int { state.withLock { $0.peakBytes } }
    public var tileCount: Int { state.withLock { $0.tiles.count } }
    /// Tiles made so far.
    public var tilesMade: Int { state.withLock { $0.made } }
    /// Bands of tiles made so far, and the worker's total seconds making them (the tiles'
    /// decode time: a band's rows read from its source and filtered to its level).
    public var bandsMade: (count: Int, seconds: Double) { state.withLock { ($0.bands, $0.bandSeconds) } }
    /// Whether the worker has nothing left to make.
    public var isIdle: Bool { state.withLock { !$0.working && $0.queue.isEmpty } }
    /// Why a source's tiles stopped being made (a file that turned out truncated or corrupt).
    public func error(_ source: TileSource) -> ImageError? { state.withLock { $0.errors[source.id] } }

    /// Blocks until the worker is idle or `seconds` have passed (tests, `laminactl render`;
    /// never the render thread). Returns whether it is idle.
    @discardableResult
    public func waitUntilIdle(seconds: Double = 120) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while !isIdle {
            if DispatchTime.now().uptimeNanoseconds > deadline { return false }
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(2))
        }
        return true
    }

    // MARK: Worker

    private func work() {
        while true {
            let next = state.withLock { s -> (Band, TileSource)? in
                guard !s.queue.isEmpty else { s.working = false; return nil }
                let band = s.queue.removeFirst()
                guard let source = s.sources[band.source] else { return nil }
                return (band, source)
            }
            guard let (band, source) = next else {
                if state.withLock({ $0.working }) { continue }
                return
            }
            // Already made (a wish of two frames)?
            let have = state.withLock { s in
                s.tiles[CacheKey(source: band.source, tile: TileKey(level: band.level, x: 0, y: band.row,
                                                                     width: band.width, height: band.height))] != nil
            }
            if have { continue }
            do {
                let started = DispatchTime.now().uptimeNanoseconds
                let tiles = try makeBand(band, source)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) * 1e-9
                state.withLock { $0.bands += 1; $0.bandSeconds += seconds }
                insert(tiles, source: source.id)
            } catch {
                readers.withLock { r in r[source.id]?.close(); r[source.id] = nil }
                state.withLock { $0.errors[source.id] = error }
            }
        }
    }

    private func insert(_ tiles: [(TileKey, Image)], source: UInt64) {
        state.withLock { s in
            for (key, image) in tiles {
                let k = CacheKey(source: source, tile: key)
                if let old = s.tiles[k] { s.bytes -= old.image.byteCount }
                // Made for the last frame's wishes: kept through the next frame.
                s.tiles[k] = Entry(image: image, used: s.stamp, shownAt: nil)
                s.bytes += image.byteCount
                s.made += 1
            }
            defer { s.peakBytes = max(s.peakBytes, s.bytes) }   // (after eviction: what was held)
            guard s.bytes > budgetBytes else { return }
            // Evict the least recently drawn tiles not drawn in the latest frame (and the band's
            // tiles nobody asked for: only their first is looked up, so most carry no use).
            let current = s.stamp - 1
            var candidates = s.tiles.filter { $0.value.used < current }.map { ($0.key, $0.value.used) }
            candidates.sort { $0.1 < $1.1 }
            for (k, _) in candidates {
                guard s.bytes > budgetBytes else { break }
                s.bytes -= s.tiles.removeValue(forKey: k)!.image.byteCount
            }
        }
    }

    /// Every tile of `band`, made from its source's pixels.
    private func makeBand(_ band: Band, _ source: TileSource) throws(ImageError) -> [(TileKey, Image)] {
        let (lw, lh) = source.levelSize(band.level)
        let y0 = band.row * band.height, y1 = min(y0 + band.height, lh)
        guard y0 < y1 else { return [] }
        let rows = y1 - y0
        var out = [UInt8](repeating: 0, count: lw * rows * 4)
        if band.level >= 0 {
            let f = 1 << band.level
            let imageY0 = y0 * f, imageY1 = min(y1 * f, source.height)
            var acc = [UInt64](repeating: 0, count: lw * 4)
            var row = 0
            var inRow = 0
            try readRows(source, from: imageY0, to: imageY1) { pixels in
                // pixels: one premultiplied row of the image.
                acc.withUnsafeMutableBufferPointer { a in
                    var x = 0
                    while x < source.width {
                        let o = (x >> band.level) * 4, i = x * 4
                        a[o] &+= UInt64(pixels[i]); a[o + 1] &+= UInt64(pixels[i + 1])
                        a[o + 2] &+= UInt64(pixels[i + 2]); a[o + 3] &+= UInt64(pixels[i + 3])
                        x += 1
                    }
                }
                inRow += 1
                let imageY = imageY0 + row * f + inRow
                if inRow == f || imageY == imageY1 {
                    let n = UInt64(inRow)
                    for c in 0..<lw {
                        let cols = UInt64(min((c + 1) * f, source.width) - c * f)
                        let count = n * cols
                        for k in 0..<4 {
                            out[(row * lw + c) * 4 + k] = UInt8((acc[c * 4 + k] + count / 2) / count)
                            acc[c * 4 + k] = 0
                        }
                    }
                    row += 1
                    inRow = 0
                }
            }
        } else {
            // Magnified: bilinear from the image rows around the band.
            let m = Double(1 << -band.level)
            let first = max(0, Int((Double(y0) + 0.5) / m - 0.5) - 1)
            let last = min(source.height, Int(((Double(y1) - 0.5) / m - 0.5).rounded(.up)) + 2)
            var buffer: [UInt8] = []
            buffer.reserveCapacity((last - first) * source.width * 4)
            try readRows(source, from: first, to: last) { buffer.append(contentsOf: $0) }
            let w = source.width, h = last - first
            for y in 0..<rows {
                let fy = min(max((Double(y0 + y) + 0.5) / m - 0.5, 0), Double(source.height - 1)) - Double(first)
                let ya = min(max(Int(fy), 0), h - 1), yb = min(ya + 1, h - 1), ty = fy - Double(ya)
                for x in 0..<lw {
                    let fx = min(max((Double(x) + 0.5) / m - 0.5, 0), Double(w - 1))
                    let xa = Int(fx), xb = min(xa + 1, w - 1), tx = fx - Double(xa)
                    for k in 0..<4 {
                        let p00 = Double(buffer[(ya * w + xa) * 4 + k]), p10 = Double(buffer[(ya * w + xb) * 4 + k])
                        let p01 = Double(buffer[(yb * w + xa) * 4 + k]), p11 = Double(buffer[(yb * w + xb) * 4 + k])
                        let v = (p00 * (1 - tx) + p10 * tx) * (1 - ty) + (p01 * (1 - tx) + p11 * tx) * ty
                        out[(y * lw + x) * 4 + k] = UInt8(min(max(v.rounded(), 0), 255))
                    }
                }
            }
        }
        // Cut the band into tiles.
        var tiles: [(TileKey, Image)] = []
        let columns = (lw + band.width - 1) / band.width
        for tx in 0..<columns {
            let x0 = tx * band.width, w = min(band.width, lw - x0)
            var pixels = [UInt8](repeating: 0, count: w * rows * 4)
            for y in 0..<rows {
                let s = (y * lw + x0) * 4
                pixels.replaceSubrange(y * w * 4..<(y + 1) * w * 4, with: out[s..<s + w * 4])
            }
            tiles.append((TileKey(level: band.level, x: tx, y: band.row, width: band.width, height: band.height),
                          Image(width: w, height: rows, premultipliedPixels: pixels)))
        }
        return tiles
    }

    /// Calls `body` with each premultiplied row of the image in [from, to), top first.
    private func readRows(_ source: TileSource, from: Int, to: Int,
                          _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(ImageError) {
        switch source.origin {
        case .image(let image):
            image.pixels.withUnsafeBufferPointer { p in
                for y in from..<to { body(UnsafeBufferPointer(rebasing: p[y * image.width * 4..<(y + 1) * image.width * 4])) }
            }
        case .client:
            throw ImageError(.unsupported, "a client draws these tiles")
        case .png, .pngDescriptor:
            var reader = readers.withLock { r in r.removeValue(forKey: source.id) }
            if let r = reader, r.row > from { r.close(); reader = nil }
            if reader == nil { reader = try PNGReader(source.origin, label: source.fileLabel, width: source.width) }
            let r = reader!
            do {
                while r.row < from { try r.next { _ in } }
                for _ in from..<to { try r.next(body) }
            } catch {
                r.close()
                throw error
            }
            readers.withLock { $0[source.id] = r }
        }
    }
}

/// The tiles frames want of a client-drawn source, as the render thread last published them
/// (the tiles in view at the level drawn that are not in the cache, in drawing order), and the
/// newest answer it had taken when it did. The server reads them when woken and asks the client
/// for what is new (docs/protocol.md, Images). Any thread.
public final class ClientTileWishes: Sendable {
    private struct Published { var keys: [TileKey] = []; var provided: UInt64 = 0; var taken: UInt64 = 0 }
    private let state = Mutex(Published())

    /// The tiles wanted, and the serial of the newest answer cached before the frame that
    /// wanted them (an answer with a larger serial may be one of them, not yet seen).
    public var wanted: (keys: [TileKey], providedBefore: UInt64) { state.withLock { ($0.keys, $0.provided) } }

    /// Publishes a frame's wishes; whether they changed.
    func publish(_ keys: [TileKey]) -> Bool {
        state.withLock { s in
            let changed = s.keys != keys || s.provided != s.taken
            s.keys = keys
            s.provided = s.taken
            return changed
        }
    }

    func noteProvided(_ serial: UInt64) { state.withLock { $0.taken = max($0.taken, serial) } }
}

/// A PNG file read row by row (worker thread only), rows premultiplied.
final class PNGReader: @unchecked Sendable {
    private var stream: OpaquePointer?
    private var row_: [UInt8]
    let path: String
    /// The descriptor read, kept open while this reads it.
    private let descriptor: PNGDescriptor?

    init(_ origin: TileSource.Origin, label: String, width: Int) throws(ImageError) {
        var result = lamina_image_result()
        guard let s = Self.open(origin, &result) else {
            throw ImageError(.corrupt, "\(label): " + Self.message(&result))
        }
        stream = s
        path = label
        if case .pngDescriptor(let d) = origin { descriptor = d } else { descriptor = nil }
        row_ = [UInt8](repeating: 0, count: width * 4)
    }

    /// A stream over a PNG source's file (nil, with `result`'s message, when it cannot be).
    static func open(_ origin: TileSource.Origin, _ result: inout lamina_image_result) -> OpaquePointer? {
        switch origin {
        case .png(let path): lamina_png_stream_open(path, &result)
        case .pngDescriptor(let d): lamina_png_stream_open_fd(d.fd, &result)
        case .image, .client: nil
        }
    }

    var row: Int { stream.map { Int(lamina_png_stream_row($0)) } ?? 0 }

    /// Reads the next row and calls `body` with it.
    func next(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(ImageError) {
        guard let stream else { throw ImageError(.corrupt, "\(path): closed") }
        var result = lamina_image_result()
        let status = row_.withUnsafeMutableBufferPointer { lamina_png_stream_read(stream, $0.baseAddress, 1, &result) }
        guard status == LAMINA_IMAGE_OK else {
            let kind: ImageError.Kind = status == LAMINA_IMAGE_TRUNCATED ? .truncated : .corrupt
            throw ImageError(kind, "\(path): PNG \(kind == .truncated ? "truncated" : "corrupt"): " + Self.message(&result))
        }
        ImageDecoder.premultiply(&row_)
        row_.withUnsafeBufferPointer { body($0) }
    }

    func close() {
        if let stream { lamina_png_stream_close(stream) }
        stream = nil
    }

    deinit { close() }

    static func message(_ result: inout lamina_image_result) -> String {
        withUnsafeBytes(of: &result.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// A descriptor of a PNG file a tile source reads (closed when the last holder is gone).
final class PNGDescriptor: Sendable {
    let fd: Int32
    let label: String
    init(fd: Int32, label: String) { self.fd = fd; self.label = label }
    deinit { close(fd) }
}
