// `PreparedTiming.fraction(at:timeOffset:)` for two bindings at once, for the render
// thread's fast runs (10,000 animated layers are 30,000 fractions a frame). The scalar
// common case costs two divisions: ⌊local / cycle⌋, and the time within the cycle over the
// duration. Here the second is one two-lane division, and the first a multiplication by
// the prepared reciprocal where that provably floors to the same integer:
//
// With c⁻ = fl(1/cycle) (normal, so |c⁻ − 1/cycle| ≤ 2⁻⁵³/cycle) and x = local / cycle
// exactly, y = fl(local · c⁻) = x(1 + e₁)(1 + e₂) with |eᵢ| ≤ 2⁻⁵³, and the division's
// fl(x) = x(1 + e₃); so |fl(x) − y| ≤ x(3·2⁻⁵³ + 2⁻¹⁰⁶) < y · 2⁻⁵⁰ = margin. When
// n = ⌊y⌋ has y − n ≥ margin and (n + 1) − y > margin (both differences exact by
// Sterbenz for n ≥ 1; for n = 0, fl(x) ≥ 0 anyway and 1 − y is exact from ½ up), fl(x)
// lies in (n, n + 1) and ⌊fl(x)⌋ = n. Otherwise (y within about 2⁻⁵⁰ of an integer, or a
// lane outside the common case) that lane is the scalar function's. Everything after
// ⌊·⌋ is the scalar code's arithmetic lane by lane, so the answers are its bits
// (`PreparedTimingLanesTests` checks them against it, near integers too).

extension PreparedTiming {
    /// `fraction(at:timeOffset:)` of `p` at lane 0's time and offset and of `q` at lane 1's,
    /// with −1 for nil (no effect). Bit for bit the scalar function's answers. Through
    /// pointers: timings passed by value are copied to the stack for the scalar fallback's
    /// calls, and the lanes then read them back (a store-forwarding stall per pair).
    @inlinable @inline(__always)
    public static func fractions(_ p: UnsafePointer<PreparedTiming>, _ q: UnsafePointer<PreparedTiming>,
                                 at t: SIMD2<Double>, timeOffset o: SIMD2<Double>) -> SIMD2<Double> {
        if p.pointee.forward && q.pointee.forward {
            let rel = t - SIMD2(p.pointee.beginTime, q.pointee.beginTime)
            let a = rel * SIMD2(p.pointee.speed, q.pointee.speed)
            let local = a + o
            let active = SIMD2(p.pointee.active, q.pointee.active)
            let y = local * SIMD2(p.pointee.inverseCycle, q.pointee.inverseCycle)
            // ⌊y⌋ for 0 ≤ y < 2⁵¹: rounded to an integer (to nearest) by adding and taking
            // away 2⁵², then down where that went up. Both steps are exact.
            let big = SIMD2<Double>(repeating: 0x1p52)
            var n = (y + big) - big
            n.replace(with: n - 1, where: n .> y)
            let margin = y * 0x1p-50
            // The scalar common case (forward, 0 ≤ rel, rel·|speed| < active, 0 ≤ local <
            // active; `a` is then finite), and the reciprocal's floor provably the division's.
            let common = (rel .>= 0) .& (rel * SIMD2(p.pointee.absSpeed, q.pointee.absSpeed) .< active)
                .& (local .>= 0) .& (local .< active) .& (y .< 0x1p51)
                .& (y - n .>= margin) .& ((n + 1) - y .> margin)
            if all(common) {
                let cycle = SIMD2(p.pointee.cycle, q.pointee.cycle), duration = SIMD2(p.pointee.duration, q.pointee.duration)
                var within = local - n * cycle
                within.replace(with: 2 * duration - within, where: within .> SIMD2(p.pointee.reversesAbove, q.pointee.reversesAbove))
                within.replace(with: 0, where: 0 .>= within)                // max(within, 0)
                within.replace(with: duration, where: duration .< within)   // min(_, duration)
                return within / duration
            }
        }
        return SIMD2(p.pointee.fraction(at: t.x, timeOffset: o.x) ?? -1, q.pointee.fraction(at: t.y, timeOffset: o.y) ?? -1)
    }
}
