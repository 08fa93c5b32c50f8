import Foundation
import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

@Suite("Transforms")
struct TransformTests {
    /// A 40×40 square turned 45° about its center, placed at (50, 50): a diamond whose
    /// vertices are 20√2 ≈ 28.28 px from the center along the axes, so a pixel center
    /// (px + .5, py + .5) is inside when |dx| + |dy| < 28.28.
    @Test func rotatedSquare() throws {
        let transform = Transform3D.translation(-20, -20)
            .concatenating(.rotation(.pi / 4))
            .concatenating(.translation(50, 50))
        let list = DrawList(width: 100, height: 100, clearColor: blue, items: [
            DrawItem(transform: transform, bounds: Rect(0, 0, 40, 40), backgroundColor: red),
        ])
        let image = try renderImage(list)
        expectPixel(image, 50, 50, RGBA(255, 0, 0), "center")
        // (75.5, 50.5): 25.5 + 0.5 = 26 → 1.6 px inside the edge.
        expectPixel(image, 75, 50, RGBA(255, 0, 0), "near the right vertex, inside")
        // (79.5, 50.5): 29.5 + 0.5 = 30 → 1.2 px outside.
        expectPixel(image, 79, 50, RGBA(0, 0, 255), "past the right vertex")
        // (68.5, 31.5): 18.5 + 18.5 = 37: outside the diamond, though inside the unrotated square.
        expectPixel(image, 68, 31, RGBA(0, 0, 255), "unrotated square's corner")
        expectPixel(image, 50, 23, RGBA(255, 0, 0), "near the top vertex, inside")
        // (77.5, 50.5): 27.5 + 0.5 = 28 → 0.2 px inside: a mix of red and blue.
        let edge = image.pixel(77, 50)
        #expect(edge.r > 100 && edge.r < 250 && edge.b > 5 && edge.b < 155 && edge.r + edge.b >= 253,
                "anti-aliased edge pixel \(edge)")
    }

    /// A perspective matrix with w = 1 + 0.01·x ([x y 0 1] × M, m14 = 0.01): local (x, y)
    /// lands at (x, y) / (1 + 0.01·x). The 100×100 rect becomes the trapezoid (0,0) (50,0)
    /// (50,50) (0,100), whose lower edge is y = 100 − x. A 10-unit border shows that local
    /// coordinates are interpolated perspective-correctly: local x = X / (1 − 0.01·X).
    @Test func perspective() throws {
        var transform = Transform3D.identity
        transform.m14 = 0.01
        let list = DrawList(width: 100, height: 100, clearColor: blue, items: [
            DrawItem(transform: transform, bounds: Rect(0, 0, 100, 100), backgroundColor: red,
                     borderWidth: 10, borderColor: green),
        ])
        let image = try renderImage(list)
        // (40.5, 55.5): the lower edge is at y = 59.5 there, 2.8 px below → inside; w = 1 / 0.595,
        // local (68.1, 93.3): in the bottom border.
        expectPixel(image, 40, 55, RGBA(0, 255, 0), "inside the trapezoid, bottom border")
        // (30.5, 40.5): w = 1 / 0.695, local (43.9, 58.3): fill.
        expectPixel(image, 30, 40, RGBA(255, 0, 0), "fill")
        // (40.5, 62.5): 2.1 px below the lower edge.
        expectPixel(image, 40, 62, RGBA(0, 0, 255), "below the trapezoid")
        expectPixel(image, 52, 20, RGBA(0, 0, 255), "right of x = 50")
        // (46.5, 10.5): local x = 46.5 / 0.535 = 86.9 → fill. (48.5, 10.5): local x = 94.2 → border.
        expectPixel(image, 46, 10, RGBA(255, 0, 0), "local x ≈ 87")
        expectPixel(image, 48, 10, RGBA(0, 255, 0), "local x ≈ 94, in the right border")
        // (5.5, 50.5): local x = 5.8 → left border. (12.5, 50.5): local x = 14.3 → fill.
        expectPixel(image, 5, 50, RGBA(0, 255, 0), "left border")
        expectPixel(image, 12, 50, RGBA(255, 0, 0), "local x ≈ 14")
    }

    /// Scaling draws in device pixels: a 10×10 rect at scale 2 covers 20×20 pixels.
    @Test func scale() throws {
        let list = DrawList(width: 32, height: 32, clearColor: blue, items: [
            DrawItem(transform: .scale(2, 2), bounds: Rect(2, 2, 10, 10), backgroundColor: red),
        ])
        let image = try renderImage(list)
        expectPixel(image, 4, 4, RGBA(255, 0, 0))
        expectPixel(image, 23, 23, RGBA(255, 0, 0))
        expectPixel(image, 24, 23, RGBA(0, 0, 255))
        expectPixel(image, 3, 4, RGBA(0, 0, 255))
    }

    /// A mirrored transform (x → 32 − x) still draws: the pipeline culls nothing.
    @Test func mirrored() throws {
        let list = DrawList(width: 32, height: 16, clearColor: blue, items: [
            DrawItem(transform: Transform3D.scale(-1, 1).concatenating(.translation(32, 0)),
                     bounds: Rect(4, 4, 8, 8), backgroundColor: red,
                     cornerRadii: CornerRadii(minXMinY: 0, maxXMinY: 0, minXMaxY: 0, maxXMaxY: 0)),
        ])
        let image = try renderImage(list)
        // Local x 4…12 lands on device x 20…28.
        expectPixel(image, 20, 6, RGBA(255, 0, 0))
        expectPixel(image, 27, 6, RGBA(255, 0, 0))
        expectPixel(image, 19, 6, RGBA(0, 0, 255))
        expectPixel(image, 28, 6, RGBA(0, 0, 255))
        expectPixel(image, 6, 6, RGBA(0, 0, 255))
    }
}
