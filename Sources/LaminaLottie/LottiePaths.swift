import LaminaWire

/// A Lottie bezier path: vertices with in and out tangents relative to them. As a flat number
/// vector (what keyframes interpolate): `[closed, n, x, y, ix, iy, ox, oy, …]` per subpath,
/// subpaths one after another.
enum BezPath {
    static let maxVertices = 100_000

    /// A shape value (`{"c": …, "v": …, "i": …, "o": …}`, or a one-element list of it).
    static func read(_ n: Node) throws(SceneError) -> [Double] {
        var node = n
        if case .array(let a) = n.json {
            guard a.count == 1 else { throw SceneError(path: n.path, "must be a shape object") }
            node = Node(a[0], n.path + "[0]")
        }
        _ = try node.object()
        let v = try node.required("v").array()
        guard v.count <= maxVertices else { throw SceneError(path: node.at("v"), "more than \(maxVertices) vertices") }
        let i = try node["i"]?.array() ?? [], o = try node["o"]?.array() ?? []
        var out: [Double] = [node["c"]?.bool() == true ? 1 : 0, Double(v.count)]
        out.reserveCapacity(2 + 6 * v.count)
        for j in 0..<v.count {
            let p = try v[j].numbers()
            let a = j < i.count ? try i[j].numbers() : [0, 0]
            let b = j < o.count ? try o[j].numbers() : [0, 0]
            guard p.count >= 2, a.count >= 2, b.count >= 2 else { throw SceneError(path: v[j].path, "must be a point [x, y]") }
            out += [p[0], p[1], a[0], a[1], b[0], b[1]]
        }
        return out
    }

    /// Keyframes of one subpath whose vertex counts differ, made one structure so that they
    /// morph as rlottie morphs them: a segment between paths A and B interpolates, point by
    /// point, the first m control points of each (m the smaller count of points; a closed
    /// path of n vertices has 3n + 1, an open one 3n − 2, in rlottie's order vertex, out
    /// handle, in handle, vertex …), closed (by a straight line) when A is. Each truncated
    /// path is written with N slots, N the most vertices of any key: its k + 1 vertices (the
    /// k-th of a fully drawn closed path is its first again), then vertices at the closing
    /// point (closed) or the end (open) with no handles, which draw nothing. Where a key ends
    /// one segment as one truncation and starts the next as another, it appears twice at its
    /// frame (the later wins there); before the first key the first path is drawn whole.
    /// Nil when nothing differs, or when keys mix open and closed paths or several subpaths.
    static func uniformMorph(_ keys: [Key]) -> [Key]? {
        guard keys.count > 1 else { return nil }
        func count(_ v: [Double]) -> Int? {
            guard v.count >= 2 else { return nil }
            let n = max(v[1].clampedInt, 0)
            return v.count == 2 + 6 * n && n > 0 ? n : nil
        }
        var ns: [Int] = []
        for k in keys { guard let n = count(k.v) else { return nil }; ns.append(n) }
        guard Set(ns).count > 1, Set(keys.map { $0.v[0] }).count == 1 else { return nil }
        let closed = keys[0].v[0] != 0, slots = ns.max()!
        func points(_ n: Int) -> Int { closed ? 3 * n + 1 : 3 * n - 2 }
        /// Path `v` (n vertices) truncated to k segments, in `slots` vertices.
        func rep(_ v: [Double], _ k: Int) -> [Double] {
            let n = count(v)!
            if k == (closed ? n : n - 1), n == slots { return v }
            func at(_ j: Int, _ c: Int) -> Double { v[2 + 6 * (j % n) + c] }
            var out: [Double] = [closed ? 1 : 0, Double(slots)]
            for j in 0...k {
                out += [at(j, 0), at(j, 1), j == 0 ? 0 : at(j, 2), j == 0 ? 0 : at(j, 3),
                        j < k ? at(j, 4) : 0, j < k ? at(j, 5) : 0]
            }
            let padX = closed ? at(0, 0) : at(k, 0), padY = closed ? at(0, 1) : at(k, 1)
            for _ in (k + 1)..<max(slots, k + 1) { out += [padX, padY, 0, 0, 0, 0] }
            return out
        }
        func full(_ i: Int) -> Int { closed ? ns[i] : ns[i] - 1 }
        var out: [Key] = []
        func add(_ t: Double, _ v: [Double], _ ease: [Easing], _ k: Key) {
            if let last = out.last, last.t == t, last.v == v { out[out.count - 1].ease = ease; return }
            var key = k
            key.t = t; key.v = v; key.ease = ease
            out.append(key)
        }
        add(keys[0].t, rep(keys[0].v, full(0)), [.linear], keys[0])
        for i in 0..<(keys.count - 1) {
            let a = keys[i], b = keys[i + 1]
            let hold = a.ease.first == .hold
            let k = hold ? full(i) : (min(points(ns[i]), points(ns[i + 1])) - 1) / 3
            add(a.t, rep(a.v, k), a.ease, a)
            if !hold { add(b.t, rep(b.v, k), [.linear], b) }
        }
        let last = keys[keys.count - 1]
        add(last.t, rep(last.v, full(keys.count - 1)), last.ease, last)
        return out
    }

