import Foundation
import LaminaAnimation
import LaminaGeometry
import Testing

// Closed forms (y = displacement from the target, starting at 1 with y′(0) = −v):
//   ζ < 1: y = e^(−ζωt)(cos ω_d t + ((ζω − v)/ω_d) sin ω_d t), ω_d = ω√(1 − ζ²)
//   ζ = 1: y = (1 + (ω − v)t) e^(−ωt)
//   ζ > 1: y = C1 e^(r1 t) + C2 e^(r2 t), r = −ω(ζ ∓ √(ζ² − 1)), C2 = (−v − r1)/(r2 − r1)
// position = 1 − y. These are evaluated here independently of the engine.

@Test func settlingDurationMatchesCoreAnimation() {
    // docs/scene-format.md: m 1, k 100, c 10 → 1.4727 s (= ln(1000·(1 + 5/√75)) / 5).
    let s = Spring(mass: 1, stiffness: 100, damping: 10)
    #expect(abs(s.settlingDuration - 1.4727) < 5e-5)
    #expect(abs(s.settlingDuration - log(1000 * (1 + 5 / 75.0.squareRoot())) / 5) < 1e-12)
    // Critically damped (c 20, ω 10): |1 + 10t|e^(−10t): 0.9 → 1.23e-3, 1.0 → 4.99e-4 → 1.0 s.
    #expect(Spring(mass: 1, stiffness: 100, damping: 20).settlingDuration == 1.0)
    // Overdamped (c 40, ζ 2): y ≈ 1.0774·e^(−2.679t): y(2.6) = 1.02e-3, y(2.7) = 7.8e-4 → 2.7 s.
    #expect(Spring(mass: 1, stiffness: 100, damping: 40).settlingDuration == 2.7)
}

@Test func closedFormMotionInAllThreeRegimes() {
    func under(_ t: Double) -> Double {   // m1 k100 c10 v2: ω 10, ζ 0.5
        let w = 10.0, z = 0.5, v = 2.0, wd = w * (1 - z * z).squareRoot()
        return 1 - exp(-z * w * t) * (cos(wd * t) + (z * w - v) / wd * sin(wd * t))
    }
    func critical(_ t: Double) -> Double { 1 - (1 + (10 - 2) * t) * exp(-10 * t) }   // c20 v2
    func over(_ t: Double) -> Double {     // c40 v2: ζ 2
        let r1 = -10 * (2 - 3.0.squareRoot()), r2 = -10 * (2 + 3.0.squareRoot())
        let c2 = (-2 - r1) / (r2 - r1)
        return 1 - ((1 - c2) * exp(r1 * t) + c2 * exp(r2 * t))
    }
    for t in [0.0, 0.05, 0.1, 0.3, 0.7, 1.5] {
        #expect(abs(Spring(stiffness: 100, damping: 10, initialVelocity: 2).value(at: t) - under(t)) < 1e-12)
        #expect(abs(Spring(stiffness: 100, damping: 20, initialVelocity: 2).value(at: t) - critical(t)) < 1e-12)
        #expect(abs(Spring(stiffness: 100, damping: 40, initialVelocity: 2).value(at: t) - over(t)) < 1e-12)
    }
    // Velocity at 0 is the initial velocity; elsewhere the derivative of position.
    for c in [10.0, 20, 40] {
        let s = Spring(stiffness: 100, damping: c, initialVelocity: 2)
        #expect(abs(s.velocity(at: 0) - 2) < 1e-12)
        let h = 1e-6, t = 0.2
        #expect(abs(s.velocity(at: t) - (s.value(at: t + h) - s.value(at: t - h)) / (2 * h)) < 1e-5)
    }
}

