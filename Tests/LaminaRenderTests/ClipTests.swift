import Foundation
import LaminaFrame
import Testing
import LaminaGeometry
import TestSupport
@testable import LaminaRender

/// `masksToBounds` clips at any nesting depth: every ancestor of an item's innermost clip
/// applies. Expected pixels come from the scene's geometry, worked out here (signed distances
/// to each clip's rounded rect); `VisualGoldenTests.clipDeep` compares the same scene with cairo.
@Suite("Nested clips")
struct ClipTests {
    static let red = VisualGoldenTests.red
    static let blue = VisualGoldenTests.blue

    /// The layers' planes of `deepScene`: C0 is translated (16, 8); C1, C2 and C3 share the
    /// device origin (8, 14) and are turned by 6°, 6° − 8° and 6° − 8° + 15°.
    static let deepOrigin = Point(8, 14)
    static let deepAngles = [6.0, -2.0, 13.0].map { $0 * .pi / 180 }
    static let deepRects = [Rect(0, 0, 72, 80), Rect(0, 0, 120, 120), Rect(-100, -20, 170, 180), Rect(-60, -60, 220, 106)]
    static let deepRadii = [8.0, 16, 12, 12]

    /// Four nested clips, each cutting a different side (left, top, right, bottom): red fills
    /// what C0 and C1 leave (clip 1), blue what all four leave (clip 3). Described identically
    /// in `scripts/gen-references` (`clip_deep`).
    static func deepScene() -> DrawList {
        let t0 = Transform3D.translation(16, 8)
        let t1 = Transform3D.rotation(6 * .pi / 180).concatenating(.translation(-8, 6)).concatenating(t0)
        let t2 = Transform3D.rotation(-8 * .pi / 180).concatenating(t1)
        let t3 = Transform3D.rotation(15 * .pi / 180).concatenating(t2)
        let clips = [
            Clip(transform: t0, rect: deepRects[0], radii: CornerRadii(deepRadii[0])),
            Clip(transform: t1, rect: deepRects[1], radii: CornerRadii(deepRadii[1]), parent: 0),
            Clip(transform: t2, rect: deepRects[2], radii: CornerRadii(deepRadii[2]), parent: 1),
            Clip(transform: t3, rect: deepRects[3], radii: CornerRadii(deepRadii[3]), parent: 2),
        ]
        let everything = Rect(-200, -200, 400, 400)
        return DrawList(width: 96, height: 96, clearColor: Color(1, 1, 1), items: [
            DrawItem(transform: t1, bounds: everything, backgroundColor: red, clip: 1),
            DrawItem(transform: t3, bounds: everything, backgroundColor: blue, clip: 3),
        ], clips: clips)
    }

    /// Signed distance from `p` to the rounded rect (negative inside).
    static func distance(_ p: Point, _ r: Rect, radius: Double) -> Double {
        let qx = abs(p.x - r.midX) - r.width / 2 + radius
        let qy = abs(p.y - r.midY) - r.height / 2 + radius
        return hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - radius
    }

    /// Distance in pixels from device point `p` to clip k of `deepScene` (rotations and
    /// translations keep lengths, so local distances are pixel distances).
    static func deepDistance(_ p: Point, clip k: Int) -> Double {
        let local: Point
        if k == 0 {
            local = Point(p.x - 16, p.y - 8)
        } else {
            let a = deepAngles[k - 1]
            let dx = p.x - deepOrigin.x, dy = p.y - deepOrigin.y
            // Inverse of the y-down rotation x' = x cos − y sin, y' = x sin + y cos.
            local = Point(dx * cos(a) + dy * sin(a), -dx * sin(a) + dy * cos(a))
        }
        return distance(local, deepRects[k], radius: deepRadii[k])
    }

    func colorBytes(_ c: Color) -> RGBA {
        RGBA(Int((c.red * 255).rounded()), Int((c.green * 255).rounded()), Int((c.blue * 255).rounded()))
    }

