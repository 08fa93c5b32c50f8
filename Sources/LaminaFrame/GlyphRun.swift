import LaminaGeometry

/// A text layer's glyphs as one draw item (issue 30 item 3): the quads of its layout at the
/// device scale it was laid out for, each a rectangle of the glyph atlas (pixels) onto a
/// rectangle of the layer (points, its bounds' coordinates) in its own color. The item that
/// carries it (`ImageDraw.Mode.glyphs`) draws the atlas, and the encoder writes one image
/// instance per quad (`RectInstance.writeImage`): the builder, the patcher and damage see one
/// item per text layer, whatever its glyph count.
///
/// Atlas rectangles are in pixels, so a run stays valid when the atlas grows taller (the
/// encoder divides by the size of the item's image, the atlas base it draws).
///
/// Immutable; compared by value (`==`), usually by identity first.
public final class GlyphRun: Sendable, Equatable {
    /// One glyph: `rect` of the layer (points) shows `atlas` (pixels) × `color`.
    public struct Quad: Sendable, Equatable {
        /// Where it goes in the layer's bounds coordinates (points).
        public var rect: Rect
        /// Its pixels in the atlas.
        public var atlasX: Int32, atlasY: Int32, atlasWidth: Int32, atlasHeight: Int32
        /// Its color, sRGB-encoded, straight alpha (coverage × color).
        public var color: Color

        public init(rect: Rect, atlasX: Int, atlasY: Int, atlasWidth: Int, atlasHeight: Int, color: Color) {
            self.rect = rect
            self.atlasX = Int32(clamping: atlasX); self.atlasY = Int32(clamping: atlasY)
            self.atlasWidth = Int32(clamping: atlasWidth); self.atlasHeight = Int32(clamping: atlasHeight)
            self.color = color
        }
    }

    /// The glyphs, in the layout's order (the order they are drawn in).
    public let quads: [Quad]
    /// Device pixels per point the run was laid out at (`DrawListBuilder.pixelScale`): its
    /// glyph size buckets and pixel snapping. A patch moves the run only while this stays.
    public let scale: Double
    /// The union of the quads' rects (points): what the run can touch before its transform.
    public let frame: Rect

    public init(quads: [Quad], scale: Double) {
        self.quads = quads
        self.scale = scale
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for q in quads {
            let r = q.rect.standardized
            minX = min(minX, r.minX); minY = min(minY, r.minY)
            maxX = max(maxX, r.maxX); maxY = max(maxY, r.maxY)
        }
        frame = quads.isEmpty ? Rect(0, 0, 0, 0) : Rect(minX, minY, maxX - minX, maxY - minY)
    }

    /// The scale a text layer is laid out at for a device scale `pixelScale`
    /// (`DrawListBuilder.pixelScale` of its transform): rounded to a multiple of 2⁻²⁴, so that
    /// the last-bit noise of a rotation (√(cos² + sin²) is not exactly 1) does not make a
    /// turning layer's scale look new every frame — a patch moves its run while this stays.
    /// (A change under 10⁻⁷ of the scale moves no glyph by a visible amount.)
    static func layoutScale(_ pixelScale: Double) -> Double {
        (pixelScale * 16_777_216).rounded() / 16_777_216
    }

    public static func == (a: GlyphRun, b: GlyphRun) -> Bool {
        a === b || (a.scale == b.scale && a.quads == b.quads)
    }

    /// The unit-square source rect (minX, minY, maxX, maxY) of quad `q` in an atlas of
    /// `width × height` pixels, computed as a contents rect's edges are (origin, then
    /// origin + size).
    @inlinable
    public static func source(_ q: Quad, width: Int, height: Int) -> SIMD4<Float> {
        let w = Double(width), h = Double(height)
        let x = Double(q.atlasX) / w, y = Double(q.atlasY) / h
        return SIMD4(Float(x), Float(y), Float(x + Double(q.atlasWidth) / w), Float(y + Double(q.atlasHeight) / h))
    }
}
