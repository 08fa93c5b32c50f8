import Foundation

/// `CAMediaTiming`'s `fillMode`.
public enum FillMode: String, Hashable, Sendable, CaseIterable {
    case removed, forwards, backwards, both

    // A switch, not `==`: this enum's `==` compares raw-value strings.
    var fillsForwards: Bool {
        switch self { case .forwards, .both: true; case .removed, .backwards: false }
    }
    var fillsBackwards: Bool {
        switch self { case .backwards, .both: true; case .removed, .forwards: false }
    }
}

/// Where a parent time falls relative to an animation's active interval.
public enum TimingPhase: Hashable, Sendable {
    case before, active, after
}

/// The timing fields every animation has: `CAMediaTiming` plus the `CAAnimation` flags.
/// Times are seconds. `duration` nil means the kind's default: 0.25 s (Core Animation's)
/// for basic, keyframe and group animations, the settling duration for springs, the longest
/// track for keyframe tracks, one cycle through the phases for phase sequences.
public struct AnimationTiming: Hashable, Sendable {
    /// Seconds after the animation is added (in the parent's time for group children).
    public var beginTime: Double = 0
    public var duration: Double? = nil
    /// Applied to the whole of each iteration (default linear, as explicit CA animations).
    public var timingFunction: TimingFunction = .linear
    /// 0 means once; fractional and `.infinity` allowed. Exclusive with `repeatDuration`.
    public var repeatCount: Double = 0
    /// Total active time, when > 0 (may be `.infinity`). Not doubled by `autoreverses`.
    public var repeatDuration: Double = 0
    /// Each iteration plays forward then backward (the active duration doubles).
    public var autoreverses: Bool = false
    public var fillMode: FillMode = .removed
    public var removedOnCompletion: Bool = true
    /// Local time = (parent time − beginTime) × speed + timeOffset. 0 pauses; negative
    /// plays the active interval backward.
    public var speed: Double = 1
    public var timeOffset: Double = 0
    /// The animated value is added to the underlying (model) value.
    public var additive: Bool = false
    /// Each repeat starts where the previous one ended.
    public var cumulative: Bool = false
    /// False: decorative motion, which a client should skip or shorten while Reduce Motion is
    /// on (`Connection.reduceMotion`). The daemon plays it as it plays any animation: it does
    /// not replace it under Reduce Motion itself.
    public var essential: Bool = true

    public init(beginTime: Double = 0, duration: Double? = nil, timingFunction: TimingFunction = .linear,
                repeatCount: Double = 0, repeatDuration: Double = 0, autoreverses: Bool = false,
                fillMode: FillMode = .removed, removedOnCompletion: Bool = true, speed: Double = 1,
                timeOffset: Double = 0, additive: Bool = false, cumulative: Bool = false, essential: Bool = true) {
        self.beginTime = beginTime; self.duration = duration; self.timingFunction = timingFunction
        self.repeatCount = repeatCount; self.repeatDuration = repeatDuration; self.autoreverses = autoreverses
        self.fillMode = fillMode; self.removedOnCompletion = removedOnCompletion; self.speed = speed
        self.timeOffset = timeOffset; self.additive = additive; self.cumulative = cumulative
        self.essential = essential
    }
}

/// Media timing with every default resolved: the pure time model of `CAMediaTiming`.
///
/// For a parent time tp, with D the duration, n the repeat count and AD the active
/// duration (repeatDuration if set, else max(n, 1)·D, doubled when autoreversing):
///
/// - the active interval in parent time is [beginTime, beginTime + AD/|speed|);
/// - the active time a = (tp − beginTime)·speed, counted from the interval's end when the
///   speed is negative (a = AD + (tp − beginTime)·speed), and clamped to [0, AD] outside
///   the interval (so backwards fill shows the state at the interval's start in parent
///   time, forwards fill the state at its end);
/// - the local time L = a + timeOffset, wrapped into [0, AD] (as CA: an offset animation
///   starts partway and wraps around);
/// - the iteration i and the time within it, folded back when autoreversing;
/// - speed 0 pauses: from beginTime on, L = timeOffset (a seek), and the animation never ends.
public struct MediaTiming: Hashable, Sendable {
    public var beginTime: Double
    public var duration: Double
    public var speed: Double
    public var timeOffset: Double
    public var repeatCount: Double
    public var repeatDuration: Double
    public var autoreverses: Bool
    public var fillMode: FillMode

