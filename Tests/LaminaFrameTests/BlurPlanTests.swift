import Testing
import LaminaGeometry
import LaminaModel
@testable import LaminaFrame
import TestSupport

/// How the planner cuts a blur's work (no GPU): the horizontal direction only over the rows
/// where its source is not transparent, and large blurs at half or quarter size.
@Suite("Blur plan")
struct BlurPlanTests {
    /// A filter group whose first filter is a blur: the content (layer 1 at 20…30) bounds
    /// 18.5…31.5, whole pixels 18…32, and the planner's pixel: 17…33; the region grown by the
    /// blur's reach ⌈3σ⌉ + 1 = 7 more: 10…40. The horizontal direction runs over the content's
    /// rows only (17…33), the vertical one over all of the region.
    @Test func aBlurFirstRunsItsHorizontalDirectionOverTheContentsRowsOnly() throws {
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0))),
                                                              ("filters", .filters([.gaussianBlur(2)]))])),
            analyticBlurs: false)  // (else one blurred rect is one `.shadow` item, no passes)
        let region = PixelRect(minX: 10, minY: 10, maxX: 40, maxY: 40)
        let rows = PixelRect(minX: 10, minY: 17, maxX: 40, maxY: 33)
        #expect(list.plan.steps == [
            .items(1..<2),
            .blur(source: 0, marker: 0, vertical: false, sigma: 2, valid: region, scissor: rows),
            .blur(source: 1, marker: 0, vertical: true, sigma: 2, valid: region, scissor: region),
            .composite(image: 0, opacity: 1),
        ])
        // After a color filter (which may make transparent pixels opaque: invert with an alpha
        // offset) the whole region.
        let inverted = LayerFilter(kind: .invert, amount: 1)
        let after = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 10, 10), [("backgroundColor", .color(Color(1, 0, 0))),
                                                              ("filters", .filters([inverted, .gaussianBlur(2)]))])))
        #expect(after.plan.steps.contains(.blur(source: 1, marker: 0, vertical: false, sigma: 2, valid: region,
                                                scissor: region)))
    }

    /// σ 20 (> `quarterAbove` 8): the [1 3 3 1] downsampling into half size, again into
    /// quarter size, both directions there at √(σ² − 13/2)/4 and the upsampling (read scale ¼);
    /// σ 6 at half size at √(σ² − 3/2)/2, σ 3 (not above `downsampleAbove` 3) at full size. A
    /// quarter-size blur reaches 16 pixels more than ⌈3σ⌉ + 1, a half-size one 4.
    @Test func largeBlursAreDoneAtHalfOrQuarterSize() throws {
        func blurs(_ sigma: Double) throws -> [(vertical: Bool, sigma: Double, readScale: Double, scissor: PixelRect)] {
            let list = TestScene.list(try TestScene.tree(
                TestScene.layer(1, frame: Rect(100, 100, 40, 40), [("backgroundColor", .color(Color(1, 0, 0))),
                                                                    ("filters", .filters([.gaussianBlur(sigma)]))])),
                width: 256, height: 256, analyticBlurs: false)
            return list.plan.steps.compactMap {
                if case .blur(_, _, let v, let s, _, let scissor, let r) = $0 { (v, s, r, scissor) } else { nil }
            }
        }
        #expect(FramePlanner.reach([.gaussianBlur(20)]) == 60 + 1 + 16)
        #expect(FramePlanner.reach([.gaussianBlur(8.5)]) == 26 + 1 + 16)
        #expect(FramePlanner.reach([.gaussianBlur(8)]) == 24 + 1 + 4)
        #expect(FramePlanner.reach([.gaussianBlur(3.5)]) == 11 + 1 + 4)
        #expect(FramePlanner.reach([.gaussianBlur(3)]) == 9 + 1)
        // The region: the content's whole pixels 98…142 (with the fringe) grown by the planner's
        // pixel and the reach 77: 20…220.
        let region = PixelRect(minX: 20, minY: 20, maxX: 220, maxY: 220)
        let half = PixelRect(minX: 10, minY: 10, maxX: 110, maxY: 110)
        let quarter = PixelRect(minX: 5, minY: 5, maxX: 55, maxY: 55)
        let q = (400.0 - 6.5).squareRoot() / 4
        let large = try blurs(20)
        #expect(large.map(\.readScale) == [2, 2, 1, 1, 0.25])
        #expect(large.map(\.sigma) == [0, 0, q, q, 0])
        #expect(large.map(\.vertical) == [false, false, false, true, false])
        #expect(large.map(\.scissor) == [half, quarter, quarter, quarter, region])
        let medium = try blurs(6)
        #expect(medium.map(\.readScale) == [2, 1, 1, 0.5])
        #expect(medium.map(\.sigma) == [0, (34.5).squareRoot() / 2, (34.5).squareRoot() / 2, 0])
        let small = try blurs(3)
        #expect(small.map(\.readScale) == [1, 1])
        #expect(small.map(\.sigma) == [3, 3])
    }
}
