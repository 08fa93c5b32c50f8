import Foundation
import Testing
@testable import LaminaGeometry

/// Coverage meshes (`CoverageMesh`), evaluated on the CPU with the shader's computation:
/// summed coverage against exact areas (the slab reference, the shoelace formula, circles),
/// per-pixel coverage against brute-force supersampling, no seams inside, and thin strokes'
/// weight against length × width.
@Suite struct CoverageMeshTests {
    /// Σ coverage × pixel area over every pixel (of side 1/scale) that can touch the mesh.
    static func summedCoverage(_ mesh: Mesh, scale: Double, offset: Point = Point(0, 0)) -> Double {
        let px = 1 / scale
        let b = mesh.bounds
        var sum = 0.0
        var y = ((b.minY - offset.y) / px).rounded(.down) * px + offset.y + px / 2
        while y < b.maxY + px {
            var x = ((b.minX - offset.x) / px).rounded(.down) * px + offset.x + px / 2
            while x < b.maxX + px {
                sum += CoverageMesh.coverage(of: mesh, x: x, y: y, width: px, height: px)
                x += px
            }
            y += px
        }
        return sum * px * px
    }

    static func polygonPath(_ polys: [[Point]]) -> Path {
        var p = Path()
        for poly in polys { p.addPolygon(poly) }
        return p
    }

    static func pentagram(_ r: Double, center c: Point) -> [Point] {
        (0 ..< 5).map { k in
            let a = -Double.pi / 2 + Double(2 * k) * 2 * .pi / 5
            return Point(c.x + r * cos(a), c.y + r * sin(a))
        }
    }

    static func shoelace(_ p: [Point]) -> Double {
        var s = 0.0
        for i in p.indices { let a = p[i], b = p[(i + 1) % p.count]; s += a.x * b.y - a.y * b.x }
        return abs(s) / 2
    }

    @Test(arguments: FillRule.allCases)
    func pentagramAreaWithinHalfAPercent(_ rule: FillRule) throws {
        let poly = Self.pentagram(70, center: Point(80.3, 75.6))
        let mesh = try FillTessellator.coverageMesh(Self.polygonPath([poly]), rule: rule)
        // Exact: the star's outline (10 vertices) for nonZero; minus the inner pentagon for evenOdd.
        let inner = 70 * sin(Double.pi / 10) / sin(7 * Double.pi / 10)
        var outline: [Point] = []
        for k in 0 ..< 10 {
            let a = -Double.pi / 2 + Double(k) * .pi / 5
            let r = k % 2 == 0 ? 70.0 : inner
            outline.append(Point(80.3 + r * cos(a), 75.6 + r * sin(a)))
        }
        let pentagon = (0 ..< 5).map { k in
            let a = -Double.pi / 2 + .pi / 5 + Double(k) * 2 * .pi / 5
            return Point(80.3 + inner * cos(a), 75.6 + inner * sin(a))
        }
        let exact = Self.shoelace(outline) - (rule == .evenOdd ? Self.shoelace(pentagon) : 0)
        let sum = Self.summedCoverage(mesh, scale: 1)
        #expect(abs(sum - exact) / exact < 0.005, "\(rule): \(sum) vs \(exact)")
        #expect(abs(sum - Reference.area([poly], rule)) / exact < 1e-4)
    }

    @Test(arguments: [1.0, 2.0, 0.7])
    func starsAndThousandPointStarWithinHalfAPercent(_ scale: Double) throws {
        for (n, inner, outer) in [(5, 30.0, 70.0), (12, 40.0, 60.0), (1000, 150.0, 200.0)] {
            let poly = star(points: n, inner: inner, outer: outer).map { Point($0.x + 210.25, $0.y + 205.5) }
            let mesh = try FillTessellator.coverageMesh(Self.polygonPath([poly]), rule: .nonZero, scale: scale)
            let exact = Self.shoelace(poly)
            let sum = Self.summedCoverage(mesh, scale: scale)
            #expect(abs(sum - exact) / exact < 0.005, "star \(n) at \(scale): \(sum) vs \(exact)")
        }
    }

    @Test func ringAndCircleAgainstTheirAreas() throws {
        // A ring: the outer circle and the inner one in the same direction, evenOdd; and with
        // nonZero the inner one reversed.
        let c = Point(100.5, 90.25)
        var ring = Path.ellipse(in: Rect(c.x - 60, c.y - 60, 120, 120))
        ring.addEllipse(in: Rect(c.x - 35, c.y - 35, 70, 70))
        let exact = Double.pi * (60 * 60 - 35 * 35)
        let mesh = try FillTessellator.coverageMesh(ring, rule: .evenOdd)
        let sum = Self.summedCoverage(mesh, scale: 1)
        #expect(abs(sum - exact) / exact < 0.005, "ring: \(sum) vs \(exact)")
        let disc = try FillTessellator.coverageMesh(.ellipse(in: Rect(10.3, 20.7, 50, 50)), rule: .nonZero)
        let discSum = Self.summedCoverage(disc, scale: 1)
        #expect(abs(discSum - .pi * 625) / (.pi * 625) < 0.005, "disc: \(discSum)")
    }

