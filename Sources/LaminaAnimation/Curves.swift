import Foundation
import LaminaGeometry

// The compiled, flat forms of each animation kind's value curve. Each is built once by
// the compiler and evaluated per frame without allocating (for fixed-size value kinds).

/// Catmull-Rom weights for p(-1), p0, p1, p2 at u ∈ 0…1 (uniform parameterization,
/// tangents (p1 − p(-1))/2 and (p2 − p0)/2).
@inline(__always)
func catmullRomWeights(_ u: Double) -> (Double, Double, Double, Double) {
    let u2 = u * u, u3 = u2 * u
    return (0.5 * (-u + 2 * u2 - u3), 0.5 * (2 - 5 * u2 + 3 * u3),
            0.5 * (u + 4 * u2 - 3 * u3), 0.5 * (-u2 + u3))
}

/// Catmull-Rom through p0 → p1 with neighbours; a linear interpolation for kinds that have
/// no weighted sum (transforms).
@inline(__always)
func catmullRom<V: CurveValue>(_ pm: V, _ p0: V, _ p1: V, _ p2: V, _ u: Double) -> V {
    let w = catmullRomWeights(u)
    return V.weightedSum(pm, w.0, p0, w.1, p1, w.2, p2, w.3) ?? p0.interpolated(to: p1, u)
}

/// CABasicAnimation's from/to/by modes, resolved as far as compile time allows.
enum EndsMode: Sendable {
    case fixed      // from–to, from–by, by–to: first → second
    case fromOnly   // first → underlying
    case toOnly     // underlying → first
    case byOnly     // underlying → underlying + first
}

/// CABasicAnimation's from/to/by, resolved as far as compile time allows. A class (immutable)
/// so that evaluation borrows it instead of copying two values per frame.
final class EndsRule<V: CurveValue>: Sendable {
    let mode: EndsMode
    let first: V
    let second: V

    init(_ mode: EndsMode, _ first: V, _ second: V? = nil) {
        self.mode = mode; self.first = first; self.second = second ?? first
    }

    static func fixed(_ from: V, _ to: V) -> EndsRule { EndsRule(.fixed, from, to) }

    /// The same rule in another value representation.
    func converted<W: CurveValue>(to: W.Type) -> EndsRule<W> where V == AnimatableValue {
        EndsRule<W>(mode, W(compiled: first), W(compiled: second))
    }

    @inline(__always) func resolve(_ u: V) -> (V, V) {
        switch mode {
        case .fixed: (first, second)
        case .fromOnly: (first, u)
        case .toOnly: (u, first)
        case .byOnly: (u, u.adding(first))
        }
    }

    @inline(__always) func value(_ p: Double, underlying u: V) -> V {
        switch mode {
        case .fixed: first.interpolated(to: second, p)
        case .fromOnly: first.interpolated(to: u, p)
        case .toOnly: u.interpolated(to: first, p)
        case .byOnly: u.interpolated(to: u.adding(first), p)
        }
    }
}

/// A spring animation: from/to rule, the spring (its response precomputed), an optional
/// velocity vector.
final class SpringCurve<V: CurveValue>: Sendable {
    let ends: EndsRule<V>
    let spring: Spring
    let response: SpringResponse
    let velocity: V?

    init(ends: EndsRule<V>, spring: Spring, velocity: V?) {
        self.ends = ends; self.spring = spring; self.velocity = velocity
        response = SpringResponse(spring)
    }

    func converted<W: CurveValue>(to: W.Type) -> SpringCurve<W> where V == AnimatableValue {
        SpringCurve<W>(ends: ends.converted(to: W.self), spring: spring, velocity: velocity.map(W.init(compiled:)))
    }

    /// Value at `t` seconds of the iteration.
    @inline(__always) func value(_ t: Double, underlying: V) -> V {
        let r = response(max(0, t))
        if let v = velocity {
            let (a, b) = ends.resolve(underlying)
            if let s = V.weightedSum(b, 1 - r.y1, a, r.y1, v, r.g, b, 0) { return s }
        }
        return ends.value(1 - r.y1 + spring.initialVelocity * r.g, underlying: underlying)
    }

    /// Velocity (value units per second of iteration time), or nil for kinds without one.
    func velocity(_ t: Double, underlying: V) -> V? {
        let r = response(max(0, t))
        let (a, b) = ends.resolve(underlying)
        if let v = velocity {
            return V.weightedSum(a, r.dy1, b, -r.dy1, v, r.dg, b, 0)
        }
        let rate = -r.dy1 + spring.initialVelocity * r.dg   // from–to distances per second
        return V.weightedSum(b, rate, a, -rate, a, 0, a, 0)
    }
}

/// One drawn segment of a path, for keyframe animations along a path.
struct PathSegment: Sendable {
    enum Shape: Sendable { case line, quad, cubic }
    var shape: Shape
    var p0, c1, c2, p1: Point

