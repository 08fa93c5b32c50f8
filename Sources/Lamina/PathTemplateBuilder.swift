import LaminaGeometry
import LaminaModel

/// A number in a path template or expression: Swift arithmetic on these writes the
/// template language's source (`TemplateExpr.custom("sides") * 2` is `(sides * 2)`), so a
/// template reads like a SwiftUI `Shape`'s `path(in:)` and the compositor runs it each frame.
public struct TemplateExpr: ExpressibleByFloatLiteral, ExpressibleByIntegerLiteral, CustomStringConvertible, Sendable {
    /// The source text (parenthesised where it is not a single token).
    public let source: String

    public init(source: String) { self.source = source }
    public init(_ value: Double) {
        // The language's numbers have no sign (a negative one is a unary minus) and no
        // leading dot; Swift's shortest round-trip form is one (integers without ".0").
        let m = Swift.abs(value)
        let text = !m.isFinite ? "0" : m < 1e15 && m == m.rounded() ? "\(Int64(m))" : "\(m)"
        source = value < 0 || (value == 0 && value.sign == .minus) ? "(-\(text))" : text
    }
    public init(floatLiteral value: Double) { self.init(value) }
    public init(integerLiteral value: Int) { self.init(Double(value)) }
    public var description: String { source }

    /// A custom property of the layer (`custom.NAME`), read by its bare name.
    public static func custom(_ name: String) -> TemplateExpr { TemplateExpr(source: name) }
    /// π.
    public static let pi = TemplateExpr(source: "pi")
    /// The compositor time (expression animations only).
    public static let t = TemplateExpr(source: "t")
    /// `NAME.KEYPATH` of another layer (expression animations; the name is given a layer in
    /// `Layer.addExpression(_:forKeyPath:key:layers:)`), or `self.KEYPATH` for `name` "self".
    public static func value(of name: String, _ keyPath: String) -> TemplateExpr { TemplateExpr(source: name + "." + keyPath) }

    static func binary(_ a: TemplateExpr, _ op: String, _ b: TemplateExpr) -> TemplateExpr {
        TemplateExpr(source: "(\(a.source) \(op) \(b.source))")
    }
    static func call(_ name: String, _ args: [TemplateExpr]) -> TemplateExpr {
        TemplateExpr(source: name + "(" + args.map(\.source).joined(separator: ", ") + ")")
    }

    public static func + (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "+", b) }
    public static func - (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "-", b) }
    public static func * (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "*", b) }
    public static func / (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "/", b) }
    public static func % (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "%", b) }
    public static prefix func - (a: TemplateExpr) -> TemplateExpr { TemplateExpr(source: "(-\(a.source))") }
    public static func < (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "<", b) }
    public static func <= (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "<=", b) }
    public static func > (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, ">", b) }
    public static func >= (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, ">=", b) }
    public static func == (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "==", b) }
    public static func != (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "!=", b) }
    public static func && (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "&&", b) }
    public static func || (a: TemplateExpr, b: TemplateExpr) -> TemplateExpr { binary(a, "||", b) }
    /// `c ? a : b`.
    public func select(_ a: TemplateExpr, _ b: TemplateExpr) -> TemplateExpr {
        TemplateExpr(source: "(\(source) ? \(a.source) : \(b.source))")
    }
}

