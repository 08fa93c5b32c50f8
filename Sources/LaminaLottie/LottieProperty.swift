import LaminaWire

/// How a keyframe segment moves from its value to the next: Lottie's per-segment easing.
enum Easing: Equatable {
    case linear
    case hold
    /// The cubic-bezier(x1, y1, x2, y2) of the segment's `o` and `i` handles.
    case bezier(Double, Double, Double, Double)

    /// Progress at fraction u of the segment.
    func progress(_ u: Double) -> Double {
        switch self {
        case .linear: return u
        case .hold: return u >= 1 ? 1 : 0
        case let .bezier(x1, y1, x2, y2): return Easing.cubicBezier(x1, y1, x2, y2, u)
        }
    }

    /// y at x of the CSS cubic-bezier curve (x1, x2 in 0…1, so x(t) is monotone): bisection on t.
    static func cubicBezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ x: Double) -> Double {
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        func b(_ p1: Double, _ p2: Double, _ t: Double) -> Double {
            let s = 1 - t
            return 3 * s * s * t * p1 + 3 * s * t * t * p2 + t * t * t
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if b(x1, x2, mid) < x { lo = mid } else { hi = mid }
        }
        return b(y1, y2, (lo + hi) / 2)
    }

    /// The scene format's TIMING.
    var json: JSON {
        switch self {
        case .linear: return .string("linear")
        case .hold: return obj([("steps", num(1)), ("position", .string("end"))])
        case let .bezier(x1, y1, x2, y2): return nums([x1, y1, x2, y2])
        }
    }
}

/// One keyframe: its frame, value, the easing of the segment that starts here (one per
/// dimension), and spatial tangents (`to` of this key, `ti` of the next) for positions.
struct Key {
    var t: Double
    var v: [Double]
    var ease: [Easing]
    var to: [Double]? = nil
    var ti: [Double]? = nil
}

/// A Lottie animatable property (`{"a": 0|1, "k": …}`), static or keyframed. Values are number
/// vectors; bezier paths are flattened (`BezPath.flatten`).
struct Prop {
    var keys: [Key]
    var isStatic: Bool { keys.count <= 1 }
    var first: [Double] { keys.first?.v ?? [] }

    static let maxKeyframes = 100_000

    init(constant v: [Double]) { keys = [Key(t: 0, v: v, ease: [])] }
    init(keys: [Key]) { self.keys = keys }

    /// Parses a property; `value` reads one value (numbers, or a shape for paths).
    init(_ n: Node, _ w: Warnings, value: (Node) throws(SceneError) -> [Double]) throws(SceneError) {
        _ = try n.object()
        if let x = n["x"], case .string = x.json { w.add(x.path, "expression") }
        let k = try n.required("k")
        var isKeyframed = false
        if case .array(let a) = k.json, let f = a.first, case .object(let m) = f, m.contains(where: { $0.key == "t" }) {
            isKeyframed = true
        }
        if !isKeyframed {
            keys = [Key(t: 0, v: try value(k), ease: [])]
            return
        }
        let list = try k.array()
        guard list.count <= Prop.maxKeyframes else {
            throw SceneError(path: k.path, "more than \(Prop.maxKeyframes) keyframes")
        }
        var out: [Key] = []
        out.reserveCapacity(list.count)
        var previousEnd: [Double]? = nil
        for kf in list {
            _ = try kf.object()
            let t = try kf.required("t").number()
            guard abs(t) <= Mapper.maxFrame else { throw SceneError(path: kf.at("t"), "must be within ±\(Int(Mapper.maxFrame)) frames") }
            if let last = out.last, t < last.t { throw SceneError(path: kf.at("t"), "keyframe times must not decrease") }
            var v: [Double]
            if let s = kf["s"] { v = try value(s) }
            else if let e = previousEnd { v = e }
            else if let last = out.last { v = last.v }
            else { throw SceneError(path: kf.at("s"), "is required (the first keyframe has no value)") }
            previousEnd = try kf["e"].map { e throws(SceneError) in try value(e) }
            var ease: [Easing] = [.linear]
            if kf["h"]?.bool() == true {
                ease = [.hold]
            } else if let o = kf["o"], let i = kf["i"] {
                let ox = try o.required("x").numbers(), oy = try o.required("y").numbers()
                let ix = try i.required("x").numbers(), iy = try i.required("y").numbers()
                let d = max(ox.count, oy.count, ix.count, iy.count)
                guard d > 0, d <= 16 else { throw SceneError(path: o.path, "easing handles need 1 to 16 numbers") }
                func at(_ a: [Double], _ j: Int) -> Double { a.isEmpty ? 0 : a[min(j, a.count - 1)] }
                ease = (0..<d).map { j in
                    let x1 = min(max(at(ox, j), 0), 1), y1 = at(oy, j)
                    let x2 = min(max(at(ix, j), 0), 1), y2 = at(iy, j)
                    return x1 == y1 && x2 == y2 ? .linear : .bezier(x1, y1, x2, y2)
                }
            }
            var key = Key(t: t, v: v, ease: ease)
            if let to = kf["to"] { key.to = try to.numbers() }
            if let ti = kf["ti"] { key.ti = try ti.numbers() }
            out.append(key)
        }
        // An old-format last keyframe carries only `t`: it ends the previous segment at `e`.
        if let e = previousEnd, let last = out.last, list.last?["s"] == nil { out[out.count - 1].v = e; _ = last }
        keys = out
    }

