import Foundation
import Testing
import TestSupport
@testable import LaminaGeometry

/// The simple-input fast path (`MonotoneSweep`) against the general sweep and the references:
/// it must take the simple inputs, refuse crossing or touching ones, and agree on area.
@Suite struct FillMonotoneTests {
    /// Simple inputs: nested rings with holes (both orientations), stars, glyph-like rings.
    static func simpleInputs(_ seed: Int) -> [[Point]] {
        var r = SeededRandom(seed: UInt64(seed) &* 104_729 &+ 3)
        var polys: [[Point]] = []
        let rings = Int.random(in: 1 ... 3, using: &r)
        for i in 0 ..< rings {
            // Star-shaped random polygon around a centre, with a smaller reversed hole inside.
            let cx = Double(i) * 50, cy = Double.random(in: -5 ... 5, using: &r)
            let n = Int.random(in: 3 ... 40, using: &r)
            var outer: [Point] = [], hole: [Point] = []
            for k in 0 ..< n {
                let a = (Double(k) + Double.random(in: 0 ... 0.8, using: &r)) * 2 * .pi / Double(n)
                let ro = Double.random(in: 14 ... 22, using: &r), ri = Double.random(in: 4 ... 9, using: &r)
                outer.append(Point(cx + ro * cos(a), cy + ro * sin(a)))
                hole.append(Point(cx + ri * cos(a), cy + ri * sin(a)))
            }
            polys.append(seed % 2 == 0 ? outer : outer.reversed())
            if Bool.random(using: &r) { polys.append(seed % 4 < 2 ? hole.reversed() : hole) }
        }
        return polys
    }

