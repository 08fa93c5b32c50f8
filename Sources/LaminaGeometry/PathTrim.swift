/// Trimming a path's geometry to a range of its length (After Effects' and Lottie's trim
/// paths) where the result is needed as a path, not as a stroke's `strokeStart`/`strokeEnd`:
/// the operands of a boolean (merge paths) are cut before they combine.
///
/// The path is flattened (curves within `tolerance`), its length measured along all its
/// subpaths in order as one run (a closed subpath including its closing edge), as
/// `strokeStart`/`strokeEnd` measure a stroke. The range is [start, end] in fractions of
/// that length; `end` above 1 wraps onto the path's start (the part [0, end − 1] follows as
/// a subpath of its own), so a range moved by an offset keeps its length.
public enum PathTrim {
    /// The length of `path` flattened within `tolerance` (0 for a path of no segments).
    public static func length(_ path: Path, tolerance: Double = 0.05) -> Double {
        runs(path, tolerance).reduce(0) { $0 + $1.length }
    }

    /// The part of `path` from `start` to `end` (fractions of its length; `start` in 0…1,
    /// `end` in `start`…`start` + 1) as open polylines, in the path's order. A closed
    /// subpath wholly inside the range stays closed. Nothing (an empty path) when the range
    /// is empty or the path has no length.
    public static func trim(_ path: Path, from start: Double, to end: Double, tolerance: Double = 0.05) -> Path {
        guard start.isFinite, end.isFinite else { return Path() }
        let s = min(max(start, 0), 1), e = min(max(end, s), s + 1)
        guard e > s else { return Path() }
        let all = runs(path, tolerance)
        let total = all.reduce(0) { $0 + $1.length }
        guard total > 0 else { return Path() }
        var out = Path()
        append(all, from: s * total, to: min(e, 1) * total, into: &out)
        if e > 1 { append(all, from: 0, to: (e - 1) * total, into: &out) }
        return out
    }

    /// One subpath flattened: its points (a closed one repeats its first point at the end)
    /// and the running length at each point.
    struct Run {
        var points: [Point]
        var at: [Double]
        var closed: Bool
        var length: Double { at.last ?? 0 }
    }

    static func runs(_ path: Path, _ tolerance: Double) -> [Run] {
        guard let lines = try? Flattener.flatten(path, tolerance: tolerance > 0 ? tolerance : 0.05) else { return [] }
        return lines.compactMap { l in
            var pts = l.points
            guard pts.count > 1 else { return nil }
            if l.isClosed { pts.append(pts[0]) }
            var at = [0.0]
            for i in 1..<pts.count { at.append(at[i - 1] + pts[i].distance(to: pts[i - 1])) }
            return Run(points: pts, at: at, closed: l.isClosed)
        }
    }

    /// Appends the part of the runs (laid end to end) between lengths `a` and `b`.
    static func append(_ runs: [Run], from a: Double, to b: Double, into out: inout Path) {
        guard b > a else { return }
        var base = 0.0
        for r in runs {
            defer { base += r.length }
            let lo = max(a - base, 0), hi = min(b - base, r.length)
            guard hi > lo else { continue }
            if lo <= 0, hi >= r.length {
                // The whole subpath (a closed one stays closed).
                out.elements.append(.move(r.points[0]))
                for p in r.points.dropFirst().dropLast(r.closed ? 1 : 0) { out.elements.append(.line(p)) }
                if r.closed { out.elements.append(.close) }
                continue
            }
            out.elements.append(.move(point(r, lo)))
            for i in r.points.indices where r.at[i] > lo && r.at[i] < hi { out.elements.append(.line(r.points[i])) }
            out.elements.append(.line(point(r, hi)))
        }
    }

    /// The point at length `d` along the run.
    static func point(_ r: Run, _ d: Double) -> Point {
        var lo = 0, hi = r.at.count - 1
        while hi - lo > 1 {
            let m = (lo + hi) / 2
            if r.at[m] <= d { lo = m } else { hi = m }
        }
        let span = r.at[hi] - r.at[lo]
        return span > 0 ? r.points[lo].lerp(to: r.points[hi], (d - r.at[lo]) / span) : r.points[lo]
    }
}
