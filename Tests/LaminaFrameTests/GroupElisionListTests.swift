import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
import LaminaModel

/// Group opacity elision (`DrawListBuilder.drawsApart`) and the retained list: a patched frame
/// gives the list a full build of the same presentation gives, while a group's items move
/// between overlapping (an offscreen group) and apart (elided), and while an elided group's
/// opacity animates.
@Suite struct GroupElisionListTests {
    /// Layer 1 at opacity 0.6 holding two squares (2 still, 3 moving along x from overlapping
    /// 2 to well apart and back), and a sibling outside the group; with `fading`, also layer 4
    /// (opacity animating, holding one square: always elided).
    static func tree(fading: Bool) throws -> LayerTree {
        var c: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        c += TestScene.layer(1, frame: Rect(0, 0, 160, 60), [("opacity", .number(0.6))])
        c += TestScene.layer(2, parent: 1, frame: Rect(10, 10, 30, 30), [("backgroundColor", .color(Color(1, 0, 0)))])
        c += TestScene.layer(3, parent: 1, frame: Rect(30, 10, 30, 30), [("backgroundColor", .color(Color(0, 0, 1)))])
        c += TestScene.layer(6, frame: Rect(100, 80, 40, 30), [("backgroundColor", .color(Color(0.3, 0.3, 0.3)))])
        var timing = AnimationTiming(duration: 1)
        timing.repeatCount = .infinity
        timing.autoreverses = true
        c.append(.addAnimation(3, key: "x", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(45), to: .double(140), timing: timing))))
        if fading {
            c += TestScene.layer(4, frame: Rect(0, 70, 80, 40), [("opacity", .number(0.5))])
            c += TestScene.layer(5, parent: 4, frame: Rect(10, 5, 30, 30), [("backgroundColor", .color(Color(0, 0.6, 0)))])
            c.append(.addAnimation(4, key: "o", animation: .basic(BasicAnimation(
                keyPath: "opacity", from: .double(0.2), to: .double(0.9), timing: timing))))
        }
        return try TestScene.tree(c)
    }

    /// Two seconds at 30 frames a second, each frame's list against a full build of the same
    /// presentation; (builds patched, frames with layer 1's group elided, kept).
    static func run(fading: Bool) throws -> (patched: Int, elided: Int, kept: Int, builder: DrawListBuilder) {
        var tree = try Self.tree(fading: fading)
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 120, scale: 1.5, background: Color(0.9, 0.9, 0.9))
        builder.patcher.backoffAfterFailure = 0   // try every frame
        var snapshots = SnapshotMaker()
        var elided = 0, kept = 0, patched = 0
        for frame in 0..<60 {
            let t = Double(frame) / 30
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched { patched += 1 }
            var reference = builder
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            RetainedListTests.expectSame(list, expected, "frame \(frame) (patched: \(builder.lastBuildPatched))")
            // Layer 4's group is always elided; layer 1's while its squares lie apart.
            let groups = list.items.filter { if case .group = $0.kind { true } else { false } }.count
            #expect(groups <= 1)
            if groups == 0 { elided += 1 } else { kept += 1 }
        }
        return (patched, elided, kept, builder)
    }

    /// A kept group is patched while its squares overlap; once they lie apart the patch gives
    /// way to the full build, which elides it (and the reverse).
    @Test func aGroupComesAndGoesAsItsItemsMove() throws {
        let (patched, elided, kept, builder) = try Self.run(fading: false)
        #expect(elided > 0 && kept > 0 && patched > 0, "elided \(elided), kept \(kept), patched \(patched)")
        #expect(builder.patchFailures["groupElision", default: 0] > 0, "\(builder.patchFailures)")
    }

    /// An elided group whose opacity animates: every frame equals the full build, and frames
    /// still patch (the elided group's visit re-emitted whole).
    @Test func anElidedGroupFading() throws {
        let (patched, elided, kept, _) = try Self.run(fading: true)
        #expect(elided > 0 && kept > 0 && patched > 0, "elided \(elided), kept \(kept), patched \(patched)")
    }

    /// `maxElidedGroupItems` drawing items far apart are elided; one more keeps the group
    /// without comparing them.
    @Test func manyItemsKeepTheGroup() throws {
        func groups(_ n: Int) throws -> Int {
            var c: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
            c += TestScene.layer(1, frame: Rect(0, 0, 400, 400), [("opacity", .number(0.5))])
            for k in 0..<n {
                c += TestScene.layer(UInt32(k + 2), parent: 1, frame: Rect(Double(k % 6) * 60, Double(k / 6) * 60, 20, 20),
                                     [("backgroundColor", .color(Color(1, 0, 0)))])
            }
            let list = TestScene.list(try TestScene.tree(c), width: 400, height: 400)
            return list.items.filter { if case .group = $0.kind { true } else { false } }.count
        }
        #expect(try groups(DrawListBuilder.maxElidedGroupItems) == 0)
        #expect(try groups(DrawListBuilder.maxElidedGroupItems + 1) == 1)
    }
}