    func point(_ s: Double) -> Point {
        switch shape {
        case .line: return p0.lerp(to: p1, s)
        case .quad:
            let m = 1 - s
            return p0 * (m * m) + c1 * (2 * m * s) + p1 * (s * s)
        case .cubic:
            let m = 1 - s
            return p0 * (m * m * m) + c1 * (3 * m * m * s) + c2 * (3 * m * s * s) + p1 * (s * s * s)
        }
    }

    /// Segments of a path: every element after a move; `close` draws a line back to the
    /// subpath's start; a `move` jumps. Also returns the vertices (key points).
    static func segments(of path: Path) -> (segments: [PathSegment], vertices: [Point]) {
        var segs: [PathSegment] = []
        var vertices: [Point] = []
        var current = Point.zero, start = Point.zero
        var started = false
        for e in path.elements {
            switch e {
            case .move(let p):
                current = p; start = p
                if !started { vertices.append(p); started = true }
            case .line(let p):
                if !started { vertices.append(current); started = true }
                segs.append(PathSegment(shape: .line, p0: current, c1: current, c2: p, p1: p)); current = p
                vertices.append(p)
            case .quad(let c, let p):
                if !started { vertices.append(current); started = true }
                segs.append(PathSegment(shape: .quad, p0: current, c1: c, c2: c, p1: p)); current = p
                vertices.append(p)
            case .cubic(let c1, let c2, let p):
                if !started { vertices.append(current); started = true }
                segs.append(PathSegment(shape: .cubic, p0: current, c1: c1, c2: c2, p1: p)); current = p
                vertices.append(p)
            case .close:
                if !started { vertices.append(current); started = true }
                segs.append(PathSegment(shape: .line, p0: current, c1: current, c2: start, p1: start)); current = start
                vertices.append(start)
            }
        }
        return (segs, vertices)
    }
}

/// A compiled `KeyframeAnimation`. A class (immutable) so that evaluation reads its arrays
/// in place.
final class KeyframeCurve<V: CurveValue>: Sendable {
    let mode: CalculationMode
    /// The values (empty in path mode).
    let values: [V]
    /// Path mode: the segments; `vertices` are the key points for discrete mode.
    let segments: [PathSegment]
    let vertices: [Point]
    /// Resolved key times: one per key point (one more allowed in discrete mode).
    let keyTimes: [Double]
    /// One per segment, or empty when all are linear.
    let segmentCurves: [TimingCurve]
    /// Constant-speed modes: cumulative arc length, normalized to 0…1, sampled
    /// `arcSamples` times per segment (segments × arcSamples + 1 entries); empty otherwise.
    let arcTable: [Double]
    static var arcSamples: Int { 32 }

    init(mode: CalculationMode, values: [V], segments: [PathSegment], vertices: [Point], keyTimes: [Double],
         segmentCurves: [TimingCurve], arcTable: [Double]) {
        self.mode = mode; self.values = values; self.segments = segments; self.vertices = vertices
        self.keyTimes = keyTimes; self.segmentCurves = segmentCurves; self.arcTable = arcTable
    }

    var isPathMode: Bool { values.isEmpty }
    var segmentCount: Int { isPathMode ? segments.count : values.count - 1 }

    /// The same curve in another value representation.
    func converted<W: CurveValue>(to: W.Type) -> KeyframeCurve<W> where V == AnimatableValue {
        KeyframeCurve<W>(mode: mode, values: values.map(W.init(compiled:)), segments: segments, vertices: vertices,
                         keyTimes: keyTimes, segmentCurves: segmentCurves, arcTable: arcTable)
    }