    public init(beginTime: Double = 0, duration: Double, speed: Double = 1, timeOffset: Double = 0,
                repeatCount: Double = 0, repeatDuration: Double = 0, autoreverses: Bool = false,
                fillMode: FillMode = .removed) {
        self.beginTime = beginTime; self.duration = duration; self.speed = speed; self.timeOffset = timeOffset
        self.repeatCount = repeatCount; self.repeatDuration = repeatDuration
        self.autoreverses = autoreverses; self.fillMode = fillMode
    }

    /// The active duration in local time (may be infinite).
    public var activeDuration: Double {
        if repeatDuration > 0 { return repeatDuration }
        let once = autoreverses ? 2 * duration : duration
        return repeatCount > 0 ? once * repeatCount : once
    }

    /// The parent time at which the active interval ends: beginTime + AD/|speed|;
    /// +infinity for infinite repeats or a paused (speed 0) animation.
    public var endTime: Double {
        let ad = activeDuration
        if speed == 0 { return .infinity }
        if !ad.isFinite { return .infinity }
        return beginTime + ad / abs(speed)
    }

    /// The timing state at parent time `t`.
    public func state(at t: Double) -> TimingState { PreparedTiming(self).state(at: t) }
}

/// A `MediaTiming` with what `state(at:)` derives from its fields (active duration, cycle,
/// |speed|, fill flags) computed once: compiled animations keep one per node, and the
/// render thread's presentation plan one per plain binding. `state(at:)` is the only
/// implementation of the time model (`MediaTiming.state(at:)` calls it), so both answer
/// bit for bit the same. Plain data; any thread may use it.
public struct PreparedTiming: Hashable, Sendable {
    @usableFromInline let beginTime: Double
    @usableFromInline let duration: Double
    @usableFromInline let speed: Double
    @usableFromInline let absSpeed: Double
    public let timeOffset: Double
    /// `activeDuration`.
    @usableFromInline let active: Double
    /// One iteration: duration, doubled when autoreversing.
    @usableFromInline let cycle: Double
    @usableFromInline let autoreverses: Bool
    @usableFromInline let fillMode: FillMode
    @usableFromInline let fillsBackwards: Bool
    @usableFromInline let fillsForwards: Bool
    /// speed > 0, duration > 0: `fraction(at:)` answers the active interval's common case
    /// (no wrap-around of the local time) without the general case's branches.
    @usableFromInline let forward: Bool
    /// 1 / cycle, rounded: `fractions(_:_:at:timeOffset:)` finds ⌊local / cycle⌋ with it
    /// where that provably gives the division's answer.
    @usableFromInline let inverseCycle: Double
    /// Above this the time within a cycle folds back: `duration` when autoreversing, else
    /// +infinity (the same test as `autoreverses && within > duration`, without the flag).
    @usableFromInline let reversesAbove: Double

    public init(_ m: MediaTiming) {
        beginTime = m.beginTime; duration = m.duration; speed = m.speed; absSpeed = abs(m.speed)
        timeOffset = m.timeOffset; active = m.activeDuration
        cycle = m.autoreverses ? 2 * m.duration : m.duration
        autoreverses = m.autoreverses; fillMode = m.fillMode
        fillsBackwards = m.fillMode.fillsBackwards; fillsForwards = m.fillMode.fillsForwards
        forward = m.speed > 0 && m.duration > 0 && cycle > 0
        // Only a normal reciprocal is within half an ulp of 1/cycle; +infinity turns the
        // two-lane path to the scalar one.
        let inverse = 1 / cycle
        inverseCycle = inverse.isNormal ? inverse : .infinity
        reversesAbove = m.autoreverses ? m.duration : .infinity
    }

