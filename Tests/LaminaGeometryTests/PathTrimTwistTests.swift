import Foundation
import Testing
@testable import LaminaGeometry

/// `PathTrim` (trim paths on the geometry, for merge paths' operands) and `PathTwist`
/// (Lamina's twist) against values worked out by hand.
@Suite struct PathTrimTwistTests {
    /// The 10-square from (0, 0) clockwise on a y-down screen: (0,0) (10,0) (10,10) (0,10),
    /// perimeter 40.
    func square(_ x: Double = 0, _ y: Double = 0, _ s: Double = 10) -> Path {
        var p = Path()
        p.addPolygon([Point(x, y), Point(x + s, y), Point(x + s, y + s), Point(x, y + s)])
        return p
    }

    func close(_ a: Path, _ b: [Path.Element], _ eps: Double = 1e-9) -> Bool {
        guard a.elements.count == b.count else { return false }
        for (x, y) in zip(a.elements, b) {
            switch (x, y) {
            case (.move(let p), .move(let q)), (.line(let p), .line(let q)):
                if p.distance(to: q) > eps { return false }
            case (.close, .close): continue
            default: return false
            }
        }
        return true
    }

    @Test func trimCutsByLength() {
        // 0.125…0.375 of 40: lengths 5…15, from (5, 0) round the corner (10, 0) to (10, 5).
        let t = PathTrim.trim(square(), from: 0.125, to: 0.375)
        #expect(close(t, [.move(Point(5, 0)), .line(Point(10, 0)), .line(Point(10, 5))]), "\(t.elements)")
        #expect(abs(PathTrim.length(square()) - 40) < 1e-9)
        // Past the end: 0.875…1.125 is 35…40 (up the closing edge from (0, 5) to (0, 0)), then
        // 0…5 from the start as its own subpath.
        let w = PathTrim.trim(square(), from: 0.875, to: 1.125)
        #expect(close(w, [.move(Point(0, 5)), .line(Point(0, 0)), .move(Point(0, 0)), .line(Point(5, 0))]), "\(w.elements)")
        // The whole range keeps the closed square; an empty range is nothing.
        let whole = PathTrim.trim(square(), from: 0, to: 1)
        #expect(close(whole, [.move(Point(0, 0)), .line(Point(10, 0)), .line(Point(10, 10)), .line(Point(0, 10)), .close]), "\(whole.elements)")
        #expect(PathTrim.trim(square(), from: 0.3, to: 0.3).isEmpty)
        #expect(PathTrim.trim(Path(), from: 0, to: 0.5).isEmpty)
    }

