import Foundation

/// Strokes paths: line width, caps, joins with a miter limit, dashes, trimming, hairlines.
///
/// The stroke is built from pieces — a quad per segment, a wedge per join, caps and dots —
/// each vertex carrying its arc length along the centerline (`MeshVertex.distance`). Pieces
/// overlap each other (at joins, and where a path crosses itself), so the renderer draws a
/// stroke mesh with the stencil "each pixel once" state (see `Mesh`); interior triangles
/// come first so the fringe never wins over interior coverage. For consumers that cannot do
/// that, `overlapFreeTriangles` returns the union of the pieces (filled with nonZero), which
/// is also what the exact-area tests measure.
public enum StrokeTessellator {
    /// The mesh the renderer draws for a stroke.
    ///
    /// - Parameters:
    ///   - scale: device pixels per point on screen (sets the flattening tolerance, the fringe
    ///     width, hairline width and thin-line coverage).
    ///   - tolerance: flattening tolerance in device pixels.
    ///   - antialias: add a coverage fringe one device pixel wide centred on the outline.
    ///   - trimInShader: ignore strokeStart/strokeEnd and leave them to the shader's clip on
    ///     `distance` (valid when `style.canTrimInShader`); the mesh then does not depend on them.
    /// - Throws: `TessellationError` for non-finite coordinates.
    /// Any thread may call it; it has no shared state.
    public static func mesh(_ path: Path, style: StrokeStyle, scale: Double = 1,
                            tolerance: Double = Flattener.defaultTolerance, antialias: Bool = true,
                            trimInShader: Bool = false) throws(TessellationError) -> Mesh {
        var b = try build(path, style: style, scale: scale, tolerance: tolerance, antialias: antialias,
                          trim: !trimInShader)
        return b.mesh()
    }

    /// Interior stroke triangles in double precision, without fringe (they may overlap).
    public static func triangles(_ path: Path, style: StrokeStyle, scale: Double = 1,
                                 tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> TriangleList {
        let b = try build(path, style: style, scale: scale, tolerance: tolerance, antialias: false, trim: true)
        return TriangleList(points: b.points, indices: b.interior)
    }

    /// The stroke's covered region as non-overlapping triangles: the union of the pieces,
    /// filled with nonZero. No `distance` attribute: trimming changes the mesh.
    public static func overlapFreeTriangles(_ path: Path, style: StrokeStyle, scale: Double = 1,
                                            tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> TriangleList {
        let t = try triangles(path, style: style, scale: scale, tolerance: tolerance)
        var polys: [[Point]] = []
        polys.reserveCapacity(t.triangleCount)
        for i in 0 ..< t.triangleCount {
            let (a, b, c) = t.triangle(i)
            let cr = (b - a).cross(c - a)
            if cr > 0 { polys.append([a, b, c]) } else if cr < 0 { polys.append([a, c, b]) }
        }
        return try FillTessellator.triangulate(polys, rule: .nonZero)
    }

    /// Total centerline length of `path` flattened at `scale`.
    public static func length(of path: Path, scale: Double = 1, tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> Double {
        var total = 0.0
        for pl in try Flattener.flatten(path, scale: scale, tolerance: tolerance) {
            let p = pl.points
            for i in 1 ..< max(1, p.count) { total += p[i - 1].distance(to: p[i]) }
            if pl.isClosed, p.count > 1 { total += p[p.count - 1].distance(to: p[0]) }
        }
        return total
    }

    /// A run of the stroke: an open or closed polyline with global distances, or a dot.
    struct Run {
        var points: [Point]
        var distances: [Double]
        var closed: Bool
        var dotDirection: Point
        var closingDistance = 0.0
    }

    static func build(_ path: Path, style: StrokeStyle, scale: Double, tolerance: Double,
                      antialias: Bool, trim: Bool, window: Rect? = nil) throws(TessellationError) -> StrokeBuilder {
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
        var b = StrokeBuilder(width: width, scale: s, antialias: antialias, tolerance: tol, style: style)
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

