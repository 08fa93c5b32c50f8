import Foundation

/// Maps an animation's linear progress to its eased progress, as `CAMediaTimingFunction`
/// and CSS easing functions do.
public enum TimingFunction: Hashable, Sendable {
    /// y = x.
    case linear
    /// A cubic Bézier from (0, 0) to (1, 1) with control points (x1, y1), (x2, y2);
    /// x1 and x2 must lie in 0…1, y1 and y2 are unbounded.
    case cubicBezier(Double, Double, Double, Double)
    /// CSS `steps(n, position)`.
    case steps(Int, StepPosition)
    /// A spring's motion used as a curve: the spring's response over its settling duration,
    /// scaled to the animation's duration (so an animation whose duration is the settling
    /// duration moves exactly as the spring). Ends at exactly 1.
    case spring(Spring)

    /// Where a `steps` function jumps (CSS `jump-start`, `jump-end`, `jump-none`,
    /// `jump-both`; the scene format names them start, end, none, both).
    public enum StepPosition: String, Hashable, Sendable, CaseIterable {
        case start, end, none, both
    }

    /// Core Animation's named functions.
    public static let easeIn = TimingFunction.cubicBezier(0.42, 0, 1, 1)
    public static let easeOut = TimingFunction.cubicBezier(0, 0, 0.58, 1)
    public static let easeInEaseOut = TimingFunction.cubicBezier(0.42, 0, 0.58, 1)
    /// `kCAMediaTimingFunctionDefault`.
    public static let `default` = TimingFunction.cubicBezier(0.25, 0.1, 0.25, 1)
    /// SwiftUI's presets as curves (see `Spring.smooth` and friends).
    public static let smooth = TimingFunction.spring(.smooth)
    public static let snappy = TimingFunction.spring(.snappy)
    public static let bouncy = TimingFunction.spring(.bouncy)

    /// Looks up a scene-format name: linear, easeIn, easeOut, easeInEaseOut, default,
    /// smooth, snappy, bouncy.
    public init?(named name: String) {
        switch name {
        case "linear": self = .linear
        case "easeIn": self = .easeIn
        case "easeOut": self = .easeOut
        case "easeInEaseOut": self = .easeInEaseOut
        case "default": self = .default
        case "smooth": self = .smooth
        case "snappy": self = .snappy
        case "bouncy": self = .bouncy
        default: return nil
        }
    }

    /// The eased progress for `x` (inputs outside 0…1 extrapolate as CSS specifies).
    /// Convenience: compiled animations use a precomputed `TimingCurve`.
    public func progress(_ x: Double) -> Double { TimingCurve(self).progress(x) }

    /// Nil when valid, else the problem (without the field name).
    func validationError() -> String? {
        switch self {
        case .linear: return nil
        case let .cubicBezier(x1, y1, x2, y2):
            guard x1.isFinite, y1.isFinite, x2.isFinite, y2.isFinite else { return "control points must be finite" }
            guard (0...1).contains(x1), (0...1).contains(x2) else { return "x1 and x2 must be in 0…1" }
            return nil
        case let .steps(n, position):
            if position == .none { return n >= 2 ? nil : "steps must be ≥ 2 for position none" }
            return n >= 1 ? nil : "steps must be ≥ 1"
        case .spring(let s):
            if !(s.mass > 0) { return "mass must be > 0" }
            if !(s.stiffness > 0) { return "stiffness must be > 0" }
            if !(s.damping > 0) { return "damping must be > 0 (an undamped spring never settles)" }
            return s.isValid ? nil : "spring parameters must be finite"
        }
    }
}

/// A timing function prepared for evaluation: polynomial coefficients for Béziers, the
/// settling duration for springs. Evaluating allocates nothing.
struct TimingCurve: Hashable, Sendable {
    enum Form: Hashable, Sendable { case linear, bezier, steps, spring }
    // Flat fields rather than an enum with payloads, so that evaluating reads the curve in
    // place instead of copying a Bézier's 30 numbers out of an enum payload.
    let form: Form
    /// `.bezier`: the curve.
    let bezier: CubicBezier
    /// `.steps`: the count and the jump position.
    let steps: Int
    let stepPosition: TimingFunction.StepPosition
    /// `.spring`: the response precomputed, the spring's own initial velocity, its settling
    /// duration.
    let spring: SpringResponse
    let initialVelocity: Double
    let settle: Double

