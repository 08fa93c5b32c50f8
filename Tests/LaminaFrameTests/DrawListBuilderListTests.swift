import Foundation
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing
import TestSupport

/// The draw-list builder's lists without pixels (DrawListBuilderTests in LaminaRenderTests
/// draws them): the mesh cache and memo under rotation, nested shadows' cost, drawing order
/// after deletions move storage slots.
@Suite("Draw list builder (lists)")
struct DrawListBuilderListTests {
    @Test func rotatingShapeKeepsOneMeshBucket() throws {
        // A rotation's row norm is 1 only up to rounding; a scale of 1 + 1 ulp must not fall
        // into the next quarter-octave bucket (which made a spinning shape switch meshes).
        var t = try TestScene.tree(TestScene.layer(1, .shape, frame: Rect(8, 8, 48, 48), [
            ("path", .path(.ellipse(in: Rect(0, 0, 48, 48)))), ("fillColor", .color(Color(1, 0, 0))),
        ]))
        var timing = AnimationTiming(duration: 6); timing.timingFunction = .linear
        try t.apply(Commit(client: 1, content: .operations([.addAnimation(1, key: "spin", animation: .basic(BasicAnimation(
            keyPath: "transform.rotation.z", from: .double(0), to: .double(2 * .pi), timing: timing)))])))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        builder.usesShapeAtlas = false  // the meshes every frame (the atlas would draw the unchanged shape)
        var presentation = LayerTree()
        func buckets(_ tree: LayerTree) -> [Int] {
            let list = builder.build(tree)
            return list.items.compactMap { item -> Int? in
                if case .mesh(let m) = item.kind { return builder.meshCache.key(for: m.id)?.scaleBucket } else { return nil }
            }
        }
        for k in 0..<60 {
            let time = Double(k) * 0.1
            t.updatePresentation(&presentation, at: time)
            #expect(buckets(presentation) == [0], "time \(time)")
        }
        // Whatever the presentation's rounding, a rotation whose row norm is 1 + 1 ulp (the
        // case under test) stays in bucket 0.
        var r = Transform3D.rotation(0.3)
        r.m11 *= 1 + .ulpOfOne; r.m12 *= 1 + .ulpOfOne
        #expect((r.m11 * r.m11 + r.m12 * r.m12).squareRoot() > 1)
        try t.apply(Commit(client: 1, content: .operations([.setTransaction(TransactionSettings(disableActions: true)),
                                                            .removeAnimation(1, key: "spin"),
                                                            .set(1, keyPath: "transform", value: .transform(r))])))
        t.updatePresentation(&presentation, at: 6)
        #expect(buckets(presentation) == [0])
        #expect(builder.meshCache.misses == 1, "tessellated once")
    }

    /// allowsGroupOpacity: true (the default) makes a translucent layer with sublayers one
    /// group marker whose items draw at opacity 1; false makes no marker, every item (the
    /// layer's own and each sublayer's) at the layer's opacity times its own.
    @Test func allowsGroupOpacityChoosesGroupOrPerItemOpacity() throws {
        func items(allowing: Bool?) throws -> [DrawItem] {
            var changes = TestScene.layer(1, frame: Rect(4, 4, 40, 40), [
                ("opacity", .number(0.5)), ("backgroundColor", .color(Color(0, 1, 0)))])
            if let allowing { changes.append(.set(1, keyPath: "allowsGroupOpacity", value: .bool(allowing))) }
            changes += TestScene.layer(2, parent: 1, frame: Rect(0, 0, 20, 20), [
                ("backgroundColor", .color(Color(1, 0, 0))), ("opacity", .number(0.8))])
            changes += TestScene.layer(3, parent: 1, frame: Rect(10, 10, 20, 20), [("backgroundColor", .color(Color(0, 0, 1)))])
            return TestScene.list(try TestScene.tree(changes)).items
        }
        for allowing in [nil, true] as [Bool?] {
            let list = try items(allowing: allowing)
            #expect(list.count == 4)
            guard case .group(let opacity, let count)? = list.first?.kind else { Issue.record("no group marker"); continue }
            #expect(opacity == 0.5 && count == 3)
            #expect(list.dropFirst().map(\.opacity) == [1, 0.8, 1])
        }
        let flat = try items(allowing: false)
        #expect(flat.count == 3)
        #expect(!flat.contains { if case .group = $0.kind { true } else { false } })
        #expect(flat.map(\.opacity) == [0.5, 0.5 * 0.8, 0.5])
    }

