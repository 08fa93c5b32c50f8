#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Boolean operations on filled paths: union, difference, intersection and exclusive or of
/// regions (After Effects' Merge Paths modes add, subtract, intersect and exclude
/// intersections; Lottie `mm` 2–5).
///
/// Each operand is flattened (`Flattener`, within `tolerance`) and filled by the non-zero
/// rule (open subpaths closed). Every point is snapped to a grid of `tolerance` / 64, edges
/// are split where they cross, touch or overlap (the crossings snapped too), and each piece
/// is kept where the result differs on its two sides — the operands' winding numbers
/// counted at two points a sixteenth of the grid either side of its middle. Pieces that
/// coincide cancel (opposite directions) or count once. The pieces are oriented with the
/// result on their right (y down: clockwise outlines, counter-clockwise holes) and linked
/// into closed polygons, collinear runs merged. A non-zero fill of the polygons is the
/// result; an even-odd one too, as they do not overlap. Operands combine in order:
/// ((first op second) op third) ….
public enum PathBoolean {
    public enum Operation: Sendable { case union, subtract, intersect, exclude }

    /// Most edges (over all operands, after flattening) taken; more returns nil.
    public static let maxEdges = 20_000

    /// The outline of the operands combined, as closed polygons; nil beyond `maxEdges`.
    public static func combine(_ operands: [Path], _ op: Operation, tolerance: Double = 0.05) -> [Polyline]? {
        let tol = tolerance.isFinite && tolerance > 0 ? tolerance : 0.05
        // A power of two, so that snapped coordinates, their differences and the products
        // the tests take are exact.
        let grid = Double(sign: .plus, exponent: (tol / 64).exponent, significand: 1)
        func snap(_ p: Point) -> Point { Point((p.x / grid).rounded() * grid, (p.y / grid).rounded() * grid) }
        // The edges flattening will make, bounded first: a curve is halved until its
        // Willcocks bound d (Flattener) is within 16 tol², each halving dividing d by 16.
        var estimate = 0
        for path in operands {
            var current = Point.zero
            for e in path.elements {
                var c1 = current, c2 = current, end = current
                switch e {
                case .move(let p): current = p; continue
                case .line(let p): estimate += 1; current = p; continue
                case .close: estimate += 1; continue
                case .quad(let c, let p): c1 = current + (c - current) * (2.0 / 3); c2 = p + (c - p) * (2.0 / 3); end = p
                case .cubic(let a, let b, let p): c1 = a; c2 = b; end = p
                }
                let u = c1 * 3 - current * 2 - end, v = c2 * 3 - current - end * 2
                let d = max(u.x * u.x, v.x * v.x) + max(u.y * u.y, v.y * v.y)
                // Clamped as a Double first: d may be huge or infinite.
                let k = d.isFinite && d > 16 * tol * tol ? (log(d / (16 * tol * tol)) / log(16.0)).rounded(.up) : (d.isFinite ? 0 : 16)
                estimate += 1 << Int(min(16, max(0, k)))
                current = end
                if estimate > maxEdges { return nil }
            }
        }
        // Edges (a, b, operand), snapped, without zero-length ones.
        var edges: [(a: Point, b: Point, k: Int)] = []
        for (k, path) in operands.enumerated() {
            guard let lines = try? Flattener.flatten(path, tolerance: tol) else { continue }
            for line in lines where line.points.count > 1 {
                let pts = line.points.map(snap)
                for i in pts.indices {
                    let a = pts[i], b = pts[(i + 1) % pts.count]
                    if a != b { edges.append((a, b, k)) }
                }
                if edges.count > maxEdges { return nil }
            }
        }
        // Split points along each edge (parameters in 0…1), found by sweeping the edges in
        // order of their left end.
        var cuts: [[Double]] = Array(repeating: [], count: edges.count)
        let order = edges.indices.sorted { min(edges[$0].a.x, edges[$0].b.x) < min(edges[$1].a.x, edges[$1].b.x) }
        for (oi, i) in order.enumerated() {
            let e = edges[i]
            let maxX = max(e.a.x, e.b.x), minY = min(e.a.y, e.b.y), maxY = max(e.a.y, e.b.y)
            for j in order[(oi + 1)...] {
                let f = edges[j]
                if min(f.a.x, f.b.x) > maxX { break }
                if max(f.a.y, f.b.y) < minY || min(f.a.y, f.b.y) > maxY { continue }
                let (ti, tj) = crossings(e.a, e.b, f.a, f.b)
                cuts[i] += ti; cuts[j] += tj
            }
        }
        // The pieces, snapped.
        var pieces: [(a: Point, b: Point, k: Int)] = []
        for (i, e) in edges.enumerated() {
            var prev = e.a
            for t in cuts[i].sorted() where t > 0 && t < 1 {
                let q = snap(e.a.lerp(to: e.b, t))
                if q != prev { pieces.append((prev, q, e.k)); prev = q }
            }
            if e.b != prev { pieces.append((prev, e.b, e.k)) }
        }
        // Each piece's sides: the operands' winding numbers at its middle ± a small step,
        // counted over the pieces whose rows span the point's (found through row buckets).
        let step = grid / 16
        let lowY = pieces.map { min($0.a.y, $0.b.y) }.min() ?? 0, highY = pieces.map { max($0.a.y, $0.b.y) }.max() ?? 0
        let rows = highY > lowY ? max(1, min(4096, pieces.count / 2)) : 1
        let rowHeight = highY > lowY ? (highY - lowY) / Double(rows) : 1
        func row(_ y: Double) -> Int {
            let r = (y - lowY) / rowHeight
            return r.isNaN ? 0 : Int(min(Double(rows - 1), max(0, r)))
        }
        var buckets: [[Int]] = Array(repeating: [], count: rows)
        for (i, q) in pieces.enumerated() {
            for r in row(min(q.a.y, q.b.y))...row(max(q.a.y, q.b.y)) { buckets[r].append(i) }
        }
        func inside(_ p: Point) -> Bool {
            var winding = Array(repeating: 0, count: operands.count)
            for i in buckets[row(p.y)] {
                let q = pieces[i]
                guard (q.a.y <= p.y) != (q.b.y <= p.y) else { continue }
                let x = q.a.x + (p.y - q.a.y) / (q.b.y - q.a.y) * (q.b.x - q.a.x)
                if x > p.x { winding[q.k] += q.b.y > q.a.y ? 1 : -1 }
            }
            var result = winding.first.map { $0 != 0 } ?? false
            for w in winding.dropFirst() {
                let v = w != 0
                switch op {
                case .union: result = result || v
                case .subtract: result = result && !v
                case .intersect: result = result && v
                case .exclude: result = result != v
                }
            }
            return result
        }
        struct Key: Hashable { var a: Point; var b: Point }
        var kept: [Key: Int] = [:]
        for q in pieces {
            let d = q.b - q.a, mid = (q.a + q.b) * 0.5
            // (−dy, dx) is the right of a → b (y down).
            let n = Point(-d.y, d.x).normalized * step
            let right = inside(mid + n), left = inside(mid - n)
            guard left != right else { continue }
            // The result on the right.
            let key = right ? Key(a: q.a, b: q.b) : Key(a: q.b, b: q.a)
            let reverse = Key(a: key.b, b: key.a)
            if kept[reverse] != nil { kept[reverse] = nil } else { kept[key] = 1 }
        }
        // Linked into loops, in an order that does not depend on the dictionary's (per-process)
        // hashing. Where regions touch at a point, a vertex has two edges out: the walk takes
        // the sharpest turn to the right (the result's side), so each region's boundary closes
        // on itself rather than running on into its neighbour's.
        let keys = kept.keys.sorted(by: { ($0.a.x, $0.a.y, $0.b.x, $0.b.y) < ($1.a.x, $1.a.y, $1.b.x, $1.b.y) })
        var outgoing: [Point: [Point]] = [:]
        for k in keys { outgoing[k.a, default: []].append(k.b) }
        var result: [Polyline] = []
        for start in keys {
            guard let outs = outgoing[start.a], outs.contains(start.b) else { continue }
            var loop = [start.a]
            var at = start.a, next = start.b
            while true {
                outgoing[at]?.removeAll { $0 == next }
                let incoming = next - at
                at = next
                if at == start.a { break }
                loop.append(at)
                guard let outs = outgoing[at], !outs.isEmpty else { break }
                next = outs.max(by: { turn(incoming, $0 - at) < turn(incoming, $1 - at) })!
            }
            let merged = collinearMerged(loop)
            if merged.count >= 3 { result.append(Polyline(points: merged, isClosed: true)) }
        }
        return result
    }

