import Foundation
import Testing
@testable import LaminaGeometry

/// Shapes meshed only where they can be seen (`VisibleWindow`): the work is bounded by the
/// window (counted in edge records — never timed), and every pixel inside the window is
/// covered as by the whole shape, or as the exact area worked out by hand.
@Suite struct VisibleWindowTests {
    /// The coverage of every one-pixel box centred on a pixel centre of `r` (scale 1).
    static func pixels(_ mesh: Mesh, in r: Rect) -> [Double] {
        var out: [Double] = []
        var y = r.minY + 0.5
        while y < r.maxY {
            var x = r.minX + 0.5
            while x < r.maxX { out.append(CoverageMesh.coverage(of: mesh, x: x, y: y, width: 1, height: 1)); x += 1 }
            y += 1
        }
        return out
    }

    /// Edge records in a coverage mesh (after the header and the tiles).
    static func edgeRecords(_ mesh: Mesh) -> Int {
        guard mesh.vertices.count > CoverageMesh.headerRecords else { return 0 }
        let cols = Int(mesh.vertices[5].x.bitPattern), rows = Int(mesh.vertices[5].y.bitPattern)
        return mesh.vertices.count - CoverageMesh.headerRecords - cols * rows
    }

    /// The length of [a, b] covered by the periodic stripes [s + k·period, s + k·period + on].
    static func stripeOverlap(_ a: Double, _ b: Double, start s: Double, on: Double, period: Double) -> Double {
        var k = ((a - s) / period).rounded(.down) - 1
        var sum = 0.0
        while s + k * period < b {
            let lo = max(a, s + k * period), hi = min(b, s + k * period + on)
            if hi > lo { sum += hi - lo }
            k += 1
        }
        return sum
    }

    static let view = Rect(0, 0, 64, 48)

    /// A triangle 2e12 points across with its long diagonal y = x + 0.25 through the window:
    /// each pixel's coverage is the part of its box on the inside (y ≥ x + 0.25), worked out by
    /// hand, and the mesh holds a few hundred records, not a grid over the whole triangle.
    @Test(arguments: FillRule.allCases)
    func hugeFillCrossingTheWindow(_ rule: FillRule) throws {
        let big = 1e12
        let path = Path.polygon([Point(-big, -big + 0.25), Point(big, big + 0.25), Point(-big, big + 0.25)])
        let mesh = try FillTessellator.coverageMesh(path, rule: rule, scale: 1, window: Self.view)
        #expect(Self.edgeRecords(mesh) < 2_000)
        #expect(mesh.bounds.width < 100 && mesh.bounds.height < 100)
        var worst = 0.0
        var y = 0.5
        while y < Self.view.maxY {
            var x = 0.5
            while x < Self.view.maxX {
                let d = y - x - 0.25   // signed offset of the box centre from the line, along y
                let exact = d >= 1 ? 1 : d <= -1 ? 0 : d >= 0 ? 1 - (1 - d) * (1 - d) / 2 : (1 + d) * (1 + d) / 2
                worst = max(worst, abs(CoverageMesh.coverage(of: mesh, x: x, y: y, width: 1, height: 1) - exact))
                x += 1
            }
            y += 1
        }
        #expect(worst < 1e-3, "worst pixel off by \(worst)")
    }

    /// A dashed line 2e9 long and 1e30 wide (butt caps: vertical stripes 3 on, 5 off): the
    /// stripes in the window are found from the pattern's period, so each pixel gets the
    /// stripes' share of its box — without the window, the 32,768 dashes the budget allows end
    /// 262,144 points from the start, far before the window.
    @Test func hugeWidthDashedLineShowsItsStripes() throws {
        var p = Path()
        p.move(to: Point(-1e9, 20)); p.addLine(to: Point(1e9, 20))
        let style = StrokeStyle(lineWidth: 1e30, dashPattern: [3, 5])
        let mesh = try StrokeTessellator.coverageMesh(p, style: style, scale: 1, window: Self.view)
        #expect(Self.edgeRecords(mesh) < 4_000)
        var worst = 0.0
        for (i, c) in Self.pixels(mesh, in: Self.view).enumerated() {
            let x = Double(i % 64)
            let exact = Self.stripeOverlap(x, x + 1, start: -1e9, on: 3, period: 8)
            worst = max(worst, abs(c - exact))
        }
        #expect(worst < 1e-4, "worst pixel off by \(worst)")
    }

    /// Square caps close every gap shorter than the width: a pattern of 1e-3 on, 1e-3 off along
    /// 2e9 points is drawn as the solid line (exactly the union), one run, not a billion.
    @Test func gapsClosedBySquareCapsDrawSolid() throws {
        var p = Path()
        p.move(to: Point(-1e9, 24)); p.addLine(to: Point(1e9, 24))
        let style = StrokeStyle(lineWidth: 20, lineCap: .square, dashPattern: [1e-3, 1e-3])
        let mesh = try StrokeTessellator.coverageMesh(p, style: style, scale: 1, window: Self.view)
        #expect(Self.edgeRecords(mesh) < 2_000)
        for (i, c) in Self.pixels(mesh, in: Self.view).enumerated() {
            let y = Double(i / 64)
            let exact = max(0, min(y + 1, 34) - max(y, 14))   // the band 14 ≤ y ≤ 34
            #expect(abs(c - exact) < 1e-6, "row \(y): \(c) vs \(exact)")
        }
    }

