import LaminaAnimation
import Testing
import TestSupport

/// `PreparedTiming.fractions` (two bindings at once, the floor by a reciprocal where that is
/// provably the division's) against the scalar `fraction(at:timeOffset:)`: the same bits on
/// random timings and times, at and next to whole cycles (where the reciprocal's floor could
/// differ and the lane must take the division), and values worked out by hand.
@Suite struct PreparedTimingLanesTests {
    /// The scalar answer of both lanes, −1 for nil.
    func scalar(_ p: PreparedTiming, _ q: PreparedTiming, _ t: SIMD2<Double>, _ o: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(p.fraction(at: t.x, timeOffset: o.x) ?? -1, q.fraction(at: t.y, timeOffset: o.y) ?? -1)
    }

    /// `PreparedTiming.fractions` of two timings held by value.
    func lanes(_ p: PreparedTiming, _ q: PreparedTiming, _ t: SIMD2<Double>, _ o: SIMD2<Double>) -> SIMD2<Double> {
        withUnsafePointer(to: p) { a in withUnsafePointer(to: q) { b in PreparedTiming.fractions(a, b, at: t, timeOffset: o) } }
    }

    func expectSameBits(_ p: PreparedTiming, _ q: PreparedTiming, _ t: SIMD2<Double>, _ o: SIMD2<Double>,
                        sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let got = lanes(p, q, t, o), want = scalar(p, q, t, o)
        let same = got.x.bitPattern == want.x.bitPattern && got.y.bitPattern == want.y.bitPattern
        #expect(same, "t \(t), offsets \(o): \(got) vs \(want)", sourceLocation: sourceLocation)
        return same
    }

    func randomTiming(_ r: inout SeededRandom) -> PreparedTiming {
        let duration = [1.5, 1.2, 0.25, 0.1, 1.0 / 3, 49, 2.5, 7, r.uniform(0.01, 10), 0][r.below(10)]
        let repeats = [0, 1, 2.5, 3, .infinity, .infinity][r.below(6)]
        let speed = [1, 1, 1, 2, 0.5, -1, 0, r.uniform(0.1, 3)][r.below(8)]
        let fill = FillMode.allCases[r.below(FillMode.allCases.count)]
        return PreparedTiming(MediaTiming(beginTime: r.bool(0.3) ? r.uniform(-2, 2) : 0, duration: duration, speed: speed,
                                          repeatCount: repeats, autoreverses: r.bool(0.5), fillMode: fill))
    }

    @Test func sameBitsAsTheScalarFraction() {
        var r = SeededRandom(seed: 0x71_A1E5)
        var mismatches = 0
        for _ in 0..<200_000 {
            let p = randomTiming(&r), q = r.bool(0.3) ? p : randomTiming(&r)
            let t = SIMD2(r.uniform(-1, 20), r.uniform(-1, 20))
            let o = SIMD2(r.bool(0.5) ? r.uniform(0, 4000) : 0, r.bool(0.5) ? r.uniform(0, 4000) : 0)
            if !expectSameBits(p, q, t, o) { mismatches += 1; if mismatches > 10 { return } }
        }
    }

    /// Local times at and within a few ulps of whole cycles, where fl(local / cycle) may round
    /// up to the next integer while local · (1/cycle) stays below it (or the other way).
    @Test func sameBitsNextToWholeCycles() {
        var r = SeededRandom(seed: 0xC1C1E)
        var mismatches = 0
        for _ in 0..<100_000 {
            let duration = [0.1, 1.2, 1.5, 1.0 / 3, 0.7, 49, r.uniform(0.001, 100)][r.below(7)]
            let autoreverses = r.bool(0.5)
            let p = PreparedTiming(MediaTiming(duration: duration, repeatCount: .infinity, autoreverses: autoreverses))
            let cycle = autoreverses ? 2 * duration : duration
            func near() -> Double {
                var local = Double(r.below(2_000_000)) * cycle
                for _ in 0..<r.below(4) { local = r.bool(0.5) ? local.nextUp : local.nextDown }
                return max(local, 0)
            }
            // All in the offset (t − begin = 0) or all in the time: both reach `local`.
            let a = near(), b = near()
            let (t, o) = r.bool(0.5) ? (SIMD2(a, b), SIMD2<Double>(0, 0)) : (SIMD2<Double>(0, 0), SIMD2(a, b))
            if !expectSameBits(p, p, t, o) { mismatches += 1; if mismatches > 10 { return } }
        }
    }

    /// 1.5 s autoreversing forever: the fraction rises over 1.5 s and falls over the next.
    @Test func valuesByHand() {
        let p = PreparedTiming(MediaTiming(duration: 1.5, repeatCount: .infinity, autoreverses: true))
        let q = PreparedTiming(MediaTiming(duration: 2, speed: 2, timeOffset: 0, repeatCount: .infinity))
        let cases: [(Double, Double, Double, Double)] = [   // t for p, its fraction; t for q, its fraction
            (0, 0, 0, 0), (0.75, 0.5, 0.5, 0.5), (1.5, 1, 0.25, 0.25), (2.25, 0.5, 1, 0),
            (3, 0, 1.5, 0.5), (3.75, 0.5, 1001.75, 0.75), (3001.125, 0.75, 7.25, 0.25),
        ]
        for (tp, fp, tq, fq) in cases {
            #expect(lanes(p, q, SIMD2(tp, tq), SIMD2(0, 0)) == SIMD2(fp, fq),
                    "at \(tp), \(tq)")
        }
        // Before the begin without backwards fill: no effect (−1); offsets shift the time.
        let later = PreparedTiming(MediaTiming(beginTime: 5, duration: 1))
        #expect(lanes(later, p, SIMD2(4, 0), SIMD2(0, 0.75)) == SIMD2(-1, 0.5))
    }

    /// `timeScaled(s)` (layer time: a layer running at s × compositor time reads its
    /// animations in compositor time): `timeScaled(s).fraction(at: y)` is `fraction(at: s·y)`
    /// up to rounding, on random timings away from the edges of iterations and of the active
    /// interval (where rounding may pick the other side), and exactly by hand: duration 2,
    /// beginTime 0.5, at scale 4 and y = 0.375, s·y = 1.5 is 1 s in: ½.
    @Test func aTimeScaledTimingReadsTheFasterClock() {
        let hand = PreparedTiming(MediaTiming(beginTime: 0.5, duration: 2)).timeScaled(4)
        #expect(hand.fraction(at: 0.375) == 0.5)
        #expect(hand.fraction(at: 0.1) == nil)          // s·y = 0.4: before its begin (fill removed)
        var r = SeededRandom(seed: 0x5CA1ED)
        var checked = 0
        for _ in 0..<50_000 {
            let p = randomTiming(&r)
            let scale = [2, 0.5, 3, 0.25, r.uniform(0.05, 20)][r.below(5)]
            let y = r.uniform(-1, 20)
            let q = p.timeScaled(scale)
            let want = p.fraction(at: scale * y), got = q.fraction(at: y)
            // Near an edge (a fraction within 1e-6 of 0 or 1, or one side nil) rounding may
            // decide differently: those are not compared.
            guard let w = want, let g = got, min(w, 1 - w) > 1e-6, min(g, 1 - g) > 1e-6 else { continue }
            checked += 1
            #expect(abs(w - g) < 1e-9, "scale \(scale), y \(y): \(g) vs \(w)")
            if abs(w - g) >= 1e-9 { return }
        }
        #expect(checked > 10_000)
    }
}
