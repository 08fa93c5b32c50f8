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

    /// At canvas scale 2 the drawing's resolution is rasterizationScale × the canvas scale
    /// (× its own scale's bucket: 1 here): a 40 × 20-point layer takes 80 × 40 texels at
    /// rasterizationScale 1, 160 × 80 at 2, 40 × 20 at 0.5 (each plus 2 × 2 texels of
    /// anti-aliasing margin and 2 × 2 of padding, 2 × 3 at 2 texels a device pixel: the
    /// padding's one more per 2 texels a pixel beyond 1.1), and what it composites matches drawing it
    /// directly at scale 2 within the pixel rule (at 0.5, magnified twice, it is not compared).
    @Test(arguments: [(1.0, 80, 40, 8), (2.0, 160, 80, 10), (0.5, 40, 20, 8)])
    func rasterizationScaleTimesTheCanvasScale(raster: Double, width: Int, height: Int, margins: Int) throws {
        func tree(_ rasterize: Bool) throws -> LayerTree {
            try TestScene.tree(TestScene.layer(1, frame: Rect(10, 10, 40, 20), [
                ("backgroundColor", .color(Color(1, 0, 0))), ("cornerRadius", .number(6)), ("borderWidth", .number(1.5)),
                ("borderColor", .color(Color(0, 0, 1))), ("shouldRasterize", .bool(rasterize)),
                ("rasterizationScale", .number(raster)),
            ]))
        }
        let list = TestScene.list(try tree(true), width: 128, height: 128, scale: 2)  // (atlas pages 256 px)
        let region = try #require(Self.rasterItems(list).first?.region)
        #expect(region.maxX - region.minX == width + margins && region.maxY - region.minY == height + margins, "\(region)")
        guard raster >= 1 else { return }
        let cached = try renderImage(list), direct = try renderImage(TestScene.list(try tree(false), width: 128, height: 128, scale: 2))
        let comparison = PixelComparator.compare(cached, direct, tolerance: Self.rule)
        #expect(comparison.passed, "\(comparison)")
    }

    // MARK: The automatic raster cache

    /// An opaque card with a border, a shadow and three sublayers (cached whole); a
    /// translucent bordered leaf with a shadow (its shadow cached alone); a plain rect (not
    /// costly: never cached); a bordered leaf without a shadow, whose color changes every frame
    /// in one test (a leaf's border is no part worth a texture: never cached); a bordered
    /// layer under a multiply blend (reads what lies beneath: never cached).
    static func autoScene() -> [LayerChange] {
        var c: [LayerChange] = []
        c += TestScene.layer(1, frame: Rect(8, 8, 64, 44), [
            ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(8)), ("borderWidth", .number(2)),
            ("borderColor", .color(Color(0, 0.48, 1))), ("shadowOpacity", .number(0.6)), ("shadowRadius", .number(4)),
            ("shadowOffset", .size(Size(2, 3))),
        ])
        c += TestScene.layer(2, parent: 1, frame: Rect(6, 10, 20, 20), [
            ("backgroundColor", .color(Color(1, 0.23, 0.19))), ("cornerRadius", .number(10)),
        ])
        c += TestScene.layer(3, parent: 1, frame: Rect(30, 14, 40, 10), [("backgroundColor", .color(Color(0.2, 0.78, 0.35)))])
        c += TestScene.layer(4, .gradient, parent: 1, frame: Rect(8, 32, 48, 8), [
            ("colors", .colors([Color(1, 0.8, 0), Color(0.35, 0.34, 0.84)])),
        ])
        c += TestScene.layer(5, frame: Rect(90, 10, 56, 36), [
            ("backgroundColor", .color(Color(1, 0.8, 0))), ("cornerRadius", .number(6)), ("borderWidth", .number(3)),
            ("borderColor", .color(Color(1, 1, 1, 0.8))), ("opacity", .number(0.6)),
            ("shadowOpacity", .number(0.8)), ("shadowRadius", .number(3)), ("transform", .transform(.rotation(0.4))),
        ])
        c += TestScene.layer(6, frame: Rect(10, 70, 40, 30), [("backgroundColor", .color(Color(0.69, 0.32, 0.87)))])
        c += TestScene.layer(7, frame: Rect(60, 70, 40, 30), [
            ("backgroundColor", .color(Color(0, 0.6, 0.5))), ("borderWidth", .number(2)), ("borderColor", .color(Color(0, 0, 0))),
        ])
        c += TestScene.layer(8, frame: Rect(110, 70, 40, 30), [
            ("backgroundColor", .color(Color(0.9, 0.3, 0.3))), ("borderWidth", .number(2)), ("borderColor", .color(Color(0, 0, 0))),
            ("compositingFilter", .string("multiplyBlendMode")),
        ])
        return c
    }

    /// Frames of the scene above where the card moves and turns, the leaf turns and fades and
    /// layer 7's color changes every frame: nothing is cached for the first two frames (not yet
    /// stable); from the third, the card whole (one region holding all its items) and the
    /// leaf's shadow alone (one item; its bordered body drawn directly), nothing else; then
    /// hits only. Every frame within the pixel rule of the same tree drawn directly.
    @Test func automaticCacheTakesStableCostlyLayersOnly() throws {
        let background = Color(0.95, 0.95, 0.97)
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 110, scale: 1, background: background)
        builder.rasterizesAutomatically = true
        var tree = try TestScene.tree(Self.autoScene())
        for frame in 0..<6 {
            let t = Double(frame)
            try tree.apply(Commit(client: 1, content: .operations([
                .set(1, keyPath: "position", value: .point(Point(40 + 1.7 * t, 30 + 0.6 * t))),
                .set(1, keyPath: "transform", value: .transform(.rotation(0.05 * t))),
                .set(5, keyPath: "transform", value: .transform(.rotation(0.4 - 0.1 * t))),
                .set(5, keyPath: "opacity", value: .number(0.6 - 0.05 * t)),
                .set(7, keyPath: "backgroundColor", value: .color(Color(0, 0.6, 0.1 * t))),
            ])), at: 0)
            let list = builder.build(tree)
            let rasters = Self.rasterItems(list)
            if frame < 2 {
                #expect(rasters.isEmpty, "frame \(frame)")
            } else {
                // The card's region holds its blurred shadow (a group of its drawing), body, three
                // sublayers and border: 11 items; the leaf's shadow one.
                #expect(rasters.map(\.count).sorted() == [1, 11], "frame \(frame): \(rasters.map(\.count))")
                #expect(list.rasterStats.autoEntries == 2 && list.rasterStats.entries == 2)
                #expect(frame == 2 ? list.rasterStats.misses == 2 : list.rasterStats.hits == 2 && list.rasterStats.misses == 0,
                        "frame \(frame): \(list.rasterStats)")
            }
            let direct = TestScene.list(tree, width: 160, height: 110, background: background)
            #expect(Self.rasterItems(direct).isEmpty)
            let comparison = PixelComparator.compare(try renderImage(list), try renderImage(direct), tolerance: Self.rule)
            #expect(comparison.passed, "frame \(frame): \(comparison)")
        }
    }

    /// A translucent leaf with a border over its background and a shadow beneath: drawn
    /// directly, each part is composited at the layer's opacity (the shadow shows through the
    /// body, the border blends over the body at that opacity); cached whole, as one image at
    /// that opacity, it would not (the body would hide the shadow, the border would hide the
    /// body) — beyond the pixel rule, as the shouldRasterize drawing of the same layer shows
    /// here. The automatic cache takes its shadow alone (one item), within the rule.
    @Test func aTranslucentBorderedLeafIsCachedInPartsNotWhole() throws {
        let background = Color(0.95, 0.95, 0.97)
        func scene(rasterize: Bool) -> [LayerChange] {
            TestScene.layer(1, frame: Rect(12, 10, 100, 70), [
                ("backgroundColor", .color(Color(0.1, 0.5, 0.9))), ("cornerRadius", .number(10)),
                ("borderWidth", .number(4)), ("borderColor", .color(Color(1, 1, 1, 0.8))), ("opacity", .number(0.5)),
                ("shadowOpacity", .number(0.9)), ("shadowRadius", .number(3)), ("shadowOffset", .size(Size(3, 4))),
                ("shouldRasterize", .bool(rasterize)),
            ])
        }
        var builder = DrawListBuilder(widthPoints: 128, heightPoints: 96, scale: 1, background: background)
        builder.rasterizesAutomatically = true
        let tree = try TestScene.tree(scene(rasterize: false))
        var list = builder.build(tree)
        for _ in 0..<2 { list = builder.build(tree) }
        let rasters = Self.rasterItems(list)
        #expect(rasters.count == 1 && rasters.allSatisfy { $0.count == 1 }, "\(rasters)")
        #expect(list.items.contains { if case .shadow = $0.kind { true } else { false } })
        #expect(list.rasterStats.autoEntries == 1)
        let direct = try renderImage(TestScene.list(tree, width: 128, height: 96, background: background))
        let parts = PixelComparator.compare(try renderImage(list), direct, tolerance: Self.rule)
        #expect(parts.passed, "\(parts)")
        // The whole layer as one image at its opacity: what the cache must not do here.
        let whole = TestScene.list(try TestScene.tree(scene(rasterize: true)), width: 128, height: 96, background: background)
        #expect(Self.rasterItems(whole).count == 1)
        let wrong = PixelComparator.compare(try renderImage(whole), direct, tolerance: Self.rule)
        #expect(!wrong.passed, "\(wrong)")
    }

    /// Under the frame driver (on there by default), an undrawn automatic entry stays a while
    /// and comes back as a hit; a layer that changes again is drawn directly until stable again;
    /// `rasterizesAutomatically` off, nothing is cached.
    @Test func automaticEntriesStayAWhileAndLeaveWhenOff() throws {
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 110, scale: 1, background: Color(1, 1, 1))
        builder.rasterizesAutomatically = true
        var tree = try TestScene.tree(Self.autoScene())
        func step(_ changes: [LayerChange]) throws -> DrawList {
            if !changes.isEmpty { try tree.apply(Commit(client: 1, content: .operations(changes)), at: 0) }
            return builder.build(tree)
        }
        for _ in 0..<3 { _ = try step([]) }
        // The card and the leaf's shadow.
        #expect(try step([]).rasterStats.hits == 2)
        // The leaf hidden: its entry stays (kept frames), the card's is drawn.
        let hidden = try step([.set(5, keyPath: "hidden", value: .bool(true))])
        #expect(hidden.rasterStats.entries == 2 && hidden.rasterStats.hits == 1, "\(hidden.rasterStats)")
        // Shown again with nothing changed: stable again after the same three builds, then hits
        // (its kept entry, not drawn again).
        var shown = try step([.set(5, keyPath: "hidden", value: .bool(false))])
        #expect(Self.rasterItems(shown).count == 1)
        for _ in 0..<2 { shown = try step([]) }
        #expect(shown.rasterStats.hits == 2 && shown.rasterStats.misses == 0, "\(shown.rasterStats)")
        // The card's content changes: drawn directly (its entry not drawn) until stable again.
        let changed = try step([.set(3, keyPath: "backgroundColor", value: .color(Color(0, 0, 1)))])
        #expect(Self.rasterItems(changed).count == 1, "\(changed.rasterStats)")
        builder.rasterizesAutomatically = false
        let off = try step([])
        #expect(Self.rasterItems(off).isEmpty && off.rasterStats.entries == 0 && off.rasterAtlas == nil)
    }
}