    @Test(arguments: 0 ..< 60)
    func fastPathMatchesReferenceOnSimpleInputs(_ seed: Int) throws {
        for angle in rotations {
            let polys = rotate(Self.simpleInputs(seed), angle)
            for rule in FillRule.allCases {
                let expected = Reference.area(polys, rule)
                var runs: [FillTessellator.BoundaryRun]? = nil
                guard let fast = FillTessellator.monotoneFill(polys, rule: rule, boundary: &runs) else {
                    // Only a same-orientation hole under nonZero (an edge inside the fill) may refuse.
                    #expect(rule == .nonZero && (seed % 4 == 1 || seed % 4 == 2), "seed \(seed) \(rule) rot \(angle): refused a simple input")
                    continue
                }
                #expect(abs(fast.area - expected) <= 1e-9 * max(1, expected), "seed \(seed) \(rule): \(fast.area) vs \(expected)")
                let total = polys.reduce(0) { $0 + $1.count }
                #expect(fast.triangleCount <= total + 2 * polys.count)
                if angle == rotations[0] || angle == rotations[1] {
                    let v = fast.validate(against: polys, rule: rule, grid: 24)
                    #expect(v.indicesInRange && v.maxCoverage <= 1 && v.mismatches == 0,
                            "seed \(seed) \(rule): coverage \(v.maxCoverage), \(v.mismatches) mismatches")
                }
                var general = FillSweep(rule: rule, collectBoundary: false)
                general.build(polys)
                general.run()
                #expect(abs(general.out.area - fast.area) <= 1e-9 * max(1, expected))
            }
        }
    }

    @Test func fastPathTakesSimpleShapesAndRefusesOthers() {
        var runs: [FillTessellator.BoundaryRun]? = nil
        for c in [FillCase.concaveArrow, .squareWithHole, .comb, .starThousand, .triangle] {
            for rule in FillRule.allCases {
                #expect(FillTessellator.monotoneFill(c.polygons, rule: rule, boundary: &runs) != nil, "\(c) \(rule)")
            }
        }
        for c in [FillCase.pentagram, .bowtie, .twoOverlappingSquares, .coincidentEdges, .sharedVertices,
                  .zeroAreaSpike, .touchingAtVertex, .manyCrossings, .overlappingSameSquareTwice, .horizontalRows] {
            for rule in FillRule.allCases {
                #expect(FillTessellator.monotoneFill(c.polygons, rule: rule, boundary: &runs) == nil, "\(c) \(rule)")
            }
        }
        // Same orientation nested: under nonZero the inner contour is inside the fill.
        let nested = [[Point(0, 0), Point(10, 0), Point(10, 10), Point(0, 10)], [Point(2, 2), Point(8, 2), Point(8, 8), Point(2, 8)]]
        #expect(FillTessellator.monotoneFill(nested, rule: .nonZero, boundary: &runs) == nil)
        #expect(FillTessellator.monotoneFill(nested, rule: .evenOdd, boundary: &runs)?.area == 64)
    }

    @Test func fastPathBoundaryRunsPointOutward() throws {
        let polys = [[Point(0, 0), Point(10, 0), Point(10, 10), Point(0, 10)], [Point(3, 3), Point(3, 7), Point(7, 7), Point(7, 3)]]
        var runs: [FillTessellator.BoundaryRun]? = []
        let tri = try #require(FillTessellator.monotoneFill(polys, rule: .evenOdd, boundary: &runs))
        #expect(tri.area == 84)
        let r = try #require(runs)
        #expect(r.count == 8)
        for run in r {
            // A point just outside the run must be outside the fill.
            let mid = (run.a + run.b) * 0.5 + run.outward * 0.01
            #expect(!Reference.inside(mid, polys, .evenOdd), "\(run)")
        }
    }

    @Test func sortVerticesOrdersByYThenX() {
        var r = SeededRandom(seed: 99)
        for n in [1, 2, 5, 63, 64, 300, 2000] {
            let pts = (0 ..< n).map { _ in Point(Double(Int.random(in: -50 ... 50, using: &r)) / 4, Double(Int.random(in: 0 ... 8, using: &r)) - 4) }
            var order = [Int32](repeating: 0, count: n)
            let distinct = pts.withUnsafeBufferPointer { p in order.withUnsafeMutableBufferPointer { sortVertices(p.baseAddress!, n, $0.baseAddress!) } }
            #expect(distinct == (Set(pts).count == n))
            if distinct {
                for i in 1 ..< max(n, 1) {
                    let a = pts[Int(order[i - 1])], b = pts[Int(order[i])]
                    #expect(a.y < b.y || (a.y == b.y && a.x < b.x))
                }
            }
        }
    }

    /// The bucket sort (even y spread) and the merge sort agree, ties and duplicates included.
    @Test func bucketSortMatchesMergeSort() {
        var r = SeededRandom(seed: 7)
        for n in [16, 17, 100, 584, 3000] {
            for dup in [false, true] {
                var pts = (0 ..< n).map { _ in Point(Double.random(in: -100 ... 100, using: &r), Double.random(in: -1e3 ... 1e3, using: &r)) }
                // Shared y values (translated copies) and, optionally, one exact duplicate.
                for k in stride(from: 0, to: n - 1, by: 3) { pts[k + 1].y = pts[k].y }
                pts[n - 1] = Point(-1e300 * 0 + 5, pts[0].y)
                if dup { pts[n / 2] = pts[n / 3] }
                var a = [Int32](repeating: 0, count: n), b = a
                let da = pts.withUnsafeBufferPointer { p in a.withUnsafeMutableBufferPointer { bucketSortVertices(p.baseAddress!, n, $0.baseAddress!) } }
                let db = pts.withUnsafeBufferPointer { p in b.withUnsafeMutableBufferPointer { mergeSortVertices(p.baseAddress!, n, $0.baseAddress!) } }
                #expect(da != nil)
                #expect(da == db)
                #expect(db == (Set(pts).count == n))
                if db { #expect(a == b) }
            }
        }
        // Clumped y values fall back (nil), never sort wrongly.
        let clumped = (0 ..< 200).map { i in Point(Double(i), i < 100 ? 0 : Double(i)) }
        var o = [Int32](repeating: 0, count: 200)
        let dc = clumped.withUnsafeBufferPointer { p in o.withUnsafeMutableBufferPointer { bucketSortVertices(p.baseAddress!, 200, $0.baseAddress!) } }
        #expect(dc == nil)
    }
}
