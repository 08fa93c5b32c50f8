import LaminaGeometry
import LaminaModel

/// The presentation tree of one frame, published for queries (presentation values, hit
/// tests) on other threads: immutable once published.
///
/// The render side makes one per frame through a `SnapshotMaker`, which patches a snapshot in
/// place only while nothing else holds it, so readers never see one change and a frame makes
/// no copy of the tree in the steady state (two snapshots alternate).
public final class PresentationSnapshot: @unchecked Sendable {
    // @unchecked: the fields change only in `SnapshotMaker.make`, while the maker holds the
    // only reference (before the snapshot is published, or after every reader let it go).
    public fileprivate(set) var tree: LayerTree
    /// The compositor time the presentation tree was evaluated at (the frame's time).
    public fileprivate(set) var time: Double
    /// The newest commit packet (`CommitPacket.sequence`) the tree includes.
    public fileprivate(set) var sequence: UInt64
    /// The frame's number (1 for the first snapshot a maker made).
    public fileprivate(set) var frame: UInt64

    /// A snapshot of `tree` as it stands (tests and tools; the render side uses `SnapshotMaker`).
    public init(tree: LayerTree, time: Double, sequence: UInt64, frame: UInt64 = 0) {
        self.tree = tree; self.time = time; self.sequence = sequence; self.frame = frame
    }

    /// The presentation value of a layer at a key path, or nil for an unknown layer or key path.
    public func value(of id: LayerID, keyPath: String) -> PropertyValue? {
        tree[id]?.properties.value(forKeyPath: keyPath)
    }

    /// The topmost layer under a canvas point (`LayerTree.hitTest(_:from:)`).
    public func hitTest(_ point: Point) -> LayerID? { tree.hitTest(point) }

    /// Whether this snapshot answers a query that must see packet `sequence` and the clock at
    /// `time` (or later).
    public func covers(sequence: UInt64, time: Double) -> Bool {
        self.sequence >= sequence && self.time >= time
    }
}

/// Makes a render tree's presentation snapshots, frame after frame (render side only).
///
/// It keeps the snapshot it made last and the one before; a frame reuses the older one when
/// no reader holds it any more (patched in place: `LayerTree.updatePresentation`), and makes
/// a new one otherwise. So the tuned in-place patch stays allocation-free in the steady state.
/// The one before is kept only while it is of the render tree's model version: after a
/// change of the model it is let go, so that it does not keep the old version's nodes.
public struct SnapshotMaker {
    private var current: PresentationSnapshot?
    private var spare: PresentationSnapshot?
    private var frames: UInt64 = 0

    public init() {}

    /// The snapshot made last, if any.
    public var latest: PresentationSnapshot? { current }

    /// The presentation tree of `tree` at compositor time `t`, as a new snapshot.
    public mutating func make(from tree: LayerTree, at t: Double) -> PresentationSnapshot {
        frames += 1
        var box = spare
        spare = nil
        if box == nil || !isKnownUniquelyReferenced(&box!) {
            // A reader still holds it (or there is none yet): start from the newest tree.
            box = PresentationSnapshot(tree: current?.tree ?? tree, time: t, sequence: tree.sequence)
        }
        let snapshot = box!
        tree.updatePresentation(&snapshot.tree, at: t)
        snapshot.time = t
        snapshot.sequence = tree.sequence
        snapshot.frame = frames
        spare = current
        current = snapshot
        // A spare made from an older model version holds that version's nodes: applying the
        // packets copied the render tree's storage on write, so the spare keeps a copy of
        // every layer that no frame will patch (the next frame would replace its tree with
        // the render tree's anyway). Let it go: an idle daemon keeps the render tree's nodes
        // once, shared with the current snapshot, rather than twice.
        if let old = spare, old.tree.version != tree.version || old.tree.count != tree.count { spare = nil }
        return snapshot
    }
}
