import Foundation
import Testing
@testable import LaminaGeometry

/// `PathOffset` against shapes worked out by hand: a square offset by d is a square of side
/// s + 2d (miter), with quarter circles of radius d at its corners (round: area s² + 4sd +
/// πd²) or cut corners (bevel: s² + 4sd + 2d²); a circle of radius r is one of r + d.
@Suite struct PathOffsetTests {
    /// The filled area (non-zero) as the fill tessellator's triangles measure it.
    func area(_ p: Path) throws -> Double {
        try FillTessellator.triangulate(p, rule: .nonZero, scale: 64).area
    }

    func square(_ x: Double, _ y: Double, _ s: Double, reversed: Bool = false) -> Path {
        var p = Path()
        let pts = [Point(x, y), Point(x + s, y), Point(x + s, y + s), Point(x, y + s)]
        p.addPolygon(reversed ? pts.reversed() : pts)
        return p
    }

    /// The distinct vertices of a path made of lines, sorted.
    func vertices(_ p: Path) -> [Point] {
        var out: [Point] = []
        for e in p.elements {
            switch e {
            case .move(let q), .line(let q): if !out.contains(q) { out.append(q) }
            default: break
            }
        }
        return out.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }

    @Test func squareMiteredOutAndIn() throws {
        for reversed in [false, true] {
            let out = PathOffset.offset(square(0, 0, 10, reversed: reversed), by: 2, join: .miter, miterLimit: 4)
            #expect(vertices(out) == [Point(-2, -2), Point(-2, 12), Point(12, -2), Point(12, 12)])
            #expect(abs(try area(out) - 196) < 1e-6)
            let inner = PathOffset.offset(square(0, 0, 10, reversed: reversed), by: -3, join: .miter)
            #expect(vertices(inner) == [Point(3, 3), Point(3, 7), Point(7, 3), Point(7, 7)])
            #expect(abs(try area(inner) - 16) < 1e-6)
        }
    }

    @Test func squareRoundAndBevelJoins() throws {
        let s = 10.0, d = 2.0
        let round = PathOffset.offset(square(0, 0, s), by: d, join: .round)
        #expect(abs(try area(round) - (s * s + 4 * s * d + .pi * d * d)) < 0.02)
        // Every point of the corner arcs is d from its corner.
        for e in round.elements {
            if case .cubic(_, _, let q) = e {
                let corner = Point(q.x < 5 ? 0 : 10, q.y < 5 ? 0 : 10)
                #expect(abs(q.distance(to: corner) - d) < 1e-9)
            }
        }
        let bevel = PathOffset.offset(square(0, 0, s), by: d, join: .bevel)
        #expect(abs(try area(bevel) - (s * s + 4 * s * d + 2 * d * d)) < 1e-6)
        // A square's miter reaches √2 d from the corner: a limit below √2 bevels it.
        let limited = PathOffset.offset(square(0, 0, s), by: d, join: .miter, miterLimit: 1.4)
        #expect(abs(try area(limited) - (s * s + 4 * s * d + 2 * d * d)) < 1e-6)
        let kept = PathOffset.offset(square(0, 0, s), by: d, join: .miter, miterLimit: 1.42)
        #expect(abs(try area(kept) - (s + 2 * d) * (s + 2 * d)) < 1e-6)
        // Shrinking, the corners are inner corners whatever the join: a smaller square.
        let shrunk = PathOffset.offset(square(0, 0, s), by: -d, join: .round)
        #expect(abs(try area(shrunk) - (s - 2 * d) * (s - 2 * d)) < 1e-6)
    }

    @Test func circleStaysACircle() throws {
        var circle = Path()
        circle.addEllipse(in: Rect(-10, -10, 20, 20))
        for d in [3.0, -4.0] {
            let out = PathOffset.offset(circle, by: d, join: .miter)
            // Points along every output curve are r + d from the centre (the input's cubics are
            // themselves within 0.03 % of a circle).
            var current = Point.zero
            for e in out.elements {
                switch e {
                case .move(let p): current = p
                case .line(let p): current = p
                case .cubic(let c1, let c2, let p):
                    for k in 0...8 {
                        let t = Double(k) / 8, u = 1 - t
                        let q = current * (u * u * u) + c1 * (3 * u * u * t) + c2 * (3 * u * t * t) + p * (t * t * t)
                        #expect(abs(q.length - (10 + d)) < 0.01, "d \(d): \(q) is \(q.length) from the centre")
                    }
                    current = p
                default: break
                }
            }
            #expect(abs(try area(out) - .pi * (10 + d) * (10 + d)) < 0.05 * (10 + d))
        }
    }

    @Test func holesShrinkAsTheOutsideGrows() throws {
        // A 20-square with a 10-square hole drawn the other way: offset 2, the hole is 6 wide.
        var ring = square(0, 0, 20)
        ring.addPath(square(5, 5, 10, reversed: true))
        let out = PathOffset.offset(ring, by: 2, join: .miter)
        #expect(abs(try area(out) - (24 * 24 - 6 * 6)) < 1e-6)
    }

    @Test func openPathBecomesItsOutline() throws {
        var line = Path()
        line.move(to: Point(0, 0)); line.addLine(to: Point(10, 0))
        // Both sides, the ends half circles: 2 · 10 · 1 + π · 1².
        let round = PathOffset.offset(line, by: 1, join: .round)
        #expect(abs(try area(round) - (20 + .pi)) < 0.01)
        let butt = PathOffset.offset(line, by: -1, join: .miter)
        #expect(abs(try area(butt) - 20) < 1e-6)
    }

    @Test func concaveCornerIsCut() throws {
        // An L: 20×20 less its top right 10×10 quadrant. Grown by 1 (miter) it is the L of
        // 22×22 less the quadrant's 10×10 moved (1, 1) in: 22² − 10² … the cut corner at (11, 9).
        var l = Path()
        l.addPolygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(20, 10), Point(20, 20), Point(0, 20)])
        let out = PathOffset.offset(l, by: 1, join: .miter)
        #expect(vertices(out).contains(Point(11, 9)))
        #expect(abs(try area(out) - (22 * 22 - 10 * 10)) < 1e-6)
    }

    @Test func collapsedAndDegenerate() throws {
        // Shrunk past nothing: left out.
        #expect(PathOffset.offset(square(0, 0, 10), by: -6, join: .miter).elements.isEmpty)
        // Zero amount: the path itself.
        let sq = square(0, 0, 10)
        #expect(PathOffset.offset(sq, by: 0) == sq)
        // Non-finite points are dropped, not a crash.
        var bad = Path()
        bad.addPolygon([Point(0, 0), Point(.nan, 1), Point(1, 1)])
        #expect(PathOffset.offset(bad, by: 1).elements.isEmpty)
        // Coordinates so large the offset overflows: left out, no crash (round joins too).
        var huge = Path()
        huge.addPolygon([Point(0, 0), Point(1e308, 0), Point(1e308, 1e308)])
        huge.addCurve(to: Point(-1e308, 5), control1: Point(1e308, -1e308), control2: Point(-1e308, 1e308))
        for join in LineJoin.allCases { _ = PathOffset.offset(huge, by: 1e6, join: join) }
    }
}
