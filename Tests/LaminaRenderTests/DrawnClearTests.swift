import Testing
import LaminaFrame
import LaminaGeometry
import LaminaModel
import TestSupport
@testable import LaminaRender

/// Offscreen passes over part of their image clear only what they must by drawing
/// (`PassRecorder`, "Clears"): a batch only its members' regions (`FramePass.clears`), any other
/// pass its area. The images are reused from frame to frame, so what a pass does not clear holds
/// an earlier frame's pixels: these frames first fill image 0 with opaque red everywhere, then
/// draw groups into parts of it, and find none of that red in what they show.
@Suite("Drawn clears")
struct DrawnClearTests {
    static let size = 64

    static func group(_ opacity: Double) -> DrawItem {
        DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: opacity, count: 1))
    }

    /// Frame 1: a translucent group whose red square covers the whole target (its pass clears
    /// and fills all of image 0).
    static let redEverywhere = DrawList(width: size, height: size, items: [group(0.5), DrawItem(bounds: Rect(0, 0, 64, 64),
                                                                                                 backgroundColor: Color(1, 0, 0))])

    /// The premultiplied RGBA bytes at (x, y).
    static func pixel(_ image: [UInt8], _ x: Int, _ y: Int) -> [UInt8] {
        let p = 4 * (y * size + x)
        return Array(image[p..<(p + 4)])
    }

    /// Whether `bytes` are within 1 of `expected` each (the unorm rounding of 0.5 × 255).
    static func close(_ bytes: [UInt8], _ expected: [Int]) -> Bool {
        zip(bytes, expected).allSatisfy { abs(Int($0) - $1) <= 1 }
    }

    @Test func aBatchClearsItsMembersRegionsAndNoStalePixelShows() throws {
        // Two translucent groups apart: one batch in image 0, which clears their two regions
        // only (each square's box, its 1.5-pixel margin rounded out, and a pixel more).
        let batch = DrawList(width: Self.size, height: Self.size, items: [
            Self.group(0.5), DrawItem(bounds: Rect(4, 4, 10, 10), backgroundColor: Color(0, 0, 1)),
            Self.group(0.5), DrawItem(bounds: Rect(40, 40, 10, 10), backgroundColor: Color(0, 1, 0)),
        ])
        let a = PixelRect(minX: 1, minY: 1, maxX: 17, maxY: 17), b = PixelRect(minX: 37, minY: 37, maxX: 53, maxY: 53)
        let plan = batch.plan
        #expect(plan.passes.count == 2)
        #expect(plan.passes[0].target == .image(0))
        #expect(plan.passes[0].area == PixelRect(minX: 1, minY: 1, maxX: 53, maxY: 53))
        #expect(plan.passes[0].clears == [a, b])

        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        try renderer.render(Self.redEverywhere)
        let red = try renderer.readPixels()
        #expect(Self.close(Self.pixel(red, 2, 2), [128, 0, 0, 128]))  // red at 0.5: image 0 holds opaque red
        try renderer.render(batch)
        let drawn = try renderer.readPixels()
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        // Inside the squares: blue, green at 0.5 (premultiplied). In their regions, 2.5 pixels or
        // more from the squares (no anti-aliasing reaches there), and between the regions (never
        // cleared, but no step reads there), transparent: no stale red.
        #expect(Self.close(Self.pixel(drawn, 9, 9), [0, 0, 128, 128]))
        #expect(Self.close(Self.pixel(drawn, 45, 45), [0, 128, 0, 128]))
        for (x, y) in [(1, 1), (1, 9), (16, 16), (16, 1), (37, 37), (52, 45), (30, 30), (20, 40), (45, 20)] {
            #expect(Self.pixel(drawn, x, y) == [0, 0, 0, 0], "(\(x), \(y))")
        }
        // The same frame drawn by a fresh renderer (images never drawn before): the same bytes.
        let fresh = try renderImage(batch).pixels
        #expect(fresh == drawn)
    }

    @Test func aGroupsPassClearsItsBoxOverAnEarlierFramesImage() throws {
        // One translucent group over part of the target: its pass (not batched) loads image 0 and
        // clears its box by drawing.
        let one = DrawList(width: Self.size, height: Self.size, items: [
            Self.group(0.25), DrawItem(bounds: Rect(20, 20, 8, 8), backgroundColor: Color(1, 1, 1)),
        ])
        #expect(one.plan.passes[0].area == PixelRect(minX: 17, minY: 17, maxX: 31, maxY: 31))
        #expect(one.plan.passes[0].clears == nil)
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        try renderer.render(Self.redEverywhere)
        try renderer.render(one)
        let drawn = try renderer.readPixels()
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        #expect(Self.close(Self.pixel(drawn, 24, 24), [64, 64, 64, 64]))  // white at 0.25
        for (x, y) in [(17, 17), (17, 24), (30, 30), (24, 30), (30, 17), (5, 5), (40, 24)] {
            #expect(Self.pixel(drawn, x, y) == [0, 0, 0, 0], "(\(x), \(y))")
        }
        #expect(try renderImage(one).pixels == drawn)
    }
}
