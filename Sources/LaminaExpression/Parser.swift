/// Recursive descent over the tokens. Recursion happens only where nesting grows (groups,
/// calls, unary operators, conditionals, blocks, `else if`), each counted against
/// `maxNestingDepth`, plus at most six levels of binary precedence per nesting level — so the
/// stack a parse uses is bounded whatever the input.
///
/// Newlines end statements; inside parentheses they are ignored, and after a binary operator,
/// `?`, `:`, `=` or `..<` a line may continue.
struct Parser {
    let source: [UInt8]
    let tokens: [Token]
    let limits: ExpressionLimits
    var index = 0
    var depth = 0
    /// Open parentheses: newlines inside are not separators.
    var groupDepth = 0

    init(source: [UInt8], limits: ExpressionLimits) throws(ExpressionError) {
        self.source = source
        self.limits = limits
        self.tokens = try Lexer(source: source, limits: limits).tokens()
    }

    // MARK: Entry points

    /// A template: statements separated by newlines or `;`.
    mutating func parseTemplate() throws(ExpressionError) -> [Statement] {
        try parseStatements(closing: .end)
    }

    /// A single expression, optionally surrounded by newlines.
    mutating func parseExpressionSource() throws(ExpressionError) -> Expr {
        skipSeparators(semicolons: false)
        if peek().kind == .end { throw error(.syntax, at: peek().start, "empty expression") }
        let e = try parseExpression()
        skipSeparators(semicolons: false)
        guard peek().kind == .end else { throw unexpected(peek(), "expected the end of the expression") }
        return e
    }

    // MARK: Statements

    mutating func parseStatements(closing: TokenKind) throws(ExpressionError) -> [Statement] {
        var list: [Statement] = []
        skipSeparators(semicolons: true)
        while peek().kind != closing {
            if peek().kind == .end { throw unexpected(peek(), "expected '}'") }
            let (statement, endsWithBlock) = try parseStatement()
            list.append(statement)
            let next = peek().kind
            if next == .end && closing != .end { throw unexpected(peek(), "expected '}'") }
            if next == .newline || next == .semicolon {
                skipSeparators(semicolons: true)
            } else if next != closing && !endsWithBlock {
                throw unexpected(peek(), "expected a newline or ';' between statements")
            }
        }
        return list
    }

    /// One statement, and whether it ended with a `}`.
    mutating func parseStatement() throws(ExpressionError) -> (Statement, Bool) {
        let t = peek()
        guard t.kind == .identifier else { throw unexpected(t, "expected a statement") }
        let word = text(t)
        switch word {
        case "let":
            advance()
            let nameToken = try expectIdentifier("expected a name after 'let'")
            try expect(.assign, "expected '=' after the name")
            skipNewlines()
            let value = try parseExpression()
            return (.binding(text(nameToken), value, at: nameToken.start), false)
        case "for":
            advance()
            let nameToken = try expectIdentifier("expected a loop name after 'for'")
            let inToken = peek()
            guard inToken.kind == .identifier, text(inToken) == "in" else { throw unexpected(inToken, "expected 'in'") }
            advance()
            let lower = try parseExpression()
            try expect(.halfOpenRange, "expected '..<' between the loop's bounds")
            skipNewlines()
            let upper = try parseExpression()
            let body = try parseBlock()
            return (.loop(text(nameToken), lower, upper, body, nameAt: nameToken.start, at: t.start), true)
        case "if":
            return (try parseIf(), true)
        default:
            guard let command = DrawCommand(name: word) else {
                throw error(.syntax, at: t.start, "expected a statement (move, line, quad, curve, arc, close, rect, "
                            + "ellipse, roundedRect, let, for or if), found '\(word)'")
            }
            advance()
            guard peek().kind == .leftParen else { throw unexpected(peek(), "expected '(' after '\(word)'") }
            let arguments = try parseArguments()
            return (.draw(command, arguments, at: t.start), false)
        }
    }

    mutating func parseIf() throws(ExpressionError) -> Statement {
        advance()   // if
        let condition = try parseExpression()
        let then = try parseBlock()
        // `else` may start the next line.
        let saved = index
        skipNewlines()
        let e = peek()
        guard e.kind == .identifier, text(e) == "else" else { index = saved; return .branch(condition, then, []) }
        advance()
        skipNewlines()
        let next = peek()
        if next.kind == .identifier, text(next) == "if" {
            try enter(at: next.start)
            let nested = try parseIf()
            leave()
            return .branch(condition, then, [nested])
        }
        return .branch(condition, then, try parseBlock())
    }

    mutating func parseBlock() throws(ExpressionError) -> [Statement] {
        skipNewlines()
        let open = peek()
        guard open.kind == .leftBrace else { throw unexpected(open, "expected '{'") }
        advance()
        try enter(at: open.start)
        let body = try parseStatements(closing: .rightBrace)
        advance()   // }
        leave()
        return body
    }

    // MARK: Expressions

    mutating func parseExpression() throws(ExpressionError) -> Expr {
        let condition = try parseBinary(1)
        let q = peek()
        guard q.kind == .question else { return condition }
        advance()
        try enter(at: q.start)
        skipNewlines()
        let a = try parseExpression()
        try expect(.colon, "expected ':' in the conditional")
        skipNewlines()
        let b = try parseExpression()
        leave()
        return .conditional(condition, a, b)
    }

