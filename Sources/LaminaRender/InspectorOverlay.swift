import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree

/// What the inspector shows in one frame: the layer under the pointer and the pinned layer,
/// as reports made from the frame's presentation tree (`Inspector.report`). The render loop
/// makes it while the inspector is on; tests make it from a tree.
struct InspectorFrame {
    var hovered: InspectorReport?
    var pinned: InspectorReport?

    /// The reports for `tree` (the frame's presentation tree) with the pointer at `pointer`
    /// (canvas points; the topmost layer under it, as hit testing finds it) and `pinned`.
    init(tree: LayerTree, render: LayerTree?, at time: Double, scale: Double, pointer: Point?, pinned: LayerID?,
         names: [UInt32: String]) {
        if let pointer, let id = tree.hitTest(pointer) {
            hovered = Inspector.report(id, in: tree, at: time, scale: scale, names: names, details: false)
        }
        if let pinned {
            self.pinned = Inspector.report(pinned, in: tree, render: render, at: time, scale: scale, names: names, details: true)
        }
    }

    init(hovered: InspectorReport?, pinned: InspectorReport?) { self.hovered = hovered; self.pinned = pinned }

    /// The pinned layer's panel text: its title and owner, its presentation values, its
    /// running animations (nil when nothing is pinned).
    var panelLines: [String]? {
        guard let p = pinned else { return nil }
        var lines = [p.title + "  " + p.owner, "presentation:"]
        lines += p.properties.map { "  " + $0 }
        lines.append(p.animations.isEmpty ? "no running animations" : "animations:")
        lines += p.animations.map { "  " + $0 }
        return lines
    }
}

extension ViewerOverlay {
    /// The hovered layer's outline colour (magenta) and the pinned one's (orange).
    static let hoverColor = Color(1, 0, 1)
    static let pinColor = Color(1, 0.6, 0)
    /// The outline's width in device pixels, centred on the layer's on-screen edges.
    static let outlineWidth = 2.0
    static let textSize = 11.0, lineHeight = 14.0

    /// The inspector's items (device pixels): each layer's on-screen quad outlined; the hovered
    /// layer's name and owner in a label under its quad (above it when there is no room); the
    /// pinned layer's panel at the top right.
    mutating func inspectorItems(_ frame: InspectorFrame, width: Int, height: Int, scale: Double) -> [DrawItem] {
        let s = max(scale, 1)
        var items: [DrawItem] = []
        if let pinned = frame.pinned, let quad = pinned.quad { items += Self.outline(quad, color: Self.pinColor) }
        if let hovered = frame.hovered {
            if let quad = hovered.quad { items += Self.outline(quad, color: Self.hoverColor) }
            let lines = [hovered.title, hovered.owner]
            let box = Self.textBox(lines, scale: s)
            var x = 4 * s, y = 4 * s
            if let quad = hovered.quad {
                x = quad.map(\.x).min()!
                let below = quad.map(\.y).max()! + 4 * s, above = quad.map(\.y).min()! - 4 * s - box.height
                y = below + box.height <= Double(height) ? below : max(0, above)
            }
            x = min(max(0, x), max(0, Double(width) - box.width))
            items += textPanel(lines, at: Point(x, y), box: box, scale: s, color: Self.hoverColor)
        }
        if var lines = frame.panelLines {
            let fit = max(2, Int((Double(height) / s - 16) / Self.lineHeight))
            if lines.count > fit {
                let more = lines.count - fit + 1
                lines = Array(lines.prefix(fit - 1)) + ["… \(more) more"]
            }
            let box = Self.textBox(lines, scale: s)
            let x = max(0, Double(width) - box.width - 8 * s)
            items += textPanel(lines, at: Point(x, 8 * s), box: box, scale: s, color: .white)
        }
        return items
    }

