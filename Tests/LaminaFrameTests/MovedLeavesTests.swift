import LaminaAnimation
import LaminaGeometry
import LaminaImage
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
import LaminaModel

/// Leaves moved in place by a patch (DrawListPatcher+Motion.swift): `moveLeaf` during the walk,
/// then `runMoves` after it for the visits whose item kinds it noted (rects, gradients, an
/// analytic shadow, shape atlas entries), with the model's anchorPointZ, zPosition and shadow
/// offset kept per slot. Every list must equal a full build of the same presentation tree
/// (`RetainedListTests.same`), frame after frame, whichever path moved it.
@Suite struct MovedLeavesTests {
    /// Leaves of every movable kind under client 1's container (some one-sided, some with a
    /// zPosition, an anchorPointZ, a shadow, a border), and a few under a moving superlayer.
    static func scene() -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        for i in 1...48 {
            let id = UInt32(i)
            let kind: LayerKind = i % 4 == 2 ? .shape : i % 4 == 3 ? .gradient : .layer
            let parent: UInt32 = i > 40 ? 40 : 0
            ops += [.create(id, kind), .addSublayer(parent: parent, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 24, 16))),
                    .set(id, keyPath: "position", value: .point(Point(Double(i % 8) * 30 + 20, Double(i / 8) * 24 + 14)))]
            switch i % 4 {
            case 0:
                ops += [.set(id, keyPath: "backgroundColor", value: .color(Color(0.2, 0.5, 0.9))),
                        .set(id, keyPath: "cornerRadius", value: .number(4)),
                        .set(id, keyPath: "borderWidth", value: .number(1.5)),
                        .set(id, keyPath: "borderColor", value: .color(Color(1, 1, 1, 0.8))),
                        .set(id, keyPath: "shadowOpacity", value: .number(0.5)),
                        .set(id, keyPath: "shadowRadius", value: .number(3)),
                        .set(id, keyPath: "shadowOffset", value: .size(Size(Double(i % 3), 2.5)))]
            case 1:
                ops += [.set(id, keyPath: "backgroundColor", value: .color(Color(0.9, 0.3, 0.2)))]
            case 2:
                ops += [.set(id, keyPath: "path", value: .path(.ellipse(in: Rect(2, 2, 20, 12)))),
                        .set(id, keyPath: "fillColor", value: .color(Color(0.1, 0.7, 0.3)))]
            default:
                ops += [.set(id, keyPath: "colors", value: .colors([Color(1, 0, 0), Color(0, 0, 1)]))]
            }
            if i % 5 == 0 { ops.append(.set(id, keyPath: "zPosition", value: .number(Double(i % 3)))) }
            if i % 7 == 0 { ops.append(.set(id, keyPath: "anchorPointZ", value: .number(-3))) }
            if i % 6 == 1 { ops.append(.set(id, keyPath: "doubleSided", value: .bool(false))) }
        }
        return ops
    }

    static func animation(_ id: UInt32, _ key: String, _ keyPath: String, _ from: AnimatableValue,
                          _ to: AnimatableValue, duration: Double) -> LayerChange {
        var timing = AnimationTiming(duration: duration)
        timing.repeatCount = .infinity
        timing.autoreverses = true
        return .addAnimation(id, key: key, animation: .basic(BasicAnimation(keyPath: keyPath, from: from, to: to,
                                                                             timing: timing)))
    }

    /// Runs `frames` frames; checks each list against a full build; returns how many patched,
    /// how many leaf visits were moved, and the builder (its records) after the last frame.
    /// `scene`: the layers (`scene()` by default), `ids` those `motion` animates, `images` the
    /// images their contents name.
    static func run(_ extra: [LayerChange], frames: Int, scene: [LayerChange] = scene(), ids: ClosedRange<UInt32> = 1...48,
                    images: [String: Image] = [:],
                    motion: (UInt32) -> [LayerChange]) throws -> (patched: Int, moved: Int, builder: DrawListBuilder) {
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations(scene + extra)))
        try tree.apply(Commit(client: 1, content: .operations(ids.flatMap { motion($0) })))
        var builder = DrawListBuilder(widthPoints: 260, heightPoints: 170, scale: 1.5, background: .black)
        builder.images = images
        builder.patcher.backoffAfterFailure = 0
        var snapshots = SnapshotMaker()
        var patched = 0, moved = 0
        for frame in 0..<frames {
            let t = Double(frame) / 30
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let atlasBefore = builder.shapeAtlas.copy()
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched { patched += 1; moved += builder.patcher.moved }
            var reference = builder
            reference.shapeAtlas = atlasBefore
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            #expect(list.items.count == expected.items.count && list.plan == expected.plan, "frame \(frame)")
            for k in list.items.indices where k < expected.items.count
                && !RetainedListTests.same(list.items[k], expected.items[k], aAtlas: list.shapeAtlas?.base,
                                           bAtlas: expected.shapeAtlas?.base) {
                Issue.record("frame \(frame) (patched: \(builder.lastBuildPatched)): item \(k) differs")
                break
            }
        }
        return (patched, moved, builder)
    }

    /// Position, rotation and opacity on every leaf (the benchmark's motion): after the first
    /// frames every build patches, every leaf is moved in place, and the kinds noted cover
    /// rects, shadows and atlas entries; no zPosition is animated, so the order is not checked.
    @Test func motionOnlyLeavesMoveAfterTheWalk() throws {
        let (patched, moved, builder) = try Self.run([], frames: 40) { id in
            [Self.animation(id, "move", "position.x", .double(20), .double(200), duration: 0.9),
             Self.animation(id, "spin", "transform.rotation.z", .double(0), .double(Double(id % 5) + 1), duration: 1.3),
             Self.animation(id, "fade", "opacity", .double(1), .double(0.3), duration: 0.7)]
        }
        #expect(patched >= 37, "\(patched) of 40 builds patched")
        #expect(!builder.patcher.depthAnimated)
        // 48 leaves, all moved (the container is re-emitted); none re-emitted since its full build.
        #expect(moved >= 48 * 37, "\(moved) leaf visits moved")
        let leaves = builder.patcher.records.indices.filter { Int(builder.patcher.records[$0].subtreeEnd) == $0 + 1 }
        let kinds = Set(leaves.map { builder.patcher.records[$0].moveKind })
        #expect(kinds.isSuperset(of: [.plain, .shadowFirst, .atlas]) && !kinds.contains(.reemitted), "\(kinds)")
        #expect(builder.patcher.moving.list.count >= 48, "\(builder.patcher.moving.list.count) moved after the walk")
        // Layer 40's sublayers (all leaves) replayed from the last patch from the third patch on;
        // not the container's batch (layer 40 in it is re-emitted in the walk).
        #expect(builder.patcher.moving.replayed >= 30, "\(builder.patcher.moving.replayed) batches replayed")
        // The kept model values: the shadowed leaves' offsets, the anchorPointZ of layer 7.
        let slot7 = builder.patcher.records.first { $0.slot >= 0 && builder.patcher.statics.count > Int($0.slot)
            && builder.patcher.statics[Int($0.slot)].anchorPointZ == -3 }
        #expect(slot7 != nil)
    }

    /// Layers showing images (`MovingImagesScene`: every gravity, contentsRect, contentsCenter,
    /// a square masksToBounds, backgrounds, borders, an analytic shadow, each filter, an image
    /// past the atlas; one holding four) moving, turning, scaling and fading: their contents
    /// are moved in place as rects are (kinds `.plain` and `.shadowFirst`, after the walk), the
    /// container's and the clipped leaves' own items with their clip, and every list equals a
    /// full build, item for item.
    @Test func imageLeavesMoveInPlace() throws {
        let scene = MovingImagesScene.layers(width: 260, height: 170)
        let (patched, moved, builder) = try Self.run([], frames: 40, scene: scene, ids: MovingImagesScene.ids,
                                                     images: MovingImagesScene.images(), motion: MovingImagesScene.motion)
        #expect(patched >= 37, "\(patched) of 40 builds patched \(builder.patchFailures)")
        // 19 leaves moved in every patch; the four with a square masksToBounds (contents cut to
        // their bounds, as the benchmark's) keep the clip the builder makes for sublayers, so
        // they are moved by their visit with their clip (`moveOwnItems`), as layer 20 is.
        #expect(moved >= 19 * 37, "\(moved) leaf visits moved")
        #expect(builder.patcher.movedOwn >= 5, "\(builder.patcher.movedOwn) visits moved with their own clip")
        let leaves = builder.patcher.records.indices.filter { Int(builder.patcher.records[$0].subtreeEnd) == $0 + 1 }
        let kinds = Set(leaves.map { builder.patcher.records[$0].moveKind })
        #expect(kinds.isSuperset(of: [.plain, .shadowFirst]) && !kinds.contains(.reemitted) && !kinds.contains(.mixed),
                "\(kinds)")
        #expect(builder.patcher.moving.list.count >= 19, "\(builder.patcher.moving.list.count) moved after the walk")
    }

    /// Shapes (drawn from their atlas entries, moved after the walk) that start to skew at 0.5 s: the entry no longer fits, so the visit is re-emitted at its place (and the
    /// patch may give way to a full build); the lists still equal full builds.
    @Test func atlasShapesThatStopFittingAreReemitted() throws {
        var skew = Transform3D.identity
        skew.m21 = 0.4
        var timing = AnimationTiming(duration: 1)
        timing.beginTime = 0.5
        timing.repeatCount = .infinity
        let (patched, _, builder) = try Self.run([], frames: 45) { id in
            id % 4 == 2
                ? [.addAnimation(id, key: "skew", animation: .basic(BasicAnimation(
                       keyPath: "transform", from: .transform(.identity), to: .transform(skew), timing: timing)))]
                : [Self.animation(id, "move", "position.y", .double(20), .double(150), duration: 0.8)]
        }
        #expect(patched > 5, "\(patched) of 45 builds patched \(builder.patchFailures)")
        #expect(builder.patcher.reemittedAfterWalk > 0, "\(builder.patchFailures)")
    }

    /// Layers that fade out to 0 or turn their back (one-sided, about y): the moved visits are
    /// culled, so those patches give way to full builds; all lists equal full builds.
    @Test func culledMovedLeavesFailThePatch() throws {
        let (_, _, builder) = try Self.run([], frames: 45) { id in
            id % 6 == 1
                ? [Self.animation(id, "flip", "transform.rotation.y", .double(0), .double(2.5), duration: 1.2)]
                : id % 6 == 3 ? [Self.animation(id, "fade", "opacity", .double(1), .double(0), duration: 0.5)]
                : [Self.animation(id, "move", "position.x", .double(10), .double(90), duration: 1)]
        }
        #expect((builder.patchFailures["culling"] ?? 0) > 0, "\(builder.patchFailures)")
    }

    /// An animated zPosition: the order is checked again (a reorder fails the patch), and the
    /// animated layer's zPosition is read each frame, not kept.
    @Test func animatedZPositionIsChecked() throws {
        let (_, _, builder) = try Self.run([], frames: 45) { id in
            id == 9 ? [Self.animation(id, "z", "zPosition", .double(0), .double(4), duration: 0.6)]
                : [Self.animation(id, "move", "position.x", .double(10), .double(90), duration: 1)]
        }
        #expect(builder.patcher.depthAnimated)
        #expect((builder.patchFailures["order"] ?? 0) > 0, "\(builder.patchFailures)")
    }
}
