/// Work bounded by what can be seen: a shape far larger than the device target (1e15 points
/// wide, a line 1e30 wide, a dash pattern of 1e27 dashes along it) is meshed only where it
/// can reach the visible window, with the same coverage there. See README.md, "Visible window".
///
/// The window is a rect in the path's local units, holding every visible pixel's centre (the
/// caller maps the device target back; `DrawListBuilder`). The tessellators grow it by
/// `margin` device pixels, which holds every visible pixel's footprint (at most two device
/// pixels, the coverage mesh's margin), so that coverage inside is exact.
enum VisibleWindow {
    /// Device pixels the window is grown by before anything is cut to it.
    static let margin = 4.0

    /// `poly` (closed, any orientation, any topology) clipped to `r` by Sutherland–Hodgman,
    /// one side at a time. The winding number of every point strictly inside `r` is kept:
    /// each step replaces a run of the polygon outside one side's half-plane by the chord
    /// along that side between where it left and came back; run and chord form a closed loop
    /// in the closed outer half-plane, which is convex and holds no inside point, so the loop
    /// winds 0 around every inside point. Nothing else changes.
    static func clip(_ poly: [Point], to r: Rect) -> [Point] {
        var p = poly
        p = clipSide(p) { $0.x >= r.minX } cut: { a, b in Point(r.minX, lerpY(a, b, x: r.minX)) }
        p = clipSide(p) { $0.x <= r.maxX } cut: { a, b in Point(r.maxX, lerpY(a, b, x: r.maxX)) }
        p = clipSide(p) { $0.y >= r.minY } cut: { a, b in Point(lerpX(a, b, y: r.minY), r.minY) }
        p = clipSide(p) { $0.y <= r.maxY } cut: { a, b in Point(lerpX(a, b, y: r.maxY), r.maxY) }
        return p.count >= 3 ? p : []
    }

    private static func clipSide(_ p: [Point], inside: (Point) -> Bool, cut: (Point, Point) -> Point) -> [Point] {
        guard let last = p.last else { return [] }
        var out: [Point] = []
        out.reserveCapacity(p.count + 2)
        var prev = last, prevIn = inside(last)
        for q in p {
            let qIn = inside(q)
            if qIn != prevIn { out.append(cut(prev, q)) }
            if qIn { out.append(q) }
            prev = q; prevIn = qIn
        }
        return out
    }

    /// y on the line through a and b at x (computed from the same ordered pair either way).
    private static func lerpY(_ a: Point, _ b: Point, x: Double) -> Double {
        let (p, q) = a.x <= b.x ? (a, b) : (b, a)
        return q.x == p.x ? p.y : p.y + (x - p.x) * (q.y - p.y) / (q.x - p.x)
    }

    private static func lerpX(_ a: Point, _ b: Point, y: Double) -> Double {
        let (p, q) = a.y <= b.y ? (a, b) : (b, a)
        return q.y == p.y ? p.x : p.x + (y - p.y) * (q.x - p.x) / (q.y - p.y)
    }

    /// The parameter range [t0, t1] ⊂ [0, 1] of the segment a → b inside `r` (Liang–Barsky),
    /// or nil.
    static func segmentRange(_ a: Point, _ b: Point, in r: Rect) -> (Double, Double)? {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - r.minX), (dx, r.maxX - a.x), (-dy, a.y - r.minY), (dy, r.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let t = q / p
                if p < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
                if t0 > t1 { return nil }
            }
        }
        return (t0, t1)
    }

    /// `r` grown by `d` on every side.
    static func grown(_ r: Rect, by d: Double) -> Rect {
        Rect(r.minX - d, r.minY - d, r.width + 2 * d, r.height + 2 * d)
    }

    /// Sorted, merged closed intervals.
    static func merged(_ v: [(Double, Double)]) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        for iv in v.sorted(by: { $0.0 < $1.0 }) {
            if let last = out.last, iv.0 <= last.1 { out[out.count - 1].1 = max(last.1, iv.1) } else { out.append(iv) }
        }
        return out
    }
}

