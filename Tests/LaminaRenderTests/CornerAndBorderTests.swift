import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

/// The rect is (10, 10, 40, 40) (spanning 10…50) everywhere below; pixel (px, py) is
/// sampled at its center (px + .5, py + .5).
@Suite("Corners and borders")
struct CornerAndBorderTests {
    /// Radius 10: the top-left arc's center is (20, 20).
    @Test func roundedCorners() throws {
        let list = DrawList(width: 64, height: 64, clearColor: blue, items: [
            DrawItem(bounds: Rect(10, 10, 40, 40), backgroundColor: red, cornerRadii: CornerRadii(10)),
        ])
        let image = try renderImage(list)
        // (10.5, 10.5) is 13.4 from the arc center: outside.
        expectPixel(image, 10, 10, RGBA(0, 0, 255), "corner, outside the arc")
        // (12.5, 12.5): 10.6 → 0.6 px outside. (13.5, 13.5): 9.19 → 0.8 px inside.
        expectPixel(image, 12, 12, RGBA(0, 0, 255), "just outside the arc")
        expectPixel(image, 13, 13, RGBA(255, 0, 0), "just inside the arc")
        expectPixel(image, 25, 10, RGBA(255, 0, 0), "top edge past the arc")
        expectPixel(image, 10, 25, RGBA(255, 0, 0), "left edge past the arc")
        // The other corners by symmetry.
        expectPixel(image, 49, 10, RGBA(0, 0, 255))
        expectPixel(image, 10, 49, RGBA(0, 0, 255))
        expectPixel(image, 49, 49, RGBA(0, 0, 255))
        expectPixel(image, 46, 46, RGBA(255, 0, 0))
    }

    /// minXMinY 0, maxXMinY 20 (arc center (30, 30)), minXMaxY 5 (center (15, 45)),
    /// maxXMaxY 10 (center (40, 40)).
    @Test func perCornerRadii() throws {
        let radii = CornerRadii(minXMinY: 0, maxXMinY: 20, minXMaxY: 5, maxXMaxY: 10)
        let list = DrawList(width: 64, height: 64, clearColor: blue, items: [
            DrawItem(bounds: Rect(10, 10, 40, 40), backgroundColor: red, cornerRadii: radii),
        ])
        let image = try renderImage(list)
        expectPixel(image, 10, 10, RGBA(255, 0, 0), "square top-left corner")
        // (49.5, 10.5) is 27.6 from (30, 30); (43.5, 17.5) is 18.4.
        expectPixel(image, 49, 10, RGBA(0, 0, 255), "top-right, outside r = 20")
        expectPixel(image, 43, 17, RGBA(255, 0, 0), "top-right, inside r = 20")
        // (10.5, 49.5) is 6.4 from (15, 45); (12.5, 47.5) is 3.5.
        expectPixel(image, 10, 49, RGBA(0, 0, 255), "bottom-left, outside r = 5")
        expectPixel(image, 12, 47, RGBA(255, 0, 0), "bottom-left, inside r = 5")
        // (49.5, 49.5) is 13.4 from (40, 40); (46.5, 46.5) is 9.2.
        expectPixel(image, 49, 49, RGBA(0, 0, 255), "bottom-right, outside r = 10")
        expectPixel(image, 46, 46, RGBA(255, 0, 0), "bottom-right, inside r = 10")
        // r = 20 reaches further than r = 10 would: (44.5, 12.5) is 22.7 from (30, 30),
        // but only 1.2 px from (40, 20), inside a 10 radius.
        expectPixel(image, 44, 12, RGBA(0, 0, 255), "only the 20 radius cuts here")
    }

    /// A 4-wide green border inside the bounds over a red background.
    @Test func border() throws {
        let list = DrawList(width: 64, height: 64, clearColor: blue, items: [
            DrawItem(bounds: Rect(10, 10, 40, 40), backgroundColor: red, borderWidth: 4, borderColor: green),
        ])
        let image = try renderImage(list)
        expectPixel(image, 9, 30, RGBA(0, 0, 255), "outside")
        expectPixel(image, 10, 30, RGBA(0, 255, 0), "ring, outer pixel")
        expectPixel(image, 13, 30, RGBA(0, 255, 0), "ring, inner pixel")
        expectPixel(image, 14, 30, RGBA(255, 0, 0), "interior")
        expectPixel(image, 30, 30, RGBA(255, 0, 0), "center")
        expectPixel(image, 30, 46, RGBA(0, 255, 0), "bottom ring")
        expectPixel(image, 49, 49, RGBA(0, 255, 0), "square corner is ring")
    }

    /// Radius 10 with a 4-wide border: inner radius 6 about the same arc center (20, 20).
    @Test func roundedBorder() throws {
        let list = DrawList(width: 64, height: 64, clearColor: blue, items: [
            DrawItem(bounds: Rect(10, 10, 40, 40), backgroundColor: red, cornerRadii: CornerRadii(10),
                     borderWidth: 4, borderColor: green),
        ])
        let image = try renderImage(list)
        expectPixel(image, 11, 11, RGBA(0, 0, 255), "outside the outer arc")
        // (14.5, 14.5) is 7.8 from (20, 20): between the radii 6 and 10.
        expectPixel(image, 14, 14, RGBA(0, 255, 0), "ring at the corner")
        // (17.5, 17.5) is 3.5: inside the inner arc.
        expectPixel(image, 17, 17, RGBA(255, 0, 0), "inside the inner arc")
        expectPixel(image, 30, 12, RGBA(0, 255, 0), "top ring")
    }

    /// A translucent border is drawn over the background, as in Core Animation:
    /// (0, 0.5, 0, 0.5) + red·(1 − 0.5) = (0.5, 0.5, 0, 1).
    @Test func translucentBorderOverBackground() throws {
        let list = DrawList(width: 64, height: 64, clearColor: blue, items: [
            DrawItem(bounds: Rect(10, 10, 40, 40), backgroundColor: red, borderWidth: 4,
                     borderColor: Color(0, 1, 0, 0.5)),
        ])
        let image = try renderImage(list)
        expectPixel(image, 11, 30, RGBA(128, 128, 0), tolerance: 1)
        expectPixel(image, 30, 30, RGBA(255, 0, 0))
    }

    /// A border wider than half the rect fills it; a radius larger than half the side is
    /// clamped (a capsule), as in Core Animation.
    @Test func oversizedBorderAndRadius() throws {
        let list = DrawList(width: 64, height: 32, clearColor: blue, items: [
            DrawItem(bounds: Rect(0, 0, 20, 20), backgroundColor: red, borderWidth: 15, borderColor: green),
            DrawItem(bounds: Rect(24, 0, 40, 20), backgroundColor: red, cornerRadii: CornerRadii(100)),
        ])
        let image = try renderImage(list)
        expectPixel(image, 10, 10, RGBA(0, 255, 0), "all border")
        // Capsule: left cap is a circle of radius 10 about (34, 10).
        expectPixel(image, 24, 0, RGBA(0, 0, 255), "capsule corner")
        expectPixel(image, 26, 10, RGBA(255, 0, 0), "capsule cap")
        expectPixel(image, 44, 0, RGBA(255, 0, 0), "capsule top edge")
    }
}
