import Foundation
import LaminaGeometry
import LaminaExpression
import Testing
import TestSupport

/// Issue 15's seed shapes as templates, each against the same path built here from the
/// issue's words (`rect` the layer's bounds, angles in radians, y down) at several values.
@Suite struct SeedShapeTests {
    static let bounds = [Rect(0, 0, 200, 120), Rect(10, 20, 64, 64), Rect(-5, 3, 300.5, 41.25)]

    static let trapezoid = """
        move(0, rect.maxY)
        line(insetAmount, rect.minY)
        line(rect.maxX - insetAmount, rect.minY)
        line(rect.maxX, rect.maxY)
        close()
        """

    @Test func trapezoid() throws {
        let template = try PathTemplate(Self.trapezoid, inputs: ["insetAmount"])
        #expect(template.inputNamesRead == ["insetAmount"])
        #expect(template.rectFieldsRead == [.minY, .maxX, .maxY])
        for r in Self.bounds {
            for inset in [0.0, 12.5, 40] {
                let expected = Path([.move(Point(0, r.maxY)), .line(Point(inset, r.minY)),
                                     .line(Point(r.maxX - inset, r.minY)), .line(Point(r.maxX, r.maxY)), .close])
                let out = template.evaluate(in: r, inputs: [inset])
                #expect(out.status == [])
                expectSamePath(out.path, expected, tolerance: 0)
            }
        }
    }

    static let arc = "arc(rect.midX, rect.midY, rect.width / 2, startAngle, endAngle, 1)"

    @Test func arc() throws {
        let template = try PathTemplate(Self.arc, inputs: ["startAngle", "endAngle"])
        for r in Self.bounds {
            for (a, b) in [(0.0, Double.pi / 2), (-0.3, 4.0), (1, 1), (2, 0.5), (0, 2 * Double.pi), (0.25, 9)] {
                var expected = Path()
                expected.addArc(center: Point(r.midX, r.midY), radius: r.width / 2, startAngle: a, endAngle: b, clockwise: true)
                expectSamePath(template.path(in: r, inputs: [a, b]), expected, tolerance: 1e-9)
                // And the points on it: every segment end lies on the circle, and the sweep
                // runs with increasing angle.
                for e in expected.elements {
                    if case .cubic(_, _, let p) = e {
                        #expect(abs(p.distance(to: Point(r.midX, r.midY)) - r.width / 2) < 1e-9)
                    }
                }
            }
        }
    }

    static let wave = """
        for x in 0 ..< floor(rect.width) + 1 {
          let y = rect.midY + amplitude * sin(2 * pi * frequency * x / rect.width + phase)
          if x == 0 { move(x, y) } else { line(x, y) }
        }
        """

    @Test func wave() throws {
        let template = try PathTemplate(Self.wave, inputs: ["amplitude", "frequency", "phase"])
        for r in Self.bounds {
            for (amplitude, frequency, phase) in [(10.0, 1.0, 0.0), (25, 2.5, 0.7), (0, 3, 1), (-8, 0.5, -2)] {
                var points: [Point] = []
                for x in stride(from: 0.0, through: r.width, by: 1) {
                    points.append(Point(x, r.midY + amplitude * sin(2 * .pi * frequency * x / r.width + phase)))
                }
                let expected = Path(points.enumerated().map { $0.offset == 0 ? .move($0.element) : .line($0.element) })
                expectSamePath(template.path(in: r, inputs: [amplitude, frequency, phase]), expected, tolerance: 1e-9)
            }
        }
    }

    @Test func polygon() throws {
        let template = try PathTemplate(SeedPolygon.template, inputs: ["sides", "scale", "rotation"])
        for r in Self.bounds {
            for (sides, scale, rotation) in [(3.0, 1.0, 0.0), (5.7, 0.8, 0.3), (1, 1, 0), (12, 0.5, -1), (64, 1, 2)] {
                let points = SeedPolygon.vertices(in: r, sides: sides, scale: scale, rotation: rotation)
                expectSamePath(template.path(in: r, inputs: [sides, scale, rotation]), .polygon(points), tolerance: 1e-9)
            }
        }
    }

    static let flower = """
        let n = max(floor(petalCount), 2)
        let cx = rect.midX; let cy = rect.midY
        for i in 0 ..< n {
          let base = 2 * pi * i / n + rotationOffset
          move(cx, cy)
          quad(cx + innerRadius * cos(base - pi / n), cy + innerRadius * sin(base - pi / n),
               cx + outerRadius * cos(base), cy + outerRadius * sin(base))
          quad(cx + innerRadius * cos(base + pi / n), cy + innerRadius * sin(base + pi / n),
               cx, cy)
        }
        """

    @Test func flower() throws {
        let template = try PathTemplate(Self.flower, inputs: ["petalCount", "innerRadius", "outerRadius", "rotationOffset"])
        for r in Self.bounds {
            for (count, inner, outer, offset) in [(5.0, 20.0, 50.0, 0.0), (8.9, 10, 30, 0.4), (1, 5, 20, 0), (13, 30, 45, -3)] {
                let n = max(count.rounded(.down), 2)
                let c = Point(r.midX, r.midY)
                func along(_ radius: Double, _ angle: Double) -> Point { Point(c.x + radius * cos(angle), c.y + radius * sin(angle)) }
                var expected = Path()
                for i in 0 ..< Int(n) {
                    let base = 2 * Double.pi * Double(i) / n + offset
                    expected.move(to: c)
                    expected.addQuadCurve(to: along(outer, base), control: along(inner, base - .pi / n))
                    expected.addQuadCurve(to: c, control: along(inner, base + .pi / n))
                }
                expectSamePath(template.path(in: r, inputs: [count, inner, outer, offset]), expected, tolerance: 1e-9)
            }
        }
    }

    @Test func shakeExpression() throws {
        let e = try AnimationExpression("sin(self.custom.progress * 6 * pi) * self.custom.intensity * (1 - self.custom.progress)")
        #expect(e.references == [ExpressionReference(layer: .current, keyPath: "custom.progress"),
                                 ExpressionReference(layer: .current, keyPath: "custom.intensity")])
        #expect(!e.readsTime)
        for (progress, intensity) in [(0.0, 10.0), (0.1, 10), (0.5, 20), (0.77, 5), (1, 10)] {
            let expected = sin(progress * 6 * .pi) * intensity * (1 - progress)
            #expect(abs(e.evaluate(time: 0, values: [progress, intensity]) - expected) < 1e-12)
        }
    }
}