// The language's functions, over template numbers.
public func sin(_ x: TemplateExpr) -> TemplateExpr { .call("sin", [x]) }
public func cos(_ x: TemplateExpr) -> TemplateExpr { .call("cos", [x]) }
public func tan(_ x: TemplateExpr) -> TemplateExpr { .call("tan", [x]) }
public func asin(_ x: TemplateExpr) -> TemplateExpr { .call("asin", [x]) }
public func acos(_ x: TemplateExpr) -> TemplateExpr { .call("acos", [x]) }
public func atan(_ x: TemplateExpr) -> TemplateExpr { .call("atan", [x]) }
public func sqrt(_ x: TemplateExpr) -> TemplateExpr { .call("sqrt", [x]) }
public func abs(_ x: TemplateExpr) -> TemplateExpr { .call("abs", [x]) }
public func floor(_ x: TemplateExpr) -> TemplateExpr { .call("floor", [x]) }
public func ceil(_ x: TemplateExpr) -> TemplateExpr { .call("ceil", [x]) }
public func round(_ x: TemplateExpr) -> TemplateExpr { .call("round", [x]) }
public func pow(_ x: TemplateExpr, _ y: TemplateExpr) -> TemplateExpr { .call("pow", [x, y]) }
public func atan2(_ y: TemplateExpr, _ x: TemplateExpr) -> TemplateExpr { .call("atan2", [y, x]) }
public func hypot(_ x: TemplateExpr, _ y: TemplateExpr) -> TemplateExpr { .call("hypot", [x, y]) }
public func min(_ a: TemplateExpr, _ b: TemplateExpr, _ rest: TemplateExpr...) -> TemplateExpr { .call("min", [a, b] + rest) }
public func max(_ a: TemplateExpr, _ b: TemplateExpr, _ rest: TemplateExpr...) -> TemplateExpr { .call("max", [a, b] + rest) }
public func clamp(_ x: TemplateExpr, _ lo: TemplateExpr, _ hi: TemplateExpr) -> TemplateExpr { .call("clamp", [x, lo, hi]) }
public func lerp(_ a: TemplateExpr, _ b: TemplateExpr, _ t: TemplateExpr) -> TemplateExpr { .call("lerp", [a, b, t]) }

/// A point of template numbers.
public struct TemplatePoint: Sendable {
    public var x: TemplateExpr
    public var y: TemplateExpr
    public init(_ x: TemplateExpr, _ y: TemplateExpr) { self.x = x; self.y = y }
    public init(x: TemplateExpr, y: TemplateExpr) { self.x = x; self.y = y }
}

/// The layer's bounds inside a template (`rect.minX` … `rect.height`).
public struct TemplateRect: Sendable {
    public let minX = TemplateExpr(source: "rect.minX"), midX = TemplateExpr(source: "rect.midX")
    public let maxX = TemplateExpr(source: "rect.maxX"), minY = TemplateExpr(source: "rect.minY")
    public let midY = TemplateExpr(source: "rect.midY"), maxY = TemplateExpr(source: "rect.maxY")
    public let width = TemplateExpr(source: "rect.width"), height = TemplateExpr(source: "rect.height")
    public init() {}
}

/// Records a template's statements, as `Path`'s building methods do for a fixed path.
/// `let`, loops and conditions are methods: `value(_:)` names a value once, `forEach`
/// loops over `lower ..< upper`, `if(_:then:else:)` branches.
public final class TemplatePath {
    public private(set) var lines: [String] = []
    private var indent = ""
    private var names = 0

    public init() {}

    /// Builds a template with `body`.
    public convenience init(_ body: (TemplatePath) -> Void) { self.init(); body(self) }

    /// The template's source.
    public var source: String { lines.joined(separator: "\n") }

    private func emit(_ s: String) { lines.append(indent + s) }
    private func fresh(_ prefix: String) -> String { names += 1; return "\(prefix)\(names)" }
    private func block(_ head: String, _ body: () -> Void) {
        emit(head + " {")
        let saved = indent
        indent += "  "
        body()
        indent = saved
        emit("}")
    }

