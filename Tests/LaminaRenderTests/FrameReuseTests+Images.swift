import Testing
@testable import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Image layers moved in place by the patcher (issue 30): their contents items keep their
/// image, pieces and filters and take the new transform and opacity.
extension FrameReuseTests {
    /// `MovingImagesScene` (contents by every gravity, contentsRect, contentsCenter, cropped,
    /// under backgrounds, borders and an analytic shadow, from atlas pages and a texture of its
    /// own) moving, turning, scaling and fading for 30 frames: each patched list, rendered by a
    /// renderer that reuses what it can, equals byte for byte a full build of the same
    /// presentation tree rendered with every instance written. (The ring is not patched for
    /// these lists yet — `framesPatched` stays 0 —, so their instances are written whole.)
    @Test func movedImageLayersEqualFullBuilds() throws {
        let width = 160, height = 104
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations(
            MovingImagesScene.layers(width: Double(width), height: Double(height)))))
        try tree.apply(Commit(client: 1, content: .operations(MovingImagesScene.ids.flatMap(MovingImagesScene.motion))))
        var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                      background: Color(0.2, 0.2, 0.25))
        builder.images = MovingImagesScene.images()
        builder.patcher.backoffAfterFailure = 0
        let reusing = try makeRenderer(width: width, height: height)
        let fresh = try makeRenderer(width: width, height: height)
        fresh.reusesWork = false
        var snapshots = SnapshotMaker()
        var patched = 0, moved = 0
        for frame in 0..<30 {
            let t = Double(frame) / 30
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched { patched += 1; moved += builder.patcher.moved }
            var reference = builder
            reference.patchesInPlace = false
            let expected = reference.build(snapshot.tree)
            try reusing.render(list)
            try fresh.render(expected)
            let a = try reusing.readPixels(), b = try fresh.readPixels()
            let differing = zip(a, b).filter { $0 != $1 }.count
            #expect(a.count == b.count && differing == 0, "frame \(frame) (patched: \(builder.lastBuildPatched)): \(differing) bytes differ")
        }
        #expect(patched >= 27, "\(patched) of 30 builds patched \(builder.patchFailures)")
        #expect(moved >= 19 * 27, "\(moved) leaf visits moved")
        #expect(reusing.imageAtlasEntries > 0, "no image drawn from the atlas")
        #expect(reusing.validationMessages.isEmpty, "\(reusing.validationMessages)")
        #expect(fresh.validationMessages.isEmpty, "\(fresh.validationMessages)")
    }
}
