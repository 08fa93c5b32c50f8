import Foundation

/// A damped harmonic oscillator as `CASpringAnimation` models it: a unit mass-spring-damper
/// moving from 0 (the from value) to 1 (the to value), solved in closed form for under-,
/// critically and over-damped motion (never integrated numerically).
///
/// With ω = √(k/m) and ζ = c / (2√(mk)) the displacement from the target, y(t), starts at
/// y(0) = 1 with y′(0) = −v (v = `initialVelocity`, in from–to distances per second,
/// toward the target when positive), and the position is 1 − y(t).
public struct Spring: Hashable, Sendable {
    public var mass: Double
    public var stiffness: Double
    public var damping: Double
    /// In from–to distances per second, as `CASpringAnimation.initialVelocity`.
    public var initialVelocity: Double

    /// `CASpringAnimation`'s parameters; its defaults are mass 1, stiffness 100, damping 10.
    public init(mass: Double = 1, stiffness: Double = 100, damping: Double = 10, initialVelocity: Double = 0) {
        self.mass = mass; self.stiffness = stiffness; self.damping = damping
        self.initialVelocity = initialVelocity
    }

    /// SwiftUI's `Spring(duration:bounce:)`: stiffness (2π/d)², damping ratio ζ = 1 − b for
    /// b ≥ 0 and 1/(1 + b) below, damping 4πζ/d, mass 1.
    public init(perceptualDuration d: Double, bounce b: Double, initialVelocity: Double = 0) {
        let zeta = b >= 0 ? 1 - b : 1 / (1 + b)
        self.init(mass: 1, stiffness: (2 * .pi / d) * (2 * .pi / d), damping: 4 * .pi * zeta / d,
                  initialVelocity: initialVelocity)
    }

    /// SwiftUI's `smooth` (duration 0.5, bounce 0), `snappy` (0.5, 0.15), `bouncy` (0.5, 0.3).
    public static let smooth = Spring(perceptualDuration: 0.5, bounce: 0)
    public static let snappy = Spring(perceptualDuration: 0.5, bounce: 0.15)
    public static let bouncy = Spring(perceptualDuration: 0.5, bounce: 0.3)

    /// ω = √(k/m), the undamped angular frequency.
    public var angularFrequency: Double { (stiffness / mass).squareRoot() }
    /// ζ = c / (2√(mk)); < 1 underdamped, 1 critical, > 1 overdamped.
    public var dampingRatio: Double { damping / (2 * (mass * stiffness).squareRoot()) }
    /// SwiftUI's duration: 2π/ω (the period of the undamped oscillation).
    public var perceptualDuration: Double { 2 * .pi / angularFrequency }
    /// SwiftUI's bounce: 1 − ζ for ζ ≤ 1, 1/ζ − 1 above (the inverse of the mapping).
    public var bounce: Double { let z = dampingRatio; return z <= 1 ? 1 - z : 1 / z - 1 }

    /// True when every parameter is finite, and mass, stiffness and damping > 0 (an undamped
    /// spring never settles: as a timing function its settling duration would be infinite).
    public var isValid: Bool {
        mass.isFinite && stiffness.isFinite && damping.isFinite && initialVelocity.isFinite
            && mass > 0 && stiffness > 0 && damping > 0
    }

    // MARK: Closed-form motion

    /// The two unit responses at time t: `y1` starts at 1 with zero velocity, `g` at 0
    /// with unit velocity; and their time derivatives. The motion of any spring with this
    /// ω, ζ is a linear combination of them.
    @inlinable
    func responses(_ t: Double) -> (y1: Double, g: Double, dy1: Double, dg: Double) {
        SpringResponse(self)(t)
    }

    /// The position at time t in from–to units: 0 at the start, 1 at rest; may overshoot.
    @inlinable public func value(at t: Double) -> Double {
        let r = responses(max(0, t))
        return 1 - r.y1 + initialVelocity * r.g
    }

    /// The velocity at time t in from–to distances per second.
    @inlinable public func velocity(at t: Double) -> Double {
        let r = responses(max(0, t))
        return -r.dy1 + initialVelocity * r.dg
    }

    // MARK: Settling

    /// The duration Core Animation gives this spring (`durationForEpsilon(0.001)`), as
    /// docs/scene-format.md states it: for ζ < 1 the time when the envelope
    /// e^(−ζωt)·(1 + |(ζω − v)/(ω√(1−ζ²))|) falls to ε; for ζ ≥ 1 the first multiple of
    /// 0.1 s from which the motion stays within ε of the target.
    public var settlingDuration: Double { settlingDuration(epsilon: 0.001) }

