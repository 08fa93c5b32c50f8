import LaminaExpression
import LaminaModel

/// An expression animation validated where commits are validated: compiled once, its
/// target and every reference resolved to a layer and a number-valued slot.
public struct LayerExpression: Sendable, Equatable {
    /// A value the expression reads: a layer (which may later be deleted: it then reads NaN)
    /// and a number-valued key path of it.
    public struct Reference: Sendable, Equatable {
        public var layer: LayerID
        public var keyPath: String
        public var slot: PropertySlot
    }

    /// The compiled form behind a reference (`AnimationExpression` is not `Equatable`).
    public final class Compiled: Sendable {
        public let expression: AnimationExpression
        init(_ expression: AnimationExpression) { self.expression = expression }
    }

    /// The animation key (shared with the layer's other animations: adding either kind under a
    /// key replaces the other).
    public var key: String
    public var animation: ExpressionAnimation
    /// The slot the result is written to (a number: `opacity`, `position.x`, `custom.NAME`, …).
    public var slot: PropertySlot
    /// One per `compiled.expression.references`, in its order.
    public var references: [Reference]
    public var compiled: Compiled

    public static func == (a: LayerExpression, b: LayerExpression) -> Bool {
        a.key == b.key && a.animation == b.animation && a.slot == b.slot && a.references == b.references
    }
}

extension LayerExpression {
    /// What this expression drives, as `ExpressionOrder` keys it (layers by their id).
    func orderKey(owner: LayerID) -> ExpressionKey { ExpressionKey(layer: owner.description, keyPath: animation.keyPath) }

    /// What it reads, keyed the same way.
    var orderReferences: [ExpressionKey] {
        references.map { ExpressionKey(layer: $0.layer.description, keyPath: $0.keyPath) }
    }

    /// The evaluation order of expressions (each after those whose keys it reads).
    /// - Throws: `DependencyCycle` with its keys as `ExpressionKey`s of layer ids.
    static func order(_ list: [(LayerID, LayerExpression)]) throws(DependencyCycle) -> [Int] {
        try ExpressionOrder.evaluationOrder(keys: list.map { $0.1.orderKey(owner: $0.0) },
                                            references: list.map { $0.1.orderReferences })
    }
}
