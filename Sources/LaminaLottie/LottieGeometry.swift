import LaminaGeometry

/// Lottie's flat bezier paths (`BezPath`) as LaminaGeometry's `Path` and back, for the shape
/// modifiers whose geometry lives there: offset path (`PathOffset`).
extension BezPath {
    /// The flat vector as a `Path`: a segment whose handles are both zero is a line.
    static func geometryPath(_ f: [Double]) -> Path {
        var p = Path()
        subpaths(f) { base, n in
            guard n > 0 else { return }
            let closed = f[base - 2] != 0
            func v(_ j: Int) -> Point { Point(f[base + 6 * (j % n)], f[base + 6 * (j % n) + 1]) }
            func inT(_ j: Int) -> Point { Point(f[base + 6 * (j % n) + 2], f[base + 6 * (j % n) + 3]) }
            func outT(_ j: Int) -> Point { Point(f[base + 6 * (j % n) + 4], f[base + 6 * (j % n) + 5]) }
            p.move(to: v(0))
            for j in 0..<(closed ? n : n - 1) {
                let o = outT(j), i = inT(j + 1)
                if o == .zero, i == .zero { p.addLine(to: v(j + 1)) }
                else { p.addCurve(to: v(j + 1), control1: v(j) + o, control2: v(j + 1) + i) }
            }
            if closed { p.closeSubpath() }
        }
        return p
    }

    /// A `Path` as the flat vector (quadratics raised to cubics; a closed subpath that ends
    /// where it starts keeps one vertex there).
    static func flat(_ path: Path) -> [Double] {
        var out: [Double] = []
        var verts: [Double] = []
        var current = Point.zero
        func finish(_ closed: Bool) {
            guard !verts.isEmpty else { return }
            let n = verts.count / 6
            if closed, n > 1, abs(verts[6 * (n - 1)] - verts[0]) < 1e-9, abs(verts[6 * (n - 1) + 1] - verts[1]) < 1e-9 {
                verts[2] = verts[6 * (n - 1) + 2]; verts[3] = verts[6 * (n - 1) + 3]
                verts.removeLast(6)
            }
            out += [closed ? 1 : 0, Double(verts.count / 6)] + verts
            verts = []
        }
        func add(_ p: Point, out o: Point, in i: Point) {
            if !verts.isEmpty { verts[verts.count - 2] = o.x; verts[verts.count - 1] = o.y }
            verts += [p.x, p.y, i.x, i.y, 0, 0]
            current = p
        }
        for e in path.elements {
            switch e {
            case .move(let p): finish(false); add(p, out: .zero, in: .zero)
            case .line(let p): add(p, out: .zero, in: .zero)
            case .quad(let c, let p):
                add(p, out: (c - current) * (2.0 / 3), in: (c - p) * (2.0 / 3))
            case .cubic(let c1, let c2, let p): add(p, out: c1 - current, in: c2 - p)
            case .close: finish(true)
            }
        }
        finish(false)
        return out
    }

    /// Offset path (`op`): the paths moved `amount` outward (`PathOffset`), joins 1 miter
    /// (with `miterLimit`), 2 round, 3 bevel.
    static func offset(_ f: [Double], amount: Double, join: Int, miterLimit: Double) -> [Double] {
        guard amount != 0 else { return f }
        // Within ±10⁶ units (a hostile amount cannot make coordinates overflow).
        let amount = min(max(amount, -1e6), 1e6)
        let j: LineJoin = join == 2 ? .round : join == 3 ? .bevel : .miter
        return flat(PathOffset.offset(geometryPath(f), by: amount, join: j, miterLimit: miterLimit))
    }
}

extension BezPath {
    /// Merge paths' modes 2–5 (add, subtract, intersect, exclude intersections): the
    /// operands (each a flat path, the topmost first) combined in order by `PathBoolean`,
    /// as polygons (within 0.05 units); nil where they have more edges than it takes.
    static func merged(_ operands: [[Double]], mode: Int) -> [Double]? {
        let op: PathBoolean.Operation
        switch mode {
        case 2: op = .union
        case 3: op = .subtract
        case 4: op = .intersect
        default: op = .exclude
        }
        guard let polygons = PathBoolean.combine(operands.map(geometryPath), op, tolerance: 0.05) else { return nil }
        var out: [Double] = []
        for p in polygons {
            out += [1, Double(p.points.count)]
            for q in p.points { out += [q.x, q.y, 0, 0, 0, 0] }
        }
        return out
    }
}

extension BezPath {
    /// The most edges merge paths combine (`PathBoolean.maxEdges`).
    static var mergeEdgeLimit: Int { PathBoolean.maxEdges }
}

extension BezPath {
    /// The part of a flat path a trim keeps, [lo, hi] of its length (`Trim.range`; past 1
    /// wrapping onto its start), as lines (`PathTrim`); the whole range keeps the path.
    static func trimmed(_ f: [Double], _ range: (Double, Double)) -> [Double] {
        if range.0 <= 0, range.1 >= 1 { return f }
        return flat(PathTrim.trim(geometryPath(f), from: range.0, to: range.1))
    }

    /// Path `k` of `paths` under an individual trim (m 2), which cuts the paths laid end to
    /// end as one run: the part of the run's range [lo, hi] that falls on path k, as lines.
    static func trimmedRun(_ paths: [[Double]], _ k: Int, _ range: (Double, Double)) -> [Double] {
        let geometry = paths.map(geometryPath)
        let lengths = geometry.map { PathTrim.length($0) }
        let total = lengths.reduce(0, +), before = lengths[..<k].reduce(0, +), own = lengths[k]
        guard total > 0, own > 0 else { return [] }
        var out = Path()
        for (a, b) in [(range.0, min(range.1, 1)), (0, max(range.1 - 1, 0))] {
            let lo = max(a * total, before), hi = min(b * total, before + own)
            if hi > lo { out.elements += PathTrim.trim(geometry[k], from: (lo - before) / own, to: (hi - before) / own).elements }
        }
        return flat(out)
    }

    /// Twist (`tw`, Lamina's definition: `PathTwist`): every point turned about `center` by
    /// `degrees` × its distance from the centre / the radius of the path's bounds, as lines.
    static func twisted(_ f: [Double], degrees: Double, center: [Double]) -> [Double] {
        guard degrees != 0 else { return f }
        let c = Point(center.first ?? 0, center.count > 1 ? center[1] : 0)
        return flat(PathTwist.twist(geometryPath(f), degrees: min(max(degrees, -1e6), 1e6), center: c))
    }
}