    /// A masked layer is a group at its opacity whose last items are its mask (`.mask`): the
    /// mask layer placed in the masked layer's own space (not through its sublayerTransform),
    /// at full opacity and unclipped; the plan draws the mask into an image of its own and
    /// multiplies the group's pass by it after the content. Lists with masks are not patched.
    @Test func aMaskEndsItsLayersGroup() throws {
        var changes = TestScene.layer(1, frame: Rect(10, 10, 40, 40), [
            ("opacity", .number(0.5)), ("backgroundColor", .color(Color(0, 1, 0))), ("masksToBounds", .bool(true)),
            ("sublayerTransform", .transform(.translation(5, 0)))])
        changes += TestScene.layer(2, parent: 1, frame: Rect(0, 0, 20, 20), [("backgroundColor", .color(Color(1, 0, 0)))])
        changes += [.create(3, .layer), .set(3, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                    .set(3, keyPath: "position", value: .point(Point(5, 5))), .set(3, keyPath: "opacity", value: .number(0.5)),
                    .set(3, keyPath: "backgroundColor", value: .color(Color(0, 0, 0))),
                    .set(1, keyPath: "mask", value: .number(3))]
        let tree = try TestScene.tree(changes)
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        let list = builder.build(tree)
        #expect(list.items.count == 5)
        guard list.items.count == 5, case .group(let opacity, let count) = list.items[0].kind,
              case .mask(let maskCount) = list.items[3].kind else { Issue.record("\(list.items.map(\.kind))"); return }
        #expect(opacity == 0.5 && count == 4 && maskCount == 1)
        #expect(list.items[1].opacity == 1 && list.items[2].opacity == 1)
        // The mask item: at its own opacity, unclipped, its origin at the masked layer's (10, 10).
        #expect(list.items[4].opacity == 0.5 && list.items[4].clip == -1)
        #expect(list.items[4].transform.m41 == 10 && list.items[4].transform.m42 == 10)
        // The plan: content and mask passes into images, the mask step after the content.
        let plan = list.plan
        guard let groupPass = plan.passes.first(where: { plan.steps[$0.steps].contains(.mask(image: 1)) }) else {
            Issue.record("no pass has a mask step: \(plan.steps)"); return
        }
        #expect(Array(plan.steps[groupPass.steps]) == [.items(1..<3), .mask(image: 1)])
        #expect(plan.steps.contains(.items(4..<5)))
        #expect(plan.steps.last == .composite(image: 0, opacity: 0.5))
        // No patch: the next frame is a full build all the same.
        _ = builder.build(tree)
        #expect(!builder.patcher.lastPatched)
    }

    /// A mask that is one opaque rounded rect (a plain layer with an opaque background and
    /// nothing else, at full opacity) is no group: its rounded bounds, in the masked layer's
    /// space, become a clip of every item of the masked layer and its sublayers. A mask with
    /// anything more to draw (a translucent background, a border, a sublayer) or at less than
    /// full opacity stays a `.mask` group.
    @Test func aPlainRoundedMaskIsAClip() throws {
        func list(_ mask: [(String, PropertyValue)], sublayer: Bool = false) throws -> DrawList {
            var changes = TestScene.layer(1, frame: Rect(10, 10, 40, 40), [("backgroundColor", .color(Color(0, 1, 0)))])
            changes += TestScene.layer(2, parent: 1, frame: Rect(0, 0, 20, 20), [("backgroundColor", .color(Color(1, 0, 0)))])
            changes += [.create(3, .layer), .set(3, keyPath: "bounds", value: .rect(Rect(0, 0, 30, 20))),
                        .set(3, keyPath: "position", value: .point(Point(20, 20))),
                        .set(3, keyPath: "cornerRadius", value: .number(6)),
                        .set(3, keyPath: "backgroundColor", value: .color(Color(0, 0, 0)))]
            changes += mask.map { .set(3, keyPath: $0.0, value: $0.1) }
            if sublayer { changes += TestScene.layer(4, parent: 3, frame: Rect(0, 0, 2, 2), []) }
            changes.append(.set(1, keyPath: "mask", value: .number(3)))
            var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
            return builder.build(try TestScene.tree(changes))
        }
        let plain = try list([])
        #expect(plain.items.count == 2, "\(plain.items.map(\.kind))")
        #expect(!plain.items.contains { if case .rect = $0.kind { false } else { true } })
        // Both items clipped by the mask's rounded bounds: 30 × 20 at (5, 10) in layer 1, whose
        // origin is at (10, 10).
        #expect(plain.items.allSatisfy { $0.clip == 0 } && plain.clips.count == 1)
        if let c = plain.clips.first {
            #expect(c.rect == Rect(0, 0, 30, 20) && c.radii == .init(6) && c.parent == -1)
            #expect(c.transform.m41 == 15 && c.transform.m42 == 20)
        }
        // Only the offscreen passes of no group: the frame pass alone.
        #expect(plain.plan.passes.count == 1)
        for (changes, sublayer) in [([("opacity", PropertyValue.number(0.5))], false),
                                    ([("backgroundColor", .color(Color(0, 0, 0, 0.5)))], false),
                                    ([("borderWidth", .number(2)), ("borderColor", .color(Color(0, 0, 0)))], false),
                                    ([], true)] {
            let masked = try list(changes, sublayer: sublayer)
            #expect(masked.items.contains { if case .mask = $0.kind { true } else { false } },
                    "\(changes) \(sublayer): \(masked.items.map(\.kind))")
        }
    }

