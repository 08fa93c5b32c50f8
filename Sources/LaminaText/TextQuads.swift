import LaminaGeometry

/// One glyph to draw: a rectangle of the atlas onto a rectangle of the layer (points, y
/// down, the bounds' origin at 0,0), tinted by `color` (coverage × color, premultiplied).
public struct TextQuad: Hashable, Sendable {
    public var atlas: AtlasRect
    public var rect: Rect
    public var color: Color
}

extension TextLayout {
    /// The quads a renderer draws for this layout at `scale` device pixels per point, with
    /// glyphs looked up (and rasterized if needed) in `atlas`.
    ///
    /// Glyph origins are snapped to whole device pixels (as cairo draws them), bitmaps are
    /// rasterized at the size bucket nearest the device size and scaled by the remainder
    /// (under 1/8 pixel per em). Quads are clipped to `clip` (the bounds; nil: none), the
    /// atlas rectangle cut to match.
    public func quads(scale: Double, atlas: GlyphAtlas, clip: Rect? = nil) -> [TextQuad] {
        var quads: [TextQuad] = []
        quads.reserveCapacity(glyphs.count)
        forEachQuad(scale: scale, atlas: atlas, clip: clip) { quads.append($0) }
        return quads
    }

    /// `quads(scale:atlas:clip:)` one at a time, with no array (the renderer's per-frame path).
    public func forEachQuad(scale: Double, atlas: GlyphAtlas, clip: Rect? = nil, _ body: (TextQuad) -> Void) {
        for g in glyphs {
            let ppem = g.fontSize * scale
            let key = GlyphKey(font: g.font, glyph: g.glyph, pixelsPerEm: ppem)
            guard let entry = atlas.glyph(key) else { continue }
            let stretch = ppem / key.pixelsPerEm
            let ox = (g.position.x * scale).rounded(), oy = (g.position.y * scale).rounded()
            var rect = Rect((ox + Double(entry.left) * stretch) / scale, (oy + Double(entry.top) * stretch) / scale,
                            Double(entry.rect.width) * stretch / scale, Double(entry.rect.height) * stretch / scale)
            var source = entry.rect
            if let clip {
                let x0 = max(rect.origin.x, clip.origin.x), y0 = max(rect.origin.y, clip.origin.y)
                let x1 = min(rect.origin.x + rect.size.width, clip.origin.x + clip.size.width)
                let y1 = min(rect.origin.y + rect.size.height, clip.origin.y + clip.size.height)
                guard x1 > x0, y1 > y0 else { continue }
                if x0 != rect.origin.x || y0 != rect.origin.y || x1 != rect.origin.x + rect.size.width
                    || y1 != rect.origin.y + rect.size.height {
                    // Cut the source in whole texels; the destination follows them exactly.
                    let texel = stretch / scale
                    let left = Int(((x0 - rect.origin.x) / texel).rounded(.down))
                    let top = Int(((y0 - rect.origin.y) / texel).rounded(.down))
                    let right = Int(((rect.origin.x + rect.size.width - x1) / texel).rounded(.down))
                    let bottom = Int(((rect.origin.y + rect.size.height - y1) / texel).rounded(.down))
                    source = AtlasRect(x: source.x + left, y: source.y + top,
                                       width: source.width - left - right, height: source.height - top - bottom)
                    guard source.width > 0, source.height > 0 else { continue }
                    rect = Rect(rect.origin.x + Double(left) * texel, rect.origin.y + Double(top) * texel,
                                Double(source.width) * texel, Double(source.height) * texel)
                }
            }
            body(TextQuad(atlas: source, rect: rect, color: g.color))
        }
    }
}

/// Draws text on the CPU from the atlas: the reference Lamina's own pixels are compared
/// with (and a fallback for tools without a GPU).
public enum TextRasterizer {
    /// Composites `layout` over `image` (RGBA8, sRGB-encoded, premultiplied, `width ×
    /// height` pixels of the layer at `scale`), clipped to the image: source-over of each
    /// glyph's coverage times its color, in sRGB-encoded values, as cairo composites.
    /// Bitmaps are placed texel for pixel: at a size between two buckets the glyph is drawn
    /// at its bucket's size (a GPU quad stretches it by the remainder instead).
    public static func draw(_ layout: TextLayout, scale: Double, atlas: GlyphAtlas,
                            into image: inout [UInt8], width: Int, height: Int) {
        precondition(image.count == width * height * 4, "the image must be width × height RGBA pixels")
        let clip = Rect(0, 0, Double(width) / scale, Double(height) / scale)
        for q in layout.quads(scale: scale, atlas: atlas, clip: clip) {
            let x0 = Int((q.rect.origin.x * scale).rounded()), y0 = Int((q.rect.origin.y * scale).rounded())
            let (r, g, b, a) = q.color.premultiplied
            let cr = (r * 255).rounded(), cg = (g * 255).rounded(), cb = (b * 255).rounded(), ca = (a * 255).rounded()
            for row in 0..<q.atlas.height {
                let y = y0 + row
                guard y >= 0 && y < height else { continue }
                for col in 0..<q.atlas.width {
                    let x = x0 + col
                    guard x >= 0 && x < width else { continue }
                    let coverage = Double(atlas.pixels[(q.atlas.y + row) * atlas.width + q.atlas.x + col]) / 255
                    guard coverage > 0 else { continue }
                    let i = (y * width + x) * 4
                    let keep = 1 - coverage * ca / 255
                    image[i] = UInt8(min(255, (cr * coverage + Double(image[i]) * keep).rounded()))
                    image[i + 1] = UInt8(min(255, (cg * coverage + Double(image[i + 1]) * keep).rounded()))
                    image[i + 2] = UInt8(min(255, (cb * coverage + Double(image[i + 2]) * keep).rounded()))
                    image[i + 3] = UInt8(min(255, (ca * coverage + Double(image[i + 3]) * keep).rounded()))
                }
            }
        }
    }
}
