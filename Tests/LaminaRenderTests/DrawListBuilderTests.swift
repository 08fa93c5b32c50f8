import Foundation
import Testing
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
import LaminaPNG
@testable import LaminaRender
import LaminaModel

/// The presentation tree → draw list → pixels: ordering, shadows, clips, gradient and shape
/// layers, the mesh cache. Expected pixels are worked out by hand in each test.
@Suite("Draw list builder")
struct DrawListBuilderTests {
    func render(_ t: LayerTree, width: Double = 64, height: Double = 64) throws -> RGBAImage {
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: Color(1, 1, 1))
        return try renderImage(builder.build(t), alpha: .straight)
    }

    @Test func zPositionSortsSiblingsStably() throws {
        // Three overlapping squares added red, green, blue; green has zPosition −1, so it is
        // drawn first; red and blue (both 0) keep their order: blue on top of red.
        let t = try TestScene.tree(
            TestScene.layer(1, frame: Rect(8, 8, 32, 32), [("backgroundColor", .color(red))])
            + TestScene.layer(2, frame: Rect(16, 16, 32, 32), [("backgroundColor", .color(green)), ("zPosition", .number(-1))])
            + TestScene.layer(3, frame: Rect(24, 24, 32, 32), [("backgroundColor", .color(blue))]))
        let image = try render(t)
        expectPixel(image, 20, 20, RGBA(255, 0, 0), "red over green")
        expectPixel(image, 30, 30, RGBA(0, 0, 255), "blue over red and green")
        expectPixel(image, 44, 20, RGBA(0, 255, 0), "green alone")
    }

    @Test func shadowFromLayerProperties() throws {
        // A 20×20 black-shadowed white square at (20, 20), shadowOffset (0, 10), radius 0
        // (a hard shadow), opacity 1: the shadow shows below it, (20…40, 40…50).
        let t = try TestScene.tree(TestScene.layer(1, frame: Rect(20, 20, 20, 20), [
            ("backgroundColor", .color(Color(0, 0, 1))), ("shadowOpacity", .number(1)),
            ("shadowOffset", .size(Size(0, 10))), ("shadowRadius", .number(0)),
        ]))
        let image = try render(t)
        expectPixel(image, 30, 30, RGBA(0, 0, 255), "the layer")
        expectPixel(image, 30, 45, RGBA(0, 0, 0), tolerance: 2, "its shadow")
        expectPixel(image, 30, 52, RGBA(255, 255, 255), tolerance: 2, "past the shadow")
        // A blurred shadow: at the offset shadow's edge the blur is half covered.
        let soft = try TestScene.tree(TestScene.layer(1, frame: Rect(20, 20, 20, 20), [
            ("backgroundColor", .color(Color(0, 0, 1))), ("shadowOpacity", .number(1)),
            ("shadowOffset", .size(Size(0, 10))), ("shadowRadius", .number(3)),
        ]))
        let blurred = try render(soft)
        expectPixel(blurred, 30, 50, RGBA(145, 145, 145), tolerance: 12, "half way down the blurred edge")
    }

    @Test func shadowPathCircleIsRound() throws {
        // shadowPath a circle of radius 10 at (10, 40) in a layer at (0, 0), offset (0, 0),
        // radius 0: inside the circle black, at the corner of its bounding box white.
        let t = try TestScene.tree(TestScene.layer(1, frame: Rect(0, 0, 64, 64), [
            ("shadowOpacity", .number(1)), ("shadowOffset", .size(Size(0, 0))), ("shadowRadius", .number(0)),
            ("shadowPath", .path(.ellipse(in: Rect(0, 30, 20, 20)))),
        ]))
        let image = try render(t)
        expectPixel(image, 10, 40, RGBA(0, 0, 0), tolerance: 2, "inside the circle")
        expectPixel(image, 1, 31, RGBA(255, 255, 255), tolerance: 2, "outside the circle, inside its box")
    }

    @Test func masksToBoundsClipsSublayersAndHidesTheShadow() throws {
        // Parent (16, 16, 32, 32) masks; its child is 64×64 red from its origin.
        let t = try TestScene.tree(
            TestScene.layer(1, frame: Rect(16, 16, 32, 32), [("masksToBounds", .bool(true)), ("shadowOpacity", .number(1)),
                                                   ("backgroundColor", .color(Color(0, 0, 1))),
                                                   ("shadowOffset", .size(Size(0, 20))), ("shadowRadius", .number(0))])
            + TestScene.layer(2, parent: 1, frame: Rect(8, 8, 64, 64), [("backgroundColor", .color(red))]))
        let image = try render(t)
        expectPixel(image, 20, 20, RGBA(0, 0, 255), "parent background")
        expectPixel(image, 40, 40, RGBA(255, 0, 0), "child inside the clip")
        expectPixel(image, 52, 40, RGBA(255, 255, 255), "child clipped")
        expectPixel(image, 30, 60, RGBA(255, 255, 255), "no shadow under masksToBounds")
    }

    @Test func gradientLayer() throws {
        // Axial black → white from left to right over 64 points: pixel column x has t = (x + ½)/64.
        let t = try TestScene.tree(TestScene.layer(1, .gradient, frame: Rect(0, 0, 64, 64), [
            ("colors", .colors([Color(0, 0, 0), Color(1, 1, 1)])),
            ("startPoint", .point(Point(0, 0.5))), ("endPoint", .point(Point(1, 0.5))),
        ]))
        let image = try render(t)
        expectPixel(image, 15, 30, RGBA(62, 62, 62), tolerance: 1)   // 255 × 15.5/64 = 61.8
        expectPixel(image, 47, 30, RGBA(189, 189, 189), tolerance: 1) // 255 × 47.5/64 = 189.3
    }

    @Test func shapeLayerMeshesAreCachedAndTrimmedOnTheCPU() throws {
        // A horizontal line (8, 32) → (56, 32), width 8, butt caps, blue; strokeEnd 0.5 draws
        // (8…32) only: a coverage mesh is the trimmed stroke's outline, so the trim is a
        // second mesh; an unchanged frame tessellates and uploads nothing.
        var line = Path(); line.move(to: Point(8, 32)); line.addLine(to: Point(56, 32))
        var t = try TestScene.tree(TestScene.layer(1, .shape, frame: Rect(0, 0, 64, 64), [
            ("path", .path(line)), ("fillColor", .color(nil)), ("strokeColor", .color(Color(0, 0, 1))),
            ("lineWidth", .number(8)),
        ]))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        let renderer = try makeRenderer(width: 64, height: 64)
        try renderer.render(builder.build(t))
        var image = RGBAImage(width: 64, height: 64, pixels: try renderer.readPixels(alpha: .straight))
        expectPixel(image, 48, 32, RGBA(0, 0, 255), "whole line")
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "strokeEnd", value: .number(0.5))])))
        try renderer.render(builder.build(t))
        image = RGBAImage(width: 64, height: 64, pixels: try renderer.readPixels(alpha: .straight))
        expectPixel(image, 20, 32, RGBA(0, 0, 255), "first half")
        expectPixel(image, 48, 32, RGBA(255, 255, 255), "trimmed away")
        try renderer.render(builder.build(t))
        #expect(builder.meshCache.misses == 2, "tessellated once per trim")
        #expect(renderer.meshUploads == 2, "uploaded once per trim")
        #expect(renderer.gpuMeshCount == 2)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    @Test func clipsThatCannotCutAreSkippedInTheChain() throws {
        // 10 nested masksToBounds layers, each 3 points inside its superlayer on every side
        // and turned 0.01 rad (its corners move out by at most 0.01 × 32 points): each lies
        // inside its superlayer with more than a pixel to spare beyond the 1-point corner
        // radius, so no clip needs its ancestors. An 11th layer pokes out of the 10th on the
        // left: its clip keeps the 10th's. The pixels are the clips' nonetheless.
        var ops: [LayerChange] = []
        for i in 1...10 {
            let side = 64 - 6 * Double(i - 1)
            ops += TestScene.layer(UInt32(i), parent: UInt32(i - 1),
                         frame: i == 1 ? Rect(0, 0, side, side) : Rect(3, 3, side, side), [
                ("masksToBounds", .bool(true)), ("cornerRadius", .number(1)),
                ("transform", .transform(.rotation(i == 1 ? 0 : 0.01))),
                ("backgroundColor", .color(i % 2 == 0 ? Color(1, 0, 0) : Color(0, 0, 1))),
            ])
        }
        ops += TestScene.layer(11, parent: 10, frame: Rect(-10, 2, 20, 2), [("masksToBounds", .bool(true)),
                                                                  ("backgroundColor", .color(Color(0, 1, 0)))])
        let t = try TestScene.tree(ops)
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        let list = builder.build(t)
        #expect(list.clips.count == 11)
        #expect(list.clips.prefix(10).allSatisfy { $0.parent == -1 }, "\(list.clips.map(\.parent))")
        #expect(list.clips[10].parent == 9, "the poking-out layer's clip keeps its superlayer's")
        // Layer 10 (10 points, red) at the centre, layer 9 (16 points, blue) around it, layer
        // 1 alone at the left edge; the green bar is cut at layer 10's left edge (x ≈ 27).
        let image = try render(t)
        expectPixel(image, 32, 32, RGBA(255, 0, 0), "layer 10")
        expectPixel(image, 25, 36, RGBA(0, 0, 255), "layer 9")
        expectPixel(image, 1, 32, RGBA(0, 0, 255), "layer 1")
        expectPixel(image, 25, 30, RGBA(0, 0, 255), "the green bar is cut by layer 10")
        expectPixel(image, 29, 29, RGBA(0, 255, 0), tolerance: 8, "the green bar inside layer 10")
    }

    @Test func deeplyNestedGroupsStayWithinTheRenderersImages() throws {
        // 100 nested translucent layers with sublayers would each be a group holding an
        // offscreen image while their sublayers draw; past maxNestedGroups the opacity
        // multiplies into the items instead, so the frame renders (the renderer holds at most
        // OffscreenRenderer.maxGroups images) and the innermost square has the product of
        // the opacities.
        var ops: [LayerChange] = []
        for i in 1...100 {
            ops += TestScene.layer(UInt32(i), parent: UInt32(i - 1), frame: i == 1 ? Rect(0, 0, 64, 64) : Rect(0, 0, 64, 64),
                         [("opacity", .number(0.99))] + (i == 100 ? [("backgroundColor", .color(Color(0, 0, 0)))] : []))
        }
        // So that layer 100 has a sublayer too, drawing a corner over its background: every
        // group then holds overlapping items and none is elided (`DrawListBuilder.drawsApart`).
        ops += TestScene.layer(101, parent: 100, frame: Rect(0, 0, 4, 4), [("backgroundColor", .color(Color(0, 0, 0)))])
        let t = try TestScene.tree(ops)
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        let list = builder.build(t)
        var open: [Int] = [], deepest = 0
        for (k, item) in list.items.enumerated() {
            while let end = open.last, k > end { open.removeLast() }
            if case .group(_, let count) = item.kind { open.append(k + count); deepest = max(deepest, open.count) }
        }
        #expect(deepest == DrawListBuilder.maxNestedGroups)
        let image = try render(t)
        // Black at alpha 0.99^100 = 0.366 over white: 255 × (1 − 0.366) = 161.6, within
        // the rounding of 32 group composites to 8 bits (≤ 0.5 level each).
        expectPixel(image, 32, 32, RGBA(162, 162, 162), tolerance: 16)
    }

    @Test func shadowsFarOffTheTargetDoNotTrap() throws {
        // Blurred shadows whose content lies ~1e30 pixels away or is scaled by 1e15 (legal
        // finite values): their device boxes must clamp before becoming integers (converting
        // them trapped and took the daemon down). A normal layer in the same frame draws.
        var star = Path()
        star.addPolygon([Point(0, 0), Point(10, 0), Point(5, 8)])
        let shadow: [(String, PropertyValue)] = [("path", .path(star)), ("fillColor", .color(Color(1, 0, 0))),
                                                 ("shadowOpacity", .number(1)), ("shadowRadius", .number(2))]
        var ops = TestScene.layer(1, .shape, frame: Rect(1e30, -1e30, 10, 10), shadow)
        ops += TestScene.layer(2, .shape, frame: Rect(20, 20, 10, 10), shadow + [("transform", .transform(.scale(1e15, 1e15, 1)))])
        ops += TestScene.layer(3, frame: Rect(40, 40, 10, 10), [("backgroundColor", .color(Color(0, 0, 1)))])
        let image = try render(try TestScene.tree(ops))
        expectPixel(image, 45, 45, RGBA(0, 0, 255))
    }

    @Test func groupOpacityCompositesTheSubtreeOnce() throws {
        // Parent opacity 0.5 holding two overlapping opaque children, red then blue: the group
        // is drawn offscreen, so where they overlap only blue shows, at 50 % over white —
        // (128, 128, 255) — not blue over a showing-through red. The parent's own gray
        // background is part of the group: 50 % of (0.5 gray) over white.
        let t = try TestScene.tree(
            TestScene.layer(1, frame: Rect(0, 0, 64, 64), [("opacity", .number(0.5)), ("backgroundColor", .color(Color(0.5, 0.5, 0.5)))])
            + TestScene.layer(2, parent: 1, frame: Rect(8, 8, 32, 32), [("backgroundColor", .color(red))])
            + TestScene.layer(3, parent: 1, frame: Rect(24, 24, 32, 32), [("backgroundColor", .color(blue))]))
        let image = try render(t)
        expectPixel(image, 30, 30, RGBA(128, 128, 255), tolerance: 1, "overlap: blue only, at 50 %")
        expectPixel(image, 12, 12, RGBA(255, 128, 128), tolerance: 1, "red alone, at 50 %")
        expectPixel(image, 60, 4, RGBA(191, 191, 191), tolerance: 1, "the parent's background, at 50 %")
        // Nested: a group inside a group (inner opacity 0.5 inside outer 0.5): 25 % red.
        let nested = try TestScene.tree(
            TestScene.layer(1, frame: Rect(0, 0, 64, 64), [("opacity", .number(0.5))])
            + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 64, 64), [("opacity", .number(0.5))])
            + TestScene.layer(3, parent: 2, frame: Rect(8, 8, 32, 32), [("backgroundColor", .color(red))])
            + TestScene.layer(4, parent: 2, frame: Rect(24, 24, 32, 32), [("backgroundColor", .color(red))]))
        let nestedImage = try render(nested)
        expectPixel(nestedImage, 30, 30, RGBA(255, 191, 191), tolerance: 1, "overlap counted once: 25 % red")
    }

    // MARK: Which shadow gets drawn

    typealias Radii = LaminaFrame.CornerRadii

    func build(_ operations: [LayerChange], scale: Double = 1) throws -> DrawList {
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: scale, background: Color(1, 1, 1))
        return builder.build(try TestScene.tree(operations))
    }

    /// The shadow's draw item: `.shadow` (analytic) or `.shadowGroup` and its content.
    enum ShadowConstruct: Equatable {
        case none
        case analytic(bounds: Rect, radii: Radii, alpha: Double)
        case blurred(sigma: Double, count: Int)
    }

    func shadowConstruct(_ list: DrawList) -> ShadowConstruct {
        for item in list.items {
            switch item.kind {
            case .shadow: return .analytic(bounds: item.bounds, radii: item.cornerRadii, alpha: item.backgroundColor.alpha)
            case .shadowGroup(_, let sigma, let count): return .blurred(sigma: sigma, count: count)
            default: continue
            }
        }
        return .none
    }

    static let shadowed: [(String, PropertyValue)] = [
        ("shadowOpacity", .number(0.5)), ("shadowOffset", .size(Size(2, 3))), ("shadowRadius", .number(4)),
    ]

    @Test func analyticShadowWhereItIsExact() throws {
        let frame = Rect(8, 8, 20, 10)
        // An opaque rounded background: its rounded bounds, shadowOpacity × shadowColor's alpha.
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("backgroundColor", .color(blue)), ("cornerRadius", .number(3)),
        ] + Self.shadowed))) == .analytic(bounds: Rect(0, 0, 20, 10), radii: Radii(3), alpha: 0.5))
        // A 40 % background: the shadow's alpha × 0.4 (CA shadows the layer's alpha).
        if case .analytic(_, _, let alpha) = shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("backgroundColor", .color(Color(0, 0, 1, 0.4))),
        ] + Self.shadowed))) {
            // 0.5 × the background's alpha as the item keeps it: a Float (the GPU's precision).
            #expect(abs(alpha - 0.5 * Double(Float(0.4))) < 1e-12)
        } else {
            Issue.record("expected an analytic shadow")
        }
        // An opaque background with a translucent border: still one opaque rounded rect.
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("backgroundColor", .color(blue)), ("borderWidth", .number(2)), ("borderColor", .color(Color(1, 0, 0, 0.5))),
        ] + Self.shadowed))) == .analytic(bounds: Rect(0, 0, 20, 10), radii: .zero, alpha: 0.5))
        // A gradient of opaque colors: its square bounds (it is not clipped to the corners).
        #expect(shadowConstruct(try build(TestScene.layer(1, .gradient, frame: frame, [
            ("colors", .colors([red, blue])), ("cornerRadius", .number(3)),
        ] + Self.shadowed))) == .analytic(bounds: Rect(0, 0, 20, 10), radii: .zero, alpha: 0.5))
        // shadowPath a rect, a rounded rect (any radius) and a circle.
        for (path, radii) in [(Path.rect(Rect(1, 2, 10, 6)), Radii.zero),
                              (Path.roundedRect(Rect(1, 2, 10, 6), radius: 2), Radii(2)),
                              (Path.ellipse(in: Rect(1, 2, 6, 6)), Radii(3))] {
            let b = DrawListBuilder.controlBounds(path)
            #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [("shadowPath", .path(path))] + Self.shadowed)))
                    == .analytic(bounds: b, radii: radii, alpha: 0.5))
        }
    }

    @Test func blurredShadowOtherwise() throws {
        let frame = Rect(8, 8, 20, 10)
        // A translucent background under a border: two alphas (a ring over the fill).
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("backgroundColor", .color(Color(0, 0, 1, 0.5))), ("borderWidth", .number(2)), ("borderColor", .color(red)),
        ] + Self.shadowed))) == .blurred(sigma: 4, count: 1))
        // A border alone: a ring.
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("borderWidth", .number(2)), ("borderColor", .color(red)),
        ] + Self.shadowed))) == .blurred(sigma: 4, count: 1))
        // A gradient with a translucent color.
        #expect(shadowConstruct(try build(TestScene.layer(1, .gradient, frame: frame, [
            ("colors", .colors([red, Color(0, 0, 1, 0.5)])),
        ] + Self.shadowed))) == .blurred(sigma: 4, count: 1))
        // A shape layer: its fill's alpha (the fill mesh).
        let shape = try build(TestScene.layer(1, .shape, frame: frame, [
            ("path", .path(.polygon([Point(0, 0), Point(20, 0), Point(10, 10)]))), ("fillColor", .color(blue)),
        ] + Self.shadowed))
        #expect(shadowConstruct(shape) == .blurred(sigma: 4, count: 1))
        if case .mesh = shape.items[1].kind {} else { Issue.record("the shadow's content is the fill mesh") }
        // shadowPath a triangle: the Gaussian of its fill, one mesh, at the pixel scale (σ × 2).
        let triangle = try build(TestScene.layer(1, frame: frame, [
            ("shadowPath", .path(.polygon([Point(0, 0), Point(20, 0), Point(10, 10)]))),
        ] + Self.shadowed), scale: 2)
        #expect(shadowConstruct(triangle) == .blurred(sigma: 8, count: 1))
        // An ellipse that is not a circle.
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("shadowPath", .path(.ellipse(in: Rect(0, 0, 20, 10)))),
        ] + Self.shadowed))) == .blurred(sigma: 4, count: 1))
        // A clear layer with sublayers: the subtree as drawn (the layer's background, both
        // sublayers), moved by the offset, unclipped by the group's own clip; then the layer.
        let subtree = try build(
            TestScene.layer(1, frame: frame, [("backgroundColor", .color(blue))] + Self.shadowed)
            + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 4, 4), [("backgroundColor", .color(red))])
            + TestScene.layer(3, parent: 1, frame: Rect(4, 4, 4, 4), [("backgroundColor", .color(green))]))
        #expect(shadowConstruct(subtree) == .blurred(sigma: 4, count: 3))
        #expect(subtree.items.count == 7)
        #expect(subtree.items[1].transform.m41 == 8 + 2 && subtree.items[1].transform.m42 == 8 + 3, "offset")
        #expect(subtree.items[4].transform.m41 == 8 && subtree.items[4].transform.m42 == 8, "the layer itself")
    }

    @Test func noShadowWhenNothingCastsOne() throws {
        let frame = Rect(8, 8, 20, 10)
        // Nothing drawn: no shadow (and no empty group).
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, Self.shadowed))) == .none)
        // masksToBounds hides the layer's own shadow (CA: the shadow lies outside the bounds).
        #expect(shadowConstruct(try build(TestScene.layer(1, frame: frame, [
            ("masksToBounds", .bool(true)), ("shadowPath", .path(.polygon([Point(0, 0), Point(20, 0), Point(10, 10)]))),
        ] + Self.shadowed))) == .none)
    }

    @Test func blurredShadowIsClippedByItsSuperlayer() throws {
        // A parent (0, 0, 32, 64) masks; its child (8, 8, 16, 16) is a triangle shape layer
        // with a hard shadow (radius 0) moved right by 24: the shadow shows inside the parent
        // (x < 32) and is clipped beyond it.
        let t = try TestScene.tree(
            TestScene.layer(1, frame: Rect(0, 0, 32, 64), [("masksToBounds", .bool(true))])
            + TestScene.layer(2, .shape, parent: 1, frame: Rect(8, 8, 16, 16), [
                ("path", .path(.polygon([Point(0, 0), Point(16, 0), Point(16, 16), Point(0, 16)]))),
                ("fillColor", .color(blue)), ("shadowOpacity", .number(1)), ("shadowOffset", .size(Size(20, 0))),
                ("shadowRadius", .number(0)),
            ]))
        let image = try render(t)
        expectPixel(image, 12, 16, RGBA(0, 0, 255), "the shape")
        expectPixel(image, 30, 16, RGBA(0, 0, 0), tolerance: 2, "its shadow inside the parent")
        expectPixel(image, 36, 16, RGBA(255, 255, 255), "clipped by the parent")
    }
}