extension StrokeTessellator {
    /// How far the stroke's pieces reach from the centerline: `body` across it (half the
    /// width), `cap` along it past a dash or subpath end (half the width for round and square
    /// caps; a square cap's corner is `body`·√2 away), `join` around a vertex (the miter tip:
    /// at most half the width × the miter limit; round and bevel joins: half the width).
    struct Reach {
        var body, cap, join: Double
        /// Every piece made from a centerline point lies within this distance of it.
        var all: Double { max(body * 2.0.squareRoot(), join) }
    }

    /// The global-distance intervals of the open run `r` whose centerline points lie in
    /// `window` grown by `reach` (per segment: the segment clipped to that rect). A cut at
    /// an interval's end is at distance ≥ `reach` from the window (or at the run's end), so
    /// the cap it adds and the part it removes, both within `reach.all` of the centerline,
    /// cannot reach it; a vertex near the window is inside both its segments' intervals, so
    /// it is never cut and keeps its join.
    static func nearIntervals(_ r: Run, window: Rect, reach: Double) -> [(Double, Double)] {
        let g = VisibleWindow.grown(window, by: reach)
        let p = r.points, d = r.distances
        if p.count == 1 { return g.containsClosed(p[0]) ? [(d[0], d[0])] : [] }
        var out: [(Double, Double)] = []
        for i in 0 ..< p.count - 1 {
            guard let (t0, t1) = VisibleWindow.segmentRange(p[i], p[i + 1], in: g) else { continue }
            let len = d[i + 1] - d[i]
            out.append((d[i] + t0 * len, t0 == 0 && t1 == 1 ? d[i + 1] : d[i] + t1 * len))
        }
        return VisibleWindow.merged(out)
    }

    /// The global-distance ranges of `r` where a dash, once it meets them, can draw inside
    /// `window`: per segment whose band (`reach.body` either side) meets the window, the
    /// window's projection on the segment grown by `reach.cap`; per vertex within
    /// `reach.join` of the window, the vertex (its join). A dash meeting none of them has no
    /// piece inside the window.
    static func dashRanges(_ r: Run, window w: Rect, reach: Reach) -> [(Double, Double)] {
        let p = r.points, d = r.distances
        if p.count == 1 { return [(d[0], d[0])] }
        let corners = [Point(w.minX, w.minY), Point(w.maxX, w.minY), Point(w.maxX, w.maxY), Point(w.minX, w.maxY)]
        let joins = VisibleWindow.grown(w, by: reach.join)
        var out: [(Double, Double)] = []
        for i in 0 ..< p.count - 1 {
            let a = p[i], len = d[i + 1] - d[i]
            let u = (p[i + 1] - a).normalized, n = u.perpendicular
            var smin = Double.infinity, smax = -Double.infinity, tmin = Double.infinity, tmax = -Double.infinity
            for c in corners {
                let v = c - a
                smin = min(smin, v.dot(u)); smax = max(smax, v.dot(u)); tmin = min(tmin, v.dot(n)); tmax = max(tmax, v.dot(n))
            }
            if tmin <= reach.body && tmax >= -reach.body {
                let lo = max(0, smin - reach.cap), hi = min(len, smax + reach.cap)
                if lo <= hi { out.append((d[i] + lo, d[i] + hi)) }
            }
            if i > 0 && joins.containsClosed(a) { out.append((d[i], d[i])) }
        }
        // Not merged: a range stays within one segment (see `visibleDashes`).
        return out.sorted { $0.0 < $1.0 }
    }

