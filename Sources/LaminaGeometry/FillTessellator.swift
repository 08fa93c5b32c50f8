/// Fills paths with triangles: nonZero and evenOdd, any input.
///
/// Design (see README.md): one downward sweep (y, then x) over the flattened edges in
/// Double. The active edges are kept sorted by x; each *row* (all events with the same y)
/// re-sorts only the affected run of the active list, recomputes winding numbers there
/// (windings elsewhere cannot change: each row conserves the winding sum), and detects
/// crossings between newly adjacent edges, which it resolves by splitting both edges at the
/// crossing (Bentley–Ottmann). Horizontal edges do not change the winding of any open slab
/// and are dropped. Between two adjacent active edges with an inside winding the sweep keeps
/// an open trapezoid ("span"); a span closes only when its left or right edge changes, so the
/// output is O(events) triangles that never overlap and sum to the exact filled area (up to
/// Double rounding). The same sweep reports the boundary runs (edge pieces with inside on
/// exactly one side) with their outward side: the edges of the coverage mesh the renderer
/// draws (`coverageMesh`, CoverageMesh.swift). The triangles serve tests and the benchmark's
/// comparison of areas.
///
/// Fast paths: one convex contour (rects, rounded rects, ellipses, convex polygons) is a fan
/// (here); simple contour sets go through `MonotoneSweep`; everything else through the general
/// sweep, `FillSweep` (FillSweep.swift).
public enum FillTessellator {
    /// Interior triangles of `polygons` (each implicitly closed) under `rule`.
    /// - Throws: `TessellationError` for non-finite coordinates or more than 2³² vertices.
    /// Any thread may call it; it has no shared state.
    public static func triangulate(_ polygons: [[Point]], rule: FillRule) throws(TessellationError) -> TriangleList {
        var runs: [BoundaryRun]? = nil
        return try triangulate(polygons, rule: rule, boundary: &runs)
    }

