import LaminaGeometry
import LaminaImage
import LaminaText
import LaminaModel

/// The glyph atlas as a draw list carries it to a backend: `base`, an A8 `Image` of the
/// atlas as it was when the base was taken (text items draw it), and the writes made since,
/// in order. A backend that holds `base.id` with `k` writes applied copies in
/// `writes[k...]` (dirty rectangles); one that does not uploads `base` and then every write.
/// So any list brings a backend up to date, whichever lists it skipped.
public struct TextAtlasState: Sendable {
    public var base: Image
    public var writes: [AtlasWrite]
}

/// One dirty rectangle of the atlas: its pixels (A8, `width × height` bytes, rows top first).
public struct AtlasWrite: Sendable, Equatable {
    public var x: Int, y: Int, width: Int, height: Int
    public var bytes: [UInt8]
}

/// Text layers for the draw-list builder: the render thread's layout engine (fonts,
/// HarfBuzz, ICU), the shared glyph atlas, each text layer's layout (kept while its string,
/// font, size, bounds' size, alignment, wrapping and truncation stay the same) and the
/// atlas' state for the backend. Render thread only.
final class TextDrawing {
    let engine = TextLayoutEngine()
    let atlas: GlyphAtlas
    private(set) var state: TextAtlasState?
    /// Bytes in `state.writes`; past a quarter of the atlas a new base is taken.
    private var writtenBytes = 0
    /// The atlas' evicted shelves when the base was taken: after an eviction a new base is
    /// taken, so that an atlas rectangle under one base always holds the same glyph (damage
    /// tracking compares text items by image identity and rectangle).
    private var evictionsAtBase = 0
    private var didDraw = false

    /// What a layout depends on (the layer's foregroundColor is not in it: glyphs of runs
    /// without their own color carry `layerColor` and take the layer's at draw time).
    struct Key: Equatable {
        var string: StyledText
        var font: String
        var fontSize: Double
        var size: Size
        var alignment: TextAlignmentMode
        var isWrapped: Bool
        var truncation: TextTruncationMode
    }
    struct Entry {
        var key: Key
        var layout: TextLayout
        /// The layer's last glyph run, what it was made for, and the atlas rows its glyphs lie
        /// in (nil until drawn): reused while those stay (`appendItems`).
        var run: GlyphRun? = nil
        var runKey: RunKey? = nil
        var rows: [Int32] = []
    }
    /// What a layer's glyph run depends on besides its layout: its layout scale, its bounds'
    /// origin, its color, and the atlas' evicted shelves (while none is evicted, every glyph
    /// keeps its rectangle; a grown atlas keeps them too).
    struct RunKey: Equatable {
        var scale: Double
        var origin: Point
        var color: Color?
        var evictions: Int
    }
    /// Runs reused (no glyph looked up) and made, since the start.
    private(set) var runsReused = 0
    private(set) var runsMade = 0
    /// Layouts of the layers drawn last frame and this one (the builder's memo pattern:
    /// a layer not drawn for a frame is forgotten).
    private var layouts: [LayerID: Entry] = [:]
    private var nextLayouts: [LayerID: Entry] = [:]
    /// Seconds spent laying text out in the current build.
    private(set) var layoutSeconds = 0.0
    /// Layouts made (cache misses) since the start.
    private(set) var layoutsMade = 0

    /// The color glyphs of the layer's own runs carry in a cached layout (never a real color).
    static let layerColor = Color(-1, -1, -1, -1)

    init(atlasWidth: Int = 1024, atlasHeight: Int = 512, atlasMaxHeight: Int = 4096) {
        atlas = GlyphAtlas(fonts: engine.fonts, width: atlasWidth, height: atlasHeight, maxHeight: atlasMaxHeight)
    }

    /// Starts a build: glyphs looked up from now on are in use this frame.
    func beginFrame() {
        atlas.beginFrame()
        nextLayouts.removeAll(keepingCapacity: true)
        didDraw = false
        buildBase = nil
        layoutSeconds = 0
    }

