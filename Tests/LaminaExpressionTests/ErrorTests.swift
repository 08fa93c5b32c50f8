import Foundation
import LaminaExpression
import Testing

@Suite struct ErrorTests {
    /// Expects `source` (a template) to fail with `kind` at line:column (offset), with `reason`.
    func expectError(_ source: String, _ kind: ExpressionError.Kind, line: Int, column: Int, offset: Int,
                     _ reason: String, inputs: [String] = [], limits: ExpressionLimits = .default,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        guard let e = templateError(source, inputs: inputs, limits: limits) else {
            Issue.record("no error for \(source)", sourceLocation: sourceLocation); return
        }
        #expect(e.kind == kind, "\(e)", sourceLocation: sourceLocation)
        #expect(e.position == SourcePosition(offset: offset, line: line, column: column), "\(e)", sourceLocation: sourceLocation)
        #expect(e.reason == reason, sourceLocation: sourceLocation)
        #expect(e.description == "line \(line), column \(column) (offset \(offset)): \(reason)", sourceLocation: sourceLocation)
    }

    @Test func unknownName() {
        expectError("move(1, foo)", .unknownName, line: 1, column: 9, offset: 8, "unknown name 'foo'")
        expectError("let a = 1\nline(a, bar)", .unknownName, line: 2, column: 9, offset: 18, "unknown name 'bar'")
        expectError("move(rect.foo, 0)", .unknownName, line: 1, column: 6, offset: 5,
                    "unknown name 'rect.foo' (rect has minX, midX, maxX, minY, midY, maxY, width, height)")
        expectError("move(a.b, 0)", .unknownName, line: 1, column: 6, offset: 5, "unknown name 'a.b'")
        expectError("move(t, 0)", .unknownName, line: 1, column: 6, offset: 5, "unknown name 't'")   // no time in templates
        // Used before its `let`.
        expectError("move(b, 0); let b = 1", .unknownName, line: 1, column: 6, offset: 5, "unknown name 'b'")
    }

    @Test func unknownFunction() {
        expectError("move(sinh(1), 0)", .unknownFunction, line: 1, column: 6, offset: 5, "unknown function 'sinh'")
        expectError("move(line(1, 2), 0)", .unknownFunction, line: 1, column: 6, offset: 5,
                    "unknown function 'line' ('line' is a statement, not a function)")
    }

    @Test func wrongArgumentCount() {
        expectError("move(atan2(1), 0)", .wrongArgumentCount, line: 1, column: 6, offset: 5, "atan2 takes 2 arguments, not 1")
        expectError("move(min(1), 0)", .wrongArgumentCount, line: 1, column: 6, offset: 5, "min takes 2 or more arguments, not 1")
        expectError("move(sin(), 0)", .wrongArgumentCount, line: 1, column: 6, offset: 5, "sin takes 1 argument, not 0")
        expectError("move(clamp(1, 2), 0)", .wrongArgumentCount, line: 1, column: 6, offset: 5, "clamp takes 3 arguments, not 2")
        expectError("  line(1)", .wrongArgumentCount, line: 1, column: 3, offset: 2, "line takes 2 arguments, not 1")
        expectError("close(1)", .wrongArgumentCount, line: 1, column: 1, offset: 0, "close takes 0 arguments, not 1")
        expectError("arc(0, 0, 1, 0, 1)", .wrongArgumentCount, line: 1, column: 1, offset: 0, "arc takes 6 arguments, not 5")
    }

    @Test func constantLoopOverTheCap() {
        expectError("move(0, 0)\nfor i in 0 ..< 1e12 { line(i, 0) }", .loopOverCap, line: 2, column: 1, offset: 11,
                    "loop runs 1000000000000 times, over the cap of 10000 iterations per evaluation")
        expectError("for i in 0 ..< 200 {\n  for j in 0 ..< 100 { line(i, j) }\n}", .loopOverCap, line: 2, column: 3, offset: 23,
                    "with its enclosing loops this loop runs 20000 times, over the cap of 10000 iterations per evaluation")
        // A constant `let` bound counts as constant.
        expectError("let n = 20000\nfor i in 0 ..< n { }", .loopOverCap, line: 2, column: 1, offset: 14,
                    "loop runs 20000 times, over the cap of 10000 iterations per evaluation")
        // At the cap it is fine, and an input bound is checked at run time instead.
        #expect(templateError("for i in 0 ..< 10000 { }") == nil)
        #expect(templateError("for i in 0 ..< n { }", inputs: ["n"]) == nil)
        #expect(templateError("for i in 0 ..< 1e12 { }", limits: ExpressionLimits(maxLoopIterations: Int.max)) == nil)
    }