    public func settlingDuration(epsilon: Double) -> Double {
        guard isValid, epsilon > 0 else { return 0 }
        let w = angularFrequency, z = dampingRatio, v = initialVelocity
        if z < 1 {
            let wd = w * (1 - z * z).squareRoot()
            let envelope = 1 + abs((z * w - v) / wd)
            return max(0, log(envelope / epsilon) / (z * w))
        }
        // ζ ≥ 1: y(t) = A e^(r1 t) + B e^(r2 t) (or (1 + a t) e^(−ωt)) has at most one extremum
        // for t > 0, so sup over [t0, ∞) of |y| is max(|y(t0)|, |y(t_ext)| when t_ext > t0).
        let y: (Double) -> Double = { t in 1 - self.value(at: t) }
        var tExtremum = -1.0
        if z == 1 {
            let a = w - v
            if a < 0 { tExtremum = (a - w) / (a * w) }
        } else {
            let root = (z * z - 1).squareRoot()
            let r1 = -w * (z - root), r2 = -w * (z + root)
            let b = (-v - r1) / (r2 - r1), a = 1 - b
            let ratio = -b * r2 / (a * r1)
            if ratio > 0 { tExtremum = log(ratio) / (r1 - r2) }
        }
        let extremum = tExtremum > 0 ? abs(y(tExtremum)) : 0
        var k = 0
        while k < 1_000_000 {
            let t = Double(k) / 10
            let supAfter = tExtremum > t ? max(abs(y(t)), extremum) : abs(y(t))
            if supAfter < epsilon { return t }
            k += 1
        }
        return Double(k) / 10
    }

    // MARK: Retargeting

    /// The spring that continues motion that is at `position` with `velocity` (both in
    /// value units, e.g. points and points per second) toward `target`: same mass,
    /// stiffness and damping, `initialVelocity` re-expressed in the new from–to distance.
    /// Position and velocity stay continuous (for a zero distance the velocity cannot be
    /// expressed in from–to units and is dropped; use a velocity vector for that case, see
    /// `SpringAnimation.velocity`).
    public func retargeted(position: Double, velocity: Double, target: Double) -> Spring {
        var s = self
        let distance = target - position
        s.initialVelocity = distance != 0 ? velocity / distance : 0
        return s
    }
}

/// `Spring.responses` with everything that does not depend on t computed once: compiled
/// springs keep one, so that evaluating is two or three `exp`/`sin`/`cos` calls and a few
/// multiplications. The expressions are those of the closed form, grouped so that the
/// results are bit for bit the same as computing them at once.
@usableFromInline
struct SpringResponse: Hashable, Sendable {
    @usableFromInline enum Regime: Hashable, Sendable { case under, critical, over }
    @usableFromInline let regime: Regime
    // Underdamped: ωd, −ζω (decay rate), ζω, ζω/ωd. Critical: ω, −ω, −ω·ω.
    // Overdamped: r1, r2, c1, c2, c1·r1, c2·r2, r1 − r2.
    @usableFromInline let k0, k1, k2, k3, k4, k5, k6: Double

    @inlinable init(_ s: Spring) {
        let w = s.angularFrequency, z = s.dampingRatio
        if z < 1 {
            let wd = w * (1 - z * z).squareRoot()
            regime = .under
            k0 = wd; k1 = -z * w; k2 = z * w; k3 = z * w / wd; k4 = 0; k5 = 0; k6 = 0
        } else if z == 1 {
            regime = .critical
            k0 = w; k1 = -w; k2 = -w * w; k3 = 0; k4 = 0; k5 = 0; k6 = 0
        } else {
            let root = (z * z - 1).squareRoot()
            let r1 = -w * (z - root), r2 = -w * (z + root)
            // y1: C1 + C2 = 1, r1 C1 + r2 C2 = 0.
            let c2 = -r1 / (r2 - r1), c1 = 1 - c2
            regime = .over
            k0 = r1; k1 = r2; k2 = c1; k3 = c2; k4 = c1 * r1; k5 = c2 * r2; k6 = r1 - r2
        }
    }

    /// A placeholder for timing curves that are not springs.
    static let unused = SpringResponse(Spring())

    @inlinable @inline(__always)
    func callAsFunction(_ t: Double) -> (y1: Double, g: Double, dy1: Double, dg: Double) {
        switch regime {
        case .under:
            let wd = k0, zw = k2, a = k3
            let e = exp(k1 * t), c = cos(wd * t), s = sin(wd * t)
            let y1 = e * (c + a * s)
            let g = e * s / wd
            // d/dt of e·(c + a·s) with a = ζω/ωd: e·(−ζω(c + a s) − ωd s + a ωd c)
            let dy1 = e * (-zw * (c + a * s) - wd * s + zw * c)
            let dg = e * (c - a * s)
            return (y1, g, dy1, dg)
        case .critical:
            let w = k0
            let e = exp(k1 * t)
            return ((1 + w * t) * e, t * e, k2 * t * e, (1 - w * t) * e)
        case .over:
            let e1 = exp(k0 * t), e2 = exp(k1 * t)
            let g = (e1 - e2) / k6
            return (k2 * e1 + k3 * e2, g, k4 * e1 + k5 * e2, (k0 * e1 - k1 * e2) / k6)
        }
    }
}
