/// A flattened subpath: straight segments through `points`; closed ones join the last point
/// back to the first (the first point is not repeated).
public struct Polyline: Hashable, Sendable {
    public var points: [Point]
    public var isClosed: Bool
    public init(points: [Point], isClosed: Bool) { self.points = points; self.isClosed = isClosed }
}

/// Turns curves into line segments by adaptive subdivision.
///
/// The tolerance is the largest distance allowed between a curve and its segments. Callers
/// give it in device pixels (default 0.25) together with the layer's screen-space scale
/// (device pixels per point); the flattener works in points with `tolerance / scale`.
/// Subdivision is recursive de Casteljau splitting until a curve is flat by a bound on its
/// distance from its chord — there are no fixed step counts, so a large flat curve yields
/// one segment and a tight bend many.
public enum Flattener {
    /// Default tolerance in device pixels.
    public static let defaultTolerance = 0.25
    /// Deepest subdivision (2^16 segments per curve at most).
    static let maxDepth = 16

    /// Flattens `path` into polylines with a tolerance in points.
    /// - Throws: `TessellationError.nonFiniteCoordinate` for NaN or infinite input.
    public static func flatten(_ path: Path, tolerance: Double) throws(TessellationError) -> [Polyline] {
        if let bad = path.firstNonFiniteElement { throw .nonFiniteCoordinate(element: bad) }
        let tol = tolerance.isFinite && tolerance > 0 ? tolerance : defaultTolerance
        var result: [Polyline] = []
        var points: [Point] = []
        var start = Point.zero
        var current: Point? = nil
        func finish(closed: Bool) {
            if !points.isEmpty { result.append(Polyline(points: points, isClosed: closed)) }
            points.removeAll(keepingCapacity: true)
        }
        func begin(at p: Point) {
            if points.isEmpty { points.append(p); start = p }
        }
        for e in path.elements {
            switch e {
            case .move(let p):
                finish(closed: false); points.append(p); start = p; current = p
            case .line(let p):
                begin(at: current ?? p); points.append(p); current = p
            case .quad(let c, let p):
                let p0 = current ?? c
                begin(at: p0)
                flattenQuad(p0, c, p, tol, &points); current = p
            case .cubic(let c1, let c2, let p):
                let p0 = current ?? c1
                begin(at: p0)
                flattenCubic(p0, c1, c2, p, tol, &points, depth: 0); current = p
            case .close:
                if !points.isEmpty {
                    if points.count > 1, points.last == points.first { points.removeLast() }
                    finish(closed: true)
                }
                current = start
            }
        }
        finish(closed: false)
        return result
    }

    /// Flattens with a tolerance in device pixels at `scale` device pixels per point.
    public static func flatten(_ path: Path, scale: Double, tolerance: Double = defaultTolerance) throws(TessellationError) -> [Polyline] {
        let s = scale.isFinite && scale > 0 ? scale : 1
        return try flatten(path, tolerance: tolerance / s)
    }

    /// Appends points after p0 (p0 itself is already in `out`).
    static func flattenQuad(_ p0: Point, _ c: Point, _ p2: Point, _ tol: Double, _ out: inout [Point]) {
        // A quad is a cubic with controls at 1/3 and 2/3.
        let c1 = p0 + (c - p0) * (2.0 / 3.0), c2 = p2 + (c - p2) * (2.0 / 3.0)
        flattenCubic(p0, c1, c2, p2, tol, &out, depth: 0)
    }

    static func flattenCubic(_ p0: Point, _ p1: Point, _ p2: Point, _ p3: Point, _ tol: Double,
                             _ out: inout [Point], depth: Int) {
        // Flat when the curve stays within tol of its chord (bound of Roger Willcocks:
        // max distance ≤ sqrt(max(ux², vx²) + max(uy², vy²)) / 4).
        let ux = 3 * p1.x - 2 * p0.x - p3.x, uy = 3 * p1.y - 2 * p0.y - p3.y
        let vx = 3 * p2.x - p0.x - 2 * p3.x, vy = 3 * p2.y - p0.y - 2 * p3.y
        let d = max(ux * ux, vx * vx) + max(uy * uy, vy * vy)
        if d <= 16 * tol * tol || depth >= maxDepth {
            out.append(p3)
            return
        }
        let p01 = (p0 + p1) * 0.5, p12 = (p1 + p2) * 0.5, p23 = (p2 + p3) * 0.5
        let p012 = (p01 + p12) * 0.5, p123 = (p12 + p23) * 0.5
        let m = (p012 + p123) * 0.5
        flattenCubic(p0, p01, p012, m, tol, &out, depth: depth + 1)
        flattenCubic(m, p123, p23, p3, tol, &out, depth: depth + 1)
    }
}

extension Path {
    /// The path flattened with `tolerance` device pixels at `scale` device pixels per point.
    public func flattened(scale: Double = 1, tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> [Polyline] {
        try Flattener.flatten(self, scale: scale, tolerance: tolerance)
    }
}