    /// Interior triangles of `path` flattened with `tolerance` device pixels at `scale`.
    public static func triangulate(_ path: Path, rule: FillRule, scale: Double = 1,
                                   tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> TriangleList {
        let polys = try Flattener.flatten(path, scale: scale, tolerance: tolerance).map(\.points)
        return try triangulate(polys, rule: rule)
    }

    /// A piece of the filled region's boundary, with the unit normal pointing out of it.
    struct BoundaryRun {
        var a: Point
        var b: Point
        var outward: Point
    }

    /// With `triangles` false the general sweep (`FillSweep`) writes no triangles — for a
    /// caller that wants the boundary alone — and its list comes back empty; the fast paths'
    /// lists are made either way (they are a small part of their cost).
    static func triangulate(_ polygons: [[Point]], rule: FillRule, boundary: inout [BoundaryRun]?,
                            triangles: Bool = true) throws(TessellationError) -> TriangleList {
        var total = 0
        // x · 0 is NaN exactly when x is infinite or NaN: one accumulation per contour, and
        // the element is looked for only when it is NaN.
        var poison = 0.0
        for poly in polygons {
            poison = poly.withUnsafeBufferPointer { buf in
                var acc = poison
                for p in buf { acc += p.x * 0 + p.y * 0 }
                return acc
            }
            total += poly.count
        }
        if poison.isNaN {
            var flatIndex = 0
            for poly in polygons {
                for p in poly {
                    if !p.isFinite { throw .nonFiniteCoordinate(element: flatIndex) }
                    flatIndex += 1
                }
            }
        }
        if total > Int(UInt32.max) / 4 { throw .tooManyVertices }
        // Fast path: a single convex contour.
        var single = -1
        for (i, poly) in polygons.enumerated() where poly.count >= 3 { single = single == -1 ? i : -2 }
        if single >= 0, let fan = convexFan(polygons[single], boundary: &boundary) { return fan }
        // Fast path: contours that provably neither cross nor touch (see MonotoneSweep).
        if let simple = monotoneFill(polygons, rule: rule, boundary: &boundary) { return simple }
        var sweep = FillSweep(rule: rule, collectBoundary: boundary != nil, collectTriangles: triangles)
        sweep.build(polygons)
        sweep.run()
        if boundary != nil { boundary = sweep.runs }
        return sweep.out
    }

    /// A fan when `poly` is convex and simple (every turn the same way, x and y each change
    /// direction at most twice); nil otherwise.
    static func convexFan(_ input: [Point], boundary: inout [BoundaryRun]?) -> TriangleList? {
        if !mayBeConvex(input) { return nil }
        var poly: [Point] = []
        poly.reserveCapacity(input.count)
        for p in input where poly.last != p { poly.append(p) }
        while poly.count > 1 && poly.first == poly.last { poly.removeLast() }
        let n = poly.count
        if n < 3 { return TriangleList() }
        var sign = 0.0
        var xFlips = 0, yFlips = 0
        var lastDX = 0.0, lastDY = 0.0
        var firstDX = 0.0, firstDY = 0.0
        for i in 0 ..< n {
            let a = poly[i], b = poly[(i + 1) % n], c = poly[(i + 2) % n]
            let cr = (b - a).cross(c - b)
            if cr != 0 {
                if sign == 0 { sign = cr } else if (cr > 0) != (sign > 0) { return nil }
            }
            let dx = b.x - a.x, dy = b.y - a.y
            if dx != 0 {
                if lastDX != 0 && (dx > 0) != (lastDX > 0) { xFlips += 1 }
                if firstDX == 0 { firstDX = dx }
                lastDX = dx
            }
            if dy != 0 {
                if lastDY != 0 && (dy > 0) != (lastDY > 0) { yFlips += 1 }
                if firstDY == 0 { firstDY = dy }
                lastDY = dy
            }
        }
        if lastDX != 0 && firstDX != 0 && (lastDX > 0) != (firstDX > 0) { xFlips += 1 }
        if lastDY != 0 && firstDY != 0 && (lastDY > 0) != (firstDY > 0) { yFlips += 1 }
        if xFlips > 2 || yFlips > 2 { return nil }
        var out = TriangleList(points: poly, indices: [])
        out.indices.reserveCapacity(3 * (n - 2))
        if sign != 0 {
            for i in 1 ..< n - 1 { out.indices.append(0); out.indices.append(UInt32(i)); out.indices.append(UInt32(i + 1)) }
        }
        if boundary != nil && sign != 0 {
            var runs: [BoundaryRun] = []
            runs.reserveCapacity(n)
            for i in 0 ..< n {
                let a = poly[i], b = poly[(i + 1) % n]
                let d = (b - a).normalized
                // sign > 0: clockwise on screen (y down); the outside is to the left of travel.
                let outward = sign > 0 ? Point(d.y, -d.x) : Point(-d.y, d.x)
                runs.append(BoundaryRun(a: a, b: b, outward: outward))
            }
            boundary = runs
        }
        return out
    }
}

extension FillTessellator {
    /// False when `input` is certainly not convex: two turns of opposite sign, or x or y
    /// changing direction more than twice. Works on the raw points (no copy): a repeated
    /// point only hides turns, so a false answer is always right.
    static func mayBeConvex(_ input: [Point]) -> Bool {
        let n = input.count
        if n < 3 { return true }
        return input.withUnsafeBufferPointer { p -> Bool in
            var sign = 0.0
            var xFlips = 0, yFlips = 0
            var lastDX = 0.0, lastDY = 0.0, firstDX = 0.0, firstDY = 0.0
            var a = p[n - 2], b = p[n - 1]
            for i in 0 ..< n {
                let c = p[i]
                let cr = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
                if cr != 0 {
                    if sign == 0 { sign = cr } else if (cr > 0) != (sign > 0) { return false }
                }
                let dx = c.x - b.x, dy = c.y - b.y
                if dx != 0 {
                    if lastDX != 0 && (dx > 0) != (lastDX > 0) { xFlips += 1; if xFlips > 2 { return false } }
                    if firstDX == 0 { firstDX = dx }
                    lastDX = dx
                }
                if dy != 0 {
                    if lastDY != 0 && (dy > 0) != (lastDY > 0) { yFlips += 1; if yFlips > 2 { return false } }
                    if firstDY == 0 { firstDY = dy }
                    lastDY = dy
                }
                a = b; b = c
            }
            if lastDX != 0 && firstDX != 0 && (lastDX > 0) != (firstDX > 0) { xFlips += 1 }
            if lastDY != 0 && firstDY != 0 && (lastDY > 0) != (firstDY > 0) { yFlips += 1 }
            return xFlips <= 2 && yFlips <= 2
        }
    }
}
