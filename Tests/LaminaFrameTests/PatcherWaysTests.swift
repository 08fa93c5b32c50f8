import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing
@testable import LaminaFrame

/// The patcher's four ways (DrawListPatcher.swift) — skip, move, descend, re-emit — each
/// taken where it should be, and every patched list equal to a full build of the same
/// presentation tree (`RetainedListTests.same`), item for item and clip for clip.
@Suite struct PatcherWaysTests {
    /// Layer `id` under `parent` with `bounds` at `position` and a background.
    static func layer(_ id: UInt32, _ kind: LayerKind = .layer, parent: UInt32, _ bounds: Rect, at position: Point,
                      _ color: Color) -> [LayerChange] {
        [.create(id, kind), .addSublayer(parent: parent, child: id),
         .set(id, keyPath: "bounds", value: .rect(bounds)), .set(id, keyPath: "position", value: .point(position)),
         .set(id, keyPath: "backgroundColor", value: .color(color))]
    }

    static func shadow(_ id: UInt32) -> [LayerChange] {
        [.set(id, keyPath: "shadowOpacity", value: .number(0.6)), .set(id, keyPath: "shadowRadius", value: .number(4)),
         .set(id, keyPath: "shadowOffset", value: .size(Size(2, 3)))]
    }

    /// Runs `frames` frames of `scene` with `animations`; checks each list against a full build
    /// and returns the ways of every patch (nil for a full build).
    static func run(_ scene: [LayerChange], _ animations: [LayerChange],
                    frames: Int = 24) throws -> [DrawListBuilder.PatchWays?] {
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations([.setTransaction(TransactionSettings(disableActions: true))]
            + scene)))
        try tree.apply(Commit(client: 1, content: .operations(animations)))
        var builder = DrawListBuilder(widthPoints: 200, heightPoints: 150, scale: 2, background: .white)
        builder.usesShapeAtlas = false
        var snapshots = SnapshotMaker()
        var ways: [DrawListBuilder.PatchWays?] = []
        for frame in 0..<frames {
            let t = Double(frame) / 30
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = builder.build(snapshot.tree)
            ways.append(builder.lastBuildPatched ? builder.lastPatchWays : nil)
            var reference = builder
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            RetainedListTests.expectSame(list, expected, "frame \(frame) (patched: \(builder.lastBuildPatched))")
        }
        return ways
    }

    /// A text layer above a sublayer whose color animates is descended (its glyphs stay; a
    /// patch draws none), the sublayer's own items re-emitted: every frame after the first patches.
    @Test func anUnchangedTextLayerAboveAChangeIsDescended() throws {
        let scene = Self.layer(1, .text, parent: 0, Rect(0, 0, 120, 40), at: Point(80, 40), Color(0.9, 0.9, 0.8))
            + [.set(1, keyPath: "string", value: .string("Title")), .set(1, keyPath: "fontSize", value: .number(14))]
            + Self.layer(2, parent: 1, Rect(0, 0, 20, 10), at: Point(100, 30), Color(1, 0, 0))
        let ways = try Self.run(scene, [MovedLeavesTests.animation(2, "tint", "backgroundColor", .color(Color(1, 0, 0)),
                                                                   .color(Color(0, 0, 1)), duration: 0.5)])
        #expect(ways.dropFirst().allSatisfy { $0 != nil }, "\(ways.map { $0 != nil })")
        #expect(ways.dropFirst().allSatisfy { $0?.descended == 1 && $0?.reemittedOwn == 1 })
    }

    /// A text layer moving (one item, its glyph run) is moved in place while its layout scale
    /// stays the same (its glyph sizes and pixel snapping): every frame after the first
    /// patches, moving one visit, re-emitting none; clipped (masksToBounds) and fading, or
    /// turning, the same. Growing, it is rebuilt (a full build lays it out at the new scale),
    /// and every list still equals a full build.
    @Test func aMovingTextLayerIsMovedInPlace() throws {
        for clipped in [false, true] {
            let scene = Self.layer(1, .text, parent: 0, Rect(0, 0, 120, 40), at: Point(80, 40), Color(0.9, 0.9, 0.8))
                + [.set(1, keyPath: "string", value: .string("Moving words")), .set(1, keyPath: "fontSize", value: .number(14)),
                   .set(1, keyPath: "masksToBounds", value: .bool(clipped))]
            let ways = try Self.run(scene, [
                MovedLeavesTests.animation(1, "move", "position.x", .double(60), .double(140), duration: 0.6),
                MovedLeavesTests.animation(1, "fade", "opacity", .double(1), .double(0.5), duration: 0.5)])
            #expect(ways.dropFirst().allSatisfy { $0 != nil }, "\(ways.map { $0 != nil })")
            #expect(ways.dropFirst().allSatisfy { $0?.moved == 1 && $0?.reemittedOwn == 0 }, "\(ways)")
        }
        // Turning: the device scale of a rotation (√(cos² + sin²) × 2, noisy in its last bits)
        // rounds to the same layout scale (`GlyphRun.layoutScale`), so it is moved too.
        let turning = Self.layer(1, .text, parent: 0, Rect(0, 0, 120, 40), at: Point(80, 40), Color(0.9, 0.9, 0.8))
            + [.set(1, keyPath: "string", value: .string("Turning")), .set(1, keyPath: "fontSize", value: .number(14))]
        let turns = try Self.run(turning, [MovedLeavesTests.animation(1, "turn", "transform.rotation.z", .double(0),
                                                                      .double(0.8), duration: 0.6)])
        #expect(turns.dropFirst().allSatisfy { $0?.moved == 1 && $0?.reemittedOwn == 0 }, "\(turns)")
        let scene = Self.layer(1, .text, parent: 0, Rect(0, 0, 120, 40), at: Point(80, 40), Color(0.9, 0.9, 0.8))
            + [.set(1, keyPath: "string", value: .string("Growing")), .set(1, keyPath: "fontSize", value: .number(14))]
        let ways = try Self.run(scene, [MovedLeavesTests.animation(1, "grow", "transform.scale", .double(1), .double(1.5),
                                                                   duration: 0.6)], frames: 12)
        #expect(ways.dropFirst().contains { $0 == nil }, "a new scale is a full build")
    }

    /// A clipping card with a blurred shadow moving and turning: its own items (the shadow's
    /// marker, the card again as the shadow's source, its background and border) are re-emitted,
    /// its still sublayers — in the source and for real — moved in place.
    @Test func aMovingCardsSublayersAreMoved() throws {
        var scene = Self.layer(1, parent: 0, Rect(0, 0, 80, 50), at: Point(90, 70), Color(0.95, 0.95, 0.97))
            + Self.shadow(1) + [.set(1, keyPath: "borderWidth", value: .number(1)),
                                .set(1, keyPath: "borderColor", value: .color(Color(0.2, 0.2, 0.2)))]
        for k: UInt32 in 2...5 {
            scene += Self.layer(k, parent: 1, Rect(0, 0, 20, 12), at: Point(Double(k) * 15, 25), Color(0.1 * Double(k), 0.5, 0.3))
        }
        let ways = try Self.run(scene, [
            MovedLeavesTests.animation(1, "move", "position.x", .double(60), .double(120), duration: 0.6),
            MovedLeavesTests.animation(1, "turn", "transform.rotation.z", .double(0), .double(0.4), duration: 0.7)])
        #expect(ways.dropFirst().allSatisfy { $0 != nil })
        // Four sublayers twice (the source and the card), the card's own items once.
        #expect(ways.dropFirst().allSatisfy { $0?.moved == 8 && $0?.reemittedOwn == 1 && $0?.descended == 0 },
                "\(ways)")
    }

    /// The same card clipping (masksToBounds, rounded) and translucent (a group), with no
    /// shadow: its own items are moved too (placed, its clip and group marker made anew), nothing
    /// is re-emitted.
    @Test func aMovingClippingCardIsMovedWhole() throws {
        var scene = Self.layer(1, parent: 0, Rect(0, 0, 80, 50), at: Point(90, 70), Color(0.95, 0.95, 0.97))
            + [.set(1, keyPath: "borderWidth", value: .number(1)), .set(1, keyPath: "cornerRadius", value: .number(8)),
               .set(1, keyPath: "borderColor", value: .color(Color(0.2, 0.2, 0.2))),
               .set(1, keyPath: "masksToBounds", value: .bool(true)), .set(1, keyPath: "opacity", value: .number(0.8))]
        for k: UInt32 in 2...5 {
            scene += Self.layer(k, parent: 1, Rect(0, 0, 20, 12), at: Point(Double(k) * 15, 25), Color(0.1 * Double(k), 0.5, 0.3))
        }
        let ways = try Self.run(scene, [
            MovedLeavesTests.animation(1, "move", "position.x", .double(60), .double(120), duration: 0.6),
            MovedLeavesTests.animation(1, "turn", "transform.rotation.z", .double(0), .double(0.4), duration: 0.7),
            MovedLeavesTests.animation(1, "fade", "opacity", .double(0.8), .double(0.5), duration: 0.5)])
        #expect(ways.dropFirst().allSatisfy { $0 != nil })
        #expect(ways.dropFirst().allSatisfy { $0?.moved == 5 && $0?.reemittedOwn == 0 && $0?.descended == 0 }, "\(ways)")
    }

    /// A masksToBounds card whose sublayer changes color: the card is descended (its clip and
    /// items stay), the sublayer re-emitted; the same under a blurred shadow (descended through
    /// both the shadow's source and the card, the sublayer re-emitted in each).
    @Test func aCardAboveAChangeIsDescendedThroughItsShadowsSource() throws {
        for shadowed in [false, true] {
            var scene = Self.layer(1, parent: 0, Rect(0, 0, 80, 50), at: Point(90, 70), Color(0.95, 0.95, 0.97))
                + Self.layer(2, parent: 1, Rect(0, 0, 30, 20), at: Point(20, 15), Color(1, 0, 0))
            scene += shadowed ? Self.shadow(1) : [.set(1, keyPath: "masksToBounds", value: .bool(true)),
                                                  .set(1, keyPath: "cornerRadius", value: .number(6))]
            let ways = try Self.run(scene, [MovedLeavesTests.animation(2, "tint", "backgroundColor", .color(Color(1, 0, 0)),
                                                                       .color(Color(0, 1, 0)), duration: 0.4)])
            #expect(ways.dropFirst().allSatisfy { $0 != nil })
            #expect(ways.dropFirst().allSatisfy { $0?.descended == 1 && $0?.reemittedOwn == (shadowed ? 2 : 1) },
                    "shadowed: \(shadowed): \(ways)")
        }
    }

    /// A shadow appearing on a layer with sublayers (shadowOpacity from 0) is a new structure:
    /// the whole visit re-emitted does not match its records and the patch gives way to a full
    /// build, which draws it (the lists still equal full builds, checked by `run`).
    @Test func aShadowAppearingIsAFullBuild() throws {
        let scene = Self.layer(1, parent: 0, Rect(0, 0, 80, 50), at: Point(90, 70), Color(0.95, 0.95, 0.97))
            + [.set(1, keyPath: "shadowRadius", value: .number(4))]
            + Self.layer(2, parent: 1, Rect(0, 0, 30, 20), at: Point(20, 15), Color(1, 0, 0))
        var timing = AnimationTiming(duration: 0.3)
        timing.fillMode = .forwards
        timing.removedOnCompletion = false
        let ways = try Self.run(scene, [.addAnimation(1, key: "appear", animation: .basic(BasicAnimation(
            keyPath: "shadowOpacity", from: .double(0), to: .double(0.8), timing: timing)))], frames: 12)
        #expect(ways.contains { $0 == nil })
        #expect(ways.allSatisfy { ($0?.reemittedWhole ?? 0) == 0 })
    }
}
