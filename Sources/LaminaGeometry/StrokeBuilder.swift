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
    /// When set, `stroke` emits each run's outline (`outline`) into `outlines` instead of
    /// its pieces' triangles.
    var outlining = false
    /// The runs' outlines (`outlining`): closed polygons whose nonZero fill is the union of
    /// the pieces.
    var outlines: [[Point]] = []

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
        if outlining { outline(r); return }
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

// MARK: Outlines

extension StrokeBuilder {
    /// The points of an arc around `c` of radius `halfWidth` from direction `from` turning by
    /// `angle`, strictly between its ends (the steps of `arc`).
    func arcInterior(_ c: Point, from: Point, angle: Double, into out: inout [Point]) {
        let steps = arcSteps(abs(angle), radius: halfWidth)
        guard steps > 1 else { return }
        for k in 1 ..< steps {
            let t = angle * Double(k) / Double(steps)
            let ct = cos(t), st = sin(t)
            out.append(c + Point(from.x * ct - from.y * st, from.x * st + from.y * ct) * halfWidth)
        }
    }

    /// The run's outline, as one closed polygon (an open run: its left side forward, the end
    /// cap, its right side backward, the start cap) or two (a closed run: each side a loop,
    /// the right one reversed), into `outlines`. Its nonZero fill is the union of the pieces
    /// `stroke` makes (segment quads, joins, caps), with far fewer edges and crossings for the
    /// sweep:
    ///
    /// * At a join the outer side takes the join's piece (the arc, the miter tip, the bevel);
    ///   the inner side goes from the incoming segment's corner through the vertex to the
    ///   outgoing one's. As chains, the outline is then the sum of the pieces' boundaries
    ///   (the segments' end and start sides at the vertex cancel against the join's sides and
    ///   the path through the vertex), so its winding number at any point is the number of
    ///   pieces covering it: at least 1 inside the union, and 0 outside.
    /// * Where the inner sides' two offset lines meet within the first half of the outgoing
    ///   segment and the last half of the incoming one (at distance h·tan(turn/2) from the
    ///   corners), the outline takes that crossing instead of the detour through the vertex.
    ///   The detour cut off is a loop inside both segments' quads, where the winding is at
    ///   least 2; taking it away changes the winding there by one, so it stays nonzero, and
    ///   nothing outside the union changes. A smoothly flattened curve then has a simple
    ///   outline, which the fill's fast path (`MonotoneSweep`) takes.
    mutating func outline(_ r: StrokeTessellator.Run) {
        guard halfWidth > 0 else { return }
        var p: [Point] = []
        p.reserveCapacity(r.points.count)
        for q in r.points where p.last != q { p.append(q) }
        var closed = r.closed
        if closed, p.count > 1, p.first == p.last { p.removeLast() }
        if p.count < 3 { closed = false }
        if r.points.count == 1 { outlineDot(r.points[0], r.dotDirection); return }
        let n = p.count
        if n < 2 { return }   // a run whose points all coincide draws nothing (as its pieces)
        let segCount = closed ? n : n - 1
        var dirs: [Point] = [], lengths: [Double] = []
        dirs.reserveCapacity(segCount); lengths.reserveCapacity(segCount)
        for i in 0 ..< segCount {
            let d = p[(i + 1) % n] - p[i]
            let l = d.length
            lengths.append(l); dirs.append(d / l)
        }
        let h = halfWidth
        var left: [Point] = [], right: [Point] = []
        left.reserveCapacity(n + 8); right.reserveCapacity(n + 8)
        /// The join at vertex `v` between segments `a` (in) and `b` (out).
        func join(_ v: Int, _ a: Int, _ b: Int) {
            let q = p[v], u1 = dirs[a], u2 = dirs[b]
            let cr = u1.cross(u2), dt = u1.dot(u2)
            if abs(cr) < 1e-12 && dt > 0 {
                left.append(q + u1.perpendicular * h); right.append(q - u1.perpendicular * h)
                return
            }
            let s: Double = cr > 0 ? -1 : 1
            let n1 = u1.perpendicular * s, n2 = u2.perpendicular * s
            let turn = atan2(abs(cr), dt)
            var kind = style.lineJoin
            if turn < 10 * .pi / 180 && kind != .miter { kind = .round }
            // Outer side: the join's piece.
            var outer: [Point] = [q + n1 * h]
            switch kind {
            case .round:
                arcInterior(q, from: n1, angle: -s * turn, into: &outer)
            case .miter:
                let half = cos(turn / 2)
                if half > 1e-12 && 1 / half <= style.miterLimit { outer.append(q + (n1 + n2).normalized * (h / half)) }
            case .bevel:
                break
            }
            outer.append(q + n2 * h)
            // Inner side: the offset lines' crossing, or the detour through the vertex.
            var inner: [Point]
            let back = h * abs(cr) / (1 + dt)   // h·tan(turn/2)
            if dt > -1 + 1e-9, back <= lengths[a] / 2, back <= lengths[b] / 2 {
                inner = [q - (n1 + n2) * (h / (1 + dt))]
            } else {
                inner = [q - n1 * h, q, q - n2 * h]
            }
            if s > 0 { left += outer; right += inner } else { left += inner; right += outer }
        }
        if closed {
            for v in 0 ..< n { join(v, (v + n - 1) % n, v) }
            right.reverse()
            outlines.append(left)
            outlines.append(right)
            return
        }
        left.append(p[0] + dirs[0].perpendicular * h); right.append(p[0] - dirs[0].perpendicular * h)
        for v in 1 ..< n - 1 { join(v, v - 1, v) }
        let e = dirs[segCount - 1], end = p[n - 1]
        left.append(end + e.perpendicular * h); right.append(end - e.perpendicular * h)
        var poly = left
        poly.reserveCapacity(left.count + right.count + 16)
        capPoints(end, e, into: &poly)
        poly += right.reversed()
        capPoints(p[0], -dirs[0], into: &poly)
        outlines.append(poly)
    }

    /// A cap's points at `q` facing outward along `e`, from q + e⊥·h to q − e⊥·h, strictly
    /// between them (butt: none).
    func capPoints(_ q: Point, _ e: Point, into out: inout [Point]) {
        let nrm = e.perpendicular
        switch style.lineCap {
        case .butt: return
        case .square:
            out.append(q + (nrm + e) * halfWidth); out.append(q + (e - nrm) * halfWidth)
        case .round:
            arcInterior(q, from: nrm, angle: -.pi, into: &out)
        }
    }

    /// A zero-length run's outline: the circle or the square `dot` makes, turning the way
    /// every run's outline turns (as a segment's quad: a + n, b + n, b − n, a − n), so that
    /// where a dot and another run overlap their windings add up instead of cancelling.
    mutating func outlineDot(_ q: Point, _ dir: Point) {
        switch style.lineCap {
        case .butt: return
        case .round:
            let steps = arcSteps(2 * .pi, radius: halfWidth)
            var ring: [Point] = [q + Point(halfWidth, 0)]
            ring.reserveCapacity(steps)
            arcInterior(q, from: Point(1, 0), angle: -2 * .pi, into: &ring)
            outlines.append(ring)
        case .square:
            let e = (dir == .zero ? Point(1, 0) : dir) * halfWidth
            let nrm = e.perpendicular
            outlines.append([q + e - nrm, q - e - nrm, q - e + nrm, q + e + nrm])
        }
    }
}
