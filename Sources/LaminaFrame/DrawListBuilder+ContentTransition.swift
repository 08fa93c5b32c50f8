import LaminaGeometry
import LaminaModel
import LaminaTree

extension DrawListBuilder {
    /// A layer in a CATransition (LayerTree+ContentTransition.swift) at its local time (this
    /// build's `time` through its and its ancestors' timing), progress p: one group at
    /// `opacity` holding — clipped to the layer's rounded bounds (its corner radius and masked
    /// corners, in its plane) when a rendering moves (moveIn, push, reveal; a fade is not
    /// clipped, so shadows and whatever reaches past the bounds cross-fade whole) — its old
    /// rendering — the ghost copy of its subtree, drawn in the layer's plane as the layer is — and its new one (the layer's own items and sublayers),
    /// each moved in the bounds space and composited as its own group as
    /// `ContentTransition.look` says: a cross-fade's new part blends plusLighter over the old
    /// at p (so the group holds old·(1 − p) + new·p exactly). In a moving transition the
    /// layer's own shadow does not move: it is drawn once, as the new state has it, under
    /// both renderings, before the group and outside the clip. Returns false when the layer is
    /// to be drawn as usual (the transition over, or groups nested too deep).
    @inline(never)
    mutating func visitContentTransition(_ slot: Int, _ record: Int, _ state: ContentTransitionState, _ store: NodeStore,
                                         _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                                         clip: Int, drawShadow: Bool) -> Bool {
        let progress = state.progress(at: store.layerTime(of: nodes[slot].id).local(time))
        guard progress < 1, openGroups + 3 <= Self.maxNestedGroups else { return false }
        // Every frame differs: never patched.
        sawEffects = true
        let address = nodes.baseAddress! + slot
        let p = address.pointee.properties
        let bounds = p.bounds
        let look = state.transition.look(progress: progress, width: bounds.width, height: bounds.height)
        let moves = look.old.dx != 0 || look.old.dy != 0 || look.new.dx != 0 || look.new.dy != 0
        let radii = Self.radii(p.cornerRadius, p.maskedCorners)
        let inner = moves ? emitClip(ownClip(bounds, radii, toPixels: toPixels, parent: clip)) : clip
        var drawShadow = drawShadow
        if moves, drawShadow, p.shadowOpacity > 0, !p.masksToBounds, let color = p.shadowColor, color.alpha > 0 {
            appendShadow(slot, record, store, nodes, color: color, toPixels: toPixels, opacity: opacity, radii: radii,
                         clip: clip)
            drawShadow = false
        }
        // A moving transition's groups carry its clip: all they draw lies within it, so the
        // damage tracker bounds them by it (`DamageTracker.add`), not by where the moved
        // renderings reach.
        let groupClip = moves ? inner : -1
        let outer = items.count
        emit(Self.groupMarker(opacity: opacity, count: 0, clip: groupClip))
        openGroups += 1
        for old in look.oldOnTop ? [false, true] : [true, false] {
            let part = old ? look.old : look.new
            guard part.opacity > 0 else { continue }
            let ghostSlot = state.ghost.flatMap { store.slot(of: $0) }
            if old && ghostSlot == nil { continue }
            var space = toPixels
            if old, let ghostSlot { space = Self.ghostPlacement(nodes[ghostSlot].properties, p).concatenating(toPixels) }
            space = Transform3D.translation(part.dx, part.dy, 0).concatenating(space)
            let marker = items.count
            emit(Self.groupMarker(opacity: part.opacity, count: 0, clip: groupClip))
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

    /// The old rendering's bounds space → the layer's (new) bounds space: the old bounds and
    /// anchor point at the layer's position and transform, so a commit that changed the bounds
    /// (or the anchor point) leaves the old rendering where its anchor is — where it was on
    /// screen, when the layer did not move. The identity when neither changed.
    static func ghostPlacement(_ ghost: LayerProperties, _ layer: LayerProperties) -> Transform3D {
        guard ghost.bounds != layer.bounds || ghost.anchorPoint != layer.anchorPoint,
              let back = layer.transformToSuperlayer.inverted else { return .identity }
        var placed = layer
        placed.bounds = ghost.bounds
        placed.anchorPoint = ghost.anchorPoint
        return placed.transformToSuperlayer.concatenating(back)
    }
}
