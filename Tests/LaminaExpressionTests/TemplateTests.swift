import Foundation
import LaminaGeometry
@testable import LaminaExpression
import Testing
import TestSupport

@Suite struct TemplateTests {
    let bounds = Rect(10, 20, 100, 50)

    func path(_ source: String, _ names: [String] = [], _ values: [Double] = []) throws -> Path {
        try PathTemplate(source, inputs: names).path(in: bounds, inputs: values)
    }

    @Test func drawingStatementsMatchPathBuilders() throws {
        expectSamePath(try path("move(1, 2); line(3, 4); quad(5, 6, 7, 8); curve(1, 2, 3, 4, 5, 6); close()"),
                       Path([.move(Point(1, 2)), .line(Point(3, 4)), .quad(Point(5, 6), Point(7, 8)),
                             .cubic(Point(1, 2), Point(3, 4), Point(5, 6)), .close]), tolerance: 0)
        expectSamePath(try path("rect(1, 2, 30, -4)"), .rect(Rect(1, 2, 30, -4)), tolerance: 0)
        expectSamePath(try path("ellipse(rect.minX, rect.minY, rect.width, rect.height)"), .ellipse(in: bounds), tolerance: 0)
        expectSamePath(try path("roundedRect(0, 0, 40, 30, 8)"), .roundedRect(Rect(0, 0, 40, 30), radius: 8), tolerance: 0)
        expectSamePath(try path("roundedRect(0, 0, 40, 30, 0)"), .roundedRect(Rect(0, 0, 40, 30), radius: 0), tolerance: 0)
    }

    @Test(arguments: [(0.0, 1.0, true), (0.0, 1.0, false), (1, -2, true), (1, -2, false), (0, 7, true), (0, -7, false),
                      (0.5, 0.5, true), (2, 2 + 2 * Double.pi, true), (-1, 5.5, false)])
    func arcMatchesAddArc(start: Double, end: Double, clockwise: Bool) throws {
        let template = try PathTemplate("arc(cx, cy, r, a, b, cw)", inputs: ["cx", "cy", "r", "a", "b", "cw"])
        var expected = Path()
        expected.addArc(center: Point(3, 4), radius: 25, startAngle: start, endAngle: end, clockwise: clockwise)
        expectSamePath(template.path(in: bounds, inputs: [3, 4, 25, start, end, clockwise ? 1 : 0]), expected, tolerance: 1e-12)
        // After a line the arc's start is joined with a line; after a close it starts a subpath.
        for prefix in ["move(0, 0); line(1, 1)", "move(0, 0); line(1, 1); close()"] {
            let t = try PathTemplate(prefix + "; arc(cx, cy, r, a, b, cw)", inputs: ["cx", "cy", "r", "a", "b", "cw"])
            var e = Path([.move(.zero), .line(Point(1, 1))])
            if prefix.hasSuffix("close()") { e.closeSubpath() }
            e.addArc(center: Point(3, 4), radius: 25, startAngle: start, endAngle: end, clockwise: clockwise)
            expectSamePath(t.path(in: bounds, inputs: [3, 4, 25, start, end, clockwise ? 1 : 0]), e, tolerance: 1e-12)
        }
    }

    @Test func rectFields() throws {
        let t = try PathTemplate("move(rect.minX, rect.minY); line(rect.midX, rect.midY); line(rect.maxX, rect.maxY); line(rect.width, rect.height)")
        #expect(t.rectFieldsRead == [.minX, .minY, .midX, .midY, .maxX, .maxY, .width, .height])
        // Negative sizes as Core Graphics: min/max ordered, width and height absolute.
        let r = Rect(100, 50, -40, -20)
        expectSamePath(t.path(in: r, inputs: []),
                       Path([.move(Point(60, 30)), .line(Point(80, 40)), .line(Point(100, 50)), .line(Point(40, 20))]), tolerance: 0)
    }

    @Test func scoping() throws {
        // A `let` in a block shadows; the outer one is back after the block.
        expectSamePath(try path("let a = 1\nif 1 { let a = 2; move(a, 0) }\nmove(a, 0)"),
                       Path([.move(Point(2, 0)), .move(Point(1, 0))]), tolerance: 0)
        // A `let` in a loop body is computed per iteration; the loop name is fresh each time.
        expectSamePath(try path("for i in 0 ..< 3 { let d = i * 10; move(i, d) }"),
                       Path([.move(Point(0, 0)), .move(Point(1, 10)), .move(Point(2, 20))]), tolerance: 0)
        // Nested loops see the outer name; a body `let` may shadow the loop name.
        expectSamePath(try path("for i in 0 ..< 2 { for j in i ..< 2 { move(i, j) } }"),
                       Path([.move(Point(0, 0)), .move(Point(0, 1)), .move(Point(1, 1))]), tolerance: 0)
        expectSamePath(try path("for i in 0 ..< 2 { let i = 5; move(i, 0) }"),
                       Path([.move(Point(5, 0)), .move(Point(5, 0))]), tolerance: 0)
        // A loop's bounds are read before its name exists.
        expectSamePath(try path("let i = 2\nfor i in 0 ..< i { move(i, 0) }"),
                       Path([.move(Point(0, 0)), .move(Point(1, 0))]), tolerance: 0)
        // Names from a block or loop are gone after it.
        #expect(templateError("for i in 0 ..< 2 { }\nmove(i, 0)")?.kind == .unknownName)
        #expect(templateError("if 1 { let b = 1 }\nmove(b, 0)")?.kind == .unknownName)
        // A `let` hides an input of the same name.
        expectSamePath(try path("let w = 5; move(w, w)", ["w"], [7]), Path([.move(Point(5, 5))]), tolerance: 0)
        // Same name again in an inner block is fine; in the same block it is not.
        #expect(templateError("let a = 1; if 1 { let a = 2 }") == nil)
        #expect(templateError("let a = 1; let a = 2")?.kind == .duplicateName)
    }

