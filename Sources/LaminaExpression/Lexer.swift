/// Splits a source into tokens. Identifiers are ASCII letters, digits and `_` (not starting
/// with a digit); numbers are `digits [. digits] [e|E [+|-] digits]`; `//` starts a comment
/// that runs to the end of the line. Newlines are tokens (they separate statements).
enum TokenKind: Equatable {
    case number(Double)
    case identifier
    case newline, semicolon, comma, dot
    case leftParen, rightParen, leftBrace, rightBrace
    case question, colon
    case plus, minus, star, slash, percent
    case less, lessEqual, greater, greaterEqual, equalEqual, bangEqual
    case ampAmp, pipePipe, bang, assign
    case halfOpenRange   // ..<
    case end
}

struct Token {
    var kind: TokenKind
    /// Byte range in the source.
    var start: Int
    var end: Int
}

struct Lexer {
    let source: [UInt8]
    let limits: ExpressionLimits

    /// All tokens, ending with `.end`.
    ///
    /// - Throws: `badToken`, `numberOutOfRange`, or `tooLong` past `maxTokens`.
    func tokens() throws(ExpressionError) -> [Token] {
        var tokens: [Token] = []
        var counted = 0
        var i = 0
        let s = source
        func error(_ kind: ExpressionError.Kind, _ at: Int, _ reason: String) -> ExpressionError {
            ExpressionError(kind, at: SourcePosition(offset: at, in: s), reason)
        }
        while i < s.count {
            let c = s[i]
            if c == 0x20 || c == 0x09 || c == 0x0D { i += 1; continue }
            if c == 0x2F && i + 1 < s.count && s[i + 1] == 0x2F {   // comment
                while i < s.count && s[i] != 0x0A { i += 1 }
                continue
            }
            let start = i
            var kind: TokenKind
            if c == 0x0A {
                kind = .newline; i += 1
            } else if Lexer.isDigit(c) {
                while i < s.count && Lexer.isDigit(s[i]) { i += 1 }
                if i + 1 < s.count && s[i] == 0x2E && Lexer.isDigit(s[i + 1]) {
                    i += 1
                    while i < s.count && Lexer.isDigit(s[i]) { i += 1 }
                }
                if i < s.count && (s[i] == 0x65 || s[i] == 0x45) {   // e E
                    var j = i + 1
                    if j < s.count && (s[j] == 0x2B || s[j] == 0x2D) { j += 1 }
                    guard j < s.count && Lexer.isDigit(s[j]) else {
                        throw error(.badToken, start, "malformed number: exponent without digits")
                    }
                    while j < s.count && Lexer.isDigit(s[j]) { j += 1 }
                    i = j
                }
                if i < s.count && Lexer.isIdentifierPart(s[i]) {
                    throw error(.badToken, start, "malformed number: a letter follows the digits")
                }
                let text = String(decoding: s[start ..< i], as: UTF8.self)
                guard let value = Double(text) else { throw error(.badToken, start, "malformed number") }
                guard value.isFinite else {
                    throw error(.numberOutOfRange, start, "number too large: it is not finite as a Double")
                }
                kind = .number(value)
            } else if Lexer.isIdentifierStart(c) {
                while i < s.count && Lexer.isIdentifierPart(s[i]) { i += 1 }
                kind = .identifier
            } else {
                let next: UInt8 = i + 1 < s.count ? s[i + 1] : 0
                var width = 1
                switch c {
                case 0x3B: kind = .semicolon
                case 0x2C: kind = .comma
                case 0x2E:
                    if next == 0x2E && i + 2 < s.count && s[i + 2] == 0x3C { kind = .halfOpenRange; width = 3 }
                    else { kind = .dot }
                case 0x28: kind = .leftParen
                case 0x29: kind = .rightParen
                case 0x7B: kind = .leftBrace
                case 0x7D: kind = .rightBrace
                case 0x3F: kind = .question
                case 0x3A: kind = .colon
                case 0x2B: kind = .plus
                case 0x2D: kind = .minus
                case 0x2A: kind = .star
                case 0x2F: kind = .slash
                case 0x25: kind = .percent
                case 0x3C: if next == 0x3D { kind = .lessEqual; width = 2 } else { kind = .less }
                case 0x3E: if next == 0x3D { kind = .greaterEqual; width = 2 } else { kind = .greater }
                case 0x3D: if next == 0x3D { kind = .equalEqual; width = 2 } else { kind = .assign }
                case 0x21: if next == 0x3D { kind = .bangEqual; width = 2 } else { kind = .bang }
                case 0x26:
                    guard next == 0x26 else { throw error(.badToken, start, "unexpected character '&' (did you mean '&&'?)") }
                    kind = .ampAmp; width = 2
                case 0x7C:
                    guard next == 0x7C else { throw error(.badToken, start, "unexpected character '|' (did you mean '||'?)") }
                    kind = .pipePipe; width = 2
                default:
                    throw error(.badToken, start, "unexpected character \(Lexer.describe(byte: c))")
                }
                i += width
            }
            if kind != .newline {
                counted += 1
                if counted > limits.maxTokens {
                    throw error(.tooLong, start, "too long: more than \(limits.maxTokens) tokens")
                }
            }
            tokens.append(Token(kind: kind, start: start, end: i))
        }
        tokens.append(Token(kind: .end, start: s.count, end: s.count))
        return tokens
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }
    static func isIdentifierPart(_ c: UInt8) -> Bool { isIdentifierStart(c) || isDigit(c) }

    static func describe(byte c: UInt8) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        let hex = String(c, radix: 16, uppercase: true)
        return "(byte 0x\(hex.count == 1 ? "0" + hex : hex))"
    }
}