    /// Every pixel more than 1.5 px from all four clip edges: blue inside all four, red inside
    /// C0 and C1 but outside C2 or C3, white outside C0 or C1. Each clip alone hides pixels
    /// that all the others keep (so none of the four levels may be dropped).
    @Test func fourNestedClipsEachCutTheirSide() throws {
        let image = try renderImage(Self.deepScene(), alpha: .straight)
        var onlyOutside = [0, 0, 0, 0]
        var checked = 0
        for y in 0..<96 {
            for x in 0..<96 {
                let p = Point(Double(x) + 0.5, Double(y) + 0.5)
                let d = (0..<4).map { Self.deepDistance(p, clip: $0) }
                guard d.allSatisfy({ abs($0) > 1.5 }) else { continue }
                let outside = d.map { $0 > 0 }
                if outside.filter({ $0 }).count == 1 { onlyOutside[outside.firstIndex(of: true)!] += 1 }
                let expected: RGBA
                if outside[0] || outside[1] {
                    expected = RGBA(255, 255, 255)
                } else if outside[2] || outside[3] {
                    expected = colorBytes(Self.red)
                } else {
                    expected = colorBytes(Self.blue)
                }
                expectPixel(image, x, y, expected, tolerance: 1, "clip distances \(d)")
                checked += 1
            }
        }
        #expect(checked > 7000)
        for k in 0..<4 {
            #expect(onlyOutside[k] > 40, "clip \(k) alone hides \(onlyOutside[k]) pixels")
        }
    }

    /// Twelve nested axis-aligned clips over a 64×64 target, clip k moving side k % 4 (left,
    /// top, right, bottom) in by 2(k + 1): the deepest of each side wins — x in [18, 42),
    /// y in [20, 40). Integer edges, so every pixel is exactly in or out.
    @Test func twelveLevelsIntersectExactly() throws {
        var clips: [Clip] = []
        for k in 0..<12 {
            let inset = Double(2 * (k + 1))
            var r = (minX: 0.0, minY: 0.0, maxX: 64.0, maxY: 64.0)
            switch k % 4 {
            case 0: r.minX = inset
            case 1: r.minY = inset
            case 2: r.maxX = 64 - inset
            default: r.maxY = 64 - inset
            }
            clips.append(Clip(transform: .identity, rect: Rect(r.minX, r.minY, r.maxX - r.minX, r.maxY - r.minY),
                              parent: k - 1))
        }
        let list = DrawList(width: 64, height: 64, clearColor: Color(1, 1, 1), items: [
            DrawItem(bounds: Rect(0, 0, 64, 64), backgroundColor: Color(0, 0, 1), clip: 11),
        ], clips: clips)
        let image = try renderImage(list, alpha: .straight)
        var wrong = 0
        for y in 0..<64 {
            for x in 0..<64 {
                let inside = x >= 18 && x < 42 && y >= 20 && y < 40
                if image.pixel(x, y) != (inside ? RGBA(0, 0, 255) : RGBA(255, 255, 255)) { wrong += 1 }
            }
        }
        #expect(wrong == 0, "pixels off: \(wrong)")
        expectPixel(image, 18, 20, RGBA(0, 0, 255))
        expectPixel(image, 17, 30, RGBA(255, 255, 255))
        expectPixel(image, 41, 39, RGBA(0, 0, 255))
        expectPixel(image, 42, 30, RGBA(255, 255, 255))
        expectPixel(image, 30, 40, RGBA(255, 255, 255))
    }

    /// A mesh (shape fill) under the deep chain is clipped by all four levels too.
    @Test func meshUnderFourClips() throws {
        var list = Self.deepScene()
        let path = Path.rect(Rect(-200, -200, 400, 400))
        var cache = MeshCache()
        let (id, mesh) = try cache.entry(for: path, style: .fill(.nonZero), scale: 1)
        list.items = [DrawItem(transform: list.clips[3].transform, bounds: mesh.bounds, backgroundColor: .clear,
                               kind: .mesh(MeshDraw(id: id, mesh: mesh, color: Self.blue)), clip: 3)]
        let image = try renderImage(list, alpha: .straight)
        for (x, y) in [(40, 40), (10, 40), (50, 10), (85, 40), (40, 84)] {
            let p = Point(Double(x) + 0.5, Double(y) + 0.5)
            let d = (0..<4).map { Self.deepDistance(p, clip: $0) }
            #expect(d.allSatisfy { abs($0) > 1.5 }, "test point (\(x), \(y)) is on an edge: \(d)")
            expectPixel(image, x, y, d.allSatisfy { $0 < 0 } ? colorBytes(Self.blue) : RGBA(255, 255, 255), tolerance: 1,
                        "clip distances \(d)")
        }
    }
}
