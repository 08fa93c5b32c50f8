import LaminaGeometry

extension RectInstance {
    /// The `.image` case of `write`: one instance per piece of the contents (one, or up to nine
    /// for a nine-slice). Each rasterizes its piece, grown for anti-aliasing only on the sides
    /// that are the frame's edges (`radii` marks them), so the pieces tile without overlapping
    /// seams.
    @inlinable
    package static func writeImage(_ item: UnsafePointer<DrawItem>, _ draw: ImageDraw, clip: Float,
                                   width: Int, height: Int, to span: inout Span) -> Written {
        if case .glyphs(let run) = draw.mode {
            return writeGlyphs(item, run, atlasWidth: draw.image.width, atlasHeight: draw.image.height, clip: clip,
                               width: width, height: height, to: &span)
        }
        if case .maskedGradient(let gradient) = draw.mode {
            return writeMaskedGradient(item, draw.geometry, gradient, clip: clip, width: width, height: height, to: &span)
        }
        guard span.hasRoom(9, .image) else { return .needsRoom(9) }  // (shape pieces: the same stride)
        let g = draw.geometry
        let frame = g.frame
        let color: SIMD4<Float>
        let mode: Float
        var second = SIMD4<Float>.zero
        switch draw.mode {
        case .color:
            color = SIMD4(1, 1, 1, 1)  // × the opacity (the vertex shader)
            mode = 0
        case .coverage(let c):
            color = premultiplied(c)
            mode = 1
        case .shape(let fill, let stroke):
            color = premultiplied(fill)
            second = premultiplied(stroke)
            mode = 2
        case .glyphs, .maskedGradient:
            return .nothing  // (above)
        }
        guard color.w > 0 || second.w > 0 else { return .nothing }
        var base = RectInstance()
        // The frame's motion once; each piece changes only its rects.
        guard base.setMotion(item.pointee.transform, cover: frame, opacity: item.pointee.opacity, width: width,
                             height: height)
        else { return .nothing }
        base.bounds = SIMD4(Float(frame.minX), Float(frame.minY), Float(frame.maxX), Float(frame.maxY))
        if mode == 2 {
            // A shape atlas entry: one piece, its quad the frame (the entry's outer texels are
            // zero, so the frame needs no anti-aliased edge).
            let s = g.source
            base.cover = base.bounds
            base.gradientPoints = base.bounds
            base.gradientLocations = SIMD4(Float(s.minX), Float(s.minY), Float(s.maxX), Float(s.maxY))
            base.fillColor = color
            base.borderColor = second
            base.params = SIMD4(0, Kind.shape.rawValue, mode, clip)
            span.append(base, .shape)
            return .drawn(count: 1, variant: PipelineVariant(kind: .shape, clipped: clip != 0))
        }
        base.fillColor = color
        base.borderColor = unitClamp
        let variant = imageVariant(item, clip: clip)
        base.params = SIMD4(0, variant.kind.rawValue, mode, clip)
        var count = 0
        for j in 0..<3 {
            for i in 0..<3 {
                guard let piece = g.piece(i, j) else { continue }
                let d = piece.destination, s = piece.source
                var instance = base
                let rect = SIMD4<Float>(Float(d.minX), Float(d.minY), Float(d.maxX), Float(d.maxY))
                instance.gradientPoints = rect
                instance.gradientLocations = SIMD4(Float(s.minX), Float(s.minY), Float(s.maxX), Float(s.maxY))
                instance.cover = rect
                // Grown on the frame's edges only (the first and last cuts).
                instance.radii = SIMD4(i == 0 || g.xCuts[i] == g.xCuts[0] ? 1 : 0,
                                       j == 0 || g.yCuts[j] == g.yCuts[0] ? 1 : 0,
                                       g.xCuts[i + 1] == g.xCuts[3] ? 1 : 0,
                                       g.yCuts[j + 1] == g.yCuts[3] ? 1 : 0)
                if draw.sharpEdges != 0 {
                    let e = draw.sharpEdges
                    instance.radii *= SIMD4(e & 1 != 0 ? 0 : 1, e & 2 != 0 ? 0 : 1, e & 4 != 0 ? 0 : 1, e & 8 != 0 ? 0 : 1)
                }
                span.append(instance, .image)
                count += 1
            }
        }
        return count > 0 ? .drawn(count: count, variant: variant) : .nothing
    }

    /// A masked gradient's instances (`ImageDraw.Mode.maskedGradient`): a shape piece's quad and
    /// texture position (the coverage entry's frame onto its part of the image: `cover` and
    /// `gradientPoints`), the gradient's stops as `writeGradient` writes them (one instance per
    /// chunk of up to four), and its coordinate map's rows in `bounds` (u) and `radii` (v).
    @inlinable
    package static func writeMaskedGradient(_ item: UnsafePointer<DrawItem>, _ geometry: ContentsGeometry,
                                            _ gradient: MaskedGradient, clip: Float, width: Int, height: Int,
                                            to span: inout Span) -> Written {
        let n = gradient.colors.count
        guard span.hasRoom(max(1, (n + 1) / 3), .maskedAxial) else { return .needsRoom(max(1, (n + 1) / 3)) }
        let frame = geometry.frame, map = gradient.map
        var base = RectInstance()
        guard n > 0, map.count == 6, gradient.type != .conic,
              base.setMotion(item.pointee.transform, cover: frame, opacity: item.pointee.opacity, width: width,
                             height: height)
        else { return .nothing }
        let s = geometry.source
        base.cover = SIMD4(Float(frame.minX), Float(frame.minY), Float(frame.maxX), Float(frame.maxY))
        base.gradientPoints = SIMD4(Float(s.minX), Float(s.minY), Float(s.maxX), Float(s.maxY))
        base.bounds = SIMD4(Float(map[0]), Float(map[1]), Float(map[2]), 0)
        base.radii = SIMD4(Float(map[3]), Float(map[4]), Float(map[5]), 0)
        let kind: Kind = gradient.type == .axial ? .maskedAxial : .maskedRadial
        base.params = SIMD4(0, kind.rawValue, 0, clip)
        let count = appendStops(base, colors: gradient.colors, locations: gradient.locations, kind: kind, to: &span)
        return count > 0 ? .drawn(count: count, variant: PipelineVariant(kind: kind, clipped: clip != 0)) : .nothing
    }

