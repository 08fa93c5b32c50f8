import Foundation

/// What names a source may read, besides its own `let` and loop names and `pi`.
struct NameRules {
    /// Bare names of inputs (custom properties), in slot order.
    var inputs: [String] = []
    /// `rect.minX` … `rect.height`.
    var rect = false
    /// `t`, the time.
    var time = false
    /// `self.KEYPATH` and `NAME.KEYPATH`.
    var layerReferences = false
}

/// Resolves names, checks arities and constant loops, folds constants and emits the stack
/// machine's code. Recursion follows the syntax tree, whose depth the parser bounds.
struct Compiler {
    enum Binding {
        case local(Int32)
        case constant(Double)
    }

    static let reserved: Set<String> = ["let", "for", "in", "if", "else", "pi", "rect", "self"]

    let source: [UInt8]
    let limits: ExpressionLimits
    let rules: NameRules
    let inputIndex: [String: Int]

    var code: [Instruction] = []
    var stack = 0
    var maxStack = 0
    var localCount = 0
    var scopes: [[String: Binding]] = [[:]]
    var inputRead: [Bool]
    var rectFieldsRead: RectFields = []
    var readsTime = false
    var references: [ExpressionReference] = []
    var referencePositions: [SourcePosition] = []
    var referenceIndex: [ExpressionReference: Int] = [:]
    /// Product of the iteration counts of the enclosing loops with constant bounds.
    var enclosingConstantIterations = 1.0

    init(source: [UInt8], limits: ExpressionLimits, rules: NameRules) {
        self.source = source
        self.limits = limits
        self.rules = rules
        var index: [String: Int] = [:]
        for (i, name) in rules.inputs.enumerated() where index[name] == nil { index[name] = i }
        self.inputIndex = index
        self.inputRead = Array(repeating: false, count: rules.inputs.count)
    }

    // MARK: Output

    func program() -> Program {
        Program(code: code, stackSize: maxStack, localCount: localCount,
                namedInputCount: rules.inputs.count,
                namedInputsRead: inputRead.indices.filter { inputRead[$0] },
                rectFieldsRead: rectFieldsRead, readsTime: readsTime,
                references: references, referencePositions: referencePositions)
    }

    // MARK: Statements

    mutating func compile(_ statements: [Statement]) throws(ExpressionError) {
        for s in statements { try compile(s) }
    }

    mutating func compile(_ s: Statement) throws(ExpressionError) {
        switch s {
        case .draw(let command, let arguments, let at):
            guard arguments.count == command.argumentCount else {
                throw error(.wrongArgumentCount, at: at,
                            "\(command.name) takes \(Compiler.count(command.argumentCount)), not \(arguments.count)")
            }
            for a in arguments { try emit(a) }
            append(.draw(command), stack: -arguments.count)
        case .binding(let name, let value, let at):
            try declare(name, at: at)
            if let v = try fold(value) {
                scopes[scopes.count - 1][name] = .constant(v)
            } else {
                try emit(value)
                let slot = newLocal()
                append(.store(slot), stack: -1)
                scopes[scopes.count - 1][name] = .local(slot)
            }
        case .loop(let name, let lower, let upper, let body, let nameAt, let at):
            var iterations = 1.0
            if let a = try fold(lower), let b = try fold(upper) {
                iterations = b > a ? Foundation.ceil(b - a) : 0
                let total = iterations * enclosingConstantIterations
                if total > Double(limits.maxLoopIterations) {
                    let what = enclosingConstantIterations > 1 ? "with its enclosing loops this loop runs" : "loop runs"
                    throw error(.loopOverCap, at: at, "\(what) \(Compiler.format(total)) times, over the cap of "
                                + "\(limits.maxLoopIterations) iterations per evaluation")
                }
            }
            try emit(lower)
            let slot = newLocal()
            _ = newLocal()   // slot + 1: the end
            append(.store(slot), stack: -1)
            try emit(upper)
            append(.store(slot + 1), stack: -1)
            let top = append(.loopTest(slot: slot, exit: 0, cost: 0), stack: 0)
            scopes.append([:])
            try declare(name, at: nameAt)
            scopes[scopes.count - 1][name] = .local(slot)
            scopes.append([:])
            let saved = enclosingConstantIterations
            enclosingConstantIterations *= iterations
            try compile(body)
            enclosingConstantIterations = saved
            scopes.removeLast(2)
            append(.loopNext(slot: slot, top: Int32(top)), stack: 0)
            let cost = Int32(clamping: code.count - top)
            code[top] = .loopTest(slot: slot, exit: Int32(code.count), cost: cost)
        case .branch(let condition, let then, let otherwise):
            try emit(condition)
            let skipThen = append(.jumpIfFalse(0), stack: -1)
            try block(then)
            if otherwise.isEmpty {
                patch(skipThen)
            } else {
                let skipElse = append(.jump(0), stack: 0)
                patch(skipThen)
                try block(otherwise)
                patch(skipElse)
            }
        }
    }

