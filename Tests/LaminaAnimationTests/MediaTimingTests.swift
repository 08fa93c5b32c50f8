import LaminaAnimation
import Testing

// Expected values follow CAMediaTiming as docs/scene-format.md and MediaTiming's doc state:
// active duration AD = max(repeatCount, 1)·D (×2 when autoreversing); local time
// L = (t − beginTime)·speed + timeOffset; iteration i = ⌊L / cycle⌋, cycle = D (2D when
// autoreversing), the second half of an autoreversing cycle played backward. The animation
// is `ramp`: opacity = 10 × linear progress, so a value of 10·(time within iteration)/D.

struct FillCase: CustomTestStringConvertible, Sendable {
    var fill: FillMode
    var autoreverses: Bool
    var repeatCount: Double
    var testDescription: String { "\(fill) autoreverses=\(autoreverses) repeatCount=\(repeatCount)" }
}

let fillCases: [FillCase] = FillMode.allCases.flatMap { fill in
    [false, true].flatMap { ar in [0.0, 2, 1.5].map { FillCase(fill: fill, autoreverses: ar, repeatCount: $0) } }
}

@Test("fillMode × autoreverses × repeatCount, before, during and after", arguments: fillCases)
func fillMatrix(_ c: FillCase) throws {
    // D = 1, beginTime = 1 (in the future when added at 0).
    let anim = try compiled(ramp(AnimationTiming(beginTime: 1, duration: 1, repeatCount: c.repeatCount,
                                                 autoreverses: c.autoreverses, fillMode: c.fill)))
    // AD: once = 1, 2 repeats = 2, 1.5 repeats = 1.5; doubled when autoreversing.
    let ad = max(c.repeatCount, 1) * (c.autoreverses ? 2 : 1)
    #expect(near(anim.endTime, 1 + ad))

    let fillsBack = c.fill == .backwards || c.fill == .both
    let fillsFwd = c.fill == .forwards || c.fill == .both
    // Before (t = 0.5): backwards fill shows the value at local time 0 → 0.
    #expect(near(double(anim, 0.5), fillsBack ? 0 : nil))
    #expect(anim.state(at: 0.5).phase == .before)
    // Early in the interval (t = 1.25): L = 0.25 → 2.5 in every case.
    #expect(near(double(anim, 1.25), 2.5))
    #expect(anim.state(at: 1.25).phase == .active)
    // Late in the interval (t = 1 + AD − 0.25), L = AD − 0.25:
    //   once: 0.75 → 7.5; reversing: 1.75 in a 2 s cycle → 2 − 1.75 = 0.25 → 2.5
    //   2×:   1.75 → i=1, 0.75 → 7.5; reversing: 3.75 → i=1, 1.75 → 0.25 → 2.5
    //   1.5×: 1.25 → i=1, 0.25 → 2.5; reversing: 2.75 → i=1, 0.75 → 7.5
    let late: Double = switch (c.repeatCount, c.autoreverses) {
    case (0, false), (2, false), (1.5, true): 7.5
    default: 2.5
    }
    #expect(near(double(anim, 1 + ad - 0.25), late, 1e-9))
    // After (t = 1 + AD + 1): forwards fill holds L = AD:
    //   whole iterations end at 10 (forward) or 0 (reversed back); 1.5× ends halfway → 5,
    //   reversing 1.5× ends at the end of the forward half of iteration 1 → 10.
    let end: Double = switch (c.repeatCount, c.autoreverses) {
    case (1.5, false): 5
    case (1.5, true): 10
    case (_, true): 0
    default: 10
    }
    #expect(near(double(anim, 1 + ad + 1), fillsFwd ? end : nil))
    #expect(anim.state(at: 1 + ad + 1).phase == .after)
    #expect(anim.isFinished(at: 1 + ad))
    #expect(!anim.isFinished(at: 1 + ad - 0.001))
}

@Test func beginTimeInThePastStartsPartway() throws {
    // beginTime −0.5: at t = 0, L = 0.5 → 5; ends at −0.5 + 1 = 0.5.
    let a = try compiled(ramp(AnimationTiming(beginTime: -0.5, duration: 1)))
    #expect(near(double(a, 0), 5))
    #expect(near(a.endTime, 0.5))
    #expect(double(a, 0.6) == nil)
}

@Test func beginTimeInTheFutureWaits() throws {
    let a = try compiled(ramp(AnimationTiming(beginTime: 2, duration: 1)))
    #expect(double(a, 1.9) == nil)         // fill removed: no effect before
    #expect(near(double(a, 2.5), 5))        // L = 0.5
    #expect(near(a.endTime, 3))
}

@Test func speedTwoRunsTwiceAsFast() throws {
    // L = 2t: t = 0.2 → 0.4 → 4; active interval [0, 0.5).
    let a = try compiled(ramp(AnimationTiming(duration: 1, fillMode: .forwards, speed: 2)))
    #expect(near(double(a, 0.2), 4))
    #expect(near(a.endTime, 0.5))
    #expect(near(double(a, 0.7), 10))
}