    /// Parameters along ab and along cd where the segments meet (crossing, touching, or
    /// each end of one that lies on the other where they overlap).
    static func crossings(_ a: Point, _ b: Point, _ c: Point, _ d: Point) -> ([Double], [Double]) {
        let r = b - a, s = d - c, w = c - a
        let den = r.cross(s)
        if den != 0 {
            let t = w.cross(s) / den, u = w.cross(r) / den
            if t >= 0, t <= 1, u >= 0, u <= 1 { return ([t], [u]) }
            return ([], [])
        }
        // Parallel: only collinear ones meet.
        guard w.cross(r) == 0 else { return ([], []) }
        var ti: [Double] = [], tj: [Double] = []
        let rr = r.dot(r), ss = s.dot(s)
        for p in [c, d] { let t = (p - a).dot(r) / rr; if t > 0, t < 1 { ti.append(t) } }
        for p in [a, b] { let u = (p - c).dot(s) / ss; if u > 0, u < 1 { tj.append(u) } }
        return (ti, tj)
    }

    /// The signed angle from direction u to direction v, positive turning right (y down).
    static func turn(_ u: Point, _ v: Point) -> Double { atan2(u.cross(v), u.dot(v)) }

    /// A closed polygon without the vertices that lie on the line through their neighbours.
    static func collinearMerged(_ pts: [Point]) -> [Point] {
        var out = pts
        var changed = true
        while changed, out.count > 3 {
            changed = false
            var i = 0
            while i < out.count, out.count > 3 {
                let p = out[(i + out.count - 1) % out.count], q = out[i], r = out[(i + 1) % out.count]
                let u = q - p, v = r - q
                if abs(u.cross(v)) <= 1e-12 * u.length * v.length, u.dot(v) > 0 {
                    out.remove(at: i); changed = true
                } else { i += 1 }
            }
        }
        return out
    }
}
