import LaminaGeometry
import LaminaText
import Testing

/// The atlas: caching, size buckets, dirty rectangles, LRU eviction by shelf, growth.
@Suite struct GlyphAtlasTests {
    let engine = TextLayoutEngine()

    func glyphs(_ s: String, size: Double = 24) -> [PositionedGlyph] {
        engine.layout(AttributedText(s), style: TextStyle(fontSize: size), bounds: Size(2000, 100)).glyphs
    }

    @Test func aGlyphIsRasterizedOnceAndItsRectUploadedOnce() throws {
        let atlas = GlyphAtlas(fonts: engine.fonts)
        let a = try #require(glyphs("a").first)
        let key = GlyphKey(font: a.font, glyph: a.glyph, pixelsPerEm: 24)
        let first = try #require(atlas.glyph(key))
        #expect(atlas.takeDirtyRects() == [first.rect])
        #expect(atlas.glyph(key) == first)
        #expect(atlas.takeDirtyRects().isEmpty)
        #expect(atlas.stats.rasterized == 1)
        // Its coverage is where the rect says, and nothing was written outside it.
        let inside = (0..<first.rect.height).flatMap { r in (0..<first.rect.width).map { c in
            atlas.pixels[(first.rect.y + r) * atlas.width + first.rect.x + c] } }
        #expect(inside.contains { $0 > 200 })
        #expect(atlas.pixels.reduce(0) { $0 + Int($1) } == inside.reduce(0) { $0 + Int($1) })
    }

    @Test func aSpaceHasNoBitmap() throws {
        let atlas = GlyphAtlas(fonts: engine.fonts)
        let space = try #require(glyphs("a b").dropFirst().first)
        #expect(atlas.glyph(GlyphKey(font: space.font, glyph: space.glyph, pixelsPerEm: 24)) == nil)
    }

    /// An "H" stem's height follows the size it is rasterized at: crisp at any scale.
    @Test func scaleChangesTheBucketAndTheBitmap() throws {
        let atlas = GlyphAtlas(fonts: engine.fonts)
        let h = try #require(glyphs("H").first)
        let small = try #require(atlas.glyph(GlyphKey(font: h.font, glyph: h.glyph, pixelsPerEm: 24)))
        let large = try #require(atlas.glyph(GlyphKey(font: h.font, glyph: h.glyph, pixelsPerEm: 96)))
        // DejaVu Sans' cap height is 1493/2048 em: 17.5 px at 24, 70 px at 96 (±1 for antialiasing).
        #expect(abs(Double(small.rect.height) - 1493.0 / 2048 * 24) <= 1.5)
        #expect(abs(Double(large.rect.height) - 1493.0 / 2048 * 96) <= 1.5)
        #expect(GlyphKey(font: h.font, glyph: h.glyph, pixelsPerEm: 24.1).bucket == GlyphKey(font: h.font, glyph: h.glyph, pixelsPerEm: 24).bucket)
        #expect(GlyphKey(font: h.font, glyph: h.glyph, pixelsPerEm: 24.2).bucket != GlyphKey(font: h.font, glyph: h.glyph, pixelsPerEm: 24).bucket)
    }

    /// A full atlas evicts the least recently used shelf, never one used this frame, and
    /// reports a glyph it cannot place rather than overwrite one in use.
    @Test func evictionIsLeastRecentlyUsedShelfAndSparesTheCurrentFrame() throws {
        let g = glyphs("HEF", size: 40)
        func key(_ i: Int) -> GlyphKey { GlyphKey(font: g[i].font, glyph: g[i].glyph, pixelsPerEm: 40) }
        // Capital letters at 40 px are about 30 px tall and 20–25 px wide: in 30×80 there is
        // room for two shelves of one glyph each (30 wide).
        let atlas = GlyphAtlas(fonts: engine.fonts, width: 30, height: 80, maxHeight: 80)
        atlas.beginFrame()
        let h = try #require(atlas.glyph(key(0)))
        atlas.beginFrame()
        let e = try #require(atlas.glyph(key(1)))
        #expect(h.rect.y != e.rect.y)
        _ = atlas.takeDirtyRects()
        atlas.beginFrame()
        #expect(atlas.glyph(key(0)) == h)                  // H used in this frame
        let f = try #require(atlas.glyph(key(2)))          // no room: E's shelf (older) goes
        #expect(f.rect.y == e.rect.y)
        #expect(atlas.stats.evictedShelves == 1 && atlas.stats.evictedGlyphs == 1)
        #expect(atlas.takeDirtyRects().contains { $0.y == e.rect.y && $0.width == atlas.width })
        #expect(atlas.glyph(key(1)) == nil)                // both shelves in use: E cannot come back now
        #expect(atlas.stats.missing == 1)
        #expect(atlas.glyph(key(0)) == h)
        atlas.beginFrame()
        #expect(atlas.glyph(key(1)) != nil)                // next frame, it can
    }

