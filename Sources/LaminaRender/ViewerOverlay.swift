import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaImage

/// What the viewer draws over (or instead of) the frame's own items; all off by default.
public struct OverlaySettings: Sendable, Equatable {
    /// The heads-up display: frame rate, frame time, layer and client counts as text, a
    /// frame-time graph against the frame budget and per-phase bars.
    public var hud = false
    /// Tessellated meshes drawn as their triangles' edges (over a faint fill).
    public var wireframe = false
    /// A tint over the region each frame redrew, changing hue every frame. The region is the
    /// whole frame until damage tracking exists (every frame redraws everything today).
    public var tintRedraws = false
    /// The inspector: the layer under the pointer (`RenderLoop.setInspectorPointer`) outlined
    /// on screen with its name and owning client; the pinned layer (`setInspectorPinned`)
    /// outlined with a panel of its presentation values and running animations.
    public var inspector = false
    /// The blended-layers view: each pixel coloured by how many layers were blended into it
    /// (`BlendCount`: the count, the palette), with a legend; it replaces the frame's look.
    public var blendedLayers = false
    public init(hud: Bool = false, wireframe: Bool = false, tintRedraws: Bool = false, inspector: Bool = false,
                blendedLayers: Bool = false) {
        self.hud = hud; self.wireframe = wireframe; self.tintRedraws = tintRedraws
        self.inspector = inspector; self.blendedLayers = blendedLayers
    }
    public var isEmpty: Bool { !hud && !wireframe && !tintRedraws && !inspector && !blendedLayers }
}

/// Turns a frame's draw list into the list the viewer shows, made of ordinary draw items (no
/// pipeline of its own): the HUD's text (glyph coverage items, `HUDText`) and bars, the wireframe's edges as 1-pixel rects, the redraw
/// tint as one translucent rect, the inspector's outlines, label and panel and the
/// blended-layers view's image and legend (InspectorOverlay.swift). Clients never see these
/// items: a capture reads back the frame's own list (`FrameCaptures`). It works on a copy of the list, so it costs a copy of the
/// items per frame while it is on and nothing while every setting is off.
/// Render thread only.
struct ViewerOverlay {
    /// Frame times (seconds) of the latest frames, oldest first once full.
    private var history = [Double](repeating: 0, count: Self.historyLength)
    private var historyNext = 0
    private var latest = FramePhases()
    private var frameCount = 0
    static let historyLength = 120
    /// The overlays' text (its layout engine and glyph atlas), made when text is first drawn.
    var text: HUDText?
    /// The blended-layers view's last counts and their image (reused while no count changes).
    var blendCache: (counts: BlendCount, image: Image)?

    /// Records one frame's phases (the graph and the bars show them).
    mutating func record(_ phases: FramePhases) {
        history[historyNext] = phases.total
        historyNext = (historyNext + 1) % Self.historyLength
        latest = phases
        frameCount += 1
    }

    /// The list to draw: `list` with the overlays of `settings` (the pixel `scale` sizes the HUD).
    /// `counts` is what the HUD's text says; `inspection` what the inspector shows.
    mutating func apply(_ settings: OverlaySettings, to list: DrawList, scale: Double, fps: Double,
                        counts: HUDCounts = HUDCounts(), inspection: InspectorFrame? = nil) -> DrawList {
        var out = list
        // A frame with an overlay is drawn whole, and the frame after it too (serial 0: the
        // target then holds no list a damage could be relative to), so no overlay pixel stays.
        out.damage = nil
        out.serial = 0
        if settings.wireframe { out.items = Self.wireframe(list.items) }
        if settings.blendedLayers { out.items = blendItems(list, scale: scale) }
        if settings.inspector, let inspection {
            out.items += inspectorItems(inspection, width: list.width, height: list.height, scale: scale)
        }
        if settings.tintRedraws {
            // The region this frame's damage would redraw (the whole frame without one).
            let hues = [Color(1, 0, 0.4), Color(0, 0.7, 1), Color(1, 0.8, 0), Color(0.3, 1, 0.3)]
            var area = Rect(0, 0, Double(list.width), Double(list.height))
            if let d = list.damage?.rect {
                area = d.isEmpty ? .zero : Rect(Double(d.minX), Double(d.minY), Double(d.maxX - d.minX), Double(d.maxY - d.minY))
            }
            if area.size.width > 0, area.size.height > 0 {
                out.items.append(DrawItem(bounds: area, backgroundColor: hues[frameCount % hues.count], opacity: 0.2))
            }
        }
        if settings.hud { out.items += hud(scale: scale, budget: fps > 0 ? 1 / fps : 1 / 120.0, counts: counts) }
        return out
    }

