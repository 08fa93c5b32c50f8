import LaminaGeometry

/// A path template compiled once (at commit) and run to a `Path` whenever one of its inputs
/// changes. See README.md for the language, the limits and what evaluation does with NaN.
///
/// A value type, immutable and `Sendable`: compile on any thread, evaluate on any thread.
public struct PathTemplate: Sendable {
    /// The custom property names the template was compiled against, in input order.
    public let inputNames: [String]
    public let limits: ExpressionLimits
    let program: Program

    /// Parses and checks `source` (the template language: statements over EXPR).
    ///
    /// - Parameters:
    ///   - inputs: the custom property names the template may read, in the order `evaluate`
    ///     takes their values. A repeated name reads its first occurrence.
    /// - Throws: `ExpressionError` naming the position and the reason.
    public init(_ source: String, inputs: [String] = [], limits: ExpressionLimits = .default) throws(ExpressionError) {
        self.inputNames = inputs
        self.limits = limits
        self.program = try compileSource(source, template: true, rules: NameRules(inputs: inputs, rect: true), limits: limits)
    }

    /// Indices into `inputNames` of the inputs the template reads, ascending.
    public var inputsRead: [Int] { program.namedInputsRead }
    /// The names of the inputs the template reads.
    public var inputNamesRead: [String] { program.namedInputsRead.map { inputNames[$0] } }
    /// The bounds fields the template reads.
    public var rectFieldsRead: RectFields { program.rectFieldsRead }

    /// Runs the template over `bounds` and `inputs` (one value per `inputNames` entry).
    /// Never traps on values: see README.md, "Evaluation never traps".
    public func evaluate(in bounds: Rect, inputs: [Double]) -> TemplateOutput {
        evaluate(in: bounds, inputs: inputs, maxLoopSteps: limits.maxSteps).output
    }

    /// The fixed part of one run's cost in steps: the length of its code (each instruction
    /// outside loops runs at most once). A run costs this plus the loop steps it spends.
    public var baseCost: Int { program.code.count }

    /// Runs the template with at most `maxLoopSteps` loop steps (and never more than
    /// `limits.maxSteps`), returning the output, the loop steps spent, and whether a loop
    /// ended for want of steps. A run cut by `maxLoopSteps` reports `.loopBudgetSpent` as one
    /// cut by its own limits does.
    public func evaluate(in bounds: Rect, inputs: [Double],
                         maxLoopSteps: Int) -> (output: TemplateOutput, loopSteps: Int, stepCapReached: Bool) {
        precondition(inputs.count >= inputNames.count,
                     "PathTemplate.evaluate: \(inputs.count) values for \(inputNames.count) inputs")
        var sink = PathSink(maxElements: limits.maxPathElements)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: program.inputCount) { slots in
            for i in 0 ..< 8 { slots.initializeElement(at: i, to: RectFields.value(i, of: bounds)) }
            slots.initializeElement(at: Program.timeSlot, to: 0)
            for i in 0 ..< inputNames.count { slots.initializeElement(at: Program.namedInputBase + i, to: inputs[i]) }
            _ = program.run(UnsafeBufferPointer(slots), limits: limits, maxSteps: maxLoopSteps, sink: &sink)
        }
        return (sink.result, sink.loopSteps, sink.stepCapReached)
    }

    /// The path alone (empty when a coordinate was not finite).
    public func path(in bounds: Rect, inputs: [Double]) -> Path { evaluate(in: bounds, inputs: inputs).path }

    /// Whether anything the template reads differs between two sets of inputs: only the
    /// inputs in `inputsRead` and the fields in `rectFieldsRead` are compared, bit for bit
    /// (so NaN equals NaN and 0 differs from −0). When false, evaluation would give the same
    /// path. No allocation.
    public func inputsDiffer(bounds: Rect, inputs: [Double], from oldBounds: Rect, _ oldInputs: [Double]) -> Bool {
        let fields = program.rectFieldsRead.rawValue
        if fields != 0 {
            for i in 0 ..< 8 where fields & (1 << UInt8(i)) != 0 {
                if RectFields.value(i, of: bounds).bitPattern != RectFields.value(i, of: oldBounds).bitPattern { return true }
            }
        }
        for i in program.namedInputsRead where inputs[i].bitPattern != oldInputs[i].bitPattern { return true }
        return false
    }
}

/// A template's result: the path and what, if anything, evaluation gave up.
public struct TemplateOutput: Hashable, Sendable {
    public var path: Path
    public var status: EvaluationStatus

    public init(path: Path, status: EvaluationStatus) { self.path = path; self.status = status }
}

/// A template with its last result: `output(in:inputs:)` runs the template only when
/// something it reads changed since the previous call. Keep one per layer on the thread that
/// evaluates; after the first call it allocates only when it re-evaluates.
public struct PathTemplateEvaluator: Sendable {
    public let template: PathTemplate
    var lastBounds = Rect.zero
    var lastInputs: [Double] = []
    var last: TemplateOutput? = nil
    /// How many times the template ran (for tests and statistics).
    public private(set) var evaluations = 0

    public init(_ template: PathTemplate) { self.template = template }

    /// The last output's path, nil before the first run.
    public var lastPath: Path? { last?.path }

    public mutating func output(in bounds: Rect, inputs: [Double]) -> TemplateOutput {
        var budget = Int.max
        return output(in: bounds, inputs: inputs, budget: &budget)!
    }

    /// `output(in:inputs:)` drawing on a shared step budget (a frame's, for all templates and
    /// expressions): a run costs `template.baseCost` plus the loop steps it spends, taken from
    /// `budget`. When the budget cannot pay for the run to complete as its own limits allow
    /// (it is below the base cost, or a loop ran out of steps while the budget held fewer
    /// than `limits.maxSteps`), the budget drops to 0 and the result is nil: nothing is
    /// recorded, so the caller keeps the previous output and the template runs again when
    /// budget allows. A reused output costs nothing.
    public mutating func output(in bounds: Rect, inputs: [Double], budget: inout Int) -> TemplateOutput? {
        if let last, !template.inputsDiffer(bounds: bounds, inputs: inputs, from: lastBounds, lastInputs) {
            return last
        }
        let base = template.baseCost
        guard budget >= base else { budget = 0; return nil }
        let allowed = budget - base
        let (result, steps, capped) = template.evaluate(in: bounds, inputs: inputs, maxLoopSteps: allowed)
        if capped && allowed < template.limits.maxSteps {
            budget = 0
            return nil
        }
        budget -= base + steps
        evaluations += 1
        lastBounds = bounds
        if lastInputs.count == inputs.count {
            for i in inputs.indices { lastInputs[i] = inputs[i] }
        } else {
            lastInputs = inputs
        }
        last = result
        return result
    }
}

/// Length check, parse, check and compile: the shared front end.
func compileSource(_ source: String, template: Bool, rules: NameRules,
                   limits: ExpressionLimits) throws(ExpressionError) -> Program {
    let length = source.utf8.count
    if length > limits.maxSourceLength {
        let prefix = Array(source.utf8.prefix(limits.maxSourceLength))
        throw ExpressionError(.tooLong, at: SourcePosition(offset: limits.maxSourceLength, in: prefix),
                              "too long: \(length) bytes, more than \(limits.maxSourceLength)")
    }
    let bytes = Array(source.utf8)
    var parser = try Parser(source: bytes, limits: limits)
    var compiler = Compiler(source: bytes, limits: limits, rules: rules)
    if template {
        try compiler.compile(try parser.parseTemplate())
    } else {
        try compiler.emit(try parser.parseExpressionSource())
    }
    return compiler.program()
}