    /// `touch(rows:)` marks the shelf holding a row in use this frame, as looking its glyphs
    /// up does (a text layer's kept glyph run): the same setting as above, but H's shelf
    /// touched by a row inside it (not its first) instead of looked up — and then E's shelf,
    /// touched by its first row, is spared while H's (untouched) goes.
    @Test func touchingARowKeepsItsShelfAsALookupDoes() throws {
        let g = glyphs("HEF", size: 40)
        func key(_ i: Int) -> GlyphKey { GlyphKey(font: g[i].font, glyph: g[i].glyph, pixelsPerEm: 40) }
        for touchE in [false, true] {
            let atlas = GlyphAtlas(fonts: engine.fonts, width: 30, height: 80, maxHeight: 80)
            atlas.beginFrame()
            let h = try #require(atlas.glyph(key(0)))
            atlas.beginFrame()
            let e = try #require(atlas.glyph(key(1)))
            atlas.beginFrame()
            // H's shelf is the older: untouched, it would go.
            atlas.touch(rows: touchE ? [Int32(e.rect.y)] : [Int32(h.rect.y + 3)])
            let f = try #require(atlas.glyph(key(2)))
            #expect(f.rect.y == (touchE ? h.rect.y : e.rect.y))
            #expect(atlas.stats.evictedShelves == 1)
            let rasterized = atlas.stats.rasterized
            if touchE { #expect(atlas.glyph(key(1)) == e) } else { #expect(atlas.glyph(key(0)) == h) }
            #expect(atlas.stats.rasterized == rasterized, "the touched shelf's glyph is still there")
        }
    }

    @Test func theAtlasGrowsWhenEveryShelfIsInUse() throws {
        let letters = glyphs("ABCDEFGH", size: 40)
        let atlas = GlyphAtlas(fonts: engine.fonts, width: 64, height: 64, maxHeight: 256)
        atlas.beginFrame()
        for g in letters { #expect(atlas.glyph(GlyphKey(font: g.font, glyph: g.glyph, pixelsPerEm: 40)) != nil) }
        #expect(atlas.height > 64)
        #expect(atlas.pixels.count == atlas.width * atlas.height)
        #expect(atlas.stats.evictedShelves == 0)
    }

    @Test func quadsAreClippedToTheBounds() throws {
        let layout = engine.layout("Clip", style: TextStyle(fontSize: 40), bounds: Size(30, 20))
        let atlas = GlyphAtlas(fonts: engine.fonts)
        let all = layout.quads(scale: 2, atlas: atlas)
        let clipped = layout.quads(scale: 2, atlas: atlas, clip: Rect(0, 0, 30, 20))
        #expect(clipped.count < all.count + 1 && !clipped.isEmpty)
        for q in clipped {
            #expect(q.rect.origin.x >= -1e-9 && q.rect.origin.y >= -1e-9)
            #expect(q.rect.origin.x + q.rect.size.width <= 30 + 0.5 + 1e-9)
            #expect(q.rect.origin.y + q.rect.size.height <= 20 + 0.5 + 1e-9)
            // The atlas rectangle keeps the quad's texel scale (2 texels per point at scale 2).
            #expect(abs(q.rect.size.width * 2 - Double(q.atlas.width)) < 1e-9)
            #expect(abs(q.rect.size.height * 2 - Double(q.atlas.height)) < 1e-9)
        }
    }
}
