import Foundation
@testable import LaminaExpression
import Testing

@Suite struct GrammarTests {
    @Test func precedenceOfArithmetic() throws {
        #expect(try value("1 + 2 * 3") == 7)
        #expect(try value("(1 + 2) * 3") == 9)
        #expect(try value("2 * 7 % 4") == 2)        // (2·7) mod 4
        #expect(try value("7 % 4 * 2") == 6)        // (7 mod 4)·2
        #expect(try value("1 + 6 / 3 - 2") == 1)
        #expect(try value("-2 * 3 + 10") == 4)
    }

    @Test func leftAssociativity() throws {
        #expect(try value("10 - 4 - 3") == 3)
        #expect(try value("64 / 4 / 2") == 8)
        #expect(try value("100 % 30 % 7") == 3)     // (100 mod 30) mod 7 = 10 mod 7
        #expect(try value("2 - 3 + 4") == 3)
        #expect(try value("3 > 2 > 0") == 1)        // (3 > 2) > 0 → 1 > 0
        #expect(try value("1 < 2 == 1") == 1)       // relational binds tighter than equality
        #expect(try value("3 == 3 == 0") == 0)      // (3 == 3) == 0 → 1 == 0
    }

    @Test func unaryMinusAndNot() throws {
        #expect(try value("-2") == -2)
        #expect(try value("- -2") == 2)
        #expect(try value("--2") == 2)
        #expect(try value("2 - -3") == 5)
        #expect(try value("-(2 - 5)") == 3)
        #expect(try value("-x * 2", ["x"], [4]) == -8)
        #expect(try value("!0 + 1") == 2)           // ! binds tighter than +
        #expect(try value("!(0 + 1)") == 0)
        #expect(try value("!!7") == 1)
        #expect(try value("-0").sign == .minus)
    }

    @Test func comparisonsAndLogic() throws {
        #expect(try value("1 < 2") == 1 && value("2 < 1") == 0)
        #expect(try value("2 <= 2") == 1 && value("2 >= 3") == 0)
        #expect(try value("2 > 1") == 1 && value("2 != 2") == 0 && value("2 == 2") == 1)
        #expect(try value("2 && 3") == 1)
        #expect(try value("0 || 5") == 1)
        #expect(try value("0 || 0") == 0)
        #expect(try value("1 || 0 && 0") == 1)     // && binds tighter than ||
        #expect(try value("1 == 1 && 2 > 3") == 0)
        #expect(try value("1 + 1 == 2") == 1)
    }

    @Test func truthIsNonZeroAndNaNIsFalse() throws {
        #expect(try value("0.001 ? 1 : 2") == 1)
        #expect(try value("-1 ? 1 : 2") == 1)
        #expect(try value("(0 / 0) ? 1 : 2") == 2)
        #expect(try value("!(0 / 0)") == 1)
        #expect(try value("(0 / 0) || 0") == 0)
        #expect(try value("(0 / 0) == (0 / 0)") == 0)   // IEEE: NaN equals nothing
        #expect(try value("(0 / 0) != (0 / 0)") == 1)
        #expect(try value("x ? 1 : 2", ["x"], [.nan]) == 2)
    }

    @Test func conditional() throws {
        #expect(try value("1 ? 2 : 3") == 2)
        #expect(try value("0 ? 2 : 3") == 3)
        #expect(try value("0 ? 1 : 0 ? 2 : 3") == 3)          // right-associative
        #expect(try value("1 ? 0 ? 4 : 5 : 6") == 5)
        #expect(try value("1 + 1 ? 10 : 20") == 10)           // lowest precedence
        #expect(try value("0 || 0 ? 1 : 2") == 2)
        #expect(try value("x > 0 ? x : -x", ["x"], [-3]) == 3)
        #expect(try value("x > 0 ? x : -x", ["x"], [5]) == 5)
    }

    @Test func shortCircuitSkipsTheRightOperand() throws {
        // The language has no side effects, so the skip is checked in the code: after the
        // left operand, a conditional jump goes past every instruction of the right one.
        for (source, isAnd) in [("x && y", true), ("x || y", false)] {
            let e = try CompiledExpression(source, inputs: ["x", "y"])
            let code = e.program.code
            guard case .input(let first) = code[0] else { Issue.record("\(code)"); continue }
            #expect(first == Int32(Program.namedInputBase))
            let target: Int32
            switch code[1] {
            case .jumpIfFalse(let t) where isAnd: target = t
            case .jumpIfTrue(let t) where !isAnd: target = t
            default: Issue.record("\(source): \(code)"); continue
            }
            let readsY = code.indices.filter {
                if case .input(let s) = code[$0] { s == Int32(Program.namedInputBase + 1) } else { false }
            }
            #expect(readsY.count == 1 && readsY[0] > 1 && readsY[0] < Int(target))
        }
        // And the values.
        for x in [0.0, 2] {
            for y in [0.0, 3] {
                let both: Double = x != 0 && y != 0 ? 1 : 0
                let either: Double = x != 0 || y != 0 ? 1 : 0
                #expect(try value("x && y", ["x", "y"], [x, y]) == both)
                #expect(try value("x || y", ["x", "y"], [x, y]) == either)
            }
        }
    }

    @Test func numbersAndLayout() throws {
        #expect(try value("1.5e2") == 150)
        #expect(try value("2E-3") == 0.002)
        #expect(try value("1e+2") == 100)
        #expect(try value("007") == 7)
        #expect(try value("pi") == Double.pi)
        #expect(try value("(1 +\n 2)") == 3)          // newlines inside parentheses
        #expect(try value("1 +\n 2") == 3)            // a line may continue after an operator
        #expect(try value("\n 4 // a comment\n") == 4)
        #expect(try value("min(1,\n 2\n)") == 1)
        #expect(try value("1 ?\n 2 :\n 3") == 2)
    }

    @Test func longChainsAddNoDepth() throws {
        // 2,000 terms: a flat chain, no recursion per operator.
        let terms = Array(repeating: "1", count: 2_000).joined(separator: " + ")
        #expect(try value(terms) == 2_000)
        let mixed = (0 ..< 1_000).map { "x * \($0)" }.joined(separator: " - ")
        let expected = (1 ..< 1_000).reduce(0.0) { $0 - 2 * Double($1) }
        #expect(try value(mixed, ["x"], [2]) == expected)
    }

    @Test func inputsAndConstants() throws {
        let e = try CompiledExpression("b * 2 + pi", inputs: ["a", "b", "c"])
        #expect(e.inputsRead == [1])
        #expect(e.evaluate([100, 3, 200]) == 6 + .pi)
        // An input named like a builtin hides it.
        #expect(try value("pi", ["pi"], [3]) == 3)
        // Constants fold: `2 * pi * 3` leaves one constant.
        let folded = try CompiledExpression("2 * pi * 3 + x", inputs: ["x"])
        #expect(folded.program.code.count == 3)   // constant, input, add
        #expect(folded.evaluate([1]) == 2 * .pi * 3 + 1)
    }
}
