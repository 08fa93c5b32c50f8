import Foundation
import LaminaGeometry
import LaminaAnimation
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
@testable import LaminaRender
import LaminaModel

/// Shape layers drawn from the shape atlas (`ShapeAtlas`: fill and stroke coverage rasterized
/// once, then one textured item per layer) against the same cairo references as the mesh
/// goldens, and against the exact coverage meshes: texel-exact when unrotated at a whole-pixel
/// offset, within the pixel rule when rotated and at sub-pixel offsets.
@Suite("Shape atlas")
struct ShapeAtlasTests {
    static let blue = VisualGoldenTests.blue
    static let red = VisualGoldenTests.red

    /// VisualGoldenTests.shapeFill's scene as shape layers (cairo's `shape-fill` reference): a
    /// star filled nonzero, the same star even-odd, a translucent disc over the first.
    func cairoFills() -> [LayerChange] {
        var star = Path(); star.addPolygon(VisualGoldenTests.star)
        return layer(1, frame: Rect(0, 0, 64, 64), [("path", .path(star)), ("fillColor", .color(Self.blue))])
            + layer(2, frame: Rect(64, 0, 64, 64), [("path", .path(star)), ("fillColor", .color(Self.red)),
                                                     ("fillRule", .string("evenOdd"))])
            + layer(3, frame: Rect(0, 0, 64, 64), [("path", .path(.ellipse(in: Rect(6, 40, 20, 20)))),
                                                    ("fillColor", .color(Color(0.204, 0.780, 0.349, 0.5)))])
    }

    /// A translucent star, filled and stroked, at (3, 5) and a thinly stroked ellipse at (60, 2):
    /// whole-pixel offsets, unrotated.
    func strokedStarAndEllipse() -> [LayerChange] {
        var star = Path(); star.addPolygon(VisualGoldenTests.star)
        return layer(1, frame: Rect(3, 5, 64, 64), [
            ("path", .path(star)), ("fillColor", .color(Self.red)), ("strokeColor", .color(Color(0, 0, 0.6, 0.7))),
            ("lineWidth", .number(3)), ("opacity", .number(0.8)),
        ]) + layer(2, frame: Rect(60, 2, 64, 64), [
            ("path", .path(.ellipse(in: Rect(4, 6, 50, 37)))), ("fillColor", .color(Self.blue)),
            ("strokeColor", .color(Color(1, 0.8, 0))), ("lineWidth", .number(0.5)),
        ])
    }

    /// Four shapes side by side (stars with a stroke, ellipses; the last unfilled, the second
    /// with a thin stroke), each turned by `angle` plus 0.2 per place, at sub-pixel offsets.
    func rotatedShapes(_ angle: Double) -> [LayerChange] {
        var star = Path(); star.addPolygon(VisualGoldenTests.star)
        var ops: [LayerChange] = []
        for k in 0..<4 {
            let id = UInt32(k + 1)
            ops += layer(id, frame: Rect(4.3 + Double(k) * 60, 7.6, 64, 64), [
                ("path", .path(k % 2 == 0 ? star : .ellipse(in: Rect(8, 14, 48, 30)))),
                ("fillColor", .color(k == 3 ? nil : Self.blue)),
                ("strokeColor", .color(Color(0.1, 0.1, 0.1))), ("lineWidth", .number(k == 1 ? 0.75 : 2)),
            ])
            ops.append(.set(id, keyPath: "transform", value: .transform(.rotation(angle + Double(k) * 0.2))))
        }
        return ops
    }

    func layer(_ id: UInt32, frame: Rect, _ properties: [(String, PropertyValue)]) -> [LayerChange] {
        TestScene.layer(id, .shape, frame: frame, properties)
    }

