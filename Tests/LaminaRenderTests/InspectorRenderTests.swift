import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing
import TestSupport
@testable import LaminaRender

/// The viewer's inspector and blended-layers view drawn by the renderer on lavapipe, headless
/// (the overlay items `RenderLoop` adds while they are on): the palette's colours where the
/// scene's geometry says 0 to 4 layers overlap, the outline on the hit layer's on-screen
/// edges, the panel's text, and the frame unchanged once they are off.
@Suite(.serialized) struct InspectorRenderTests {
    /// A (10, 10, 40, 40), B (30, 30, 40, 40), C (20, 20, 15, 40), D (30, 30, 5, 5), half
    /// transparent, over black on 160 × 160.
    static func overlapping() throws -> DrawList {
        let frames = [Rect(10, 10, 40, 40), Rect(30, 30, 40, 40), Rect(20, 20, 15, 40), Rect(30, 30, 5, 5)]
        var changes: [LayerChange] = []
        for (i, f) in frames.enumerated() {
            changes += TestScene.layer(UInt32(i + 1), frame: f, [("backgroundColor", .color(Color(1, 1, 1, 0.3)))])
        }
        return TestScene.list(try TestScene.tree(changes), width: 160, height: 160, background: .black)
    }

    @Test func theBlendedLayersViewColoursPixelsByTheirCount() throws {
        var overlay = ViewerOverlay()
        let list = overlay.apply(OverlaySettings(blendedLayers: true), to: try Self.overlapping(), scale: 1, fps: 60)
        let image = try renderImage(list, alpha: .straight)
        // Counts from the frames: (5, 5) none; (12, 12) A; (45, 45) A and B; (22, 45) A and C;
        // (32, 45) A, B and C; (32, 32) all four; (60, 60) B.
        let points: [(Int, Int, Int)] = [(5, 5, 0), (12, 12, 1), (45, 45, 2), (22, 45, 2), (32, 45, 3), (32, 32, 4),
                                         (100, 100, 0), (60, 60, 1)]
        for (x, y, n) in points {
            let c = BlendCount.color(forCount: n)
            #expect(image.pixel(x, y) == RGBA(Int(c.r), Int(c.g), Int(c.b), 255), "(\(x), \(y)): \(n) layers")
        }
        // The legend at the bottom left: the swatch of 1 (the second) is green at its centre.
        // Its panel is 2 lines (14 pt) + 8 high, 4 from the bottom; swatches 12 wide, 42 apart.
        let rowY = 160 - 4 - 36 + 4 + 14 + 1
        let green = BlendCount.color(forCount: 1)
        #expect(image.pixel(8 + 42 + 6, rowY + 6) == RGBA(Int(green.r), Int(green.g), Int(green.b), 255))
    }

    /// A (40, 200, 60, 40) red and B (150, 210, 40, 40) blue turned 30°, over black on 400 × 320.
    static func inspected() throws -> LayerTree {
        var changes = TestScene.layer(1, frame: Rect(40, 200, 60, 40), [("backgroundColor", .color(Color(1, 0, 0)))])
        changes += TestScene.layer(2, frame: Rect(150, 210, 40, 40), [
            ("backgroundColor", .color(Color(0, 0, 1))), ("transform", .transform(.rotation(.pi / 6)))])
        return try TestScene.tree(changes)
    }

    /// The distance from `p` to the segment `a`–`b`, and whether its foot falls at least
    /// `margin` from both ends.
    static func distance(_ p: Point, _ a: Point, _ b: Point, margin: Double) -> (Double, Bool) {
        let d = b - a, len = d.length
        let t = ((p.x - a.x) * d.x + (p.y - a.y) * d.y) / len
        let foot = Point(a.x + d.x * t / len, a.y + d.y * t / len)
        return ((p - foot).length, t >= margin && t <= len - margin)
    }

