import Foundation
@testable import LaminaAnimation
import Testing

// Bézier values are derived from the curve's parametric form at s = 0.5:
// x(½) = (3/8)(x1 + x2) + 1/8, y(½) = (3/8)(y1 + y2) + 1/8; so progress(x(½)) = y(½).
// Extrapolation follows CSS Easing Level 1: below 0 the start tangent (y1/x1, or y2/x2 when
// x1 = 0 and y1 = 0), above 1 the end tangent ((y2 − 1)/(x2 − 1), or (y1 − 1)/(x1 − 1) when
// x2 = 1 and y2 = 1).

@Test func namedCurvesAtTheParametricMidpoint() {
    // easeIn (0.42, 0, 1, 1): x(½) = 3/8·1.42 + 1/8 = 0.6575, y(½) = 3/8 + 1/8 = 0.5.
    #expect(abs(TimingFunction.easeIn.progress(0.6575) - 0.5) < 1e-6)
    // default (0.25, 0.1, 0.25, 1): x(½) = 0.3125, y(½) = 3/8·1.1 + 1/8 = 0.5375.
    #expect(abs(TimingFunction.default.progress(0.3125) - 0.5375) < 1e-6)
    // easeInEaseOut is point-symmetric about (½, ½).
    #expect(abs(TimingFunction.easeInEaseOut.progress(0.5) - 0.5) < 1e-7)
    // easeOut (0, 0, 0.58, 1): x(½) = 3/8·0.58 + 1/8 = 0.3425, y(½) = 0.5.
    #expect(abs(TimingFunction.easeOut.progress(0.3425) - 0.5) < 1e-6)
    #expect(TimingFunction.linear.progress(0.37) == 0.37)
    #expect(TimingFunction.easeIn.progress(0) == 0 && TimingFunction.easeIn.progress(1) == 1)
}

@Test func bezierSolvedToOneTenMillionth() {
    // Every x on a fine grid: the solved parameter reproduces x within 1e-7, including a
    // steep curve where Newton's method alone struggles (x1 = x2 = 1 → flat start in x).
    for (x1, y1, x2, y2) in [(0.42, 0.0, 1.0, 1.0), (1.0, 0.0, 1.0, 0.0), (0.0, 1.0, 0.0, 1.0), (0.5, -2, 0.5, 3)] {
        let b = CubicBezier(x1, y1, x2, y2)
        for i in 1..<1000 {
            let x = Double(i) / 1000
            #expect(abs(b.x(b.parameter(for: x)) - x) < 1e-7)
        }
    }
}

@Test func bezierExtrapolatesAlongEndTangents() {
    // easeIn: start tangent y1/x1 = 0 → 0 below; end: x2 = 1, y2 = 1 → (y1 − 1)/(x1 − 1) = 1/0.58.
    #expect(TimingFunction.easeIn.progress(-0.5) == 0)
    #expect(abs(TimingFunction.easeIn.progress(1.5) - (1 + 0.5 / 0.58)) < 1e-12)
    // easeOut: x1 = 0, y1 = 0 → y2/x2 = 1/0.58 below; end (1 − 1)/(0.58 − 1) = 0.
    #expect(abs(TimingFunction.easeOut.progress(-0.5) - (-0.5 / 0.58)) < 1e-12)
    #expect(TimingFunction.easeOut.progress(1.5) == 1)
    // (0.5, −0.5, 0.5, 1.5): slopes −1 at both ends.
    let f = TimingFunction.cubicBezier(0.5, -0.5, 0.5, 1.5)
    #expect(abs(f.progress(-0.2) - 0.2) < 1e-12)
    #expect(abs(f.progress(1.2) - 0.8) < 1e-12)
}

@Test func stepsFollowCSS() {
    // CSS: step = ⌊x·n⌋ (+1 for start/both), jumps n (start, end), n+1 (both), n−1 (none).
    #expect(TimingFunction.steps(4, .end).progress(0.3) == 0.25)
    #expect(TimingFunction.steps(4, .end).progress(0) == 0)
    #expect(TimingFunction.steps(4, .end).progress(1) == 1)
    #expect(TimingFunction.steps(4, .start).progress(0) == 0.25)
    #expect(TimingFunction.steps(4, .start).progress(0.3) == 0.5)
    #expect(TimingFunction.steps(5, .none).progress(0.3) == 0.25)   // ⌊1.5⌋ = 1 of 4 jumps
    #expect(TimingFunction.steps(5, .none).progress(1) == 1)
    #expect(TimingFunction.steps(3, .both).progress(0) == 0.25)
    #expect(TimingFunction.steps(3, .both).progress(0.5) == 0.5)    // ⌊1.5⌋ + 1 = 2 of 4
    #expect(TimingFunction.steps(3, .both).progress(1) == 1)
}

@Test func springPresetsAreSwiftUIs() {
    // smooth = duration 0.5, bounce 0: k = (2π/0.5)² = 16π², ζ = 1, c = 4π·1/0.5 = 8π.
    #expect(abs(Spring.smooth.stiffness - 16 * .pi * .pi) < 1e-9)
    #expect(abs(Spring.smooth.damping - 8 * .pi) < 1e-9)
    // snappy bounce 0.15 → ζ = 0.85, c = 8π·0.85; bouncy 0.3 → ζ = 0.7.
    #expect(abs(Spring.snappy.damping - 8 * .pi * 0.85) < 1e-9)
    #expect(abs(Spring.bouncy.dampingRatio - 0.7) < 1e-12)
    // As curves they start at 0 and end at exactly 1.
    for f in [TimingFunction.smooth, .snappy, .bouncy] {
        #expect(f.progress(0) == 0 && f.progress(1) == 1)
    }
    // bouncy overshoots somewhere: ζ = 0.7 < 1.
    #expect((1..<100).contains { TimingFunction.bouncy.progress(Double($0) / 100) > 1 })
}

@Test func animationTimingFunctionEasesTheWholeIteration() throws {
    // easeIn at x = 0.6575 is 0.5 (above) → 0 → 10 ramp shows 5.
    let a = try compiled(ramp(AnimationTiming(duration: 1, timingFunction: .easeIn)))
    #expect(near(double(a, 0.6575), 5, 1e-5))
}