@Test func durationAndBounceRoundTrip() {
    // d 0.8, b 0.25: k = (2π/0.8)², ζ = 0.75, c = 4π·0.75/0.8.
    let s = Spring(perceptualDuration: 0.8, bounce: 0.25)
    #expect(abs(s.stiffness - pow(2 * .pi / 0.8, 2)) < 1e-9)
    #expect(abs(s.damping - 4 * .pi * 0.75 / 0.8) < 1e-9)
    #expect(s.mass == 1)
    for (d, b) in [(0.8, 0.25), (0.5, 0.0), (1.2, -0.3), (0.3, 0.9)] {
        let r = Spring(perceptualDuration: d, bounce: b)
        #expect(abs(r.perceptualDuration - d) < 1e-12)
        #expect(abs(r.bounce - b) < 1e-12)
    }
    // Negative bounce is overdamped (ζ = 1/(1 + b) = 1/0.7), not clamped.
    #expect(abs(Spring(perceptualDuration: 1, bounce: -0.3).dampingRatio - 1 / 0.7) < 1e-12)
    // CA parameters → SwiftUI's: m1 k100 c10 has d = 2π/10, ζ = 0.5 → bounce 0.5.
    let ca = Spring(mass: 1, stiffness: 100, damping: 10)
    #expect(abs(ca.perceptualDuration - 2 * .pi / 10) < 1e-12)
    #expect(abs(ca.bounce - 0.5) < 1e-12)
    let back = Spring(perceptualDuration: ca.perceptualDuration, bounce: ca.bounce)
    #expect(abs(back.stiffness - 100) < 1e-9 && abs(back.damping - 10) < 1e-9)
}

@Test func springAnimationDefaultsToItsSettlingDuration() throws {
    let a = try compiled(.spring(SpringAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                                 spring: Spring(mass: 1, stiffness: 100, damping: 10))))
    #expect(abs(a.endTime - 1.4727) < 5e-5)
    // Value = spring position: at 0.1 s, 1 − e^(−0.5)(cos 0.866 + (5/8.66) sin 0.866).
    let wd = 75.0.squareRoot()
    let expected = 1 - exp(-0.5) * (cos(wd * 0.1) + 5 / wd * sin(wd * 0.1))
    #expect(near(double(a, 0.1), expected, 1e-12))
}

@Test func retargetingKeepsPositionAndVelocityContinuous() throws {
    // A point spring from (0,0) to (100, 0), retargeted at 0.2 s toward (50, 80).
    let spring = Spring(mass: 1, stiffness: 170, damping: 15)
    let first = try compiled(.spring(SpringAnimation(keyPath: "position", from: .point(.zero),
                                                     to: .point(Point(100, 0)), spring: spring)))
    let t0 = 0.2
    let state = try #require(first.springState(forKeyPathAt: 0, at: t0, underlying: .point(.zero)))
    guard case .point(let p0) = state.value, case .point(let v0)? = state.velocity else {
        Issue.record("expected a point state"); return
    }
    // The state agrees with the first animation's own finite difference.
    func position(_ c: CompiledAnimation, _ t: Double) -> Point {
        guard case .point(let p)? = c.value(forKeyPathAt: 0, at: t, underlying: .point(.zero)) else { return Point(.nan, .nan) }
        return p
    }
    let h = 1e-6
    let fd0 = (position(first, t0 + h) - position(first, t0 - h)) / (2 * h)
    #expect(near(v0, fd0, 1e-3))
    #expect(near(p0, position(first, t0)))

    let second = try compiled(.spring(SpringAnimation.retargeting(keyPath: "position", from: state,
                                                                  to: .point(Point(50, 80)), spring: spring)))
    // Same position at the hand-over, and the same velocity (one-sided difference).
    #expect(near(position(second, 0), p0, 1e-9))
    let fd1 = (position(second, h) - position(second, 0)) / h
    #expect(near(fd1, v0, 1e-2))
    // …and it ends at the new target.
    let settled = position(second, second.endTime - 1e-9)   // within 0.001 of the distance (≈ 94 pt)
    #expect(near(settled, Point(50, 80), 0.2))

    // Scalar retargeting keeps the from–to velocity: v / (target − position).
    let r = spring.retargeted(position: 30, velocity: 120, target: 90)
    #expect(abs(r.initialVelocity - 2) < 1e-12)
}
