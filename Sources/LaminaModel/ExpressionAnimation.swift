import LaminaExpression

/// An expression animation as a client describes it (`{"type": "expression", "keyPath": K,
/// "expression": "…"}`): the number at `keyPath` is, every frame, the value of `expression`
/// over `t` (compositor time) and presentation values of the client's layers
/// (`self.KEYPATH`, `NAME.KEYPATH`).
///
/// `layers` says which layer each `NAME` is: a name → the client's local layer id. Scene
/// files fill it from the scene's layer names; protocol clients send it with the animation.
public struct ExpressionAnimation: Hashable, Sendable {
    public var keyPath: String
    public var expression: String
    public var layers: [String: UInt32]

    public init(keyPath: String, expression: String, layers: [String: UInt32] = [:]) {
        self.keyPath = keyPath; self.expression = expression; self.layers = layers
    }
}
