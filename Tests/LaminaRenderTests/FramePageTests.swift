import LaminaAnimation
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaPNG
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
@testable import LaminaRender

/// The frame page (`ShapeAtlas.frameItem`): the coverage images a build makes in the frame
/// packed into one blank image, written as rectangles with zero gutters — checked for their
/// packing, for a new page on each full build (no page rewritten under an item a renderer may
/// still draw), and for the pixels drawn from it against the coverage meshes' own rendering.
@Suite("Frame page")
struct FramePageTests {
    let shapes = ShapeAtlasTests()
    let exact = PixelTolerance.independent(mean: 0.1, percent: 0, threshold: 2)

    /// A shape item drawing coverage made in the frame: its image draw.
    func frameDraw(_ item: DrawItem) -> ImageDraw? {
        guard ShapeAtlasTests.isAtlasItem(item), item.atlasEntry.slot < 0, case .image(let d) = item.kind else { return nil }
        return d
    }

    func builder(width: Double, height: Double, packs: Bool = true) -> DrawListBuilder {
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: Color(1, 1, 1))
        builder.rasterizesNewShapes = true
        builder.shapeAtlas.packsFramePage = packs
        return builder
    }

    /// Every frame item of `list` draws from `list.framePage`, in its own rectangle: its
    /// contents rect is a write's inside, each write's outer ring is zero, no two writes
    /// overlap and all lie in the page. Returns the frame items' count.
    @discardableResult
    func expectPacked(_ list: DrawList, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let page = try #require(list.framePage, sourceLocation: sourceLocation)
        let side = ShapeAtlas.pageSide
        #expect(page.base.isBlank && page.base.width == side && page.base.height == side, sourceLocation: sourceLocation)
        let writes = page.writes
        for (i, a) in writes.enumerated() {
            #expect(a.x >= 0 && a.y >= 0 && a.x + a.width <= side && a.y + a.height <= side, sourceLocation: sourceLocation)
            #expect(a.bytes.count == a.width * a.height * 4, sourceLocation: sourceLocation)
            for b in writes[(i + 1)...] {
                let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
                #expect(apart, "writes \(a.x),\(a.y) and \(b.x),\(b.y) overlap", sourceLocation: sourceLocation)
            }
            var ring = 0
            for y in 0..<a.height {
                for x in 0..<a.width where min(x, y, a.width - 1 - x, a.height - 1 - y) == 0 {
                    ring += a.bytes[(y * a.width + x) * 4 ..< (y * a.width + x) * 4 + 4].reduce(0) { $0 + Int($1) }
                }
            }
            #expect(ring == 0, "write \(i)'s gutter", sourceLocation: sourceLocation)
        }
        var count = 0
        for item in list.items {
            guard let d = frameDraw(item) else { continue }
            count += 1
            #expect(d.image === page.base, sourceLocation: sourceLocation)
            let s = d.geometry.source
            let x = Int((s.minX * Double(side)).rounded()), y = Int((s.minY * Double(side)).rounded())
            let w = Int((s.width * Double(side)).rounded()), h = Int((s.height * Double(side)).rounded())
            // The item's quad is its image's size in device pixels (one texel a pixel).
            #expect(Double(w) == item.bounds.width && Double(h) == item.bounds.height, sourceLocation: sourceLocation)
            #expect(writes.contains { $0.x == x - 1 && $0.y == y - 1 && $0.width == w + 2 && $0.height == h + 2 },
                    "item at \(x),\(y) \(w)×\(h) has its write", sourceLocation: sourceLocation)
        }
        return count
    }

    /// The frame's shapes — rotated, translucent, stroked, unfilled — drawn from one page: as
    /// the same coverage drawn one image each draws them, and as the meshes do (within 2/255
    /// unrotated; rotated, the pixel square's exact area against the shader's axis-aligned
    /// box, within the pixel rule, as `ShapeAtlasTests.newShapesDrawFromCoverageMadeInTheFrame`).
    @Test func oneFramesShapesShareOnePage() throws {
        for (ops, width, height, rotated) in [(shapes.strokedStarAndEllipse(), 128.0, 72.0, false),
                                              (shapes.rotatedShapes(0.3), 256, 80, true), (shapes.cairoFills(), 128, 64, false)] {
            var packed = builder(width: width, height: height)
            let list = packed.build(try TestScene.tree(ops))
            let frameItems = try expectPacked(list)
            #expect(frameItems >= 2)
            #expect(list.framePage?.writes.count == frameItems)
            var apart = builder(width: width, height: height, packs: false)
            let own = apart.build(try TestScene.tree(ops))
            #expect(own.framePage == nil)
            #expect(own.items.filter { frameDraw($0) != nil }.count == frameItems)
            let (_, meshes) = try shapes.secondFrame(ops, width: width, height: height, atlas: false)
            let drawn = try renderImage(list)
            let byImage = PixelComparator.compare(drawn, try renderImage(own), tolerance: exact)
            #expect(byImage.passed, "against images of their own: \(byImage)")
            let byMeshes = PixelComparator.compare(drawn, try renderImage(meshes),
                                                   tolerance: rotated ? VisualGoldenTests.shapes : exact)
            #expect(byMeshes.passed, "against the meshes: \(byMeshes)")
        }
    }

    /// A morphing shape: each full build makes a new page (its items name it, not the last
    /// one); one renderer draws the frames back to back, and again out of order after the
    /// pages' textures were swept, each capture the meshes' rendering of its frame.
    @Test func eachFullBuildDrawsFromANewPage() throws {
        let ops = shapes.strokedStarAndEllipse()
        let paths = [Path.ellipse(in: Rect(5, 7, 41, 33)), Path.ellipse(in: Rect(9, 3, 30, 50)),
                     Path.ellipse(in: Rect(2, 12, 55, 20))]
        var tree = try TestScene.tree(ops)
        var packed = builder(width: 128, height: 72)
        packed.patchesInPlace = false
        var lists: [DrawList] = []
        var references: [RGBAImage] = []
        var scene = ops
        for path in paths {
            let change = LayerChange.set(1, keyPath: "path", value: .path(path))
            try tree.apply(Commit(client: 1, content: .operations([change])))
            scene.append(change)
            let list = packed.build(tree)
            #expect(try expectPacked(list) >= 1)
            lists.append(list)
            let (_, meshes) = try shapes.secondFrame(scene, width: 128, height: 72, atlas: false)
            references.append(try renderImage(meshes))
        }
        let bases = lists.compactMap { $0.framePage?.base }
        #expect(bases.count == 3 && bases[0] !== bases[1] && bases[1] !== bases[2] && bases[0] !== bases[2])
        let renderer = try makeRenderer(width: 128, height: 72)
        // 0, 1, 2 back to back, then (pages unused for frames: swept, made again) 0, 2, 1, 0.
        var order = [0, 1, 2]
        order += Array(repeating: 1, count: 9) + [0, 2, 1, 0]
        for (n, k) in order.enumerated() {
            try renderer.render(lists[k])
            let comparison = PixelComparator.compare(RGBAImage(width: 128, height: 72, pixels: try renderer.readPixels()),
                                                     references[k], tolerance: exact)
            #expect(comparison.passed, "frame \(n) (list \(k)): \(comparison)")
        }
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// A patch (an animated color) adds to the page of the full build it patches: its list
    /// names that page with more writes, keeps the other item, and draws as the meshes.
    @Test func aPatchAddsToItsFullBuildsPage() throws {
        // Unequal x/y scales: never from the shape atlas, always coverage made in the frame.
        var ops = shapes.strokedStarAndEllipse()
        ops.append(.set(1, keyPath: "transform", value: .transform(.scale(1.2, 0.8, 1))))
        ops.append(.set(2, keyPath: "transform", value: .transform(.scale(0.9, 1.1, 1))))
        var tree = try TestScene.tree(ops)
        var timing = AnimationTiming(duration: 1); timing.timingFunction = .linear; timing.repeatCount = .infinity
        try tree.apply(Commit(client: 1, content: .operations([.addAnimation(2, key: "tint", animation: .basic(BasicAnimation(
            keyPath: "fillColor", from: .color(ShapeAtlasTests.blue), to: .color(ShapeAtlasTests.red), timing: timing)))])))
        var packed = builder(width: 128, height: 72)
        packed.patcher.backoffAfterFailure = 0
        var meshes = DrawListBuilder(widthPoints: 128, heightPoints: 72, scale: 1, background: Color(1, 1, 1))
        meshes.usesShapeAtlas = false
        var snapshots = SnapshotMaker()
        let renderer = try makeRenderer(width: 128, height: 72)
        var last: DrawList? = nil
        var patches = 0
        for k in 0..<8 {
            let t = Double(k) * 0.07
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = packed.build(snapshot.tree)
            #expect(try expectPacked(list) == 2)
            if packed.lastBuildPatched, let last {
                patches += 1
                #expect(list.framePage?.base === last.framePage?.base)
                #expect((list.framePage?.writes.count ?? 0) > (last.framePage?.writes.count ?? 0))
            } else if let last {
                #expect(list.framePage?.base !== last.framePage?.base)
            }
            try renderer.render(list)
            let comparison = PixelComparator.compare(RGBAImage(width: 128, height: 72, pixels: try renderer.readPixels()),
                                                     try renderImage(meshes.build(snapshot.tree)), tolerance: exact)
            #expect(comparison.passed, "frame \(k) (patched: \(packed.lastBuildPatched)): \(comparison)")
            last = list
        }
        #expect(patches >= 3)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// Coverage made in the frame whose meshes and map to the image's pixels are unchanged —
    /// a shape that held still or moved by whole pixels — takes the bytes made before
    /// (`ShapeAtlas.frameCoverage`); one moved by a fraction of a pixel is made anew. Every
    /// page's writes are byte for byte those of a builder that accumulates each image anew.
    @Test func unchangedCoverageIsReusedAsMade() throws {
        // Unequal x/y scales: never from the shape atlas, always coverage made in the frame
        // (binary fractions: a whole-pixel move leaves the map's offset exactly as it was).
        var ops = shapes.strokedStarAndEllipse()
        ops.append(.set(1, keyPath: "transform", value: .transform(.scale(1.25, 0.75, 1))))
        ops.append(.set(2, keyPath: "transform", value: .transform(.scale(0.875, 1.125, 1))))
        ops.append(.set(1, keyPath: "position", value: .point(Point(50, 45))))
        ops.append(.set(2, keyPath: "position", value: .point(Point(170, 50))))
        var tree = try TestScene.tree(ops)
        var reusing = builder(width: 256, height: 110)
        var fresh = builder(width: 256, height: 110)
        reusing.patchesInPlace = false; fresh.patchesInPlace = false
        reusing.shapeAtlas.reusesFrameCoverage = true
        fresh.shapeAtlas.reusesFrameCoverage = false
        // Layer 1's position each frame, and the images reused by then: none in the first
        // frame, both while it holds still or moves by whole pixels, layer 2's alone when it
        // moves by a quarter pixel, both again when it stays there.
        let steps: [(Point, Int)] = [(Point(50, 45), 0), (Point(50, 45), 2), (Point(53, 42), 4), (Point(53.25, 42), 5),
                                     (Point(53.25, 42), 7)]
        for (n, (position, reused)) in steps.enumerated() {
            try tree.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "position", value: .point(position))])))
            let list = reusing.build(tree), reference = fresh.build(tree)
            #expect(try expectPacked(list) == 2)
            #expect(reusing.shapeAtlas.frameCoverageReused == reused, "frame \(n)")
            #expect(fresh.shapeAtlas.frameCoverageReused == 0)
            let writes = try #require(list.framePage?.writes), expected = try #require(reference.framePage?.writes)
            #expect(writes.count == expected.count)
            for (a, b) in zip(writes, expected) {
                #expect(a.x == b.x && a.y == b.y && a.width == b.width && a.height == b.height, "frame \(n)")
                #expect(a.bytes == b.bytes, "frame \(n): write at \(a.x),\(a.y)")
                #expect(a.bytes.contains { $0 != 0 }, "frame \(n): a write with coverage")
            }
        }
    }

    /// Shapes of about 200 device pixels a side: 25 fit the page's shelves (five of at most
    /// 204 texels with their gutters a row, five rows), the 26th draws its meshes (the frame's
    /// texel budget, 2²⁰, is not spent: 26 × 202² is less).
    @Test func aFullPageLeavesTheRestToTheirMeshes() throws {
        var ops: [LayerChange] = []
        for k in 0..<26 {
            ops += shapes.layer(UInt32(k + 1), frame: Rect(Double(k % 7) * 150, Double(k / 7) * 150, 200, 200), [
                ("path", .path(.ellipse(in: Rect(2, 2, 196 - 0.25 * Double(k), 196)))),  // (meshes of its own)
                ("fillColor", .color(Color(0.03 * Double(k), 0.5, 1 - 0.03 * Double(k), 0.3))),
            ])
        }
        var packed = builder(width: 1100, height: 650)
        let list = packed.build(try TestScene.tree(ops))
        #expect(try expectPacked(list) == 25)
        #expect(list.items.filter(ShapeAtlasTests.isMeshItem).count == 1)
        let (_, meshes) = try shapes.secondFrame(ops, width: 1100, height: 650, atlas: false)
        let comparison = PixelComparator.compare(try renderImage(list), try renderImage(meshes), tolerance: exact)
        #expect(comparison.passed, "\(comparison)")
    }
}
