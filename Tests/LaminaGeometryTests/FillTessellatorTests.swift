import Foundation
import Testing
import TestSupport
@testable import LaminaGeometry

/// Named input shapes, each run under both fill rules and several rotations (lyon's
/// fill_tests style). Regression cases found while developing are kept here by name.
enum FillCase: String, CaseIterable, CustomStringConvertible {
    case square, triangle, concaveArrow, pentagram, squareWithHole, twoOverlappingSquares
    case bowtie, coincidentEdges, sharedVertices, zeroAreaSpike, collinearPoints
    case nestedOppositeSquares, comb, starThousand, duplicatePoints, degenerateLine
    case touchingAtVertex, hugeCoordinates, tinyCoordinates, horizontalRows, manyCrossings
    case overlappingSameSquareTwice, spiral

    var description: String { rawValue }

    var polygons: [[Point]] {
        func P(_ x: Double, _ y: Double) -> Point { Point(x, y) }
        switch self {
        case .square: return [[P(0, 0), P(10, 0), P(10, 10), P(0, 10)]]
        case .triangle: return [[P(0, 0), P(10, 3), P(4, 9)]]
        case .concaveArrow: return [[P(0, 0), P(10, 5), P(0, 10), P(4, 5)]]
        case .pentagram:
            return [(0 ..< 5).map { k in
                let a = Double(k * 2) * 2 * .pi / 5 - .pi / 2
                return P(10 * cos(a), 10 * sin(a))
            }]
        case .squareWithHole:
            return [[P(0, 0), P(10, 0), P(10, 10), P(0, 10)], [P(3, 3), P(3, 7), P(7, 7), P(7, 3)]]
        case .twoOverlappingSquares:
            return [[P(0, 0), P(6, 0), P(6, 6), P(0, 6)], [P(3, 3), P(9, 3), P(9, 9), P(3, 9)]]
        case .bowtie: return [[P(0, 0), P(10, 10), P(10, 0), P(0, 10)]]
        case .coincidentEdges:
            return [[P(0, 0), P(5, 0), P(5, 5), P(0, 5)], [P(5, 0), P(10, 0), P(10, 5), P(5, 5)],
                    [P(0, 2), P(10, 2), P(10, 3), P(0, 3)]]
        case .sharedVertices:
            return [[P(0, 0), P(5, 5), P(0, 10)], [P(10, 0), P(5, 5), P(10, 10)], [P(5, 5), P(8, 0), P(2, 0)]]
        case .zeroAreaSpike: return [[P(0, 0), P(10, 0), P(10, 10), P(5, 10), P(5, 20), P(5, 10), P(0, 10)]]
        case .collinearPoints: return [[P(0, 0), P(5, 0), P(10, 0), P(10, 5), P(10, 10), P(5, 10), P(0, 10), P(0, 5)]]
        case .nestedOppositeSquares:
            return [[P(0, 0), P(10, 0), P(10, 10), P(0, 10)], [P(2, 2), P(8, 2), P(8, 8), P(2, 8)]]
        case .comb:
            var pts: [Point] = [P(0, 0)]
            for i in 0 ..< 10 { pts += [P(Double(i) * 2 + 1, 10), P(Double(i) * 2 + 2, 0)] }
            pts.append(P(20, -3)); pts.append(P(0, -3))
            return [pts]
        case .starThousand: return [star(points: 500, inner: 40, outer: 100)]
        case .duplicatePoints: return [[P(0, 0), P(0, 0), P(10, 0), P(10, 0), P(10, 10), P(0, 10), P(0, 10)]]
        case .degenerateLine: return [[P(0, 0), P(10, 10)], [P(1, 1), P(2, 2), P(3, 3)]]
        case .touchingAtVertex: return [[P(0, 0), P(4, 0), P(4, 4)], [P(4, 4), P(8, 4), P(8, 8)]]
        case .hugeCoordinates:
            return [[P(-1e9, -1e9), P(1e9, -1e9), P(1e9, 1e9), P(-1e9, 1e9)], [P(0, -2e9), P(2e9, 0), P(0, 2e9), P(-2e9, 0)]]
        case .tinyCoordinates: return [[P(0, 0), P(1e-9, 0), P(1e-9, 1e-9), P(0, 1e-9)], [P(5e-10, -5e-10), P(1.5e-9, 5e-10), P(5e-10, 1.5e-9)]]
        case .horizontalRows:
            return [[P(0, 0), P(10, 0), P(10, 2), P(4, 2), P(4, 4), P(10, 4), P(10, 6), P(0, 6)], [P(2, 1), P(8, 1), P(8, 5), P(2, 5)]]
        case .manyCrossings:
            var r = SeededRandom(seed: 7)
            return [(0 ..< 40).map { _ in P(Double.random(in: 0 ... 100, using: &r), Double.random(in: 0 ... 100, using: &r)) }]
        case .overlappingSameSquareTwice:
            return [[P(0, 0), P(10, 0), P(10, 10), P(0, 10)], [P(0, 0), P(10, 0), P(10, 10), P(0, 10)]]
        case .spiral:
            var pts: [Point] = []
            for i in 0 ..< 200 { let a = Double(i) * 0.2; pts.append(P(a * cos(a), a * sin(a))) }
            return [pts]
        }
    }
}