    /// SVG path data for a flat vector (every segment a cubic, so shapes with the same vertex
    /// counts have the same structure and interpolate point by point).
    static func svg(_ f: [Double]) -> String {
        var s = ""
        var k = 0
        func fmt(_ x: Double) -> String { JSON.format((x * 1000).rounded() / 1000) }
        while k + 2 <= f.count {
            let closed = f[k] != 0, n = max(f[k + 1].clampedInt, 0)
            let base = k + 2
            k = base + 6 * n
            guard n > 0, k <= f.count else { break }
            func v(_ j: Int) -> (Double, Double) { (f[base + 6 * j], f[base + 6 * j + 1]) }
            func inT(_ j: Int) -> (Double, Double) { (f[base + 6 * j + 2], f[base + 6 * j + 3]) }
            func outT(_ j: Int) -> (Double, Double) { (f[base + 6 * j + 4], f[base + 6 * j + 5]) }
            let p0 = v(0)
            s += (s.isEmpty ? "" : " ") + "M\(fmt(p0.0)) \(fmt(p0.1))"
            let segments = closed ? n : n - 1
            for j in 0..<segments {
                let a = v(j), b = v((j + 1) % n), o = outT(j), i = inT((j + 1) % n)
                s += " C\(fmt(a.0 + o.0)) \(fmt(a.1 + o.1)) \(fmt(b.0 + i.0)) \(fmt(b.1 + i.1)) \(fmt(b.0)) \(fmt(b.1))"
            }
            if closed { s += " Z" }
        }
        return s
    }

    /// Applies a 2D affine matrix (row vectors: x' = a·x + c·y + e, y' = b·x + d·y + f).
    static func transform(_ f: [Double], _ m: Affine) -> [Double] {
        var out = f
        subpaths(f) { base, n in
            for j in 0..<n {
                let b = base + 6 * j
                (out[b], out[b + 1]) = m.apply(f[b], f[b + 1])
                (out[b + 2], out[b + 3]) = m.applyVector(f[b + 2], f[b + 3])
                (out[b + 4], out[b + 5]) = m.applyVector(f[b + 4], f[b + 5])
            }
        }
        return out
    }

    /// Lottie's magic number for quarter circles as cubics.
    static let kappa = 0.5519150244935105707435627

    /// A rectangle centred on p (lottie-web's vertex order: from the top right corner,
    /// clockwise; reversed for direction 3).
    static func rect(_ p: [Double], _ s: [Double], _ r: Double, reversed: Bool) -> [Double] {
        let cx = p[0], cy = p.count > 1 ? p[1] : 0, hw = s[0] / 2, hh = (s.count > 1 ? s[1] : s[0]) / 2
        let rr = max(0, min(r, min(abs(hw), abs(hh))))
        var pts: [(Double, Double, Double, Double, Double, Double)] = []
        if rr == 0 {
            pts = [(cx + hw, cy - hh, 0, 0, 0, 0), (cx + hw, cy + hh, 0, 0, 0, 0),
                   (cx - hw, cy + hh, 0, 0, 0, 0), (cx - hw, cy - hh, 0, 0, 0, 0)]
        } else {
            let c = rr * kappa
            pts = [(cx + hw, cy - hh + rr, 0, -c, 0, 0), (cx + hw, cy + hh - rr, 0, 0, 0, c),
                   (cx + hw - rr, cy + hh, c, 0, 0, 0), (cx - hw + rr, cy + hh, 0, 0, -c, 0),
                   (cx - hw, cy + hh - rr, 0, c, 0, 0), (cx - hw, cy - hh + rr, 0, 0, 0, -c),
                   (cx - hw + rr, cy - hh, -c, 0, 0, 0), (cx + hw - rr, cy - hh, 0, 0, c, 0)]
        }
        return flat(pts, reversed: reversed)
    }

