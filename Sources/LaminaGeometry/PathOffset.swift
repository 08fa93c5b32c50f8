#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A path offset by a distance: After Effects' Offset Paths (Lottie `op`), as ThorVG reads it.
///
/// Positive amounts move the outline outward, negative inward, whichever way the path runs:
/// the side is chosen by the sign of the whole path's signed area (its vertices and control
/// points), so the holes of a compound path drawn the other way round shrink as its outside
/// grows. Each segment is moved `amount` along its normal: a line as a line, a curve split
/// (from its own shape, not the amount, so an animated amount keeps one structure) into
/// pieces that turn at most 30° and have no inflection, each offset by moving its ends along
/// their normals and scaling its handles by the change of the radius of curvature there
/// (exact for circular arcs). Where the offset pieces of two
/// segments leave a gap (an outer corner), the join fills it: a miter to where the two
/// tangent lines meet, when that point is within `miterLimit` × |amount| of the corner (else
/// a bevel); a round join a circular arc of radius |amount| about the corner (cubics of at
/// most 90°); a bevel a straight line. Where they overlap (an inner corner) two lines are cut
/// at their intersection, other pieces joined by a straight line (a loop of the same
/// orientation, which a non-zero fill covers). An open subpath becomes the closed outline
/// of both its sides (the path forward, then back), its ends joined as corners that turn
/// 180° (round: half circles; miter and bevel: straight). A closed subpath whose offset
/// turns the other way round (shrunk past nothing) is left out.
public enum PathOffset {
    /// Most pieces one curve is split into.
    static let maxPieces = 64

    /// `path` offset by `amount` (points) with `join` at the corners.
    public static func offset(_ path: Path, by amount: Double, join: LineJoin = .miter, miterLimit: Double = 4) -> Path {
        let subpaths = segments(of: path)
        guard amount != 0, amount.isFinite else { return path }
        // The side: the sign of the signed area of every vertex and control point.
        var area = 0.0
        for sub in subpaths where sub.closed {
            for s in sub.segments { area += s.p0.cross(s.c1) + s.c1.cross(s.c2) + s.c2.cross(s.p3) }
        }
        let side = area < 0 ? -1.0 : 1.0
        var out = Path()
        for sub in subpaths {
            var segs = sub.segments
            var d = amount * side
            if !sub.closed {
                segs += sub.segments.reversed().map { Segment(p0: $0.p3, c1: $0.c2, c2: $0.c1, p3: $0.p0, isLine: $0.isLine) }
                d = amount
            }
            guard !segs.isEmpty else { continue }
            let loop = offsetLoop(segs, d, join: join, miterLimit: miterLimit)
            guard let first = loop.first else { continue }
            // A closed subpath shrunk past nothing turns the other way round: left out.
            if sub.closed {
                var before = 0.0, after = 0.0
                for s in segs { before += s.p0.cross(s.c1) + s.c1.cross(s.c2) + s.c2.cross(s.p3) }
                for s in loop { after += s.p0.cross(s.c1) + s.c1.cross(s.c2) + s.c2.cross(s.p3) }
                if before * after <= 0 { continue }
            }
            // Coordinates so large that the offset overflows: the subpath is left out.
            guard loop.allSatisfy({ $0.p0.isFinite && $0.c1.isFinite && $0.c2.isFinite && $0.p3.isFinite }) else { continue }
            out.elements.append(.move(first.p0))
            for s in loop { out.elements.append(s.isLine ? .line(s.p3) : .cubic(s.c1, s.c2, s.p3)) }
            out.elements.append(.close)
        }
        return out
    }

    /// One cubic (or line) segment of a subpath.
    struct Segment {
        var p0, c1, c2, p3: Point
        var isLine: Bool
        static func line(_ a: Point, _ b: Point) -> Segment { Segment(p0: a, c1: a, c2: b, p3: b, isLine: true) }
        /// The direction leaving p0 and the direction arriving at p3 (zero for a point).
        var startTangent: Point {
            for q in [c1, c2, p3] where q != p0 { return q - p0 }
            return .zero
        }
        var endTangent: Point {
            for q in [c2, c1, p0] where q != p3 { return p3 - q }
            return .zero
        }
        func split(_ t: Double) -> (Segment, Segment) {
            let a = p0.lerp(to: c1, t), b = c1.lerp(to: c2, t), c = c2.lerp(to: p3, t)
            let ab = a.lerp(to: b, t), bc = b.lerp(to: c, t), m = ab.lerp(to: bc, t)
            return (Segment(p0: p0, c1: a, c2: ab, p3: m, isLine: false), Segment(p0: m, c1: bc, c2: c, p3: p3, isLine: false))
        }
    }

