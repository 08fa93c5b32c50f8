import Foundation
import Lamina
import Testing

/// A layer with many masks through the whole render path: subtracts and intersects after the
/// last add are wrapper layers (not masks inside masks, which the renderer draws 4 levels
/// deep), so each of them still cuts the content. Pixels against the regions worked out by
/// hand.
@Suite("Lottie masks deeper than 4")
struct LottieMaskDepthTests {
    static func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> String {
        #"{"a":0,"k":{"c":true,"v":[[\#(x),\#(y)],[\#(x + w),\#(y)],[\#(x + w),\#(y + h)],[\#(x),\#(y + h)]],"i":[[0,0],[0,0],[0,0],[0,0]],"o":[[0,0],[0,0],[0,0],[0,0]]}}"#
    }

    @Test func sevenCutsAfterAnAdd() throws {
        // A green 160-square centred at (100, 100) (layer coordinates −80…80). Masks: add the
        // whole square, subtract six 16-squares, then intersect with x < 60 (layer), i.e.
        // canvas x < 160: seven multiplying masks after the add.
        let holes = [(-70.0, -70.0), (-30.0, -70.0), (10.0, -70.0), (-70.0, 30.0), (-30.0, 30.0), (10.0, 30.0)]
        var masks = [#"{"mode":"a","pt":\#(Self.rect(-80, -80, 160, 160)),"o":{"a":0,"k":100}}"#]
        masks += holes.map { #"{"mode":"s","pt":\#(Self.rect($0.0, $0.1, 16, 16)),"o":{"a":0,"k":100}}"# }
        masks.append(#"{"mode":"i","pt":\#(Self.rect(-100, -100, 160, 200)),"o":{"a":0,"k":100}}"#)
        let layer = LottieCompositingTests.layer("G", 1, "[100,100]", LottieCompositingTests.square(160, "0,0.8,0"),
                                                 #","masksProperties":[\#(masks.joined(separator: ","))]"#)
        let c = LottieCompositingTests()
        let px = try c.render(LottieCompositingTests.file([layer]))
        for (x, y) in holes {
            c.expectColor(px(Int(100 + x + 8), Int(100 + y + 8)), [0, 0, 0, 0], "hole at (\(x), \(y))")
        }
        for (x, y) in [(40, 100), (100, 100), (150, 60), (75, 175)] {
            c.expectColor(px(x, y), [0, 0.8, 0, 1], "kept (\(x), \(y))")
        }
        c.expectColor(px(170, 100), [0, 0, 0, 0], "cut by the intersect")
    }

    @Test func threeNestedBeforeAnAddDraw() throws {
        // add A (left half), subtract a hole, intersect the top 3/4, subtract another hole,
        // then add B (a small square at the bottom right): the three nest inside the mask
        // (4 levels with the mask itself), all drawn.
        let masks = [#"{"mode":"a","pt":\#(Self.rect(-80, -80, 80, 160)),"o":{"a":0,"k":100}}"#,
                     #"{"mode":"s","pt":\#(Self.rect(-70, -70, 20, 20)),"o":{"a":0,"k":100}}"#,
                     #"{"mode":"i","pt":\#(Self.rect(-80, -80, 160, 120)),"o":{"a":0,"k":100}}"#,
                     #"{"mode":"s","pt":\#(Self.rect(-40, -20, 20, 20)),"o":{"a":0,"k":100}}"#,
                     #"{"mode":"a","pt":\#(Self.rect(40, 40, 30, 30)),"o":{"a":0,"k":100}}"#]
        let layer = LottieCompositingTests.layer("G", 1, "[100,100]", LottieCompositingTests.square(160, "0,0.8,0"),
                                                 #","masksProperties":[\#(masks.joined(separator: ","))]"#)
        let c = LottieCompositingTests()
        let px = try c.render(LottieCompositingTests.file([layer]))
        c.expectColor(px(40, 40), [0, 0, 0, 0], "first hole")
        c.expectColor(px(70, 90), [0, 0, 0, 0], "second hole (third nested mask)")
        c.expectColor(px(40, 160), [0, 0, 0, 0], "cut by the intersect")
        c.expectColor(px(40, 110), [0, 0.8, 0, 1], "left half kept")
        c.expectColor(px(120, 60), [0, 0, 0, 0], "right half not added")
        c.expectColor(px(155, 155), [0, 0.8, 0, 1], "B added")
    }
}
