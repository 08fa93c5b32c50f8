import LaminaGeometry

/// Brute-force references the tessellator is checked against: simple O(n²) code with no
/// cleverness, so that a bug is unlikely to be shared.
enum Reference {
    /// Winding number of `p` with respect to closed `polygons` (crossing count, y down).
    static func winding(_ p: Point, _ polygons: [[Point]]) -> Int {
        var w = 0
        for poly in polygons where poly.count >= 2 {
            for i in 0 ..< poly.count {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                if a.y <= p.y {
                    if b.y > p.y && (b - a).cross(p - a) > 0 { w += 1 }
                } else if b.y <= p.y && (b - a).cross(p - a) < 0 { w -= 1 }
            }
        }
        return w
    }

    static func inside(_ p: Point, _ polygons: [[Point]], _ rule: FillRule) -> Bool {
        let w = winding(p, polygons)
        return rule == .nonZero ? w != 0 : w & 1 != 0
    }

    /// Exact filled area by slabs: every vertex and pairwise crossing y is a slab boundary;
    /// inside each slab the edges do not cross, so the area is a sum of trapezoids.
    static func area(_ polygons: [[Point]], _ rule: FillRule) -> Double {
        var edges: [(Point, Point)] = []
        var ys: [Double] = []
        for poly in polygons where poly.count >= 2 {
            for i in 0 ..< poly.count {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                ys.append(a.y)
                if a.y != b.y { edges.append((a, b)) }
            }
        }
        for i in 0 ..< edges.count {
            for j in i + 1 ..< edges.count {
                let (a, b) = edges[i], (c, d) = edges[j]
                let r = b - a, s = d - c
                let den = r.cross(s)
                if den == 0 { continue }
                let t = (c - a).cross(s) / den, u = (c - a).cross(r) / den
                if t > 0 && t < 1 && u > 0 && u < 1 { ys.append(a.y + t * r.y) }
            }
        }
        ys.sort()
        var total = 0.0
        for k in 0 ..< max(0, ys.count - 1) {
            let y0 = ys[k], y1 = ys[k + 1]
            if y1 <= y0 { continue }
            let ym = (y0 + y1) / 2
            var xs: [(xm: Double, x0: Double, x1: Double, w: Int)] = []
            for (a, b) in edges {
                let lo = min(a.y, b.y), hi = max(a.y, b.y)
                if lo <= y0 && hi >= y1 {
                    func xAt(_ y: Double) -> Double { a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y) }
                    xs.append((xAt(ym), xAt(y0), xAt(y1), a.y < b.y ? 1 : -1))
                }
            }
            xs.sort { $0.xm < $1.xm }
            var w = 0
            for i in 0 ..< xs.count {
                w += xs[i].w
                let ins = rule == .nonZero ? w != 0 : w & 1 != 0
                if ins && i + 1 < xs.count {
                    total += ((xs[i + 1].x0 - xs[i].x0) + (xs[i + 1].x1 - xs[i].x1)) / 2 * (y1 - y0)
                }
            }
        }
        return total
    }
}

struct Validity {
    var indicesInRange = true
    var maxCoverage = 0
    var mismatches = 0
    var samples = 0
}

extension TriangleList {
    /// Samples a grid over the bounds: each sample must be in at most one triangle (strictly
    /// inside), and in one exactly when the reference says it is inside. Samples very close
    /// to an edge of the input are skipped.
    func validate(against polygons: [[Point]], rule: FillRule, grid: Int = 48) -> Validity {
        var v = Validity()
        for i in indices where Int(i) >= points.count { v.indicesInRange = false }
        if !v.indicesInRange { return v }
        let all = polygons.flatMap { $0 }
        guard let f = all.first else { return v }
        var x0 = f.x, x1 = f.x, y0 = f.y, y1 = f.y
        for p in all { x0 = min(x0, p.x); x1 = max(x1, p.x); y0 = min(y0, p.y); y1 = max(y1, p.y) }
        let scale = max(x1 - x0, y1 - y0, 1e-300)
        let margin = scale * 1e-7
        for gy in 0 ..< grid {
            for gx in 0 ..< grid {
                // Irrational offsets keep samples off grid-aligned edges.
                let p = Point(x0 + (x1 - x0) * (Double(gx) + 0.5137) / Double(grid),
                              y0 + (y1 - y0) * (Double(gy) + 0.4713) / Double(grid))
                if nearEdge(p, polygons, margin) { continue }
                var count = 0
                for t in 0 ..< triangleCount {
                    let (a, b, c) = triangle(t)
                    if strictlyInside(p, a, b, c, margin) { count += 1 }
                }
                v.samples += 1
                v.maxCoverage = max(v.maxCoverage, count)
                let expected = Reference.inside(p, polygons, rule)
                if (count > 0) != expected && !nearTriangleEdge(p, margin) { v.mismatches += 1 }
            }
        }
        return v
    }

    func nearTriangleEdge(_ p: Point, _ m: Double) -> Bool {
        for t in 0 ..< triangleCount {
            let (a, b, c) = triangle(t)
            if segDist(p, a, b) < m || segDist(p, b, c) < m || segDist(p, c, a) < m { return true }
        }
        return false
    }
}

func segDist(_ p: Point, _ a: Point, _ b: Point) -> Double {
    let d = b - a
    let l2 = d.lengthSquared
    let t = l2 > 0 ? max(0, min(1, (p - a).dot(d) / l2)) : 0
    return (p - (a + d * t)).length
}

func nearEdge(_ p: Point, _ polygons: [[Point]], _ m: Double) -> Bool {
    for poly in polygons where !poly.isEmpty {
        for i in 0 ..< poly.count where segDist(p, poly[i], poly[(i + 1) % poly.count]) < m { return true }
    }
    return false
}

func strictlyInside(_ p: Point, _ a: Point, _ b: Point, _ c: Point, _ m: Double) -> Bool {
    let d1 = (b - a).cross(p - a), d2 = (c - b).cross(p - b), d3 = (a - c).cross(p - c)
    let pos = d1 > 0 && d2 > 0 && d3 > 0, neg = d1 < 0 && d2 < 0 && d3 < 0
    return pos || neg
}


func rotate(_ polys: [[Point]], _ angle: Double) -> [[Point]] {
    let c = cos(angle), s = sin(angle)
    return polys.map { $0.map { Point($0.x * c - $0.y * s, $0.x * s + $0.y * c) } }
}

import Foundation
