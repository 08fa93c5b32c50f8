import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing
import TestSupport

/// The blended-layers view's counts (`BlendCount`): at every pixel, the number of layers whose
/// geometry covers the pixel's centre, worked out here from the scene's frames alone (not
/// from the draw list), and the palette.
@Suite struct BlendCountTests {
    /// Three opaque layers: A (10, 10, 40, 40), B (30, 30, 40, 40), C (20, 20, 15, 40) on a
    /// 96 × 80 canvas at `scale`.
    static let frames = [Rect(10, 10, 40, 40), Rect(30, 30, 40, 40), Rect(20, 20, 15, 40)]
    static func overlapping(scale: Double = 1) throws -> DrawList {
        var changes: [LayerChange] = []
        for (i, f) in frames.enumerated() {
            changes += TestScene.layer(UInt32(i + 1), frame: f, [("backgroundColor", .color(Color(1, 0, 0, 0.5)))])
        }
        return TestScene.list(try TestScene.tree(changes), width: 96, height: 80, scale: scale)
    }

    /// How many of `rects` (points) contain the centre of device pixel (x, y) at `scale`.
    static func expected(_ rects: [Rect], _ x: Int, _ y: Int, scale: Double = 1) -> Int {
        let p = Point((Double(x) + 0.5) / scale, (Double(y) + 0.5) / scale)
        return rects.filter { $0.minX <= p.x && p.x <= $0.maxX && $0.minY <= p.y && p.y <= $0.maxY }.count
    }

    @Test(arguments: [1.0, 2.0]) func countsAreTheLayersCoveringEachPixel(scale: Double) throws {
        let counts = BlendCount(try Self.overlapping(scale: scale))
        #expect(counts.width == Int(96 * scale) && counts.height == Int(80 * scale))
        var mismatches = 0
        for y in 0..<counts.height {
            for x in 0..<counts.width where counts[x, y] != Self.expected(Self.frames, x, y, scale: scale) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        // Named points (scale 1 pixels, scaled): 0 outside, 1 in A alone, 2 in A and B, 3 in all.
        let s = Int(scale)
        #expect(counts[5 * s, 5 * s] == 0)
        #expect(counts[12 * s, 12 * s] == 1)
        #expect(counts[45 * s, 45 * s] == 2)
        #expect(counts[32 * s, 40 * s] == 3)
    }

    @Test func aRotatedLayerCountsInsideItsOnScreenSquare() throws {
        // A 40 × 40 layer centred at (48, 40) turned 45°: the square |x − 48| + |y − 40| ≤ 20√2.
        let tree = try TestScene.tree(TestScene.layer(1, frame: Rect(28, 20, 40, 40), [
            ("backgroundColor", .color(Color(0, 0, 1))), ("transform", .transform(.rotation(.pi / 4)))]))
        let counts = BlendCount(TestScene.list(tree, width: 96, height: 80))
        let r = 20 * 2.0.squareRoot()
        var checked = 0
        for y in 0..<80 {
            for x in 0..<96 {
                let d = abs(Double(x) + 0.5 - 48) + abs(Double(y) + 0.5 - 40)
                guard abs(d - r) > 0.01 else { continue }   // centres on the edge: either way
                #expect(counts[x, y] == (d < r ? 1 : 0), "(\(x), \(y))")
                checked += 1
            }
        }
        #expect(checked > 7000)
    }

    @Test func aClippingLayerCutsItsSublayersCounts() throws {
        // P (10, 10, 30, 30) masks to its bounds; its sublayer Q at (20, 20) in P's bounds,
        // 30 × 30, reaches past P: outside P it counts nothing.
        var changes = TestScene.layer(1, frame: Rect(10, 10, 30, 30), [("backgroundColor", .color(Color(0, 1, 0))),
                                                                       ("masksToBounds", .bool(true))])
        changes += TestScene.layer(2, parent: 1, frame: Rect(20, 20, 30, 30), [("backgroundColor", .color(Color(1, 0, 0)))])
        let counts = BlendCount(TestScene.list(try TestScene.tree(changes), width: 64, height: 64))
        #expect(counts[15, 15] == 1)   // P alone
        #expect(counts[35, 35] == 2)   // P and Q (Q's (25, 25) is inside P)
        #expect(counts[45, 45] == 0)   // Q outside P: clipped
        #expect(counts[5, 5] == 0)
    }

    @Test func aGroupsCompositeCountsOnceWhereItsItemsDo() throws {
        // G (10, 10, 30, 30) at opacity 0.5 with a sublayer H over its lower right: group
        // opacity draws G and H offscreen, then composites that image once more.
        var changes = TestScene.layer(1, frame: Rect(10, 10, 30, 30), [("backgroundColor", .color(Color(0, 1, 0))),
                                                                       ("opacity", .number(0.5))])
        changes += TestScene.layer(2, parent: 1, frame: Rect(20, 20, 20, 20), [("backgroundColor", .color(Color(1, 0, 0)))])
        let list = TestScene.list(try TestScene.tree(changes), width: 64, height: 64)
        #expect(list.items.contains { if case .group = $0.kind { true } else { false } }, "the builder made a group")
        let counts = BlendCount(list)
        #expect(counts[15, 15] == 2)   // G and the composite
        #expect(counts[35, 35] == 3)   // G, H and the composite
        #expect(counts[50, 50] == 0)
    }

    @Test func thePaletteAndTheImage() throws {
        #expect(BlendCount.color(forCount: 0) == (0, 0, 0))
        #expect(BlendCount.color(forCount: 1) == (0, 190, 0))
        #expect(BlendCount.color(forCount: 2) == (220, 220, 0))
        #expect(BlendCount.color(forCount: 3) == (255, 128, 0))
        #expect(BlendCount.color(forCount: 4) == (230, 0, 0))
        #expect(BlendCount.color(forCount: 99) == (230, 0, 0))
        #expect(BlendCount.legend.count == BlendCount.palette.count)
        let counts = BlendCount(try Self.overlapping())
        let image = counts.image()
        #expect(image.width == 96 && image.height == 80 && image.format == .rgba8)
        for (x, y) in [(5, 5), (12, 12), (45, 45), (32, 40)] {
            let c = BlendCount.color(forCount: counts[x, y])
            let p = image[x, y]
            #expect(p.0 == c.r && p.1 == c.g && p.2 == c.b && p.3 == 255)
        }
    }
}
