import Foundation
@testable import LaminaModel
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
}