    /// An image piece's texel clamp (`borderColor` of kinds 6 and 12: the rect its texture
    /// position is clamped to) for an image of its own: the unit square, which changes nothing
    /// (the sampler clamps to the edge texels). A small-image atlas entry's is its texels'
    /// centres (`placeInAtlas`).
    @usableFromInline static let unitClamp = SIMD4<Float>(0, 0, 1, 1)

    /// Moves the `count` image-piece instances at `instances` (`stride` apart, as just written
    /// by `write` for an image of its own: sources in the image's unit square) into an atlas
    /// page: each source `s` becomes `region.xy + s × (region.zw − region.xy)` (the image's
    /// rect in the page's unit square), and the texel clamp `clamp` (the image's outermost
    /// texel centres in the page), so that sampling reads the image's texels only and its edge
    /// texels extend beyond its edges as they do for an image of its own.
    @inlinable
    package static func placeInAtlas(_ instances: UnsafeMutableRawPointer, count: Int, stride: Int,
                                     region: SIMD4<Float>, clamp: SIMD4<Float>) {
        let sourceOffset = MemoryLayout<RectInstance>.offset(of: \.gradientLocations)!
        let clampOffset = MemoryLayout<RectInstance>.offset(of: \.borderColor)!
        let origin = SIMD4(region.x, region.y, region.x, region.y)
        let size = SIMD4(region.z - region.x, region.w - region.y, region.z - region.x, region.w - region.y)
        for k in 0..<count {
            let instance = instances + k * stride
            let source = instance.loadUnaligned(fromByteOffset: sourceOffset, as: SIMD4<Float>.self)
            instance.storeBytes(of: origin + source * size, toByteOffset: sourceOffset, as: SIMD4<Float>.self)
            instance.storeBytes(of: clamp, toByteOffset: clampOffset, as: SIMD4<Float>.self)
        }
    }

    /// The variant drawing image pieces of `item`: the lean `.imageSharp` under an affine
    /// transform (its texture position and edge distances are affine in screen space, so
    /// interpolated), `.image` under perspective.
    @inlinable @inline(__always)
    static func imageVariant(_ item: UnsafePointer<DrawItem>, clip: Float) -> PipelineVariant {
        PipelineVariant(kind: item.pointee.m14 == 0 && item.pointee.m24 == 0 ? .imageSharp : .image, clipped: clip != 0,
                        additive: item.pointee.additive)
    }
}

extension RectInstance {
    /// A glyph run's instances (`ImageDraw.Mode.glyphs`): one coverage image piece per quad —
    /// the instance a one-piece coverage image of the quad's rect and atlas rectangle in the
    /// quad's color would write (its quad grown on every side), so a run draws the pixels its
    /// glyphs drawn one item each did. Under an affine transform the motion part is the same
    /// for every quad (made once); under perspective each quad's margins are its own, and a
    /// quad behind the eye is left out. One variant, so one instanced draw.
    @inlinable
    package static func writeGlyphs(_ item: UnsafePointer<DrawItem>, _ run: GlyphRun, atlasWidth: Int, atlasHeight: Int,
                                    clip: Float, width: Int, height: Int, to span: inout Span) -> Written {
        let quads = run.quads
        guard !quads.isEmpty else { return .nothing }
        guard span.hasRoom(quads.count, .image) else { return .needsRoom(quads.count) }
        let m = item.pointee.transform, opacity = item.pointee.opacity
        let affine = m.m14 == 0 && m.m24 == 0
        var base = RectInstance()
        // (Affine: the margins do not depend on the rect; the frame checks finiteness for all.)
        if affine {
            guard base.setMotion(m, cover: run.frame, opacity: opacity, width: width, height: height) else {
                return .nothing
            }
        }
        let variant = imageVariant(item, clip: clip)
        base.params = SIMD4(0, variant.kind.rawValue, 1, clip)
        base.radii = SIMD4(1, 1, 1, 1)  // one piece: every side is the frame's edge
        base.borderColor = unitClamp
        var count = 0
        for q in quads {
            let r = q.rect
            var instance = base
            if !affine {
                guard instance.setMotion(m, cover: r, opacity: opacity, width: width, height: height) else { continue }
            }
            let rect = SIMD4<Float>(Float(r.minX), Float(r.minY), Float(r.maxX), Float(r.maxY))
            instance.bounds = rect
            instance.cover = rect
            instance.gradientPoints = rect
            instance.gradientLocations = GlyphRun.source(q, width: atlasWidth, height: atlasHeight)
            instance.fillColor = premultiplied(q.color)
            span.append(instance, .image)
            count += 1
        }
        return count > 0 ? .drawn(count: count, variant: variant) : .nothing
    }
}
