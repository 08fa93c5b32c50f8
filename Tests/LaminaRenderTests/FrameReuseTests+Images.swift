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
    /// presentation tree rendered with every instance written. (Layer 20 fades with its four
    /// sublayers, an opacity group: these lists draw in more than one pass, so the encoder keeps
    /// no item places — `FrameEncoder.held` stays nil — and writes every instance whole.)
    @Test func movedImageLayersEqualFullBuilds() throws {
        let (reusing, _) = try checkMovedImageLayers(fadingContainer: true)
        #expect(reusing.framesPatched == 0, "a list of more than one pass patched its ring")
    }

    /// The same scene with layer 20 kept opaque (no group: one pass drawing every item in order,
    /// as the benchmark's image mix is): the renderer patches its ring on every frame it can —
    /// frame f's slot holds list f − 2 (`OffscreenRenderer.framesInFlight` 2), so it patches
    /// when lists f − 1 and f were both patched from the one before — writing only the moved
    /// images' motion parts, and each frame equals byte for byte a full build rendered with
    /// every instance written.
    @Test func movedImageLayersPatchTheRing() throws {
        let (reusing, chained) = try checkMovedImageLayers(fadingContainer: false)
        #expect(chained >= 24, "only \(chained) frames' lists chained to their slot's")
        #expect(reusing.framesPatched == chained, "\(reusing.framesPatched) of \(chained) frames patched their ring")
        #expect(reusing.motionWritten > 0, "no motion part written in place")
    }

    /// Renders 30 frames of `MovingImagesScene` (layer 20's fade left out unless
    /// `fadingContainer`) patched and in full, comparing their pixels; returns the renderer
    /// that reused its work and the frames whose list and the one before were both patched
    /// (frames 2 and later: a ring two lists behind can be patched for them).
    private func checkMovedImageLayers(fadingContainer: Bool) throws -> (OffscreenRenderer, chained: Int) {
        let width = 160, height = 104
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations(
            MovingImagesScene.layers(width: Double(width), height: Double(height)))))
        let motion = MovingImagesScene.ids.flatMap { id in
            MovingImagesScene.motion(id).filter { op in
                guard !fadingContainer, id == 20, case .addAnimation(_, let key, _) = op else { return true }
                return key != "fade"
            }
        }
        try tree.apply(Commit(client: 1, content: .operations(motion)))
        var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                      background: Color(0.2, 0.2, 0.25))
        builder.images = MovingImagesScene.images()
        builder.patcher.backoffAfterFailure = 0
        let reusing = try makeRenderer(width: width, height: height)
        let fresh = try makeRenderer(width: width, height: height)
        fresh.reusesWork = false
        var snapshots = SnapshotMaker()
        var patched = 0, moved = 0, chained = 0
        var previousPatched = false
        for frame in 0..<30 {
            let t = Double(frame) / 30
            tree.advance(to: t)
            let snapshot = snapshots.make(from: tree, at: t)
            let list = builder.build(snapshot.tree)
            if builder.lastBuildPatched { patched += 1; moved += builder.patcher.moved }
            if frame >= 2 && builder.lastBuildPatched && previousPatched { chained += 1 }
            previousPatched = builder.lastBuildPatched
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
        return (reusing, chained)
    }
}