    /// Butt dashes a ten-thousandth of a point apart at scale 1 (period 1/2,500 device pixel:
    /// 180,000 in the window, past the budget) are the solid line with coverage scaled by the
    /// duty cycle, 1/4: each pixel's exact coverage to within a period's share.
    @Test func dashesFinerThanAPixelDrawTheirDutyCycle() throws {
        var p = Path()
        p.move(to: Point(-1e9, 24)); p.addLine(to: Point(1e9, 24))
        let style = StrokeStyle(lineWidth: 20, dashPattern: [1e-4, 3e-4])
        let mesh = try StrokeTessellator.coverageMesh(p, style: style, scale: 1, window: Self.view)
        #expect(Self.edgeRecords(mesh) < 2_000)
        #expect(abs(mesh.coverageScale - 0.25) < 1e-12)
        for (i, c) in Self.pixels(mesh, in: Self.view).enumerated() {
            let y = Double(i / 64)
            let exact = 0.25 * max(0, min(y + 1, 34) - max(y, 14))   // the band 14 ≤ y ≤ 34, a quarter on
            #expect(abs(c * mesh.coverageScale - exact) < 1e-3, "row \(y): \(c) vs \(exact)")
        }
        // Coarser ones are made: a period of two pixels keeps its stripes.
        let coarse = try StrokeTessellator.coverageMesh(p, style: StrokeStyle(lineWidth: 20, dashPattern: [0.5, 1.5]),
                                                        scale: 1, window: Self.view)
        #expect(coarse.coverageScale == 1)
    }

    /// Cut to a window through the middle of ordinary shapes — dashed and solid, open and
    /// closed, every cap and join, trimmed — every pixel inside the window is covered as by the
    /// whole shape's mesh (the cut, its caps and the dropped pieces stay outside).
    @Test(arguments: LineCap.allCases, LineJoin.allCases)
    func windowKeepsEveryPixel(_ cap: LineCap, _ join: LineJoin) throws {
        var zigzag = Path()
        zigzag.move(to: Point(-40, 70)); zigzag.addLine(to: Point(20, 5)); zigzag.addLine(to: Point(45, 60))
        zigzag.addLine(to: Point(110, -20)); zigzag.addLine(to: Point(130, 90))
        let closed = Path.roundedRect(Rect(-30, 10, 150, 70), radius: 25)
        let window = Rect(8, 12, 48, 40)
        let styles = [
            StrokeStyle(lineWidth: 9, lineCap: cap, lineJoin: join, miterLimit: 4),
            StrokeStyle(lineWidth: 9, lineCap: cap, lineJoin: join, dashPattern: [13, 6], dashPhase: 5),
            StrokeStyle(lineWidth: 5, lineCap: cap, lineJoin: join, dashPattern: [0, 9]),
            StrokeStyle(lineWidth: 7, lineCap: cap, lineJoin: join, strokeStart: 0.1, strokeEnd: 0.8),
            StrokeStyle(lineWidth: 30, lineCap: cap, lineJoin: join, dashPattern: [4, 3]),
        ]
        for path in [zigzag, closed] {
            for style in styles {
                let whole = try StrokeTessellator.coverageMesh(path, style: style, scale: 1)
                let cut = try StrokeTessellator.coverageMesh(path, style: style, scale: 1, window: window)
                let a = Self.pixels(whole, in: window), b = Self.pixels(cut, in: window)
                let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
                #expect(worst < 1e-4, "\(style): worst pixel off by \(worst)")
                #expect(cut.bounds.minX >= window.minX - 8 && cut.bounds.maxX <= window.maxX + 8)
            }
            let fill = try FillTessellator.coverageMesh(path, rule: .evenOdd, scale: 1)
            let fillCut = try FillTessellator.coverageMesh(path, rule: .evenOdd, scale: 1, window: window)
            let worst = zip(Self.pixels(fill, in: window), Self.pixels(fillCut, in: window)).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 1e-4, "fill: worst pixel off by \(worst)")
        }
    }

    /// Sutherland–Hodgman keeps the winding inside the rect: a self-crossing polygon looping
    /// around the rect twice, clipped, still winds twice around its inside points.
    @Test func clipKeepsWinding() {
        let r = Rect(0, 0, 10, 10)
        let loop = [Point(-5, -5), Point(15, -5), Point(15, 15), Point(-5, 15)]
        let twice = loop + loop
        let clipped = VisibleWindow.clip(twice, to: r)
        func winding(_ poly: [Point], _ p: Point) -> Int {
            var w = 0
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                if a.y <= p.y && b.y > p.y && (b - a).cross(p - a) > 0 { w += 1 }
                if a.y > p.y && b.y <= p.y && (b - a).cross(p - a) < 0 { w -= 1 }
            }
            return w
        }
        #expect(abs(winding(clipped, Point(5, 5))) == 2)
        #expect(abs(winding(clipped, Point(1, 9))) == 2)
        #expect(clipped.allSatisfy { r.containsClosed($0) })
    }

    /// The record budget: forty thousand edges, each across a grid of up to 65,536 tiles, get larger
    /// tiles instead of tens of millions of records.
    @Test func recordsStayWithinTheBudget() throws {
        var polys: [[Point]] = []
        for k in 0 ..< 10_000 {
            let x = Double(k) * 4
            polys.append([Point(x, 0), Point(x + 1, 0), Point(x + 1, 10_000), Point(x, 10_000)])
        }
        var path = Path()
        for poly in polys { path.addPolygon(poly) }
        let mesh = try FillTessellator.coverageMesh(path, rule: .nonZero, scale: 1)
        #expect(Self.edgeRecords(mesh) <= CoverageMesh.maxRecords)
        // Still exact: the stripes' share of a box straddling one.
        #expect(abs(CoverageMesh.coverage(of: mesh, x: 401, y: 5_000.5, width: 1, height: 1) - 0.5) < 1e-6)
        #expect(abs(CoverageMesh.coverage(of: mesh, x: 400.5, y: 5_000.5, width: 1, height: 1) - 1) < 1e-6)
    }
}
