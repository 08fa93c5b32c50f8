import Foundation

/// Strokes paths: line width, caps, joins with a miter limit, dashes, trimming, hairlines.
///
/// The stroke is built from pieces at their true width — a quad per segment, a wedge per join,
/// caps and dots (`StrokeBuilder`) — dashed and trimmed on the CPU, and drawn as the coverage
/// mesh of their union (`coverageMesh`, CoverageMesh.swift). Any thread may call it; it has
/// no shared state.
public enum StrokeTessellator {
    /// A run of the stroke: an open or closed polyline with global distances, or a dot.
    struct Run {
        var points: [Point]
        var distances: [Double]
        var closed: Bool
        var dotDirection: Point
        var closingDistance = 0.0
    }

    static func build(_ path: Path, style: StrokeStyle, scale: Double, tolerance: Double,
                      trim: Bool, window: Rect? = nil, outlining: Bool = false) throws(TessellationError) -> StrokeBuilder {
        let s = scale.isFinite && scale > 0 ? scale : 1
        let tol = (tolerance.isFinite && tolerance > 0 ? tolerance : Flattener.defaultTolerance) / s
        let polylines = try Flattener.flatten(path, tolerance: tol)
        // Subpaths with global distances.
        var runs: [Run] = []
        var total = 0.0
        for pl in polylines {
            var pts: [Point] = []
            for p in pl.points where pts.last != p { pts.append(p) }
            let closed = pl.isClosed && pts.count > 2
            if closed && pts.count > 1 && pts.first == pts.last { pts.removeLast() }
            var d: [Double] = [total]
            for i in 1 ..< max(1, pts.count) { d.append(d[i - 1] + pts[i - 1].distance(to: pts[i])) }
            total = d.last!
            var run = Run(points: pts, distances: d, closed: closed, dotDirection: Point(1, 0))
            if closed {
                total += pts[pts.count - 1].distance(to: pts[0])
                run.closingDistance = total
            }
            runs.append(run)
        }
        let width = style.lineWidth.isFinite ? max(0, style.lineWidth) : 1
        var b = StrokeBuilder(width: width, scale: s, tolerance: tol, style: style)
        b.outlining = outlining
        b.totalLength = total
        if let window {
            // Only the pieces that can draw inside the window (VisibleWindow.swift).
            var cut: (Double, Double)? = nil
            if trim && style.isTrimmed {
                let a = max(0, min(1, style.strokeStart.isFinite ? style.strokeStart : 0)) * total
                let e = max(0, min(1, style.strokeEnd.isFinite ? style.strokeEnd : 1)) * total
                if e < a || (e == a && style.lineCap == .butt) { return b }
                cut = (a, e)
            }
            for r in visibleRuns(runs, window: window, halfWidth: b.halfWidth, scale: s, style: style,
                                 pattern: style.normalizedDashes, trim: cut, coverage: &b.coverageScale) { b.stroke(r) }
            return b
        }
        // Dashes (the pattern restarts at each subpath, as Core Graphics), then trimming.
        if let pattern = style.normalizedDashes {
            var budget = Self.maxDashes
            var dashed: [Run] = []
            for run in runs {
                dashed += dash(run, pattern: pattern, phase: style.dashPhase.isFinite ? style.dashPhase : 0, budget: &budget)
            }
            runs = dashed
        }
        if trim && style.isTrimmed {
            let a = max(0, min(1, style.strokeStart.isFinite ? style.strokeStart : 0)) * total
            let e = max(0, min(1, style.strokeEnd.isFinite ? style.strokeEnd : 1)) * total
            if e < a || (e == a && style.lineCap == .butt) { runs = [] }
            else { runs = runs.compactMap { clip($0, from: a, to: e) } }
        }
        for r in runs { b.stroke(r) }
        return b
    }

    /// The run as an open polyline (closed runs repeat their first point).
    static func opened(_ r: Run) -> Run {
        guard r.closed else { return r }
        var o = r
        o.points.append(r.points[0]); o.distances.append(r.closingDistance); o.closed = false
        return o
    }

    /// The part of `r` between global distances a ≤ b, or nil; a closed run wholly inside stays closed.
    static func clip(_ r: Run, from a: Double, to b: Double) -> Run? {
        let open = opened(r)
        guard let d0 = open.distances.first, let d1 = open.distances.last else { return nil }
        if a <= d0 && b >= d1 { return r }
        if b < d0 || a > d1 { return nil }
        return extract(open, max(a, d0), min(b, d1))
    }

    /// Sub-polyline of an open run between global distances a ≤ b (a dot when a == b).
    static func extract(_ r: Run, _ a: Double, _ b: Double) -> Run {
        let p = r.points, d = r.distances
        func at(_ x: Double) -> (Point, Int, Point) {   // point, segment index, direction
            var i = 0
            while i + 2 < d.count && d[i + 1] < x { i += 1 }
            if p.count == 1 { return (p[0], 0, r.dotDirection) }
            let len = d[i + 1] - d[i]
            let t = len > 0 ? max(0, min(1, (x - d[i]) / len)) : 0
            return (p[i].lerp(to: p[i + 1], t), i, (p[i + 1] - p[i]).normalized)
        }
        let (pa, ia, dirA) = at(a)
        if a == b { return Run(points: [pa], distances: [a], closed: false, dotDirection: dirA) }
        let (pb, ib, _) = at(b)
        var pts = [pa], ds = [a]
        if ia + 1 <= ib { for k in ia + 1 ... ib where d[k] > a && d[k] < b { pts.append(p[k]); ds.append(d[k]) } }
        pts.append(pb); ds.append(b)
        return Run(points: pts, distances: ds, closed: false, dotDirection: dirA)
    }

    /// At most this many dashes per path: a pattern tiny against its path (a hostile or
    /// mistaken one) would otherwise make millions of runs and a mesh to match. The dashes
    /// past the limit are not drawn.
    public static let maxDashes = 32_768

    /// On-intervals of the dash pattern along one subpath, at most `budget` of them (which
    /// they use up).
    static func dash(_ r: Run, pattern: [Double], phase: Double, budget: inout Int) -> [Run] {
        let open = opened(r)
        guard let start = open.distances.first, let end = open.distances.last else { return [] }
        let length = end - start
        let period = pattern.reduce(0, +)
        var offset = phase.truncatingRemainder(dividingBy: period)
        if offset < 0 { offset += period }
        var index = 0
        while offset >= pattern[index] && offset > 0 {
            offset -= pattern[index]; index = (index + 1) % pattern.count
            if pattern[index] == 0 && offset == 0 { break }
        }
        var remaining = pattern[index] - offset
        var pos = 0.0
        var out: [Run] = []
        // Zero-length entries make no progress; the steps are bounded too.
        var steps = 0
        while pos <= length && budget > 0 && steps < 4 * Self.maxDashes {
            steps += 1
            let stop = min(length, pos + remaining)
            if index % 2 == 0 {
                out.append(extract(open, start + pos, start + stop))
                budget -= 1
            }
            if pos + remaining > length { break }
            pos += remaining
            index = (index + 1) % pattern.count
            remaining = pattern[index]
        }
        return out
    }
}