    /// A glyph-like outline: cubic bowls with a counter (hole), evenOdd and nonZero (the
    /// counter reversed), against the flattened outline's exact area.
    @Test(arguments: FillRule.allCases)
    func glyphLikeOutlineWithCubics(_ rule: FillRule) throws {
        var p = Path()
        p.move(to: Point(20, 10))
        p.addCurve(to: Point(80, 30), control1: Point(50, -5), control2: Point(85, 5))
        p.addCurve(to: Point(40, 95), control1: Point(75, 60), control2: Point(70, 95))
        p.addCurve(to: Point(20, 10), control1: Point(5, 95), control2: Point(-5, 30))
        p.closeSubpath()
        var hole: [Point] = []
        for k in 0 ..< 48 {
            let a = Double(k) / 48 * 2 * .pi * (rule == .nonZero ? -1 : 1)
            hole.append(Point(45 + 12 * cos(a), 50 + 18 * sin(a)))
        }
        p.addPolygon(hole)
        let mesh = try FillTessellator.coverageMesh(p, rule: rule, scale: 1)
        let fine = try Flattener.flatten(p, scale: 16).map(\.points)
        let exact = Reference.area(fine, rule)
        let sum = Self.summedCoverage(mesh, scale: 1)
        #expect(abs(sum - exact) / exact < 0.005, "\(rule): \(sum) vs \(exact)")
    }

    /// Every pixel's coverage against 32 × 32 point samples of the winding reference.
    @Test(arguments: FillRule.allCases)
    func perPixelCoverageMatchesSupersampling(_ rule: FillRule) throws {
        let polys = [Self.pentagram(14, center: Point(16.3, 15.8)),
                     [Point(3, 3), Point(29, 5.5), Point(28, 7), Point(2.5, 4.2)]]   // a thin sliver across
        let mesh = try FillTessellator.coverageMesh(Self.polygonPath(polys), rule: rule)
        var worst = 0.0
        for py in 0 ..< 32 {
            for px in 0 ..< 32 {
                let got = CoverageMesh.coverage(of: mesh, x: Double(px) + 0.5, y: Double(py) + 0.5, width: 1, height: 1)
                var inside = 0
                for sy in 0 ..< 32 {
                    for sx in 0 ..< 32 {
                        let p = Point(Double(px) + (Double(sx) + 0.5) / 32, Double(py) + (Double(sy) + 0.5) / 32)
                        if Reference.inside(p, polys, rule) { inside += 1 }
                    }
                }
                worst = max(worst, abs(got - Double(inside) / 1024))
            }
        }
        // 32 × 32 samples resolve coverage to about 1/32 along an edge crossing the pixel.
        #expect(worst < 0.04, "\(rule): worst pixel off by \(worst)")
    }

    /// Inside a shape made of many pieces (flattened arcs, crossings, a hole), pixels whose
    /// footprint is wholly inside are exactly 1: no seams where pieces meet.
    @Test func noSeamsInside() throws {
        var ring = Path.ellipse(in: Rect(0.4, 0.7, 90, 90))
        ring.addEllipse(in: Rect(30.4, 30.7, 30, 30))
        let shapes: [(Path, FillRule, [[Point]])] = [
            (ring, .evenOdd, try Flattener.flatten(ring, scale: 1).map(\.points)),
            (Self.polygonPath([Self.pentagram(45, center: Point(50.2, 50.1))]), .evenOdd, [Self.pentagram(45, center: Point(50.2, 50.1))]),
        ]
        for (path, rule, polys) in shapes {
            let mesh = try FillTessellator.coverageMesh(path, rule: rule)
            var checked = 0
            for py in 0 ..< 100 {
                for px in 0 ..< 100 {
                    let c = Point(Double(px) + 0.5, Double(py) + 0.5)
                    // Wholly inside: the centre inside and no edge within the box's half-diagonal.
                    guard Reference.inside(c, polys, rule), Self.distanceToEdges(c, polys) > 0.75 else { continue }
                    let got = CoverageMesh.coverage(of: mesh, x: c.x, y: c.y, width: 1, height: 1)
                    #expect(got >= 1 - 1e-6, "pixel \(px), \(py): \(got)")
                    checked += 1
                }
            }
            #expect(checked > 500)
        }
    }

