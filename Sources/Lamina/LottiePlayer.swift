import Foundation
import LaminaLottie
import LaminaWire

/// A Lottie file playing in a running daemon with playback control, as lottie-ios'
/// `LottieAnimationView` offers it: play, pause, seek to a frame or a progress, speed
/// (negative plays backwards), and a completion. The loop mode and the range (frames or
/// markers) are fixed at load (`LottiePlayback`; load again to change them). Every control is
/// one transaction setting the root layer's `speed`, `timeOffset` and `beginTime` at the
/// compositor's time (`LottieClock`); the animation itself is compositor animations, so
/// nothing runs per frame here.
public final class LottiePlayer {
    public private(set) var scene: Scene
    public let connection: Connection
    /// The root layer (`LottieImport.rootName`) whose layer time is the clock.
    public let rootLayer: UInt32
    public private(set) var clock: LottieClock

    /// Imports the file, builds its layers in one commit (paused at the range's start), then
    /// plays it unless `playback.autoplay` is false.
    public init(contentsOfFile path: String, playback: LottiePlayback = LottiePlayback(), connection: Connection) throws {
        var paused = playback
        paused.autoplay = false
        scene = try Scene(contentsOfFile: path, lottiePlayback: paused)
        guard let clock = scene.lottieClock, let root = scene.names[LottieImport.rootName] else {
            throw SceneError(path: "", "\(path) is not a Lottie file")
        }
        self.clock = clock
        self.connection = connection
        rootLayer = root
        try ScenePlayer(scene: scene, connection: connection).loadAndPlay()
        if playback.autoplay { try play() }
    }

    /// Plays from where it is at `speed` (nil: the last speed, 1 at first; negative backwards).
    public func play(speed: Double? = nil) throws { try change { $0.play(now: $1, speed: speed) } }
    public func pause() throws { try change { $0.pause(now: $1) } }
    public func setSpeed(_ speed: Double) throws { try change { $0.setSpeed(speed, now: $1) } }
    /// Shows a frame of the file (playing on from it if playing).
    public func seek(frame: Double) throws { try change { $0.seek(frame: frame, now: $1) } }
    /// Shows a progress of the range, 0…1 (playing on from it if playing).
    public func seek(progress: Double) throws { try change { $0.seek(progress: progress, now: $1) } }

    /// Called once a playOnce or repeat range has played to its end (true), or with false
    /// when its layers were removed first. Uses the connection's `onAnimationEvent`.
    public func onCompletion(_ body: @escaping @Sendable (Bool) -> Void) {
        let root = rootLayer
        connection.onAnimationEvent = { event in
            if case .animationStopped(let layer, let key, let finished) = event, layer == root, key == LottieImport.rootName {
                body(finished)
            }
        }
    }

    /// A dynamic property, lottie-ios' `setValueProvider`: `keyPath` a Lottie key path with
    /// wildcards whose last component is the property (`"**.Fill 1.Color"` with [r, g, b] in
    /// 0…1; `Opacity` in percent, `Stroke Width`, a layer's `Position`, `Scale` in percent,
    /// `Rotation` in degrees — `LottieImport.dynamicChanges`). It replaces that property's
    /// animation on every element the key path reaches, live, in one transaction; the
    /// element's other animations go on in step. An error names a key path that reaches
    /// nothing.
    public func setValue(_ value: [Double], forKeyPath keyPath: String) throws {
        guard let lottie = scene.lottie else { throw SceneError(path: "", "not a Lottie scene") }
        let now = try connection.currentTime()
        let changes = try lottie.dynamicChanges(keyPath, value, rangeTime: clock.localTime(at: now))
        for op in try scene.operations(forTransaction: LottiePlayer.transaction(changes)) { connection.stageOperation(op) }
        _ = try connection.commit()
    }

    /// Dynamic property changes as scene-file TX JSON (actions disabled).
    public static func transaction(_ changes: [LottieChange]) -> JSON {
        var set: [JSON.Member] = [], add: [JSON.Member] = []
        for c in changes {
            for (k, v) in c.set.sorted(by: { $0.key < $1.key }) { set.append(JSON.Member(key: c.layer + "." + k, value: v)) }
            if let a = c.animation { add.append(JSON.Member(key: c.layer, value: .object([JSON.Member(key: LottieImport.rootName, value: a)]))) }
        }
        var m = [JSON.Member(key: "disableActions", value: .bool(true)), JSON.Member(key: "set", value: .object(set))]
        if !add.isEmpty { m.append(JSON.Member(key: "add", value: .object(add))) }
        return .object(m)
    }

    /// The clock changed at the compositor's time now, sent as one transaction.
    func change(_ f: (inout LottieClock, Double) -> Void) throws {
        let now = try connection.currentTime()
        f(&clock, now)
        for (keyPath, value) in clock.settings(now: now) {
            connection.stageOperation(.set(rootLayer, keyPath: keyPath, value: .number(value)))
        }
        _ = try connection.commit()
    }
}
