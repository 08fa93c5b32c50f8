import LaminaFrame
import LaminaGeometry
import Testing
@testable import LaminaRender

/// The viewer's HUD text: fps, frame time, layer and client counts as glyph coverage items
/// (the A8 `.image` items text layers use), and those items drawn by the renderer.
@Suite(.serialized) struct HUDTextTests {
    static let counts = HUDCounts(fps: 59.94, frameMs: 16.706, layers: 12, clients: 1)

    @Test func linesSayTheCounts() {
        // One decimal for fps, two for milliseconds, rounded half away from zero.
        #expect(Self.counts.lines == ["59.9 fps  16.71 ms", "12 layers  1 client"])
        #expect(HUDCounts(fps: 120, frameMs: 0.5, layers: 1, clients: 3).lines == ["120.0 fps  0.50 ms", "1 layer  3 clients"])
    }

    /// The coverage items of a HUD drawn over an empty list, and the list.
    static func hudList(scale: Double) -> (DrawList, [DrawItem]) {
        var overlay = ViewerOverlay()
        let list = overlay.apply(OverlaySettings(hud: true), to: DrawList(width: 260, height: 200, clearColor: .black),
                                 scale: scale, fps: 60, counts: counts)
        let glyphs = list.items.filter {
            if case .image(let d) = $0.kind, case .coverage = d.mode { return true }
            return false
        }
        return (list, glyphs)
    }

    @Test func theHUDsItemsIncludeOneGlyphItemPerInkedCharacter() throws {
        let (_, glyphs) = Self.hudList(scale: 1)
        // Every character of the two lines but the spaces has ink in DejaVu Sans Mono:
        // "59.9" "fps" "16.71" "ms" (14) and "12" "layers" "1" "client" (15).
        let inked = Self.counts.lines.joined().filter { $0 != " " }.count
        #expect(inked == 29)
        #expect(glyphs.count == inked)
        for g in glyphs {
            guard case .image(let d) = g.kind, case .coverage(let c) = d.mode else { continue }
            #expect(d.image.format == .a8 && c == .white)
            // One atlas image for every glyph: the same image id (the renderer's copy is kept under it).
            #expect(d.image.id == (glyphs.first.map { if case .image(let f) = $0.kind { f.image.id } else { d.image.id } }!))
        }
        // A second frame with the same characters adds no glyph: the same atlas image.
        var overlay = ViewerOverlay()
        let a = overlay.apply(OverlaySettings(hud: true), to: DrawList(width: 260, height: 200), scale: 1, fps: 60, counts: Self.counts)
        let b = overlay.apply(OverlaySettings(hud: true), to: DrawList(width: 260, height: 200), scale: 1, fps: 60,
                              counts: HUDCounts(fps: 59.1, frameMs: 16.19, layers: 21, clients: 1))
        func imageID(_ l: DrawList) -> UInt64? {
            for i in l.items { if case .image(let d) = i.kind { return d.image.id } }
            return nil
        }
        #expect(imageID(a) != nil && imageID(a) == imageID(b))
    }

    @Test func theRendererDrawsTheGlyphs() throws {
        let (list, glyphs) = Self.hudList(scale: 1)
        let renderer = try OffscreenRenderer(width: list.width, height: list.height)
        _ = try renderer.render(list)
        let pixels = try renderer.readPixels()
        // White text on the panel (black at 0.7 over black): a pixel is bright only under
        // glyph coverage. Every bright pixel lies in a glyph item's rectangle (device pixels
        // at scale 1, one pixel of filtering either side), and there are some in each line.
        let rects = glyphs.map { $0.bounds }
        var brightPerLine = [0, 0]
        for y in 0..<list.height {
            for x in 0..<list.width {
                let p = (y * list.width + x) * 4
                let (r, g, b) = (pixels[p], pixels[p + 1], pixels[p + 2])
                guard r > 100, r == g, g == b else { continue }   // the bars are colored, not grey
                let inGlyph = rects.contains {
                    Double(x) + 0.5 >= $0.minX - 1 && Double(x) + 0.5 <= $0.maxX + 1
                        && Double(y) + 0.5 >= $0.minY - 1 && Double(y) + 0.5 <= $0.maxY + 1
                }
                // The budget line (white, 1 px) is grey too: it is above the text.
                if y < 140 { continue }
                #expect(inGlyph, "bright pixel at \(x), \(y) outside every glyph")
                brightPerLine[y < 162 ? 0 : 1] += 1
            }
        }
        #expect(brightPerLine[0] > 30 && brightPerLine[1] > 30, "\(brightPerLine)")
    }
}
