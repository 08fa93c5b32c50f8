#if canImport(Glibc)
import Glibc
#endif
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree

/// CATiledLayer's arithmetic, pure (tests work it out by hand): which level of detail a
/// layer draws at and which of its tiles are in view.
public enum TiledDrawing {
    /// Tiles one tiled layer draws in a frame, at most: past it a coarser level is drawn.
    public static let maxTilesPerLayer = 1024
    /// The tile sides `tileSize` may have (pixels of the level drawn): the table's range rule,
    /// so a side outside it is refused when set; `tileSide` clamps into it all the same.
    public static let tileSides = intRange("tileSize")
    /// The most `levelsOfDetail` and `levelsOfDetailBias` may be (the table's range rules).
    public static let maxLevels = min(intRange("levelsOfDetail").upperBound, intRange("levelsOfDetailBias").upperBound)

    private static func intRange(_ keyPath: String) -> ClosedRange<Int> {
        let b = PropertyTable.row(keyPath)!.bounds!
        return Int(b.lowerBound)...Int(b.upperBound)
    }

    /// The level drawn when the layer shows `scale` device pixels per image pixel: the
    /// coarsest level with at least one of its pixels per device pixel — ℓ = ⌊−log2 scale⌋,
    /// so level ℓ is shown at a scale in (½, 1] of its own pixels — clamped to
    /// [−levelsOfDetailBias, levelsOfDetail − 1] (CATiledLayer: `levelsOfDetail` levels from
    /// full size down, each half the last; `levelsOfDetailBias` of them magnified above full size).
    public static func level(scale: Double, levelsOfDetail: Double, bias: Double) -> Int {
        let levels = levelCount(levelsOfDetail), magnified = biasCount(bias)
        guard scale.isFinite, scale > 0 else { return levels - 1 }
        let ideal = (-log2(scale)).rounded(.down)
        return Int(min(max(ideal, Double(-magnified)), Double(levels - 1)))
    }

    /// `levelsOfDetail` rounded down into 1…`maxLevels` (values set through the property table
    /// are in range already; a `LayerProperties` built in-process is not checked).
    public static func levelCount(_ v: Double) -> Int { v.isFinite ? min(max(Int(max(v, 1)), 1), maxLevels) : 1 }
    /// `levelsOfDetailBias` rounded down into 0…`maxLevels`.
    public static func biasCount(_ v: Double) -> Int { v.isFinite ? min(max(Int(max(v, 0)), 0), maxLevels) : 0 }
    /// A `tileSize` side clamped into `tileSides`.
    public static func tileSide(_ v: Double) -> Int {
        v.isFinite ? min(max(Int(max(v, 0)), tileSides.lowerBound), tileSides.upperBound) : 256
    }

    /// Device pixels per image pixel where the layer's `point` maps through `m` (the larger of
    /// the two axes'), the image's `ppx` × `ppy` pixels per point.
    public static func deviceScale(_ m: Transform3D, at point: Point, pixelsPerPoint ppx: Double, _ ppy: Double) -> Double {
        func project(_ x: Double, _ y: Double) -> (Double, Double)? {
            let w = x * m.m14 + y * m.m24 + m.m44
            guard w > 1e-9 else { return nil }
            return ((x * m.m11 + y * m.m21 + m.m41) / w, (x * m.m12 + y * m.m22 + m.m42) / w)
        }
        let dx = 1 / ppx, dy = 1 / ppy  // one image pixel, in points
        guard let c = project(point.x, point.y), let a = project(point.x + dx, point.y),
              let b = project(point.x, point.y + dy) else { return 1 }
        let sx = ((a.0 - c.0) * (a.0 - c.0) + (a.1 - c.1) * (a.1 - c.1)).squareRoot()
        let sy = ((b.0 - c.0) * (b.0 - c.0) + (b.1 - c.1) * (b.1 - c.1)).squareRoot()
        return max(sx, sy)
    }

    /// The part of `rect` (layer points) that maps through `m` into `device` (pixels): an
    /// affine map's inverse of the device box, intersected with `rect`; `rect` itself under
    /// perspective; nil when nothing of it is in view.
    public static func visible(_ rect: Rect, through m: Transform3D, in device: Rect) -> Rect? {
        guard m.m14 == 0, m.m24 == 0, m.m44 > 0 else { return rect }
        let a = m.m11 / m.m44, b = m.m12 / m.m44, c = m.m21 / m.m44, d = m.m22 / m.m44
        let tx = m.m41 / m.m44, ty = m.m42 / m.m44
        let det = a * d - b * c
        guard det != 0, det.isFinite else { return nil }
        var lo = Point(.infinity, .infinity), hi = Point(-.infinity, -.infinity)
        for (X, Y) in [(device.minX, device.minY), (device.maxX, device.minY), (device.minX, device.maxY),
                       (device.maxX, device.maxY)] {
            let u = X - tx, v = Y - ty
            let x = (u * d - v * c) / det, y = (-u * b + v * a) / det
            lo = Point(min(lo.x, x), min(lo.y, y))
            hi = Point(max(hi.x, x), max(hi.y, y))
        }
        return rect.intersection(Rect(lo.x, lo.y, hi.x - lo.x, hi.y - lo.y))
    }

