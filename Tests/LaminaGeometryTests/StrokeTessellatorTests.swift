import Foundation
import Testing
import TestSupport
@testable import LaminaGeometry

@Suite struct StrokeTessellatorTests {
    func line(_ a: Point, _ b: Point) -> Path { var p = Path(); p.move(to: a); p.addLine(to: b); return p }
    func area(_ path: Path, _ style: StrokeStyle, scale: Double = 8) throws -> Double {
        try StrokeTessellator.overlapFreeTriangles(path, style: style, scale: scale).area
    }

    @Test(arguments: rotations)
    func straightSegmentCaps(_ angle: Double) throws {
        let p = line(Point(0, 0), Point(100, 0)).rotated(by: angle)
        let w = 6.0
        #expect(abs(try area(p, StrokeStyle(lineWidth: w, lineCap: .butt)) - w * 100) < 1e-6)
        #expect(abs(try area(p, StrokeStyle(lineWidth: w, lineCap: .square)) - w * 106) < 1e-6)
        // Two round caps add π w²/8 each; flattening (0.25 px at scale 8) loses less than
        // tolerance × arc length.
        let round = try area(p, StrokeStyle(lineWidth: w, lineCap: .round))
        let exact = w * 100 + .pi * w * w / 4
        #expect(round <= exact + 1e-9 && exact - round < 0.25 / 8 * .pi * w, "\(round) vs \(exact)")
    }

    @Test(arguments: rotations)
    func rightAngleJoins(_ angle: Double) throws {
        var p = Path(); p.addPolygon([Point(0, 0), Point(10, 0), Point(10, 10)], closed: false)
        p = p.rotated(by: angle)
        let miter = try area(p, StrokeStyle(lineWidth: 2, lineJoin: .miter))
        let bevel = try area(p, StrokeStyle(lineWidth: 2, lineJoin: .bevel))
        let round = try area(p, StrokeStyle(lineWidth: 2, lineJoin: .round))
        #expect(abs(miter - 40) < 1e-9, "miter \(miter)")
        #expect(abs(bevel - 39.5) < 1e-9, "bevel \(bevel)")
        let roundExact: Double = 39 + Double.pi / 4, slack: Double = 0.25 / 8 * Double.pi / 2
        #expect(round <= roundExact + 1e-9 && round > roundExact - slack, "round \(round)")
        // A miter limit below √2 turns the right-angle miter into a bevel.
        let limited = try area(p, StrokeStyle(lineWidth: 2, lineJoin: .miter, miterLimit: 1.4))
        #expect(abs(limited - 39.5) < 1e-9)
    }

