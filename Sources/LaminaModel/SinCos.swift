import Foundation

// The sine and cosine of one angle together, for the render thread's rotations (one per
// rotating layer per frame, `TransformComponent.rotationMatrix`): glibc's `sin` and `cos`
// are two calls of ~15 ns each here, and its `sincos` is not in the Glibc module.
//
// The algorithm is fdlibm's (Sun, 1993; FreeBSD's msun keeps it): reduce the angle by
// multiples of π/2 with π/2 split in parts so that the reduction is exact to well past a
// double (`__ieee754_rem_pio2`'s medium case, with its second and third rounds where the
// first one cancels), then the minimax polynomials of `__kernel_sin` and `__kernel_cos` on
// [−π/4, π/4], which carry the reduced angle's tail — evaluated in Estrin's form rather
// than fdlibm's Horner's, which halves the dependency chain per angle (10,000 rotating
// layers are 10,000 of these a frame; ~30 % faster). Both are within 1 ulp of the exact
// values (glibc's are correctly rounded almost always, so the two may differ by 1 ulp;
// `SinCosTests` checks ≤ 1 ulp against them over 10⁶ angles and at multiples of π/2).
// Angles beyond `limit` go to `sin` and `cos` (no layer turns 10⁵ radians a frame).

@usableFromInline package enum SinCos {
    /// Beyond this |x| the reduction's three rounds are no longer enough; libm answers.
    @usableFromInline package static let limit = 1e5

    // π/2 in parts: pio2_1 has 33 significant bits (n · pio2_1 is exact for n < 2²⁰), the
    // tails the rest (fdlibm's values).
    @usableFromInline package static let invpio2 = 6.36619772367581382433e-01
    @usableFromInline package static let pio2_1 = 1.57079632673412561417e+00
    @usableFromInline package static let pio2_1t = 6.07710050650619224932e-11
    @usableFromInline package static let pio2_2 = 6.07710050630396597660e-11
    @usableFromInline package static let pio2_2t = 2.02226624879595063154e-21
    @usableFromInline package static let pio2_3 = 2.02226624871116645580e-21
    @usableFromInline package static let pio2_3t = 8.47842766036889956997e-32

    /// (sin x, cos x).
    @inlinable @inline(__always)
    package static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        guard abs(x) < limit else { return (Foundation.sin(x), Foundation.cos(x)) }   // NaN too
        // n = x · 2/π rounded to nearest (ties to even: fdlibm rounds them away from zero,
        // and either is a valid reduction) by adding and taking away 1.5·2⁵², which is exact
        // for |x · 2/π| < 2⁵¹ and keeps the float→int→float round trip off the angle's chain.
        // Within π/4, n = 0, and the steps below leave x unreduced: r = x − 0 = x, w = 0,
        // y0 = x, the exponents equal, y1 = (x − x) − 0 = +0 — fdlibm's kernel(x, 0) without
        // a branch (which angles of layers turning out of phase would often mispredict).
        let rounded = (x * invpio2 + 0x1.8p52) - 0x1.8p52
        let n = abs(x) <= 0.785398163397448279 ? 0 : rounded   // π/4
        var r = x - n * pio2_1
        var w = n * pio2_1t
        var y0 = r - w
        // Biased exponents (`exponent` is a call): their difference is the exponents' for
        // normal numbers; a zero or subnormal y0 counts as cancelled (another round).
        @inline(__always) func exponent(_ v: Double) -> Int { Int((v.bitPattern >> 52) & 0x7ff) }
        let e = exponent(x)
        if e - exponent(y0) > 16 {
            // The first round cancelled many bits: a second (and maybe third) part of π/2.
            var t = r
            w = n * pio2_2
            r = t - w
            w = n * pio2_2t - ((t - r) - w)
            y0 = r - w
            if e - exponent(y0) > 49 {
                t = r
                w = n * pio2_3
                r = t - w
                w = n * pio2_3t - ((t - r) - w)
                y0 = r - w
            }
        }
        let y1 = (r - y0) - w
        let s = kernelSin(y0, y1), c = kernelCos(y0, y1)
        // (s, c), (c, −s), (−s, −c), (−c, s) for n mod 4 = 0…3 without branches (layers turn
        // out of phase, so a switch mispredicts often): swap for odd n; flip the sine's sign
        // bit where bit 1 of n is set, the cosine's where bit 1 of n + 1 is (exactly `-`).
        let q = Int64(n)
        let odd = q & 1 != 0
        let a = odd ? c : s, b = odd ? s : c
        return (Double(bitPattern: a.bitPattern ^ (UInt64(truncatingIfNeeded: q & 2) << 62)),
                Double(bitPattern: b.bitPattern ^ (UInt64(truncatingIfNeeded: (q + 1) & 2) << 62)))
    }

    /// sin(x + y) for |x| ≤ π/4, y the tail of x (fdlibm `__kernel_sin`).
    @inlinable @inline(__always)
    package static func kernelSin(_ x: Double, _ y: Double) -> Double {
        let s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03, s3 = -1.98412698298579493134e-04
        let s4 = 2.75573137070700676789e-06, s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10
        let z = x * x, v = z * x, z2 = z * z
        // Estrin's form (fdlibm's is Horner's: a 30-cycle chain; this one is 18).
        let r = (s2 + z * s3) + z2 * ((s4 + z * s5) + z2 * s6)
        return x - ((z * (0.5 * y - v * r) - y) - v * s1)
    }

    /// cos(x + y) for |x| ≤ π/4, y the tail of x (fdlibm `__kernel_cos`, FreeBSD's form).
    @inlinable @inline(__always)
    package static func kernelCos(_ x: Double, _ y: Double) -> Double {
        let c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03, c3 = 2.48015872894767294178e-05
        let c4 = -2.75573143513906633035e-07, c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11
        let z = x * x, z2 = z * z
        // Estrin's form, as in `kernelSin`.
        let r = z * (((c1 + z * c2) + z2 * (c3 + z * c4)) + (z2 * z2) * (c5 + z * c6))
        let hz = 0.5 * z
        let w = 1 - hz
        return w + (((1 - w) - hz) + (z * r - x * y))
    }
}
