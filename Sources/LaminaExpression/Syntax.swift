/// The parsed form of templates and expressions, before names are resolved. Offsets are
/// UTF-8 byte offsets into the source, for error messages. Its depth is bounded by
/// `ExpressionLimits.maxNestingDepth` (the parser enforces it), so walking it recursively is
/// safe.
indirect enum Expr {
    case number(Double)
    /// A bare name: `let`/loop name, input, `pi`, `t`.
    case name(String, at: Int)
    /// A dotted name: `rect.minX`, `self.position.x`, `slider.custom.value`.
    case dotted([String], at: Int)
    case unary(UnaryOperator, Expr, at: Int)
    /// Binary operators applied left to right: `first op₁ x₁ op₂ x₂ …` is
    /// `((first op₁ x₁) op₂ x₂) …`. Precedence climbing yields such a left spine; kept flat,
    /// a long chain (`a + b + c + …`) adds no depth.
    case chain(Expr, [ChainLink])
    /// `c ? a : b`.
    case conditional(Expr, Expr, Expr)
    case call(String, [Expr], at: Int)
}

enum UnaryOperator { case negate, not }

enum BinaryOperator {
    case add, subtract, multiply, divide, remainder
    case less, lessEqual, greater, greaterEqual, equal, notEqual
}

/// One step of a chain: an arithmetic or comparison operator, or a short-circuiting `&&`/`||`.
struct ChainLink {
    enum Operator {
        case binary(BinaryOperator)
        case and, or
    }
    var op: Operator
    var operand: Expr
    var at: Int
}

/// A drawing statement of a template, with its argument count.
enum DrawCommand: UInt8, CaseIterable, Sendable {
    case move, line, quad, curve, arc, close, rect, ellipse, roundedRect

    init?(name: String) {
        guard let c = DrawCommand.allCases.first(where: { $0.name == name }) else { return nil }
        self = c
    }

    var name: String {
        switch self {
        case .move: "move"
        case .line: "line"
        case .quad: "quad"
        case .curve: "curve"
        case .arc: "arc"
        case .close: "close"
        case .rect: "rect"
        case .ellipse: "ellipse"
        case .roundedRect: "roundedRect"
        }
    }

    var argumentCount: Int {
        switch self {
        case .move, .line: 2
        case .quad, .rect, .ellipse: 4
        case .curve, .arc: 6
        case .close: 0
        case .roundedRect: 5
        }
    }

    /// Most path elements the statement appends.
    var maxElements: Int {
        switch self {
        case .move, .line, .quad, .curve, .close: 1
        case .arc: 5          // a move or line to the start, at most four quarter cubics
        case .rect: 5
        case .ellipse: 6
        case .roundedRect: 10
        }
    }
}

indirect enum Statement {
    case draw(DrawCommand, [Expr], at: Int)
    case binding(String, Expr, at: Int)
    /// `for NAME in lower ..< upper { body }`; `at` is the offset of `for`.
    case loop(String, Expr, Expr, [Statement], nameAt: Int, at: Int)
    /// `if c { … } else { … }`; `else if` is an else block holding one `branch`.
    case branch(Expr, [Statement], [Statement])
}
