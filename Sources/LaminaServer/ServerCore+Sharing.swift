import LaminaTree

/// An idle daemon keeps each layer's node once: the model tree (this thread's) shares the
/// node storage of the render side's newest snapshot (`ModelTree.shareNodes(with:)`).
///
/// Only after the model has stayed unchanged for `nodeSharingDelay` seconds: the first commit
/// after sharing copies the model's nodes once (50,000 layers: about 8 MB), which must not
/// happen for every commit of a stream. While the render side has not caught up or something
/// animates, it is tried again after `nodeSharingRetry` seconds, then twice, four and eight
/// times that (a looping animation wakes the server thread rarely); a model whose nodes
/// differ from the snapshot's is not tried again until it changes.
extension ServerCore {
    /// Seconds without a commit before the model's nodes are shared.
    public static let nodeSharingDelay = 0.5
    /// Seconds before the first try again while the render side is busy (then doubled, up to
    /// eight times).
    public static let nodeSharingRetry = 1.0

    /// The model's state as the sharing last saw it.
    struct NodeSharing {
        /// `ModelTree.revision` when last seen.
        var revision: UInt64 = 0
        /// When to try next (seconds of the host's monotonic clock); nil: not until the
        /// model changes.
        var due: Double? = nil
        /// Tries since the model last changed.
        var tries = 0
    }

    /// When `shareIdleNodes` has something to do next (seconds of the clock it is given), or
    /// nil while that waits for a change of the model: the host wakes then.
    public var nodeSharingDue: Double? { nodeSharing.due }

    /// Shares the model's node storage with `snapshot`'s tree (the newest the render side
    /// published) once the model has stayed unchanged for `nodeSharingDelay` seconds, the
    /// snapshot includes every packet and nothing animates. `now` is the host's monotonic
    /// clock in seconds (not the compositor clock, which may be manual). Call it whenever
    /// the host wakes, and wake it at `nodeSharingDue`.
    /// - Returns: whether the model let go of nodes of its own (the host may hand the freed
    ///   heap back to the system).
    public mutating func shareIdleNodes(at now: Double, with snapshot: PresentationSnapshot?) -> Bool {
        if model.revision != nodeSharing.revision {
            nodeSharing = NodeSharing(revision: model.revision, due: now + Self.nodeSharingDelay)
            return false
        }
        guard let due = nodeSharing.due, now >= due else { return false }
        guard let tree = snapshot?.tree, tree.sequence == model.sequence, tree.presentsModelValues else {
            // The render side is busy: later.
            nodeSharing.due = now + Self.nodeSharingRetry * Double(1 << min(nodeSharing.tries, 3))
            nodeSharing.tries += 1
            return false
        }
        nodeSharing.due = nil
        if model.nodes.sharesStorage(with: tree.nodes) { return false }
        return model.shareNodes(with: tree)
    }
}
