import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

@Suite("Rects")
struct RectTests {
    /// A pixel-aligned opaque rect: exact colors inside and outside, and a hard edge, since
    /// pixel centers (at .5) are half a pixel from an integer edge on either side.
    @Test func opaqueRectOnClearColor() throws {
        let list = DrawList(width: 64, height: 48, clearColor: blue, items: [
            DrawItem(bounds: Rect(10, 8, 20, 16), backgroundColor: red),
        ])
        let image = try renderImage(list)
        for (x, y) in [(10, 8), (29, 8), (10, 23), (29, 23), (20, 15)] {
            expectPixel(image, x, y, RGBA(255, 0, 0), "inside")
        }
        for (x, y) in [(9, 8), (30, 8), (10, 7), (10, 24), (0, 0), (63, 47), (40, 20)] {
            expectPixel(image, x, y, RGBA(0, 0, 255), "outside")
        }
    }

    /// An edge through pixel centers covers half of each pixel on it: 50 % red over blue.
    @Test func halfPixelEdgeIsHalfCovered() throws {
        let list = DrawList(width: 32, height: 32, clearColor: blue, items: [
            DrawItem(bounds: Rect(4.5, 4, 10, 10), backgroundColor: red),
        ])
        let image = try renderImage(list)
        // Coverage 0.5: red 0.5·255 = 127.5, blue 255·(1 − 0.5) = 127.5 → 127 or 128.
        expectPixel(image, 4, 8, RGBA(128, 0, 128), tolerance: 1, "left edge")
        expectPixel(image, 14, 8, RGBA(128, 0, 128), tolerance: 1, "right edge")
        expectPixel(image, 5, 8, RGBA(255, 0, 0))
        expectPixel(image, 3, 8, RGBA(0, 0, 255))
    }
}
