
/// The model tree's nodes shared with the render tree's (issue 11: an idle daemon keeps each
/// layer's node once, not once per tree).
///
/// The model tree (server thread) and the render tree (render thread) each hold a node per
/// layer. While nothing animates they hold the same nodes: the packets carry the model's
/// values, and the model keeps its animation ledgers beside its nodes (not in them). Once the
/// daemon is idle, the model adopts the node storage of the newest presentation snapshot —
/// which shares the render tree's — so one copy-on-write buffer serves all three. The next
/// commit's first change copies it once for the model (the render tree copies its own when it
/// applies the packet, as it did before: the snapshot shares it), so the cost is one copy of
/// the nodes per idle → busy transition; the server shares only after the model has stayed
/// unchanged for a while (`ServerCore.shareIdleNodes`), never in a stream of commits.
///
/// Copy-on-write across threads is safe: each thread changes only its own variable, and a
/// change of a shared buffer copies it first (the reference counts are atomic).
extension ModelTree {
    /// Makes the model's nodes share `tree`'s storage when that holds exactly the model:
    /// `tree` (the render tree, or a presentation snapshot's tree made from it) has applied
    /// every packet this model made and nothing else changes its values (no animation,
    /// cross-fade, template or expression: `LayerTree.presentsModelValues`), and its nodes
    /// equal the model's by content. The model's own storage is then let go.
    /// - Returns: whether the storage is shared now (also when it already was).
    @discardableResult
    public mutating func shareNodes(with tree: LayerTree) -> Bool {
        if nodes.sharesStorage(with: tree.nodes) { return true }
        guard tree.sequence == sequence, tree.presentsModelValues, tree.nodes == nodes else { return false }
        nodes = tree.nodes
        return true
    }
}
