import Testing
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaRender

/// Masks that are one opaque rounded rect, drawn as a clip (DrawListBuilder.shapeMaskClip),
/// against the same masks drawn as offscreen mask groups (each mask given an empty sublayer,
/// which draws nothing but keeps it a group): the clip multiplies each item by the coverage of
/// the mask's rounded bounds where the group multiplies the composited layer by the mask's
/// drawn alpha, and a clip's anti-aliased edge is the clip shader's, not a drawn rect's, so the
/// two differ only along the masks' edges (measured: mean 0.11/255, 0.44 % of pixels off by
/// more than 16/255, at most 59/255; a mask edge a pixel out of place would put hundreds of
/// pixels off by far more). SceneGoldenTests' `shapeMasks` holds the clip to cairo's masks.
@Suite("Shape masks")
struct ShapeMaskRenderTests {
    static func scene(forceGroups: Bool) -> [LayerChange] {
        var c: [LayerChange] = []
        func mask(_ id: UInt32, of layer: UInt32, frame: Rect, _ properties: [(String, PropertyValue)]) {
            c += [.create(id, .layer), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, frame.width, frame.height))),
                  .set(id, keyPath: "position", value: .point(Point(frame.midX, frame.midY))),
                  .set(id, keyPath: "backgroundColor", value: .color(Color(0, 0, 0)))]
            c += properties.map { .set(id, keyPath: $0.0, value: $0.1) }
            if forceGroups { c += TestScene.layer(id + 100, parent: id, frame: Rect(0, 0, 1, 1), []) }
            c.append(.set(layer, keyPath: "mask", value: .number(Double(id))))
        }
        // A capsule over a layer with a sublayer; a circle on a rotated, translucent layer with an
        // overlapping sublayer; two rounded corners of a turned mask on a bordered, shadowed layer;
        // a translucent plain layer under a pill.
        c += TestScene.layer(1, frame: Rect(6, 6, 60, 40), [("backgroundColor", .color(Color(1, 0.58, 0)))])
        c += TestScene.layer(2, parent: 1, frame: Rect(0, 14, 60, 12), [("backgroundColor", .color(Color(0, 0.48, 1)))])
        mask(11, of: 1, frame: Rect(2, 4, 56, 32), [("cornerRadius", .number(16))])
        c += TestScene.layer(3, frame: Rect(76, 8, 56, 56), [("backgroundColor", .color(Color(0.2, 0.78, 0.35))),
                                                             ("opacity", .number(0.7)),
                                                             ("transform", .transform(.rotation(0.4, 0, 0, 1)))])
        c += TestScene.layer(4, parent: 3, frame: Rect(26, 0, 30, 30), [("backgroundColor", .color(Color(1, 0.23, 0.19)))])
        mask(12, of: 3, frame: Rect(4, 4, 48, 48), [("cornerRadius", .number(24))])
        c += TestScene.layer(5, frame: Rect(12, 60, 64, 44), [
            ("backgroundColor", .color(Color(0.35, 0.34, 0.84))), ("borderWidth", .number(3)),
            ("borderColor", .color(Color(1, 0.8, 0))), ("shadowOpacity", .number(0.8)), ("shadowRadius", .number(3)),
            ("shadowOffset", .size(Size(3, 3)))])
        mask(13, of: 5, frame: Rect(-2, -2, 66, 50), [("cornerRadius", .number(18)),
                                                       ("transform", .transform(.rotation(-0.2, 0, 0, 1))),
                                                       ("maskedCorners", .number(9))])
        c += TestScene.layer(6, frame: Rect(86, 72, 40, 30), [("backgroundColor", .color(Color(0.69, 0.32, 0.87))),
                                                              ("opacity", .number(0.5))])
        mask(14, of: 6, frame: Rect(0, 4, 40, 22), [("cornerRadius", .number(11))])
        return c
    }

    @Test func aShapeMaskDrawsAsItsGroupWould() throws {
        let clipped = TestScene.list(try TestScene.tree(Self.scene(forceGroups: false)), width: 140, height: 112,
                                     background: Color(0.95, 0.95, 0.97))
        let grouped = TestScene.list(try TestScene.tree(Self.scene(forceGroups: true)), width: 140, height: 112,
                                     background: Color(0.95, 0.95, 0.97))
        func masks(_ list: DrawList) -> Int { list.items.filter { if case .mask = $0.kind { true } else { false } }.count }
        #expect(masks(clipped) == 0 && masks(grouped) == 4)
        let comparison = PixelComparator.compare(try renderImage(clipped), try renderImage(grouped),
                                                 tolerance: .independent(mean: 0.25, percent: 0.5, threshold: 16, max: 64))
        #expect(comparison.passed, "\(comparison)")
    }
}