    @Test func nestedShadowedLayersCostCubicallyNotExponentially() throws {
        // 40 nested star-shaped layers, each with a (blurred) shadow of its content. Drawn
        // as Core Animation does with every sublayer's shadow inside every shadow's source,
        // the items would double per level (2^40). A shadow's source holds its sublayers'
        // shadows (`maxShadowSourceNesting` = 2), whose own sources hold no shadows: level
        // k's source holds level k's fill and, for each level j > k, a group of the fills of
        // levels j…n, its marker and level j's fill.
        #expect(DrawListBuilder.maxShadowSourceNesting == 2)
        let n = 40
        var star = Path()
        star.addPolygon((0..<5).map { k in
            let a = -Double.pi / 2 + Double(k) * 4 * .pi / 5
            return Point(20 + 18 * cos(a), 20 + 18 * sin(a))
        })
        var ops: [LayerChange] = []
        for i in 1...n {
            ops += TestScene.layer(UInt32(i), .shape, parent: UInt32(i - 1), frame: Rect(1, 1, 40, 40), [
                ("path", .path(star)), ("fillColor", .color(Color(1, 0.5, 0))),
                ("shadowOpacity", .number(0.5)), ("shadowRadius", .number(i == 1 ? 1000 : 2)),
            ])
        }
        let t = try TestScene.tree(ops)
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        let list = builder.build(t)
        // Items in level k's source: its fill, then per deeper level j a marker, the n − j + 1
        // fills of its own source and its fill.
        func source(_ k: Int) -> Int { 1 + (k < n ? (k + 1...n).map { 1 + (n - $0 + 1) + 1 }.reduce(0, +) : 0) }
        // Walked in order: the groups at the top (depth 0), each followed by the nested ones of
        // its source (depth 1, one per deeper level).
        var expected: [Int] = []
        for k in 1...n {
            expected.append(source(k))
            if k < n { for j in k + 1...n { expected.append(n - j + 1) } }
        }
        var groups: [(sigma: Double, count: Int)] = []
        for item in list.items { if case .shadowGroup(_, let sigma, let count) = item.kind { groups.append((sigma, count)) } }
        #expect(groups.map(\.count) == expected)
        // At the top: per level a marker, its source and its fill.
        #expect(list.items.count == (1...n).map { 2 + source($0) }.reduce(0, +))
        #expect(list.items.count < 20_000)   // about n³/6
        // A shadowRadius of 1000 blurs with the largest σ drawn.
        #expect(groups.first?.sigma == DrawListBuilder.maxShadowSigma)
        #expect(groups.last?.sigma == 2)
    }

    @Test func aSpinningLayersShadowPathMeshIsReusedWithoutCacheLookups() throws {
        // A triangle shadowPath (blurred: not a rect, rounded rect or circle) on a layer that
        // turns: tessellated once, and after that reused from the builder's per-layer memo (no
        // cache lookup hashing the path each frame), whatever the rotation's rounding.
        var triangle = Path()
        triangle.addPolygon([Point(0, 0), Point(20, 0), Point(10, 16)])
        var t = try TestScene.tree(TestScene.layer(1, frame: Rect(20, 20, 20, 20), [
            ("backgroundColor", .color(Color(0, 0, 1))), ("shadowOpacity", .number(1)),
            ("shadowPath", .path(triangle)),
        ]))
        var timing = AnimationTiming(duration: 6); timing.timingFunction = .linear
        try t.apply(Commit(client: 1, content: .operations([.addAnimation(1, key: "spin", animation: .basic(BasicAnimation(
            keyPath: "transform.rotation.z", from: .double(0), to: .double(2 * .pi), timing: timing)))])))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        var presentation = LayerTree()
        for k in 0..<60 {
            t.updatePresentation(&presentation, at: Double(k) * 0.1)
            let list = builder.build(presentation)
            #expect(list.items.contains { if case .shadowGroup = $0.kind { true } else { false } })
        }
        #expect(builder.meshCache.misses == 1)
        #expect(builder.meshCache.hits == 0, "later frames take the memo, not the cache")
    }

    @Test func siblingsDrawInOrderAfterDeletionsMoveSlots() throws {
        // Deleting layers moves others between storage slots; drawing order is the sublayer
        // order still (all at zPosition 0), each layer with its own color.
        var ops: [LayerChange] = []
        for i in 1...8 {
            ops += TestScene.layer(UInt32(i), frame: Rect(Double(i), 0, 10, 10), [("backgroundColor", .color(Color(Double(i) / 8, 0, 0)))])
        }
        var t = try TestScene.tree(ops)
        try t.apply(Commit(client: 1, content: .operations([.delete(2), .delete(5)])))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        let list = builder.build(t)
        #expect(list.items.map(\.backgroundColor.red) == [1, 3, 4, 6, 7, 8].map { Double($0) / 8 })
        #expect(list.items.map(\.transform.m41) == [1, 3, 4, 6, 7, 8].map { Double($0) })
    }
}
