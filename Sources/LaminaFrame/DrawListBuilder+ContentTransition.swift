import LaminaGeometry
import LaminaModel
import LaminaTree

extension DrawListBuilder {
    /// A layer in a CATransition (LayerTree+ContentTransition.swift) at this build's `time`,
    /// progress p: one group at `opacity` holding, clipped to the layer's bounds (a rectangle,
    /// in its plane), its old rendering — the ghost copy of its subtree, drawn in the layer's
    /// plane as the layer itself is — and its new one (the layer's own items and sublayers),
    /// each moved in the bounds space and composited as its own group as
    /// `ContentTransition.look` says: a cross-fade's new part blends plusLighter over the old
    /// at p (so the group holds old·(1 − p) + new·p exactly). Returns false when the layer is
    /// to be drawn as usual (the transition over, or groups nested too deep).
    @inline(never)
    mutating func visitContentTransition(_ slot: Int, _ record: Int, _ state: ContentTransitionState, _ store: NodeStore,
                                         _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                                         clip: Int, drawShadow: Bool) -> Bool {
        let progress = state.progress(at: time)
        guard progress < 1, openGroups + 3 <= Self.maxNestedGroups else { return false }
        // Every frame differs: never patched.
        sawEffects = true
        let address = nodes.baseAddress! + slot
        let bounds = address.pointee.properties.bounds
        let look = state.transition.look(progress: progress, width: bounds.width, height: bounds.height)
        let inner = emitClip(ownClip(bounds, CornerRadii(0), toPixels: toPixels, parent: clip))
        let outer = items.count
        emit(Self.groupMarker(opacity: opacity, count: 0))
        openGroups += 1
        for old in look.oldOnTop ? [false, true] : [true, false] {
            let part = old ? look.old : look.new
            guard part.opacity > 0 else { continue }
            let space = Transform3D.translation(part.dx, part.dy, 0).concatenating(toPixels)
            let ghostSlot = state.ghost.flatMap { store.slot(of: $0) }
            if old && ghostSlot == nil { continue }
            let marker = items.count
            emit(Self.groupMarker(opacity: part.opacity, count: 0))
            openGroups += 1
            if let ghostSlot, old {
                let ghostRecord = records.open(slot: ghostSlot, childIndex: 0, item: items.count, clip: clipOffset + clips.count)
                visitLayer(ghostSlot, ghostRecord, store, nodes, toPixels: space, opacity: 1, clip: inner, drawShadow: drawShadow)
                records.close(ghostRecord, item: items.count, clip: clipOffset + clips.count)
            } else {
                visitLayer(slot, record, store, nodes, toPixels: space, opacity: 1, clip: inner, drawShadow: drawShadow,
                           inTransition: true)
            }
            openGroups -= 1
            let count = items.count - marker - 1
            setKind(part.adds ? .blend(mode: .plusLighter, opacity: part.opacity, count: count)
                              : .group(opacity: part.opacity, count: count), at: marker)
        }
        openGroups -= 1
        setKind(.group(opacity: opacity, count: items.count - outer - 1), at: outer)
        return true
    }
}
