import Foundation
@testable import LaminaExpression
import Testing

@Suite struct FunctionTests {
    static let samples: [Double] = [-2.5, -1, -0.5, -0.25, 0, 0.3, 0.5, 0.75, 1, 1.5, 2.5, 3, 10, .infinity, -.infinity, .nan]

    /// Bitwise equality, NaN equal to NaN.
    func same(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN) }

    @Test(arguments: [
        ("floor", Foundation.floor), ("ceil", Foundation.ceil), ("round", Foundation.round),
        ("abs", Swift.abs), ("sqrt", Foundation.sqrt), ("sin", Foundation.sin), ("cos", Foundation.cos),
        ("tan", Foundation.tan), ("asin", Foundation.asin), ("acos", Foundation.acos), ("atan", Foundation.atan),
    ] as [(String, @Sendable (Double) -> Double)])
    func oneArgument(name: String, f: @Sendable (Double) -> Double) throws {
        let e = try CompiledExpression("\(name)(x)", inputs: ["x"])
        for x in Self.samples {
            #expect(same(e.evaluate([x]), f(x)), "\(name)(\(x)): \(e.evaluate([x])) against \(f(x))")
        }
        // Folded at compile time: the same value.
        #expect(same(try value("\(name)(0.3)"), f(0.3)))
    }

    @Test(arguments: [
        ("pow", Foundation.pow), ("atan2", Foundation.atan2), ("hypot", Foundation.hypot),
        ("min", Foundation.fmin), ("max", Foundation.fmax),
    ] as [(String, @Sendable (Double, Double) -> Double)])
    func twoArguments(name: String, f: @Sendable (Double, Double) -> Double) throws {
        let e = try CompiledExpression("\(name)(x, y)", inputs: ["x", "y"])
        for x in Self.samples {
            for y in Self.samples {
                #expect(same(e.evaluate([x, y]), f(x, y)), "\(name)(\(x), \(y))")
            }
        }
    }

    @Test func variadicMinAndMax() throws {
        #expect(try value("min(3, 1, 2)") == 1)
        #expect(try value("max(3, 1, 2, 7, -1)") == 7)
        #expect(try value("min(a, b, c)", ["a", "b", "c"], [4, -2, 9]) == -2)
        #expect(try value("max(a, b, c)", ["a", "b", "c"], [4, -2, 9]) == 9)
        // A NaN argument is ignored, as C's fmin/fmax.
        #expect(try value("min(a, 2)", ["a"], [.nan]) == 2)
        #expect(try value("max(2, a)", ["a"], [.nan]) == 2)
    }

    @Test func clampAndLerp() throws {
        let clamp = try CompiledExpression("clamp(x, lo, hi)", inputs: ["x", "lo", "hi"])
        #expect(clamp.evaluate([5, 0, 1]) == 1)
        #expect(clamp.evaluate([-5, 0, 1]) == 0)
        #expect(clamp.evaluate([0.25, 0, 1]) == 0.25)
        #expect(clamp.evaluate([.nan, 0, 1]) == 0)        // fmin(fmax(NaN, 0), 1)
        let lerp = try CompiledExpression("lerp(a, b, t)", inputs: ["a", "b", "t"])
        for (a, b, t) in [(0.0, 10.0, 0.25), (-3, 5, 1.5), (2, 2, 0.7), (1, -1, 0)] {
            #expect(lerp.evaluate([a, b, t]) == a + (b - a) * t)
        }
    }

    @Test func arithmeticFollowsIEEE() throws {
        #expect(try value("1 / 0") == .infinity)
        #expect(try value("-1 / 0") == -.infinity)
        #expect(try value("0 / 0").isNaN)
        #expect(try value("5 % 0").isNaN)
        #expect(try value("-7 % 3") == Foundation.fmod(-7, 3))   // sign of the dividend: -1
        #expect(try value("7.5 % 2") == 1.5)
        #expect(try value("sqrt(-1)").isNaN)
        #expect(try value("1e308 * 10") == .infinity)
        #expect(try value("x / y", ["x", "y"], [1, 0]) == .infinity)
    }
}
