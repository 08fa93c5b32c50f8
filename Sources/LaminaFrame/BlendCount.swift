import LaminaGeometry
import LaminaImage
import LaminaTree

/// How many layers were blended into each device pixel of a frame: the viewer's blended-layers
/// view (its O key; the Simulator's "Color Blended Layers"), computed exactly from the frame's
/// draw list on the CPU, never from its pixels.
///
/// **The count.** Every item the renderer blends into the frame counts once at each pixel
/// whose centre lies inside (or on the edge of) its footprint, and inside its clip chain (each
/// clip's rounded rect through its transform):
/// - a rect (background, border) or a gradient: its `bounds` quad under its transform;
/// - a shadow (`.shadow(sigma:)`): its bounds grown by 3σ on every side;
/// - a mesh: the union of its triangles (the coverage fringe included) — once per item even
///   where triangles overlap;
/// - an image (contents, a shape-atlas entry): the union of its pieces' destination rects;
/// - a text layer's glyphs (one item, a `GlyphRun`): the union of its glyph quads — the layer
///   counts once where any of its glyphs covers the pixel, even where two glyphs' quads
///   overlap (as the layer's own backing store would in Core Animation);
/// - a group (`.group`, group opacity): its items count as above, and the group's composite
///   counts once more wherever any of its items counts; a group of opacity 0 draws nothing and
///   counts nothing;
/// - a blurred shadow of content (`.shadowGroup`): one layer over its items' device bounding
///   box grown by ⌈3σ⌉ + 1 (the box the frame plan blurs), clipped by its clip; its items are
///   drawn offscreen only and do not count;
/// - a blend group (`.blend`): as a group (its blend step counts once where its items do);
/// - a filter group (`.filter`): as a group (a blur's spread beyond its items is not counted);
/// - background filters (`.backdrop`): once over its bounds quad, as a rect;
/// - a mask (`.mask`): its items are drawn offscreen only and do not count (nor does the step
///   that multiplies its group by it).
/// The clear colour counts nothing: a pixel no item touches counts 0. Colours and opacities do
/// not matter (an item drawn at opacity 0 is still blended).
public struct BlendCount: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major counts, rows top to bottom.
    public private(set) var counts: [UInt16]

    /// The counts of `list`'s items at every pixel of its target.
    public init(_ list: DrawList) {
        width = max(0, list.width)
        height = max(0, list.height)
        counts = [UInt16](repeating: 0, count: width * height)
        guard width > 0, height > 0 else { return }
        var counter = Counter(width: width, height: height, clips: list.clips)
        counter.count(list.items)
        counts = counter.counts
    }

    /// The count at pixel (x, y); 0 outside the target.
    public subscript(x: Int, y: Int) -> Int {
        guard x >= 0, y >= 0, x < width, y < height else { return 0 }
        return Int(counts[y * width + x])
    }

    // MARK: Palette

    /// The view's colours (sRGB bytes, opaque) by count: 0 black, 1 green, 2 yellow, 3 orange,
    /// 4 or more red. `palette[min(count, palette.count − 1)]`.
    public static let palette: [(r: UInt8, g: UInt8, b: UInt8)] = [
        (0, 0, 0), (0, 190, 0), (220, 220, 0), (255, 128, 0), (230, 0, 0),
    ]
    /// The legend's labels, one per palette entry.
    public static let legend = ["0", "1", "2", "3", "4+"]

    /// The colour of a pixel that `count` layers were blended into.
    public static func color(forCount count: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        palette[min(max(count, 0), palette.count - 1)]
    }

    /// The counts as an opaque RGBA8 image (premultiplied, which opaque pixels are unchanged
    /// by) in the palette's colours, one pixel per device pixel.
    public func image() -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let last = Self.palette.count - 1
        let table = Self.palette.map { UInt32($0.r) | UInt32($0.g) << 8 | UInt32($0.b) << 16 | 0xFF00_0000 }
        pixels.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: UInt32.self)
            counts.withUnsafeBufferPointer { c in
                for i in 0..<c.count { out[i] = UInt32(littleEndian: table[min(Int(c[i]), last)]) }
            }
        }
        return Image(width: max(width, 1), height: max(height, 1), premultipliedPixels: pixels.isEmpty ? [0, 0, 0, 255] : pixels)
    }
}

/// The counting pass (one per `BlendCount`).
private struct Counter {
    let width: Int, height: Int
    let clips: [Clip]
    var counts: [UInt16]
    /// The last item (index) that counted at each pixel: an item counts once per pixel.
    var stamp: [Int32]
    /// Per open group (by nesting depth): the last group marker that counted at each pixel.
    var groupStamps: [[Int32]] = []
    /// The open groups: marker index and the index one past their items.
    var open: [(marker: Int32, end: Int)] = []

    init(width: Int, height: Int, clips: [Clip]) {
        self.width = width; self.height = height; self.clips = clips
        counts = [UInt16](repeating: 0, count: width * height)
        stamp = [Int32](repeating: -1, count: width * height)
    }

