import Testing
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaRender

/// Filter groups that are one blurred rounded rect, drawn by their closed form
/// (DrawListBuilder+AnalyticBlur.swift: one `.shadow` item, no offscreen image), against the
/// same groups drawn offscreen and blurred by the passes (`drawsAnalyticBlurs` off) — two
/// independent computations of one Gaussian: the erf product (rect.frag, exact for a rect;
/// Evan Wallace's per-row integral with rounded corners) and the separable passes over the
/// drawn, anti-aliased rect (whole-pixel taps over ±⌈3σ⌉). They must agree far tighter than
/// the pixel rule. SceneGoldenTests' `analyticBlurs` holds both to cairo's Gaussian.
@Suite("Analytic blurs")
struct AnalyticBlurRenderTests {
    static let background = Color(0.95, 0.95, 0.97)

    static func blurred(_ id: UInt32, parent: UInt32 = 0, frame: Rect, _ color: Color, sigma: Double,
                        _ more: [(String, PropertyValue)] = []) -> [LayerChange] {
        TestScene.layer(id, parent: parent, frame: frame, [("backgroundColor", .color(color)),
                                                           ("filters", .filters([.gaussianBlur(sigma)]))] + more)
    }

    /// Blurred plain layers as the `blur` bench mix draws them (48 × 32, σ 2, turned,
    /// translucent), and rounded rects, a capsule, a scaled and a mirrored layer, a color
    /// with alpha, σ 0.7 and σ 5 (a half-size blur in the passes).
    static func scene() -> [LayerChange] {
        var c: [LayerChange] = []
        c += blurred(1, frame: Rect(10, 10, 48, 32), Color(1, 0.23, 0.19), sigma: 2,
                     [("transform", .transform(.rotation(0.4)))])
        c += blurred(2, frame: Rect(80, 16, 48, 32), Color(0.69, 0.32, 0.87), sigma: 2,
                     [("transform", .transform(.rotation(1.1))), ("opacity", .number(0.6))])
        c += blurred(3, frame: Rect(150, 10, 50, 36), Color(1, 0.58, 0), sigma: 3,
                     [("cornerRadius", .number(8)), ("transform", .transform(.rotation(0.3)))])
        c += blurred(4, frame: Rect(14, 64, 48, 32), Color(0.35, 0.34, 0.84), sigma: 2,
                     [("cornerRadius", .number(16)), ("transform", .transform(.rotation(-0.7)))])
        c += blurred(5, frame: Rect(86, 66, 32, 20), Color(0.04, 0.52, 1), sigma: 1.5,
                     [("transform", .transform(Transform3D.scale(1.5, 1.5).concatenating(.rotation(-0.5))))])
        c += blurred(6, frame: Rect(150, 64, 44, 28), Color(0.19, 0.82, 0.35), sigma: 2.5,
                     [("cornerRadius", .number(6)),
                      ("transform", .transform(Transform3D.scale(-1, 1).concatenating(.rotation(0.8))))])
        c += blurred(7, frame: Rect(20, 112, 46, 30), Color(0.9, 0.1, 0.3, 0.5), sigma: 2.5,
                     [("transform", .transform(.rotation(2.2)))])
        c += blurred(8, frame: Rect(90, 116, 40, 26), Color(1, 0.8, 0), sigma: 0.7,
                     [("transform", .transform(.rotation(0.15)))])
        c += blurred(9, frame: Rect(150, 112, 40, 24), Color(1, 0.18, 0.33), sigma: 5,
                     [("transform", .transform(.rotation(0.2)))])
        return c
    }