    private init(form: Form, bezier: CubicBezier = .unused, steps: Int = 0, stepPosition: TimingFunction.StepPosition = .end,
                 spring: SpringResponse = .unused, initialVelocity: Double = 0, settle: Double = 0) {
        self.form = form; self.bezier = bezier; self.steps = steps; self.stepPosition = stepPosition
        self.spring = spring; self.initialVelocity = initialVelocity; self.settle = settle
    }

    init(_ f: TimingFunction) {
        switch f {
        case .linear: self.init(form: .linear)
        case let .cubicBezier(x1, y1, x2, y2):
            if x1 == y1 && x2 == y2 { self.init(form: .linear) }
            else { self.init(form: .bezier, bezier: CubicBezier(x1, y1, x2, y2)) }
        case let .steps(n, p): self.init(form: .steps, steps: n, stepPosition: p)
        case .spring(let s):
            self.init(form: .spring, spring: SpringResponse(s), initialVelocity: s.initialVelocity,
                      settle: s.settlingDuration)
        }
    }

    static let linear = TimingCurve(.linear)

    var isLinear: Bool { form == .linear }

    @inline(__always)
    func progress(_ x: Double) -> Double {
        switch form {
        case .linear: return x
        case .bezier: return bezier.solve(x)
        case .steps: return stepped(x, steps, stepPosition)
        case .spring:
            if x >= 1 || settle <= 0 { return 1 }
            if x <= 0 { return 0 }
            // Spring.value(at:), with the response's constants computed once.
            let r = spring(max(0, x * settle))
            return 1 - r.y1 + initialVelocity * r.g
        }
    }

    /// CSS Easing Level 1 §"step easing function" (ignoring the before flag).
    private func stepped(_ x: Double, _ n: Int, _ position: TimingFunction.StepPosition) -> Double {
        guard x.isFinite else { return x > 0 ? 1 : 0 }
        var step = (x * Double(n)).rounded(.down)
        if position == .start || position == .both { step += 1 }
        if x >= 0 && step < 0 { step = 0 }
        let jumps: Double = switch position {
        case .start, .end: Double(n)
        case .both: Double(n + 1)
        case .none: Double(n - 1)
        }
        if x <= 1 && step > jumps { step = jumps }
        return step / jumps
    }
}

/// A CSS/CA cubic Bézier easing curve, solved for x to within 1e-7.
struct CubicBezier: Hashable, Sendable {
    let x1, y1, x2, y2: Double
    // x(s) = ((ax s + bx) s + cx) s, likewise y.
    let ax, bx, cx, ay, by, cy: Double
    /// Slopes used outside 0…1 (CSS Easing Level 1 §"cubic Bézier easing functions").
    let startSlope, endSlope: Double
    /// The curve parameter at x = i/16 for i = 0…15 (at x = 1 it is 1): where Newton's
    /// method starts, so that it usually converges in one step.
    private(set) var guesses = SIMD16<Double>()

    /// y(x) tabulated (`BezierTable`), shared by every curve with these control points;
    /// nil for a curve made untabulated, or when the process has tabulated its quota.
    private(set) var table: BezierTable? = nil

