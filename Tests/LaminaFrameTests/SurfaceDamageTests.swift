import LaminaGeometry
import LaminaImage
import Testing
@testable import LaminaFrame

/// A surface layer's next buffer damages only what its attached rectangles change (mapped
/// through the contents geometry and the transform, a texel wider for filtering), not the
/// layer's whole rectangle — on every path, a buffer sampled in place too, which needs no
/// upload at all. Expected boxes are worked out by hand from the geometry below.
@Suite struct SurfaceDamageTests {
    /// A 100 × 50 surface shown 2× at (20, 40): buffer pixel (x, y) covers device x 20 + 2x …
    /// 22 + 2x, y 40 + 2y … 42 + 2y.
    static func item(_ image: Image, clip: Int = -1) throws -> DrawItem {
        let geometry = try #require(ContentsGeometry(bounds: Rect(0, 0, 200, 100), imageWidth: 100, imageHeight: 50,
                                                     gravity: .resize, contentsRect: Rect(0, 0, 1, 1),
                                                     contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1))
        return DrawItem(transform: .translation(20, 40), bounds: Rect(0, 0, 200, 100), backgroundColor: .clear,
                        kind: .image(ImageDraw(image: image, geometry: geometry)), clip: clip)
    }

    static func list(_ items: [DrawItem], clips: [Clip] = []) -> DrawList {
        DrawList(width: 300, height: 200, clearColor: .black, items: items, clips: clips)
    }

    @Test func aDamagedRectangleDamagesItsPixelsAlone() throws {
        let storage = SurfaceStorage(width: 100, height: 50)
        storage.noteDirectUpload([SurfaceRect(x: 0, y: 0, width: 100, height: 50)], format: .bgra8)
        let first = Image(surface: storage)
        // 10 × 5 at (30, 20): device 80…100 × 80…90, one texel (2 px) wider: 78…102 × 78…92,
        // with the 2 px margin: 76…104 × 76…94.
        storage.noteDirectUpload([SurfaceRect(x: 30, y: 20, width: 10, height: 5)], format: .bgra8)
        let second = Image(surface: storage)
        var tracker = DamageTracker()
        let a = Self.list([try Self.item(first)]), b = Self.list([try Self.item(second)])
        #expect(tracker.damage(from: a, to: b) == PixelRect(minX: 76, minY: 76, maxX: 104, maxY: 94))
        // Two versions on: both rectangles (the second at the buffer's corner reaches the frame's).
        storage.noteDirectUpload([SurfaceRect(x: 95, y: 45, width: 5, height: 5)], format: .bgra8)
        let third = Image(surface: storage)
        let c = Self.list([try Self.item(third)])
        // 95…100 × 45…50 → 208…220 × 128…140 from x 94 (206), margin: 204…222 × 126…142.
        #expect(tracker.damage(from: a, to: c) == PixelRect(minX: 76, minY: 76, maxX: 222, maxY: 142))
        // Nothing changed since: nothing damaged.
        #expect(tracker.damage(from: c, to: Self.list([try Self.item(Image(surface: storage))])).isEmpty)
    }

    @Test func otherChangesAndOtherSurfacesDamageTheWholeLayer() throws {
        let storage = SurfaceStorage(width: 100, height: 50)
        storage.noteDirectUpload([SurfaceRect(x: 0, y: 0, width: 100, height: 50)], format: .bgra8)
        let first = Image(surface: storage)
        storage.noteDirectUpload([SurfaceRect(x: 30, y: 20, width: 10, height: 5)], format: .bgra8)
        let second = Image(surface: storage)
        var tracker = DamageTracker()
        // Moved as well: the layer's whole rectangle before and after (20…220 × 40…140, then 30…230).
        var moved = try Self.item(second)
        moved.transform = .translation(30, 40)
        let d = tracker.damage(from: Self.list([try Self.item(first)]), to: Self.list([moved]))
        #expect(d.minX <= 20 && d.maxX >= 230 && d.minY <= 40 && d.maxY >= 140)
        // Another storage (a new size or path): the whole rectangle.
        let other = SurfaceStorage(width: 100, height: 50)
        other.noteDirectUpload([SurfaceRect(x: 30, y: 20, width: 10, height: 5)], format: .bgra8)
        let e = tracker.damage(from: Self.list([try Self.item(first)]), to: Self.list([try Self.item(Image(surface: other))]))
        #expect(e.minX <= 20 && e.maxX >= 220 && e.minY <= 40 && e.maxY >= 140)
        // More versions than the log keeps: the whole rectangle.
        for k in 0..<20 { storage.noteDirectUpload([SurfaceRect(x: k, y: 0, width: 1, height: 1)], format: .bgra8) }
        let f = tracker.damage(from: Self.list([try Self.item(first)]), to: Self.list([try Self.item(Image(surface: storage))]))
        #expect(f.minX <= 20 && f.maxX >= 220 && f.minY <= 40 && f.maxY >= 140)
    }

    @Test func theDamageIsCutByTheLayersClip() throws {
        let storage = SurfaceStorage(width: 100, height: 50)
        storage.noteDirectUpload([SurfaceRect(x: 0, y: 0, width: 100, height: 50)], format: .bgra8)
        let first = Image(surface: storage)
        storage.noteDirectUpload([SurfaceRect(x: 30, y: 20, width: 10, height: 5)], format: .bgra8)
        let second = Image(surface: storage)
        let clips = [Clip(transform: .translation(90, 0), rect: Rect(0, 0, 100, 200))]
        var tracker = DamageTracker()
        let d = tracker.damage(from: Self.list([try Self.item(first, clip: 0)], clips: clips),
                               to: Self.list([try Self.item(second, clip: 0)], clips: clips))
        // The clip's box (from x 90) with its anti-aliasing margin of 1.5 px, as every item is cut.
        #expect(d == PixelRect(minX: 88, minY: 76, maxX: 104, maxY: 94))
    }
}
