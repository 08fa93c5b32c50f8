import Foundation
import LaminaGeometry

/// What an evaluation had to give up; empty when it ran as written.
public struct EvaluationStatus: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The iteration or step budget ran out; later loop tests failed (loops ended early).
    public static let loopBudgetSpent = EvaluationStatus(rawValue: 1 << 0)
    /// A drawing statement would have passed `maxPathElements`; it and all later ones were
    /// skipped.
    public static let elementCapReached = EvaluationStatus(rawValue: 1 << 1)
    /// A drawing statement had a NaN or infinite argument or produced a non-finite
    /// coordinate, so the path is empty.
    public static let nonFinite = EvaluationStatus(rawValue: 1 << 2)
}

/// Receives a template's drawing statements and builds the path. Elements are checked as
/// they are appended; any non-finite one empties the result.
struct PathSink {
    var path = Path()
    var status: EvaluationStatus = []
    let maxElements: Int
    /// Loop steps the run spent (set when it returns).
    var loopSteps = 0
    /// A loop ended because the run's step cap could not pay for another iteration.
    var stepCapReached = false

    init(maxElements: Int) { self.maxElements = maxElements }

    mutating func draw(_ command: DrawCommand, _ a: UnsafeMutablePointer<Double>) {
        if !status.isDisjoint(with: [.elementCapReached, .nonFinite]) { return }
        for k in 0 ..< command.argumentCount where !a[k].isFinite {
            status.insert(.nonFinite)
            return
        }
        let before = path.elements.count
        if before + command.maxElements > maxElements {
            status.insert(.elementCapReached)
            return
        }
        switch command {
        case .move: path.elements.append(.move(Point(a[0], a[1])))
        case .line: path.elements.append(.line(Point(a[0], a[1])))
        case .quad: path.elements.append(.quad(Point(a[0], a[1]), Point(a[2], a[3])))
        case .curve: path.elements.append(.cubic(Point(a[0], a[1]), Point(a[2], a[3]), Point(a[4], a[5])))
        case .close: path.elements.append(.close)
        case .arc: path.addArc(center: Point(a[0], a[1]), radius: a[2], startAngle: a[3], endAngle: a[4], clockwise: isTrue(a[5]))
        case .rect: path.addRect(Rect(a[0], a[1], a[2], a[3]))
        case .ellipse: path.addEllipse(in: Rect(a[0], a[1], a[2], a[3]))
        case .roundedRect: path.addRoundedRect(Rect(a[0], a[1], a[2], a[3]), cornerRadii: CornerRadii(a[4]))
        }
        // Finite arguments can still overflow (1e308 + 1e308).
        if path.elements[before...].contains(where: { !PathSink.isFinite($0) }) { status.insert(.nonFinite) }
    }

    static func isFinite(_ e: Path.Element) -> Bool {
        switch e {
        case .move(let p), .line(let p): p.isFinite
        case .quad(let c, let p): c.isFinite && p.isFinite
        case .cubic(let c1, let c2, let p): c1.isFinite && c2.isFinite && p.isFinite
        case .close: true
        }
    }

    /// The path, or an empty one when anything was non-finite.
    var result: TemplateOutput {
        TemplateOutput(path: status.contains(.nonFinite) ? Path() : path, status: status)
    }
}

extension Program {
    /// Runs the code over `inputs` (laid out as `Program` describes) and returns the value
    /// left on the stack (0 for a template). Render thread or any thread: it reads only its
    /// arguments. Allocates nothing but what `sink` appends to its path. `maxSteps` (at most
    /// `limits.maxSteps`) caps the loop steps of this run; `sink.loopSteps` says how many it spent.
    func run(_ inputs: UnsafeBufferPointer<Double>, limits: ExpressionLimits, maxSteps: Int? = nil,
             sink: inout PathSink) -> Double {
        precondition(inputs.count >= inputCount, "run: \(inputs.count) inputs for a program that reads \(inputCount) slots")
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: stackSize + localCount + 1) { memory in
            // SAFETY: the compiler tracked the stack's depth for every instruction, so `sp`
            // stays in 0 ..< stackSize; locals are below localCount and input slots below
            // inputCount (checked above); jump targets are at most code.count.
            let stack = memory.baseAddress!
            stack.initialize(repeating: 0, count: memory.count)
            let locals = stack + stackSize
            var sp = 0
            var iterationsLeft = limits.maxLoopIterations
            let stepCap = min(maxSteps ?? limits.maxSteps, limits.maxSteps)
            var stepsLeft = stepCap
            defer { sink.loopSteps = stepCap - stepsLeft }
            return code.withUnsafeBufferPointer { code -> Double in
                var pc = 0
                while pc < code.count {
                    switch code[pc] {
                    case .constant(let v): stack[sp] = v; sp += 1
                    case .input(let i): stack[sp] = inputs[Int(i)]; sp += 1
                    case .local(let i): stack[sp] = locals[Int(i)]; sp += 1
                    case .store(let i): sp -= 1; locals[Int(i)] = stack[sp]
                    case .unary(let f): stack[sp - 1] = f.apply(stack[sp - 1])
                    case .binary(let f): sp -= 1; stack[sp - 1] = f.apply(stack[sp - 1], stack[sp])
                    case .ternary(let f): sp -= 2; stack[sp - 1] = f.apply(stack[sp - 1], stack[sp], stack[sp + 1])
                    case .truth: stack[sp - 1] = isTrue(stack[sp - 1]) ? 1 : 0
                    case .jump(let target): pc = Int(target); continue
                    case .jumpIfFalse(let target):
                        sp -= 1
                        if !isTrue(stack[sp]) { pc = Int(target); continue }
                    case .jumpIfTrue(let target):
                        sp -= 1
                        if isTrue(stack[sp]) { pc = Int(target); continue }
                    case .loopTest(let slot, let exit, let cost):
                        let s = Int(slot)
                        guard locals[s] < locals[s + 1] else { pc = Int(exit); continue }
                        guard iterationsLeft > 0, stepsLeft >= Int(cost) else {
                            if iterationsLeft > 0 { sink.stepCapReached = true }
                            sink.status.insert(.loopBudgetSpent)
                            pc = Int(exit); continue
                        }
                        iterationsLeft -= 1
                        stepsLeft -= Int(cost)
                    case .loopNext(let slot, let top):
                        locals[Int(slot)] += 1
                        pc = Int(top); continue
                    case .draw(let command):
                        sp -= command.argumentCount
                        sink.draw(command, stack + sp)
                    }
                    pc += 1
                }
                return sp > 0 ? stack[sp - 1] : 0
            }
        }
    }
}