    static func list(_ changes: [LayerChange], analytic: Bool, width: Double = 220, height: Double = 160) throws -> DrawList {
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: background)
        builder.drawsAnalyticBlurs = analytic
        return builder.build(try TestScene.tree(changes))
    }

    static func count(_ list: DrawList) -> (filters: Int, shadows: Int) {
        var filters = 0, shadows = 0
        for item in list.items {
            if case .filter = item.kind { filters += 1 }
            if case .shadow = item.kind { shadows += 1 }
        }
        return (filters, shadows)
    }

    @Test func aBlurredRoundedRectDrawsAsItsGroupWould() throws {
        let analytic = try Self.list(Self.scene(), analytic: true)
        let passes = try Self.list(Self.scene(), analytic: false)
        #expect(Self.count(analytic) == (0, 9) && Self.count(passes) == (9, 0))
        let comparison = PixelComparator.compare(try renderImage(analytic), try renderImage(passes),
                                                 tolerance: .independent(mean: 0.25, percent: 0.1, threshold: 8, max: 24))
        #expect(comparison.passed, "\(comparison)")
        print("analytic against passes: \(comparison)")
    }

    /// The closed form's σ is the filter's radius in the layer's own units: a layer scaled 2
    /// keeps radius 3 as its item's σ, which the renderer maps to 6 device pixels (the pass
    /// path's `deviceFilters` σ); the item is the layer's bounds, color, opacity and radii.
    @Test func theItemIsTheLayersRoundedRectAndItsRadius() throws {
        let changes = Self.blurred(1, frame: Rect(40, 40, 40, 20), Color(0.2, 0.4, 0.8, 0.5), sigma: 3,
                                   [("cornerRadius", .number(5)), ("opacity", .number(0.7)),
                                    ("transform", .transform(Transform3D.scale(2, 2).concatenating(.rotation(0.3))))])
        let list = try Self.list(changes, analytic: true)
        let shadows = list.items.filter { if case .shadow = $0.kind { true } else { false } }
        try #require(shadows.count == 1)
        let item = shadows[0]
        guard case .shadow(let sigma) = item.kind else { Issue.record("not a shadow item"); return }
        #expect(sigma == 3)
        #expect(item.bounds == Rect(0, 0, 40, 20))
        #expect(item.cornerRadii == LaminaFrame.CornerRadii(5))
        #expect(abs(item.opacity - 0.7) < 1e-6)
        #expect(abs(item.backgroundColor.alpha - 0.5) < 1e-6 && abs(item.backgroundColor.blue - 0.8) < 1e-6)
    }

    /// What stays an offscreen group: anything but one rect of one color, a transform that is
    /// no similarity, an ancestor's clip, a second filter, the switch off.
    @Test func otherGroupsStayOffscreen() throws {
        let base = Rect(40, 40, 40, 20), color = Color(0.2, 0.6, 0.3)
        let cases: [(String, [LayerChange])] = [
            ("stretched", Self.blurred(1, frame: base, color, sigma: 2, [("transform", .transform(.scale(1.6, 1)))])),
            ("skewed", Self.blurred(1, frame: base, color, sigma: 2, [("transform", .transform(.skewX(0.3)))])),
            ("perspective", Self.blurred(1, frame: base, color, sigma: 2,
                                         [("transform", .transform(Transform3D.rotation(0.4, 0, 1, 0)
                                             .concatenating(.perspective(300))))])),
            ("bordered", Self.blurred(1, frame: base, color, sigma: 2, [("borderWidth", .number(2)),
                                                                        ("borderColor", .color(Color(0, 0, 0)))])),
            ("shadowed", Self.blurred(1, frame: base, color, sigma: 2, [("shadowOpacity", .number(0.5))])),
            ("clipping", Self.blurred(1, frame: base, color, sigma: 2, [("masksToBounds", .bool(true))])),
            ("sublayer", Self.blurred(1, frame: base, color, sigma: 2)
                + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 10, 10), [("backgroundColor", .color(color))])),
            ("two filters", TestScene.layer(1, frame: base, [("backgroundColor", .color(color)),
                                                             ("filters", .filters([.gaussianBlur(2), .gaussianBlur(1)]))])),
            ("blur then color", TestScene.layer(1, frame: base, [("backgroundColor", .color(color)),
                                                                 ("filters", .filters([.gaussianBlur(2),
                                                                                       LayerFilter(kind: .grayscale)]))])),
            ("past the canvas's edge", Self.blurred(1, frame: Rect(-10, 40, 40, 20), color, sigma: 2)),
            ("under a clip", TestScene.layer(1, frame: Rect(20, 20, 100, 100), [("masksToBounds", .bool(true))])
                + Self.blurred(2, parent: 1, frame: base, color, sigma: 2)),
        ]
        for (name, changes) in cases {
            let counts = Self.count(try Self.list(changes, analytic: true))
            // (The shadowed layer's own shadow is an analytic `.shadow` item inside its group.)
            #expect(counts.filters >= 1 && counts.shadows == (name == "shadowed" ? 1 : 0), "\(name): \(counts)")
        }
        let off = Self.count(try Self.list(Self.blurred(1, frame: base, color, sigma: 2), analytic: false))
        #expect(off == (1, 0))
        let on = Self.count(try Self.list(Self.blurred(1, frame: base, color, sigma: 2), analytic: true))
        #expect(on == (0, 1))
    }

    /// Similarities (rotation, uniform scale, translation, a mirror) and not (a stretch, a
    /// skew, perspective).
    @Test func similarities() {
        let turned = Transform3D.scale(1.5, 1.5).concatenating(.rotation(0.7)).concatenating(.translation(30, -4))
        #expect(DrawListBuilder.isSimilarity(turned))
        #expect(DrawListBuilder.isSimilarity(Transform3D.scale(-2, 2).concatenating(.rotation(2.5))))
        #expect(DrawListBuilder.isSimilarity(.identity))
        #expect(!DrawListBuilder.isSimilarity(Transform3D.scale(1, 1.01)))
        #expect(!DrawListBuilder.isSimilarity(Transform3D.skewX(0.1).concatenating(.rotation(0.3))))
        // Perspective alone leaves the plane z = 0 as it is (its m34 meets only z); turned
        // about y under it, the plane is projected.
        #expect(DrawListBuilder.isSimilarity(Transform3D.perspective(500)))
        #expect(!DrawListBuilder.isSimilarity(Transform3D.rotation(0.4, 0, 1, 0).concatenating(.perspective(500))))
        #expect(!DrawListBuilder.isSimilarity(Transform3D.scale(0, 0)))
    }
}