    /// `x.rounded(.down)` without a call: the default x86-64 target has no rounding
    /// instruction, so `rounded` calls libm's `floor` (per binding per frame). Truncation
    /// through Int64 is floor for |x| < 2⁵² once corrected below 0; larger, infinite and NaN
    /// values are already whole (or NaN). The same value as `floor` (for −0 it gives +0).
    @inlinable @inline(__always)
    static func floor(_ x: Double) -> Double {
        guard abs(x) < 4_503_599_627_370_496 else { return x }
        let i = Double(Int64(x))
        return i > x ? i - 1 : i
    }

    /// The phase at parent time `t` and the local time (0…activeDuration): the part of the
    /// time model that `state(at:)` and `fraction(at:)` share.
    @inlinable @inline(__always)
    func phaseAndLocalTime(at t: Double, timeOffset: Double) -> (phase: TimingPhase, local: Double) {
        let ad = active
        var phase: TimingPhase
        var a: Double
        let rel = t - beginTime
        if !(rel >= 0) {   // also NaN
            phase = .before
            a = speed < 0 ? ad : 0
        } else if speed == 0 {
            phase = .active
            a = 0
        } else if rel * absSpeed >= ad {
            phase = .after
            a = speed > 0 ? ad : 0
        } else {
            phase = .active
            a = speed > 0 ? rel * speed : ad + rel * speed
        }
        if !a.isFinite { a = 0 }
        var local = a + timeOffset
        if ad.isFinite && ad > 0 && (local < 0 || local > ad) {
            local -= ad * Self.floor(local / ad)
            if local == 0 && a + timeOffset > 0 { local = ad }
        } else if !ad.isFinite && local < 0 {
            local = 0
        } else if ad == 0 {
            local = 0
        }
        return (phase, local)
    }

    /// The timing state at parent time `t` (see `MediaTiming`).
    @inline(__always)
    public func state(at t: Double) -> TimingState {
        let ad = active
        let (phase, local) = phaseAndLocalTime(at: t, timeOffset: timeOffset)
        // Iteration and the time within it.
        var iteration = 0
        var within: Double
        if duration <= 0 || cycle <= 0 {
            within = phase == .before ? 0 : duration
            let fraction: Double = phase == .before && speed >= 0 ? 0 : 1
            return TimingState(phase: phase, fillMode: fillMode, iteration: 0, iterationTime: max(0, within),
                               fraction: fraction, localTime: local)
        }
        if ad.isFinite && local >= ad {
            iteration = max(0, Int((ad / cycle).rounded(.up)) - 1)
            within = ad - Double(iteration) * cycle
        } else {
            let q = Self.floor(local / cycle)
            iteration = q < Double(Int.max / 2) ? Int(q) : Int.max / 2
            within = local - q * cycle
        }
        if autoreverses && within > duration { within = 2 * duration - within }
        within = min(max(within, 0), duration)
        return TimingState(phase: phase, fillMode: fillMode, iteration: iteration, iterationTime: within,
                           fraction: within / duration, localTime: local)
    }

    /// `state(at: t).fraction` when the state has an effect (active, or filling), else nil:
    /// what a plain (non-cumulative) animation needs. The same arithmetic as `state(at:)`
    /// without the iteration number and the rest of the state (a test checks that the two
    /// agree bit for bit); inlinable, for the render thread's per-binding loop.
    @inlinable @inline(__always)
    public func fraction(at t: Double) -> Double? { fraction(at: t, timeOffset: timeOffset) }

    /// This timing with its `timeOffset` 0: what timings that differ only in their offset
    /// share (the render thread keeps one per such group and each binding's offset).
    public var withoutTimeOffset: PreparedTiming { PreparedTiming(self, timeOffset: 0) }

    /// This timing read on a clock `scale` times slower than the one it was made for
    /// (`scale` > 0): `timeScaled(scale).fraction(at: y)` is `fraction(at: scale · y)` up to
    /// rounding — its begin divided by `scale`, its speed multiplied by it. A layer whose
    /// local time runs at `scale` × compositor time (layer time) evaluates its animations in
    /// compositor time through it.
    public func timeScaled(_ scale: Double) -> PreparedTiming {
        precondition(scale > 0 && scale.isFinite, "a time scale is finite and > 0")
        return PreparedTiming(self, beginTime: beginTime / scale, speed: speed * scale)
    }