    func value(_ p: Double) -> V {
        let f = p.isNaN ? 0 : min(max(p, 0), 1)
        if mode == .discrete {
            let count = isPathMode ? vertices.count : values.count
            var i = 0
            // Last key time ≤ f (binary search).
            var lo = 0, hi = min(keyTimes.count, count) - 1
            while lo <= hi {
                let mid = (lo + hi) / 2
                if keyTimes[mid] <= f { i = mid; lo = mid + 1 } else { hi = mid - 1 }
            }
            return isPathMode ? .pathPoint(vertices[i]) : values[i]
        }
        let n = segmentCount
        if n <= 0 { return isPathMode ? .pathPoint(vertices.first ?? .zero) : values[0] }
        var seg: Int
        var s: Double
        if !arcTable.isEmpty {
            // Constant speed: find the sample interval containing f.
            var lo = 0, hi = arcTable.count - 1
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if arcTable[mid] <= f { lo = mid } else { hi = mid }
            }
            let span = arcTable[hi] - arcTable[lo]
            let within = span > 0 ? (f - arcTable[lo]) / span : 0
            let k = Self.arcSamples
            seg = min(lo / k, n - 1)
            s = (Double(lo - seg * k) + within) / Double(k)
        } else {
            if f <= keyTimes[0] { seg = 0; s = 0 }
            else if f >= keyTimes[n] { seg = n - 1; s = 1 }
            else {
                var lo = 0, hi = n
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2
                    if keyTimes[mid] <= f { lo = mid } else { hi = mid }
                }
                seg = lo
                let span = keyTimes[seg + 1] - keyTimes[seg]
                s = span > 0 ? (f - keyTimes[seg]) / span : 1
            }
            if !segmentCurves.isEmpty { s = segmentCurves[seg].progress(s) }
        }
        return segmentValue(seg, s)
    }

    @inline(__always) func segmentValue(_ seg: Int, _ s: Double) -> V {
        if isPathMode { return .pathPoint(segments[seg].point(s)) }
        switch mode {
        case .cubic, .cubicPaced:
            let pm = values[max(seg - 1, 0)], p2 = values[min(seg + 2, values.count - 1)]
            return catmullRom(pm, values[seg], values[seg + 1], p2, s)
        default:
            return values[seg].interpolated(to: values[seg + 1], s)
        }
    }

    /// The arc-length table of the curve (for paced path and cubicPaced modes); empty when
    /// the curve has no length.
    func computedArcTable() -> [Double] {
        let n = segmentCount, k = Self.arcSamples
        guard n > 0 else { return [] }
        var table = [0.0]
        table.reserveCapacity(n * k + 1)
        var total = 0.0
        for seg in 0..<n {
            var prev = segmentValue(seg, 0)
            for j in 1...k {
                let cur = segmentValue(seg, Double(j) / Double(k))
                total += prev.distance(to: cur)
                table.append(total)
                prev = cur
            }
        }
        guard total > 0, total.isFinite else { return [] }
        return table.map { $0 / total }
    }
}

/// How a track keyframe moves to its value.
enum TrackKeyframeShape: Sendable { case linear(TimingCurve), cubic, spring(TimingCurve), move }

/// A compiled keyframe of a track.
struct TrackKeyframe<V: CurveValue>: Sendable {
    var shape: TrackKeyframeShape
    var value: V
    var start: Double
    var duration: Double
}

/// A compiled track of a `KeyframeTracksAnimation`.
final class TrackCurve<V: CurveValue>: Sendable {
    let keyframes: [TrackKeyframe<V>]
    let duration: Double

    init(keyframes: [TrackKeyframe<V>], duration: Double) { self.keyframes = keyframes; self.duration = duration }

    func converted<W: CurveValue>(to: W.Type) -> TrackCurve<W> where V == AnimatableValue {
        TrackCurve<W>(keyframes: keyframes.map {
            TrackKeyframe<W>(shape: $0.shape, value: W(compiled: $0.value), start: $0.start, duration: $0.duration)
        }, duration: duration)
    }

    /// Value `t` seconds into the animation, from the underlying value at the track start.
    func value(_ t: Double, underlying: V) -> V {
        let n = keyframes.count
        guard n > 0 else { return underlying }
        var j = 0
        while j < n && keyframes[j].start + keyframes[j].duration <= t { j += 1 }
        if j == n { return keyframes[n - 1].value }
        let k = keyframes[j]
        if t < k.start { return j > 0 ? keyframes[j - 1].value : underlying }
        let prev = j > 0 ? keyframes[j - 1].value : underlying
        let u = k.duration > 0 ? (t - k.start) / k.duration : 1
        switch k.shape {
        case .move: return k.value
        case .linear(let c), .spring(let c): return prev.interpolated(to: k.value, c.progress(u))
        case .cubic:
            let pm = j >= 2 ? keyframes[j - 2].value : (j == 1 ? underlying : prev)
            let next = j + 1 < n ? keyframes[j + 1].value : k.value
            return catmullRom(pm, prev, k.value, next, u)
        }
    }
}

/// The transitions of a compiled `PhaseAnimation` (one cycle), shared by its key paths.
struct PhaseTransition: Sendable {
    var from: Int, to: Int
    var curve: TimingCurve
    var start: Double, duration: Double
}

/// One key path of a compiled `PhaseAnimation`: its value in each phase and the cycle's
/// transitions.
final class PhaseCurve<V: CurveValue>: Sendable {
    /// values[phase]; nil keeps the underlying value.
    let values: [V?]
    let transitions: [PhaseTransition]
    let duration: Double

    init(values: [V?], transitions: [PhaseTransition], duration: Double) {
        self.values = values; self.transitions = transitions; self.duration = duration
    }

    func converted<W: CurveValue>(to: W.Type) -> PhaseCurve<W> where V == AnimatableValue {
        PhaseCurve<W>(values: values.map { $0.map(W.init(compiled:)) }, transitions: transitions, duration: duration)
    }

    func value(_ t: Double, underlying: V) -> V {
        var k = 0
        let n = transitions.count
        while k < n && transitions[k].start + transitions[k].duration <= t { k += 1 }
        if k == n { return values[0] ?? underlying }
        let tr = transitions[k]
        let a = values[tr.from] ?? underlying, b = values[tr.to] ?? underlying
        let u = tr.duration > 0 ? max(0, t - tr.start) / tr.duration : 1
        return a.interpolated(to: b, tr.curve.progress(u))
    }
}
