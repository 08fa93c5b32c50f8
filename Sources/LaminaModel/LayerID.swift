/// A layer's identity in the daemon: the owning client's id and the client's own id for it.
///
/// Clients assign their own 32-bit layer ids (so building a tree needs no round trips); the
/// daemon qualifies them with the client id, so one client can never name another's layer.
/// Local id 0 is reserved: it names the client's root container, under which the client's
/// top-level layers hang. Client 0 is the compositor itself; `LayerID.root` is the root layer.
public struct LayerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var client: UInt32
    public var local: UInt32

    @inlinable public init(client: UInt32, local: UInt32) { self.client = client; self.local = local }

    // Written out (as the synthesized ones: both fields, in declaration order) so that they
    // inline across the module boundary: the trees and the draw-list builder compare and
    // hash ids in their per-frame loops.
    @inlinable public static func == (a: LayerID, b: LayerID) -> Bool { a.client == b.client && a.local == b.local }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(client); hasher.combine(local) }

    /// The root layer of the whole canvas.
    public static let root = LayerID(client: 0, local: 0)
    /// The container of one client's top-level layers (local id 0 of that client).
    public static func clientRoot(_ client: UInt32) -> LayerID { LayerID(client: client, local: 0) }

    @inlinable public var isClientRoot: Bool { local == 0 }
    public static func < (a: LayerID, b: LayerID) -> Bool { (a.client, a.local) < (b.client, b.local) }
    public var description: String { "\(client):\(local)" }
}

/// The class of a layer, as Core Animation's `CALayer`, `CAShapeLayer`, `CAGradientLayer`,
/// `CATextLayer`.
public enum LayerKind: UInt8, Sendable, CaseIterable {
    case layer = 0
    case shape = 1
    case gradient = 2
    /// `CATextLayer`.
    case text = 3
    /// A client's pixels through shared memory (docs/protocol.md, Surfaces): a plain layer whose
    /// `contents` the daemon sets to the buffer a commit attaches.
    case surface = 4
    /// `CAReplicatorLayer`: its sublayers are drawn `instanceCount` times.
    case replicator = 5
    /// `CAEmitterLayer`: particles of its `emitterCells`, simulated when the frame is drawn.
    case emitter = 6
    /// `CATiledLayer`: its `contents` image drawn through tiles made off the render thread,
    /// only where and at the level of detail they are seen (7: 6 is the emitter's).
    case tiled = 7

    public var name: String {
        switch self {
        case .layer: "layer"; case .shape: "shape"; case .gradient: "gradient"; case .text: "text"
        case .surface: "surface"; case .replicator: "replicator"; case .emitter: "emitter"; case .tiled: "tiled"
        }
    }
}