    /// The dash pattern's on-intervals (global distances) along the open run `r` that meet
    /// `ranges`, found from each range's start by the pattern's period (not by walking the
    /// dashes before it), with the same phase as walking from the run's start: offset
    /// (`phase` + distance from the start) modulo the period. Consecutive on-intervals whose
    /// gap is at most `mergeGap` are one (their caps close it). At most `budget` intervals.
    static func visibleDashes(_ r: Run, pattern: [Double], phase: Double, ranges: [(Double, Double)],
                              mergeGap: Double, budget: inout Int) -> [(Double, Double)] {
        guard let start = r.distances.first, let end = r.distances.last else { return [] }
        let period = pattern.reduce(0, +)
        var out: [(Double, Double)] = []
        let offGaps = stride(from: 1, to: pattern.count, by: 2).map { pattern[$0] }
        let solid = offGaps.allSatisfy { $0 <= mergeGap }
        for (a, b) in ranges {
            if budget <= 0 { break }
            // Pattern state at a: in entry `index`, `into` past its start.
            var off = (phase + (a - start)).truncatingRemainder(dividingBy: period)
            if off < 0 { off += period }
            var index = 0
            while index < pattern.count - 1 && off >= pattern[index] { off -= pattern[index]; index += 1 }
            var pos = a - off                    // start of entry `index`
            if index % 2 == 1 { pos += pattern[index]; index = (index + 1) % pattern.count }
            // Now `pos` is the start of on-entry `index` (the one holding a, or the next).
            if pos > b || pos > end { continue }
            if solid {
                // Every gap inside the range closes: one run from this dash's start to the end
                // of the last dash starting before b (the range lies in one segment, so no gap
                // in it holds a vertex); a dash starting at b itself is appended on its own.
                var last = pos + pattern[index]
                var q = pos, j = index
                if b > pos {
                    let k = max(0, ((b - pos) / period).rounded(.down) - 1)
                    q = pos + k * period
                    while q < b {
                        last = max(last, q + pattern[j])
                        let next = q + pattern[j] + pattern[(j + 1) % pattern.count]
                        if next <= q { break }
                        q = next
                        j = (j + 2) % pattern.count
                    }
                }
                append(&out, (max(start, pos), min(end, last)), mergeGap: mergeGap, vertices: r.distances)
                if q == b && q > pos { append(&out, (q, min(end, q + pattern[j])), mergeGap: mergeGap, vertices: r.distances) }
                budget -= 1
                continue
            }
            while pos <= b && pos <= end && budget > 0 {
                let on = pattern[index]
                append(&out, (max(start, pos), min(end, pos + on)), mergeGap: mergeGap, vertices: r.distances)
                budget -= 1
                let next = pos + on + pattern[(index + 1) % pattern.count]
                if next <= pos { break }   // below the resolution of the distances
                pos = next
                index = (index + 2) % pattern.count
            }
        }
        return out
    }

    /// Appends an on-interval, made one with the last when they overlap, or when the gap
    /// between them is at most `mergeGap` and holds no vertex (a vertex in a gap would get a
    /// join the dashes do not have).
    private static func append(_ out: inout [(Double, Double)], _ iv: (Double, Double), mergeGap: Double,
                               vertices: [Double]) {
        guard iv.0 <= iv.1 else { return }
        if let last = out.last, iv.0 >= last.0,
           iv.0 < last.1 || (iv.0 - last.1 <= mergeGap && !holdsVertex(vertices, last.1, iv.0)) {
            out[out.count - 1].1 = max(last.1, iv.1)
        } else {
            out.append(iv)
        }
    }

    /// Whether an interior vertex's distance (not the first or last) lies in [a, b].
    private static func holdsVertex(_ d: [Double], _ a: Double, _ b: Double) -> Bool {
        guard d.count > 2 else { return false }
        var lo = 1, hi = d.count - 1          // first index in 1..<count-1 with d ≥ a
        while lo < hi { let m = (lo + hi) / 2; if d[m] < a { lo = m + 1 } else { hi = m } }
        return lo < d.count - 1 && d[lo] <= b
    }

