import LaminaGeometry

/// The layer's bounds fields a template may read as `rect.NAME`.
public struct RectFields: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let minX = RectFields(rawValue: 1 << 0)
    public static let midX = RectFields(rawValue: 1 << 1)
    public static let maxX = RectFields(rawValue: 1 << 2)
    public static let minY = RectFields(rawValue: 1 << 3)
    public static let midY = RectFields(rawValue: 1 << 4)
    public static let maxY = RectFields(rawValue: 1 << 5)
    public static let width = RectFields(rawValue: 1 << 6)
    public static let height = RectFields(rawValue: 1 << 7)

    /// The names in slot order (bit i is `names[i]`).
    static let names = ["minX", "midX", "maxX", "minY", "midY", "maxY", "width", "height"]

    /// Field `i` of `r` in the order of `names`.
    @inline(__always) static func value(_ i: Int, of r: Rect) -> Double {
        switch i {
        case 0: r.minX
        case 1: r.midX
        case 2: r.maxX
        case 3: r.minY
        case 4: r.midY
        case 5: r.maxY
        case 6: r.width
        default: r.height
        }
    }
}

/// A value an animation expression reads from a layer: `self.KEYPATH` or `NAME.KEYPATH`.
public struct ExpressionReference: Hashable, Sendable, CustomStringConvertible {
    public enum Layer: Hashable, Sendable {
        /// `self`: the layer the expression animates.
        case current
        case named(String)
    }

    public var layer: Layer
    /// The key path as written (`position.x`, `custom.value`); not checked here.
    public var keyPath: String

    public init(layer: Layer, keyPath: String) { self.layer = layer; self.keyPath = keyPath }

    public var description: String {
        switch layer {
        case .current: "self.\(keyPath)"
        case .named(let n): "\(n).\(keyPath)"
        }
    }
}

/// One instruction of the stack machine. Jump targets are instruction indices; slots index
/// the inputs or the locals. Plain data (no references), 16 bytes each.
enum Instruction: Sendable {
    case constant(Double)
    /// Push input slot i.
    case input(Int32)
    /// Push local i.
    case local(Int32)
    /// Pop into local i.
    case store(Int32)
    case unary(Function1)
    case binary(Function2)
    case ternary(Function3)
    /// Replace the top with 1 when true, 0 when false.
    case truth
    case jump(Int32)
    /// Pop; jump when false.
    case jumpIfFalse(Int32)
    /// Pop; jump when true.
    case jumpIfTrue(Int32)
    /// Loop head: local `slot` is the loop name, `slot + 1` its end. Jump to `exit` when the
    /// name is not below the end or the evaluation's iteration or step budget is spent;
    /// otherwise spend one iteration and `cost` steps.
    case loopTest(slot: Int32, exit: Int32, cost: Int32)
    /// Loop tail: add 1 to local `slot`, jump to `top`.
    case loopNext(slot: Int32, top: Int32)
    /// Pop the command's arguments and append to the path.
    case draw(DrawCommand)
}

/// The compiled form shared by templates and expressions.
///
/// Input slots: 0 ..< 8 the rect fields (`RectFields.names` order), 8 the time `t`,
/// 9 ..< 9 + n the named inputs, then the layer references.
struct Program: Sendable {
    static let timeSlot = 8
    static let namedInputBase = 9

    var code: [Instruction]
    var stackSize: Int
    var localCount: Int
    var namedInputCount: Int
    /// Indices (into the named inputs) that the code reads, ascending.
    var namedInputsRead: [Int]
    var rectFieldsRead: RectFields
    var readsTime: Bool
    var references: [ExpressionReference]
    var referencePositions: [SourcePosition]

    var inputCount: Int { Program.namedInputBase + namedInputCount + references.count }
}
