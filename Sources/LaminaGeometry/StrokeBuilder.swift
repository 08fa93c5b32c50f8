import Foundation

/// Emits a stroke's pieces at their true width — a quad per segment, a wedge per join, caps
/// and dots — as triangles (they overlap at joins and where the path crosses itself);
/// `StrokeTessellator.coverageMesh` unions them into the stroke's coverage mesh. A hairline
/// (width 0) is one device pixel wide.
struct StrokeBuilder {
    var points: [Point] = []
    /// The pieces' triangles, three indices into `points` each.
    var interior: [UInt32] = []
    var totalLength = 0.0
    /// `Mesh.coverageScale` of the stroke's mesh.
    var coverageScale = 1.0

    let halfWidth: Double      // of the outline
    let tolerance: Double
    let style: StrokeStyle

    init(width: Double, scale: Double, tolerance: Double, style: StrokeStyle) {
        halfWidth = (width == 0 ? 1 / scale : width) / 2
        self.tolerance = tolerance
        self.style = style
    }

    @inline(__always) mutating func add(_ p: Point) -> UInt32 {
        points.append(p)
        return UInt32(points.count - 1)
    }

    mutating func tri(_ a: UInt32, _ b: UInt32, _ c: UInt32) { interior.append(a); interior.append(b); interior.append(c) }

    /// Angle step for arcs of radius r within the flattening tolerance.
    func arcSteps(_ angle: Double, radius r: Double) -> Int {
        guard r > tolerance else { return max(1, Int((angle / (.pi / 2)).rounded(.up))) }
        let step = 2 * acos(1 - tolerance / r)
        return max(1, min(1024, Int((angle / step).rounded(.up))))
    }

    /// A fan around `c` from direction `from` turning by `angle` (sign gives the way): round
    /// joins and caps, dots.
    mutating func arc(_ c: Point, from: Point, angle: Double) {
        let steps = arcSteps(abs(angle), radius: halfWidth)
        let center = add(c)
        guard halfWidth > 0 else { return }
        var prev = add(c + from * halfWidth)
        for k in 1 ... steps {
            let t = angle * Double(k) / Double(steps)
            let ct = cos(t), st = sin(t)
            let cur = add(c + Point(from.x * ct - from.y * st, from.x * st + from.y * ct) * halfWidth)
            tri(center, prev, cur); prev = cur
        }
    }

    mutating func stroke(_ r: StrokeTessellator.Run) {
        let p = r.points
        if p.count == 1 { dot(p[0], r.dotDirection); return }
        let n = p.count
        let segCount = r.closed ? n : n - 1
        var dirs: [Point] = []
        dirs.reserveCapacity(segCount)
        for i in 0 ..< segCount { dirs.append((p[(i + 1) % n] - p[i]).normalized) }
        for i in 0 ..< segCount { segment(p[i], p[(i + 1) % n], dirs[i]) }
        if r.closed {
            for i in 0 ..< n { join(p[i], dirs[(i + segCount - 1) % segCount], dirs[i]) }
        } else {
            for i in 1 ..< n - 1 { join(p[i], dirs[i - 1], dirs[i]) }
            cap(p[0], -dirs[0])
            cap(p[n - 1], dirs[segCount - 1])
        }
    }

    mutating func segment(_ a: Point, _ b: Point, _ u: Point) {
        guard halfWidth > 0 else { return }
        let nrm = u.perpendicular * halfWidth
        let i0 = add(a + nrm), i1 = add(b + nrm), i2 = add(b - nrm), i3 = add(a - nrm)
        tri(i0, i1, i2); tri(i0, i2, i3)
    }

    mutating func join(_ p: Point, _ u1: Point, _ u2: Point) {
        let cr = u1.cross(u2), dt = u1.dot(u2)
        if abs(cr) < 1e-12 && dt > 0 { return }
        let s: Double = cr > 0 ? -1 : 1
        let n1 = u1.perpendicular * s, n2 = u2.perpendicular * s
        let turn = atan2(abs(cr), dt)
        var kind = style.lineJoin
        // Flattened curves turn by small angles at each vertex: join them round, as the curve.
        if turn < 10 * .pi / 180 && kind != .miter { kind = .round }
        switch kind {
        case .round:
            arc(p, from: n1, angle: -s * turn)
        case .miter:
            let half = cos(turn / 2)
            if half > 1e-12 && 1 / half <= style.miterLimit {
                let tip = p + (n1 + n2).normalized * (halfWidth / half)
                let c = add(p)
                if halfWidth > 0 {
                    let a = add(p + n1 * halfWidth), t = add(tip), b = add(p + n2 * halfWidth)
                    tri(c, a, t); tri(c, t, b)
                }
                return
            }
            bevel(p, n1, n2)
        case .bevel:
            bevel(p, n1, n2)
        }
    }

    mutating func bevel(_ p: Point, _ n1: Point, _ n2: Point) {
        guard halfWidth > 0 else { return }
        let c = add(p), a = add(p + n1 * halfWidth), b = add(p + n2 * halfWidth)
        tri(c, a, b)
    }

    /// A cap at `p` facing outward along `e` (butt: none).
    mutating func cap(_ p: Point, _ e: Point) {
        let nrm = e.perpendicular
        switch style.lineCap {
        case .butt:
            return
        case .square:
            guard halfWidth > 0 else { return }
            let q = p + e * halfWidth
            let a = add(p + nrm * halfWidth), b = add(q + nrm * halfWidth)
            let c = add(q - nrm * halfWidth), f = add(p - nrm * halfWidth)
            tri(a, b, c); tri(a, c, f)
        case .round:
            // From +n through e to −n: e = n turned by −90° (n = e⊥ = (−e.y, e.x)).
            arc(p, from: nrm, angle: -.pi)
        }
    }

    /// A zero-length subpath or dash: a circle (round caps) or a square (square caps) facing `dir`.
    mutating func dot(_ p: Point, _ dir: Point) {
        switch style.lineCap {
        case .butt: return
        case .round: arc(p, from: Point(1, 0), angle: 2 * .pi)
        case .square:
            guard halfWidth > 0 else { return }
            let e = (dir == .zero ? Point(1, 0) : dir) * halfWidth
            let nrm = e.perpendicular
            let i = [p + e + nrm, p - e + nrm, p - e - nrm, p + e - nrm].map { add($0) }
            tri(i[0], i[1], i[2]); tri(i[0], i[2], i[3])
        }
    }
}
