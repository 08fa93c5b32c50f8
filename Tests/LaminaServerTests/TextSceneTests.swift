import Foundation
import Lamina
import LaminaGeometry
import LaminaPNG
import LaminaRender
import Testing
import TestSupport
import LaminaSceneTree

/// Text layers in scene files, the path `laminactl render` takes (`Scene` → tree → builder →
/// lavapipe), against Pango + cairo's rasters of the same text from `scripts/text-references`
/// (LaminaTextTests' References: `latin-bold-scale2` is DejaVu Sans Bold 20 pt, #FFD94D, in a
/// 300 × 32 box at 2 device pixels per point; `styled-runs` is three runs of other sizes,
/// fonts and colors at scale 1). Each scene is one text layer filling a canvas of the case's
/// bounds over its background (#141A29). Rule: mean ≤ 1/255, ≤ 0.5 % of pixels off by more
/// than 64/255 (the independent-renderer rule).
@Suite("Text scenes against Pango")
struct TextSceneTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LaminaTextTests/References").path

    func check(_ json: String, _ name: String) throws {
        let scene = try Scene(json: json)
        let compositor = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                                scale: scene.scale, background: scene.background)
        let pixels = try compositor.render(try scene.tree(at: 0).presentation(at: 0))
        let image = RGBAImage(width: compositor.pixelWidth, height: compositor.pixelHeight, pixels: pixels)
        try expectMatchesReference(image, "\(Self.references)/\(name).png",
                                   .independent(mean: 1, percent: 0.5, threshold: 64), name: "scene-\(name)")
    }

    @Test func boldAtScaleTwo() throws {
        try check("""
            { "size": [300, 32], "scale": 2, "background": "#141A29",
              "layers": [ { "type": "text", "bounds": [0, 0, 300, 32], "position": [150, 16],
                            "string": "Hello, Lamina! Type 1/2", "font": "DejaVu Sans:bold", "fontSize": 20,
                            "foregroundColor": "#FFD94D" } ] }
            """, "latin-bold-scale2")
    }

    @Test func styledRuns() throws {
        try check("""
            { "size": [320, 46], "background": "#141A29",
              "layers": [ { "type": "text", "bounds": [0, 0, 320, 46], "position": [160, 23], "fontSize": 24,
                            "string": [ { "text": "Big ", "fontSize": 34, "foregroundColor": "#FF4D4D" },
                                        { "text": "small ", "fontSize": 16 },
                                        { "text": "bold", "font": "DejaVu Sans:bold", "foregroundColor": "#4DFF80" },
                                        { "text": " AV", "font": "DejaVu Serif" } ] } ] }
            """, "styled-runs")
    }
}