    /// A numeric property (`mult` scales it: percent → fraction, degrees → radians).
    init(numbers n: Node, _ w: Warnings, mult: Double = 1) throws(SceneError) {
        try self.init(n, w) { v throws(SceneError) in try v.numbers().map { $0 * mult } }
    }

    /// A bezier path property; keyframes of different vertex counts morph as rlottie's do
    /// (`BezPath.uniformMorph`).
    init(path n: Node, _ w: Warnings) throws(SceneError) {
        try self.init(n, w) { v throws(SceneError) in try BezPath.read(v) }
        if let uniform = BezPath.uniformMorph(keys) { keys = uniform }
    }

    /// The value at a frame of the property's own time.
    func value(at f: Double) -> [Double] {
        guard let firstKey = keys.first else { return [] }
        if keys.count == 1 || f <= firstKey.t { return firstKey.v }
        if f >= keys[keys.count - 1].t { return keys[keys.count - 1].v }
        // Binary search the segment.
        var lo = 0, hi = keys.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if keys[mid].t <= f { lo = mid } else { hi = mid }
        }
        let a = keys[lo], b = keys[lo + 1]
        let span = b.t - a.t
        let u = span > 0 ? (f - a.t) / span : 1
        if a.v.count != b.v.count { return u >= 1 ? b.v : a.v }
        if let to = a.to, let ti = a.ti, a.v.count >= 2, to.count >= 2, ti.count >= 2,
           to.contains(where: { $0 != 0 }) || ti.contains(where: { $0 != 0 }) {
            let p = a.ease.first?.progress(u) ?? u
            return Prop.spatial(a.v, to, ti, b.v, p)
        }
        return (0..<a.v.count).map { j in
            let e = a.ease.isEmpty ? .linear : a.ease[min(j, a.ease.count - 1)]
            let p = e.progress(u)
            return a.v[j] + (b.v[j] - a.v[j]) * p
        }
    }

    /// The point at fraction p of the arc length of the cubic v0, v0 + to, v1 + ti, v1
    /// (Lottie moves along spatial curves at the eased share of their length).
    static func spatial(_ v0: [Double], _ to: [Double], _ ti: [Double], _ v1: [Double], _ p: Double) -> [Double] {
        func point(_ t: Double) -> (Double, Double) {
            let s = 1 - t
            let c0 = s * s * s, c1 = 3 * s * s * t, c2 = 3 * s * t * t, c3 = t * t * t
            return (c0 * v0[0] + c1 * (v0[0] + to[0]) + c2 * (v1[0] + ti[0]) + c3 * v1[0],
                    c0 * v0[1] + c1 * (v0[1] + to[1]) + c2 * (v1[1] + ti[1]) + c3 * v1[1])
        }
        let n = 64
        var lengths = [0.0]
        var prev = point(0)
        for i in 1...n {
            let q = point(Double(i) / Double(n))
            lengths.append(lengths[i - 1] + ((q.0 - prev.0) * (q.0 - prev.0) + (q.1 - prev.1) * (q.1 - prev.1)).squareRoot())
            prev = q
        }
        let target = min(max(p, 0), 1) * lengths[n]
        var i = 1
        while i < n && lengths[i] < target { i += 1 }
        let seg = lengths[i] - lengths[i - 1]
        let frac = seg > 0 ? (target - lengths[i - 1]) / seg : 0
        let q = point((Double(i - 1) + frac) / Double(n))
        var out = v0
        out[0] = q.0; out[1] = q.1
        if v0.count > 2, v1.count > 2 { out[2] = v0[2] + (v1[2] - v0[2]) * p }
        return out
    }

    /// Whether each segment's easing is one curve for all dimensions and no segment follows
    /// a spatial curve: then keyframes map one to one onto a compositor keyframe animation.
    var isExact: Bool {
        for (i, k) in keys.enumerated() where i + 1 < keys.count {
            if Set(k.ease.map { "\($0)" }).count > 1 { return false }
            if let to = k.to, to.contains(where: { $0 != 0 }) { return false }
            if let ti = k.ti, ti.contains(where: { $0 != 0 }) { return false }
            if k.v.count != keys[i + 1].v.count { return false }
        }
        return true
    }

    /// One dimension as its own property (its own easing).
    func component(_ j: Int) -> Prop {
        Prop(keys: keys.map { k in
            Key(t: k.t, v: [j < k.v.count ? k.v[j] : 0], ease: k.ease.isEmpty ? [] : [k.ease[min(j, k.ease.count - 1)]])
        })
    }
}

