/// Bounds on what a template or expression may ask of the compositor. Checked at compile time
/// (source length, tokens, nesting, constant loops) and again while evaluating (loop
/// iterations, work, path elements), so no input can stall a frame or exhaust the stack.
public struct ExpressionLimits: Hashable, Sendable {
    /// Longest accepted source, in UTF-8 bytes. Checked before anything is read.
    public var maxSourceLength: Int
    /// Most tokens in one source (newlines and comments not counted).
    public var maxTokens: Int
    /// Deepest nesting of parentheses, calls, unary operators, conditionals and blocks.
    /// It bounds the parser's and compiler's recursion, so a hostile source cannot overflow
    /// the stack.
    public var maxNestingDepth: Int
    /// Most loop iterations in one evaluation, all loops together. A loop whose bounds are
    /// constants (or products of nested constant loops) over this is a compile error; at run
    /// time, once the budget is spent every further loop test fails.
    public var maxLoopIterations: Int
    /// Most instructions one evaluation may spend in loops, counted per iteration as the
    /// length of the loop's body. Spent, it ends loops as `maxLoopIterations` does.
    public var maxSteps: Int
    /// Most elements in a template's path; a drawing statement that would go past it, and
    /// every one after it, is skipped.
    public var maxPathElements: Int

    public init(maxSourceLength: Int = 16_384, maxTokens: Int = 4_096, maxNestingDepth: Int = 32,
                maxLoopIterations: Int = 10_000, maxSteps: Int = 1_000_000, maxPathElements: Int = 50_000) {
        self.maxSourceLength = maxSourceLength
        self.maxTokens = maxTokens
        self.maxNestingDepth = maxNestingDepth
        self.maxLoopIterations = maxLoopIterations
        self.maxSteps = maxSteps
        self.maxPathElements = maxPathElements
    }

    /// 16 KiB of source, 4,096 tokens, nesting 32, 10,000 loop iterations and 10⁶ loop
    /// instructions per evaluation (a few milliseconds at worst), 50,000 path elements.
    public static let `default` = ExpressionLimits()
}
