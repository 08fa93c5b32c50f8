import Foundation
import Testing
@testable import LaminaGeometry

@Suite struct SVGPathParserTests {
    @Test func absoluteAndRelativeCommands() throws {
        let p = try Path(svg: "M10 20 L30 40 l10 0 H0 h5 V1 v-1 Z m1 1 l2 2 z")
        #expect(p.elements == [
            .move(Point(10, 20)), .line(Point(30, 40)), .line(Point(40, 40)), .line(Point(0, 40)),
            .line(Point(5, 40)), .line(Point(5, 1)), .line(Point(5, 0)), .close,
            .move(Point(11, 21)), .line(Point(13, 23)), .close,
        ])
    }

    @Test func compactNumbersAndImplicitRepeats() throws {
        let p = try Path(svg: "M.5.5-1-1e1 1.5e+0,2")
        #expect(p.elements == [.move(Point(0.5, 0.5)), .line(Point(-1, -10)), .line(Point(1.5, 2))])
        let q = try Path(svg: "m1 1 2 2 3 3")
        #expect(q.elements == [.move(Point(1, 1)), .line(Point(3, 3)), .line(Point(6, 6))])
    }

    @Test func smoothCurves() throws {
        let p = try Path(svg: "M0 0 C10 0 20 10 20 20 S30 40 40 40 Q50 40 50 50 T60 60 t10 10")
        #expect(p.elements[2] == .cubic(Point(20, 30), Point(30, 40), Point(40, 40)))
        #expect(p.elements[4] == .quad(Point(50, 60), Point(60, 60)))
        #expect(p.elements[5] == .quad(Point(70, 60), Point(70, 70)))
        // S without a previous C uses the current point as first control.
        let s = try Path(svg: "M0 0 L5 5 S10 10 20 20")
        #expect(s.elements[2] == .cubic(Point(5, 5), Point(10, 10), Point(20, 20)))
    }

    @Test func arcs() throws {
        // A half circle of radius 10 with compact flags.
        let p = try Path(svg: "M0 0A10 10 0 1120 0")
        #expect(p.currentPoint == Point(20, 0))
        let tri = try FillTessellator.triangulate(p, rule: .nonZero, scale: 16)
        #expect(abs(tri.area - .pi * 50) < 0.5)
        // Radii too small are scaled up; zero radii give a line.
        let small = try Path(svg: "M0 0 a1 1 0 0 0 20 0")
        #expect(small.currentPoint == Point(20, 0))
        #expect(try Path(svg: "M0 0 A0 5 0 0 1 10 10").elements.last == .line(Point(10, 10)))
        // The sweep flag picks the side.
        let up = try Path(svg: "M0 0 A10 10 0 0 1 20 0").flattened(scale: 4)[0].points
        let down = try Path(svg: "M0 0 A10 10 0 0 0 20 0").flattened(scale: 4)[0].points
        #expect(up.map(\.y).min()! < -9 && down.map(\.y).max()! > 9)
    }

    @Test func closeThenDrawStartsAtSubpathStart() throws {
        let p = try Path(svg: "M10 10 L20 10 Z L10 20")
        #expect(p.elements == [.move(Point(10, 10)), .line(Point(20, 10)), .close, .move(Point(10, 10)), .line(Point(10, 20))])
    }

    @Test func emptyIsEmpty() throws {
        #expect(try Path(svg: "").isEmpty)
        #expect(try Path(svg: "  \n").isEmpty)
    }

    @Test(arguments: [
        ("L10 10", 0, "must start with M"),
        ("M10", 3, "expected moveto y"),
        ("M10 10 X", 7, "unexpected character"),
        ("M10 10 L5,", 10, "expected lineto y"),
        ("M0 0 A10 10 0 2 0 5 5", 14, "large-arc flag must be 0 or 1"),
        ("M0 0 L1e 5", 7, "exponent"),
        ("M0 0 Z 5", 7, "number after Z"),
        ("M0 0 L--1 2", 6, "expected lineto x"),
        ("M1e999 0", 1, "out of range"),
    ])
    func errorsCarryOffsetAndReason(_ input: String, _ offset: Int, _ reason: String) {
        do {
            _ = try Path(svg: input)
            Issue.record("\(input) parsed")
        } catch {
            #expect(error.offset == offset, "\(input): \(error)")
            #expect(error.reason.contains(reason), "\(input): \(error)")
        }
    }
}

@Suite struct PathBuildingTests {
    @Test func roundedRectPerCornerAndClamping() throws {
        let r = Path.roundedRect(Rect(0, 0, 100, 50), cornerRadii: CornerRadii(topLeft: 0, topRight: 10, bottomRight: 20, bottomLeft: 5))
        let a = try FillTessellator.triangulate(r, rule: .nonZero, scale: 16).area
        let corners: Double = 100 + 400 + 25
        let exact: Double = 5000 - (1 - Double.pi / 4) * corners
        #expect(abs(a - exact) < 0.5)
        // Radii larger than the rect are scaled down together: a 10×10 with 100 radii is a circle.
        let c = try FillTessellator.triangulate(.roundedRect(Rect(0, 0, 10, 10), radius: 100), rule: .nonZero, scale: 16).area
        #expect(abs(c - .pi * 25) < 0.2)
    }

    @Test func arcsAndEllipses() throws {
        var p = Path()
        p.addArc(center: Point(0, 0), radius: 10, startAngle: 0, endAngle: .pi, clockwise: true)
        p.closeSubpath()
        #expect(abs(try FillTessellator.triangulate(p, rule: .nonZero, scale: 16).area - .pi * 50) < 0.5)
        let pts = try p.flattened(scale: 4)[0].points
        #expect(pts.map(\.y).max()! > 9.9)   // clockwise on screen: through +y
        let e = try FillTessellator.triangulate(.ellipse(in: Rect(0, 0, 40, 20)), rule: .evenOdd, scale: 16).area
        #expect(abs(e - .pi * 200) < 0.5)
    }

    @Test func flatteningIsAdaptive() throws {
        var p = Path(); p.move(to: .zero); p.addCurve(to: Point(100, 0), control1: Point(100.0 / 3, 0), control2: Point(200.0 / 3, 0))
        #expect(try p.flattened(scale: 1)[0].points.count == 2)   // a straight cubic is one segment
        let circle = Path.ellipse(in: Rect(0, 0, 100, 100))
        let coarse = try circle.flattened(scale: 1)[0].points.count
        let fine = try circle.flattened(scale: 16)[0].points.count
        #expect(fine > 3 * coarse)
        // Every flattened point is within tolerance of the circle.
        for q in try circle.flattened(scale: 4)[0].points {
            #expect(abs(q.distance(to: Point(50, 50)) - 50) < 0.25 / 4 + 0.03)
        }
    }
}