    public func move(to p: TemplatePoint) { emit("move(\(p.x), \(p.y))") }
    public func addLine(to p: TemplatePoint) { emit("line(\(p.x), \(p.y))") }
    public func addQuadCurve(to p: TemplatePoint, control c: TemplatePoint) { emit("quad(\(c.x), \(c.y), \(p.x), \(p.y))") }
    public func addCurve(to p: TemplatePoint, control1 a: TemplatePoint, control2 b: TemplatePoint) {
        emit("curve(\(a.x), \(a.y), \(b.x), \(b.y), \(p.x), \(p.y))")
    }
    /// Angles from +x towards +y (radians); `clockwise` true: increasing angles, as `Path.addArc`.
    public func addArc(center c: TemplatePoint, radius r: TemplateExpr, startAngle a: TemplateExpr, endAngle b: TemplateExpr,
                       clockwise: Bool = true) {
        emit("arc(\(c.x), \(c.y), \(r), \(a), \(b), \(clockwise ? 1 : 0))")
    }
    public func closeSubpath() { emit("close()") }
    public func addRect(x: TemplateExpr, y: TemplateExpr, width: TemplateExpr, height: TemplateExpr) {
        emit("rect(\(x), \(y), \(width), \(height))")
    }
    public func addEllipse(x: TemplateExpr, y: TemplateExpr, width: TemplateExpr, height: TemplateExpr) {
        emit("ellipse(\(x), \(y), \(width), \(height))")
    }
    public func addRoundedRect(x: TemplateExpr, y: TemplateExpr, width: TemplateExpr, height: TemplateExpr,
                               radius: TemplateExpr) {
        emit("roundedRect(\(x), \(y), \(width), \(height), \(radius))")
    }

    /// `let vN = value`: computed once where it is written, then read by name.
    public func value(_ value: TemplateExpr) -> TemplateExpr {
        let name = fresh("v")
        emit("let \(name) = \(value)")
        return TemplateExpr(source: name)
    }

    /// `for iN in lower ..< upper { body(iN) }`.
    public func forEach(_ lower: TemplateExpr, _ upper: TemplateExpr, _ body: (TemplateExpr) -> Void) {
        let name = fresh("i")
        block("for \(name) in \(lower) ..< \(upper)") { body(TemplateExpr(source: name)) }
    }

    /// `if condition { then } else { otherwise }` (truth: non-zero).
    public func `if`(_ condition: TemplateExpr, then: () -> Void, else otherwise: (() -> Void)? = nil) {
        emit("if \(condition) {")
        let saved = indent
        indent += "  "
        then()
        indent = saved
        if let otherwise {
            emit("} else {")
            indent += "  "
            otherwise()
            indent = saved
        }
        emit("}")
    }
}

/// A shape the compositor computes every frame from the layer's bounds and custom
/// properties: `path(in:)` describes it with template numbers, as a SwiftUI `Shape` does
/// with a `CGRect`. Set it with `ShapeLayer.setPathTemplate(_:)`.
public protocol TemplateShape {
    func path(in rect: TemplateRect) -> TemplatePath
}

extension TemplateShape {
    /// The template source of this shape.
    public var templateSource: String { path(in: TemplateRect()).source }
}

extension ShapeLayer {
    /// Sets `path` to the shape's template (the layer's custom properties that it reads must be
    /// set before it). Checked here as the daemon will check it.
    public func setPathTemplate(_ shape: some TemplateShape) throws(PropertyError) {
        try setValue(.template(shape.templateSource), forKeyPath: "path")
    }
}

extension Layer {
    /// Binds the number at `keyPath` to an expression over `t` and presentation values
    /// (`self.KEYPATH`, `NAME.KEYPATH` with NAME a key of `layers`), under an animation `key`.
    /// Checked in the daemon at commit (cycles included).
    public func addExpression(_ expression: String, forKeyPath keyPath: String, key: String, layers: [String: Layer] = [:]) {
        connection.stageOperation(.addExpression(id, key: key, expression: ExpressionAnimation(
            keyPath: keyPath, expression: expression, layers: layers.mapValues(\.id))))
    }

    /// The same with a built expression.
    public func addExpression(_ expression: TemplateExpr, forKeyPath keyPath: String, key: String, layers: [String: Layer] = [:]) {
        addExpression(expression.source, forKeyPath: keyPath, key: key, layers: layers)
    }
}
