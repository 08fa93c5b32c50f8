import LaminaWire

/// How an imported Lottie animation plays (lottie-ios' `LottieLoopMode` and play ranges),
/// fixed at import: every layer's `lottie` group animation takes the range's length as its
/// duration, the loop mode as its repeat count and autoreverse, and starts its keyframes at
/// the range's start. Pausing, seeking and the speed (negative plays backwards) are then the
/// root layer's layer time (`LottieClock`): nothing runs per frame in any client.
public struct LottiePlayback: Sendable, Equatable {
    public enum LoopMode: Sendable, Equatable {
        /// Plays the range once and holds its last frame.
        case playOnce
        /// Repeats forever.
        case loop
        /// Forwards then backwards, forever.
        case autoReverse
        /// Plays the range n times (fractions allowed) and holds where it stops.
        case `repeat`(Double)
        /// Forwards then backwards n times, and holds where it stops.
        case repeatAutoReverse(Double)
    }
    public var loopMode: LoopMode
    /// The range, in frames of the file (nil: its `ip` … `op`).
    public var fromFrame: Double?
    public var toFrame: Double?
    /// The range by marker names (a marker's start; `toMarker` nil with `fromMarker` set plays
    /// that one marker: its start to its start + duration). Override the frames.
    public var fromMarker: String?
    public var toMarker: String?
    /// False: the root layer starts with speed 0 (paused at the range's start).
    public var autoplay: Bool

    public init(loopMode: LoopMode = .loop, fromFrame: Double? = nil, toFrame: Double? = nil,
                fromMarker: String? = nil, toMarker: String? = nil, autoplay: Bool = true) {
        self.loopMode = loopMode; self.fromFrame = fromFrame; self.toFrame = toFrame
        self.fromMarker = fromMarker; self.toMarker = toMarker; self.autoplay = autoplay
    }

    /// Cycles a looping group starts before its layer's local time 0, so that a negative
    /// speed or a seek before the start still finds it playing (a whole number of cycles:
    /// the phase is unchanged).
    static let cyclesBefore = 10_000.0

    /// The `lottie` group's timing members for a range of `length` seconds.
    func groupTiming(length: Double) -> [(String, JSON)] {
        let hold: [(String, JSON)] = [("fillMode", .string("both")), ("removedOnCompletion", .bool(false))]
        switch loopMode {
        case .playOnce: return hold
        case .loop:
            return [("beginTime", num(-Self.cyclesBefore * length)), ("repeatCount", .string("infinity")), ("fillMode", .string("both"))]
        case .autoReverse:
            return [("beginTime", num(-Self.cyclesBefore * 2 * length)), ("repeatCount", .string("infinity")),
                    ("autoreverses", .bool(true)), ("fillMode", .string("both"))]
        case .repeat(let n): return [("repeatCount", num(max(n, 0)))] + hold
        case .repeatAutoReverse(let n): return [("repeatCount", num(max(n, 0))), ("autoreverses", .bool(true))] + hold
        }
    }
}

/// The root layer's timing for playback control: pause, play at a speed (negative plays
/// backwards), seek to a frame or a progress. Each change is the three layer-time properties
/// of the import's root layer (`LottieImport.rootName`) — `speed`, `timeOffset`,
/// `beginTime` — set in one transaction at the compositor time `now` (Apple's QA1673), so
/// nothing jumps and no client works per frame. Local time 0 is the range's start;
/// `duration` is one pass of the range.
public struct LottieClock: Sendable, Equatable {
    /// One pass of the range in seconds.
    public let duration: Double
    public let frameRate: Double
    /// The range's first frame.
    public let startFrame: Double
    /// The current speed (0 while paused) and the speed `play()` resumes at.
    public private(set) var speed: Double
    public private(set) var resumeSpeed: Double
    /// The time into the range is `anchorLocal + (t − anchorTime) × speed`.
    public private(set) var anchorTime: Double
    public private(set) var anchorLocal: Double
    /// The root layer's local time when the animations were added (they begin then): the
    /// load's compositor time when it autoplays (the root's local time is then the
    /// compositor's), 0 when it starts paused.
    public let origin: Double

    /// A clock for an import loaded (its layers' commit applied) at compositor time
    /// `loadedAt`: playing at speed 1 from then, or paused at the range's start when the
    /// import's playback does not autoplay.
    public init(_ lottie: LottieImport, loadedAt: Double = 0) {
        duration = lottie.rangeDuration
        frameRate = lottie.frameRate
        startFrame = lottie.rangeStartFrame
        let autoplay = lottie.playback.autoplay
        speed = autoplay ? 1 : 0
        resumeSpeed = 1
        anchorTime = loadedAt
        anchorLocal = 0
        origin = autoplay ? loadedAt : 0
    }

    /// The root's local time (seconds into the range, before looping) at compositor time t.
    public func localTime(at t: Double) -> Double { anchorLocal + (t - anchorTime) * speed }
    public var isPlaying: Bool { speed != 0 }

    /// The root layer's settings for the clock as it is from `now` on: key paths of the root
    /// layer and their values.
    public func settings(now: Double) -> [(keyPath: String, value: Double)] {
        [("speed", speed), ("timeOffset", origin + localTime(at: now)), ("beginTime", now)]
    }

    public mutating func pause(now: Double) { move(now: now, local: localTime(at: now), speed: 0) }

    /// Plays from where it is at `speed` (nil: the last speed played at, 1 at first).
    public mutating func play(now: Double, speed: Double? = nil) {
        let s = speed ?? resumeSpeed
        move(now: now, local: localTime(at: now), speed: s)
    }

    /// Changes the speed, playing on from where it is (0 pauses).
    public mutating func setSpeed(_ s: Double, now: Double) { move(now: now, local: localTime(at: now), speed: s) }

    /// Shows progress p of the range (0 its start, 1 its end), playing on from there if it was playing.
    public mutating func seek(progress p: Double, now: Double) { move(now: now, local: p * duration, speed: speed) }

    /// Shows frame f of the file (within the range), playing on from there if it was playing.
    public mutating func seek(frame f: Double, now: Double) { move(now: now, local: (f - startFrame) / frameRate, speed: speed) }

    mutating func move(now: Double, local: Double, speed s: Double) {
        anchorTime = now
        anchorLocal = local.isFinite ? local : 0
        speed = s.isFinite ? s : 0
        if speed != 0 { resumeSpeed = speed }
    }
}
