#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Twist (After Effects' shape modifier, Lottie's `tw`) by Lamina's own definition: no player
/// implements it and After Effects does not publish its algorithm, so this is ours.
///
/// Every point P of the path turns about the centre C by an angle proportional to its
/// distance from C: θ(P) = angle × |P − C| / R, where R is the radius of the path's bounds —
/// half the diagonal of its bounding box (of the path flattened within `tolerance`). A point
/// at C stays; a point R away turns by the whole angle. Positive angles turn as Lottie's
/// rotations do (clockwise on a y-down screen): P′ = C + rot(θ)(P − C) with
/// rot(θ) = [cos θ −sin θ; sin θ cos θ]. Curves and lines are flattened and every segment is
/// split until the twisted chord stays within `tolerance` of the twisted curve, so straight
/// edges bend; the result is lines only.
public enum PathTwist {
    /// Deepest split of one segment (2¹² pieces).
    static let maxDepth = 12
    /// The most points a twisted path gets by splitting (past it, segments are no longer split:
    /// a hostile angle cannot exhaust memory).
    public static let maxPoints = 200_000

    /// The radius the twist scales by: half the diagonal of the bounding box of `path`
    /// flattened within `tolerance` (0 for an empty path).
    public static func radius(of path: Path, tolerance: Double = 0.05) -> Double {
        guard let lines = try? Flattener.flatten(path, tolerance: tolerance > 0 ? tolerance : 0.05) else { return 0 }
        var lo = Point(Double.infinity, Double.infinity), hi = Point(-Double.infinity, -Double.infinity)
        for l in lines {
            for p in l.points {
                lo = Point(min(lo.x, p.x), min(lo.y, p.y)); hi = Point(max(hi.x, p.x), max(hi.y, p.y))
            }
        }
        guard lo.x <= hi.x else { return 0 }
        return (hi - lo).length / 2
    }

    /// One point twisted: turned about `center` by `angle` (radians) × |p − center| / `radius`.
    public static func twisted(_ p: Point, angle: Double, center: Point, radius: Double) -> Point {
        guard radius > 0 else { return p }
        let d = p - center
        let t = angle * d.length / radius
        let c = cos(t), s = sin(t)
        return center + Point(d.x * c - d.y * s, d.x * s + d.y * c)
    }

    /// The path twisted by `degrees` about `center` (module comment), as lines within
    /// `tolerance`. An angle of 0 or a path without extent returns the path unchanged.
    public static func twist(_ path: Path, degrees: Double, center: Point, tolerance: Double = 0.05) -> Path {
        let tol = tolerance > 0 ? tolerance : 0.05
        let r = radius(of: path, tolerance: tol)
        guard degrees.isFinite, degrees != 0, r > 0, center.x.isFinite, center.y.isFinite,
              let lines = try? Flattener.flatten(path, tolerance: tol) else { return path }
        let angle = degrees * .pi / 180
        func f(_ p: Point) -> Point { twisted(p, angle: angle, center: center, radius: r) }
        // Along a piece of length ℓ the distance from the centre changes by at most ℓ, the
        // turn by at most |angle| ℓ / R: pieces longer than turn 0.25 rad are split anyway.
        let step = 0.25 * r / abs(angle)
        var out = Path()
        var budget = maxPoints
        for l in lines where !l.points.isEmpty {
            out.elements.append(.move(f(l.points[0])))
            let n = l.points.count
            for i in 0..<(l.isClosed ? n : n - 1) {
                let a = l.points[i], b = l.points[(i + 1) % n]
                split(a, b, f(a), f(b), tol, step, f, depth: 0, &budget, &out)
            }
            if l.isClosed {
                // The closing segment ends back at the start: `close` draws that last line.
                if case .line = out.elements.last { out.elements.removeLast() }
                out.elements.append(.close)
            }
        }
        return out
    }

    /// Appends the twisted segment a→b (its ends' images fa, fb) as lines, split at the
    /// middle while the twisted middle lies further than `tol` from the chord fa→fb or the
    /// piece is longer than `step`.
    static func split(_ a: Point, _ b: Point, _ fa: Point, _ fb: Point, _ tol: Double, _ step: Double, _ f: (Point) -> Point,
                      depth: Int, _ budget: inout Int, _ out: inout Path) {
        let m = a.lerp(to: b, 0.5), fm = f(m)
        let chord = fb - fa
        let len = chord.length
        let off = len > 0 ? abs(chord.cross(fm - fa)) / len : (fm - fa).length
        if off > tol || (b - a).length > step, depth < maxDepth, budget > 0 {
            budget -= 1
            split(a, m, fa, fm, tol, step, f, depth: depth + 1, &budget, &out)
            split(m, b, fm, fb, tol, step, f, depth: depth + 1, &budget, &out)
        } else {
            out.elements.append(.line(fb))
        }
    }
}