    /// The list of the second frame of an unchanged tree (the first draws the meshes and
    /// makes the shapes candidates; the second rasterizes them and draws from the atlas).
    func secondFrame(_ operations: [LayerChange], width: Double, height: Double,
                     atlas: Bool = true) throws -> (DrawList, DrawList) {
        let tree = try TestScene.tree(operations)
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: Color(1, 1, 1))
        builder.usesShapeAtlas = atlas
        builder.patchesInPlace = false  // full builds (a patch keeps an unchanged layer's items)
        let first = builder.build(tree)
        return (first, builder.build(tree))
    }

    static func isAtlasItem(_ item: DrawItem) -> Bool {
        if case .image(let d) = item.kind, case .shape = d.mode { true } else { false }
    }

    static func isMeshItem(_ item: DrawItem) -> Bool {
        if case .mesh = item.kind { true } else { false }
    }

    /// VisualGoldenTests.shapeFill's scene as shape layers: the reference is cairo's.
    @Test func fillsMatchCairo() throws {
        let (first, list) = try secondFrame(
            cairoFills(), width: 128, height: 64)
        #expect(first.items.allSatisfy(Self.isMeshItem))
        #expect(list.items.count == 3 && list.items.allSatisfy(Self.isAtlasItem))
        #expect(list.shapeAtlas != nil)
        try VisualGoldenTests().compare(list, "shape-fill", VisualGoldenTests.shapes)
    }

    /// VisualGoldenTests.shapeStroke's scene (joins × caps) as shape layers.
    @Test func strokesMatchCairo() throws {
        var line = Path(); line.addPolygon(VisualGoldenTests.zigzag, closed: false)
        var ops: [LayerChange] = []
        for (i, (join, cap)) in [("miter", "butt"), ("round", "round"), ("bevel", "square")].enumerated() {
            ops += layer(UInt32(i + 1), frame: Rect(Double(64 * i), 0, 64, 56), [
                ("path", .path(line)), ("fillColor", .color(nil)), ("strokeColor", .color(Self.blue)),
                ("lineWidth", .number(6)), ("lineJoin", .string(join)), ("lineCap", .string(cap)),
            ])
        }
        let (_, list) = try secondFrame(ops, width: 192, height: 56)
        #expect(list.items.count == 3 && list.items.allSatisfy(Self.isAtlasItem))
        try VisualGoldenTests().compare(list, "shape-stroke", VisualGoldenTests.shapes)
    }

    /// A fill and a translucent stroke of one layer, unrotated at whole-pixel offsets: texel
    /// centres are pixel centres, so the atlas gives the meshes' exact coverage (up to the
    /// 8-bit quantization of the two coverages), the stroke blended over the fill as the two
    /// mesh items blend.
    @Test func unrotatedIsTheMeshesCoverage() throws {
        let ops = strokedStarAndEllipse()
        let (_, atlas) = try secondFrame(ops, width: 128, height: 72)
        let (_, meshes) = try secondFrame(ops, width: 128, height: 72, atlas: false)
        #expect(atlas.items.count == 2 && atlas.items.allSatisfy(Self.isAtlasItem))
        #expect(meshes.items.count == 4 && meshes.items.allSatisfy(Self.isMeshItem))
        let a = try renderImage(atlas), m = try renderImage(meshes)
        let comparison = PixelComparator.compare(a, m, tolerance: .independent(mean: 0.1, percent: 0, threshold: 2))
        #expect(comparison.passed, "\(comparison)")
    }

    /// Rotated and at sub-pixel offsets the atlas is sampled bilinearly: within the pixel rule
    /// (mean ≤ 1/255, ≤ 0.5 % of pixels off by more than 64/255) of the exact meshes, for
    /// several angles, a thin stroke included.
    @Test func rotatedIsWithinThePixelRule() throws {
        for angle in [0.0, 0.3, 0.785, 2.0] {
            let ops = rotatedShapes(angle)
            let (_, atlas) = try secondFrame(ops, width: 256, height: 80)
            let (_, meshes) = try secondFrame(ops, width: 256, height: 80, atlas: false)
            #expect(atlas.items.count == 4 && atlas.items.allSatisfy(Self.isAtlasItem))
            let comparison = PixelComparator.compare(try renderImage(atlas, alpha: .straight),
                                                     try renderImage(meshes, alpha: .straight),
                                                     tolerance: VisualGoldenTests.shapes)
            #expect(comparison.passed, "angle \(angle): \(comparison)")
        }
    }

    /// Atlas items under a rotated rounded clip (the clipped `shape` pipeline) and as the source of a
    /// blurred shadow (an offscreen pass): within the pixel rule of the meshes' rendering.
    @Test func clippedAndShadowedMatchTheMeshes() throws {
        var star = Path(); star.addPolygon(VisualGoldenTests.star)
        var ops = TestScene.layer(1, frame: Rect(20, 10, 150, 90), [
            ("masksToBounds", .bool(true)), ("cornerRadius", .number(18)), ("backgroundColor", .color(Color(0.9, 0.9, 0.8))),
        ])
        ops.append(.set(1, keyPath: "transform", value: .transform(.rotation(0.15))))
        ops += TestScene.layer(2, .shape, parent: 1, frame: Rect(-10, 30, 64, 64), [
            ("path", .path(star)), ("fillColor", .color(Self.blue)), ("strokeColor", .color(Self.red)), ("lineWidth", .number(2)),
        ])
        ops += TestScene.layer(3, .shape, parent: 1, frame: Rect(70, 5.5, 64, 64), [
            ("path", .path(.ellipse(in: Rect(4, 6, 50, 37)))), ("fillColor", .color(Self.red)),
            ("shadowOpacity", .number(0.6)), ("shadowRadius", .number(3)), ("shadowOffset", .size(Size(2, 4))),
        ])
        let (_, atlas) = try secondFrame(ops, width: 200, height: 130)
        let (_, meshes) = try secondFrame(ops, width: 200, height: 130, atlas: false)
        #expect(atlas.items.filter(Self.isAtlasItem).count == 3, "the two shapes and the shadow's source")
        #expect(atlas.items.contains { if case .shadowGroup = $0.kind { true } else { false } })
        let comparison = PixelComparator.compare(try renderImage(atlas, alpha: .straight),
                                                 try renderImage(meshes, alpha: .straight),
                                                 tolerance: VisualGoldenTests.shapes)
        #expect(comparison.passed, "\(comparison)")
    }

    /// With `rasterizesNewShapes` (a CPU rasterizer): the frame that first draws a shape, and
    /// every frame of a path that changes each frame (a morph), draws it from coverage made in
    /// that frame (a quad on an image of its own, each texel a device pixel's exact coverage) —
    /// unrotated at whole pixels the pixels of the atlas's next frame and the meshes' exact
    /// coverage, cairo's golden within the pixel rule; rotated and at sub-pixel offsets within
    /// the rule of the meshes.
    @Test func newShapesDrawFromCoverageMadeInTheFrame() throws {
        func isFrameItem(_ item: DrawItem) -> Bool { Self.isAtlasItem(item) && item.atlasEntry.slot < 0 }
        func frames(_ ops: [LayerChange], width: Double, height: Double, then: [LayerChange] = []) throws -> [DrawList] {
            var tree = try TestScene.tree(ops)
            var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: Color(1, 1, 1))
            builder.rasterizesNewShapes = true
            builder.patchesInPlace = false
            let first = builder.build(tree), second = builder.build(tree)
            if then.isEmpty { return [first, second] }
            try tree.apply(Commit(client: 1, content: .operations(then)))
            return [first, second, builder.build(tree)]
        }
        let ops = strokedStarAndEllipse()
        let lists = try frames(ops, width: 128, height: 72, then: [.set(1, keyPath: "path", value: .path(.ellipse(in: Rect(5, 7, 41, 33))))])
        #expect(lists[0].items.count == 2 && lists[0].items.allSatisfy(isFrameItem))
        #expect(lists[1].items.count == 2 && lists[1].items.allSatisfy { $0.atlasEntry.slot >= 0 })
        #expect(isFrameItem(lists[2].items[0]) && lists[2].items[1].atlasEntry.slot >= 0, "the new path only")
        let (_, meshes) = try secondFrame(ops, width: 128, height: 72, atlas: false)
        let exact = PixelTolerance.independent(mean: 0.1, percent: 0, threshold: 2)
        let made = try renderImage(lists[0])
        for (other, name) in [(try renderImage(lists[1]), "the atlas"), (try renderImage(meshes), "the meshes")] {
            let comparison = PixelComparator.compare(made, other, tolerance: exact)
            #expect(comparison.passed, "against \(name): \(comparison)")
        }
        var morphed = ops
        morphed.append(.set(1, keyPath: "path", value: .path(.ellipse(in: Rect(5, 7, 41, 33)))))
        let (_, morphedMeshes) = try secondFrame(morphed, width: 128, height: 72, atlas: false)
        let comparison = PixelComparator.compare(try renderImage(lists[2]), try renderImage(morphedMeshes), tolerance: exact)
        #expect(comparison.passed, "the morphed frame: \(comparison)")

        let fills = try frames(
            cairoFills(), width: 128, height: 64)
        #expect(fills[0].items.count == 3 && fills[0].items.allSatisfy(isFrameItem))
        try VisualGoldenTests().compare(fills[0], "shape-fill", VisualGoldenTests.shapes)

        for angle in [0.3, 2.0] {
            let rotated = rotatedShapes(angle)
            let list = try frames(rotated, width: 256, height: 80)[0]
            let (_, reference) = try secondFrame(rotated, width: 256, height: 80, atlas: false)
            // (The third layer has the first's meshes: the entry its sight makes in the frame draws it.)
            #expect(list.items.count == 4 && list.items.filter(isFrameItem).count == 3 && list.items[2].atlasEntry.slot >= 0)
            let comparison = PixelComparator.compare(try renderImage(list, alpha: .straight),
                                                     try renderImage(reference, alpha: .straight),
                                                     tolerance: VisualGoldenTests.shapes)
            #expect(comparison.passed, "angle \(angle): \(comparison)")
        }
    }

    /// Colors, opacity and position change without a new raster; a new path draws its meshes
    /// for a frame, then a new entry; a perspective transform draws meshes.
    @Test func rasterizesOnlyWhatChanged() throws {
        var star = Path(); star.addPolygon(VisualGoldenTests.star)
        var tree = try TestScene.tree(layer(1, frame: Rect(0, 0, 64, 64), [
            ("path", .path(star)), ("fillColor", .color(Self.blue)), ("strokeColor", .color(Self.red)),
        ]))
        var builder = DrawListBuilder(widthPoints: 80, heightPoints: 80, scale: 1, background: Color(1, 1, 1))
        builder.patchesInPlace = false
        func frame(_ operations: [LayerChange] = []) throws -> DrawList {
            if !operations.isEmpty { try tree.apply(Commit(client: 1, content: .operations(operations))) }
            return builder.build(tree)
        }
        #expect(try frame().items.allSatisfy(Self.isMeshItem))
        let second = try frame()
        #expect(second.items.allSatisfy(Self.isAtlasItem))
        #expect(builder.shapeAtlas.rasterized == 1)
        // The entry as written (with its gutter): its two outer rows and columns are zero, so
        // bilinear sampling never reaches past the shape's own texels.
        let write = try #require(second.shapeAtlas?.writes.last)
        var border = 0, inked = 0
        for y in 0..<write.height {
            for x in 0..<write.width {
                let texel = write.bytes[(y * write.width + x) * 4 ..< (y * write.width + x) * 4 + 4]
                if min(x, y, write.width - 1 - x, write.height - 1 - y) < 2 { border += texel.reduce(0) { $0 + Int($1) } }
                else if texel.contains(where: { $0 > 0 }) { inked += 1 }
            }
        }
        #expect(border == 0)
        #expect(inked > 100)
        let changed = try frame([.set(1, keyPath: "fillColor", value: .color(Self.red)),
                                 .set(1, keyPath: "opacity", value: .number(0.5)),
                                 .set(1, keyPath: "position", value: .point(Point(40.5, 38)))])
        #expect(changed.items.allSatisfy(Self.isAtlasItem))
        // A DrawItem keeps colors as Float (the GPU's precision).
        let red = Color(Double(Float(Self.red.red)), Double(Float(Self.red.green)), Double(Float(Self.red.blue)),
                        Double(Float(Self.red.alpha)))
        if case .image(let d) = changed.items.first?.kind { #expect(d.mode == .shape(fill: red, stroke: red)) }
        #expect(builder.shapeAtlas.rasterized == 1)
        #expect(try frame([.set(1, keyPath: "path", value: .path(.ellipse(in: Rect(4, 4, 40, 30))))]).items
            .allSatisfy(Self.isMeshItem))
        #expect(try frame().items.allSatisfy(Self.isAtlasItem))
        #expect(builder.shapeAtlas.rasterized == 2)
        var perspective = Transform3D.identity
        perspective.m34 = -1 / 500
        let tilted = try frame([.set(1, keyPath: "transform", value: .transform(perspective.concatenating(.rotation(0.2, 0, 1, 0))))])
        #expect(tilted.items.allSatisfy(Self.isMeshItem))
        #expect(try frame().items.allSatisfy(Self.isMeshItem))
    }

    /// More live shapes than the atlas holds: once it is full the rest draw their meshes and
    /// the entries stay (no start-over while most of them draw); when most stop drawing, the
    /// atlas starts over and the new shapes get entries.
    @Test func aFullAtlasKeepsItsLiveEntries() throws {
        func disc(_ k: Int) -> Path { .ellipse(in: Rect(2, 2, 28 + Double(k % 7), 28 + Double(k / 7) * 0.01)) }
        var ops: [LayerChange] = []
        for k in 0..<300 {
            ops += layer(UInt32(k + 1), frame: Rect(Double(k % 20) * 30, Double(k / 20) * 30, 48, 48), [
                ("path", .path(disc(k))), ("fillColor", .color(Self.blue)),
            ])
        }
        var tree = try TestScene.tree(ops)
        var builder = DrawListBuilder(widthPoints: 640, heightPoints: 480, scale: 1, background: Color(1, 1, 1))
        builder.patchesInPlace = false
        for _ in 0..<70 { _ = builder.build(tree) }
        let full = builder.shapeAtlas.rasterized
        let list = builder.build(tree)
        let fromAtlas = list.items.filter(Self.isAtlasItem).count
        #expect(full > 100 && full < 300, "the atlas holds some of the 300 shapes: \(full)")
        #expect(fromAtlas == full && list.items.count == 300)
        for _ in 0..<70 { _ = builder.build(tree) }
        #expect(builder.shapeAtlas.rasterized == full, "no start-over while the entries draw")
        // All but ten layers get new paths: the old entries stop drawing, the atlas starts over.
        var changes: [LayerChange] = []
        for k in 10..<300 { changes.append(.set(UInt32(k + 1), keyPath: "path", value: .path(disc(k + 1000)))) }
        try tree.apply(Commit(client: 1, content: .operations(changes)))
        for _ in 0..<80 { _ = builder.build(tree) }
        #expect(builder.shapeAtlas.rasterized > full + 50, "new entries after the start-over")
    }

    /// With the retained list on: an animated shape is re-emitted every frame, from the atlas
    /// once its meshes held for a frame, in patched frames too (a static one keeps the items
    /// of the last full build); the pixels stay within the rule of a meshes-only rendering.
    @Test func patchedFramesDrawFromTheAtlas() throws {
        var star = Path(); star.addPolygon(VisualGoldenTests.star)
        var tree = try TestScene.tree(layer(1, frame: Rect(10, 10, 64, 64), [
            ("path", .path(star)), ("fillColor", .color(Self.blue)), ("strokeColor", .color(Self.red)),
            ("lineWidth", .number(2)),
        ]) + layer(2, frame: Rect(84, 10, 64, 64), [
            ("path", .path(.ellipse(in: Rect(4, 4, 50, 40)))), ("fillColor", .color(Self.red)),
        ]))
        var timing = AnimationTiming(duration: 4); timing.timingFunction = .linear; timing.repeatCount = .infinity
        try tree.apply(Commit(client: 1, content: .operations([.addAnimation(1, key: "spin", animation: .basic(BasicAnimation(
            keyPath: "transform.rotation.z", from: .double(0), to: .double(2 * .pi), timing: timing)))])))
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 84, scale: 1, background: Color(1, 1, 1))
        builder.patcher.backoffAfterFailure = 0
        var meshes = DrawListBuilder(widthPoints: 160, heightPoints: 84, scale: 1, background: Color(1, 1, 1))
        meshes.usesShapeAtlas = false
        var snapshots = SnapshotMaker()
        var patched = 0
        var last: (DrawList, DrawList)? = nil
        for k in 0..<8 {
            let t = Double(k) * 0.13
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched { patched += 1 }
            last = (list, meshes.build(snapshot.tree))
        }
        #expect(patched >= 4)
        let (list, reference) = try #require(last)
        #expect(builder.lastBuildPatched)
        #expect(list.items.filter(Self.isAtlasItem).count == 2)
        let comparison = PixelComparator.compare(try renderImage(list, alpha: .straight),
                                                 try renderImage(reference, alpha: .straight),
                                                 tolerance: VisualGoldenTests.shapes)
        #expect(comparison.passed, "\(comparison)")
    }
}