    struct Subpath { var segments: [Segment]; var closed: Bool }

    /// The path's subpaths as segments (quadratics raised to cubics; zero-length segments
    /// dropped; a closed subpath's closing line added where it does not end at its start).
    static func segments(of path: Path) -> [Subpath] {
        var out: [Subpath] = []
        var segs: [Segment] = []
        var start = Point.zero, current = Point.zero
        func finish(_ closed: Bool) {
            if closed, current != start { segs.append(.line(current, start)) }
            if !segs.isEmpty { out.append(Subpath(segments: segs, closed: closed)) }
            segs = []
        }
        for e in path.elements {
            switch e {
            case .move(let p): finish(false); start = p; current = p
            case .line(let p):
                if p != current { segs.append(.line(current, p)) }
                current = p
            case .quad(let c, let p):
                let s = Segment(p0: current, c1: current + (c - current) * (2.0 / 3), c2: p + (c - p) * (2.0 / 3), p3: p, isLine: false)
                if s.startTangent != .zero { segs.append(s) }
                current = p
            case .cubic(let c1, let c2, let p):
                let s = Segment(p0: current, c1: c1, c2: c2, p3: p, isLine: false)
                if s.startTangent != .zero { segs.append(s) }
                current = p
            case .close: finish(true); current = start
            }
        }
        finish(false)
        return out.filter { $0.segments.allSatisfy { $0.p0.isFinite && $0.c1.isFinite && $0.c2.isFinite && $0.p3.isFinite } }
    }

    /// The unit normal of direction `v` on the side that is outward for a path of positive
    /// signed area (y down: (y, −x)).
    static func normal(_ v: Point) -> Point { Point(v.y, -v.x).normalized }

    /// A curve split (at halves) until every piece turns at most 30° and has a convex control
    /// polygon, at most `maxPieces` pieces.
    static func pieces(_ s: Segment) -> [Segment] {
        if s.isLine { return [s] }
        var out: [Segment] = []
        func flat(_ q: Segment) -> Bool {
            let t0 = q.startTangent, t1 = q.endTangent
            guard t0 != .zero, t1 != .zero else { return true }
            let cosTurn = t0.normalized.dot(t1.normalized)
            let legs = [q.c1 - q.p0, q.c2 - q.c1, q.p3 - q.c2].filter { $0 != .zero }
            var sign = 0.0
            for i in 1..<max(legs.count, 1) {
                let c = legs[i - 1].cross(legs[i])
                if abs(c) <= 1e-12 * legs[i - 1].length * legs[i].length { continue }
                if sign == 0 { sign = c } else if sign * c < 0 { return false }
            }
            return cosTurn >= cos(Double.pi / 6)
        }
        func walk(_ q: Segment, _ depth: Int) {
            if depth >= 6 || flat(q) { out.append(q); return }
            let (a, b) = q.split(0.5)
            walk(a, depth + 1); walk(b, depth + 1)
        }
        walk(s, 0)
        return out
    }

    /// Where the line through a along u meets the line through b along v: the parameters
    /// (along u from a, along v from b), nil when they are parallel.
    static func meet(_ a: Point, _ u: Point, _ b: Point, _ v: Point) -> (Double, Double)? {
        let den = u.cross(v)
        guard abs(den) > 1e-12 * u.length * v.length else { return nil }
        let w = b - a
        return (w.cross(v) / den, w.cross(u) / den)
    }

    /// One piece moved `d` along its normals: its ends moved along their normals, its
    /// handles kept in direction and scaled by 1 + d·κ (κ the signed curvature at that end,
    /// the handle's length ∝ the radius of curvature: a circular arc becomes exactly the arc
    /// of radius r + d; never below 0).
    static func offsetPiece(_ s: Segment, _ d: Double) -> Segment {
        let t0 = s.startTangent, t1 = s.endTangent
        let p0 = s.p0 + normal(t0) * d, p3 = s.p3 + normal(t1) * d
        if s.isLine { return .line(p0, p3) }
        // κ = B′ × B″ / |B′|³ with B′(0) = 3 h0, B″(0) = 6 w0 (and the same at the end).
        func factor(_ h: Point, _ w: Point) -> Double {
            let l = h.length
            guard l > 0 else { return 1 }
            return max(0, 1 + d * (2.0 / 3) * h.cross(w) / (l * l * l))
        }
        let h0 = s.c1 - s.p0, h1 = s.p3 - s.c2
        let c1 = p0 + h0 * factor(h0, s.c2 - s.c1 * 2 + s.p0)
        let c2 = p3 - h1 * factor(h1, s.p3 - s.c2 * 2 + s.c1)
        return Segment(p0: p0, c1: c1, c2: c2, p3: p3, isLine: false)
    }

