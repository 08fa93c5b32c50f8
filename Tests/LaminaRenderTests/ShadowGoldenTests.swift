import Foundation
import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Shadows as Core Animation draws them, through the whole path (layer tree → builder → GPU),
/// against cairo references from `scripts/gen-references` (same scene names and descriptions):
/// the blur of a shape layer's alpha, of an arbitrary shadowPath, of a clear layer's sublayers
/// (blurred on the GPU, `DrawItem.Kind.shadowGroup`), and a translucent background's analytic
/// shadow. The references blur cairo's coverage with the Gaussian sampled at integer offsets,
/// as the GPU blur does; what differs is edge coverage (the tessellator's fill fringe reads
/// about half a pixel bolder than cairo's exact area) and 8-bit rounding between the passes.
@Suite("Shadows against cairo")
struct ShadowGoldenTests {
    static let blue = VisualGoldenTests.blue
    static let red = VisualGoldenTests.red
    static let green = VisualGoldenTests.green

    func layer(_ id: UInt32, _ kind: LayerKind = .layer, parent: UInt32 = 0, frame: Rect,
               _ properties: [(String, PropertyValue)] = []) -> [LayerChange] {
        TestScene.layer(id, kind, parent: parent, frame: frame, properties)
    }

    func compare(_ operations: [LayerChange], width: Double, height: Double, _ name: String,
                 _ tolerance: PixelTolerance, sourceLocation: SourceLocation = #_sourceLocation) throws -> DrawList {
        let tree = try TestScene.tree(operations)
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: Color(1, 1, 1))
        let list = builder.build(tree)
        try VisualGoldenTests().compare(list, name, tolerance, sourceLocation: sourceLocation)
        return list
    }

    static func shadow(_ color: Color, opacity: Double, offset: Size, radius: Double) -> [(String, PropertyValue)] {
        [("shadowColor", .color(color)), ("shadowOpacity", .number(opacity)), ("shadowOffset", .size(offset)),
         ("shadowRadius", .number(radius))]
    }

    static func isShadowGroup(_ item: DrawItem) -> Bool {
        if case .shadowGroup = item.kind { return true } else { return false }
    }

    /// A shape layer's shadow is the blur of its path's fill, not of its bounding box.
    /// Tolerance: mean ≤ 2.5/255, ≤ 4 % of pixels off by more than 48/255: the star's edge
    /// pixels (its fill fringe lies outside the exact outline, as in `shapeFill`), and that
    /// half pixel of extra alpha makes the shadow read darker, 7/255 on average, ≤ 14 (the
    /// blur itself matches within 2/255: see `shadowSublayers`, whose content is analytic).
    @Test func shadowStar() throws {
        var star = Path()
        star.addPolygon(VisualGoldenTests.star.map { Point($0.x + 4, $0.y + 4) })
        let list = try compare(layer(1, .shape, frame: Rect(0, 0, 80, 72), [
            ("path", .path(star)), ("fillColor", .color(Self.blue)), ("strokeColor", .color(nil)),
        ] + Self.shadow(Color(0, 0, 0), opacity: 0.5, offset: Size(3, 4), radius: 3)),
            width: 80, height: 72, "shadow-star", VisualGoldenTests.shapes)
        #expect(list.items.contains(where: Self.isShadowGroup), "blurred on the GPU")
    }

    /// shadowPath a triangle and a non-circular ellipse, each its own blurred shape in its
    /// shadow color. Tolerance: mean ≤ 1/255, ≤ 1 % of pixels off by more than 16/255 (the
    /// tessellated shapes' fringe, blurred: the shadows read about 6/255 darker, ≤ 23).
    @Test func shadowPath() throws {
        var triangle = Path()
        triangle.addPolygon([Point(0, 0), Point(40, 6), Point(6, 34)])
        let list = try compare(
            layer(1, frame: Rect(8, 8, 32, 24), [("backgroundColor", .color(Self.green)), ("shadowPath", .path(triangle))]
                  + Self.shadow(Self.red, opacity: 0.8, offset: Size(4, 4), radius: 2))
            + layer(2, frame: Rect(60, 10, 24, 24), [("backgroundColor", .color(Self.blue)),
                                                      ("shadowPath", .path(.ellipse(in: Rect(-6, 2, 36, 20))))]
                    + Self.shadow(Color(0, 0, 0), opacity: 0.6, offset: Size(0, 6), radius: 3)),
            width: 104, height: 64, "shadow-path", .independent(mean: 1, percent: 0.5, threshold: 16))
        #expect(list.items.filter(Self.isShadowGroup).count == 2)
    }

    /// A clear container's shadow is the blur of its sublayers' composited alpha (a 50 %
    /// sublayer casts a 50 % shadow, a full one over it a full one). Tolerance: mean ≤ 0.5/255,
    /// ≤ 1 % of pixels off by more than 16/255 (the disc's edge; the shadow is within 2/255).
    @Test func shadowSublayers() throws {
        let list = try compare(
            layer(1, frame: Rect(12, 10, 44, 40), Self.shadow(Color(0, 0, 0), opacity: 0.6, offset: Size(2, 5), radius: 3))
            + layer(2, parent: 1, frame: Rect(0, 0, 24, 24), [("backgroundColor", .color(Self.red)),
                                                              ("cornerRadius", .number(12))])
            + layer(3, parent: 1, frame: Rect(14, 12, 30, 28), [("backgroundColor", .color(Color(0, 0.478, 1, 0.5)))]),
            width: 72, height: 72, "shadow-sublayers", .independent(mean: 0.5, percent: 0.5, threshold: 16))
        #expect(list.items.contains(where: Self.isShadowGroup))
    }

    /// A 50 %-alpha background casts a 50 % shadow (CA shadows the layer's alpha), analytic.
    /// Tolerance as `shadowRect`: mean ≤ 1/255, ≤ 0.5 % of pixels off by more than 8/255.
    @Test func shadowTranslucent() throws {
        let list = try compare(
            layer(1, frame: Rect(16, 14, 32, 24), [("backgroundColor", .color(Color(0, 0.478, 1, 0.5)))]
                  + Self.shadow(Color(0, 0, 0), opacity: 1, offset: Size(4, 6), radius: 4)),
            width: 64, height: 64, "shadow-translucent", .independent(mean: 1, percent: 0.5, threshold: 8))
        #expect(!list.items.contains(where: Self.isShadowGroup), "analytic")
    }
}
