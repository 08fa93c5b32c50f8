import Foundation
import LaminaGallery
import LaminaGeometry
import LaminaModel
import LaminaServer
import Testing
import TestSupport

/// The gallery's Lottie page through the embedded daemon (manual clock): the bundled file's
/// ball at times worked out here from its keyframes (Bézier easing solved by
/// `GalleryTests.bezier`), and each playback control — pause, speed, backwards, seek by key and
/// by the track, the next file — as the positions the ball and the thumb must then show.
@Suite struct GalleryLottieTests {
    typealias Fixture = GalleryTests.Fixture

    /// The bundled ball's y at local time `t` (seconds into its 2 s range, 30 fps): frames 0…30
    /// from 70 to 222 eased in (cubic-bezier 0.5, 0, 1, 1), 30…60 back eased out (0, 0, 0.5, 1).
    static func ballY(_ t: Double) -> Double {
        let frame = (t * 30).truncatingRemainder(dividingBy: 60)
        let f = frame < 0 ? frame + 60 : frame
        if f <= 30 { return 70 + 152 * GalleryTests.bezier(0.5, 0, 1, 1, at: f / 30) }
        return 222 - 152 * GalleryTests.bezier(0, 0, 0.5, 1, at: (f - 30) / 30)
    }
    /// The thumb's x on the track (in its clocked layer) at local time t: one pass per 2 s.
    static func thumbX(_ t: Double) -> Double {
        let p = (t / 2).truncatingRemainder(dividingBy: 1)
        return Gallery.lottieTrack(GalleryTests.canvas).width * (p < 0 ? p + 1 : p)
    }

    func ball(_ f: Fixture) -> Double { f.number("lottie/Ball", "position.y") }

    @Test func theBundledFilePlaysOnTheCompositorsClock() {
        let f = Fixture(.lottie)
        #expect(f.gallery.lottieStatus.hasPrefix("bounce (bundled) · playing at 1×"))
        for t in [0.0, 0.25, 0.5, 0.9, 1.0, 1.4, 2.3] {
            f.at(t)
            #expect(abs(ball(f) - Self.ballY(t)) < 1e-6, "ball at \(t)")
            #expect(abs(f.number("thumb", "position.x") - Self.thumbX(t)) < 1e-6, "thumb at \(t)")
        }
        // The fitted stage: 400 × 300 into the 480 × 312 panel (an 800 × 600 canvas) is scale 312 / 300.
        #expect(f.transform("stage") == .scale(312.0 / 300, 312.0 / 300))
    }

    @Test func spacePausesAndPlaysSpeedChangesAndBackwards() {
        let f = Fixture(.lottie)
        f.at(0.5)
        f.gallery.now = 0.5
        f.apply(f.gallery.key(32))                 // pause at local 0.5
        #expect(f.gallery.lottieStatus.contains("paused at 1×"))
        f.at(1.2)
        #expect(abs(ball(f) - Self.ballY(0.5)) < 1e-6)
        #expect(abs(f.number("thumb", "position.x") - Self.thumbX(0.5)) < 1e-6)
        f.gallery.now = 1.2
        f.apply(f.gallery.key(265))                // ↑: plays on at 2×
        #expect(f.gallery.lottieClock?.speed == 2)
        f.at(1.45)                                 // local 0.5 + 0.25 × 2 = 1.0: frame 30
        #expect(abs(ball(f) - 222) < 1e-6)
        f.gallery.now = 1.45
        f.apply(f.gallery.key(66))                 // B: backwards at 2×
        #expect(f.gallery.lottieStatus.contains("playing at 2× backwards"))
        f.at(1.7)                                  // local 1.0 − 0.5 = 0.5
        #expect(abs(ball(f) - Self.ballY(0.5)) < 1e-6)
        f.at(2.0)                                  // local −0.1: the previous pass, 1.9 s into it
        #expect(abs(ball(f) - Self.ballY(1.9)) < 1e-6)
        #expect(abs(f.number("thumb", "position.x") - Self.thumbX(1.9)) < 1e-6)
        f.gallery.now = 2.0
        for _ in 0..<5 { f.apply(f.gallery.key(264)) }   // ↓ five times: ÷2 down to ¼, still backwards
        #expect(f.gallery.lottieClock?.speed == -0.25)
        for _ in 0..<6 { f.apply(f.gallery.key(265)) }   // ↑ six times: up to 4 at most
        #expect(f.gallery.lottieClock?.speed == -4)
    }

    @Test func digitsAndTheTrackSeek() {
        let f = Fixture(.lottie)
        f.at(0.3)
        f.gallery.now = 0.3
        f.apply(f.gallery.key(32))                 // paused
        f.apply(f.gallery.key(48 + 7))             // 7: progress 0.7, local 1.4
        #expect(abs(ball(f) - Self.ballY(1.4)) < 1e-6)
        f.apply(f.gallery.click(f.gallery.named["segment2"]!))   // the third tenth: local 0.4
        #expect(abs(ball(f) - Self.ballY(0.4)) < 1e-6)
        #expect(abs(f.number("thumb", "position.x") - Self.thumbX(0.4)) < 1e-6)
        f.apply(f.gallery.click(f.gallery.named["button0"]!))    // ⏯ plays from there
        f.at(0.8)
        #expect(abs(ball(f) - Self.ballY(0.9)) < 1e-6)
        f.gallery.now = 0.8
        f.apply(f.gallery.click(f.gallery.named["lottie/Ball"]!))   // a click on the animation pauses it
        f.at(1.5)
        #expect(abs(ball(f) - Self.ballY(0.9)) < 1e-6)
    }

    @Test func nextFileRebuildsThePageWithMasksAndMattesRenumbered() throws {
        // The page's ids start high (as when another page's layers are in use), and the second
        // file has masks (mask layers are referred to by id), a repeater and a remapped precomp.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let compositing = try String(contentsOf: root.appendingPathComponent("Lottie/compositing.json"), encoding: .utf8)
        let f = Fixture(.springs)
        let springs = f.gallery.pageLayers + [f.gallery.stage!]   // the first gallery's page, then its stage
        f.gallery = Gallery(canvas: GalleryTests.canvas, firstID: 50_000, lottieFiles: [("compositing.json", compositing)])
        f.apply(springs.reversed().map { LayerChange.delete($0) } + f.gallery.show(.lottie))
        #expect(f.gallery.named["lottie"]! > 50_000)
        f.apply(f.gallery.key(78))                 // N
        #expect(f.gallery.lottieIndex == 1)
        #expect(f.gallery.lottieStatus.hasPrefix("compositing.json · playing at 1×"))
        #expect(f.gallery.named["lottie/Ball"] == nil)
        // Every layer the page made is there (under the new gallery's stage), nothing else: the
        // springs page's, its stage and the first file's are gone.
        #expect(f.d.core.model.count == 1 + 1 + 1 + f.gallery.pageLayers.count)
        f.at(0.5)
        f.apply(f.gallery.key(78))                 // wraps around to the bundled file
        #expect(f.gallery.lottieIndex == 0)
        #expect(f.gallery.named["lottie/Ball"] != nil)
    }

    @Test func reduceMotionShowsItPausedAtItsStart() {
        let f = Fixture(.lottie, reduceMotion: true)
        #expect(f.gallery.lottieStatus.contains("paused"))
        f.at(0.7)
        #expect(abs(ball(f) - 70) < 1e-6)
        f.gallery.now = 0.7
        f.apply(f.gallery.key(32))
        f.at(1.2)
        #expect(abs(ball(f) - Self.ballY(0.5)) < 1e-6)
    }
}