    /// A closed loop of segments offset by d (normals (y, −x) · d), joined at its corners.
    static func offsetLoop(_ segs: [Segment], _ d: Double, join: LineJoin, miterLimit: Double) -> [Segment] {
        var moved = segs.map { pieces($0).map { offsetPiece($0, d) } }
        var joins: [[Segment]] = Array(repeating: [], count: segs.count)
        let r = abs(d), eps = 1e-9 * max(1, r)
        for i in segs.indices {
            let j = (i + 1) % segs.count
            let last = moved[i][moved[i].count - 1], first = moved[j][0]
            let a = last.p3, b = first.p0, v = segs[i].p3
            if a.distance(to: b) <= eps { continue }
            let tIn = segs[i].endTangent, tOut = segs[j].startTangent
            // Outer corner: the offset moves away from the turn (or the path turns back).
            let turn = tIn.cross(tOut)
            let back = abs(turn) <= 1e-12 * tIn.length * tOut.length
            let outer = back ? tIn.dot(tOut) < 0 : turn * d > 0
            if !outer {
                // Inner corner: two lines cut at their intersection when it lies on both.
                if last.isLine, first.isLine, let (u, w) = meet(last.p0, last.p3 - last.p0, first.p0, first.p3 - first.p0),
                   u >= 0, u <= 1, w >= 0, w <= 1 {
                    let x = last.p0.lerp(to: last.p3, u)
                    moved[i][moved[i].count - 1] = .line(last.p0, x)
                    moved[j][0] = .line(x, moved[j][0].p3)
                } else {
                    joins[i] = [.line(a, b)]
                }
                continue
            }
            switch join {
            case .bevel:
                joins[i] = [.line(a, b)]
            case .miter:
                if !back, let (u, _) = meet(a, tIn, b, tOut), u >= 0, (a + tIn * u).distance(to: v) <= miterLimit * r {
                    // Lines are extended to the miter point; curves get a line to it.
                    let x = a + tIn * u
                    if last.isLine { moved[i][moved[i].count - 1] = .line(last.p0, x) } else { joins[i].append(.line(a, x)) }
                    if first.isLine { moved[j][0] = .line(x, moved[j][0].p3) } else { joins[i].append(.line(x, b)) }
                } else {
                    joins[i] = [.line(a, b)]
                }
            case .round:
                joins[i] = arc(center: v, from: a, to: b, through: back ? tIn : (a - v).normalized + (b - v).normalized)
            }
        }
        var out: [Segment] = []
        for i in segs.indices { out += moved[i]; out += joins[i] }
        return out
    }

    /// A circular arc about `center` from a to b (the same distance from it), the way that
    /// passes direction `through` from the centre, as cubics of at most 90° (handles
    /// 4/3 · tan(φ/4) · r).
    static func arc(center: Point, from a: Point, to b: Point, through: Point) -> [Segment] {
        let r = a.distance(to: center)
        let na = (a - center) / r, nb = (b - center).normalized
        var sweep = atan2(na.cross(nb), na.dot(nb))
        // The other way round when the short arc misses `through`.
        let mid = Point(cos(sweep / 2) * na.x - sin(sweep / 2) * na.y, sin(sweep / 2) * na.x + cos(sweep / 2) * na.y)
        if mid.dot(through) < 0 { sweep += sweep > 0 ? -2 * Double.pi : 2 * Double.pi }
        guard sweep.isFinite, r.isFinite, r > 0 else { return [.line(a, b)] }
        let n = max(1, Int((abs(sweep) / (Double.pi / 2) - 1e-9).rounded(.up)))
        let phi = sweep / Double(n), k = 4.0 / 3 * tan(phi / 4) * r
        let a0 = atan2(na.y, na.x)
        var out: [Segment] = []
        var p = a
        for s in 0..<n {
            let t0 = a0 + phi * Double(s), t1 = t0 + phi
            let q = s == n - 1 ? b : center + Point(cos(t1), sin(t1)) * r
            out.append(Segment(p0: p, c1: p + Point(-sin(t0), cos(t0)) * k, c2: q - Point(-sin(t1), cos(t1)) * k, p3: q, isLine: false))
            p = q
        }
        return out
    }
}
