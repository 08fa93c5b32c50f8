import Synchronization

// A cubic Bézier easing's y(x) tabulated once per curve, so that evaluating it costs a
// table read and a cubic polynomial instead of Newton's method on x(s) = x (a division
// per step, one to three steps) and then y(s).
//
// The table splits 0…1 into `intervals` equal pieces and keeps, for each, the quintic
// Hermite interpolant of y(x) between its ends: the values y(xᵢ), slopes dy/dx = y'/x' and
// second derivatives d²y/dx² = (y''x' − y'x'')/x'³ at the ends, from the curve parameter
// solved to full precision. Its error on a piece of width h is at most h⁶/46080 ·
// max|y⁽⁶⁾| (a cubic Hermite's is h⁴/384 · max|y⁗|: at 256 pieces it still needed the
// solve on 3–5 % of x for the named curves), far below the solver's 1e-7 wherever y(x) is
// smooth — but y(x) is not smooth where x'(s) vanishes (x1 = 0 or x2 = 1: easeIn, easeOut
// and easeInEaseOut each have such an end), and there the end pieces are poor. So every
// piece is checked when the table is built, against the full-precision solve at 15 points
// inside it, and a piece that is off by more than `tolerance` (1e-9) anywhere is marked
// (NaN): evaluating there solves the curve instead, to full precision. With 128 pieces the
// named curves solve 0–2 pieces of 128 (the ends where x' = 0). `BezierTableTests` checks
// the result against an independent solve on a dense grid of every named curve and several
// custom ones (worst error 4e-10 for the named curves, 9e-10 for the custom ones).
//
// Tables are shared by every curve with the same control points and live for the process:
// a curve holds a plain pointer to its table (no reference counting when a curve is copied
// or evaluated, so `CompiledAnimation.Node` stays plain data). At most `capacity` distinct
// curves get one (8 KiB each, 4 MiB at most; Core Animation's four named curves always do;
// a Lottie file brings dozens of distinct easings); later distinct curves are solved by
// Newton's method polished to full precision (`CubicBezier.exactParameter`), so the values
// a curve gives never depend on how many curves came before it (to within `tolerance`).

/// The tabulated y(x) of one cubic Bézier: `intervals` pieces, each the coefficients
/// c0…c5 (lanes 0–5; 64 bytes, one cache line) of Σ cₖ·wᵏ in w = x·intervals − i ∈ [0, 1), or NaN in
/// c0 where the piece is solved instead. Immutable once built; never freed.
public struct BezierTable: Hashable, @unchecked Sendable {   // points at immutable memory that is never freed
    @usableFromInline let pieces: UnsafePointer<SIMD8<Double>>

    /// Pieces over 0…1 (a power of two, so that x · intervals and its fraction are exact).
    public static let intervals = 128
    /// The most a piece may differ from the full-precision solve at its check points.
    static let tolerance = 1e-9
    /// The most distinct curves with a table.
    static let capacity = 512

    /// y at `x` from the table, for 0 < x < 1; nil where the piece is marked (the caller
    /// solves the curve). Inlinable: the render thread's plain bindings call it in their
    /// loop, and `CubicBezier.solve` calls the same code, so both give the same bits.
    @inlinable @inline(__always)
    public func value(_ x: Double) -> Double? {
        let u = x * Double(Self.intervals)
        let i = Int(u)
        let w = u - Double(i)
        let c = pieces[i]
        guard !c[0].isNaN else { return nil }
        return Self.polynomial(c, w)
    }

    /// c0 + c1·w + … + c5·w⁵ in Estrin's form (three dependent steps, not Horner's five).
    @inlinable @inline(__always)
    static func polynomial(_ c: SIMD8<Double>, _ w: Double) -> Double {
        let w2 = w * w
        return (c[0] + c[1] * w) + w2 * ((c[2] + c[3] * w) + w2 * (c[4] + c[5] * w))
    }