/// A value over a property's own frames: static, exact keyframes (one easing per segment), or
/// to be sampled over a span of frames.
struct Signal {
    enum Keys { case constant, exact([Double], [Easing]), sampled(Double, Double) }
    var keys: Keys
    var eval: (Double) -> [Double]

    init(_ p: Prop) {
        let prop = p
        eval = { prop.value(at: $0) }
        if p.isStatic { keys = .constant }
        else if p.isExact { keys = .exact(p.keys.map(\.t), p.keys.dropLast().map { $0.ease.first ?? .linear }) }
        else { keys = .sampled(p.keys.first!.t, p.keys.last!.t) }
    }
    init(keys: Keys, eval: @escaping (Double) -> [Double]) { self.keys = keys; self.eval = eval }
    static func constant(_ v: [Double]) -> Signal { Signal(keys: .constant) { _ in v } }

    var isStatic: Bool { if case .constant = keys { return true }; return false }
    var span: (Double, Double)? {
        switch keys {
        case .constant: return nil
        case .exact(let t, _): return (t.first!, t.last!)
        case .sampled(let a, let b): return (a, b)
        }
    }

    /// A function of several signals. `affine`: f is affine in each input, so inputs that
    /// share their keys and easings give exact keyframes of the result.
    static func combine(_ inputs: [Signal], affine: Bool = true, _ f: @escaping ([[Double]]) -> [Double]) -> Signal {
        let evals = inputs.map(\.eval)
        let eval: (Double) -> [Double] = { t in f(evals.map { $0(t) }) }
        let animated = inputs.filter { !$0.isStatic }
        if animated.isEmpty { return Signal(keys: .constant, eval: eval) }
        if affine, case .exact(let t0, let e0) = animated[0].keys,
           animated.allSatisfy({ if case .exact(let t, let e) = $0.keys { return t == t0 && e == e0 }; return false }) {
            return Signal(keys: .exact(t0, e0), eval: eval)
        }
        let lo = animated.compactMap { $0.span?.0 }.min()!, hi = animated.compactMap { $0.span?.1 }.max()!
        return Signal(keys: .sampled(lo, hi), eval: eval)
    }
}