    mutating func block(_ statements: [Statement]) throws(ExpressionError) {
        scopes.append([:])
        try compile(statements)
        scopes.removeLast()
    }

    mutating func declare(_ name: String, at: Int) throws(ExpressionError) {
        if Compiler.reserved.contains(name) {
            throw error(.reservedName, at: at, "'\(name)' is reserved and cannot be a name")
        }
        if scopes[scopes.count - 1][name] != nil {
            throw error(.duplicateName, at: at, "'\(name)' is already defined in this block")
        }
    }

    mutating func newLocal() -> Int32 {
        localCount += 1
        return Int32(localCount - 1)
    }

    // MARK: Expressions

    mutating func emit(_ e: Expr) throws(ExpressionError) {
        if let v = try fold(e) { append(.constant(v), stack: 1); return }
        switch e {
        case .number(let v):
            append(.constant(v), stack: 1)
        case .name(let name, let at):
            switch lookup(name) {
            case .local(let slot)?: append(.local(slot), stack: 1)
            case .constant(let v)?: append(.constant(v), stack: 1)
            case nil:
                if let i = inputIndex[name] {
                    inputRead[i] = true
                    append(.input(Int32(Program.namedInputBase + i)), stack: 1)
                } else if name == "pi" {
                    append(.constant(.pi), stack: 1)
                } else if name == "t" && rules.time {
                    readsTime = true
                    append(.input(Int32(Program.timeSlot)), stack: 1)
                } else {
                    throw error(.unknownName, at: at, "unknown name '\(name)'")
                }
            }
        case .dotted(let parts, let at):
            append(.input(Int32(try dottedSlot(parts, at: at))), stack: 1)
        case .unary(let op, let operand, _):
            try emit(operand)
            append(.unary(op == .negate ? .negate : .not), stack: 0)
        case .chain(let first, let links):
            // Fold a constant prefix (`2 * pi * i` → `6.28… * i`).
            var start = 0
            if var v = try fold(first) {
                while start < links.count, let w = try fold(links[start].operand) {
                    v = Compiler.combine(links[start].op, v, w)
                    start += 1
                }
                append(.constant(v), stack: 1)
            } else {
                try emit(first)
            }
            for link in links[start...] {
                switch link.op {
                case .binary(let op):
                    try emit(link.operand)
                    append(.binary(Function2(op)), stack: -1)
                case .and, .or:
                    let isAnd = link.op.isAnd
                    let shortCircuit = append(isAnd ? .jumpIfFalse(0) : .jumpIfTrue(0), stack: -1)
                    try emit(link.operand)
                    append(.truth, stack: 0)
                    let done = append(.jump(0), stack: -1)
                    patch(shortCircuit)
                    append(.constant(isAnd ? 0 : 1), stack: 1)
                    patch(done)
                }
            }
        case .conditional(let c, let a, let b):
            try emit(c)
            let toElse = append(.jumpIfFalse(0), stack: -1)
            try emit(a)
            let done = append(.jump(0), stack: -1)
            patch(toElse)
            try emit(b)
            patch(done)
        case .call(let name, let arguments, let at):
            let f = try function(name, arguments.count, at: at)
            if case .variadic(let g) = f {
                // Folded left: min(a, b, c) = min(min(a, b), c).
                try emit(arguments[0])
                for a in arguments.dropFirst() {
                    try emit(a)
                    append(.binary(g), stack: -1)
                }
                return
            }
            for a in arguments { try emit(a) }
            switch f {
            case .one(let g): append(.unary(g), stack: 0)
            case .two(let g): append(.binary(g), stack: -1)
            case .three(let g): append(.ternary(g), stack: -2)
            case .variadic: break
            }
        }
    }