    /// The pieces of `runs` that can draw inside `window` (local units, already grown by the
    /// margin), dashed and trimmed as `build` does without a window; see README.md.
    ///
    /// Dashes finer than a quarter device pixel (period × scale ≤ 1/4) that would be more
    /// than `maxDashes` in the window are drawn as the solid stroke with `coverage` set to the
    /// pattern's duty cycle (each dash's on-length and caps over the period, at most 1): a
    /// pixel spans four periods or more, so its exact coverage is within a period's share of
    /// that. Coarser ones past the budget are not drawn (as without a window).
    static func visibleRuns(_ runs: [Run], window: Rect, halfWidth h: Double, scale: Double, style: StrokeStyle,
                            pattern dashes: [Double]?, trim: (Double, Double)?, coverage: inout Double) -> [Run] {
        let cap = style.lineCap == .butt ? 0 : h
        let miter = style.lineJoin == .miter && style.miterLimit.isFinite ? max(1, style.miterLimit) : 1
        let reach = Reach(body: h, cap: cap, join: h * miter)
        let far = reach.all * (1 + 1e-9) + 1 / scale
        var budget = maxDashes
        var out: [Run] = []
        var pattern = dashes
        if let p = dashes {
            let period = p.reduce(0, +)
            if period * scale <= 0.25 {
                var count = 0.0
                for run in runs {
                    for (a, b) in dashRanges(opened(run), window: window, reach: reach) { count += (b - a) / period + 1 }
                }
                if count > Double(maxDashes) {
                    var on = 0.0
                    for k in stride(from: 0, to: p.count, by: 2) { on += p[k] + 2 * cap }
                    coverage = min(1, on / period)
                    pattern = nil
                }
            }
        }
        for run in runs {
            let open = opened(run)
            guard let d0 = open.distances.first, let d1 = open.distances.last else { continue }
            let whole = trim.map { $0.0 <= d0 && $0.1 >= d1 } ?? true
            let near = nearIntervals(open, window: window, reach: far)
            if near.isEmpty { continue }
            if near.count == 1 && near[0].0 <= d0 && near[0].1 >= d1 && pattern == nil {
                out.append(run)       // wholly near: as it is (a closed one keeps its closing join)
                continue
            }
            var keep: [(Double, Double)]
            if let pattern {
                let mergeGap: Double
                switch style.lineCap {
                case .butt: mergeGap = 0
                case .square: mergeGap = 2 * h        // the caps meet: the union is solid
                case .round:
                    // Two round caps g apart leave a notch h − √(h² − g²/4) deep: solid when
                    // that is below 1/512 device pixel.
                    let depth = 1 / (512 * scale)
                    mergeGap = h > depth ? 2 * (h * h - (h - depth) * (h - depth)).squareRoot() : 0
                }
                let ranges = dashRanges(open, window: window, reach: reach)
                let on = visibleDashes(open, pattern: pattern, phase: style.dashPhase.isFinite ? style.dashPhase : 0,
                                       ranges: ranges, mergeGap: mergeGap, budget: &budget)
                // Sorted, overlaps (the same dash met from two ranges) made one; touching ones stay apart.
                var sorted: [(Double, Double)] = []
                for iv in on.sorted(by: { $0.0 < $1.0 }) {
                    if let last = sorted.last, iv.0 < last.1 { sorted[sorted.count - 1].1 = max(last.1, iv.1) } else { sorted.append(iv) }
                }
                keep = intersect(sorted, near)
            } else {
                keep = near
            }
            if let (a, e) = trim { keep = intersect(keep, [(a, e)]) }
            // A closed undashed subpath kept whole by the trim and cut only away from its start:
            // the pieces through its first point are one, through the closing join.
            if run.closed && pattern == nil && whole && keep.count >= 2 && keep[0].0 <= d0 && keep[keep.count - 1].1 >= d1 {
                let tail = extract(open, keep[keep.count - 1].0, d1), head = extract(open, d0, keep[0].1)
                var joined = tail
                joined.points += head.points.dropFirst()
                joined.distances += head.distances.dropFirst().map { $0 + (d1 - d0) }
                out.append(joined)
                keep = Array(keep[1 ..< keep.count - 1])
            }
            for (a, b) in keep where a <= b {
                if a == b && (pattern == nil || style.lineCap == .butt) { continue }
                out.append(extract(open, a, b))
            }
        }
        return out
    }

    /// The intersections of two sorted lists of disjoint closed intervals.
    static func intersect(_ x: [(Double, Double)], _ y: [(Double, Double)]) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        var i = 0, j = 0
        while i < x.count && j < y.count {
            let a = max(x[i].0, y[j].0), b = min(x[i].1, y[j].1)
            if a <= b { out.append((a, b)) }
            if x[i].1 < y[j].1 { i += 1 } else { j += 1 }
        }
        return out
    }
}

extension Rect {
    /// Whether `p` is in the rect, its edges included.
    func containsClosed(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
}
