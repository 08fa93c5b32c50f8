import LaminaGeometry
import LaminaTree
import Testing
import TestSupport
@testable import LaminaFrame
import LaminaModel

/// A square `masksToBounds` clip on a plain-kind leaf that nothing is drawn under
/// (`DrawListBuilder.emitsOwnClip`) is left out of the list: the list is the one made with
/// every clip, less those clips (no item and no clip refers to them), item for item.
struct UnusedClipTests {
    /// `MovingImagesScene` and its clipped leaves, moving for `frames` frames: each list built
    /// (patched when it can be) leaving unused clips out, and the full build of the same
    /// presentation tree keeping them, with the second's clip indices mapped past the left-out
    /// ones. Calls `check` with both.
    static func compare(frames: Int, scale: Double = 1.5,
                        check: (_ omitted: DrawList, _ kept: DrawList, _ frame: Int) throws -> Void = { _, _, _ in })
        throws -> (patched: Int, builder: DrawListBuilder) {
        let width = 260.0, height = 170.0
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations(MovingImagesScene.layers(width: width, height: height)
            + MovingImagesScene.clippedLeaves(width: width, height: height))))
        let ids = Array(MovingImagesScene.ids) + Array(MovingImagesScene.clippedLeafIDs)
        try tree.apply(Commit(client: 1, content: .operations(ids.flatMap { MovingImagesScene.motion($0) })))
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: scale, background: .black)
        builder.images = MovingImagesScene.images()
        builder.patcher.backoffAfterFailure = 0
        var keeping = builder
        keeping.omitsUnusedClips = false
        keeping.patchesInPlace = false
        var snapshots = SnapshotMaker()
        var patched = 0
        for frame in 0..<frames {
            let t = Double(frame) / 30
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched { patched += 1 }
            let full = keeping.build(snapshot.tree)
            // The full build's clips nothing refers to: those left out.
            var used = Array(repeating: false, count: full.clips.count)
            for item in full.items where item.clip >= 0 { used[item.clip] = true }
            for clip in full.clips where clip.parent >= 0 { used[clip.parent] = true }
            var index: [Int] = [], next = 0
            for u in used { index.append(u ? next : -1); if u { next += 1 } }
            // The eight square clipped plain leaves (6, 12, 18, 24, 30–33); other clips kept.
            #expect(full.clips.count - next == 8, "frame \(frame): \(full.clips.count - next) unused clips")
            #expect(list.clips.count == next, "frame \(frame): \(list.clips.count) clips, \(next) used")
            #expect(list.items.count == full.items.count && list.plan == full.plan, "frame \(frame)")
            guard list.clips.count == next, list.items.count == full.items.count else { continue }
            for k in full.clips.indices where used[k] {
                let a = list.clips[index[k]], b = full.clips[k]
                #expect(a.transform == b.transform && a.rect == b.rect && a.radii == b.radii
                        && a.parent == (b.parent < 0 ? -1 : index[b.parent]), "frame \(frame): clip \(k)")
            }
            for k in full.items.indices {
                var expected = full.items[k]
                if expected.clip >= 0 { expected.clip = index[expected.clip] }
                if !RetainedListTests.same(list.items[k], expected, aAtlas: list.shapeAtlas?.base,
                                           bAtlas: full.shapeAtlas?.base) {
                    Issue.record("frame \(frame) (patched: \(builder.lastBuildPatched)): item \(k) differs")
                    break
                }
            }
            try check(list, full, frame)
        }
        return (patched, builder)
    }

    /// Patched lists leave the clips out as full builds do, and the clipped leaves, now without
    /// a clip of their own, are moved after the walk with the others (23 leaves of
    /// `MovingImagesScene`, 30–34 and 36–38 here; the rest re-emitted or moved with their clip).
    @Test func listsEqualThoseWithEveryClip() throws {
        let (patched, builder) = try Self.compare(frames: 20)
        #expect(patched >= 17, "\(patched) of 20 builds patched \(builder.patchFailures)")
        #expect(builder.patcher.moving.list.count >= 23, "\(builder.patcher.moving.list.count) moved after the walk")
    }
}