func star(points n: Int, inner: Double, outer: Double) -> [Point] {
    (0 ..< 2 * n).map { k in
        let a = Double(k) * .pi / Double(n)
        let r = k % 2 == 0 ? outer : inner
        return Point(r * cos(a), r * sin(a))
    }
}

let rotations: [Double] = [0, 0.3, .pi / 2, 1.1, 2.5]

@Suite struct FillTessellatorTests {
    @Test(arguments: FillCase.allCases, FillRule.allCases)
    func areaMatchesReferenceUnderRotations(_ c: FillCase, _ rule: FillRule) throws {
        for angle in rotations {
            let polys = rotate(c.polygons, angle)
            let tri = try FillTessellator.triangulate(polys, rule: rule)
            let expected = Reference.area(polys, rule)
            let scale = polys.flatMap { $0 }.reduce(0.0) { max($0, abs($1.x), abs($1.y)) }
            #expect(abs(tri.area - expected) <= max(1e-9 * scale * scale, 1e-9 * expected),
                    "\(c) \(rule) rot \(angle): \(tri.area) vs \(expected)")
            #expect(tri.indices.allSatisfy { Int($0) < tri.points.count })
        }
    }

    @Test(arguments: FillCase.allCases, FillRule.allCases)
    func pointSamplingMatchesWindingReference(_ c: FillCase, _ rule: FillRule) throws {
        if c == .starThousand || c == .spiral { return }   // covered by area; sampling is O(grid² · triangles)
        for angle in [0.0, 0.7] {
            let polys = rotate(c.polygons, angle)
            let tri = try FillTessellator.triangulate(polys, rule: rule)
            let v = tri.validate(against: polys, rule: rule, grid: 32)
            #expect(v.indicesInRange)
            #expect(v.maxCoverage <= 1, "\(c) \(rule): overlapping triangles")
            #expect(v.mismatches == 0, "\(c) \(rule) rot \(angle): \(v.mismatches) of \(v.samples) samples wrong")
        }
    }

    @Test func pentagramExactAreas() throws {
        let polys = FillCase.pentagram.polygons
        // Regular pentagram with circumradius R: inner pentagon radius r = R·cos(72°)/cos(36°).
        let R = 10.0, r = R * cos(2 * .pi / 5) / cos(.pi / 5)
        let pentagon = 5.0 / 2 * r * r * sin(2 * .pi / 5)
        let points = 5.0 * (R * r * sin(.pi / 5))   // ten triangles centre–tip–notch
        let nonZero = try FillTessellator.triangulate(polys, rule: .nonZero).area
        let evenOdd = try FillTessellator.triangulate(polys, rule: .evenOdd).area
        #expect(abs(nonZero - points) < 1e-9)
        #expect(abs(evenOdd - (points - pentagon)) < 1e-9)
    }

    @Test func convexFastPathForShapes() throws {
        let shapes: [(Path, Double)] = [
            (.rect(Rect(1, 2, 30, 40)), 1200),
            (.roundedRect(Rect(0, 0, 100, 50), radius: 10), 5000 - (4 - .pi) * 100),
            (.ellipse(in: Rect(0, 0, 100, 60)), .pi * 50 * 30),
        ]
        for (path, exact) in shapes {
            let tri = try FillTessellator.triangulate(path, rule: .nonZero, scale: 4)
            // Flattening with 0.25 px at scale 4 loses at most tolerance × perimeter.
            #expect(abs(tri.area - exact) < 0.0625 * 400, "\(tri.area) vs \(exact)")
            #expect(tri.area <= exact + 1e-6)
        }
    }

    @Test func nonFiniteIsAnError() {
        #expect(throws: TessellationError.nonFiniteCoordinate(element: 1)) {
            try FillTessellator.triangulate([[Point(0, 0), Point(.nan, 1), Point(2, 2)]], rule: .nonZero)
        }
        var p = Path(); p.move(to: Point(0, 0)); p.addLine(to: Point(1, 0)); p.addLine(to: Point(.infinity, 4))
        #expect(throws: TessellationError.nonFiniteCoordinate(element: 2)) {
            try FillTessellator.coverageMesh(p, rule: .evenOdd)
        }
    }

    @Test func emptyAndDegenerateInputs() throws {
        #expect(try FillTessellator.triangulate([], rule: .nonZero).indices.isEmpty)
        #expect(try FillTessellator.triangulate([[Point(1, 1)]], rule: .nonZero).indices.isEmpty)
        #expect(try FillTessellator.triangulate([[Point(0, 5), Point(3, 5), Point(9, 5)]], rule: .nonZero).area == 0)
    }

    @Test(arguments: 0 ..< 60)
    func seededRandomPolygonsAreValid(_ seed: Int) throws {
        var r = SeededRandom(seed: UInt64(seed) &* 7919 &+ 11)
        var polys: [[Point]] = []
        let contours = Int.random(in: 1 ... 3, using: &r)
        let snap = seed % 3 == 0   // integer grid: many coincident vertices and edges
        for _ in 0 ..< contours {
            let n = Int.random(in: 2 ... 14, using: &r)
            polys.append((0 ..< n).map { _ in
                let x = Double.random(in: 0 ... 20, using: &r), y = Double.random(in: 0 ... 20, using: &r)
                return snap ? Point(x.rounded(), y.rounded()) : Point(x, y)
            })
        }
        for rule in FillRule.allCases {
            let tri = try FillTessellator.triangulate(polys, rule: rule)
            let expected = Reference.area(polys, rule)
            #expect(abs(tri.area - expected) < 1e-7 * max(1, expected), "seed \(seed) \(rule): \(tri.area) vs \(expected)")
            let v = tri.validate(against: polys, rule: rule, grid: 24)
            #expect(v.indicesInRange && v.maxCoverage <= 1 && v.mismatches == 0,
                    "seed \(seed) \(rule): coverage \(v.maxCoverage), \(v.mismatches) mismatches")
        }
    }

    /// The general sweep without its triangles (what a coverage mesh asks for) reports the
    /// same boundary runs, in the same order, as with them — on the named cases, seeded random
    /// polygons and a self-overlapping stroke outline — and that boundary encloses the
    /// region's area (∮ x nₓ ds — horizontal pieces add nothing — against the reference's),
    /// with no triangles written.
    @Test func theSweepWithoutTrianglesReportsTheSameBoundary() throws {
        var inputs = FillCase.allCases.map(\.polygons)
        for seed in 0 ..< 40 {
            var r = SeededRandom(seed: UInt64(seed) &* 104_729 &+ 3)
            inputs.append((0 ..< Int.random(in: 1 ... 3, using: &r)).map { _ in
                (0 ..< Int.random(in: 3 ... 14, using: &r)).map { _ in
                    Point(Double.random(in: 0 ... 20, using: &r).rounded(), Double.random(in: 0 ... 20, using: &r))
                }
            })
        }
        var loop = Path(); loop.move(to: Point(0, 0))
        loop.addCurve(to: Point(40, 0), control1: Point(60, 50), control2: Point(-20, 50))
        inputs.append(try StrokeTessellator.build(loop, style: StrokeStyle(lineWidth: 6), scale: 1, tolerance: 0.1,
                                              trim: true, outlining: true).outlines)
        for (n, polys) in inputs.enumerated() {
            for rule in FillRule.allCases {
                var with = FillSweep(rule: rule, collectBoundary: true)
                with.build(polys); with.run()
                var without = FillSweep(rule: rule, collectBoundary: true, collectTriangles: false)
                without.build(polys); without.run()
                #expect(without.out.points.isEmpty && without.out.indices.isEmpty)
                #expect(without.runs.count == with.runs.count, "input \(n) \(rule)")
                for (a, b) in zip(without.runs, with.runs) {
                    let same: Bool = a.a == b.a && a.b == b.b && a.outward == b.outward
                    #expect(same, "input \(n) \(rule)")
                }
                var area = 0.0
                for run in without.runs {
                    let midX: Double = (run.a.x + run.b.x) * 0.5
                    area += midX * run.outward.x * run.a.distance(to: run.b)
                }
                let expected = Reference.area(polys, rule)
                #expect(abs(area - expected) < 1e-6 * max(1, expected), "input \(n) \(rule): \(area) vs \(expected)")
            }
        }
    }

    @Test func theSweepReportsTheBoundary() throws {
        // A square with a hole: 8 boundary runs (the coverage mesh's edges come from them).
        let holed = Path.polygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(0, 10)])
            .appending(.polygon([Point(3, 3), Point(3, 7), Point(7, 7), Point(7, 3)]))
        let polys = try Flattener.flatten(holed, scale: 1).map(\.points)
        var runs: [FillTessellator.BoundaryRun]? = []
        let tri = try FillTessellator.triangulate(polys, rule: .evenOdd, boundary: &runs)
        #expect(runs?.count == 8)
        #expect(tri.triangleCount > 0)
    }
}

extension Path {
    func appending(_ o: Path) -> Path { var p = self; p.addPath(o); return p }
}