    mutating func count(_ items: [DrawItem]) {
        var i = 0
        while i < items.count {
            while let last = open.last, last.end <= i { open.removeLast() }
            let item = items[i]
            switch item.kind {
            case .group(let opacity, let inner), .blend(_, let opacity, let inner), .filter(_, let opacity, let inner):
                if opacity > 0 && inner > 0 {
                    open.append((Int32(i), i + 1 + inner))
                    if groupStamps.count < open.count {
                        groupStamps.append([Int32](repeating: -1, count: width * height))
                    }
                    i += 1
                } else {
                    i += 1 + max(inner, 0)
                }
                continue
            case .mask(let inner):
                // Drawn offscreen; not counted (its destination-in step is left out too).
                i += 1 + max(inner, 0)
                continue
            case .raster(let r):
                // Drawn into the raster atlas; its composite (the next item) is counted.
                i += 1 + max(r.count, 0)
                continue
            case .shadowGroup(_, let sigma, let inner):
                let end = min(items.count, i + 1 + max(inner, 0))
                var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = nil
                for j in (i + 1)..<max(i + 1, end) {
                    for polygon in Footprint.polygons(of: items[j]) {
                        for p in Footprint.project(polygon, items[j].transform) {
                            box = box.map { (min($0.minX, p.x), min($0.minY, p.y), max($0.maxX, p.x), max($0.maxY, p.y)) }
                                ?? (p.x, p.y, p.x, p.y)
                        }
                    }
                }
                if let box {
                    let grow = (3 * sigma).rounded(.up) + 1
                    let minX = max(0, Int((box.minX).rounded(.down) - grow)), minY = max(0, Int((box.minY).rounded(.down) - grow))
                    let maxX = min(width, Int((box.maxX).rounded(.up) + grow)), maxY = min(height, Int((box.maxY).rounded(.up) + grow))
                    if minX < maxX && minY < maxY {
                        let square = [Point(Double(minX), Double(minY)), Point(Double(maxX), Double(minY)),
                                      Point(Double(maxX), Double(maxY)), Point(Double(minX), Double(maxY))]
                        mark(square, item: Int32(i), clip: item.clip)
                    }
                }
                i = end
                continue
            default:
                for polygon in Footprint.polygons(of: item) {
                    mark(Footprint.project(polygon, item.transform), item: Int32(i), clip: item.clip)
                }
                i += 1
            }
        }
    }

    /// Counts `item` (and its open groups) at the pixels whose centres `polygon` (convex,
    /// device pixels) covers, inside clip chain `clip`.
    mutating func mark(_ polygon: [Point], item: Int32, clip: Int) {
        guard polygon.count >= 3 else { return }
        var minY = Double.infinity, maxY = -Double.infinity
        for p in polygon { minY = min(minY, p.y); maxY = max(maxY, p.y) }
        guard minY.isFinite, maxY.isFinite else { return }
        // Rows whose centre y + ½ lies in [minY, maxY].
        let y0 = max(0, Int((minY - 0.5).rounded(.up))), y1 = min(height - 1, Int((maxY - 0.5).rounded(.down)))
        guard y0 <= y1 else { return }
        for y in y0...y1 {
            let yc = Double(y) + 0.5
            var left = Double.infinity, right = -Double.infinity
            for k in polygon.indices {
                let a = polygon[k], b = polygon[(k + 1) % polygon.count]
                if a.y == b.y {
                    if a.y == yc { left = min(left, a.x, b.x); right = max(right, a.x, b.x) }
                    continue
                }
                guard min(a.y, b.y) <= yc, yc <= max(a.y, b.y) else { continue }
                let x = a.x + (yc - a.y) * (b.x - a.x) / (b.y - a.y)
                left = min(left, x); right = max(right, x)
            }
            guard left <= right else { continue }
            let x0 = max(0, Int((left - 0.5).rounded(.up))), x1 = min(width - 1, Int((right - 0.5).rounded(.down)))
            guard x0 <= x1 else { continue }
            if open.isEmpty && clip < 0 {
                // The common case, per pixel only the stamp and the count (no checks per access).
                let row = y * width
                stamp.withUnsafeMutableBufferPointer { st in
                    counts.withUnsafeMutableBufferPointer { c in
                        for p in (row + x0)...(row + x1) where st[p] != item {
                            st[p] = item
                            c[p] &+= 1
                        }
                    }
                }
                continue
            }
            for x in x0...x1 {
                let p = y * width + x
                guard stamp[p] != item else { continue }
                if clip >= 0 && !inside(clip, Point(Double(x) + 0.5, yc)) { continue }
                stamp[p] = item
                counts[p] &+= 1
                for d in open.indices where groupStamps[d][p] != open[d].marker {
                    groupStamps[d][p] = open[d].marker
                    counts[p] &+= 1
                }
            }
        }
    }

