import Foundation
import Testing
@testable import LaminaGeometry

/// `PathBoolean` against shapes whose results are worked out by hand: two 10-squares
/// overlapping in a 5-square (union 175, difference 75, intersection 25, exclusive or 150),
/// squares sharing an edge, a ring cut from a disc (π(R² − r²)), operands in order.
@Suite struct PathBooleanTests {
    func square(_ x: Double, _ y: Double, _ s: Double, reversed: Bool = false) -> Path {
        var p = Path()
        let pts = [Point(x, y), Point(x + s, y), Point(x + s, y + s), Point(x, y + s)]
        p.addPolygon(reversed ? pts.reversed() : pts)
        return p
    }

    func disc(_ r: Double) -> Path {
        var p = Path()
        p.addEllipse(in: Rect(-r, -r, 2 * r, 2 * r))
        return p
    }

    /// The filled area of the result under both fill rules (they agree: the polygons do not
    /// overlap), measured by the fill tessellator.
    func area(_ polys: [Polyline]?) throws -> Double {
        let pts = try #require(polys).map(\.points)
        let nonZero = try FillTessellator.triangulate(pts, rule: .nonZero).area
        let evenOdd = try FillTessellator.triangulate(pts, rule: .evenOdd).area
        #expect(abs(nonZero - evenOdd) < 1e-9)
        return nonZero
    }

    /// Regions touching at one point: each closes on itself (two loops of four corners), the
    /// same in every process — the walk does not depend on the dictionary's hashing order.
    @Test func regionsTouchingAtAPointAreLoopsOfTheirOwn() throws {
        let a = square(0, 0, 10), b = square(10, 10, 10)
        for op in [PathBoolean.Operation.union, .exclude] {
            let loops = try #require(PathBoolean.combine([a, b], op))
            #expect(loops.count == 2)
            #expect(loops.allSatisfy { $0.points.count == 4 })
            #expect(abs(try area(loops) - 200) < 1e-9)
        }
        // Two regions of an exclusive or meeting at the centre's corner pair.
        let c = square(0, 0, 20), d = square(10, 10, 20)
        let x = try #require(PathBoolean.combine([c, d], .exclude))
        #expect(abs(try area(x) - 600) < 1e-9)
    }

    @Test func overlappingSquares() throws {
        for reversed in [false, true] {
            let a = square(0, 0, 10), b = square(5, 5, 10, reversed: reversed)
            #expect(abs(try area(PathBoolean.combine([a, b], .union)) - 175) < 1e-9)
            #expect(abs(try area(PathBoolean.combine([a, b], .subtract)) - 75) < 1e-9)
            #expect(abs(try area(PathBoolean.combine([a, b], .intersect)) - 25) < 1e-9)
            #expect(abs(try area(PathBoolean.combine([a, b], .exclude)) - 150) < 1e-9)
            // The intersection is the square (5, 5)–(10, 10), clockwise.
            let i = try #require(PathBoolean.combine([a, b], .intersect))
            #expect(i.count == 1)
            #expect(Set(i[0].points) == [Point(5, 5), Point(10, 5), Point(10, 10), Point(5, 10)])
            var signed = 0.0
            for k in i[0].points.indices { signed += i[0].points[k].cross(i[0].points[(k + 1) % i[0].points.count]) }
            #expect(signed > 0)
            // The difference is an L of six corners.
            let s = try #require(PathBoolean.combine([a, b], .subtract))
            #expect(s.count == 1 && s[0].points.count == 6)
        }
    }