    /// The table of the curve with these control points: the shared one, built now if it is
    /// the first time; nil when `capacity` distinct curves already have one.
    static func shared(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> BezierTable? {
        let key = SIMD4(x1, y1, x2, y2)
        if let known = cache.withLock({ $0[key] }) { return known }
        // Built outside the lock (tens of microseconds); a race builds it twice and keeps one.
        let built = build(CubicBezier(x1, y1, x2, y2, tabulated: false))
        return cache.withLock { tables in
            if let known = tables[key] { built.pieces.deallocate(); return known }
            guard tables.count < capacity else { built.pieces.deallocate(); return nil }
            tables[key] = built
            return built
        }
    }

    /// The named curves' tables are made with the cache, so that they always have one
    /// (other curves fill the rest of `capacity` first come, first served).
    private static let cache = Mutex<[SIMD4<Double>: BezierTable]>({   // protected by its own lock
        var tables: [SIMD4<Double>: BezierTable] = [:]
        for f in [TimingFunction.easeIn, .easeOut, .easeInEaseOut, .default] {
            guard case let .cubicBezier(x1, y1, x2, y2) = f else { continue }
            tables[SIMD4(x1, y1, x2, y2)] = build(CubicBezier(x1, y1, x2, y2, tabulated: false))
        }
        return tables
    }())

    /// The table of `b` (see the file's comment), in newly allocated memory.
    static func build(_ b: CubicBezier) -> BezierTable {
        let n = intervals
        let h = 1 / Double(n)
        // Knot values and derivatives in w (d/dw = h · d/dx); a knot where x'(s) is nearly 0
        // has none usable, and the pieces on either side are solved.
        var values = [Double](repeating: 0, count: n + 1)
        var slopes = [Double](repeating: 0, count: n + 1)
        var curvatures = [Double](repeating: 0, count: n + 1)
        var usable = [Bool](repeating: true, count: n + 1)
        for k in 0...n {
            let x = Double(k) * h
            let s = k == 0 ? 0 : k == n ? 1 : b.exactParameter(for: x)
            values[k] = k == 0 ? 0 : k == n ? 1 : b.y(s)
            let dx = b.dx(s), dy = b.dy(s)
            let ddx = 6 * b.ax * s + 2 * b.bx, ddy = 6 * b.ay * s + 2 * b.by
            if abs(dx) < 1e-6 { usable[k] = false; continue }
            slopes[k] = dy / dx * h
            curvatures[k] = (ddy * dx - dy * ddx) / (dx * dx * dx) * h * h
        }
        let pieces = UnsafeMutablePointer<SIMD8<Double>>.allocate(capacity: n)
        for i in 0..<n {
            let d = values[i + 1] - values[i]
            let v0 = slopes[i], v1 = slopes[i + 1], a0 = curvatures[i], a1 = curvatures[i + 1]
            var c = SIMD8<Double>(values[i], v0, a0 / 2,
                                  10 * d - 6 * v0 - 4 * v1 - 1.5 * a0 + 0.5 * a1,
                                  -15 * d + 8 * v0 + 7 * v1 + 1.5 * a0 - a1,
                                  6 * d - 3 * v0 - 3 * v1 - 0.5 * a0 + 0.5 * a1, 0, 0)
            if !usable[i] || !usable[i + 1] || !(0..<6).allSatisfy({ c[$0].isFinite }) {
                c[0] = .nan
            } else {
                for j in 1..<16 {
                    let w = Double(j) / 16
                    let x = (Double(i) + w) * h
                    let approx = polynomial(c, w)
                    if !(abs(approx - b.y(b.exactParameter(for: x))) <= tolerance) { c[0] = .nan; break }
                }
            }
            pieces[i] = c
        }
        return BezierTable(pieces: UnsafePointer(pieces))
    }

    /// How many pieces are solved rather than read (for tests and documentation).
    var markedPieces: Int { (0..<Self.intervals).count { pieces[$0][0].isNaN } }
}