    /// The tiles (columns and rows) of `level` whose image area meets `visible` (layer points)
    /// of a layer whose `bounds` show the whole `width` × `height` image.
    public static func tiles(visible: Rect, bounds: Rect, width: Int, height: Int, level: Int,
                             tileWidth: Int, tileHeight: Int) -> (columns: Range<Int>, rows: Range<Int>) {
        // Image pixels of level 0 per tile at this level.
        let span = level >= 0 ? Double(1 << level) : 1 / Double(1 << -level)
        let tw = Double(tileWidth) * span, th = Double(tileHeight) * span
        let kx = Double(width) / bounds.width, ky = Double(height) / bounds.height
        let x0 = (visible.minX - bounds.minX) * kx, x1 = (visible.maxX - bounds.minX) * kx
        let y0 = (visible.minY - bounds.minY) * ky, y1 = (visible.maxY - bounds.minY) * ky
        let columns = Int((Double(width) / tw).rounded(.up)), rows = Int((Double(height) / th).rounded(.up))
        func range(_ a: Double, _ b: Double, _ size: Double, _ count: Int) -> Range<Int> {
            let lo = max(Int((a / size).rounded(.down)), 0), hi = min(Int((b / size).rounded(.up)), count)
            return lo < hi ? lo..<hi : 0..<0
        }
        return (range(x0, x1, tw, columns), range(y0, y1, th, rows))
    }
}

extension DrawListBuilder {
    /// A tiled layer's contents (`LayerKind.tiled`): the tiles of `contents` in view at the
    /// level the layer's device scale asks for (`TiledDrawing`), each ready tile an image item;
    /// a tile not ready is asked of `tileStore` and drawn meanwhile from the nearest coarser
    /// resident tile's part covering it (or not at all); a tile drawn for the first time
    /// fades in over `fadeDuration` over that coarser part. Never waits for a tile.
    @inline(never)
    mutating func appendTiled(_ node: UnsafePointer<LayerNode>, toPixels m: Transform3D, opacity: Double, clip: Int,
                              crop: Rect?) {
        var p: LayerProperties { _read { yield node.pointee.properties } }
        drewTiled = true
        if forPatch { refuse(.tiled); return }
        guard let name = p.contents, let source = tileSource(named: name) else { return }
        let bounds = p.bounds.standardized
        guard bounds.width > 0, bounds.height > 0, bounds.origin.isFinite, bounds.width.isFinite,
              bounds.height.isFinite else { return }
        var edges = bounds
        if let crop {
            guard let cut = bounds.intersection(crop.standardized), !cut.isEmpty else { return }
            edges = cut
        }
        // In view: the target, and the layer's clip's box where it is affine.
        var device = Rect(0, 0, Double(pixelWidth), Double(pixelHeight))
        var c = clip
        while c >= 0, let k = self.clip(at: c) {
            if let box = Self.affineBox(k.rect.standardized, k.transform) {
                guard let cut = device.intersection(box) else { return }
                device = cut
            }
            c = k.parent
        }
        guard let visible = TiledDrawing.visible(edges, through: m, in: device), !visible.isEmpty else { return }
        let ppx = Double(source.width) / bounds.width, ppy = Double(source.height) / bounds.height
        let scale = TiledDrawing.deviceScale(m, at: Point(visible.midX, visible.midY), pixelsPerPoint: ppx, ppy)
        let levels = TiledDrawing.levelCount(p.levelsOfDetail)
        var level = TiledDrawing.level(scale: scale, levelsOfDetail: p.levelsOfDetail, bias: p.levelsOfDetailBias)
        let tw = TiledDrawing.tileSide(p.tileSize.width), th = TiledDrawing.tileSide(p.tileSize.height)
        var grid = TiledDrawing.tiles(visible: visible, bounds: bounds, width: source.width, height: source.height,
                                      level: level, tileWidth: tw, tileHeight: th)
        while grid.columns.count * grid.rows.count > TiledDrawing.maxTilesPerLayer {
            level += 1
            grid = TiledDrawing.tiles(visible: visible, bounds: bounds, width: source.width, height: source.height,
                                      level: level, tileWidth: tw, tileHeight: th)
        }
        let fade = p.fadeDuration.isFinite ? max(p.fadeDuration, 0) : 0
        func layerRect(_ key: TileKey) -> Rect {
            let r = source.imageRect(key)
            return Rect(bounds.minX + r.x0 / ppx, bounds.minY + r.y0 / ppy, (r.x1 - r.x0) / ppx, (r.y1 - r.y0) / ppy)
        }
        for ty in grid.rows {
            for tx in grid.columns {
                let key = TileKey(level: level, x: tx, y: ty, width: tw, height: th)
                guard let rect = layerRect(key).intersection(edges), !rect.isEmpty else { continue }
                var strength = 0.0
                var tile: Image?
                if let ready = tileStore.ready(source, key, time: time) {
                    tile = ready.image
                    strength = fadesTiles && fade > 0 ? min(max((time - ready.shownAt) / fade, 0), 1) : 1
                } else {
                    tileStore.want(source, key)
                }
                if strength < 1 {
                    // A client-drawn tile not there yet makes no frames: its answer does.
                    if tile != nil || source.clientWishes == nil { tilesPending = true }
                    // The nearest coarser resident tile's part under this one.
                    var coarser = level + 1
                    while coarser < max(levels, level + 1) {
                        let d = coarser - level
                        let under = TileKey(level: coarser, x: tx >> d, y: ty >> d, width: tw, height: th)
                        if let found = tileStore.ready(source, under, time: time) {
                            emitTile(found.image, source.imageRect(under), part: rect, bounds: bounds, ppx: ppx, ppy: ppy,
                                     edges: edges, toPixels: m, opacity: opacity, clip: clip, p: p)
                            break
                        }
                        coarser += 1
                    }
                }
                if let tile, strength > 0 {
                    emitTile(tile, source.imageRect(key), part: rect, bounds: bounds, ppx: ppx, ppy: ppy, edges: edges,
                             toPixels: m, opacity: opacity * strength, clip: clip, p: p)
                }
            }
        }
    }

