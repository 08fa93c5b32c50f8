import LaminaGeometry

/// An animation as a client describes it: plain Sendable data, not yet validated.
/// `compile(kindOf:)` validates it once and produces the flat `CompiledAnimation` that the
/// render thread evaluates.
public indirect enum Animation: Hashable, Sendable {
    case basic(BasicAnimation)
    case keyframe(KeyframeAnimation)
    case spring(SpringAnimation)
    case group(AnimationGroup)
    case keyframeTracks(KeyframeTracksAnimation)
    case phases(PhaseAnimation)

    public var timing: AnimationTiming {
        get {
            switch self {
            case .basic(let a): a.timing
            case .keyframe(let a): a.timing
            case .spring(let a): a.timing
            case .group(let a): a.timing
            case .keyframeTracks(let a): a.timing
            case .phases(let a): a.timing
            }
        }
        set {
            switch self {
            case .basic(var a): a.timing = newValue; self = .basic(a)
            case .keyframe(var a): a.timing = newValue; self = .keyframe(a)
            case .spring(var a): a.timing = newValue; self = .spring(a)
            case .group(var a): a.timing = newValue; self = .group(a)
            case .keyframeTracks(var a): a.timing = newValue; self = .keyframeTracks(a)
            case .phases(var a): a.timing = newValue; self = .phases(a)
            }
        }
    }
}

/// `CABasicAnimation`: from/to/by, any combination Core Animation accepts. Missing ends are
/// taken from the underlying (model) value u at evaluation:
///
/// | given      | animates          |
/// |------------|-------------------|
/// | from, to   | from → to         |
/// | from, by   | from → from + by  |
/// | by, to     | to − by → to      |
/// | from       | from → u          |
/// | to         | u → to            |
/// | by         | u → u + by        |
///
/// None, or all three, is rejected.
public struct BasicAnimation: Hashable, Sendable {
    public var keyPath: String
    public var from: AnimatableValue?
    public var to: AnimatableValue?
    public var by: AnimatableValue?
    public var timing: AnimationTiming

    public init(keyPath: String, from: AnimatableValue? = nil, to: AnimatableValue? = nil,
                by: AnimatableValue? = nil, timing: AnimationTiming = AnimationTiming()) {
        self.keyPath = keyPath; self.from = from; self.to = to; self.by = by; self.timing = timing
    }

    /// The implicit animation of a property change (CALayer's default action): from the
    /// presentation value to the new model value over `duration` with `timingFunction`
    /// (the transaction's; docs/design.md's defaults are 0.25 s and easeInEaseOut).
    public static func implicit(keyPath: String, from presentation: AnimatableValue, to model: AnimatableValue,
                                duration: Double = 0.25, timingFunction: TimingFunction = .easeInEaseOut) -> BasicAnimation {
        BasicAnimation(keyPath: keyPath, from: presentation, to: model,
                       timing: AnimationTiming(duration: duration, timingFunction: timingFunction))
    }
}

/// `CAKeyframeAnimation.calculationMode`.
public enum CalculationMode: String, Hashable, Sendable, CaseIterable {
    /// Straight segments between values at keyTimes, each eased by its timing function.
    case linear
    /// Each value holds from its key time to the next.
    case discrete
    /// Constant speed: keyTimes and timing functions are ignored; each segment's share of
    /// the time is its share of the total distance.
    case paced
    /// A Catmull-Rom spline through the values (end tangents from the ends doubled).
    case cubic
    /// The Catmull-Rom spline travelled at constant speed (by arc length).
    case cubicPaced
}

/// `CAKeyframeAnimation`: values (or, for a point property, a path), keyTimes,
/// per-segment timing functions and a calculation mode.
public struct KeyframeAnimation: Hashable, Sendable {
    public var keyPath: String
    public var values: [AnimatableValue]
    /// For point properties instead of `values`: the animation follows the path, with a
    /// key point at every element's end (a `move` jumps).
    public var path: Path?
    /// 0…1, ascending; as many as the values (or path vertices), or in discrete mode also
    /// one more. Nil spaces them evenly.
    public var keyTimes: [Double]?
    /// One per segment (values − 1), or nil for linear segments.
    public var timingFunctions: [TimingFunction]?
    public var calculationMode: CalculationMode
    public var timing: AnimationTiming

    public init(keyPath: String, values: [AnimatableValue] = [], path: Path? = nil, keyTimes: [Double]? = nil,
                timingFunctions: [TimingFunction]? = nil, calculationMode: CalculationMode = .linear,
                timing: AnimationTiming = AnimationTiming()) {
        self.keyPath = keyPath; self.values = values; self.path = path; self.keyTimes = keyTimes
        self.timingFunctions = timingFunctions; self.calculationMode = calculationMode; self.timing = timing
    }
}

/// `CASpringAnimation` (with the from/to/by rules of `BasicAnimation`). Its duration
/// defaults to the spring's settling duration.
public struct SpringAnimation: Hashable, Sendable {
    public var keyPath: String
    public var from: AnimatableValue?
    public var to: AnimatableValue?
    public var by: AnimatableValue?
    public var spring: Spring
    /// A velocity in value units per second (points per second for a point), of the key
    /// path's kind. When set it replaces `spring.initialVelocity`; retargeting uses it so
    /// that velocity stays continuous in every component. Not supported for transforms.
    public var velocity: AnimatableValue?
    public var timing: AnimationTiming

