import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaText

/// What the HUD's text says: the frame rate and frame time, and the layer and client counts
/// (from `FrameStats` and the daemon's connections).
public struct HUDCounts: Sendable, Equatable {
    public var fps: Double
    /// The latest frame's time, in milliseconds.
    public var frameMs: Double
    public var layers: Int
    public var clients: Int
    public init(fps: Double = 0, frameMs: Double = 0, layers: Int = 0, clients: Int = 0) {
        self.fps = fps; self.frameMs = frameMs; self.layers = layers; self.clients = clients
    }

    /// The HUD's lines, e.g. "59.9 fps  16.69 ms" and "12 layers  2 clients".
    public var lines: [String] {
        [Self.fixed(fps, 1) + " fps  " + Self.fixed(frameMs, 2) + " ms",
         "\(layers) layer\(layers == 1 ? "" : "s")  \(clients) client\(clients == 1 ? "" : "s")"]
    }

    /// `value` with `digits` decimals (no Foundation formatting on the render thread).
    static func fixed(_ value: Double, _ digits: Int) -> String { Inspector.fixed(value, digits) }
}

/// The HUD's text, drawn as text layers are: LaminaText lays a line out (HarfBuzz, fontconfig),
/// its glyphs go into a small atlas of the HUD's own, and each glyph quad is an `.image` item
/// in A8 coverage mode (the `image` pipeline's glyph path) over the atlas as an A8
/// `Image`. The atlas image is made again only when a glyph is added to the atlas (the HUD's
/// few characters are all in it after its first frames), so the backend uploads it once per
/// change and frees the old one when no item draws it. Render thread only.
final class HUDText {
    private let engine = TextLayoutEngine()
    private let atlas: GlyphAtlas
    /// The atlas as an image (nil until the first glyph).
    private(set) var image: Image?
    let font = "DejaVu Sans Mono"

    init() { atlas = GlyphAtlas(fonts: engine.fonts, width: 256, height: 128, maxHeight: 512) }

    /// Appends the items of `lines`, the first's top-left at `origin` (points), each
    /// `lineHeight` below the one before, `fontSize` points, at `scale` device pixels per
    /// point, in `color`. Every line's glyphs are in the atlas before its image is taken, so
    /// all the items name one image.
    func append(_ lines: [String], at origin: Point, lineHeight: Double, fontSize: Double, scale: Double, color: Color,
                to items: inout [DrawItem]) {
        atlas.beginFrame()
        let style = TextStyle(font: font, fontSize: fontSize, foregroundColor: color)
        var quads: [(TextQuad, Double)] = []
        for (i, line) in lines.enumerated() {
            let layout = engine.layout(AttributedText(line), style: style, bounds: Size(4096, fontSize * 4))
            for q in layout.quads(scale: scale, atlas: atlas) { quads.append((q, Double(i) * lineHeight)) }
        }
        guard !quads.isEmpty else { return }
        let added = !atlas.takeDirtyRects().isEmpty   // taken every time: they are since the last image
        if image == nil || image!.height != atlas.height || added {
            image = Image(width: atlas.width, height: atlas.height, format: .a8, pixels: atlas.pixels)
        }
        let image = self.image!
        let toPixels = Transform3D.scale(scale, scale, 1)
        for (q, dy) in quads {
            let source = Rect(Double(q.atlas.x) / Double(atlas.width), Double(q.atlas.y) / Double(atlas.height),
                              Double(q.atlas.width) / Double(atlas.width), Double(q.atlas.height) / Double(atlas.height))
            let rect = Rect(q.rect.origin.x + origin.x, q.rect.origin.y + origin.y + dy, q.rect.size.width, q.rect.size.height)
            guard let geometry = ContentsGeometry(bounds: rect, imageWidth: atlas.width, imageHeight: atlas.height,
                                                  gravity: .resize, contentsRect: source,
                                                  contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1) else { continue }
            items.append(DrawItem(transform: toPixels, bounds: rect, backgroundColor: .clear,
                                  kind: .image(ImageDraw(image: image, geometry: geometry, mode: .coverage(q.color)))))
        }
    }
}
