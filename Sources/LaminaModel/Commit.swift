import LaminaExpression
import LaminaAnimation
import LaminaGeometry

/// One change inside a commit. Layer ids are the client's own (local) ids; local id 0 names
/// the client's root container.
public enum LayerChange: Hashable, Sendable {
    case create(UInt32, LayerKind)
    case delete(UInt32)
    case set(UInt32, keyPath: String, value: PropertyValue)
    /// Appends `child` to `parent`'s sublayers (moving it if it had a superlayer).
    case addSublayer(parent: UInt32, child: UInt32)
    /// Inserts `child` at `index` in `parent`'s sublayers (clamped to the count, as CALayer).
    case insertSublayer(parent: UInt32, child: UInt32, index: UInt32)
    case removeFromSuperlayer(UInt32)
    /// The transaction settings for the operations that follow in this commit (each commit
    /// starts with `TransactionSettings.default`).
    case setTransaction(TransactionSettings)
    /// Adds an explicit animation under `key`, replacing the layer's animation with that key
    /// (an empty key never replaces: an anonymous animation). Its time 0 is the commit's frame.
    case addAnimation(UInt32, key: String, animation: Animation)
    /// Removes the layer's animation with `key` (nothing when there is none, as CA).
    case removeAnimation(UInt32, key: String)
    case removeAllAnimations(UInt32)
    /// Adds an expression animation under `key` (ExpressionAnimation.swift), replacing the
    /// layer's animation or expression with that key; removed as animations are.
    case addExpression(UInt32, key: String, expression: ExpressionAnimation)
    /// Declares a transaction completion: `transactionCompleted(id)` fires once every animation
    /// started by a change whose settings list `id` has ended or been removed (at once if none).
    case completion(UInt32)
    /// How the layer's insertion (`addSublayer`/`insertSublayer`) and removal
    /// (`removeFromSuperlayer`) later in this commit look (LayerTransition.swift): run on the
    /// render thread with the transaction's duration and timing.
    case setTransitions(UInt32, LayerTransitions)
    /// Matched geometry (LayerTree+Match.swift): when the commit has applied, `to` starts at
    /// `from`'s presentation frame and corner radius in the canvas and animates to its own,
    /// `from` animates to `to`'s frame, and the two cross-fade.
    case match(from: UInt32, to: UInt32)
    /// CATransition (ContentTransition.swift): everything this commit changes inside the layer
    /// is shown passing from its old rendering (as presented before the commit) to the new.
    case transition(UInt32, ContentTransition)

    /// The operation with every layer id moved up by `base` (a `mask` layer's too), and local id
    /// 0, the client's root container, named `top`: the operations of one build (a scene's, a
    /// Lottie file's) placed among a program's own layers.
    public func renumbered(by base: UInt32, top: UInt32 = 0) -> LayerChange {
        func id(_ x: UInt32) -> UInt32 { x == 0 ? top : x + base }
        switch self {
        case .create(let x, let kind): return .create(id(x), kind)
        case .delete(let x): return .delete(id(x))
        case .set(let x, "mask", .number(let m)) where m > 0:
            return .set(id(x), keyPath: "mask", value: .number(m + Double(base)))
        case .set(let x, let key, let value): return .set(id(x), keyPath: key, value: value)
        case .addSublayer(let p, let c): return .addSublayer(parent: id(p), child: id(c))
        case .insertSublayer(let p, let c, let i): return .insertSublayer(parent: id(p), child: id(c), index: i)
        case .removeFromSuperlayer(let x): return .removeFromSuperlayer(id(x))
        case .setTransaction, .completion: return self
        case .addAnimation(let x, let key, let a): return .addAnimation(id(x), key: key, animation: a)
        case .removeAnimation(let x, let key): return .removeAnimation(id(x), key: key)
        case .removeAllAnimations(let x): return .removeAllAnimations(id(x))
        case .addExpression(let x, let key, let e): return .addExpression(id(x), key: key, expression: e)
        case .setTransitions(let x, let t): return .setTransitions(id(x), t)
        case .match(let f, let t): return .match(from: id(f), to: id(t))
        case .transition(let x, let t): return .transition(id(x), t)
        }
    }

    /// The operation's name, for error messages.
    public var name: String {
        switch self {
        case .create: "create"
        case .delete: "delete"
        case .set: "set"
        case .addSublayer: "addSublayer"
        case .insertSublayer: "insertSublayer"
        case .removeFromSuperlayer: "removeFromSuperlayer"
        case .setTransaction: "setTransaction"
        case .addAnimation: "addAnimation"
        case .removeAnimation: "removeAnimation"
        case .removeAllAnimations: "removeAllAnimations"
        case .addExpression: "addExpression"
        case .completion: "completion"
        case .setTransitions: "setTransitions"
        case .match: "match"
        case .transition: "transition"
        }
    }
}

/// A client's batch of changes, validated whole and applied whole (never half).
/// Built on the server thread, then handed to the render thread as an immutable packet.
public struct Commit: Hashable, Sendable {
    public enum Content: Hashable, Sendable {
        /// A client's operations, in order.
        case operations([LayerChange])
        /// The client is connected: create its root container under the root layer.
        case connect
        /// The client disconnected: its layers are removed, nothing else is affected.
        case disconnect
    }

    public var client: UInt32
    public var content: Content
    /// The request ids of the operations (parallel to `operations`), for error reports.
    public var requestIDs: [UInt32]
    /// Compositor time of the commit (CA: an animation's time 0 is its commit's time); nil:
    /// the time of the frame that applies it.
    public var time: Double? = nil
    /// Bytes the transaction took on the wire: its staged requests' messages and the commit's,
    /// headers included (0 for a commit not made from messages). For frame traces.
    public var wireBytes = 0
    /// The transaction's surface requests, in order, and their request ids (SurfaceOperation.swift).
    public var surfaceOperations: [SurfaceOperation] = []
    public var surfaceRequestIDs: [UInt32] = []

    public init(client: UInt32, content: Content, requestIDs: [UInt32] = [], wireBytes: Int = 0) {
        self.client = client; self.content = content; self.requestIDs = requestIDs; self.wireBytes = wireBytes
    }
}

/// Why a commit was rejected. Nothing of a rejected commit is applied.
public struct CommitError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: UInt16, Sendable {
        case unknownLayer = 6
        case duplicateLayer = 7
        case invalidProperty = 8
        case invalidValue = 9
        case invalidHierarchy = 10
        case limitExceeded = 11
        case invalidAnimation = 16
    }
    public var code: Code
    /// Index of the failing operation in the commit.
    public var index: Int
    public var message: String
    /// For a rejected expression animation that would close a dependency cycle: the cycle,
    /// its layers named by their local ids ("2"), so that a caller with its own names for the
    /// layers (a scene file) can say it in them.
    public var dependencyCycle: DependencyCycle? = nil

    public init(code: Code, index: Int, message: String) {
        self.code = code; self.index = index; self.message = message
    }
    public var description: String { "operation \(index): \(message)" }
}