    /// An ellipse centred on p with size s, from the top, clockwise (reversed for direction 3).
    static func ellipse(_ p: [Double], _ s: [Double], reversed: Bool) -> [Double] {
        let cx = p[0], cy = p.count > 1 ? p[1] : 0, rx = s[0] / 2, ry = (s.count > 1 ? s[1] : s[0]) / 2
        let kx = rx * kappa, ky = ry * kappa
        return flat([(cx, cy - ry, -kx, 0, kx, 0), (cx + rx, cy, 0, -ky, 0, ky),
                     (cx, cy + ry, kx, 0, -kx, 0), (cx - rx, cy, 0, ky, 0, -ky)], reversed: reversed)
    }

    /// A star (type 1: outer and inner radius alternating) or polygon (type 2) of `points`
    /// corners, the first at the top turned by `rotation` degrees, as rlottie and
    /// lottie-android draw it: clockwise (counter-clockwise when `reversed`, direction 3); a
    /// star of fractional points p has ⌈p⌉ points, the first and last a partial one (its
    /// radius inner + (p − ⌊p⌋)(outer − inner), its angles that share of a point's), a
    /// polygon ⌊p⌋ corners. Roundness (percent) gives each corner handles perpendicular to
    /// its radius, of length radius · roundness · 0.47829 / 0.28 / p (star) or
    /// · 0.25 (polygon).
    static func star(_ p: [Double], points: Double, rotation: Double, outer: Double, inner: Double,
                     outerRound: Double = 0, innerRound: Double = 0, polygon: Bool, reversed: Bool) -> [Double] {
        let cx = p.first ?? 0, cy = p.count > 1 ? p[1] : 0
        let dir = reversed ? -1.0 : 1.0
        var angle = (rotation - 90) * .pi / 180
        // Corners relative to the centre, with the radius and roundness their handles scale by.
        var corners: [(x: Double, y: Double, radius: Double, round: Double)] = []
        var scale: Double
        if polygon {
            let n = max(0, min(points.rounded(.down).clampedInt, 1000))
            guard n > 0 else { return [] }
            let step = 2 * Double.pi / Double(n)
            for _ in 0..<n {
                corners.append((outer * cos(angle), outer * sin(angle), outer, outerRound / 100))
                angle += step * dir
            }
            scale = 0.25
        } else {
            let pts = min(max(points, 0), 1000)
            guard pts > 0 else { return [] }
            let perPoint = 2 * Double.pi / pts, half = perPoint / 2
            let partial = pts - pts.rounded(.down)
            let count = Int(pts.rounded(.up)) * 2
            var partialRadius = 0.0
            if partial != 0 {
                angle += half * (1 - partial) * dir
                partialRadius = inner + partial * (outer - inner)
                corners.append((partialRadius * cos(angle), partialRadius * sin(angle), outer, outerRound / 100))
                angle += perPoint * partial / 2 * dir
            } else {
                corners.append((outer * cos(angle), outer * sin(angle), outer, outerRound / 100))
                angle += half * dir
            }
            var long = false
            // rlottie's loop: corner i + 1 for i = 0 … count − 1; the last is the first again.
            for i in 0..<(count - 1) {
                var radius = long ? outer : inner
                let dTheta = partialRadius != 0 && i == count - 2 ? perPoint * partial / 2 : half
                if partialRadius != 0 && i == count - 1 { radius = partialRadius }
                corners.append((radius * cos(angle), radius * sin(angle), radius, (long ? outerRound : innerRound) / 100))
                angle += dTheta * dir
                long.toggle()
            }
            scale = 0.47829 / 0.28 / pts
        }
        // Each corner's handles lie along the perpendicular of its radius (a quarter turn
        // against the direction), the out handle forward, the in handle back; a partial
        // point's corner keeps the outer radius' length, and the two segments at it are
        // shortened by its share.
        let partial = polygon ? 0 : points - points.rounded(.down)
        var outV: [Double] = [1, Double(corners.count)]
        for (j, c) in corners.enumerated() {
            let theta = atan2(c.y, c.x) - .pi / 2 * dir
            let len = c.radius * c.round * scale
            let inLen = len * (partial != 0 && (j == 0 || j == 1) ? partial : 1)
            let outLen = len * (partial != 0 && (j == 0 || j == corners.count - 1) ? partial : 1)
            outV += [cx + c.x, cy + c.y, inLen * cos(theta), inLen * sin(theta), -outLen * cos(theta), -outLen * sin(theta)]
        }
        return outV
    }

