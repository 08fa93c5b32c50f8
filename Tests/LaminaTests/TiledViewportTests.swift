import Lamina
import LaminaGeometry
import Testing

/// `TiledViewport`: where image pixels show, checked against the mapping (p − origin) × scale
/// worked out by hand for each case.
@Suite struct TiledViewportTests {
    /// A 32768² image fitted into 1280 × 720: scale 720 / 32768, the image's centre at the view's.
    @Test func fitCentresTheWholeImage() {
        let v = TiledViewport.fit(width: 32768, height: 32768, viewWidth: 1280, viewHeight: 720)
        #expect(v.scale == 720.0 / 32768)
        let c = v.imagePoint(at: Point(640, 360))
        #expect(abs(c.x - 16384) < 1e-9 && abs(c.y - 16384) < 1e-9)
        // The layer at `position` with a scale transform shows image pixel (0, 0) at position.
        #expect(abs(v.position.x - (640 - 16384 * 720.0 / 32768)) < 1e-9 && abs(v.position.y) < 1e-9)
    }

    /// Zoom keeps the point under the cursor: at scale 1, origin (1000, 2000), zooming ×4 about
    /// view point (100, 50) keeps image point (1100, 2050) there, so the origin becomes
    /// (1100 − 25, 2050 − 12.5).
    @Test func zoomKeepsThePointUnderItsCentre() {
        var v = TiledViewport(origin: Point(1000, 2000), scale: 1)
        v.zoom(by: 4, about: Point(100, 50))
        #expect(v.scale == 4)
        #expect(v.origin == Point(1075, 2037.5))
        // Clamped: 16 at most, and still the same point under the cursor.
        v.zoom(by: 100, about: Point(100, 50))
        #expect(v.scale == 16)
        #expect(v.imagePoint(at: Point(100, 50)) == Point(1100, 2050))
        v.zoom(by: 0, about: Point(0, 0))   // ignored
        #expect(v.scale == 16)
    }

    /// A drag of 30, −20 points at scale 1/2 moves the origin by −60, +40 image pixels.
    @Test func panMovesTheImageWithThePointer() {
        var v = TiledViewport(origin: Point(500, 500), scale: 0.5)
        v.pan(by: Point(30, -20))
        #expect(v.origin == Point(440, 540))
        #expect(v.position == Point(-220, -270))
    }
}