    /// The base the items of the current build name (the state's when the build drew its first glyph).
    private(set) var buildBase: Image?

    /// A new base: the atlas' pixels now, no writes.
    private func takeBase() {
        _ = atlas.takeDirtyRects()
        state = TextAtlasState(base: Image(width: atlas.width, height: atlas.height, format: .a8, pixels: atlas.pixels),
                               writes: [])
        writtenBytes = 0
        evictionsAtBase = atlas.stats.evictedShelves
    }

    /// Ends a build: the atlas' writes of this frame join the state (a new base when the
    /// atlas grew or the writes since the base pass a quarter of it). Nil when no text drew.
    func endFrame() -> TextAtlasState? {
        swap(&layouts, &nextLayouts)
        guard didDraw else { return nil }
        if state == nil || state!.base.height != atlas.height || writtenBytes > atlas.width * atlas.height / 4
            || atlas.stats.evictedShelves != evictionsAtBase {
            takeBase()
            return state
        }
        let rects = atlas.takeDirtyRects()
        if !rects.isEmpty {
            let pixels = atlas.pixels, width = atlas.width
            for r in rects {
                var bytes = [UInt8](repeating: 0, count: r.width * r.height)
                for row in 0..<r.height {
                    let from = (r.y + row) * width + r.x
                    for col in 0..<r.width { bytes[row * r.width + col] = pixels[from + col] }
                }
                state!.writes.append(AtlasWrite(x: r.x, y: r.y, width: r.width, height: r.height, bytes: bytes))
                writtenBytes += bytes.count
            }
        }
        return state
    }

    /// The layout of a text layer with properties `p`, cached by layer.
    func layout(_ id: LayerID, _ p: borrowing LayerProperties) -> TextLayout {
        let key = Key(string: p.string, font: p.font, fontSize: p.fontSize, size: p.bounds.standardized.size,
                      alignment: p.alignmentMode, isWrapped: p.isWrapped, truncation: p.truncationMode)
        if let entry = nextLayouts[id], entry.key == key { return entry.layout }  // drawn twice (its shadow)
        if let entry = layouts[id], entry.key == key {
            nextLayouts[id] = entry
            return entry.layout
        }
        let start = ContinuousClock.now
        let text = AttributedText(runs: key.string.runs.map {
            TextRun($0.text, font: $0.font, fontSize: $0.fontSize, foregroundColor: $0.foregroundColor)
        })
        let style = TextStyle(font: key.font, fontSize: key.fontSize, foregroundColor: Self.layerColor,
                              alignment: TextAlignment(rawValue: key.alignment.rawValue) ?? .natural,
                              isWrapped: key.isWrapped,
                              truncation: TextTruncation(rawValue: key.truncation.rawValue) ?? .none)
        let layout = engine.layout(text, style: style, bounds: key.size)
        nextLayouts[id] = Entry(key: key, layout: layout)
        layoutsMade += 1
        let d = (ContinuousClock.now - start).components
        layoutSeconds += Double(d.seconds) + Double(d.attoseconds) / 1e18
        return layout
    }