    @Test func sharedEdgesAndCoincidentShapes() throws {
        let a = square(0, 0, 10)
        // Side by side: one rectangle of four corners.
        let u = try #require(PathBoolean.combine([a, square(10, 0, 10)], .union))
        #expect(u.count == 1 && u[0].points.count == 4)
        #expect(abs(try area(u) - 200) < 1e-9)
        // A half overlapping along the bottom edge: intersection 50.
        #expect(abs(try area(PathBoolean.combine([a, Path([.move(Point(0, 5)), .line(Point(10, 5)), .line(Point(10, 10)), .line(Point(0, 10)), .close])], .intersect)) - 50) < 1e-9)
        // The same square twice.
        #expect(abs(try area(PathBoolean.combine([a, a], .union)) - 100) < 1e-9)
        #expect(abs(try area(PathBoolean.combine([a, a], .intersect)) - 100) < 1e-9)
        #expect(try #require(PathBoolean.combine([a, a], .subtract)).isEmpty)
        #expect(try #require(PathBoolean.combine([a, square(0, 0, 10, reversed: true)], .exclude)).isEmpty)
        // Apart: no intersection.
        #expect(try #require(PathBoolean.combine([a, square(20, 20, 5)], .intersect)).isEmpty)
    }

    @Test func ringFromDiscs() throws {
        // Within the flattening tolerance (0.05 from each circle: under 2π · 10 · 0.05 of area).
        let ring = try area(PathBoolean.combine([disc(10), disc(6)], .subtract))
        #expect(abs(ring - .pi * (100 - 36)) < 2 * .pi * 16 * 0.05)
        let lens = try area(PathBoolean.combine([disc(10), square(0, -20, 40)], .intersect))
        #expect(abs(lens - .pi * 50) < 2 * .pi * 10 * 0.05)
    }

    @Test func operandsCombineInOrder() throws {
        // (A − B) − C with three bites out of a 30 × 10 bar: 300 − 25 − 25.
        let bar = Path([.move(Point(0, 0)), .line(Point(30, 0)), .line(Point(30, 10)), .line(Point(0, 10)), .close])
        #expect(abs(try area(PathBoolean.combine([bar, square(-5, -5, 10), square(25, 5, 10)], .subtract)) - 250) < 1e-9)
        // (A ∩ B) ∩ C: only what all three share.
        #expect(abs(try area(PathBoolean.combine([square(0, 0, 10), square(5, 0, 10), square(0, 5, 10)], .intersect)) - 25) < 1e-9)
        // Exclusive or of three overlapping: odd coverage. A = [0,10]², B = [5,15]², C = [0,10]×[5,15]:
        // cells of 5 × 5 covered once or three times.
        let x = try area(PathBoolean.combine([square(0, 0, 10), square(5, 5, 10), square(0, 5, 10)], .exclude))
        // Coverage by 5×5 cell: (0,0)A (5,0)A (0,5)AC (5,5)ABC (10,5)B (0,10)C (5,10)BC (10,10)B → odd: 6 cells.
        #expect(abs(x - 6 * 25) < 1e-9)
    }

    @Test func nonzeroOperandsAndLimits() throws {
        // A self-overlapping operand counts by the non-zero rule: a square drawn twice is one.
        var twice = square(0, 0, 10)
        twice.addPath(square(0, 0, 10))
        #expect(abs(try area(PathBoolean.combine([twice, square(5, 0, 10)], .subtract)) - 50) < 1e-9)
        // Nothing, and non-finite input, give nothing.
        #expect(try #require(PathBoolean.combine([], .union)).isEmpty)
        #expect(try #require(PathBoolean.combine([Path([.move(Point(.nan, 0)), .line(Point(1, 1)), .line(Point(0, 1)), .close])], .union)).isEmpty)
        // Huge coordinates and curves: an answer or nil, never a crash.
        var huge = Path()
        huge.addPolygon([Point(0, 0), Point(1e308, 0), Point(1e308, 1e308)])
        huge.move(to: Point(-1e300, 0))
        huge.addCurve(to: Point(1e300, 5), control1: Point(1e300, -1e300), control2: Point(-1e300, 1e300))
        for op in [PathBoolean.Operation.union, .subtract, .intersect, .exclude] { _ = PathBoolean.combine([huge, square(0, 0, 10)], op) }
        // Past the edge limit: nil.
        var many = Path()
        for i in 0...(PathBoolean.maxEdges / 4) { many.addPath(square(Double(i), 0, 0.5)) }
        #expect(PathBoolean.combine([many], .union) == nil)
    }
}
