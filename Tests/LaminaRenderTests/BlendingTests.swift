import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

/// Blending happens in sRGB-encoded space with premultiplied alpha: out = src + dst·(1 − src.a),
/// with src = color·alpha·opacity. Expected bytes below are that formula by hand, ×255.
@Suite("Blending")
struct BlendingTests {
    /// White at opacity 0.5 over black: 1·0.5 + 0·(1 − 0.5) = 0.5 → 127.5 → 128 ± 1.
    @Test func halfOpacityWhiteOverBlack() throws {
        let list = DrawList(width: 16, height: 16, clearColor: .black, items: [
            DrawItem(bounds: Rect(0, 0, 16, 16), backgroundColor: .white, opacity: 0.5),
        ])
        let image = try renderImage(list)
        expectPixel(image, 8, 8, RGBA(128, 128, 128, 255), tolerance: 1)
    }

    /// Red with alpha 0.5, then blue at opacity 0.5, overlapping, over opaque white.
    @Test func overlappingTranslucentRects() throws {
        let list = DrawList(width: 40, height: 20, clearColor: .white, items: [
            DrawItem(bounds: Rect(0, 0, 25, 20), backgroundColor: Color(1, 0, 0, 0.5)),
            DrawItem(bounds: Rect(15, 0, 25, 20), backgroundColor: blue, opacity: 0.5),
        ])
        let image = try renderImage(list)
        // Red only: (0.5, 0, 0, 0.5) + white·0.5 = (1, 0.5, 0.5, 1).
        expectPixel(image, 5, 10, RGBA(255, 128, 128), tolerance: 1)
        // Blue only: (0, 0, 0.5, 0.5) + white·0.5 = (0.5, 0.5, 1, 1).
        expectPixel(image, 35, 10, RGBA(128, 128, 255), tolerance: 1)
        // Both: (0, 0, 0.5, 0.5) + (1, 0.5, 0.5, 1)·0.5 = (0.5, 0.25, 0.75, 1).
        expectPixel(image, 20, 10, RGBA(128, 64, 191), tolerance: 1)
    }

    /// On a transparent target the bytes are premultiplied; `.straight` divides alpha out.
    @Test func premultipliedAndStraightReadback() throws {
        let list = DrawList(width: 8, height: 8, clearColor: .clear, items: [
            DrawItem(bounds: Rect(0, 0, 4, 8), backgroundColor: Color(1, 0.5, 0, 0.5)),
        ])
        let premultiplied = try renderImage(list)
        // (1, 0.5, 0)·0.5 = (0.5, 0.25, 0), alpha 0.5.
        expectPixel(premultiplied, 1, 1, RGBA(128, 64, 0, 128), tolerance: 1)
        expectPixel(premultiplied, 6, 1, RGBA(0, 0, 0, 0))
        let straight = try renderImage(list, alpha: .straight)
        expectPixel(straight, 1, 1, RGBA(255, 128, 0, 128), tolerance: 1)
        expectPixel(straight, 6, 1, RGBA(0, 0, 0, 0))
    }

    /// A fully transparent item draws nothing, and an empty list gives the clear color.
    @Test func transparentItemsAndEmptyList() throws {
        let list = DrawList(width: 8, height: 8, clearColor: Color(0, 0.5, 1), items: [
            DrawItem(bounds: Rect(0, 0, 8, 8), backgroundColor: .clear),
            DrawItem(bounds: Rect(0, 0, 8, 8), backgroundColor: red, opacity: 0),
        ])
        let image = try renderImage(list)
        expectPixel(image, 4, 4, RGBA(0, 128, 255), tolerance: 1)
    }
}
