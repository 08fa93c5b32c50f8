import LaminaAnimation
import LaminaImage
import LaminaModel

/// A commit as the model tree validated it: every key path resolved, every value checked,
/// every animation compiled, every layer id qualified. Immutable; the render tree applies it
/// (`LayerTree.apply(_:at:)`) without parsing a string or failing.
///
/// Made on the server thread by `ModelTree.validate(_:at:)`, handed to the render thread.
public struct CommitPacket: Sendable {
    public enum Content: Sendable {
        /// The client is connected: its root container joins the root layer.
        case connect
        /// The client disconnected: its layers go.
        case disconnect
        /// The commit's changes, in order.
        case changes([Change])
    }

    /// One resolved change. Each is exactly what happened to the model tree, so the render tree
    /// can apply it without checks.
    public enum Change: Sendable {
        case create(LayerID, LayerKind)
        /// Detaches the layer, orphans its sublayers (they stay alive), removes it and its animations.
        case delete(LayerID)
        /// The layer's model values after one `set` that may start an implicit animation or a
        /// `contents` cross-fade (the render tree needs the values before and after it, at
        /// its place in the order); `actions` are the properties whose change may start an
        /// implicit animation (CALayer's action keys; `frame` names two).
        case set(LayerID, LayerProperties, actions: ImplicitActions)
        /// The layer's model values after the commit's sets that start nothing (actions
        /// disabled or a zero duration, a layer created in this commit, a property with no
        /// action): one per layer, however many such sets the commit made, placed where
        /// the render tree must have them — before a later change of the layer that reads
        /// them (a `set` above), else at the end of the packet.
        case properties(LayerID, LayerProperties)
        /// Detaches `child` from its superlayer, then inserts it at `index` in `parent`'s
        /// sublayers (an index already clamped to the count after the detach).
        case insert(child: LayerID, parent: LayerID, index: Int)
        case detach(LayerID)
        /// The transaction settings for the changes that follow.
        case transaction(TransactionSettings)
        /// An explicit animation, compiled once; `slots` are its key paths resolved.
        case addAnimation(LayerID, key: String, CompiledAnimation, slots: [PropertySlot])
        case removeAnimation(LayerID, key: String)
        case removeAllAnimations(LayerID)
        /// An expression animation, compiled and resolved (replaces the key's animation).
        case addExpression(LayerID, LayerExpression)
        /// A declared transaction completion of the packet's client.
        case completion(UInt32)
        /// The layer's transitions for its insertion and removal later in this packet.
        case transitions(LayerID, LayerTransitions)
        /// Matched geometry between two layers, run when the packet has applied.
        case match(from: LayerID, to: LayerID)
        /// A CATransition on the layer (the packet's first changes): the render tree keeps its
        /// subtree as presented now and draws it passing to the new (LayerTree+ContentTransition.swift).
        case contentTransition(LayerID, ContentTransition)
    }

    /// The action keys one `set` names: at most two (`frame` sets `bounds` and `position`),
    /// stored inline (no array per change). Each is a whole property's slot (`position` for a
    /// change of `position.x`), whose `implicitKeyPath` is the animation's key.
    public struct ImplicitActions: Sendable, Equatable {
        public var first: PropertySlot?
        public var second: PropertySlot?

        public init(_ first: PropertySlot? = nil, _ second: PropertySlot? = nil) {
            self.first = first; self.second = second
        }

        /// The action keys of a change at `keyPath` (none for a property Core Animation does
        /// not animate implicitly, such as `path` or `hidden`).
        public init(keyPath: String) {
            if keyPath == "frame" { self.init(.bounds, .position); return }
            guard let key = PropertySlot(keyPath: keyPath)?.implicitKeyPath else { self.init(); return }
            self.init(PropertySlot(keyPath: key))
        }
    }

    public let client: UInt32
    /// The model tree's count of packets, from 1: the render side reports the newest one it
    /// has applied with each presentation snapshot.
    public let sequence: UInt64
    /// The commit's compositor time (an animation's time 0); nil: the applying frame's time.
    public let time: Double?
    public let content: Content

    /// The commit's size on the wire (`Commit.wireBytes`), for frame traces.
    public var wireBytes = 0
    /// Surface layers' new pixels (ServerCore+Surfaces), applied with the packet's changes.
    public var surfaces: [SurfaceUpdate] = []
    /// Committed while Reduce Motion was on: its matched geometry only cross-fades, neither
    /// layer moved to the other's frame (`LayerTree.startMatch`).
    public var reducedMotion = false

    public init(client: UInt32, sequence: UInt64, time: Double?, content: Content, wireBytes: Int = 0) {
        self.client = client; self.sequence = sequence; self.time = time; self.content = content
        self.wireBytes = wireBytes
    }
}