    private static func flat(_ pts: [(Double, Double, Double, Double, Double, Double)], reversed: Bool) -> [Double] {
        var list = pts
        if reversed {
            // The same outline the other way round: each vertex's in and out tangents swap.
            list = [pts[0]] + pts.dropFirst().reversed()
            list = list.map { ($0.0, $0.1, $0.4, $0.5, $0.2, $0.3) }
        }
        var out: [Double] = [1, Double(list.count)]
        for q in list { out += [q.0, q.1, q.2, q.3, q.4, q.5] }
        return out
    }
}

/// A 2D affine transform, row vectors as CATransform3D: [x y 1] × [[a b] [c d] [e f]].
struct Affine: Equatable {
    var a = 1.0, b = 0.0, c = 0.0, d = 1.0, e = 0.0, f = 0.0
    static let identity = Affine()
    func apply(_ x: Double, _ y: Double) -> (Double, Double) { (a * x + c * y + e, b * x + d * y + f) }
    func applyVector(_ x: Double, _ y: Double) -> (Double, Double) { (a * x + c * y, b * x + d * y) }
    /// self then m.
    func then(_ m: Affine) -> Affine {
        Affine(a: a * m.a + b * m.c, b: a * m.b + b * m.d, c: c * m.a + d * m.c, d: c * m.b + d * m.d,
               e: e * m.a + f * m.c + m.e, f: e * m.b + f * m.d + m.f)
    }
    static func translate(_ x: Double, _ y: Double) -> Affine { Affine(e: x, f: y) }
    static func scale(_ x: Double, _ y: Double) -> Affine { Affine(a: x, d: y) }
    /// Clockwise on the y-down canvas by `r` radians.
    static func rotate(_ r: Double) -> Affine { Affine(a: cos(r), b: sin(r), c: -sin(r), d: cos(r)) }
    /// Lottie's skew: `sk` degrees along the axis at `sa` degrees (lottie-web's skewFromAxis(−sk, sa)).
    static func skew(_ sk: Double, axis sa: Double) -> Affine {
        let ang = sa * .pi / 180, t = tan(-sk * .pi / 180)
        let r1 = Affine(a: cos(ang), b: sin(ang), c: -sin(ang), d: cos(ang))
        let k = Affine(a: 1, b: 0, c: t, d: 1)
        let r2 = Affine(a: cos(ang), b: -sin(ang), c: sin(ang), d: cos(ang))
        return r1.then(k).then(r2)
    }
    /// The scene format's 16-number TRANSFORM.
    var json: JSON { nums([a, b, 0, 0, c, d, 0, 0, 0, 0, 1, 0, e, f, 0, 1]) }
}