    private init(_ p: PreparedTiming, beginTime: Double, speed: Double) {
        self.beginTime = beginTime; duration = p.duration; self.speed = speed; absSpeed = abs(speed)
        timeOffset = p.timeOffset; active = p.active; cycle = p.cycle
        autoreverses = p.autoreverses; fillMode = p.fillMode
        fillsBackwards = p.fillsBackwards; fillsForwards = p.fillsForwards
        forward = speed > 0 && p.duration > 0 && p.cycle > 0
        inverseCycle = p.inverseCycle; reversesAbove = p.reversesAbove
    }

    /// `p` with another time offset (nothing else derives from it).
    init(_ p: PreparedTiming, timeOffset: Double) {
        beginTime = p.beginTime; duration = p.duration; speed = p.speed; absSpeed = p.absSpeed
        self.timeOffset = timeOffset; active = p.active; cycle = p.cycle
        autoreverses = p.autoreverses; fillMode = p.fillMode
        fillsBackwards = p.fillsBackwards; fillsForwards = p.fillsForwards; forward = p.forward
        inverseCycle = p.inverseCycle; reversesAbove = p.reversesAbove
    }

    /// `fraction(at:)` as if `timeOffset` were the given one (for `withoutTimeOffset`'s
    /// timings: `fraction(at: t, timeOffset: o)` of it is `fraction(at: t)` of the timing
    /// with offset o, bit for bit — the same code).
    @inlinable @inline(__always)
    public func fraction(at t: Double, timeOffset: Double) -> Double? {
        // The common case first: a forward animation inside its active interval whose local
        // time needs no wrapping (0 ≤ local < active duration). There every branch below
        // goes one way — phase active, a = rel·speed, local unchanged, the iteration from
        // ⌊local / cycle⌋ — so this is the same arithmetic on the same values.
        let rel = t - beginTime
        if forward && rel >= 0 && rel * absSpeed < active {
            let a = rel * speed
            let local = a + timeOffset
            if local >= 0 && local < active && a.isFinite {
                var within = local - Self.floor(local / cycle) * cycle
                if autoreverses && within > duration { within = 2 * duration - within }
                within = min(max(within, 0), duration)
                return within / duration
            }
        }
        return generalFraction(at: t, timeOffset: timeOffset)
    }

    /// `fraction(at:)` for every case.
    @inlinable @inline(__always)
    func generalFraction(at t: Double, timeOffset: Double) -> Double? {
        let ad = active
        let (phase, local) = phaseAndLocalTime(at: t, timeOffset: timeOffset)
        let before = phase == .before
        if before && !fillsBackwards { return nil }
        if phase == .after && !fillsForwards { return nil }
        if duration <= 0 || cycle <= 0 { return before && speed >= 0 ? 0 : 1 }
        var within: Double
        if ad.isFinite && local >= ad {
            // state(at:): iteration = max(0, Int(⌈ad / cycle⌉) − 1), exact as a Double.
            let iteration = max(0, (ad / cycle).rounded(.up) - 1)
            within = ad - iteration * cycle
        } else {
            within = local - Self.floor(local / cycle) * cycle
        }
        if autoreverses && within > duration { within = 2 * duration - within }
        within = min(max(within, 0), duration)
        return within / duration
    }
}

/// What `MediaTiming.state(at:)` answers for one parent time.
public struct TimingState: Hashable, Sendable {
    public var phase: TimingPhase
    public var fillMode: FillMode
    /// Completed iterations before this one (an autoreversing iteration counts once).
    public var iteration: Int
    /// Seconds into the current iteration, 0…duration (folded back when autoreversing).
    public var iterationTime: Double
    /// iterationTime / duration, 0…1: the linear progress before the timing function.
    public var fraction: Double
    /// The local time, 0…activeDuration.
    public var localTime: Double

    /// Whether the animation affects its property at this time: while active, and before
    /// or after the active interval only when the fill mode holds it there.
    public var hasEffect: Bool {
        switch phase {
        case .active: true
        case .before: fillMode.fillsBackwards
        case .after: fillMode.fillsForwards
        }
    }
}
