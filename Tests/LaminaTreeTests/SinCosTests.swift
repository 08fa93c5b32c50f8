import Foundation
@testable import LaminaTree
import Testing
import TestSupport

/// `SinCos.sinCos` against libm's `sin` and `cos`: within 1 ulp of each (libm's are
/// correctly rounded almost always, fdlibm's kernels within 1 ulp of the exact value), on
/// random angles of every size the reduction handles, at and next to multiples of π/2
/// (where the reduction cancels), and the special values.
@Suite struct SinCosTests {
    func ulps(_ a: Double, _ b: Double) -> Double {
        if a == b { return 0 }
        return abs(a - b) / max(b.ulp, Double.leastNormalMagnitude)
    }

    @Test func withinOneUlpOfLibm() {
        var r = SeededRandom(seed: 0x51_C05)
        var worst = 0.0, differing = 0
        var angles: [Double] = []
        for _ in 0..<1_000_000 {
            let scale = [1.0, 4, 10, 100, 1e4, 99_999][r.below(6)]
            angles.append(r.uniform(-scale, scale))
        }
        for k in -2000...2000 {
            let a = Double(k) * Double.pi / 2
            angles += [a, a.nextUp, a.nextDown, a + 1e-9, a - 1e-12]
        }
        angles += [0, -0.0, 1e-300, -1e-300, Double.leastNonzeroMagnitude, 0.785398163397448279, 0.7853981633974484,
                   -2 * .pi, 3.5e4 * .pi, 99_999.9]
        for a in angles {
            let (s, c) = SinCos.sinCos(a)
            let e = max(ulps(s, sin(a)), ulps(c, cos(a)))
            if e > 0 { differing += 1 }
            worst = max(worst, e)
            #expect(e <= 1, "angle \(a): sin \(s) vs \(sin(a)), cos \(c) vs \(cos(a))")
        }
        print("sinCos vs libm: worst \(worst) ulp, \(differing) of \(angles.count) angles differ")
        // Beyond the reduction's range and for non-finite angles, libm answers.
        for a in [1e6, -3e9, 1e300] {
            #expect(SinCos.sinCos(a).sin == sin(a) && SinCos.sinCos(a).cos == cos(a))
        }
        for a in [Double.infinity, -Double.infinity, .nan] {
            #expect(SinCos.sinCos(a).sin.isNaN && SinCos.sinCos(a).cos.isNaN)
        }
        #expect(SinCos.sinCos(-0.0).sin.sign == .minus)
    }

    /// The two-lane `sinCos` gives the scalar one's bits (so it too is within 1 ulp of libm)
    /// on 10⁶ angles in random pairs (and within 1 ulp of libm): small ones (not reduced), up to the reduction's limit,
    /// next to multiples of π/2 (a second round: the pair goes to the scalar function),
    /// beyond the limit and not finite, and a small angle paired with a reduced one.
    @Test func pairsGiveTheScalarBits() {
        var r = SeededRandom(seed: 0x2_51C05)
        var angles: [Double] = []
        for _ in 0..<1_000_000 {
            let scale = [0.7, 1.0, 4, 2 * .pi, 10, 100, 1e4, 99_999][r.below(8)]
            angles.append(r.uniform(-scale, scale))
        }
        for k in -500...500 {
            let a = Double(k) * Double.pi / 2
            angles += [a, a.nextUp, a.nextDown, a + 1e-9, a - 1e-12, a + 1e-5]
        }
        angles += [0, -0.0, 1e-300, -1e-300, Double.leastNonzeroMagnitude, 0.785398163397448279, 0.7853981633974484,
                   -0.785398163397448279, 1e5, -1e5, 1e6, .infinity, -.infinity, .nan]
        for i in angles.indices.reversed() { angles.swapAt(i, r.below(i + 1)) }
        var mismatches = 0, worst = 0.0
        for i in stride(from: 0, to: angles.count - 1, by: 2) {
            let a = angles[i], b = angles[i + 1]
            let (s, c) = SinCos.sinCos(SIMD2(a, b))
            let x = SinCos.sinCos(a), y = SinCos.sinCos(b)
            let same = s.x.bitPattern == x.sin.bitPattern && c.x.bitPattern == x.cos.bitPattern
                && s.y.bitPattern == y.sin.bitPattern && c.y.bitPattern == y.cos.bitPattern
            if !same {
                mismatches += 1
                if mismatches <= 10 { Issue.record("(\(a), \(b)): \(s), \(c) vs \(x), \(y)") }
            }
            if a.isFinite { worst = max(worst, ulps(s.x, sin(a)), ulps(c.x, cos(a))) }
            if b.isFinite { worst = max(worst, ulps(s.y, sin(b)), ulps(c.y, cos(b))) }
        }
        #expect(mismatches == 0)
        #expect(worst <= 1)
    }
}
