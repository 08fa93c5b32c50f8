import Testing
import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaFrame

/// A layer masked by one shape layer drawn as one item from the shape's coverage
/// (`DrawListBuilder.visitCoverageMasked`): which lists make it and which keep the masked
/// group, the gradient's coordinate map against a hand computation, and frames of an animated
/// mask path and gradient colors against full builds of the same trees. Pixels:
/// LaminaServerTests' SceneGoldenTests (`gradientMasks`, against cairo).
@Suite("Masks drawn from coverage: the lists")
struct CoverageMaskListTests {
    static let star = Path.polygon([Point(30, 0), Point(37, 21), Point(60, 22), Point(42, 36), Point(48, 58),
                                    Point(30, 45), Point(12, 58), Point(18, 36), Point(0, 22), Point(23, 21)])

    /// A gradient (or `kind`) layer 1 masked by shape layer 2, each with `masked` and `mask`'s
    /// extra properties.
    static func scene(_ kind: LayerKind = .gradient, masked: [(String, PropertyValue)] = [],
                      mask: [(String, PropertyValue)] = [], sublayer: Bool = false) -> [LayerChange] {
        var c = TestScene.layer(1, kind, frame: Rect(10, 8, 80, 60), [
            ("transform", .transform(.rotation(0.3, 0, 0, 1)))] + (kind == .gradient ? [
            ("colors", .colors([Color(1, 0, 0), Color(0, 0.5, 1), Color(1, 1, 0)])),
            ("startPoint", .point(Point(0, 0))), ("endPoint", .point(Point(1, 1)))] : [
            ("backgroundColor", .color(Color(1, 0.5, 0)))]) + masked)
        c += [.create(2, .shape), .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 60, 60))),
              .set(2, keyPath: "position", value: .point(Point(40, 30))),
              .set(2, keyPath: "path", value: .path(star)),
              .set(2, keyPath: "fillColor", value: .color(Color(0, 0, 0)))]
        c += mask.map { .set(2, keyPath: $0.0, value: $0.1) }
        if sublayer { c += TestScene.layer(3, parent: 1, frame: Rect(0, 0, 10, 10), [("backgroundColor", .color(Color(0, 0, 1)))]) }
        c.append(.set(1, keyPath: "mask", value: .number(2)))
        return c
    }

    /// The list of `changes` from a builder that draws new shapes from coverage made in the
    /// frame (as on a CPU rasterizer), masks from coverage or not.
    static func list(_ changes: [LayerChange], fromCoverage: Bool = true) throws -> DrawList {
        var builder = DrawListBuilder(widthPoints: 120, heightPoints: 90, scale: 1, background: Color(1, 1, 1))
        builder.rasterizesNewShapes = true
        builder.drawsMasksFromCoverage = fromCoverage
        return builder.build(try TestScene.tree(changes))
    }

    static func masks(_ list: DrawList) -> Int {
        list.items.filter { if case .mask = $0.kind { true } else { false } }.count
    }
    static func offscreenPasses(_ list: DrawList) -> Int { list.plan.passes.filter { $0.target != .frame }.count }
    static func maskedGradients(_ list: DrawList) -> Int {
        list.items.filter { if case .image(let d) = $0.kind, case .maskedGradient = d.mode { true } else { false } }.count
    }

    @Test func aMaskedGradientIsOneItemWithNoPass() throws {
        for type in ["axial", "radial"] {
            let list = try Self.list(Self.scene(masked: [("gradientType", .string(type)), ("opacity", .number(0.5))]))
            #expect(Self.masks(list) == 0 && Self.offscreenPasses(list) == 0, "\(type)")
            #expect(list.items.count == 1 && Self.maskedGradients(list) == 1, "\(type)")
            // At the layer's opacity, clipped by its bounds.
            #expect(list.items.first?.opacity == 0.5)
            #expect(list.items.first.map { list.clips[$0.clip].rect } == Rect(0, 0, 80, 60))
            let old = try Self.list(Self.scene(masked: [("gradientType", .string(type))]), fromCoverage: false)
            #expect(Self.masks(old) == 1 && Self.offscreenPasses(old) > 0, "\(type)")
        }
    }

    /// A plain layer's background under a filled and stroked mask: the mask's `.shape` item in
    /// the background's color; a translucent stroke alone: its alpha in the opacity.
    @Test func aMaskedBackgroundIsTheShapeInItsColor() throws {
        let list = try Self.list(Self.scene(.layer, mask: [("strokeColor", .color(Color(0, 0, 0))),
                                                          ("lineWidth", .number(4))]))
        #expect(Self.masks(list) == 0 && list.items.count == 1)
        if case .image(let d)? = list.items.first?.kind {
            #expect(d.mode == .shape(fill: Color(1, 0.5, 0), stroke: Color(1, 0.5, 0)))
        } else {
            Issue.record("not an image: \(String(describing: list.items.first?.kind))")
        }
        let stroked = try Self.list(Self.scene(masked: [], mask: [("fillColor", .color(nil)),
                                                             ("strokeColor", .color(Color(0, 0, 0, 0.5))),
                                                             ("lineWidth", .number(6))]))
        #expect(Self.maskedGradients(stroked) == 1 && stroked.items.first?.opacity == 0.5)
    }

    /// What a single item would not draw exactly keeps the masked group (and its passes).
    @Test func othersKeepTheirGroup() throws {
        let cases: [(String, [LayerChange])] = [
            ("conic", Self.scene(masked: [("gradientType", .string("conic"))])),
            ("a sublayer", Self.scene(sublayer: true)),
            ("a background under the gradient", Self.scene(masked: [("backgroundColor", .color(Color(0, 1, 0)))])),
            ("a border", Self.scene(masked: [("borderWidth", .number(2)), ("borderColor", .color(Color(0, 0, 0)))])),
            ("a mask with a background", Self.scene(mask: [("backgroundColor", .color(Color(0, 0, 0, 0.3)))])),
            ("a translucent mask", Self.scene(mask: [("opacity", .number(0.5))])),
            ("a translucent fill and a stroke", Self.scene(mask: [("fillColor", .color(Color(0, 0, 0, 0.5))),
                                                                   ("strokeColor", .color(Color(0, 0, 0))),
                                                                   ("lineWidth", .number(3))])),
            ("a translucent background under a fill and a stroke",
             Self.scene(.layer, masked: [("backgroundColor", .color(Color(1, 0, 0, 0.5)))],
                        mask: [("strokeColor", .color(Color(0, 0, 0))), ("lineWidth", .number(3))])),
            ("a mask with a shadow", Self.scene(mask: [("shadowOpacity", .number(1))])),
            ("a perspective", Self.scene(masked: [("transform", .transform(Transform3D.rotation(0.4, 0, 1, 0)
                .concatenating(.perspective(200))))])),
        ]
        for (what, changes) in cases {
            let list = try Self.list(changes)
            #expect(Self.masks(list) == 1 && Self.offscreenPasses(list) > 0 && Self.maskedGradients(list) == 0, "\(what)")
        }
    }

    /// The coordinate map against the gradient computed by hand: an item point through the
    /// item's transform to device pixels, back through the gradient layer's inverse into its
    /// plane, and there the axial projection or the radial ellipse's radius.
    @Test func theMapIsTheGradientsCoordinate() throws {
        var p = LayerProperties()
        p.bounds = Rect(0, 0, 80, 60)
        p.startPoint = Point(0.2, 0.1)
        p.endPoint = Point(0.9, 0.7)
        let gradient = Transform3D.scale(1.3, 0.7, 1).concatenating(.rotation(0.5, 0, 0, 1))
            .concatenating(.translation(40, 25))
        let item = Transform3D.rotation(-0.2, 0, 0, 1).concatenating(.scale(2, 2, 1)).concatenating(.translation(7, 9))
        let s = Point(16, 6), e = Point(72, 42)
        for type in [GradientType.axial, .radial] {
            p.gradientType = type
            let map = try #require(DrawListBuilder.maskedGradientMap(p, from: item, to: gradient))
            for q in [Point(0, 0), Point(13, -4), Point(30, 22.5)] {
                let device = Point(q.x * item.m11 + q.y * item.m21 + item.m41, q.x * item.m12 + q.y * item.m22 + item.m42)
                // The gradient plane's point: solve a x + c y = X − tx, b x + d y = Y − ty.
                let (a, b, c, d) = (gradient.m11, gradient.m12, gradient.m21, gradient.m22)
                let X = device.x - gradient.m41, Y = device.y - gradient.m42
                let det = a * d - b * c
                let local = Point((X * d - Y * c) / det, (Y * a - X * b) / det)
                let u = q.x * map[0] + q.y * map[1] + map[2], v = q.x * map[3] + q.y * map[4] + map[5]
                if type == .axial {
                    let t = ((local.x - s.x) * (e.x - s.x) + (local.y - s.y) * (e.y - s.y))
                        / ((e.x - s.x) * (e.x - s.x) + (e.y - s.y) * (e.y - s.y))
                    #expect(abs(u - t) < 1e-9)
                } else {
                    let t = (((local.x - s.x) / (e.x - s.x)) * ((local.x - s.x) / (e.x - s.x))
                        + ((local.y - s.y) / (e.y - s.y)) * ((local.y - s.y) / (e.y - s.y))).squareRoot()
                    #expect(abs((u * u + v * v).squareRoot() - t) < 1e-9)
                }
            }
        }
    }

    /// An animated mask path (new coverage every frame) and animated gradient colors (the
    /// mask held, then from the shape atlas): every frame is a full build (a list with a mask
    /// is not patched), the masked gradient one item, equal to a build of the same tree by a
    /// copy of the builder with the atlas as it was before the frame.
    @Test func animatedMasksEqualFullBuilds() throws {
        var tree = try TestScene.tree(Self.scene())
        var timing = AnimationTiming(duration: 1)
        timing.repeatCount = .infinity
        let other = Path.polygon([Point(30, 4), Point(40, 20), Point(58, 26), Point(44, 38), Point(50, 56),
                                  Point(30, 48), Point(10, 56), Point(16, 38), Point(2, 26), Point(20, 20)])
        try tree.apply(Commit(client: 1, content: .operations([
            .addAnimation(2, key: "p", animation: .basic(BasicAnimation(keyPath: "path", from: .path(Self.star),
                                                                        to: .path(other), timing: timing))),
            .addAnimation(1, key: "c", animation: .basic(BasicAnimation(
                keyPath: "colors", from: .colors([Color(1, 0, 0), Color(0, 0.5, 1), Color(1, 1, 0)]),
                to: .colors([Color(0, 1, 0), Color(1, 0, 1), Color(0, 0, 1)]), timing: timing))),
        ])), at: 0)
        var builder = DrawListBuilder(widthPoints: 120, heightPoints: 90, scale: 1, background: Color(1, 1, 1))
        builder.rasterizesNewShapes = true
        var snapshots = SnapshotMaker()
        for frame in 0..<8 {
            let t = Double(frame) / 30
            if frame == 4 {
                // The path holds from here: the mask gets an atlas entry.
                try tree.apply(Commit(client: 1, content: .operations([.removeAnimation(2, key: "p")])), at: t)
            }
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let atlasBefore = builder.shapeAtlas.copy()
            let list = builder.build(snapshot.tree)
            #expect(!builder.lastBuildPatched)
            #expect(list.items.count == 1 && Self.maskedGradients(list) == 1 && Self.offscreenPasses(list) == 0,
                    "frame \(frame)")
            var reference = builder
            reference.shapeAtlas = atlasBefore
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            #expect(list.items.count == expected.items.count && list.clips.count == expected.clips.count)
            for (a, b) in zip(list.items, expected.items) {
                guard case .image(let x) = a.kind, case .image(let y) = b.kind else {
                    Issue.record("frame \(frame): not images"); continue
                }
                // The same entry of each list's own page or atlas base.
                let sameImage = (x.image.id == list.framePage?.base.id && y.image.id == expected.framePage?.base.id)
                    || (x.image.id == list.shapeAtlas?.base.id && y.image.id == expected.shapeAtlas?.base.id)
                #expect(sameImage && x.geometry == y.geometry && x.mode == y.mode && a.transform == b.transform
                        && a.opacity == b.opacity && a.clip == b.clip, "frame \(frame)")
            }
            if frame >= 6 {
                // Held for a frame: drawn from the shape atlas.
                #expect(list.items.first.map { if case .image(let d) = $0.kind { d.image.id == list.shapeAtlas?.base.id }
                                               else { false } } == true, "frame \(frame)")
            }
        }
    }
}
