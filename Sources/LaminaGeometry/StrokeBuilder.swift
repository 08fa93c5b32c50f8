import Foundation

/// Emits stroke pieces: interior triangles and a coverage fringe centred on the outline.
///
/// With anti-aliasing, the opaque core is inset by half a device pixel and a fringe one
/// device pixel wide runs from coverage `peak` at the core to 0 outside, so the 50 % contour
/// lies on the exact outline. Lines thinner than a device pixel (and hairlines, width 0)
/// are drawn one device pixel wide with `peak` = width in pixels (1 for hairlines).
struct StrokeBuilder {
    var points: [Point] = []
    var coverage: [Float] = []
    var distance: [Float] = []
    var interior: [UInt32] = []
    var fringeIndices: [UInt32] = []
    var totalLength = 0.0
    /// `Mesh.coverageScale` of the stroke's mesh.
    var coverageScale = 1.0

    let halfWidth: Double      // of the outline
    let core: Double           // half width of the opaque core
    let fringe: Double         // fringe width (0 without anti-aliasing)
    let peak: Float
    let tolerance: Double
    let style: StrokeStyle

    init(width: Double, scale: Double, antialias: Bool, tolerance: Double, style: StrokeStyle) {
        let px = 1 / scale
        var w = width
        var peak: Float = 1
        if w == 0 { w = px } else if antialias && w < px { peak = Float(w / px); w = px }
        halfWidth = w / 2
        fringe = antialias ? px : 0
        core = max(0, halfWidth - fringe / 2)
        self.peak = peak
        self.tolerance = tolerance
        self.style = style
    }

    mutating func mesh() -> Mesh {
        var v: [MeshVertex] = []
        v.reserveCapacity(points.count)
        for i in 0 ..< points.count {
            v.append(MeshVertex(x: Float(points[i].x), y: Float(points[i].y), coverage: coverage[i], distance: distance[i]))
        }
        return Mesh(vertices: v, indices: interior + fringeIndices, interiorIndexCount: interior.count,
                    bounds: MeshBuilder.bounds(of: v), totalLength: totalLength)
    }

    @inline(__always) mutating func add(_ p: Point, _ c: Float, _ d: Double) -> UInt32 {
        points.append(p); coverage.append(c); distance.append(Float(d))
        return UInt32(points.count - 1)
    }

    mutating func tri(_ a: UInt32, _ b: UInt32, _ c: UInt32) { interior.append(a); interior.append(b); interior.append(c) }

    /// A fringe strip along `pts` with outward `normals`: coverage `peak` on the points, 0 one
    /// fringe width out.
    mutating func strip(_ pts: [Point], _ normals: [Point], _ d: Double) {
        guard fringe > 0, pts.count >= 2 else { return }
        var prevIn = add(pts[0], peak, d), prevOut = add(pts[0] + normals[0] * fringe, 0, d)
        for i in 1 ..< pts.count {
            let inner = add(pts[i], peak, d), outer = add(pts[i] + normals[i] * fringe, 0, d)
            fringeIndices += [prevIn, inner, outer, prevIn, outer, prevOut]
            prevIn = inner; prevOut = outer
        }
    }

    /// Angle step for arcs of radius r within the flattening tolerance.
    func arcSteps(_ angle: Double, radius r: Double) -> Int {
        guard r > tolerance else { return max(1, Int((angle / (.pi / 2)).rounded(.up))) }
        let step = 2 * acos(1 - tolerance / r)
        return max(1, min(1024, Int((angle / step).rounded(.up))))
    }

    /// A fan around `c` from direction `from` turning by `angle` (sign gives the way), with its
    /// fringe: round joins and caps, dots.
    mutating func arc(_ c: Point, from: Point, angle: Double, _ d: Double) {
        let steps = arcSteps(abs(angle), radius: halfWidth)
        let center = add(c, peak, d)
        var dirs: [Point] = []
        dirs.reserveCapacity(steps + 1)
        for k in 0 ... steps {
            let t = angle * Double(k) / Double(steps)
            let ct = cos(t), st = sin(t)
            dirs.append(Point(from.x * ct - from.y * st, from.x * st + from.y * ct))
        }
        if core > 0 {
            var prev = add(c + dirs[0] * core, peak, d)
            for k in 1 ... steps {
                let cur = add(c + dirs[k] * core, peak, d)
                tri(center, prev, cur); prev = cur
            }
        }
        strip(dirs.map { c + $0 * core }, dirs, d)
    }

    mutating func stroke(_ r: StrokeTessellator.Run) {
        let p = r.points
        if p.count == 1 { dot(p[0], r.dotDirection, r.distances[0]); return }
        let n = p.count
        let segCount = r.closed ? n : n - 1
        var dirs: [Point] = []
        dirs.reserveCapacity(segCount)
        for i in 0 ..< segCount { dirs.append((p[(i + 1) % n] - p[i]).normalized) }
        for i in 0 ..< segCount {
            let d0 = r.distances[i]
            let d1 = i + 1 < n ? r.distances[i + 1] : r.closingDistance
            segment(p[i], p[(i + 1) % n], dirs[i], d0, d1)
        }
        if r.closed {
            for i in 0 ..< n { join(p[i], dirs[(i + segCount - 1) % segCount], dirs[i], r.distances[i]) }
        } else {
            for i in 1 ..< n - 1 { join(p[i], dirs[i - 1], dirs[i], r.distances[i]) }
            cap(p[0], -dirs[0], r.distances[0])
            cap(p[n - 1], dirs[segCount - 1], r.distances[n - 1])
        }
    }