    /// Whether the device point lies inside clip `index` and every clip above it.
    func inside(_ index: Int, _ point: Point) -> Bool {
        var c = index
        var guardCount = 0
        while c >= 0 && c < clips.count && guardCount <= clips.count {
            let clip = clips[c]
            guard let local = LayerTree.unproject(point, clip.transform),
                  Footprint.roundedRect(clip.rect, clip.radii, contains: local) else { return false }
            c = clip.parent < c ? clip.parent : -1
            guardCount += 1
        }
        return true
    }
}

/// Items' footprints as convex polygons: in local units, then in device pixels.
enum Footprint {
    /// The convex polygons (local units) an item covers; see `BlendCount`.
    static func polygons(of item: DrawItem) -> [[Point]] {
        func quad(_ r: Rect) -> [Point] {
            let r = r.standardized
            return [Point(r.minX, r.minY), Point(r.maxX, r.minY), Point(r.maxX, r.maxY), Point(r.minX, r.maxY)]
        }
        switch item.kind {
        case .rect, .gradient, .backdrop:
            return [quad(item.bounds)]
        case .shadow(let sigma):
            let b = item.bounds.standardized, g = 3 * max(sigma, 0)
            return [quad(Rect(b.minX - g, b.minY - g, b.width + 2 * g, b.height + 2 * g))]
        case .mesh(let draw):
            let v = draw.mesh.vertices, idx = draw.mesh.indices
            var out: [[Point]] = []
            out.reserveCapacity(idx.count / 3)
            var k = 0
            while k + 2 < idx.count {
                let a = Int(idx[k]), b = Int(idx[k + 1]), c = Int(idx[k + 2])
                k += 3
                guard a < v.count, b < v.count, c < v.count else { continue }
                out.append([Point(Double(v[a].x), Double(v[a].y)), Point(Double(v[b].x), Double(v[b].y)),
                            Point(Double(v[c].x), Double(v[c].y))])
            }
            return out
        case .image(let draw):
            if case .glyphs(let run) = draw.mode { return run.quads.map { quad($0.rect) } }
            return draw.geometry.pieces.map { quad($0.destination) }
        case .group, .shadowGroup, .mask, .blend, .filter, .raster:
            return []
        }
    }

    /// The polygon `m` maps the local polygon onto, in device pixels: cut where w ≤ 10⁻⁶
    /// (behind the eye), then divided by w.
    static func project(_ polygon: [Point], _ m: Transform3D) -> [Point] {
        typealias H = (x: Double, y: Double, w: Double)
        let h: [H] = polygon.map { p in
            (p.x * m.m11 + p.y * m.m21 + m.m41, p.x * m.m12 + p.y * m.m22 + m.m42, p.x * m.m14 + p.y * m.m24 + m.m44)
        }
        let near = 1e-6
        var cut: [H] = []
        if h.allSatisfy({ $0.w > near }) {
            cut = h
        } else {
            for k in h.indices {
                let a = h[k], b = h[(k + 1) % h.count]
                if a.w > near { cut.append(a) }
                if (a.w > near) != (b.w > near) {
                    let t = (near - a.w) / (b.w - a.w)
                    cut.append((a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), near))
                }
            }
        }
        return cut.compactMap { q in
            let p = Point(q.x / q.w, q.y / q.w)
            return p.isFinite ? p : nil
        }
    }

    /// Whether `p` lies in `rect` with its corners rounded by `radii` (each clamped to half
    /// the smaller side), edges included.
    static func roundedRect(_ rect: Rect, _ radii: CornerRadii, contains p: Point) -> Bool {
        let r = rect.standardized
        guard p.x >= r.minX, p.x <= r.maxX, p.y >= r.minY, p.y <= r.maxY else { return false }
        guard !radii.isZero else { return true }
        let limit = min(r.width, r.height) / 2
        func outside(_ radius: Double, _ cx: Double, _ cy: Double, _ inX: Bool, _ inY: Bool) -> Bool {
            let rad = min(max(radius, 0), limit)
            guard rad > 0, inX, inY else { return false }
            let dx = p.x - cx, dy = p.y - cy
            return dx * dx + dy * dy > rad * rad
        }
        let tl = min(max(radii.minXMinY, 0), limit), tr = min(max(radii.maxXMinY, 0), limit)
        let bl = min(max(radii.minXMaxY, 0), limit), br = min(max(radii.maxXMaxY, 0), limit)
        if outside(tl, r.minX + tl, r.minY + tl, p.x < r.minX + tl, p.y < r.minY + tl) { return false }
        if outside(tr, r.maxX - tr, r.minY + tr, p.x > r.maxX - tr, p.y < r.minY + tr) { return false }
        if outside(bl, r.minX + bl, r.maxY - bl, p.x < r.minX + bl, p.y > r.maxY - bl) { return false }
        if outside(br, r.maxX - br, r.maxY - br, p.x > r.maxX - br, p.y > r.maxY - br) { return false }
        return true
    }
}
