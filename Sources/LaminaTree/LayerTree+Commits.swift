import LaminaModel

// The one-tree validator: tools, scene evaluation (LaminaSceneTree) and tests apply `Commit`s
// to a `LayerTree` directly, and it validates them against a `ModelTree` kept alongside. The
// daemon never does this: its model tree (server thread) validates, and the render tree
// applies packets (`apply(_ packet:at:)`). Kept on `LayerTree` rather than in a type of its
// own while tests of the retained draw-list work call it (LaminaTree README, "Left out").
extension LayerTree {
    /// The layers a client owns (its container excluded), as the tree's own model counts them.
    public func layerCount(client: UInt32) -> Int { validator?.model.layerCount(client: client) ?? 0 }

    /// The model tree kept alongside a tree that takes commits, behind a reference so that
    /// presentation copies share it (copied on write).
    final class Validator: @unchecked Sendable {
        // @unchecked: mutated only through a uniquely referenced box (`LayerTree.apply`).
        var model: ModelTree
        init(_ model: ModelTree) { self.model = model }
    }

    /// Validates a commit against this tree's own model tree, then applies its packet at
    /// compositor time `time` (the time 0 of the animations it adds, and when implicit
    /// animations start from the presentation value).
    /// - Throws: `CommitError` naming the first failing operation; the tree is then unchanged.
    public mutating func apply(_ commit: Commit, at time: Double = 0) throws(CommitError) {
        guard var box = validator else {
            preconditionFailure("a tree fed packets cannot validate commits itself")
        }
        validator = nil
        if !isKnownUniquelyReferenced(&box) { box = Validator(box.model) }
        defer { validator = box }
        let packet = try box.model.validate(commit, at: time)
        applyPacket(packet, at: time)
    }
}