    public init(keyPath: String, from: AnimatableValue? = nil, to: AnimatableValue? = nil, by: AnimatableValue? = nil,
                spring: Spring = Spring(), velocity: AnimatableValue? = nil, timing: AnimationTiming = AnimationTiming()) {
        self.keyPath = keyPath; self.from = from; self.to = to; self.by = by; self.spring = spring
        self.velocity = velocity; self.timing = timing
    }

    /// A spring that takes over from motion in progress (`CompiledAnimation.springState`)
    /// toward `target`: it starts at the state's value with the state's velocity, so both
    /// stay continuous. For kinds without a velocity vector (transforms, mismatched paths)
    /// only the position is continuous.
    public static func retargeting(keyPath: String, from state: SpringState, to target: AnimatableValue,
                                   spring: Spring, timing: AnimationTiming = AnimationTiming()) -> SpringAnimation {
        var s = spring
        s.initialVelocity = 0
        return SpringAnimation(keyPath: keyPath, from: state.value, to: target, spring: s,
                               velocity: state.velocity, timing: timing)
    }
}

/// The position and velocity of a key path driven by a spring at some time.
public struct SpringState: Hashable, Sendable {
    public var value: AnimatableValue
    /// Value units per second of parent time; nil when the kind has none (transforms).
    public var velocity: AnimatableValue?
    public init(value: AnimatableValue, velocity: AnimatableValue?) { self.value = value; self.velocity = velocity }
}

/// `CAAnimationGroup`: children run in the group's local time and are clipped to the
/// group's active interval. Its duration defaults to 0.25 s as Core Animation's does.
/// Children that drive the same key path apply in order (a later non-additive child
/// replaces an earlier one; an additive one adds to it).
public struct AnimationGroup: Hashable, Sendable {
    public var animations: [Animation]
    public var timing: AnimationTiming
    public init(animations: [Animation], timing: AnimationTiming = AnimationTiming()) {
        self.animations = animations; self.timing = timing
    }
}

/// One keyframe of a track (SwiftUI's `LinearKeyframe`, `CubicKeyframe`, `SpringKeyframe`,
/// `MoveKeyframe`). Each moves from the previous keyframe's value (the underlying value for
/// the first) to its own over its duration.
public enum Keyframe: Hashable, Sendable {
    case linear(AnimatableValue, duration: Double, timingFunction: TimingFunction = .linear)
    /// Catmull-Rom through the neighbouring keyframes' values.
    case cubic(AnimatableValue, duration: Double)
    /// A spring of perceptual duration `duration` and `bounce`, as a curve over `duration`
    /// (`TimingFunction.spring`).
    case spring(AnimatableValue, duration: Double, bounce: Double = 0)
    /// Jumps to the value immediately.
    case move(AnimatableValue)

    public var value: AnimatableValue {
        switch self {
        case .linear(let v, _, _), .cubic(let v, _), .spring(let v, _, _), .move(let v): v
        }
    }
    public var duration: Double {
        switch self {
        case .linear(_, let d, _), .cubic(_, let d), .spring(_, let d, _): d
        case .move: 0
        }
    }
}

/// One track of a `KeyframeTracksAnimation`.
public struct KeyframeTrack: Hashable, Sendable {
    public var keyPath: String
    public var keyframes: [Keyframe]
    public init(keyPath: String, keyframes: [Keyframe]) { self.keyPath = keyPath; self.keyframes = keyframes }
}

/// SwiftUI's `KeyframeAnimator`: one track per key path; the whole lasts as long as the
/// longest track, and a track that ends sooner holds its last value.
public struct KeyframeTracksAnimation: Hashable, Sendable {
    public var tracks: [KeyframeTrack]
    public var timing: AnimationTiming
    public init(tracks: [KeyframeTrack], timing: AnimationTiming = AnimationTiming()) {
        self.tracks = tracks; self.timing = timing
    }
}

/// One state of a `PhaseAnimation` and the curve of the transition that leads *to* it.
public struct Phase: Hashable, Sendable {
    public var values: [String: AnimatableValue]
    /// A timing function or `.spring(…)` for the transition into this phase.
    public var curve: TimingFunction
    /// The transition's length; nil: the spring's settling duration, or 0.25 s.
    public var duration: Double?
    public init(values: [String: AnimatableValue], curve: TimingFunction = .easeInEaseOut, duration: Double? = nil) {
        self.values = values; self.curve = curve; self.duration = duration
    }
}

/// SwiftUI's `PhaseAnimator`: starts at the first phase's values and steps through the
/// phases in order, each transition using the curve of the phase it leads to, then back to
/// the first (one cycle). With `repeats` the cycle loops forever (repeatCount defaults to
/// infinity); without it, one cycle plays per trigger (add one animation per trigger).
/// A key path a phase does not name keeps the underlying value in that phase.
public struct PhaseAnimation: Hashable, Sendable {
    public var phases: [Phase]
    public var repeats: Bool
    public var timing: AnimationTiming
    public init(phases: [Phase], repeats: Bool = true, timing: AnimationTiming = AnimationTiming()) {
        self.phases = phases; self.repeats = repeats; self.timing = timing
    }
}
