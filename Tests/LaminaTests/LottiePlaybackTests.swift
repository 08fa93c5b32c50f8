import DaemonTestSupport
import Foundation
import Lamina
import LaminaLottie
import LaminaSceneTree
import LaminaWire
import Testing

/// Lottie playback control (lottie-ios' loop modes, play ranges by frames and markers, pause,
/// seek, speed, backwards): a box whose x is its frame number (0 → 60 linearly over frames
/// 0…60 at 30 fps), so the frame shown at each manual-clock time is read off its position
/// and compared with the frame worked out from the mode's definition.
@Suite struct LottiePlaybackTests {
    static let file = LottieTests.file(LottieTests.shapeLayer("Box", ind: 1, ks: LottieTests.ks(
        #""p":{"a":1,"k":[{"t":0,"s":[0,100]},{"t":60,"s":[60,100]}]}"#)))
        .replacingOccurrences(of: #""layers":"#, with: #""markers":[{"cm":"intro","tm":10,"dr":20},{"cm":"end","tm":40,"dr":5}],"layers":"#)

    func lottie(_ p: LottiePlayback) throws -> LottieImport { try LottieImport(json: try JSON.parse(Self.file), playback: p) }
    func scene(_ l: LottieImport, transactions: [JSON] = []) throws -> Scene {
        var root = l.scene
        if !transactions.isEmpty, case .object(var m) = root {
            m.append(JSON.Member(key: "transactions", value: .array(transactions)))
            root = .object(m)
        }
        return try Scene(json: root.text)
    }
    func frame(_ s: Scene, _ t: Double) throws -> Double {
        guard case .object(let m) = try s.query(["Box.position.x"], at: t), case .number(let v) = m[0].value else { return .nan }
        return v
    }
    func expectFrames(_ s: Scene, _ pairs: [(Double, Double)], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (t, f) in pairs {
            let got = try frame(s, t)
            #expect(abs(got - f) < 1e-6, "\(what) at \(t) s: frame \(got), want \(f)", sourceLocation: sourceLocation)
        }
    }

    @Test func loopModes() throws {
        try expectFrames(try scene(try lottie(.init(loopMode: .loop))), [(0.5, 15), (2.5, 15), (61.0, 30)], "loop")
        try expectFrames(try scene(try lottie(.init(loopMode: .playOnce))), [(0.5, 15), (2.5, 60), (100, 60)], "once")
        // Forwards 2 s, then backwards: at 2.5 s frame 45, at 4.5 s forwards again at frame 15.
        try expectFrames(try scene(try lottie(.init(loopMode: .autoReverse))), [(0.5, 15), (2.5, 45), (4.5, 15)], "autoReverse")
        // 1.5 passes: ends 3 s in, at frame 30, and holds there.
        try expectFrames(try scene(try lottie(.init(loopMode: .repeat(1.5)))), [(2.5, 15), (3.5, 30), (9, 30)], "repeat 1.5")
        // Forwards then back twice over: 4 s forwards-back pairs ×2 = 8 s, ending at frame 0.
        try expectFrames(try scene(try lottie(.init(loopMode: .repeatAutoReverse(2)))), [(2.5, 45), (5, 30), (9, 0)], "repeat autoReverse 2")
    }

    @Test func rangesByFramesAndMarkers() throws {
        // Frames 20…50, looping: 1 s = 30 frames of range, so 1.2 s is frame 20 + 36 mod 30 = 26.
        try expectFrames(try scene(try lottie(.init(loopMode: .loop, fromFrame: 20, toFrame: 50))), [(0, 20), (0.5, 35), (1.2, 26)], "frames 20…50")
        // The marker "intro" alone: its start 10 to 10 + 20; once, it holds 30.
        let intro = try lottie(.init(loopMode: .playOnce, fromMarker: "intro"))
        #expect(intro.rangeStartFrame == 10 && abs(intro.rangeDuration - 20.0 / 30) < 1e-12)
        try expectFrames(try scene(intro), [(0, 10), (0.5, 25), (1, 30)], "marker intro")
        // From "intro" to "end": frames 10…40.
        try expectFrames(try scene(try lottie(.init(loopMode: .playOnce, fromMarker: "intro", toMarker: "end"))), [(0.5, 25), (1.5, 40)], "intro → end")
        #expect(throws: SceneError.self) { try lottie(.init(fromMarker: "nope")) }
        #expect(throws: SceneError.self) { try lottie(.init(fromFrame: 30, toFrame: 30)) }
    }

    /// The root layer's layer time as `LottieClock` sets it, applied by transactions at
    /// manual-clock times: pause, seek while paused, play backwards at double speed, seek
    /// while playing, by progress.
    @Test func clockPausesSeeksAndPlaysBackwards() throws {
        let l = try lottie(.init(loopMode: .loop))
        var clock = LottieClock(l, loadedAt: 0)
        var txs: [JSON] = []
        func at(_ t: Double, _ change: (inout LottieClock) -> Void) {
            change(&clock)
            let set = clock.settings(now: t).map { JSON.Member(key: "\(LottieImport.rootName).\($0.keyPath)", value: .number($0.value)) }
            txs.append(.object([JSON.Member(key: "at", value: .number(t)), JSON.Member(key: "disableActions", value: .bool(true)),
                                JSON.Member(key: "set", value: .object(set))]))
        }
        at(0.5) { $0.pause(now: 0.5) }                       // holds frame 15
        at(1.0) { $0.seek(frame: 40, now: 1.0) }             // paused at frame 40
        at(1.5) { $0.play(now: 1.5, speed: -2) }             // backwards, 60 frames a second
        at(2.5) { $0.seek(progress: 0.25, now: 2.5) }        // frame 15, still backwards
        at(3.0) { $0.play(now: 3.0, speed: 1) }
        let s = try scene(l, transactions: txs)
        try expectFrames(s, [(0.25, 7.5), (0.75, 15), (1.25, 40), (1.75, 25),
                             // 1 s after 1.5 at −60 frames/s: 40 − 60 = −20 → looped to frame 40.
                             (2.4, 40 - 54 + 60),
                             // From frame 15 at 2.5 s, still at −60 frames/s; then forwards from 3 s.
                             (2.7, 3), (2.9, 15 - 24 + 60), (3.25, 60 - 15 + 7.5)], "clock")
        #expect(clock.isPlaying && clock.speed == 1)
    }

    @Test func startsPausedAndCompletesOnce() throws {
        let l = try lottie(.init(loopMode: .playOnce, autoplay: false))
        try expectFrames(try scene(l), [(0, 0), (5, 0)], "paused at the start")
        var clock = LottieClock(l, loadedAt: 0)
        #expect(!clock.isPlaying)
        clock.play(now: 1)
        // Playing from 1 s: once, so 2 s later it ends and holds frame 60.
        let set = clock.settings(now: 1).map { JSON.Member(key: "lottie.\($0.keyPath)", value: .number($0.value)) }
        let s = try scene(l, transactions: [.object([JSON.Member(key: "at", value: .number(1)), JSON.Member(key: "set", value: .object(set))])])
        try expectFrames(s, [(0.5, 0), (1.5, 15), (3.5, 60)], "played at 1 s")
        // The root's completion animation: an empty group of the range's timing, played once.
        guard case .object(let top) = l.scene, case .array(let layers)? = top.first(where: { $0.key == "layers" })?.value,
              case .object(let root) = layers[0], case .object(let anims)? = root.first(where: { $0.key == "animations" })?.value,
              case .object(let g) = anims[0].value else { Issue.record("no root animation"); return }
        #expect(anims[0].key == "lottie" && g.contains { $0.key == "duration" && $0.value == .number(2) })
        #expect(!g.contains { $0.key == "repeatCount" })
    }

    /// A Lottie text written to a new temporary file (its path).
    static func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "lamina-lottie-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The same controls through the client library against a daemon on the manual clock:
    /// `LottiePlayer` loads the file, plays, pauses, seeks and reverses it by transactions on
    /// its root layer, and reports the completion of a played-once range.
    @Test func playerInADaemon() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let path = try Self.temporaryFile(Self.file)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let player = try LottiePlayer(contentsOfFile: path, playback: LottiePlayback(loopMode: .playOnce), connection: c)
        let seen = Recorder()
        player.onCompletion { seen.add("finished \($0)") }
        let box = try #require(player.scene.names["Box"])
        func shown() throws -> Double {
            _ = try c.hitTest(Point(0, 0))   // a frame at the clock's time first
            guard case .number(let v) = try c.presentationValue(ofLayer: box, forKeyPath: "position.x") else { return .nan }
            return v
        }
        func advance(_ s: Double) throws { _ = try c.advanceClock(by: s) }
        try advance(0.5)
        #expect(abs(try shown() - 15) < 1e-6)
        try player.pause()
        try advance(0.5)
        #expect(abs(try shown() - 15) < 1e-6, "paused")
        try player.seek(frame: 40)
        try advance(0.1)
        #expect(abs(try shown() - 40) < 1e-6, "seeked while paused")
        try player.play(speed: -1)
        try advance(0.5)
        #expect(abs(try shown() - 25) < 1e-6, "backwards")
        try player.seek(progress: 0.5)
        try player.setSpeed(2)
        try advance(0.25)
        #expect(abs(try shown() - 45) < 1e-6, "double speed from the middle")
        #expect(seen.all.isEmpty)
        // 15 frames left at 60 a second: it ends 0.25 s later and holds the last frame.
        try advance(0.3)
        #expect(abs(try shown() - 60) < 1e-6, "held at the end")
        #expect(seen.wait(for: 1) == ["finished true"])
    }
}
