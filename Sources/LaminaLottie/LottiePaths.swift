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
        var k = 0
        while k + 2 <= out.count {
            let n = max(out[k + 1].clampedInt, 0), base = k + 2
            k = base + 6 * n
            guard k <= out.count else { break }
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
    /// corners, the first at the top turned by `rotation` degrees; roundness is left out.
    static func star(_ p: [Double], points: Double, rotation: Double, outer: Double, inner: Double,
                     polygon: Bool, reversed: Bool) -> [Double] {
        let n = max(0, min(points.rounded(.down).clampedInt, 1000))
        guard n > 0 else { return [] }
        let count = polygon ? n : 2 * n
        let step = 2 * Double.pi / Double(count)
        var angle = -Double.pi / 2 + rotation * .pi / 180
        var pts: [(Double, Double, Double, Double, Double, Double)] = []
        for i in 0..<count {
            let r = polygon || i % 2 == 0 ? outer : inner
            pts.append((p[0] + r * cos(angle), (p.count > 1 ? p[1] : 0) + r * sin(angle), 0, 0, 0, 0))
            angle += step
        }
        return flat(pts, reversed: reversed)
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