    /// The blended-layers view's items: the counts of `list` in the palette's colours as one
    /// opaque image over the whole target (replacing the frame's own items), and a legend at the
    /// bottom left. The image is made again only when a count changed.
    mutating func blendItems(_ list: DrawList, scale: Double) -> [DrawItem] {
        let counts = BlendCount(list)
        let image: Image
        if let cached = blendCache, cached.counts == counts {
            image = cached.image
        } else {
            image = counts.image()
            blendCache = (counts, image)
        }
        let w = Double(list.width), h = Double(list.height)
        var items: [DrawItem] = []
        if let geometry = ContentsGeometry(bounds: Rect(0, 0, w, h), imageWidth: image.width, imageHeight: image.height,
                                           gravity: .resize, contentsRect: Rect(0, 0, 1, 1),
                                           contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1) {
            items.append(DrawItem(bounds: Rect(0, 0, w, h), backgroundColor: .clear,
                                  kind: .image(ImageDraw(image: image, geometry: geometry, minification: .nearest,
                                                         magnification: .nearest))))
        }
        // The legend: a swatch and its count per palette entry, under a title.
        let s = max(scale, 1)
        let swatch = 12 * s, gap = 6 * s, entry = swatch + gap + 24 * s
        let panel = Rect(4 * s, h - 4 * s - 2 * Self.lineHeight * s - 8 * s,
                         max(Double(BlendCount.palette.count) * entry, 130 * s) + 8 * s, 2 * Self.lineHeight * s + 8 * s)
        items.append(DrawItem(bounds: panel, backgroundColor: Color(0, 0, 0, 0.75), cornerRadii: CornerRadii(4 * s)))
        if text == nil { text = HUDText() }
        text!.append(["layers blended"], at: Point((panel.minX + 4 * s) / s, (panel.minY + 4 * s) / s),
                     lineHeight: Self.lineHeight, fontSize: Self.textSize, scale: s, color: .white, to: &items)
        let rowY = panel.minY + 4 * s + Self.lineHeight * s + 1 * s
        for (i, c) in BlendCount.palette.enumerated() {
            let x = panel.minX + 4 * s + Double(i) * entry
            items.append(DrawItem(bounds: Rect(x, rowY, swatch, swatch),
                                  backgroundColor: Color(Double(c.r) / 255, Double(c.g) / 255, Double(c.b) / 255),
                                  borderWidth: 1, borderColor: Color(1, 1, 1, 0.6)))
            text!.append([BlendCount.legend[i]], at: Point((x + swatch + 3 * s) / s, rowY / s - 1),
                         lineHeight: Self.lineHeight, fontSize: Self.textSize, scale: s, color: .white, to: &items)
        }
        return items
    }

    /// A quad's four edges as bars `outlineWidth` pixels wide centred on them.
    static func outline(_ quad: [Point], color: Color) -> [DrawItem] {
        quad.indices.compactMap { i in segment(quad[i], quad[(i + 1) % quad.count], width: outlineWidth, color: color) }
    }

    /// A bar from `p` to `q` (device pixels) `width` wide, centred on the segment; nil when
    /// the segment is empty or not finite.
    static func segment(_ p: Point, _ q: Point, width: Double, color: Color, opacity: Double = 1, clip: Int = -1) -> DrawItem? {
        let d = q - p
        let length = d.length
        guard length > 0, p.isFinite, q.isFinite else { return nil }
        // A rect (0, -w/2) … (length, w/2) turned onto the segment.
        let place = Transform3D.rotation(atan2(d.y, d.x)).concatenating(.translation(p.x, p.y))
        return DrawItem(transform: place, bounds: Rect(0, -width / 2, length, width), backgroundColor: color,
                        opacity: opacity, clip: clip)
    }

    /// The size (device pixels) of a panel holding `lines` of the overlay's text (DejaVu Sans
    /// Mono's advance is 0.602 em).
    static func textBox(_ lines: [String], scale s: Double) -> Size {
        let chars = lines.map(\.count).max() ?? 0
        return Size((Double(chars) * 0.61 * textSize + 12) * s, (Double(lines.count) * lineHeight + 8) * s)
    }

    /// A dark rounded panel of size `box` at `origin` (device pixels) with `lines` in it.
    mutating func textPanel(_ lines: [String], at origin: Point, box: Size, scale s: Double, color: Color) -> [DrawItem] {
        var items = [DrawItem(bounds: Rect(origin.x, origin.y, box.width, box.height), backgroundColor: Color(0, 0, 0, 0.8),
                              cornerRadii: CornerRadii(4 * s))]
        if text == nil { text = HUDText() }
        text!.append(lines, at: Point(origin.x / s + 6, origin.y / s + 4), lineHeight: Self.lineHeight,
                     fontSize: Self.textSize, scale: s, color: color, to: &items)
        return items
    }
}

/// The viewer's overlays for a caller that makes its own frames (`lamina-bench frames` with
/// `LAMINA_BENCH_OVERLAYS`): the list to draw for `settings` over a frame's list, the
/// inspector's reports made from the frame's trees as the render loop makes them.
public struct FrameOverlays {
    private var overlay = ViewerOverlay()
    public init() {}

    /// `list` with the overlays of `settings`; the inspector hit-tests `pointer` (canvas
    /// points) in `presentation` and reports `pinned` with `render`'s animations at `time`.
    public mutating func apply(_ settings: OverlaySettings, to list: DrawList, presentation: LayerTree, render: LayerTree?,
                               at time: Double, scale: Double, pointer: Point?, pinned: LayerID?,
                               names: [UInt32: String] = [:]) -> DrawList {
        guard !settings.isEmpty else { return list }
        let inspection = settings.inspector
            ? InspectorFrame(tree: presentation, render: render, at: time, scale: scale, pointer: pointer, pinned: pinned,
                             names: names)
            : nil
        return overlay.apply(settings, to: list, scale: scale, fps: 120, inspection: inspection)
    }
}