    /// One item: `part` (layer points) of `tile`, whose image area is `area` (level-0 pixels).
    private mutating func emitTile(_ tile: Image, _ area: (x0: Double, y0: Double, x1: Double, y1: Double), part: Rect,
                                   bounds: Rect, ppx: Double, ppy: Double, edges: Rect, toPixels: Transform3D,
                                   opacity: Double, clip: Int, p: LayerProperties) {
        // The part's image rect in the tile's unit square.
        let ix0 = (part.minX - bounds.minX) * ppx, ix1 = (part.maxX - bounds.minX) * ppx
        let iy0 = (part.minY - bounds.minY) * ppy, iy1 = (part.maxY - bounds.minY) * ppy
        let w = area.x1 - area.x0, h = area.y1 - area.y0
        guard w > 0, h > 0 else { return }
        let unit = Rect((ix0 - area.x0) / w, (iy0 - area.y0) / h, (ix1 - ix0) / w, (iy1 - iy0) / h)
        guard let geometry = ContentsGeometry(bounds: part, imageWidth: tile.width, imageHeight: tile.height,
                                              gravity: .resize, contentsRect: unit, contentsCenter: Rect(0, 0, 1, 1),
                                              contentsScale: 1) else { return }
        func filter(_ f: ContentsFilter) -> ImageDraw.Filter {
            switch f { case .linear: .linear; case .nearest: .nearest; case .trilinear: .trilinear }
        }
        var draw = ImageDraw(image: tile, geometry: geometry, minification: filter(p.minificationFilter),
                             magnification: filter(p.magnificationFilter))
        // Sides inside the layer meet the next tile: no anti-aliasing there (no seam).
        let e = 1e-9 * max(edges.width, edges.height)
        draw.sharpEdges = (part.minX > edges.minX + e ? 1 : 0) | (part.minY > edges.minY + e ? 2 : 0)
            | (part.maxX < edges.maxX - e ? 4 : 0) | (part.maxY < edges.maxY - e ? 8 : 0)
        emit(DrawItem(transform: toPixels, bounds: part, backgroundColor: .clear, opacity: opacity, kind: .image(draw),
                      clip: clip))
    }

    /// The tile source `contents` names: a file-backed one (`tileSources`), or one over a
    /// decoded image of `images` (made once per image).
    mutating func tileSource(named name: String) -> TileSource? {
        if let source = tileSources[name] { return source }
        guard let image = images[name], image.format == .rgba8, image.surface == nil else { return nil }
        if let source = imageTileSources[image.id] { return source }
        let source = TileSource(image: image)
        imageTileSources[image.id] = source
        return source
    }

    /// The device box of `rect` through an affine `m`; nil under perspective.
    static func affineBox(_ rect: Rect, _ m: Transform3D) -> Rect? {
        guard m.m14 == 0, m.m24 == 0, m.m44 > 0 else { return nil }
        var lo = Point(.infinity, .infinity), hi = Point(-.infinity, -.infinity)
        for (x, y) in [(rect.minX, rect.minY), (rect.maxX, rect.minY), (rect.minX, rect.maxY), (rect.maxX, rect.maxY)] {
            let X = (x * m.m11 + y * m.m21 + m.m41) / m.m44, Y = (x * m.m12 + y * m.m22 + m.m42) / m.m44
            lo = Point(min(lo.x, X), min(lo.y, Y))
            hi = Point(max(hi.x, X), max(hi.y, Y))
        }
        return Rect(lo.x, lo.y, hi.x - lo.x, hi.y - lo.y)
    }
}