    @Test func theOutlineLiesOnTheLayersOnScreenEdges() throws {
        let tree = try Self.inspected()
        let plainList = TestScene.list(tree, width: 400, height: 320, background: .black)
        // The pointer on A (hovered, magenta); B pinned (orange).
        let frame = InspectorFrame(tree: tree, render: tree, at: 0, scale: 1, pointer: Point(70, 220),
                                   pinned: TestScene.id(2), names: [1: Inspector.describe(name: "demo", process: nil)])
        #expect(frame.hovered?.layer == TestScene.id(1) && frame.pinned?.layer == TestScene.id(2))
        var overlay = ViewerOverlay()
        let list = overlay.apply(OverlaySettings(inspector: true), to: plainList, scale: 1, fps: 60, inspection: frame)
        let plain = try renderImage(plainList, alpha: .straight)
        let shown = try renderImage(list, alpha: .straight)
        // The quads from the geometry alone: A's frame; B's square turned 30° about (170, 230).
        let a = [Point(40, 200), Point(100, 200), Point(100, 240), Point(40, 240)]
        let (c, s) = (3.0.squareRoot() / 2, 0.5)
        let b = [(-20.0, -20.0), (20, -20), (20, 20), (-20, 20)].map { u, v in Point(170 + u * c - v * s, 230 + u * s + v * c) }
        // The label under A and the panel at the top right are left out of the comparison.
        let label = ViewerOverlay.textBox(frame.hovered.map { [$0.title, $0.owner] } ?? [], scale: 1)
        let panelBox = ViewerOverlay.textBox(frame.panelLines ?? [], scale: 1)
        func inLabel(_ x: Int, _ y: Int) -> Bool {
            (x >= 40 && Double(x) <= 40 + label.width && y >= 244 && Double(y) <= 244 + label.height)
                || (Double(x) >= 400 - panelBox.width - 9 && Double(y) <= 8 + panelBox.height)
        }
        var onEdge = 0, offEdge = 0
        for y in 150..<320 {
            for x in 0..<400 where !inLabel(x, y) {
                let p = Point(Double(x) + 0.5, Double(y) + 0.5)
                for (quad, color) in [(a, RGBA(255, 0, 255, 255)), (b, RGBA(255, 153, 0, 255))] {
                    // A pixel lies wholly inside an edge's 2-pixel bar when its centre is within
                    // 1 − h of the edge, h the pixel's half-extent across it (½ (|cos| + |sin|)).
                    let covered = quad.indices.contains { i in
                        let e0 = quad[i], e1 = quad[(i + 1) % 4], d = e1 - e0
                        let h = 0.5 * (abs(d.x) + abs(d.y)) / d.length
                        let (distance, inside) = Self.distance(p, e0, e1, margin: 2)
                        return inside && distance <= 1 - h + 1e-9
                    }
                    if covered {
                        onEdge += 1
                        let got = shown.pixel(x, y)
                        #expect(abs(got.r - color.r) <= 3 && abs(got.g - color.g) <= 3 && abs(got.b - color.b) <= 3,
                                "(\(x), \(y)) on an edge: \(got)")
                    }
                }
                let near = [a, b].contains { quad in
                    quad.indices.contains { Self.distance(p, quad[$0], quad[($0 + 1) % 4], margin: -3).0 < 2.5 }
                }
                if !near {
                    offEdge += 1
                    if shown.pixel(x, y) != plain.pixel(x, y) {
                        Issue.record("(\(x), \(y)) off the edges changed: \(plain.pixel(x, y)) → \(shown.pixel(x, y))")
                        return
                    }
                }
            }
        }
        #expect(onEdge > 300 && offEdge > 50_000)
        // The label's and the panel's pixels are there: under A, and at the top right.
        #expect((44..<60).contains { x in shown.pixel(x, 250) != plain.pixel(x, 250) })
        #expect((300..<400).contains { x in (10..<40).contains { y in shown.pixel(x, y) != plain.pixel(x, y) } })
        // What they say.
        #expect(frame.hovered?.title == "layer 1:1" && frame.hovered?.owner == "client 1 “demo”")
        let panel = try #require(frame.panelLines)
        #expect(panel.first == "layer 1:2  client 1 “demo”")
        #expect(panel.contains("  position  (170, 230)") && panel.contains("  backgroundColor  rgba(0, 0, 1, 1)"))
        #expect(panel.last == "no running animations")
    }

    @Test func turningTheOverlaysOffGivesTheFrameBackExactly() throws {
        let tree = try Self.inspected()
        var builder = DrawListBuilder(widthPoints: 400, heightPoints: 320, scale: 1, background: .black)
        let first = builder.build(tree)
        let renderer = try makeRenderer(width: 400, height: 320)
        try renderer.render(first)
        let before = try renderer.readPixels(alpha: .straight)
        var overlay = ViewerOverlay()
        let frame = InspectorFrame(tree: tree, render: tree, at: 0, scale: 1, pointer: Point(70, 220),
                                   pinned: TestScene.id(2), names: [:])
        try renderer.render(overlay.apply(OverlaySettings(hud: true, inspector: true, blendedLayers: true), to: first,
                                          scale: 1, fps: 60, inspection: frame))
        #expect(try renderer.readPixels(alpha: .straight) != before)
        // The next frame, unchanged, says nothing changed since `first`: the renderer must still
        // draw it whole (the target holds the overlay frame).
        var next = builder.build(tree)
        next.damage = Damage(rect: PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0), since: first.serial)
        try renderer.render(next)
        #expect(try renderer.readPixels(alpha: .straight) == before)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