    /// The value of `e` when it depends on nothing that varies (numbers, `pi`, constant
    /// `let`s and pure functions of them), or nil. Throws only what `function` throws.
    func fold(_ e: Expr) throws(ExpressionError) -> Double? {
        switch e {
        case .number(let v): return v
        case .name(let name, _):
            switch lookup(name) {
            case .constant(let v)?: return v
            case .local?: return nil
            case nil: return inputIndex[name] == nil && name == "pi" ? .pi : nil
            }
        case .dotted: return nil
        case .unary(let op, let operand, _):
            guard let v = try fold(operand) else { return nil }
            return (op == .negate ? Function1.negate : .not).apply(v)
        case .chain(let first, let links):
            guard var v = try fold(first) else { return nil }
            for link in links {
                guard let w = try fold(link.operand) else { return nil }
                v = Compiler.combine(link.op, v, w)
            }
            return v
        case .conditional(let c, let a, let b):
            guard let vc = try fold(c), let va = try fold(a), let vb = try fold(b) else { return nil }
            return isTrue(vc) ? va : vb
        case .call(let name, let arguments, let at):
            let f = try function(name, arguments.count, at: at)
            var values: [Double] = []
            for a in arguments {
                guard let v = try fold(a) else { return nil }
                values.append(v)
            }
            switch f {
            case .one(let g): return g.apply(values[0])
            case .two(let g): return g.apply(values[0], values[1])
            case .three(let g): return g.apply(values[0], values[1], values[2])
            case .variadic(let g): return values.dropFirst().reduce(values[0]) { g.apply($0, $1) }
            }
        }
    }

    static func combine(_ op: ChainLink.Operator, _ a: Double, _ b: Double) -> Double {
        switch op {
        case .binary(let o): Function2(o).apply(a, b)
        case .and: isTrue(a) && isTrue(b) ? 1 : 0
        case .or: isTrue(a) || isTrue(b) ? 1 : 0
        }
    }

    func function(_ name: String, _ count: Int, at: Int) throws(ExpressionError) -> FunctionKind {
        guard let f = FunctionKind.named(name) else {
            if DrawCommand(name: name) != nil {
                throw error(.unknownFunction, at: at, "unknown function '\(name)' ('\(name)' is a statement, not a function)")
            }
            throw error(.unknownFunction, at: at, "unknown function '\(name)'")
        }
        guard f.accepts(count) else {
            throw error(.wrongArgumentCount, at: at, "\(name) takes \(f.arityDescription), not \(count)")
        }
        return f
    }

    func lookup(_ name: String) -> Binding? {
        for scope in scopes.reversed() { if let b = scope[name] { return b } }
        return nil
    }

    /// The input slot of `rect.FIELD`, `self.KEYPATH` or `NAME.KEYPATH`, recording the read.
    mutating func dottedSlot(_ parts: [String], at: Int) throws(ExpressionError) -> Int {
        let written = parts.joined(separator: ".")
        if rules.layerReferences {
            let layer: ExpressionReference.Layer = parts[0] == "self" ? .current : .named(parts[0])
            let reference = ExpressionReference(layer: layer, keyPath: parts.dropFirst().joined(separator: "."))
            let index: Int
            if let i = referenceIndex[reference] {
                index = i
            } else {
                index = references.count
                references.append(reference)
                referencePositions.append(SourcePosition(offset: at, in: source))
                referenceIndex[reference] = index
            }
            return Program.namedInputBase + rules.inputs.count + index
        }
        if rules.rect && parts[0] == "rect" {
            if parts.count == 2, let i = RectFields.names.firstIndex(of: parts[1]) {
                rectFieldsRead.insert(RectFields(rawValue: 1 << UInt8(i)))
                return i
            }
            throw error(.unknownName, at: at, "unknown name '\(written)' (rect has "
                        + RectFields.names.joined(separator: ", ") + ")")
        }
        throw error(.unknownName, at: at, "unknown name '\(written)'")
    }

    // MARK: Code

    @discardableResult
    mutating func append(_ i: Instruction, stack delta: Int) -> Int {
        code.append(i)
        stack += delta
        maxStack = max(maxStack, stack)
        return code.count - 1
    }

    /// Points the jump at `index` to the next instruction.
    mutating func patch(_ index: Int) {
        let here = Int32(code.count)
        switch code[index] {
        case .jump: code[index] = .jump(here)
        case .jumpIfFalse: code[index] = .jumpIfFalse(here)
        case .jumpIfTrue: code[index] = .jumpIfTrue(here)
        default: preconditionFailure("patch: instruction \(index) is not a jump")
        }
    }

    func error(_ kind: ExpressionError.Kind, at offset: Int, _ reason: String) -> ExpressionError {
        ExpressionError(kind, at: SourcePosition(offset: offset, in: source), reason)
    }

    static func count(_ n: Int) -> String { n == 1 ? "1 argument" : "\(n) arguments" }

    static func format(_ v: Double) -> String {
        v < 1e15 ? String(Int64(v)) : "\(v)"
    }
}

extension ChainLink.Operator {
    var isAnd: Bool { if case .and = self { true } else { false } }
}
