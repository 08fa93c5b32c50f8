// Sorting vertices by (y, x) for the sweeps (`MonotoneSweep`): a bucket
// sort when y spreads evenly, else a natural merge sort of the contours' monotone runs.

/// Writes into `order` the indices of `P[0 ..< n]` sorted by (y, x); false when two points
/// are equal. A bucket sort on y when the y values spread evenly enough (`bucketSortVertices`),
/// else a natural merge sort.
///
/// `yRange`, when given, holds (at least) the smallest and largest y.
func sortVertices(_ P: UnsafePointer<Point>, _ n: Int, _ order: UnsafeMutablePointer<Int32>,
                  yRange: (Double, Double)? = nil) -> Bool {
    if n >= 16, let sorted = bucketSortVertices(P, n, order, yRange: yRange) { return sorted }
    return mergeSortVertices(P, n, order)
}

/// Bucket sort by y: n buckets over [min y, max y] (the bucket is a monotone function of y,
/// since rounded subtraction and multiplication by a positive constant are monotone), one
/// counting pass, one scatter, then insertion sort, which only moves items within their
/// bucket. nil — the caller merge-sorts — when some bucket holds more than 32 items (an
/// uneven distribution would make the insertion sort quadratic).
func bucketSortVertices(_ P: UnsafePointer<Point>, _ n: Int, _ order: UnsafeMutablePointer<Int32>,
                        yRange: (Double, Double)? = nil) -> Bool? {
    var lo: Double, hi: Double
    if let (l, h) = yRange { lo = l; hi = h } else {
        lo = P[0].y; hi = lo
        for i in 1 ..< n {
            let y = P[i].y
            lo = y < lo ? y : lo
            hi = y > hi ? y : hi
        }
    }
    let range = hi - lo
    guard range > 0, range.isFinite else { return nil }
    let scale = Double(n) / range
    guard scale.isFinite, scale > 0 else { return nil }
    // SAFETY: n + 2 bucket starts and n bucket numbers, released before returning.
    let start = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * n + 2)
    defer { start.deallocate() }
    let bucket = start + (n + 2)
    start.initialize(repeating: 0, count: n + 2)
    for i in 0 ..< n {
        // t + 2^52 rounds t to an integer in the low bits (0 ≤ t ≤ n·(1 + ε) < 2^31), monotonically:
        // buckets 0 ... n.
        let t = (P[i].y - lo) * scale + 0x1p52
        let b = Int(truncatingIfNeeded: t.bitPattern & 0xFFFF_FFFF)
        bucket[i] = Int32(truncatingIfNeeded: b)
        start[b + 1] &+= 1
    }
    var sum: Int32 = 0
    for b in 1 ..< n + 2 {
        let c = start[b]
        if c > 32 { return nil }
        sum &+= c
        start[b] = sum
    }
    for i in 0 ..< n {
        let b = Int(bucket[i])
        let pos = Int(start[b])
        start[b] = Int32(truncatingIfNeeded: pos + 1)
        order[pos] = Int32(truncatingIfNeeded: i)
    }
    // Insertion sort by (y, x); items only move within their bucket.
    var prev = P[Int(order[0])]
    for k in 1 ..< n {
        let vi = order[k]
        let v = P[Int(vi)]
        if v.y > prev.y || (v.y == prev.y && v.x > prev.x) { prev = v; continue }
        if v.y == prev.y && v.x == prev.x { return false }
        var j = k - 1
        order[k] = order[j]
        while j > 0 {
            let u = P[Int(order[j - 1])]
            if v.y > u.y || (v.y == u.y && v.x > u.x) { break }
            if v.y == u.y && v.x == u.x { return false }
            order[j] = order[j - 1]
            j -= 1
        }
        order[j] = vi
        // prev (the largest so far) stays.
    }
    return true
}

/// Natural merge sort version of `sortVertices`: flattened contours are made of long
/// monotone runs (a glyph's ellipse is two), which it finds and merges pairwise.
func mergeSortVertices(_ P: UnsafePointer<Point>, _ n: Int, _ order: UnsafeMutablePointer<Int32>) -> Bool {
    struct Item { var y: Double; var x: Double; var i: Int32 }
    @inline(__always) func less(_ u: Item, _ v: Item) -> Bool { u.y < v.y || (u.y == v.y && u.x < v.x) }
    if n == 0 { return true }
    // SAFETY: two buffers of n items and n + 1 run bounds, released before returning.
    let a = UnsafeMutablePointer<Item>.allocate(capacity: 2 * n)
    let bounds = UnsafeMutablePointer<Int>.allocate(capacity: n + 1)
    defer { a.deallocate(); bounds.deallocate() }
    var src = a, dst = a + n
    for i in 0 ..< n { src[i] = Item(y: P[i].y, x: P[i].x, i: Int32(i)) }
    // Runs: ascending, or strictly descending (reversed in place).
    var runs = 0
    var s = 0
    while s < n {
        bounds[runs] = s; runs += 1
        var e = s + 1
        if e < n && less(src[e], src[s]) {
            while e < n && less(src[e], src[e - 1]) { e += 1 }
            var i = s, j = e - 1
            while i < j { let t = src[i]; src[i] = src[j]; src[j] = t; i += 1; j -= 1 }
        } else {
            while e < n && !less(src[e], src[e - 1]) { e += 1 }
        }
        // Short runs grow to 8 by insertion.
        let target = min(n, s + 8)
        while e < target {
            let v = src[e]
            var j = e - 1
            while j >= s && less(v, src[j]) { src[j + 1] = src[j]; j -= 1 }
            src[j + 1] = v
            e += 1
        }
        s = e
    }
    bounds[runs] = n
    while runs > 1 {
        var out = 0
        var r = 0
        while r < runs {
            let lo = bounds[r], mid = bounds[min(r + 1, runs)], hi = bounds[min(r + 2, runs)]
            mergeRuns(src, into: dst, lo, mid, hi, by: less)
            bounds[out] = lo; out += 1
            r += 2
        }
        bounds[out] = n
        runs = out
        swap(&src, &dst)
    }
    for r in 0 ..< n {
        if r > 0 && src[r].y == src[r - 1].y && src[r].x == src[r - 1].x { return false }
        order[r] = src[r].i
    }
    return true
}

/// Merges the sorted runs `src[lo ..< mid]` and `src[mid ..< hi]` into `dst[lo ..< hi]`,
/// stably (of equal items, the first run's come first). Inlined, so `less` is too.
@inline(__always) func mergeRuns<T>(_ src: UnsafeMutablePointer<T>, into dst: UnsafeMutablePointer<T>,
                                    _ lo: Int, _ mid: Int, _ hi: Int, by less: (T, T) -> Bool) {
    var i = lo, j = mid, k = lo
    while i < mid && j < hi {
        if less(src[j], src[i]) { dst[k] = src[j]; j += 1 } else { dst[k] = src[i]; i += 1 }
        k += 1
    }
    while i < mid { dst[k] = src[i]; i += 1; k += 1 }
    while j < hi { dst[k] = src[j]; j += 1; k += 1 }
}
