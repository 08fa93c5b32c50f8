import LaminaGeometry
import LaminaTree

/// The retained list's cheap case: a leaf layer (no sublayers, no clip of its own) that a
/// patch must redraw only because it, or a layer above it, moved or faded — its own
/// animations, if any, change only position, anchor point, zPosition, transform,
/// sublayerTransform or opacity (`LayerTree.markMotionOnlySlots`), so its bounds, colors,
/// radii, border, shadow, gradient and shape are the model's, as when its items were made.
/// Its items then differ from a full build's only in their transform and opacity, which are
/// written in place (a full item is 160 bytes and may hold a payload reference; these are 80
/// bytes of plain values), provided that
/// - it passes the culling as before (not hidden, opacity above 0, not facing away);
/// - every item is a kind whose other values do not follow the transform: a rect, an analytic
///   shadow (moved by the shadow offset), a gradient, or a shape atlas entry whose scale and
///   mesh bucket the new transform keeps, under a similarity (what the atlas itself checks).
/// Anything else — meshes (the atlas could take them now), contents (filters follow the
/// scale), glyphs, groups, blurred shadows — is re-emitted by the normal walk.
extension DrawListBuilder {
    /// Moves a leaf visit's items in place; false (the visit is then re-emitted, which
    /// overwrites whatever was written) when it is not that simple.
    mutating func moveLeaf(_ c: Int, _ record: Retained.Record, _ nodes: UnsafeBufferPointer<LayerNode>,
                           parentToPixels: Transform3D, parentOpacity: Double) -> Bool {
        let slot = Int(record.slot)
        guard record.drawn, Int(record.subtreeEnd) == c + 1, record.clipEnd == record.clipStart,
              slot < retained.motion.count, !retained.dirty[slot] || retained.motion[slot] else { return false }
        let address = nodes.baseAddress! + slot
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard address.pointee.sublayers.isEmpty, !address.pointee.id.isClientRoot, !p.isHidden else { return false }
        // As `visit` computes them (the same operations, so the same values).
        let opacity = parentOpacity * min(max(p.opacity, 0), 1)
        guard opacity > 0 else { return false }
        let toPixels = p.transformToSuperlayer.concatenating(parentToPixels)
        guard p.isDoubleSided || !Self.facesAway(toPixels) else { return false }
        let start = Int(record.itemStart), end = Int(record.itemEnd)
        guard end <= items.count else { return false }
        var shapeScale = 0.0
        var shadowToPixels: Transform3D?
        let atlas = shapeAtlas
        let ok = items.withUnsafeMutableBufferPointer { items -> Bool in
            let base = items.baseAddress!
            for k in start..<end {
                let item = base + k
                // The payload's case is read in place (no copy of the item).
                switch item.pointee.payload {
                case .rect, .gradient:
                    item.pointee.place(toPixels, opacity: opacity)
                case .shadow:
                    if shadowToPixels == nil {
                        shadowToPixels = Transform3D.translation(p.shadowOffset.width, p.shadowOffset.height)
                            .concatenating(toPixels)
                    }
                    item.pointee.place(shadowToPixels!, opacity: opacity)
                case .image(let box) where box.atlasSlot >= 0:
                    // What `appendShape` and `ShapeAtlas.item` decide: the same meshes (bucket),
                    // the same entry (scale), still a similarity.
                    if shapeScale == 0 { shapeScale = Self.pixelScale(toPixels) }
                    guard MeshCache.bucket(forScale: shapeScale) == box.atlasBucket,
                          ShapeAtlas.sameScale(box.atlasScale, shapeScale),
                          ShapeAtlas.isSimilarity(toPixels, scale: shapeScale) else { return false }
                    atlas.touch(box.atlasSlot)
                    item.pointee.place(toPixels, opacity: opacity)
                default:
                    return false
                }
            }
            return true
        }
        guard ok else { return false }
        retained.markDrawn(c)
        retained.moved += 1
        retained.cursor = end
        retained.clipCursor = Int(record.clipEnd)
        return true
    }
}
