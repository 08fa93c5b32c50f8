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
    ///
    /// `automatic`: chosen by the automatic cache (`autoRaster`); `parts`: a plain leaf, whose
    /// items are each composited at its opacity (the shadow shows through the body, and the
    /// border item blends its border over its background each at that opacity, so its output
    /// is not its full-opacity output times the opacity): its shadow alone — whose output is
    /// — gets a region and a composite at the opacity; its other items are drawn directly.
    @inline(never)
    mutating func visitRasterized(_ slot: Int, _ record: Int, _ maskSlot: Int?, _ filters: [LayerFilter], _ store: NodeStore,
                                  _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                                  clip: Int, automatic: Bool = false, parts: Bool = false) -> Bool {
        let address = nodes.baseAddress! + slot
        let m = toPixels
        let drawn = abs(m.m11 * m.m22 - m.m12 * m.m21).squareRoot()
        let s = Self.rasterBucket(Self.rasterBasis(m, automatic: automatic)) * address.pointee.properties.rasterizationScale
        // The most texels of the drawing a device pixel spans (over the smallest singular
        // value of the plane's map): the composite reads that far past its frame.
        let largest = Self.largestStretch(m)
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
        let back = Transform3D.scale(1 / s, 1 / s, 1).concatenating(toPixels)
        let place = RasterPlacement(scale: s, texelsPerPixel: texelsPerPixel, toPixels: toPixels, opacity: opacity,
                                    clip: clip, automatic: automatic)
        if parts {
            // The shadow (an item, or a marker and what it holds) alone; no clip was made (a
            // leaf without masksToBounds), else all drawn directly.
            let drawing = Array(items[(marker + 1)..<end])
            items.removeSubrange(marker...)
            var k = 0, part = 1
            while k < drawing.count {
                let n = 1 + Self.heldCount(drawing[k].kind)
                let unit = drawing[k..<min(k + n, drawing.count)]
                k += n
                let start = items.count
                if clips.count == clipStart, Self.isShadow(unit[unit.startIndex].kind) {
                    var partKey = key
                    partKey.part = part
                    emit(Self.groupMarker(opacity: opacity, count: 0))
                    items.append(contentsOf: unit)
                    switch rasterize(marker: start, key: partKey, clipStart: clipStart, place) {
                    case .placed: part += 1; continue
                    case .empty: rasterCache.drop(partKey)
                    case .noRoom, .tooLarge: rasterCache.stats.uncached += 1
                    }
                    items.removeSubrange(start...)
                }
                // Directly: the item at the layer's opacity, as `visitLayer` draws it.
                items.append(contentsOf: unit)
                for j in start..<items.count { items[j].transform = items[j].transform.concatenating(back) }
                items[start].opacity *= opacity
                if clip >= 0, items[start].clip < 0 { items[start].clip = clip }
                part += 1
            }
            return true
        }
        switch rasterize(marker: marker, key: key, clipStart: clipStart, place) {
        case .placed:
            break
        case .empty:
            // Nothing drawn: an empty group (the planner leaves it out).
            setKind(.group(opacity: opacity, count: end - marker - 1), at: marker)
            rasterCache.drop(key)
        case .tooLarge where automatic:
            // Larger than a page: the automatic cache leaves the layer alone while its content
            // and scale bucket stay the same (`RasterCache.refuse`), not trying every frame.
            rasterCache.refuse(address.pointee.id)
            fallthrough
        case .noRoom, .tooLarge:
            // No room: the same items drawn on the target, as a group at the layer's opacity.
            rasterCache.stats.uncached += 1
            moveRaster(items: (marker + 1)..<end, clipStart: clipStart, by: back, clip: clip)
            setKind(.group(opacity: opacity, count: end - marker - 1), at: marker)
        }
        return true
    }

    /// How a rasterized drawing is composited (`rasterize`).
    struct RasterPlacement {
        var scale: Double
        var texelsPerPixel: Double
        var toPixels: Transform3D
        var opacity: Double
        var clip: Int
        var automatic: Bool
    }

    enum RasterOutcome { case placed, empty, noRoom, tooLarge }

    /// The items after `marker` (to the end), drawn in the raster space, put in a region of the
    /// atlas under `key`: the marker made `.raster`, the items moved into the region, their
    /// version found, and the composite `.image` appended. `.empty`: they draw nothing (left
    /// as they are); `.noRoom`: no region (left as they are); `.tooLarge`: larger than a page
    /// (left as they are).
    private mutating func rasterize(marker: Int, key: RasterCache.Key, clipStart: Int, _ place: RasterPlacement)
        -> RasterOutcome {
        let end = items.count, s = place.scale
        let bounds = items.withUnsafeBufferPointer { items in
            FramePlanner.deviceBounds(items, (marker + 1)..<end, width: rasterCache.width, height: rasterCache.height)
        }
        guard let b = bounds, b.minX.isFinite, b.minY.isFinite, b.maxX.isFinite, b.maxY.isFinite else { return .empty }
        // Transparent texels around the drawing: the composite's anti-aliased edge reaches half a
        // pixel past its frame (the drawing's box) and its bilinear reads half a texel more, so
        // 0.5 × texelsPerPixel + 0.5 texels. Two up to 1.1 texels a pixel (the same padding for
        // a scale on either side of its bucket), one more per 2 texels a pixel beyond.
        let pad = 2 + Int((0.5 * max(place.texelsPerPixel - 1.1, 0)).rounded(.up))
        let limit = Double(1 << 24)
        let x0 = Int(max(b.minX, -limit).rounded(.down)) - pad, y0 = Int(max(b.minY, -limit).rounded(.down)) - pad
        let x1 = Int(min(b.maxX, limit).rounded(.up)) + pad, y1 = Int(min(b.maxY, limit).rounded(.up)) + pad
        guard x1 - x0 <= rasterCache.width, y1 - y0 <= rasterCache.height else { return .tooLarge }
        guard let (page, region, _) = rasterCache.region(for: key, width: x1 - x0, height: y1 - y0,
                                                         automatic: place.automatic) else { return .noRoom }
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
        var markerItem = DrawItem(transform: place.toPixels, bounds: frame, backgroundColor: .clear, opacity: place.opacity)
        markerItem.kind = .raster(RasterDraw(page: page, region: region, version: version, count: end - marker - 1))
        items[marker] = markerItem
        guard let geometry = ContentsGeometry(bounds: frame, imageWidth: rasterCache.width, imageHeight: rasterCache.height,
                                              gravity: .resize, contentsRect: source, contentsCenter: Rect(0, 0, 1, 1),
                                              contentsScale: 1) else { return .placed }
        emit(DrawItem(transform: place.toPixels, bounds: frame, backgroundColor: .clear, opacity: place.opacity,
                      kind: .image(ImageDraw(image: rasterCache.pages[page].image, geometry: geometry)), clip: place.clip))
        return .placed
    }

    /// A shadow's item: analytic, or the marker of a blurred one.
    static func isShadow(_ kind: DrawItem.Kind) -> Bool {
        switch kind {
        case .shadow, .shadowGroup: true
        default: false
        }
    }

    /// The items a marker holds after it (0 for an item that is no marker).
    static func heldCount(_ kind: DrawItem.Kind) -> Int {
        switch kind {
        case .group(_, let count), .mask(let count), .blend(_, _, let count), .shadowGroup(_, _, let count),
             .filter(_, _, let count):
            return count
        case .raster(let r): return r.count
        default: return 0
        }
    }

    /// Whether the automatic raster cache takes the layer this frame, and how: nil, drawn
    /// directly; false, the whole layer (drawn as a group anyway: at full opacity, a layer
    /// with a mask or filters, or a translucent layer with sublayers and group opacity); true,
    /// its shadow alone (a plain leaf — a layer without sublayers, contents or masksToBounds —
    /// with a shadow: `visitRasterized`'s `parts`). The layer must be costly to draw — with
    /// `rasterizesAutomatically`, a shadow, a border, or at least 3 sublayers; with
    /// `rasterizesEffects`, a mask or filters on it or on a layer of its subtree (each an
    /// offscreen pass or more) — hold nothing that reads what lies beneath or changes without
    /// a property changing (blends, background filters, surfaces, tiles, emitters,
    /// replicators, a contents cross-fade or transition), have at most
    /// `RasterCacheLimits.maxAutoDescendants` descendants (its masks' layers and theirs
    /// included), and its content (everything but its position, transform and opacity) and
    /// scale bucket must have stayed the same for `RasterCacheLimits.stableFrames` full builds
    /// in a row (`RasterCache.observe`).
    @inline(never)
    mutating func autoRaster(_ slot: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                             toPixels: Transform3D, opacity: Double) -> Bool? {
        let address = nodes.baseAddress! + slot
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let shadow = p.shadowOpacity > 0 && !p.masksToBounds && (p.shadowColor?.alpha ?? 0) > 0 && p.shadowRadius > 0
        let border = p.borderWidth > 0 && (p.borderColor?.alpha ?? 0) > 0
        let sublayers = address.pointee.sublayers
        let ownEffects = p.mask != 0 || !p.filters.isEmpty
        let costly = rasterizesAutomatically && (shadow || border || sublayers.count >= 3)
        guard costly || (rasterizesEffects && (ownEffects || !sublayers.isEmpty)), Self.autoRasterizable(address),
              contentTransitions.isEmpty || contentTransitions[address.pointee.id] == nil else { return nil }
        let client = address.pointee.id.client
        if !costly {
            // A leaf whose one effect is a mask drawn as a clip (`shapeMaskClip`) makes no
            // offscreen pass: not watched at all (the frames mask mix's 1,000 such layers would
            // each cost two lookups in the watch list a frame).
            if sublayers.isEmpty, p.filters.isEmpty, let mask = store.slot(of: LayerID(client: client, local: p.mask)),
               shapeMaskClip(mask, nodes, toPixels: toPixels, parent: -1) != nil { return nil }
            // Its masks drawn as clips (no offscreen pass: a texture would cost more than they
            // do), or larger than a page. Watched still, in case its drawing changes.
            if rasterCache.drewNoPasses(address.pointee.id) { return nil }
        }
        let parts: Bool
        if ownEffects {
            // A masked or filtered layer is a group at its opacity (`visitFiltered`).
            parts = false
        } else if sublayers.isEmpty && address.pointee.kind == .layer && p.contents == nil && !p.masksToBounds {
            // A plain leaf: its shadow alone (the only part worth a texture).
            guard shadow, costly else { return nil }
            parts = true
        } else {
            guard opacity >= 1 || (!sublayers.isEmpty && Self.isOpacityGroup(p, hasSublayers: true, openGroups: openGroups))
            else { return nil }
            parts = false
        }
        let m = toPixels
        let drawn = abs(m.m11 * m.m22 - m.m12 * m.m21).squareRoot()
        guard drawn.isFinite, drawn > 0, m.m14 == 0, m.m24 == 0, m.m44 == 1 else { return nil }
        // The subtree (sublayers, masks and theirs), read in place: whether it makes offscreen
        // passes, and whether the cache may take it.
        var effects = ownEffects
        var ids: [LayerID] = [], slots: [Int] = []
        var pending = sublayers
        if p.mask != 0 { pending.append(LayerID(client: client, local: p.mask)) }
        while let id = pending.popLast() {
            guard ids.count < RasterCacheLimits.maxAutoDescendants, let child = store.slot(of: id) else { return nil }
            let node = nodes.baseAddress! + child
            guard Self.autoRasterizable(node) else { return nil }
            ids.append(id)
            slots.append(child)
            pending += node.pointee.sublayers
            if node.pointee.properties.mask != 0 {
                pending.append(LayerID(client: client, local: node.pointee.properties.mask))
                effects = true
            }
            if !node.pointee.properties.filters.isEmpty { effects = true }
        }
        guard costly || (rasterizesEffects && effects) else { return nil }
        // The content: the layer's properties less its motion, and its descendants'.
        var own = p
        own.position = .zero
        own.transform = .identity
        own.opacity = 1
        var content = [own]
        content.reserveCapacity(slots.count + 1)
        for child in slots { content.append(nodes[child].properties) }
        let bucket = Self.rasterBucket(Self.largestStretch(m)) * p.rasterizationScale
        let stable = rasterCache.observe(address.pointee.id, content: content, ids: ids, bucket: bucket)
        // For effects alone: once its direct drawing was seen to make offscreen passes.
        return stable && (costly || rasterCache.drewPasses(address.pointee.id) == true) ? parts : nil
    }

    /// The drawn scale a layer drawn through the plane map `m` (affine) is rasterized at,
    /// before its bucket: the square root of the map's determinant (its scale by area) for
    /// `shouldRasterize`, as Core Animation takes one scale for the layer; its largest stretch
    /// for the automatic cache, whose image must draw as the layer itself would, so that no
    /// direction is magnified beyond its bucket (a layer scaled unevenly — a Lottie layer's
    /// scale of 100 × 50 % — is not blurred along its longer axis).
    static func rasterBasis(_ m: Transform3D, automatic: Bool) -> Double {
        automatic ? largestStretch(m) : abs(m.m11 * m.m22 - m.m12 * m.m21).squareRoot()
    }

    /// The largest singular value of `m`'s 2 × 2 part: the most device pixels a unit of the
    /// plane spans, in any direction.
    static func largestStretch(_ m: Transform3D) -> Double {
        let d = abs(m.m11 * m.m22 - m.m12 * m.m21)
        let t = m.m11 * m.m11 + m.m12 * m.m12 + m.m21 * m.m21 + m.m22 * m.m22
        return ((t + max(t * t - 4 * d * d, 0).squareRoot()) / 2).squareRoot()
    }

    /// Whether a layer may be drawn by the automatic cache (see `autoRaster`): masks and
    /// filters are drawn from the subtree's own properties, so a cached image of them stays
    /// true while those stay the same; blends and background filters read what lies beneath.
    private static func autoRasterizable(_ address: UnsafePointer<LayerNode>) -> Bool {
        var p: LayerProperties { _read { yield address.pointee.properties } }
        switch address.pointee.kind {
        case .layer, .shape, .gradient, .text: break
        default: return false
        }
        return p.backgroundFilters.isEmpty && p.compositingFilter == .normalBlendMode && !address.pointee.hasContentsFade
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