    /// Appends one item for the glyph quads of layer `id`'s `layout` (its entry from `layout`
    /// this build) at `scale` device pixels per point (`GlyphRun`: the encoder writes one
    /// instance per quad), clipped to `bounds` (a text layer's backing store is its bounds),
    /// each quad tinted by its glyph's color (`color` for the layer's own runs; nil draws
    /// those not at all). Nothing when no glyph draws. The layer's last run is reused while
    /// its `RunKey` holds (its glyphs' shelves marked in use, as looking them up would), so a
    /// full build costs O(1) per unchanged text layer, not O(glyphs).
    func appendItems(_ id: LayerID, _ layout: TextLayout, scale: Double, bounds: Rect, color: Color?,
                     toPixels: Transform3D, opacity: Double, clip: Int, to items: inout [DrawItem]) {
        guard !layout.glyphs.isEmpty else { return }
        beginDrawing()
        let runKey = RunKey(scale: scale, origin: bounds.standardized.origin, color: color,
                            evictions: atlas.stats.evictedShelves)
        let run: GlyphRun
        if let entry = nextLayouts[id], entry.runKey == runKey, let kept = entry.run {
            atlas.touch(rows: entry.rows)
            run = kept
            runsReused += 1
        } else {
            let missing = atlas.stats.missing
            guard let made = self.run(layout, scale: scale, bounds: bounds, color: color) else { return }
            run = made
            runsMade += 1
            // Kept unless a glyph found no room (it may next time) or a shelf was evicted for
            // one of its glyphs (the key's evictions are from before).
            if atlas.stats.missing == missing, atlas.stats.evictedShelves == runKey.evictions,
               var entry = nextLayouts[id] {   // (the entry `layout` just gave)
                entry.run = made
                entry.runKey = runKey
                entry.rows = Array(Set(made.quads.map(\.atlasY))).sorted()
                nextLayouts[id] = entry
            }
        }
        // Glyphs found now are drawn from the state at the end of this build; when that has a
        // new base (the atlas grew), the builder points the item at it (`retarget`).
        let image = buildBase!
        guard let geometry = ContentsGeometry(bounds: run.frame, imageWidth: image.width, imageHeight: image.height,
                                              gravity: .resize, contentsRect: Rect(0, 0, 1, 1),
                                              contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1) else { return }
        items.append(DrawItem(transform: toPixels, bounds: run.frame, backgroundColor: .clear, opacity: opacity,
                              kind: .image(ImageDraw(image: image, geometry: geometry, mode: .glyphs(run))), clip: clip))
    }

    /// Notes that this build draws text: the first base taken if none was, the build's base set.
    private func beginDrawing() {
        if state == nil { takeBase() }  // the first base, so that items can name it
        if buildBase == nil { buildBase = state!.base }
        didDraw = true
    }

    /// The glyph run of `layout` at `scale` (see `appendItems`), its glyphs looked up (and
    /// rasterized when new) in the atlas; nil when no glyph draws.
    func run(_ layout: TextLayout, scale: Double, bounds: Rect, color: Color?) -> GlyphRun? {
        guard !layout.glyphs.isEmpty else { return nil }
        beginDrawing()
        // Positions are relative to the bounds' origin; the layer's bounds may start elsewhere.
        let origin = bounds.standardized.origin
        let local = Rect(0, 0, bounds.standardized.size.width, bounds.standardized.size.height)
        var quads: [GlyphRun.Quad] = []
        quads.reserveCapacity(layout.glyphs.count)
        layout.forEachQuad(scale: scale, atlas: atlas, clip: local) { q in
            var c = q.color
            if c == Self.layerColor {
                guard let color else { return }
                c = color
            }
            guard c.alpha > 0, q.atlas.width > 0, q.atlas.height > 0, q.rect.size.width > 0, q.rect.size.height > 0,
                  q.rect.origin.isFinite, q.rect.size.width.isFinite, q.rect.size.height.isFinite else { return }
            let rect = Rect(q.rect.origin.x + origin.x, q.rect.origin.y + origin.y, q.rect.size.width, q.rect.size.height)
            quads.append(GlyphRun.Quad(rect: rect, atlasX: q.atlas.x, atlasY: q.atlas.y, atlasWidth: q.atlas.width,
                                       atlasHeight: q.atlas.height, color: c))
        }
        return quads.isEmpty ? nil : GlyphRun(quads: quads, scale: scale)
    }

    /// Points the text items of `items` that name `old` (this build's first base) at `base`,
    /// the base at its end (the atlas grew or a new base was taken during the build). A run's
    /// atlas rectangles are in pixels (a grown atlas keeps its width and adds rows below), so
    /// only the image changes.
    static func retarget(_ items: inout [DrawItem], from old: Image, to base: Image) {
        for k in items.indices {
            guard case .image(var draw) = items[k].kind, draw.image === old, case .glyphs = draw.mode else { continue }
            draw.image = base
            items[k].kind = .image(draw)
        }
    }
}