    /// `tabulated`: with the shared table (false: solved by Newton's method only).
    init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, tabulated: Bool = true) {
        self.x1 = x1; self.y1 = y1; self.x2 = x2; self.y2 = y2
        cx = 3 * x1; bx = 3 * (x2 - x1) - cx; ax = 1 - cx - bx
        cy = 3 * y1; by = 3 * (y2 - y1) - cy; ay = 1 - cy - by
        if x1 > 0 { startSlope = y1 / x1 }
        else if y1 == 0 && x2 > 0 { startSlope = y2 / x2 }
        else { startSlope = 0 }
        if x2 < 1 { endSlope = (y2 - 1) / (x2 - 1) }
        else if y2 == 1 && x1 < 1 { endSlope = (y1 - 1) / (x1 - 1) }
        else { endSlope = 0 }
        for i in 0..<16 {
            let x = Double(i) / 16
            guesses[i] = parameter(for: x, from: x)
        }
        if tabulated { table = BezierTable.shared(x1, y1, x2, y2) }
    }

    /// With the given table (tests: one built for the curve, whatever the shared cache holds).
    init(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, table: BezierTable) {
        self.init(x1, y1, x2, y2, tabulated: false)
        self.table = table
    }

    @inline(__always) func x(_ s: Double) -> Double { ((ax * s + bx) * s + cx) * s }
    @inline(__always) func y(_ s: Double) -> Double { ((ay * s + by) * s + cy) * s }
    @inline(__always) func dx(_ s: Double) -> Double { (3 * ax * s + 2 * bx) * s + cx }
    @inline(__always) func dy(_ s: Double) -> Double { (3 * ay * s + 2 * by) * s + cy }

    static let epsilon = 1e-7
    /// A placeholder for timing curves of other forms.
    static let unused = CubicBezier(0, 0, 1, 1, tabulated: false)

    /// y for a given x; outside 0…1 the curve continues along its end tangents. Inside,
    /// from the table where it has one (`BezierTable`: within 1e-10 of the exact curve),
    /// else solved to full precision where the table marks the piece; an untabulated curve
    /// is solved to 1e-7 in x by Newton's method.
    @inline(__always)
    func solve(_ x: Double) -> Double {
        if x < 0 { return startSlope * x }
        if x > 1 { return 1 + endSlope * (x - 1) }
        if !(x > 0) { return 0 }   // also NaN
        if x == 1 { return 1 }
        // Past the process's quota of tables, solved to full precision as well: a curve's
        // values never depend on how many other curves the process has seen.
        guard let table else { return y(exactParameter(for: x)) }
        if let v = table.value(x) { return v }
        return y(exactParameter(for: x))
    }

    /// The curve parameter s with x(s) = x to full precision: Newton's method polishing
    /// `parameter(for:)`, else bisection to the last bit (x(s) is monotonic on 0…1).
    func exactParameter(for x: Double) -> Double {
        var s = parameter(for: x)
        for _ in 0..<4 {
            let d = dx(s)
            guard abs(d) >= 1e-9 else { break }
            let next = s - (self.x(s) - x) / d
            guard next >= 0 && next <= 1, next != s else { break }
            s = next
        }
        if abs(self.x(s) - x) <= 1e-15 { return s }
        var low = 0.0, high = 1.0
        for _ in 0..<80 {
            let mid = (low + high) / 2
            if self.x(mid) < x { low = mid } else { high = mid }
        }
        return (low + high) / 2
    }

    /// The curve parameter s with x(s) = x: Newton's method from the tabulated guess, then
    /// bisection if it fails (x(s) is monotonic on 0…1 because x1, x2 ∈ 0…1).
    @inline(__always)
    func parameter(for x: Double) -> Double {
        let f = x > 0 ? min(x, 1) * 16 : 0   // NaN → 0
        let i = min(Int(f), 15)
        let s0 = guesses[i], s1 = i < 15 ? guesses[i + 1] : 1
        return parameter(for: x, from: s0 + (s1 - s0) * (f - Double(i)))
    }

    func parameter(for x: Double, from guess: Double) -> Double {
        Self.parameter(ax, bx, cx, for: x, from: guess)
    }

    /// The solver on x's coefficients only, so that a call passes three numbers instead of
    /// copying the curve (its guess table makes it ~200 bytes). `x(s)`, `dx(s)` inlined.
    static func parameter(_ ax: Double, _ bx: Double, _ cx: Double, for x: Double, from guess: Double) -> Double {
        @inline(__always) func xOf(_ s: Double) -> Double { ((ax * s + bx) * s + cx) * s }
        @inline(__always) func dx(_ s: Double) -> Double { (3 * ax * s + 2 * bx) * s + cx }
        var s = guess
        for _ in 0..<8 {
            let err = xOf(s) - x
            if abs(err) < Self.epsilon { return s }
            let d = dx(s)
            if abs(d) < 1e-9 { break }
            s -= err / d
            if s < 0 || s > 1 { break }
        }
        var low = 0.0, high = 1.0
        s = x
        for _ in 0..<64 {
            let v = xOf(s)
            if abs(v - x) < Self.epsilon { return s }
            if v < x { low = s } else { high = s }
            s = (low + high) / 2
        }
        return s
    }
}