    /// The HUD in device pixels at the top-left: a dark panel; one bar per recent frame, its
    /// height the frame's time, green within the budget and red beyond; a white line at the
    /// budget; under it one bar per phase of the latest frame (apply, evaluate, tessellate,
    /// upload, record, submit, GPU) as a share of the budget; under them `counts` as two
    /// lines of white text (11 pt).
    mutating func hud(scale: Double, budget: Double, counts: HUDCounts = HUDCounts()) -> [DrawItem] {
        let s = max(scale, 1)
        let barWidth = 2 * s, graphHeight = 80 * s, margin = 8 * s
        let width = Double(Self.historyLength) * barWidth
        let lineHeight = 14.0, textTop = margin + graphHeight + 4 * s + 7 * 8 * s
        var items: [DrawItem] = [
            DrawItem(bounds: Rect(margin - 4 * s, margin - 4 * s, width + 8 * s,
                                  graphHeight + 8 * s + 7 * 8 * s + 2 * lineHeight * s + 4 * s),
                     backgroundColor: Color(0, 0, 0, 0.7), cornerRadii: CornerRadii(4 * s)),
        ]
        if text == nil { text = HUDText() }
        text!.append(counts.lines, at: Point(margin / s, textTop / s), lineHeight: lineHeight, fontSize: 11, scale: s,
                     color: .white, to: &items)
        // The graph spans twice the budget: the budget line sits halfway up.
        let pixelsPerSecond = graphHeight / (2 * budget)
        for i in 0..<Self.historyLength {
            let t = history[(historyNext + i) % Self.historyLength]
            guard t > 0 else { continue }
            let h = min(t * pixelsPerSecond, graphHeight)
            items.append(DrawItem(bounds: Rect(margin + Double(i) * barWidth, margin + graphHeight - h, barWidth * 0.8, h),
                                  backgroundColor: t <= budget ? Color(0.2, 0.9, 0.3) : Color(1, 0.25, 0.2)))
        }
        items.append(DrawItem(bounds: Rect(margin, margin + graphHeight / 2, width, max(1, s)), backgroundColor: .white))
        let phases = latest.values + [latest.gpu ?? 0]
        let colors = [Color(0.9, 0.5, 0.1), Color(0.9, 0.9, 0.2), Color(0.6, 0.3, 0.9), Color(0.2, 0.6, 1),
                      Color(0.2, 0.9, 0.9), Color(0.9, 0.3, 0.6), Color(0.7, 0.7, 0.7)]
        for (i, seconds) in phases.enumerated() {
            let y = margin + graphHeight + 4 * s + Double(i) * 8 * s
            items.append(DrawItem(bounds: Rect(margin, y, width, 6 * s), backgroundColor: Color(1, 1, 1, 0.12)))
            let w = min(seconds / budget, 1) * width
            if w > 0 { items.append(DrawItem(bounds: Rect(margin, y, w, 6 * s), backgroundColor: colors[i])) }
        }
        return items
    }

    /// Each mesh item drawn at a third of its opacity, then each of its triangles' edges as a
    /// 1-pixel rect in device space (the edge's ends mapped through the item's transform).
    /// Groups and blurred shadows keep their items, their counts grown by the edges.
    static func wireframe(_ items: [DrawItem]) -> [DrawItem] {
        var out: [DrawItem] = []
        out.reserveCapacity(items.count)
        var next = 0
        /// Copies `count` items from `next` on (a group's, recursively), expanding meshes.
        func copy(_ count: Int) {
            var done = 0
            while done < count && next < items.count {
                let item = items[next]
                next += 1
                done += 1
                switch item.kind {
                case .group(let opacity, let inner):
                    let at = out.count
                    out.append(item)
                    copy(inner)
                    done += inner
                    out[at].kind = .group(opacity: opacity, count: out.count - at - 1)
                case .filter(let filters, let opacity, let inner):
                    let at = out.count
                    out.append(item)
                    copy(inner)
                    done += inner
                    out[at].kind = .filter(filters: filters, opacity: opacity, count: out.count - at - 1)
                case .blend(let mode, let opacity, let inner):
                    let at = out.count
                    out.append(item)
                    copy(inner)
                    done += inner
                    out[at].kind = .blend(mode: mode, opacity: opacity, count: out.count - at - 1)
                case .mask(let inner):
                    let at = out.count
                    out.append(item)
                    copy(inner)
                    done += inner
                    out[at].kind = .mask(count: out.count - at - 1)
                case .shadowGroup(let color, let sigma, let inner):
                    let at = out.count
                    out.append(item)
                    copy(inner)
                    done += inner
                    out[at].kind = .shadowGroup(color: color, sigma: sigma, count: out.count - at - 1)
                case .mesh(let draw):
                    var faint = item
                    faint.opacity *= 0.35
                    out.append(faint)
                    appendEdges(of: draw.mesh, item: item, to: &out)
                default:
                    out.append(item)
                }
            }
        }
        copy(items.count)
        return out
    }

    private static func appendEdges(of mesh: Mesh, item: DrawItem, to out: inout [DrawItem]) {
        let vertices = mesh.vertices
        var edges = Set<UInt64>()
        var index = 0
        while index + 2 < mesh.indices.count {
            let tri = (mesh.indices[index], mesh.indices[index + 1], mesh.indices[index + 2])
            index += 3
            for (a, b) in [(tri.0, tri.1), (tri.1, tri.2), (tri.2, tri.0)] {
                let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
                guard edges.insert(key).inserted else { continue }
                let p = item.transform.apply(Point(Double(vertices[Int(a)].x), Double(vertices[Int(a)].y)))
                let q = item.transform.apply(Point(Double(vertices[Int(b)].x), Double(vertices[Int(b)].y)))
                if let edge = segment(p, q, width: 1, color: Color(1, 1, 1), opacity: item.opacity, clip: item.clip) {
                    out.append(edge)
                }
            }
        }
    }
}