    mutating func segment(_ a: Point, _ b: Point, _ u: Point, _ da: Double, _ db: Double) {
        let nrm = u.perpendicular
        if core > 0 {
            let i0 = add(a + nrm * core, peak, da), i1 = add(b + nrm * core, peak, db)
            let i2 = add(b - nrm * core, peak, db), i3 = add(a - nrm * core, peak, da)
            tri(i0, i1, i2); tri(i0, i2, i3)
        }
        if fringe > 0 {
            for side in [nrm, -nrm] {
                let a0 = add(a + side * core, peak, da), b0 = add(b + side * core, peak, db)
                let a1 = add(a + side * (core + fringe), 0, da), b1 = add(b + side * (core + fringe), 0, db)
                fringeIndices += [a0, b0, b1, a0, b1, a1]
            }
        }
    }

    mutating func join(_ p: Point, _ u1: Point, _ u2: Point, _ d: Double) {
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
            arc(p, from: n1, angle: -s * turn * (cr == 0 ? 1 : 1), d)
        case .miter:
            let half = cos(turn / 2)
            if half > 1e-12 && 1 / half <= style.miterLimit {
                let m = (n1 + n2).normalized
                let tip = p + m * (core / half)
                let c = add(p, peak, d)
                if core > 0 {
                    let a = add(p + n1 * core, peak, d), t = add(tip, peak, d), b = add(p + n2 * core, peak, d)
                    tri(c, a, t); tri(c, t, b)
                }
                strip([p + n1 * core, tip, tip, p + n2 * core], [n1, n1, n2, n2], d)
                // The fringe corner at the tip: the strip's inner points coincide, fill the wedge.
                return
            }
            bevel(p, n1, n2, u1, d)
        case .bevel:
            bevel(p, n1, n2, u1, d)
        }
    }

    mutating func bevel(_ p: Point, _ n1: Point, _ n2: Point, _ u1: Point, _ d: Double) {
        var m = (n1 + n2).normalized
        if m == .zero { m = u1 }
        if core > 0 {
            let c = add(p, peak, d), a = add(p + n1 * core, peak, d), b = add(p + n2 * core, peak, d)
            tri(c, a, b)
        }
        strip([p + n1 * core, p + n1 * core, p + n2 * core, p + n2 * core], [n1, m, m, n2], d)
    }

    /// A cap at `p` facing outward along `e`.
    mutating func cap(_ p: Point, _ e: Point, _ d: Double) {
        let nrm = e.perpendicular
        switch style.lineCap {
        case .butt:
            strip([p + nrm * core, p + nrm * core, p - nrm * core, p - nrm * core], [nrm, e, e, -nrm], d)
        case .square:
            let ext = max(0, halfWidth - fringe / 2)
            let q = p + e * ext
            if core > 0 {
                let a = add(p + nrm * core, peak, d), b = add(q + nrm * core, peak, d)
                let c = add(q - nrm * core, peak, d), f = add(p - nrm * core, peak, d)
                tri(a, b, c); tri(a, c, f)
            }
            strip([p + nrm * core, q + nrm * core, q + nrm * core, q - nrm * core, q - nrm * core, p - nrm * core],
                  [nrm, nrm, e, e, -nrm, -nrm], d)
        case .round:
            // From +n through e to −n: e = n turned by −90° (n = e⊥ = (−e.y, e.x)).
            arc(p, from: nrm, angle: -.pi, d)
        }
    }

    /// A zero-length subpath or dash: a circle (round caps) or a square (square caps) facing `dir`.
    mutating func dot(_ p: Point, _ dir: Point, _ d: Double) {
        switch style.lineCap {
        case .butt: return
        case .round: arc(p, from: Point(1, 0), angle: 2 * .pi, d)
        case .square:
            let e = dir == .zero ? Point(1, 0) : dir
            let nrm = e.perpendicular
            let c = core, ext = max(0, halfWidth - fringe / 2)
            let corners = [p + e * ext + nrm * c, p - e * ext + nrm * c, p - e * ext - nrm * c, p + e * ext - nrm * c]
            if c > 0 && ext > 0 {
                let i = corners.map { add($0, peak, d) }
                tri(i[0], i[1], i[2]); tri(i[0], i[2], i[3])
            }
            strip([corners[0], corners[0], corners[1], corners[1], corners[2], corners[2], corners[3], corners[3], corners[0]],
                  [e, nrm, nrm, -e, -e, -nrm, -nrm, e, e], d)
        }
    }
}
