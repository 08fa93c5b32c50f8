import LaminaAnimation
import LaminaModel

/// An animation attached to a layer: explicit (added under a key) or implicit (a property
/// change's default action, keyed by the property's key path, as CALayer does).
public struct LayerAnimation: Sendable, Equatable {
    public var key: String
    public var compiled: CompiledAnimation
    /// The slot of each of `compiled.keyPaths`.
    public var slots: [PropertySlot]
    /// Its time 0 in its layer's local time (`LayerTree.layerTime(of:)`; compositor time for
    /// a layer under default timing): the layer's local time when it was added.
    public var beginTime: Double
    public var isImplicit: Bool
    /// Completions waiting for this animation.
    public var completionIDs: [UInt32]
    /// Set once it has ended (reported, counted against its completions).
    public var hasEnded = false
    /// The commit that added it (`LayerTree.ApplyContext.stamp`): while that commit applies,
    /// `beginTime` is compositor time, turned into local time at its end.
    var stamp: UInt64 = 0

    /// Its end in its layer's local time (+∞ when it never ends).
    public var localEndTime: Double { beginTime + compiled.endTime }

    public static func == (a: LayerAnimation, b: LayerAnimation) -> Bool {
        a.key == b.key && a.slots == b.slots && a.beginTime == b.beginTime && a.isImplicit == b.isImplicit
            && a.completionIDs == b.completionIDs && a.hasEnded == b.hasEnded
    }
}

/// Something the tree reports to a layer's owner (the render thread forwards these).
public enum TreeEvent: Hashable, Sendable {
    /// An explicit animation was added (at the frame its commit applied).
    case animationStarted(LayerID, key: String)
    /// An explicit animation ended (`finished`) or was removed or replaced before its end.
    case animationStopped(LayerID, key: String, finished: Bool)
    /// Every animation the transaction started has ended or been removed.
    case transactionCompleted(client: UInt32, id: UInt32)

    public var client: UInt32 {
        switch self {
        case .animationStarted(let id, _), .animationStopped(let id, _, _): id.client
        case .transactionCompleted(let c, _): c
        }
    }
}
