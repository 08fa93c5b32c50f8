import Foundation

/// Truth is non-zero; NaN counts as false (so `if x / 0 * 0 { … }` does not run).
@inline(__always) func isTrue(_ x: Double) -> Bool { x != 0 && !x.isNaN }

/// One-argument operations: unary operators and functions. All follow IEEE 754 through
/// Foundation (C's libm): `sqrt(-1)` is NaN, `1 / 0` is +∞, and so on.
enum Function1: UInt8, Sendable {
    case negate, not
    case floor, ceil, round, abs, sqrt, sin, cos, tan, asin, acos, atan

    @inline(__always) func apply(_ x: Double) -> Double {
        switch self {
        case .negate: -x
        case .not: isTrue(x) ? 0 : 1
        case .floor: Foundation.floor(x)
        case .ceil: Foundation.ceil(x)
        case .round: Foundation.round(x)   // halves away from zero
        case .abs: Swift.abs(x)
        case .sqrt: Foundation.sqrt(x)
        case .sin: Foundation.sin(x)
        case .cos: Foundation.cos(x)
        case .tan: Foundation.tan(x)
        case .asin: Foundation.asin(x)
        case .acos: Foundation.acos(x)
        case .atan: Foundation.atan(x)
        }
    }
}

/// Two-argument operations: arithmetic, comparisons (1 or 0) and functions.
enum Function2: UInt8, Sendable {
    case add, subtract, multiply, divide, remainder
    case less, lessEqual, greater, greaterEqual, equal, notEqual
    case pow, atan2, hypot, min, max

    init(_ op: BinaryOperator) {
        switch op {
        case .add: self = .add
        case .subtract: self = .subtract
        case .multiply: self = .multiply
        case .divide: self = .divide
        case .remainder: self = .remainder
        case .less: self = .less
        case .lessEqual: self = .lessEqual
        case .greater: self = .greater
        case .greaterEqual: self = .greaterEqual
        case .equal: self = .equal
        case .notEqual: self = .notEqual
        }
    }

    @inline(__always) func apply(_ a: Double, _ b: Double) -> Double {
        switch self {
        case .add: a + b
        case .subtract: a - b
        case .multiply: a * b
        case .divide: a / b
        case .remainder: Foundation.fmod(a, b)   // sign of a; x % 0 is NaN
        case .less: a < b ? 1 : 0
        case .lessEqual: a <= b ? 1 : 0
        case .greater: a > b ? 1 : 0
        case .greaterEqual: a >= b ? 1 : 0
        case .equal: a == b ? 1 : 0
        case .notEqual: a != b ? 1 : 0
        case .pow: Foundation.pow(a, b)
        case .atan2: Foundation.atan2(a, b)
        case .hypot: Foundation.hypot(a, b)
        case .min: Foundation.fmin(a, b)   // a NaN argument is ignored
        case .max: Foundation.fmax(a, b)
        }
    }
}

/// Three-argument functions.
enum Function3: UInt8, Sendable {
    /// clamp(x, lo, hi) = min(max(x, lo), hi) (so a NaN x gives lo).
    case clamp
    /// lerp(a, b, t) = a + (b − a)·t.
    case lerp

    @inline(__always) func apply(_ a: Double, _ b: Double, _ c: Double) -> Double {
        switch self {
        case .clamp: Foundation.fmin(Foundation.fmax(a, b), c)
        case .lerp: a + (b - a) * c
        }
    }
}

/// The functions an EXPR may call, by name.
enum FunctionKind {
    case one(Function1)
    case two(Function2)
    case three(Function3)
    /// min or max: two or more arguments, folded left.
    case variadic(Function2)

    static func named(_ name: String) -> FunctionKind? {
        switch name {
        case "floor": .one(.floor)
        case "ceil": .one(.ceil)
        case "round": .one(.round)
        case "abs": .one(.abs)
        case "sqrt": .one(.sqrt)
        case "sin": .one(.sin)
        case "cos": .one(.cos)
        case "tan": .one(.tan)
        case "asin": .one(.asin)
        case "acos": .one(.acos)
        case "atan": .one(.atan)
        case "pow": .two(.pow)
        case "atan2": .two(.atan2)
        case "hypot": .two(.hypot)
        case "min": .variadic(.min)
        case "max": .variadic(.max)
        case "clamp": .three(.clamp)
        case "lerp": .three(.lerp)
        default: nil
        }
    }

    var arityDescription: String {
        switch self {
        case .one: "1 argument"
        case .two: "2 arguments"
        case .three: "3 arguments"
        case .variadic: "2 or more arguments"
        }
    }

    func accepts(_ count: Int) -> Bool {
        switch self {
        case .one: count == 1
        case .two: count == 2
        case .three: count == 3
        case .variadic: count >= 2
        }
    }
}
