/// A place in a source: UTF-8 byte offset from the start, and 1-based line and column
/// (the column counts UTF-8 bytes from the line's start).
public struct SourcePosition: Hashable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var line: Int
    public var column: Int

    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset; self.line = line; self.column = column
    }

    /// The position of byte `offset` in `source` (clamped to its length).
    init(offset: Int, in source: [UInt8]) {
        let end = min(max(offset, 0), source.count)
        var line = 1, lineStart = 0
        for i in 0 ..< end where source[i] == 0x0A { line += 1; lineStart = i + 1 }
        self.init(offset: end, line: line, column: end - lineStart + 1)
    }

    public var description: String { "line \(line), column \(column) (offset \(offset))" }
}

/// Why a template or expression was rejected, and where.
public struct ExpressionError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Source longer than `maxSourceLength` bytes, or more than `maxTokens` tokens.
        case tooLong
        /// A character that starts no token, or a malformed number.
        case badToken
        /// A number literal that is not finite as a Double (`1e400`).
        case numberOutOfRange
        /// A token where the grammar expects something else.
        case syntax
        /// A name that is no `let` or loop name in scope, input, `pi`, `rect.…` field,
        /// `t` or layer reference (depending on what the source may read).
        case unknownName
        /// A call of a name that is no function.
        case unknownFunction
        /// A function or statement called with the wrong number of arguments.
        case wrongArgumentCount
        /// A loop with constant bounds (or nested constant loops) over `maxLoopIterations`.
        case loopOverCap
        /// Nesting deeper than `maxNestingDepth`.
        case nestingTooDeep
        /// A `let` or loop name defined twice in one block.
        case duplicateName
        /// A `let` or loop name that is a keyword or a builtin (`pi`, `rect`).
        case reservedName
    }

    public var kind: Kind
    public var position: SourcePosition
    /// The reason in words, without the position.
    public var reason: String

    public init(_ kind: Kind, at position: SourcePosition, _ reason: String) {
        self.kind = kind; self.position = position; self.reason = reason
    }

    /// "line L, column C (offset O): reason".
    public var description: String { "\(position): \(reason)" }
}
