import Testing
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaPNG
import LaminaTree
import TestSupport
@testable import LaminaRender

/// CALayer.shouldRasterize through the raster cache: a rasterized layer is drawn once into an
/// atlas page and composited from it, within the pixel rule of drawing it directly; moving,
/// turning or fading it composites the same drawing again (no atlas pass), while a change
/// inside it, or a new scale bucket, draws it again.
@Suite("Raster cache")
struct RasterCacheTests {
    static let rule = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)

    /// Cards with borders, blurred shadows (of their sublayers too) and sublayers; one turned
    /// and translucent; one inside a rounded masksToBounds superlayer; one whose sublayer has a
    /// blur filter; one masked; one larger than the target (no atlas room: drawn directly).
    static func scene(rasterize: Bool) -> [LayerChange] {
        let r: [(String, PropertyValue)] = rasterize ? [("shouldRasterize", .bool(true))] : []
        var c: [LayerChange] = []
        c += TestScene.layer(1, frame: Rect(8, 8, 60, 40), [
            ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(8)), ("borderWidth", .number(2)),
            ("borderColor", .color(Color(0, 0.48, 1))), ("shadowOpacity", .number(0.6)), ("shadowRadius", .number(4)),
            ("shadowOffset", .size(Size(2, 3))),
        ] + r)
        c += TestScene.layer(2, parent: 1, frame: Rect(6, 10, 20, 20), [
            ("backgroundColor", .color(Color(1, 0.23, 0.19))), ("cornerRadius", .number(10)),
        ])
        c += TestScene.layer(3, parent: 1, frame: Rect(30, 14, 40, 10), [("backgroundColor", .color(Color(0.2, 0.78, 0.35)))])
        c += TestScene.layer(4, frame: Rect(90, 10, 56, 36), [
            ("backgroundColor", .color(Color(1, 0.8, 0))), ("cornerRadius", .number(6)), ("borderWidth", .number(3)),
            ("borderColor", .color(Color(0.35, 0.34, 0.84))), ("opacity", .number(0.7)),
            ("transform", .transform(.rotation(0.4))),
        ] + r)
        c += TestScene.layer(5, parent: 4, frame: Rect(40, -6, 24, 24), [("backgroundColor", .color(Color(1, 0.18, 0.33)))])
        c += TestScene.layer(6, frame: Rect(10, 70, 70, 44), [
            ("masksToBounds", .bool(true)), ("cornerRadius", .number(12)), ("backgroundColor", .color(Color(0.82, 0.82, 0.84))),
        ])
        c += TestScene.layer(7, parent: 6, frame: Rect(30, 8, 54, 30), [
            ("backgroundColor", .color(Color(0.69, 0.32, 0.87))), ("cornerRadius", .number(5)),
        ] + r)
        c += TestScene.layer(8, parent: 7, frame: Rect(4, 4, 20, 20), [
            ("backgroundColor", .color(Color(1, 0.58, 0))), ("filters", .filters([.gaussianBlur(2)])),
        ])
        c += TestScene.layer(9, frame: Rect(96, 70, 48, 40), [
            ("backgroundColor", .color(Color(0, 0.6, 0.5))), ("cornerRadius", .number(4)),
        ] + r)
        c += [.create(10, .layer),
              .set(10, keyPath: "bounds", value: .rect(Rect(0, 0, 30, 30))),
              .set(10, keyPath: "position", value: .point(Point(24, 20))),
              .set(10, keyPath: "cornerRadius", value: .number(15)),
              .set(10, keyPath: "backgroundColor", value: .color(Color(0, 0, 0, 1))),
              .set(9, keyPath: "mask", value: .number(10))]
        c += TestScene.layer(11, frame: Rect(-40, 120, 400, 30), [("backgroundColor", .color(Color(0.1, 0.1, 0.1, 0.5)))] + r)
        c += TestScene.layer(12, parent: 11, frame: Rect(50, 5, 80, 20), [("backgroundColor", .color(Color(1, 1, 1)))])
        return c
    }

    static func tree(rasterize: Bool, _ more: [LayerChange] = []) throws -> LayerTree {
        try TestScene.tree(scene(rasterize: rasterize) + more)
    }

    static func rasterItems(_ list: DrawList) -> [RasterDraw] {
        list.items.compactMap { if case .raster(let r) = $0.kind { r } else { nil } }
    }

    @Test(arguments: [1.0, 2.0])
    func rasterizedLayersMatchDrawingThemDirectly(scale: Double) throws {
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 150, scale: scale, background: Color(0.95, 0.95, 0.97))
        let list = builder.build(try Self.tree(rasterize: true))
        // Four in the atlas; the one wider than the target is drawn directly.
        #expect(Self.rasterItems(list).count == 4)
        #expect(list.rasterStats.uncached == 1)
        #expect(list.rasterStats.misses == 4 && list.rasterStats.hits == 0)
        #expect((list.rasterAtlas?.pages.count ?? 0) >= 1)
        #expect(list.plan.passes.filter { if case .atlas = $0.target { true } else { false } }.count == 4)
        let direct = TestScene.list(try Self.tree(rasterize: false), width: 160, height: 150, scale: scale,
                                    background: Color(0.95, 0.95, 0.97))
        #expect(Self.rasterItems(direct).isEmpty)
        let cached = try renderImage(list), reference = try renderImage(direct)
        let comparison = PixelComparator.compare(cached, reference, tolerance: Self.rule)
        #expect(comparison.passed, "\(comparison)")
    }

    /// Moving, turning, fading and scaling within the bucket composite the cached drawings (no
    /// atlas pass drawn); a sublayer's color change draws that one layer's region again; a
    /// new scale bucket draws it again at the new scale. Every frame matches the same
    /// tree drawn directly.
    @Test func onlyChangedDrawingsAreDrawnAgain() throws {
        let background = Color(0.95, 0.95, 0.97)
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 150, scale: 1, background: background)
        let renderer = try makeRenderer(width: 160, height: 150)
        var tree = try Self.tree(rasterize: true)
        var directTree = try Self.tree(rasterize: false)
        func frame(_ changes: [LayerChange], hits: Int, misses: Int, drawn: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
            if !changes.isEmpty {
                try tree.apply(Commit(client: 1, content: .operations(changes)), at: 0)
                try directTree.apply(Commit(client: 1, content: .operations(changes)), at: 0)
            }
            let before = renderer.rasterAtlas.passesDrawn
            let list = builder.build(tree)
            #expect(list.rasterStats.hits == hits && list.rasterStats.misses == misses, "\(list.rasterStats)",
                    sourceLocation: sourceLocation)
            try renderer.render(list)
            #expect(renderer.rasterAtlas.passesDrawn - before == drawn, sourceLocation: sourceLocation)
            let cached = RGBAImage(width: 160, height: 150, pixels: try renderer.readPixels())
            let direct = try renderImage(TestScene.list(directTree, width: 160, height: 150, background: background))
            let comparison = PixelComparator.compare(cached, direct, tolerance: Self.rule)
            #expect(comparison.passed, "\(comparison)", sourceLocation: sourceLocation)
        }
        try frame([], hits: 0, misses: 4, drawn: 4)
        try frame([], hits: 4, misses: 0, drawn: 0)
        try frame([.set(1, keyPath: "position", value: .point(Point(44.3, 34.6))),
                   .set(4, keyPath: "transform", value: .transform(.rotation(-0.3))),
                   .set(4, keyPath: "opacity", value: .number(0.4)),
                   .set(9, keyPath: "position", value: .point(Point(118.5, 92)))], hits: 4, misses: 0, drawn: 0)
        try frame([.set(3, keyPath: "backgroundColor", value: .color(Color(0, 0, 1)))], hits: 3, misses: 1, drawn: 1)
        // Scale 1.5 rounds to the bucket 2^(5/8) ≈ 1.54, as 1.55 does.
        try frame([.set(1, keyPath: "transform", value: .transform(.scale(1.5, 1.5)))], hits: 3, misses: 1, drawn: 1)
        try frame([.set(1, keyPath: "transform", value: .transform(.scale(1.55, 1.55)))], hits: 4, misses: 0, drawn: 0)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// rasterizationScale: the layer's drawing is made at that many pixels per device pixel
    /// (the region's size follows), and a layer no longer drawn leaves the cache (with the
    /// pages, once none is left).
    @Test func rasterizationScaleSizesTheDrawingAndUndrawnLayersLeave() throws {
        func region(_ scale: Double) throws -> PixelRect? {
            let tree = try TestScene.tree(TestScene.layer(1, frame: Rect(10, 10, 40, 20), [
                ("backgroundColor", .color(Color(1, 0, 0))), ("shouldRasterize", .bool(true)),
                ("rasterizationScale", .number(scale)),
            ]))
            return Self.rasterItems(TestScene.list(tree)).first?.region
        }
        let one = try #require(try region(1)), half = try #require(try region(0.5))
        // 40 × 20 points, plus the anti-aliasing margin (1.5 px each side, rounded out) and 2 px of padding.
        #expect(one.maxX - one.minX == 40 + 2 * 2 + 2 * 2 && one.maxY - one.minY == 20 + 2 * 2 + 2 * 2)
        #expect(half.maxX - half.minX == 20 + 2 * 2 + 2 * 2 && half.maxY - half.minY == 10 + 2 * 2 + 2 * 2)
        #expect(try region(0) == nil)  // 0: drawn directly

        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        var tree = try TestScene.tree(TestScene.layer(1, frame: Rect(10, 10, 40, 20), [
            ("backgroundColor", .color(Color(1, 0, 0))), ("shouldRasterize", .bool(true)),
        ]))
        #expect(builder.build(tree).rasterStats.entries == 1)
        try tree.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "hidden", value: .bool(true))])), at: 0)
        let list = builder.build(tree)
        #expect(list.rasterStats.entries == 0 && Self.rasterItems(list).isEmpty)
        #expect(list.rasterAtlas == nil, "no rasterized layer left: no page")
    }
}