    @Test func closedSquareHasJoinsEverywhere() throws {
        let p = Path.rect(Rect(0, 0, 10, 10))
        // Outer 12×12 minus inner 8×8 with miter joins.
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, lineJoin: .miter)) - (144 - 64)) < 1e-9)
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, lineJoin: .bevel)) - (144 - 64 - 2)) < 1e-9)
    }

    @Test func dashes() throws {
        let p = line(Point(0, 0), Point(100, 0))
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, dashPattern: [10, 10])) - 100) < 1e-9)
        // Phase shifts the pattern: [10 on, 10 off] from 5 → 5, 10, 10, 10, 10, 5 on = 50.
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, dashPattern: [10, 10], dashPhase: 5)) - 100) < 1e-9)
        // An odd pattern repeats: [10] is 10 on, 10 off.
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, dashPattern: [10])) - 100) < 1e-9)
        // Zero-length dashes with round caps are dots: 11 circles of diameter 2.
        let dots = try area(p, StrokeStyle(lineWidth: 2, lineCap: .round, dashPattern: [0, 10]))
        let dotsExact: Double = 11 * Double.pi, dotSlack: Double = 11 * 0.25 / 8 * 2 * Double.pi
        #expect(dots <= dotsExact && dotsExact - dots < dotSlack, "\(dots)")
        let squares = try area(p, StrokeStyle(lineWidth: 2, lineCap: .square, dashPattern: [0, 10]))
        #expect(abs(squares - 11 * 4) < 1e-9, "\(squares)")
        #expect(try area(p, StrokeStyle(lineWidth: 2, lineCap: .butt, dashPattern: [0, 10])) == 0)
        // A pattern longer than the path.
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, dashPattern: [30, 1000])) - 60) < 1e-9)
    }

    @Test func dashesAreLimitedPerPath() throws {
        // 10⁸ dashes of 0.01 along a line a million long (and a second subpath): only the
        // first maxDashes are made — in time and memory a frame can afford — and they are
        // the dashes at the start of the path, whose area is exact: n × 0.01 × width 2.
        var p = line(Point(0, 0), Point(1_000_000, 0))
        p.move(to: Point(0, 10)); p.addLine(to: Point(1_000_000, 10))
        let style = StrokeStyle(lineWidth: 2, dashPattern: [0.01, 0.01])
        let pieces = try StrokeTessellator.triangles(p, style: style, scale: 1)
        let area = pieces.area
        #expect(abs(area - Double(StrokeTessellator.maxDashes) * 0.02) < 1e-3, "\(area)")
    }

    @Test func trimming() throws {
        let p = line(Point(0, 0), Point(100, 0))
        #expect(abs(try area(p, StrokeStyle(lineWidth: 2, strokeStart: 0.25, strokeEnd: 0.75)) - 100) < 1e-9)
        #expect(try area(p, StrokeStyle(lineWidth: 2, strokeStart: 0.8, strokeEnd: 0.2)) == 0)
        // Closed path: strokeEnd 0.5 draws the first two sides as an open path (butt ends).
        let sq = Path.rect(Rect(0, 0, 10, 10))
        let half = try area(sq, StrokeStyle(lineWidth: 2, lineJoin: .miter, strokeEnd: 0.5))
        #expect(abs(half - 40) < 1e-9, "\(half)")
    }

    @Test(arguments: 0 ..< 25)
    func seededRandomStrokesAreValid(_ seed: Int) throws {
        var r = SeededRandom(seed: UInt64(seed) &+ 1000)
        var p = Path()
        p.move(to: Point(Double.random(in: 0 ... 50, using: &r), Double.random(in: 0 ... 50, using: &r)))
        for _ in 0 ..< Int.random(in: 1 ... 8, using: &r) {
            let q = Point(Double.random(in: 0 ... 50, using: &r).rounded(), Double.random(in: 0 ... 50, using: &r).rounded())
            switch Int.random(in: 0 ..< 4, using: &r) {
            case 0: p.addLine(to: q)
            case 1: p.addQuadCurve(to: q, control: Point(Double.random(in: 0 ... 50, using: &r), 0))
            case 2: p.addCurve(to: q, control1: q, control2: Point(0, Double.random(in: 0 ... 50, using: &r)))
            default: p.addLine(to: p.currentPoint!)   // zero-length segment
            }
        }
        if seed % 2 == 0 { p.closeSubpath() }
        let style = StrokeStyle(lineWidth: Double.random(in: 0 ... 8, using: &r),
                                lineCap: LineCap.allCases[seed % 3], lineJoin: LineJoin.allCases[(seed / 3) % 3],
                                dashPattern: seed % 4 == 1 ? [3, 0, 2] : [],
                                strokeStart: seed % 5 == 2 ? 0.3 : 0, strokeEnd: seed % 5 == 2 ? 0.9 : 1)
        let m = try StrokeTessellator.coverageMesh(p, style: style, scale: 2)
        #expect(m.indices.allSatisfy { Int($0) < m.vertices.count })
        // The quad's corners (the other records hold integers as bit patterns).
        #expect(m.vertices.prefix(4).allSatisfy { $0.x.isFinite && $0.y.isFinite })
        let union = try StrokeTessellator.overlapFreeTriangles(p, style: style, scale: 2)
        let pieces = try StrokeTessellator.triangles(p, style: style, scale: 2)
        #expect(union.area <= pieces.area + 1e-6)
    }

    @Test func nonFiniteIsAnError() {
        var p = Path(); p.move(to: Point(0, 0)); p.addQuadCurve(to: Point(1, 1), control: Point(.nan, 0))
        #expect(throws: TessellationError.nonFiniteCoordinate(element: 1)) {
            try StrokeTessellator.coverageMesh(p, style: StrokeStyle())
        }
    }
}

extension StrokeTessellator {
    /// The stroke's pieces (what `coverageMesh` unions) as triangles in double precision; they
    /// may overlap. A test oracle: the pieces' geometry is what draws.
    static func triangles(_ path: Path, style: StrokeStyle, scale: Double = 1,
                          tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> TriangleList {
        let b = try build(path, style: style, scale: scale, tolerance: tolerance, trim: true)
        return TriangleList(points: b.points, indices: b.interior)
    }

    /// The stroke's covered region as non-overlapping triangles: the union of the pieces,
    /// filled with nonZero (the exact-area reference of the stroke tests).
    static func overlapFreeTriangles(_ path: Path, style: StrokeStyle, scale: Double = 1,
                                     tolerance: Double = Flattener.defaultTolerance) throws(TessellationError) -> TriangleList {
        let t = try triangles(path, style: style, scale: scale, tolerance: tolerance)
        var polys: [[Point]] = []
        polys.reserveCapacity(t.triangleCount)
        for i in 0 ..< t.triangleCount {
            let (a, b, c) = t.triangle(i)
            let cr = (b - a).cross(c - a)
            if cr > 0 { polys.append([a, b, c]) } else if cr < 0 { polys.append([a, c, b]) }
        }
        return try FillTessellator.triangulate(polys, rule: .nonZero)
    }
}