extension Array where Element == Double {
    /// A 16-number TRANSFORM (row vectors) followed by rlottie's 3D turns of a layer: about x
    /// by `rx`, then about y by `ry` (radians), each a 2D projective map with the eye 1024
    /// units away — rlottie's VMatrix::rotate(a, X or Y): about y, x′ = x cos a and
    /// w = 1 − x sin a / 1024 (about x the same in y) — carried by m14 and m24 (w = x m14 +
    /// y m24 + m44; z is untouched, so the layer stays flat).
    func projected(rx: Double, ry: Double) -> [Double] {
        guard rx != 0 || ry != 0 else { return self }
        let d = 1.0 / 1024
        // RX · RY: [cos ry, 0, 0, −sin ry·d,  0, cos rx, 0, −sin rx·d,  0, 0, 1, 0,  0, 0, 0, 1].
        let turn: [Double] = [cos(ry), 0, 0, -sin(ry) * d, 0, cos(rx), 0, -sin(rx) * d, 0, 0, 1, 0, 0, 0, 0, 1]
        var out = [Double](repeating: 0, count: 16)
        for r in 0..<4 { for c in 0..<4 { out[4 * r + c] = (0..<4).reduce(0) { $0 + self[4 * r + $1] * turn[4 * $1 + c] } } }
        return out
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BezPath {
    /// The bounds [minX, minY, maxX, maxY] of a flat path's vertices and handles (which
    /// contain its curves); nil when it has none.
    static func bounds(_ f: [Double]) -> [Double]? {
        var box: [Double]? = nil
        subpaths(f) { base, n in
            for j in 0..<n {
                let b = base + 6 * j
                for (x, y) in [(f[b], f[b + 1]), (f[b] + f[b + 2], f[b + 1] + f[b + 3]), (f[b] + f[b + 4], f[b + 1] + f[b + 5])] {
                    box = union(box, [x, y, x, y])
                }
            }
        }
        return box
    }

    static func union(_ a: [Double]?, _ b: [Double]?) -> [Double]? {
        guard let a else { return b }
        guard let b else { return a }
        return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
    }

    /// A Lottie gradient's stops (`count` colour stops [position, r, g, b], then alpha stops
    /// [position, alpha]) merged as rlottie merges them: a stop at every colour and every
    /// alpha position (one at a position both have), in order, its colour interpolated between the colour stops and its
    /// alpha between the alpha stops (1 without any). Flat, 5 numbers a stop: position,
    /// r, g, b, alpha.
    static func gradientStops(_ v: [Double], count: Int) -> [Double] {
        let n = min(count, v.count / 4)
        let colors = (0..<n).map { Array(v[(4 * $0)..<(4 * $0 + 4)]) }
        let alphas = stride(from: 4 * n, to: v.count - 1, by: 2).map { [v[$0], v[$0 + 1]] }
        func lerp(_ stops: [[Double]], _ x: Double) -> [Double] {
            guard let first = stops.first else { return [] }
            if x <= first[0] { return Array(first.dropFirst()) }
            for i in 1..<stops.count where x <= stops[i][0] {
                let a = stops[i - 1], b = stops[i]
                let u = b[0] > a[0] ? (x - a[0]) / (b[0] - a[0]) : 1
                return (1..<a.count).map { a[$0] + (b[$0] - a[$0]) * u }
            }
            return Array(stops[stops.count - 1].dropFirst())
        }
        // Positions in file order (colour stops, then the alpha stops not at a colour stop's
        // position), sorted stably.
        let colorAt = Set(colors.map { $0[0] })
        let positions = (colors.map { $0[0] } + alphas.map { $0[0] }.filter { !colorAt.contains($0) }).enumerated()
            .sorted { $0.element < $1.element || ($0.element == $1.element && $0.offset < $1.offset) }.map(\.element)
        var out: [Double] = []
        for x in positions {
            let c = lerp(colors, x), a = alphas.isEmpty ? [1] : lerp(alphas, x)
            out += [min(max(x, 0), 1), c[0], c[1], c[2], a[0]]
        }
        return out
    }
}

extension BezPath {
    /// Calls `body` with each subpath's base index and vertex count.
    static func subpaths(_ f: [Double], _ body: (Int, Int) -> Void) {
        var k = 0
        while k + 2 <= f.count {
            let n = max(f[k + 1].clampedInt, 0), base = k + 2
            k = base + 6 * n
            guard k <= f.count else { break }
            body(base, n)
        }
    }

    /// Pucker/bloat (`pb`, lottie-web's reading): with c the mean of a subpath's vertices and
    /// a the amount (a fraction: percent / 100), each vertex moves to v + (c − v)·a and each
    /// handle's end point h to h − (c − h)·a (the opposite way: a > 0 bloats the curves out
    /// while the corners pull in, a < 0 puckers).
    static func puckerBloat(_ f: [Double], _ amount: Double) -> [Double] {
        var out = f
        subpaths(f) { base, n in
            guard n > 0 else { return }
            var cx = 0.0, cy = 0.0
            for j in 0..<n { cx += f[base + 6 * j]; cy += f[base + 6 * j + 1] }
            cx /= Double(n); cy /= Double(n)
            for j in 0..<n {
                let b = base + 6 * j
                let vx = f[b] + (cx - f[b]) * amount, vy = f[b + 1] + (cy - f[b + 1]) * amount
                for h in [2, 4] {
                    let hx = f[b] + f[b + h], hy = f[b + 1] + f[b + h + 1]
                    out[b + h] = hx - (cx - hx) * amount - vx
                    out[b + h + 1] = hy - (cy - hy) * amount - vy
                }
                out[b] = vx; out[b + 1] = vy
            }
        }
        return out
    }
}

extension BezPath {
    /// Zig-zag (`zz`, lottie-web's reading): `ridges` (rounded, ≥ 0) points on each segment
    /// at parameters (i + 1)/(ridges + 1), and each vertex, moved `size` along the normal
    /// (dy, −dx)/|d| (at a vertex, of the line from the previous vertex to the next),
    /// alternately one way and the other, the first vertex the negative way. `smooth`
    /// (point type 2) gives each point handles along the segment, the segment's chord
    /// length / (2 (ridges + 1)) long; corners (type 1) none. A closed path ends with its
    /// first corner again. Ridges are capped so that a subpath has at most `maxVertices`.
    static func zigZag(_ f: [Double], size: Double, ridges: Double, smooth: Bool) -> [Double] {
        guard size != 0 else { return f }
        var out: [Double] = []
        subpaths(f) { base, n in
            guard n > 0 else { return }
            // At most maxVertices out: the ridges are capped so.
            let r = max(0, min(ridges.rounded(), (Double(maxVertices) / Double(n)).rounded(.down) - 1))
            let closed = f[base - 2] != 0
            func v(_ j: Int) -> (Double, Double) { (f[base + 6 * (j % n)], f[base + 6 * (j % n) + 1]) }
            var pts: [Double] = []
            func add(_ x: Double, _ y: Double, _ angle: Double, _ dir: Double, _ outLen: Double, _ inLen: Double) {
                let px = x + cos(angle) * dir * size, py = y - sin(angle) * dir * size
                let ao = angle - .pi / 2, ai = angle + .pi / 2
                pts += [px, py, cos(ai) * inLen, -sin(ai) * inLen, cos(ao) * outLen, -sin(ao) * outLen]
            }
            func dist(_ a: (Double, Double), _ b: (Double, Double)) -> Double { ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot() }
            func corner(_ cur: Int, _ dir: Double) {
                let p = v(cur), prev = v(cur % n == 0 ? n - 1 : cur - 1), next = v(cur + 1)
                let vx = next.0 - prev.0, vy = next.1 - prev.1
                let k = smooth ? 1 / ((r + 1) * 2) : 0
                add(p.0, p.1, -atan2(-vx, vy), dir, dist(p, next) * k, dist(p, prev) * k)
            }
            let count = closed ? n : n - 1
            guard count > 0 else { out += Array(f[(base - 2)..<(base + 6 * n)]); return }
            var dir = -1.0
            corner(0, dir)
            for i in 0..<count {
                let b0 = base + 6 * i, b1 = base + 6 * ((i + 1) % n)
                let p0 = (f[b0], f[b0 + 1]), p1 = (f[b0] + f[b0 + 4], f[b0 + 1] + f[b0 + 5])
                let p2 = (f[b1] + f[b1 + 2], f[b1 + 1] + f[b1 + 3]), p3 = (f[b1], f[b1 + 1])
                dir = -dir
                let k = smooth ? dist(p0, p3) / ((r + 1) * 2) : 0
                if r >= 1 {
                    for j in 0..<Int(r) {
                        let t = Double(j + 1) / (r + 1), s = 1 - t
                        let x = s * s * s * p0.0 + 3 * s * s * t * p1.0 + 3 * s * t * t * p2.0 + t * t * t * p3.0
                        let y = s * s * s * p0.1 + 3 * s * s * t * p1.1 + 3 * s * t * t * p2.1 + t * t * t * p3.1
                        let dx = 3 * s * s * (p1.0 - p0.0) + 6 * s * t * (p2.0 - p1.0) + 3 * t * t * (p3.0 - p2.0)
                        let dy = 3 * s * s * (p1.1 - p0.1) + 6 * s * t * (p2.1 - p1.1) + 3 * t * t * (p3.1 - p2.1)
                        add(x, y, atan2(dx, dy), dir, k, k)
                        dir = -dir
                    }
                }
                corner(i + 1, dir)
            }
            out += [closed ? 1 : 0, Double(pts.count / 6)] + pts
        }
        return out
    }
}