    static func distanceToEdges(_ p: Point, _ polys: [[Point]]) -> Double {
        var best = Double.infinity
        for poly in polys {
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                let d = b - a
                let t = max(0, min(1, (p - a).dot(d) / max(d.dot(d), 1e-300)))
                best = min(best, p.distance(to: a + d * t))
            }
        }
        return best
    }

    /// Thin strokes and hairlines keep their weight: summed coverage = length × width (butt
    /// caps), at any angle; a hairline is one device pixel wide.
    @Test(arguments: [0.25, 0.5, 1.0, 0])
    func thinStrokesKeepTheirWeight(_ width: Double) throws {
        for angle in [0.0, 0.37, Double.pi / 4, 1.2] {
            var line = Path()
            let a = Point(40.3, 40.6), d = Point(cos(angle), sin(angle))
            line.move(to: a)
            line.addLine(to: a + d * 60)
            for scale in [1.0, 2.0] {
                let mesh = try StrokeTessellator.coverageMesh(line, style: StrokeStyle(lineWidth: width), scale: scale)
                let expected = 60 * (width == 0 ? 1 / scale : width)
                let sum = Self.summedCoverage(mesh, scale: scale)
                #expect(abs(sum - expected) / expected < 0.005, "width \(width) angle \(angle) scale \(scale): \(sum) vs \(expected)")
            }
        }
    }

    /// A dashed, self-crossing stroke: its covered area is the union of its pieces'
    /// (the overlap-free triangles' area).
    @Test func dashedSelfCrossingStrokeIsItsUnion() throws {
        var p = Path()
        p.move(to: Point(10, 10)); p.addLine(to: Point(90, 70)); p.addLine(to: Point(90, 10)); p.addLine(to: Point(10, 70))
        let style = StrokeStyle(lineWidth: 6, lineJoin: .round, dashPattern: [20, 7])
        let mesh = try StrokeTessellator.coverageMesh(p, style: style, scale: 1)
        let exact = try StrokeTessellator.overlapFreeTriangles(p, style: style, scale: 1).area
        let sum = Self.summedCoverage(mesh, scale: 1)
        #expect(abs(sum - exact) / exact < 0.005, "\(sum) vs \(exact)")
    }

    /// A stroke's outline (what draws: `StrokeBuilder.outline`, one polygon per run with the
    /// inner joins cut at the offset lines' crossing) and its pieces merged into quads where
    /// two triangles share a diagonal cover every pixel as the pieces' triangles unioned one
    /// by one do: joins of every kind, caps, dots, dashes, a self-crossing path, closed paths,
    /// a hairpin, a 200-segment wave, a stroke wider than its curves' radius, strokes thinner
    /// than a pixel and a hairline, at three scales.
    @Test func strokeOutlinesAndQuadsCoverAsTheirTriangles() throws {
        var zigzag = Path()
        zigzag.move(to: Point(8, 40)); zigzag.addLine(to: Point(24, 12)); zigzag.addLine(to: Point(40, 40))
        zigzag.addLine(to: Point(56, 20))
        var crossing = Path()
        crossing.move(to: Point(10, 10)); crossing.addLine(to: Point(60, 50)); crossing.addLine(to: Point(60, 10))
        crossing.addLine(to: Point(10, 50))
        var wave = Path()
        wave.move(to: Point(0, 30))
        for k in 1 ... 200 { wave.addLine(to: Point(Double(k) * 0.4, 30 + 12 * sin(Double(k) * 0.21))) }
        var hairpin = Path()   // turns back on itself, then by 179°, then a short segment
        hairpin.move(to: Point(10, 20)); hairpin.addLine(to: Point(50, 20)); hairpin.addLine(to: Point(20, 20))
        hairpin.addLine(to: Point(50, 20.5)); hairpin.addLine(to: Point(50.3, 24))
        var loops = Path()     // cubics tighter than the stroke is wide, crossing themselves
        loops.move(to: Point(10, 30))
        loops.addCurve(to: Point(30, 30), control1: Point(40, 0), control2: Point(0, 0))
        loops.addCurve(to: Point(55, 32), control1: Point(60, 60), control2: Point(20, 55))
        let ring = Path.ellipse(in: Rect(10, 8, 40, 30))
        let box = Path.rect(Rect(12, 10, 30, 24))
        var star = Path()
        star.addPolygon((0 ..< 10).map { k in
            let r = k % 2 == 0 ? 22.0 : 8.0, t = Double(k) * .pi / 5
            return Point(32 + r * sin(t), 30 - r * cos(t))
        }, closed: true)
        let cases: [(Path, StrokeStyle)] = [
            (zigzag, StrokeStyle(lineWidth: 6, lineCap: .butt, lineJoin: .miter, miterLimit: 10)),
            (zigzag, StrokeStyle(lineWidth: 6, lineCap: .round, lineJoin: .round)),
            (zigzag, StrokeStyle(lineWidth: 5, lineCap: .square, lineJoin: .bevel)),
            (crossing, StrokeStyle(lineWidth: 4, lineJoin: .round, dashPattern: [9, 4])),
            (crossing, StrokeStyle(lineWidth: 3, lineCap: .round, dashPattern: [0, 5])),
            (crossing, StrokeStyle(lineWidth: 3, lineCap: .square, dashPattern: [0, 6, 2, 3])),
            (wave, StrokeStyle(lineWidth: 3, lineJoin: .round)),
            (wave, StrokeStyle(lineWidth: 0.5)),
            (wave, StrokeStyle(lineWidth: 0)),
            (wave, StrokeStyle(lineWidth: 0.3, lineCap: .round, dashPattern: [2, 1.5], dashPhase: 0.7)),
            (hairpin, StrokeStyle(lineWidth: 4, lineJoin: .miter)),
            (hairpin, StrokeStyle(lineWidth: 4, lineCap: .round, lineJoin: .round)),
            (loops, StrokeStyle(lineWidth: 14, lineJoin: .round)),
            (loops, StrokeStyle(lineWidth: 9, lineCap: .square, lineJoin: .miter)),
            (loops, StrokeStyle(lineWidth: 0.6, strokeStart: 0.1, strokeEnd: 0.8)),
            (ring, StrokeStyle(lineWidth: 5)),
            (ring, StrokeStyle(lineWidth: 0.4, dashPattern: [3, 2])),
            (box, StrokeStyle(lineWidth: 4, lineJoin: .miter)),
            (box, StrokeStyle(lineWidth: 30, lineJoin: .round)),
            (box, StrokeStyle(lineWidth: 4, lineCap: .round, strokeStart: 0.2, strokeEnd: 0.7)),
            (star, StrokeStyle(lineWidth: 3, lineJoin: .miter, miterLimit: 4)),
            (star, StrokeStyle(lineWidth: 7, lineJoin: .bevel)),
        ]
        for (n, (path, style)) in cases.enumerated() {
            for scale in [0.5, 1.0, 2.0] {
                let t = CoverageMesh.tolerance
                let triangles = try StrokeTessellator.coverageMesh(path, style: style, scale: scale, tolerance: t, pieces: .triangles)
                let merged = try StrokeTessellator.coverageMesh(path, style: style, scale: scale, tolerance: t, pieces: .quads)
                let outlined = try StrokeTessellator.coverageMesh(path, style: style, scale: scale, tolerance: t, pieces: .outlines)
                let px = 1 / scale, b = triangles.bounds
                var worstQuads = 0.0, worstOutline = 0.0
                var y = (b.minY / px).rounded(.down) * px + px / 2
                while y < b.maxY + px {
                    var x = (b.minX / px).rounded(.down) * px + px / 2
                    while x < b.maxX + px {
                        let c = CoverageMesh.coverage(of: triangles, x: x, y: y, width: px, height: px)
                        worstQuads = max(worstQuads, abs(CoverageMesh.coverage(of: merged, x: x, y: y, width: px, height: px) - c))
                        worstOutline = max(worstOutline,
                                           abs(CoverageMesh.coverage(of: outlined, x: x, y: y, width: px, height: px) - c))
                        x += px
                    }
                    y += px
                }
                #expect(worstQuads < 1e-4, "case \(n) scale \(scale): quads: a pixel differs by \(worstQuads)")
                #expect(worstOutline < 1e-4, "case \(n) scale \(scale): outline: a pixel differs by \(worstOutline)")
            }
        }
    }

    /// Edges lying exactly on a tile's expanded side (integer coordinates meet the tile grid
    /// often): rects at every offset and width, and a square-capped stroke turning a corner.
    @Test func edgesOnTileSidesCountOnce() throws {
        for x0 in 0 ..< 9 {
            for w in 1 ... 20 {
                let mesh = try FillTessellator.coverageMesh(.rect(Rect(Double(x0), 2, Double(w), 5)), rule: .nonZero)
                let sum = Self.summedCoverage(mesh, scale: 1)
                #expect(abs(sum - Double(5 * w)) < 1e-3, "rect at \(x0) width \(w): \(sum)")
            }
        }
        let path = Path.rect(Rect(5, 5, 30, 30))
        let style = StrokeStyle(lineWidth: 4, lineCap: .square, strokeEnd: 0.5)
        let mesh = try StrokeTessellator.coverageMesh(path, style: style, scale: 1)
        // The top side and the right one, 4 wide, with square caps: (30 + 4) × 4 + 30 × 4 … less
        // the shared corner: the union is 2 + 30 + 2 = 34 by 4 plus 4 by (30 + 2 − 2).
        #expect(abs(Self.summedCoverage(mesh, scale: 1) - (34 * 4 + 4 * 30)) < 1e-3)
    }
}