    @Test func conditionalsAndSeparators() throws {
        let t = try PathTemplate("""
            if x < 0 { move(-1, 0) }
            else if x == 0 { move(0, 0) }
            else if x < 10 {
              move(1, 0)
            } else { move(2, 0) }
            """, inputs: ["x"])
        for (x, expected) in [(-3.0, -1.0), (0, 0), (5, 1), (10, 2), (.nan, 2)] {
            expectSamePath(t.path(in: bounds, inputs: [x]), Path([.move(Point(expected, 0))]), tolerance: 0)
        }
        // Blank lines, semicolons, a statement after a block on the same line, comments.
        expectSamePath(try path("\n;; move(1, 1);\n\n if 0 { } move(2, 2) // done\n"),
                       Path([.move(Point(1, 1)), .move(Point(2, 2))]), tolerance: 0)
        expectSamePath(try path(""), Path(), tolerance: 0)
    }

    @Test func fractionalAndEmptyLoops() throws {
        expectSamePath(try path("for i in 0.5 ..< 3 { move(i, 0) }"),
                       Path([.move(Point(0.5, 0)), .move(Point(1.5, 0)), .move(Point(2.5, 0))]), tolerance: 0)
        expectSamePath(try path("for i in 3 ..< 1 { move(i, 0) }"), Path(), tolerance: 0)
        let t = try PathTemplate("for i in 0 ..< n { move(i, 0) }", inputs: ["n"])
        #expect(t.evaluate(in: bounds, inputs: [.nan]) == TemplateOutput(path: Path(), status: []))
        #expect(t.path(in: bounds, inputs: [-.infinity]).isEmpty)
    }

    @Test func nonFiniteCoordinatesEmptyThePath() throws {
        let t = try PathTemplate("move(0, 0); line(x, 1); line(2, 2)", inputs: ["x"])
        for x in [Double.nan, .infinity, -.infinity] {
            #expect(t.evaluate(in: bounds, inputs: [x]) == TemplateOutput(path: Path(), status: .nonFinite))
        }
        #expect(t.evaluate(in: bounds, inputs: [1]).path.elements.count == 3)
        // Finite arguments that overflow: the rect's corner is at 1e308 + 1e308.
        #expect(try PathTemplate("rect(1e308, 0, 1e308, 1)").evaluate(in: bounds, inputs: []).status == .nonFinite)
        // Division by zero reaching a coordinate.
        #expect(try path("move(1 / 0, 0)").isEmpty)
        // A NaN that no coordinate reads does no harm.
        #expect(try path("let z = 0 / 0; move(1, 2)").elements == [.move(Point(1, 2))])
    }

    @Test func whatATemplateReads() throws {
        let t = try PathTemplate("move(b, rect.midY); line(rect.width, d)", inputs: ["a", "b", "c", "d"])
        #expect(t.inputsRead == [1, 3])
        #expect(t.inputNamesRead == ["b", "d"])
        #expect(t.rectFieldsRead == [.midY, .width])
        let r = Rect(0, 0, 100, 50)
        let v = [1.0, 2, 3, 4]
        #expect(!t.inputsDiffer(bounds: r, inputs: v, from: r, v))
        #expect(!t.inputsDiffer(bounds: r, inputs: [9, 2, 9, 4], from: r, v))          // a and c are not read
        #expect(t.inputsDiffer(bounds: r, inputs: [1, 2.5, 3, 4], from: r, v))
        #expect(t.inputsDiffer(bounds: r, inputs: [1, 2, 3, -4], from: r, v))
        #expect(!t.inputsDiffer(bounds: Rect(30, 0, 100, 50), inputs: v, from: r, v))   // same midY and width
        #expect(t.inputsDiffer(bounds: Rect(0, 1, 100, 50), inputs: v, from: r, v))
        #expect(!t.inputsDiffer(bounds: r, inputs: [1, .nan, 3, 4], from: r, [1, .nan, 3, 4]))
    }

    @Test func evaluatorRunsOnlyWhenAnInputChanges() throws {
        var evaluator = PathTemplateEvaluator(try PathTemplate(SeedPolygon.template, inputs: ["sides", "scale", "rotation", "unused"]))
        let r = Rect(0, 0, 100, 100)
        let first = evaluator.output(in: r, inputs: [5, 1, 0, 0])
        #expect(evaluator.evaluations == 1)
        #expect(evaluator.output(in: r, inputs: [5, 1, 0, 0]) == first)
        #expect(evaluator.output(in: r, inputs: [5, 1, 0, 42]) == first)
        #expect(evaluator.evaluations == 1)
        let second = evaluator.output(in: r, inputs: [6, 1, 0, 0])
        #expect(evaluator.evaluations == 2)
        #expect(second.path.elements.count == 7)   // move, 5 lines, close
        _ = evaluator.output(in: Rect(0, 0, 100, 80), inputs: [6, 1, 0, 0])
        #expect(evaluator.evaluations == 3)
    }

    @Test func compiledFormIsPlainData() {
        // Evaluation copies instructions and reads doubles: no references, nothing retained.
        #expect(_isPOD(Instruction.self))
        #expect(MemoryLayout<Instruction>.stride <= 16)
    }
}
