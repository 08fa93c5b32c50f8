import Foundation
import LaminaGeometry
import LaminaExpression
import Testing
import TestSupport

/// Inputs meant to stall or crash the compositor are rejected at compile time or bounded at
/// run time, quickly.
@Suite struct HostileInputTests {
    /// Seconds `body` takes.
    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    static let roomy = ExpressionLimits(maxSourceLength: 1 << 22, maxTokens: 1 << 22)

    @Test func tenThousandDeepParentheses() {
        let source = String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000)
        var error: ExpressionError?
        let time = seconds {
            do throws(ExpressionError) { _ = try CompiledExpression(source, limits: Self.roomy) } catch let e { error = e }
        }
        #expect(error?.kind == .nestingTooDeep)
        #expect(error?.position.offset == 32)   // the 33rd parenthesis
        #expect(time < 1)
        // With the default limits it is over the length first.
        #expect(templateError("move(" + source + ", 0)")?.kind == .tooLong)
        // Unary operators, conditionals and `else if` chains count too.
        for deep in [String(repeating: "-", count: 10_000) + "1",
                     String(repeating: "1 ? 1 : ", count: 5_000) + "1"] {
            do { _ = try CompiledExpression(deep, limits: Self.roomy); Issue.record("accepted") } catch {
                #expect(error.kind == .nestingTooDeep)
            }
        }
        let chain = "if 0 { }" + String(repeating: " else if 0 { }", count: 5_000)
        #expect(templateError(chain, limits: Self.roomy)?.kind == .nestingTooDeep)
    }

    @Test func constantLoopToATrillion() {
        var error: ExpressionError?
        let time = seconds { error = templateError("for i in 0 ..< 1e12 { line(i, i) }") }
        #expect(error?.kind == .loopOverCap)
        #expect(time < 1)
    }

    @Test func inputLoopToATrillionIsBoundedAtRunTime() throws {
        let t = try PathTemplate("move(0, 0)\nfor i in 0 ..< n { line(i, i) }\nclose()", inputs: ["n"])
        var out: TemplateOutput?
        let time = seconds { out = t.evaluate(in: .zero, inputs: [1e12]) }
        #expect(out?.status == .loopBudgetSpent)
        #expect(out?.path.elements.count == 10_000 + 2)   // the budget's iterations, then the close still runs
        #expect(time < 2)
        // A loop whose name stops growing (1e17 + 1 == 1e17) is bounded too.
        #expect(t.evaluate(in: .zero, inputs: [1e17]).status == .loopBudgetSpent)
        let stuck = try PathTemplate("for i in a ..< a + 10 { }", inputs: ["a"])
        #expect(stuck.evaluate(in: .zero, inputs: [1e17]).status == .loopBudgetSpent)
    }

    @Test func nestedInputLoopsShareOneBudget() throws {
        let t = try PathTemplate("for i in 0 ..< n { for j in 0 ..< n { for k in 0 ..< n { move(i, j) } } }", inputs: ["n"])
        var out: TemplateOutput?
        let time = seconds { out = t.evaluate(in: .zero, inputs: [1e6]) }
        #expect(out?.status == .loopBudgetSpent)
        #expect((out?.path.elements.count ?? .max) < 10_000)
        #expect(time < 2)
    }

    @Test func stepBudgetBoundsLongBodies() throws {
        // A body of ~2,000 instructions: 10,000 iterations would be 2·10⁷ steps.
        let body = (0 ..< 500).map { "let v\($0) = i * \($0) + 1" }.joined(separator: "\n")
        let limits = ExpressionLimits(maxSourceLength: 1 << 20, maxTokens: 1 << 20)
        let t = try PathTemplate("for i in 0 ..< n {\n\(body)\nmove(i, v499)\n}", inputs: ["n"], limits: limits)
        var out: TemplateOutput?
        let time = seconds { out = t.evaluate(in: .zero, inputs: [10_000]) }
        #expect(out?.status == .loopBudgetSpent)
        let moves = out?.path.elements.count ?? 0
        #expect(moves > 100 && moves < 1_000)   // 10⁶ steps / ~2,000 per iteration
        #expect(time < 2)
    }

    @Test func elementCap() throws {
        let limits = ExpressionLimits(maxPathElements: 100)
        let t = try PathTemplate("for i in 0 ..< 1000 { rect(i, 0, 1, 1) }\nmove(0, 0)", limits: limits)
        let out = t.evaluate(in: .zero, inputs: [])
        #expect(out.status == .elementCapReached)
        #expect(out.path.elements.count == 100)   // 20 rects of 5; the rest and the move skipped
    }

    @Test func oneMegabyteSources() {
        let literal = String(repeating: "9", count: 1 << 20)
        var error: ExpressionError?
        let time = seconds { error = templateError("move(\(literal), 0)") }
        #expect(error?.kind == .tooLong)
        #expect(error?.reason == "too long: \(literal.utf8.count + 9) bytes, more than 16384")
        #expect(time < 1)
        let name = String(repeating: "a", count: 1 << 20)
        #expect(templateError("move(\(name), 0)")?.kind == .tooLong)
        // With limits that let it through, a long literal is a number like any other (or
        // out of range), and a long name unknown.
        let roomy = Self.roomy
        #expect(templateError("move(\(literal), 0)", limits: roomy)?.kind == .numberOutOfRange)
        #expect(templateError("move(\(String(repeating: "0", count: 1 << 20))1, 0)", limits: roomy) == nil)
        #expect(templateError("move(\(name), 0)", limits: roomy)?.kind == .unknownName)
    }

    @Test func hugeNumbers() throws {
        #expect(templateError("move(1e400, 0)")?.kind == .numberOutOfRange)
        #expect(try value("1e308") == 1e308)
        #expect(try value("1.7976931348623157e308") == .greatestFiniteMagnitude)
        #expect(try value("1e-400") == 0)
        #expect(try value("1e308 * 1e308") == .infinity)
        #expect(try PathTemplate("move(1e308 * 1e308, 0)").evaluate(in: .zero, inputs: []).status == .nonFinite)
        // Inputs at the extremes.
        let t = try PathTemplate(SeedPolygon.template, inputs: ["sides", "scale", "rotation"])
        #expect(t.evaluate(in: Rect(0, 0, 100, 100), inputs: [1e300, 1, 0]).status == .loopBudgetSpent)
        #expect(t.evaluate(in: Rect(0, 0, 100, 100), inputs: [5, .greatestFiniteMagnitude, 0]).status == .nonFinite)
        #expect(t.evaluate(in: Rect(0, 0, .greatestFiniteMagnitude, 100), inputs: [5, 1, .nan]).status == .nonFinite)
    }

    @Test func tokenFlood() {
        let source = Array(repeating: "close()", count: 2_000).joined(separator: "\n")
        #expect(templateError(source)?.kind == .tooLong)   // 6,000 tokens
        #expect(templateError(Array(repeating: "close()", count: 1_000).joined(separator: ";")) == nil)
    }
}