    @Test func trimLaysSubpathsEndToEnd() {
        // The square (40) then the line (0, 20)–(40, 20) (40): 0.5…1 is the line alone,
        // 0.25…0.625 the square from (10, 10) on and the line's first 10.
        var p = square()
        p.move(to: Point(0, 20)); p.addLine(to: Point(40, 20))
        #expect(close(PathTrim.trim(p, from: 0.5, to: 1), [.move(Point(0, 20)), .line(Point(40, 20))]))
        let t = PathTrim.trim(p, from: 0.25, to: 0.625)
        #expect(close(t, [.move(Point(10, 10)), .line(Point(0, 10)), .line(Point(0, 0)), .move(Point(0, 20)), .line(Point(10, 20))]),
                "\(t.elements)")
    }

    @Test func trimOfACurveMeasuresItsArc() {
        // A circle of radius 10 (four cubic quarters): length 2π·10 = 62.83, less what the
        // flattening cuts off: chords within 0.05 of the arc span at most 2θ with
        // 10 (1 − cos θ) = 0.05, θ = 0.1, each 1 − sin θ / θ = 0.17 % shorter: at most 0.105.
        // Half of it ends opposite the start.
        var c = Path()
        c.addEllipse(in: Rect(0, 0, 20, 20))
        let shortfall = 2 * Double.pi * 10 - PathTrim.length(c)
        #expect(shortfall >= 0 && shortfall < 0.105, "\(shortfall)")
        let half = PathTrim.trim(c, from: 0, to: 0.5)
        guard case .move(let a) = half.elements.first, case .line(let b) = half.elements.last else {
            Issue.record("\(half.elements)"); return
        }
        #expect(abs(a.distance(to: b) - 20) < 0.05, "\(a) \(b)")
    }

    @Test func twistTurnsPointsByTheirDistance() {
        // Centre (0, 0), radius 2, 90°: (2, 0) turns the whole 90° to (0, 2) (clockwise on a
        // y-down screen); (1, 0) turns 45° to (√½, √½); the centre stays.
        let q = Double.pi / 2
        #expect(PathTwist.twisted(Point(2, 0), angle: q, center: .zero, radius: 2).distance(to: Point(0, 2)) < 1e-12)
        #expect(PathTwist.twisted(Point(1, 0), angle: q, center: .zero, radius: 2).distance(to: Point(0.7071067811865476, 0.7071067811865476)) < 1e-12)
        #expect(PathTwist.twisted(Point(3, 4), angle: q, center: Point(3, 4), radius: 2) == Point(3, 4))
        // About (10, 10): (12, 10) is 2 away, turns 90° to (10, 12).
        #expect(PathTwist.twisted(Point(12, 10), angle: q, center: Point(10, 10), radius: 2).distance(to: Point(10, 12)) < 1e-12)
        // The radius of bounds is half their diagonal: the 10-square's is √200 / 2.
        #expect(abs(PathTwist.radius(of: square()) - 50.0.squareRoot()) < 1e-12)
    }

    @Test func twistedSquareBendsItsEdges() {
        // The square (−1, −1)–(1, 1) twisted 90° about its centre: R = √2, so the corners turn
        // the whole 90° (onto each other) and the middle of an edge, 1 away, by 90°/√2 =
        // 63.6396°: (1, 0) → (cos 63.6396°, sin 63.6396°) = (0.444016, 0.896019).
        let t = PathTwist.twist(square(-1, -1, 2), degrees: 90, center: .zero, tolerance: 0.01)
        var pts: [Point] = []
        for e in t.elements { if case .move(let p) = e { pts.append(p) } else if case .line(let p) = e { pts.append(p) } }
        for corner in [Point(1, 1), Point(-1, 1), Point(-1, -1), Point(1, -1)] {
            #expect(pts.contains { $0.distance(to: corner) < 1e-9 }, "\(corner)")
        }
        #expect(pts.contains { $0.distance(to: Point(0.444016, 0.896019)) < 1e-5 })
        // The edges bend: many pieces, each point at its own distance from the centre (a twist
        // keeps distances from the centre), between 1 (edge middles) and √2 (corners).
        #expect(pts.count > 40)
        #expect(pts.allSatisfy { $0.length > 1 - 1e-9 && $0.length < 2.0.squareRoot() + 1e-9 })
        // Consecutive points are close: no chord skips a bend.
        for i in 1..<pts.count { #expect(pts[i].distance(to: pts[i - 1]) < 0.3) }
        if case .close = t.elements.last {} else { Issue.record("not closed: \(String(describing: t.elements.last))") }
    }

    @Test func twistKeepsCirclesAboutItsCentre() {
        // Every point of a circle about the centre keeps its distance: the twisted circle is
        // the circle, within the flattening: the points are on chords within 0.05 of the
        // curve, and the four cubics are within 0.027 % (0.0014) of the true circle.
        var c = Path()
        c.addEllipse(in: Rect(-5, -5, 10, 10))
        let t = PathTwist.twist(c, degrees: 200, center: .zero)
        for e in t.elements {
            if case .line(let p) = e { #expect(p.length <= 5 + 0.0014 && p.length > 5 - 0.05 - 0.0014, "\(p)") }
        }
    }

    @Test func twistOfNothingAndHostileAngles() {
        #expect(PathTwist.twist(square(), degrees: 0, center: Point(5, 5)) == square())
        #expect(PathTwist.twist(Path(), degrees: 90, center: .zero).isEmpty)
        // A huge angle stays bounded by the point budget.
        let t = PathTwist.twist(square(), degrees: 1e9, center: Point(5, 5))
        #expect(t.elements.count <= PathTwist.maxPoints + 16)
    }
}