    @Test func nestingTooDeep() {
        let limits = ExpressionLimits(maxNestingDepth: 4)
        expectError("move(((((1)))), 0)", .nestingTooDeep, line: 1, column: 9, offset: 8,
                    "nesting too deep: more than 4 levels", limits: limits)   // call, then 4 parentheses
        expectError("if 1 { if 1 { if 1 { if 1 { if 1 { } } } } }", .nestingTooDeep, line: 1, column: 34, offset: 33,
                    "nesting too deep: more than 4 levels", limits: limits)
        expectError("move(- - - -1, 0)", .nestingTooDeep, line: 1, column: 12, offset: 11,
                    "nesting too deep: more than 4 levels", limits: limits)
        #expect(templateError("move(((1)), 0)", limits: limits) == nil)
    }

    @Test func tooLong() {
        let limits = ExpressionLimits(maxSourceLength: 20, maxTokens: 8)
        expectError("move(1, 2)\nline(3, 4)\nclose()", .tooLong, line: 2, column: 10, offset: 20,
                    "too long: 29 bytes, more than 20", limits: limits)
        expectError("move(1, 2)\nline(3)", .tooLong, line: 2, column: 6, offset: 16,
                    "too long: more than 8 tokens", limits: limits)   // the ninth token is '3'
    }

    @Test func badTokens() {
        expectError("move(1 # 2)", .badToken, line: 1, column: 8, offset: 7, "unexpected character '#'")
        expectError("move(1 & 2, 0)", .badToken, line: 1, column: 8, offset: 7, "unexpected character '&' (did you mean '&&'?)")
        expectError("move(π, 0)", .badToken, line: 1, column: 6, offset: 5, "unexpected character (byte 0xCF)")
        expectError("move(1e, 0)", .badToken, line: 1, column: 6, offset: 5, "malformed number: exponent without digits")
        expectError("move(12abc, 0)", .badToken, line: 1, column: 6, offset: 5, "malformed number: a letter follows the digits")
        expectError("move(1e400, 0)", .numberOutOfRange, line: 1, column: 6, offset: 5,
                    "number too large: it is not finite as a Double")
    }

    @Test func syntax() {
        expectError("move(1, 2", .syntax, line: 1, column: 10, offset: 9,
                    "expected ',' or ')' in the argument list, found the end of the source")
        expectError("let = 3", .syntax, line: 1, column: 5, offset: 4, "expected a name after 'let', found '='")
        expectError("move(1, 2) line(1, 2)", .syntax, line: 1, column: 12, offset: 11,
                    "expected a newline or ';' between statements, found 'line'")
        expectError("foo(1)", .syntax, line: 1, column: 1, offset: 0,
                    "expected a statement (move, line, quad, curve, arc, close, rect, ellipse, roundedRect, let, for or if), found 'foo'")
        expectError("for i in 0 ..< 3\nclose()", .syntax, line: 2, column: 1, offset: 17, "expected '{', found 'close'")
        expectError("for i in 0 to 3 { }", .syntax, line: 1, column: 12, offset: 11,
                    "expected '..<' between the loop's bounds, found 'to'")
        expectError("if 1 { close()", .syntax, line: 1, column: 15, offset: 14, "expected '}', found the end of the source")
        expectError("let a = 1 +\n", .syntax, line: 2, column: 1, offset: 12, "expected an expression, found the end of the source")
        expectError("let a = (1\n+)", .syntax, line: 2, column: 2, offset: 12, "expected an expression, found ')'")
        expectError("let a = 1 ? 2", .syntax, line: 1, column: 14, offset: 13, "expected ':' in the conditional, found the end of the source")
    }

    @Test func namesThatCannotBeDefined() {
        expectError("let pi = 3", .reservedName, line: 1, column: 5, offset: 4, "'pi' is reserved and cannot be a name")
        expectError("for rect in 0 ..< 2 { }", .reservedName, line: 1, column: 5, offset: 4, "'rect' is reserved and cannot be a name")
        expectError("let a = 1\nlet a = 2", .duplicateName, line: 2, column: 5, offset: 14, "'a' is already defined in this block")
    }

    @Test func expressionErrors() {
        func error(_ s: String) -> ExpressionError? {
            do { _ = try AnimationExpression(s); return nil } catch { return error }
        }
        #expect(error("")?.reason == "empty expression")
        #expect(error("x")?.description == "line 1, column 1 (offset 0): unknown name 'x'")
        #expect(error("self")?.kind == .unknownName)
        #expect(error("1 2")?.description == "line 1, column 3 (offset 2): expected the end of the expression, found '2'")
        #expect(error("move(1, 2)")?.kind == .unknownFunction)
        #expect(error("a.b +\n c.")?.description == "line 2, column 4 (offset 9): expected a name after '.', found the end of the source")
    }
}
