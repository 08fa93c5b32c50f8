#if canImport(Glibc)
import Glibc
#endif
import LaminaGeometry
import LaminaModel
import LaminaTree

extension DrawListBuilder {
    /// Steps per octave of the raster cache's scale buckets: a layer is rasterized at its drawn
    /// scale rounded to the nearest 2^(k/8) (within ±4.4 %), so a layer whose scale animates
    /// is drawn again every eighth of an octave, not every frame.
    static let rasterBucketsPerOctave = 8.0

    /// The scale a layer drawn at `drawn` device pixels per point is rasterized at (before
    /// `rasterizationScale`): `drawn` rounded to its bucket.
    static func rasterBucket(_ drawn: Double) -> Double {
        let steps = (log2(drawn) * rasterBucketsPerOctave).rounded()
        return exp2(steps / rasterBucketsPerOctave)
    }

    /// A rasterized layer (CALayer.shouldRasterize): the layer — its shadow, own items, mask and
    /// filters, sublayers — drawn at full opacity in its own plane scaled by the raster scale
    /// (its drawn scale's bucket × `rasterizationScale`), unclipped, into a region of the raster
    /// atlas (a `.raster` marker and those items), then one `.image` item compositing the region
    /// in the layer's plane with its transform, opacity and the clips around it. The items are
    /// compared with the cache entry's: unchanged, the backend composites what it holds. With no
    /// room in the atlas the layer is drawn directly (the same items moved back to the target, a
    /// group at its opacity). Returns false when the layer cannot be rasterized (a scale that is
    /// zero or not finite): the caller draws it as usual.
    @inline(never)
    mutating func visitRasterized(_ slot: Int, _ record: Int, _ maskSlot: Int?, _ filters: [LayerFilter], _ store: NodeStore,
                                  _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                                  clip: Int) -> Bool {
        let address = nodes.baseAddress! + slot
        let m = toPixels
        let drawn = abs(m.m11 * m.m22 - m.m12 * m.m21).squareRoot()
        let s = Self.rasterBucket(drawn) * address.pointee.properties.rasterizationScale
        // The most texels of the drawing a device pixel spans (over the smallest singular
        // value of the plane's map): the composite reads that far past its frame.
        let t = m.m11 * m.m11 + m.m12 * m.m12 + m.m21 * m.m21 + m.m22 * m.m22
        let largest = ((t + max(t * t - 4 * drawn * drawn * drawn * drawn, 0).squareRoot()) / 2).squareRoot()
        let texelsPerPixel = s * largest / (drawn * drawn)
        // Affine only (under perspective the texels per pixel vary over the layer).
        guard m.m14 == 0, m.m24 == 0, m.m44 == 1, drawn.isFinite, drawn > 0, s.isFinite, s > 1e-3, s < 1e3,
              texelsPerPixel.isFinite, texelsPerPixel <= 16, openGroups < Self.maxNestedGroups else { return false }
        let key = rasterCache.key(for: address.pointee.id)
        let marker = items.count
        let clipStart = clips.count
        emit(Self.groupMarker(opacity: opacity, count: 0))
        openGroups += 1
        rasterDepth += 1
        let space = Transform3D.scale(s, s, 1)
        visitFiltered(slot, record, maskSlot, filters, store, nodes, toPixels: space, opacity: 1, clip: -1)
        rasterDepth -= 1
        openGroups -= 1
        let end = items.count
        let bounds = items.withUnsafeBufferPointer { items in
            FramePlanner.deviceBounds(items, (marker + 1)..<end, width: rasterCache.width, height: rasterCache.height)
        }
        // Nothing drawn: an empty group (the planner leaves it out).
        guard let b = bounds, b.minX.isFinite, b.minY.isFinite, b.maxX.isFinite, b.maxY.isFinite else {
            setKind(.group(opacity: opacity, count: end - marker - 1), at: marker)
            rasterCache.drop(key)
            return true
        }
        // Transparent texels around the drawing: the composite's anti-aliased edge reaches half a
        // pixel past its frame (the drawing's box) and its bilinear reads half a texel more, so
        // 0.5 × texelsPerPixel + 0.5 texels. Two up to 1.1 texels a pixel (the same padding for
        // a scale on either side of its bucket), one more per 2 texels a pixel beyond.
        let pad = 2 + Int((0.5 * max(texelsPerPixel - 1.1, 0)).rounded(.up))
        let limit = Double(1 << 24)
        let x0 = Int(max(b.minX, -limit).rounded(.down)) - pad, y0 = Int(max(b.minY, -limit).rounded(.down)) - pad
        let x1 = Int(min(b.maxX, limit).rounded(.up)) + pad, y1 = Int(min(b.maxY, limit).rounded(.up)) + pad
        guard let (page, region, _) = rasterCache.region(for: key, width: x1 - x0, height: y1 - y0) else {
            // No room: the same items drawn on the target, as a group at the layer's opacity.
            rasterCache.stats.uncached += 1
            moveRaster(items: (marker + 1)..<end, clipStart: clipStart,
                       by: Transform3D.scale(1 / s, 1 / s, 1).concatenating(toPixels), clip: clip)
            setKind(.group(opacity: opacity, count: end - marker - 1), at: marker)
            return true
        }
        let tx = Double(region.minX - x0), ty = Double(region.minY - y0)
        moveRaster(items: (marker + 1)..<end, clipStart: clipStart, by: .translation(tx, ty, 0), clip: -1)
        let version = rasterCache.version(for: key, items: items[(marker + 1)..<end], clips: clips[clipStart...],
                                          clipStart: clipOffset + clipStart)
        // The composite: the drawing's box (the region less the padding), in the layer's plane.
        let inner = Rect(Double(region.minX + pad), Double(region.minY + pad), Double(region.maxX - region.minX - 2 * pad),
                         Double(region.maxY - region.minY - 2 * pad))
        let frame = Rect((inner.minX - tx) / s, (inner.minY - ty) / s, inner.width / s, inner.height / s)
        let w = Double(rasterCache.width), h = Double(rasterCache.height)
        let source = Rect(inner.minX / w, inner.minY / h, inner.width / w, inner.height / h)
        var markerItem = DrawItem(transform: toPixels, bounds: frame, backgroundColor: .clear, opacity: opacity)
        markerItem.kind = .raster(RasterDraw(page: page, region: region, version: version, count: end - marker - 1))
        items[marker] = markerItem
        guard let geometry = ContentsGeometry(bounds: frame, imageWidth: rasterCache.width, imageHeight: rasterCache.height,
                                              gravity: .resize, contentsRect: source, contentsCenter: Rect(0, 0, 1, 1),
                                              contentsScale: 1) else { return true }
        emit(DrawItem(transform: toPixels, bounds: frame, backgroundColor: .clear, opacity: opacity,
                      kind: .image(ImageDraw(image: rasterCache.pages[page].image, geometry: geometry)), clip: clip))
        return true
    }

    /// Maps the items of `range` and the clips from `clipStart` on (drawn in a raster space)
    /// by `m` after their transforms; items and clips without a clip get `clip`.
    private mutating func moveRaster(items range: Range<Int>, clipStart: Int, by m: Transform3D, clip: Int) {
        for k in range {
            items[k].transform = items[k].transform.concatenating(m)
            if clip >= 0, items[k].clip < 0 { items[k].clip = clip }
        }
        for c in clipStart..<clips.count {
            clips[c].transform = clips[c].transform.concatenating(m)
            if clip >= 0, clips[c].parent < 0 { clips[c].parent = clip }
        }
    }
}
