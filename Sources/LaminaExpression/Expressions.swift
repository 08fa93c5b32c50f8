/// An EXPR over named inputs and `pi`, compiled once and evaluated to a Double. The general
/// form; `AnimationExpression` is the one expression animations use.
public struct CompiledExpression: Sendable {
    public let inputNames: [String]
    public let limits: ExpressionLimits
    let program: Program

    /// - Throws: `ExpressionError` naming the position and the reason.
    public init(_ source: String, inputs: [String] = [], limits: ExpressionLimits = .default) throws(ExpressionError) {
        self.inputNames = inputs
        self.limits = limits
        self.program = try compileSource(source, template: false, rules: NameRules(inputs: inputs), limits: limits)
    }

    /// Indices into `inputNames` of the inputs the expression reads, ascending.
    public var inputsRead: [Int] { program.namedInputsRead }

    /// The value for `inputs` (one per `inputNames` entry). Never traps: IEEE results.
    public func evaluate(_ inputs: [Double] = []) -> Double {
        precondition(inputs.count >= inputNames.count,
                     "CompiledExpression.evaluate: \(inputs.count) values for \(inputNames.count) inputs")
        var sink = PathSink(maxElements: 0)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: program.inputCount) { slots in
            slots.initialize(repeating: 0)
            for i in 0 ..< inputNames.count { slots[Program.namedInputBase + i] = inputs[i] }
            return program.run(UnsafeBufferPointer(slots), limits: limits, sink: &sink)
        }
    }
}

/// The EXPR of an expression animation (`{"type": "expression", …}`): it may read `t`, the
/// compositor time, and presentation values as `self.KEYPATH` and `NAME.KEYPATH`. The
/// references are recorded, not resolved: the caller checks the layers and key paths,
/// orders evaluation with `ExpressionOrder`, and passes their values to `evaluate`.
public struct AnimationExpression: Sendable {
    public let limits: ExpressionLimits
    let program: Program

    /// - Throws: `ExpressionError` naming the position and the reason.
    public init(_ source: String, limits: ExpressionLimits = .default) throws(ExpressionError) {
        self.limits = limits
        self.program = try compileSource(source, template: false,
                                         rules: NameRules(time: true, layerReferences: true), limits: limits)
    }

    /// The distinct values the expression reads, in order of first appearance.
    public var references: [ExpressionReference] { program.references }
    /// Where each reference first appears in the source.
    public var referencePositions: [SourcePosition] { program.referencePositions }
    /// Whether the expression reads `t`.
    public var readsTime: Bool { program.readsTime }
    /// What one evaluation costs in steps (the length of its code: an expression has no
    /// loops, so each instruction runs at most once). Frame budgets count it.
    public var cost: Int { program.code.count }

    /// The references with `self` replaced by `owner`, as `ExpressionOrder` takes them.
    public func dependencies(owner: String) -> [ExpressionKey] {
        program.references.map { r in
            switch r.layer {
            case .current: ExpressionKey(layer: owner, keyPath: r.keyPath)
            case .named(let n): ExpressionKey(layer: n, keyPath: r.keyPath)
            }
        }
    }

    /// The value at `time`, `values[i]` being the value of `references[i]`. Never traps:
    /// IEEE results (the caller decides what a NaN does to its property).
    public func evaluate(time: Double, values: [Double]) -> Double {
        precondition(values.count >= program.references.count,
                     "AnimationExpression.evaluate: \(values.count) values for \(program.references.count) references")
        var sink = PathSink(maxElements: 0)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: program.inputCount) { slots in
            slots.initialize(repeating: 0)
            slots[Program.timeSlot] = time
            for i in 0 ..< program.references.count { slots[Program.namedInputBase + i] = values[i] }
            return program.run(UnsafeBufferPointer(slots), limits: limits, sink: &sink)
        }
    }
}