    /// Precedence climbing; all binary operators are left-associative. The left spine it
    /// builds is returned as one flat chain.
    mutating func parseBinary(_ minLevel: Int) throws(ExpressionError) -> Expr {
        let first = try parseUnary()
        var links: [ChainLink] = []
        while true {
            let t = peek()
            guard let (level, op) = Parser.binary(t.kind), level >= minLevel else { break }
            advance()
            skipNewlines()
            links.append(ChainLink(op: op, operand: try parseBinary(level + 1), at: t.start))
        }
        return links.isEmpty ? first : .chain(first, links)
    }

    static func binary(_ kind: TokenKind) -> (Int, ChainLink.Operator)? {
        switch kind {
        case .pipePipe: (1, .or)
        case .ampAmp: (2, .and)
        case .equalEqual: (3, .binary(.equal))
        case .bangEqual: (3, .binary(.notEqual))
        case .less: (4, .binary(.less))
        case .lessEqual: (4, .binary(.lessEqual))
        case .greater: (4, .binary(.greater))
        case .greaterEqual: (4, .binary(.greaterEqual))
        case .plus: (5, .binary(.add))
        case .minus: (5, .binary(.subtract))
        case .star: (6, .binary(.multiply))
        case .slash: (6, .binary(.divide))
        case .percent: (6, .binary(.remainder))
        default: nil
        }
    }

    mutating func parseUnary() throws(ExpressionError) -> Expr {
        let t = peek()
        let op: UnaryOperator
        switch t.kind {
        case .minus: op = .negate
        case .bang: op = .not
        default: return try parsePrimary()
        }
        advance()
        try enter(at: t.start)
        let operand = try parseUnary()
        leave()
        return .unary(op, operand, at: t.start)
    }

    mutating func parsePrimary() throws(ExpressionError) -> Expr {
        let t = peek()
        switch t.kind {
        case .number(let v):
            advance()
            return .number(v)
        case .leftParen:
            advance()
            try enter(at: t.start)
            groupDepth += 1
            let inner = try parseExpression()
            try expect(.rightParen, "expected ')'")
            groupDepth -= 1
            leave()
            return inner
        case .identifier:
            advance()
            let name = text(t)
            if peek().kind == .leftParen {
                return .call(name, try parseArguments(), at: t.start)
            }
            guard peek().kind == .dot else { return .name(name, at: t.start) }
            var parts = [name]
            while peek().kind == .dot {
                advance()
                parts.append(text(try expectIdentifier("expected a name after '.'")))
            }
            return .dotted(parts, at: t.start)
        default:
            throw unexpected(t, "expected an expression")
        }
    }

    /// `( EXPR, … )`, the current token being `(`.
    mutating func parseArguments() throws(ExpressionError) -> [Expr] {
        let open = peek()
        advance()
        try enter(at: open.start)
        groupDepth += 1
        var arguments: [Expr] = []
        if peek().kind != .rightParen {
            while true {
                arguments.append(try parseExpression())
                guard peek().kind == .comma else { break }
                advance()
            }
        }
        try expect(.rightParen, "expected ',' or ')' in the argument list")
        groupDepth -= 1
        leave()
        return arguments
    }

    // MARK: Tokens

    /// The current token; inside parentheses, newlines are skipped.
    mutating func peek() -> Token {
        if groupDepth > 0 { while tokens[index].kind == .newline { index += 1 } }
        return tokens[index]
    }

    mutating func advance() { if tokens[index].kind != .end { index += 1 } }

    mutating func skipNewlines() { while tokens[index].kind == .newline { index += 1 } }

    mutating func skipSeparators(semicolons: Bool) {
        while tokens[index].kind == .newline || (semicolons && tokens[index].kind == .semicolon) { index += 1 }
    }

    mutating func expect(_ kind: TokenKind, _ message: String) throws(ExpressionError) {
        let t = peek()
        guard t.kind == kind else { throw unexpected(t, message) }
        advance()
    }

    mutating func expectIdentifier(_ message: String) throws(ExpressionError) -> Token {
        let t = peek()
        guard t.kind == .identifier else { throw unexpected(t, message) }
        advance()
        return t
    }

    mutating func enter(at offset: Int) throws(ExpressionError) {
        depth += 1
        if depth > limits.maxNestingDepth {
            throw error(.nestingTooDeep, at: offset, "nesting too deep: more than \(limits.maxNestingDepth) levels")
        }
    }

    mutating func leave() { depth -= 1 }

    func text(_ t: Token) -> String { String(decoding: source[t.start ..< t.end], as: UTF8.self) }

    func error(_ kind: ExpressionError.Kind, at offset: Int, _ reason: String) -> ExpressionError {
        ExpressionError(kind, at: SourcePosition(offset: offset, in: source), reason)
    }

    func unexpected(_ t: Token, _ expectation: String) -> ExpressionError {
        let found: String
        switch t.kind {
        case .end: found = "the end of the source"
        case .newline: found = "the end of the line"
        default: found = "'\(text(t))'"
        }
        return error(.syntax, at: t.start, "\(expectation), found \(found)")
    }
}