@Test func negativeSpeedPlaysBackward() throws {
    // speed −1: a = AD + (t − beginTime)·speed = 1 − t: t = 0.25 → 0.75 → 7.5.
    let a = try compiled(ramp(AnimationTiming(duration: 1, fillMode: .both, speed: -1)))
    #expect(near(double(a, 0.25), 7.5))
    #expect(near(a.endTime, 1))
    // Forwards fill holds the state at the end of the interval in parent time: L = 0 → 0.
    #expect(near(double(a, 2), 0))
    // Backwards fill holds the state at its start: L = AD → 10.
    let b = try compiled(ramp(AnimationTiming(beginTime: 1, duration: 1, fillMode: .both, speed: -1)))
    #expect(near(double(b, 0.5), 10))
}

@Test func speedZeroPausesAndTimeOffsetSeeks() throws {
    // Paused at timeOffset 0.3: L = 0.3 → 3 at every time from beginTime on; never ends.
    let a = try compiled(ramp(AnimationTiming(duration: 1, speed: 0, timeOffset: 0.3)))
    #expect(near(double(a, 0), 3))
    #expect(near(double(a, 100), 3))
    #expect(a.endTime == .infinity)
    // Seeking to another offset: 0.6 → 6; to the end (1) → 10.
    #expect(near(double(try compiled(ramp(AnimationTiming(duration: 1, speed: 0, timeOffset: 0.6))), 5), 6))
    #expect(near(double(try compiled(ramp(AnimationTiming(duration: 1, speed: 0, timeOffset: 1))), 5), 10))
}

@Test func timeOffsetStartsPartwayAndWraps() throws {
    // CA: with timeOffset 0.5 a 1 s animation starts at its middle, runs to the end, wraps
    // to the start and ends at its middle. t = 0.25 → L = 0.75 → 7.5; t = 0.75 → L = 1.25
    // wraps to 0.25 → 2.5. Active interval still 1 s.
    let a = try compiled(ramp(AnimationTiming(duration: 1, timeOffset: 0.5)))
    #expect(near(double(a, 0.25), 7.5))
    #expect(near(double(a, 0.75), 2.5))
    #expect(near(a.endTime, 1))
}

@Test func infiniteRepeatNeverEnds() throws {
    let a = try compiled(ramp(AnimationTiming(duration: 1, repeatCount: .infinity)))
    #expect(a.endTime == .infinity)
    #expect(near(double(a, 1_000_000.25), 2.5, 1e-6))   // iteration 10⁶, L mod 1 = 0.25
}

@Test func repeatDurationBoundsTheActiveTime() throws {
    // repeatDuration 2.5 with D = 1: ends at 2.5, at 2.25 → iteration 2, 0.25 → 2.5;
    // forwards fill at L = 2.5 → 5.
    let a = try compiled(ramp(AnimationTiming(duration: 1, repeatDuration: 2.5, fillMode: .forwards)))
    #expect(near(a.endTime, 2.5))
    #expect(near(double(a, 2.25), 2.5))
    #expect(near(double(a, 3), 5))
}

@Test func groupChildrenRunInGroupTimeAndAreClipped() throws {
    // Group begins at 1, lasts 2; child begins 0.5 into it and lasts 1 (ends at group 1.5).
    let child = ramp(AnimationTiming(beginTime: 0.5, duration: 1))
    let g = try compiled(.group(AnimationGroup(animations: [child], timing: AnimationTiming(beginTime: 1, duration: 2))))
    #expect(double(g, 1.25) == nil)          // group local 0.25: child not begun
    #expect(near(double(g, 1.75), 2.5))      // group 0.75 → child 0.25
    #expect(double(g, 2.6) == nil)           // group 1.6: child ended, fill removed
    #expect(near(g.endTime, 3))

    // A child longer than its group is cut at the group's end.
    let long = ramp(AnimationTiming(duration: 5, fillMode: .forwards))
    let g2 = try compiled(.group(AnimationGroup(animations: [long], timing: AnimationTiming(duration: 2))))
    #expect(near(double(g2, 1), 2))          // child 1/5 → 2
    #expect(double(g2, 2.5) == nil)          // group ended without fill
    // …and with the group filling forwards, the child is frozen at group time 2 → 4.
    let g3 = try compiled(.group(AnimationGroup(animations: [long],
                                                timing: AnimationTiming(duration: 2, fillMode: .forwards))))
    #expect(near(double(g3, 9), 4))

    // A repeating group replays its children: second iteration, group 0.75 → child 0.25.
    let g4 = try compiled(.group(AnimationGroup(animations: [child],
                                                timing: AnimationTiming(beginTime: 1, duration: 2, repeatCount: 2))))
    #expect(near(double(g4, 1 + 2 + 0.75), 2.5))
    #expect(near(g4.endTime, 5))
}

@Test func zeroDurationJumpsToTheEnd() throws {
    let a = try compiled(ramp(AnimationTiming(duration: 0, fillMode: .forwards)))
    #expect(near(double(a, 0), 10))
    #expect(a.endTime == 0)
}

@Test func evaluationNeverTraps() throws {
    let a = try compiled(ramp(AnimationTiming(duration: 1, repeatCount: .infinity, autoreverses: true,
                                              fillMode: .both, speed: -3, timeOffset: 7)))
    for t in [-Double.infinity, -1e300, -1, 0, 1e-300, 0.5, 1e300, .infinity, .nan] {
        if let v = double(a, t) { #expect(v.isFinite) }
    }
    #expect(a.value(forKeyPathAt: 5, at: 0, underlying: .double(0)) == nil)
    #expect(a.value(forKeyPathAt: -1, at: 0, underlying: .double(0)) == nil)
}
