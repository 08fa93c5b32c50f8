import LaminaGeometry
import LaminaModel
import LaminaTree

// The patcher's visits that are not skipped or moved as leaves (DrawListPatcher.swift has the
// records, the marks and the walk over batches): a layer descended, its own items moved, or
// its own items (or its whole visit) re-emitted by the builder and spliced in.

extension DrawListPatcher {
    /// A flagged visit that was not moved: its layer's culling decided as `visit` decides it,
    /// then **descended** when its own values are the last list's (its own items stay; its
    /// sublayers' batches are walked with its placement, opacity and clip), else its own items
    /// **re-emitted** by the builder and spliced in before its sublayers' batches are walked
    /// (everything under it changed too), or with a blurred shadow (whose source is its subtree)
    /// the whole visit re-emitted. Leaves `records[c].drawnNow` and the cursors at the visit's
    /// end when it made its recorded counts (the caller checks).
    mutating func revisit(_ c: Int, _ record: VisitRecord, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                          _ builder: inout DrawListBuilder, parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        let itemStart = Int(record.itemStart), itemEnd = Int(record.itemEnd)
        let clipStart = Int(record.clipStart), clipEnd = Int(record.clipEnd)
        let subtreeEnd = Int(record.subtreeEnd), split = Int(record.split)
        // Culled (or newly drawn: the caller fails the patch), no items made.
        cursor = itemStart
        clipCursor = clipStart
        let address = nodes.baseAddress! + Int(record.slot)
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard !p.isHidden else { return }
        // As `visit` computes them (the same operations, so the same values).
        let opacity = parentOpacity * min(max(p.opacity, 0), 1)
        if address.pointee.id.isClientRoot {
            guard opacity > 0 else { return }
            records[c].drawnNow = true
            patchChildren((c + 1)..<subtreeEnd, store, nodes, &builder, parentToPixels: parentToPixels,
                          parentOpacity: opacity, clip: clip)
            return
        }
        let toPixels = p.transformToSuperlayer.concatenating(parentToPixels)
        guard opacity > 0, p.isDoubleSided || !DrawListBuilder.facesAway(toPixels) else { return }
        records[c].drawnNow = true
        guard record.drawn else { return }
        let hasSublayers = !address.pointee.sublayers.isEmpty
        let isGroup = DrawListBuilder.isOpacityGroup(p, hasSublayers: hasSublayers, openGroups: openGroups)
        let layerOpacity = isGroup ? 1 : opacity
        let hasSource = split > c + 1
        // Group-ness is structure: as the full build drew it, or the patch fails.
        // (The visit's first item is its own unless its first sublayer's visit starts there.)
        let ownFirst = itemStart < itemEnd && (subtreeEnd == c + 1 || Int(records[c + 1].itemStart) > itemStart)
        if isGroup != (ownFirst && builder.items[itemStart].isGroupMarker) {
            // An elided group (`DrawListBuilder.drawsApart`): its opacity is in its items, so the
            // builder draws its visit again, eliding the group or not as a full build does.
            if isGroup, ownFirst, builder.items[itemStart].isElidedGroupMarker {
                reemitVisit(c, record, store, nodes, &builder, parentToPixels: parentToPixels,
                            parentOpacity: parentOpacity, clip: clip)
                return
            }
            fail(.counts); return
        }
        let groups = openGroups
        defer { openGroups = groups }
        if isGroup { openGroups += 1 }
        if !forcing {
            // Descended: its own items are the last list's.
            descended += 1
            let innerClip = p.masksToBounds ? clipStart : clip
            if hasSource {
                // The blurred shadow's source: the layer again at the shadow's offset, opacity 1, unclipped.
                let offsetToPixels = Transform3D.translation(p.shadowOffset.width, p.shadowOffset.height).concatenating(toPixels)
                let depth = shadowSourceDepth
                openGroups += 1
                shadowSourceDepth += 1
                cursor = Int(records[c + 1].itemStart)
                clipCursor = Int(records[c + 1].clipStart)
                patchChildren((c + 1)..<split, store, nodes, &builder,
                              parentToPixels: p.sublayerSpace.concatenating(offsetToPixels), parentOpacity: 1, clip: -1)
                openGroups -= 1
                shadowSourceDepth = depth
                if failed { return }
            }
            if split < subtreeEnd {
                cursor = Int(records[split].itemStart)
                clipCursor = Int(records[split].clipStart)
                patchChildren(split..<subtreeEnd, store, nodes, &builder,
                              parentToPixels: p.sublayerSpace.concatenating(toPixels), parentOpacity: layerOpacity,
                              clip: innerClip)
            }
            if !failed { cursor = itemEnd; clipCursor = clipEnd }
            return
        }
        let slot = Int(record.slot)
        // Moved: only its placement or opacity changed (or its superlayer's), and its own items
        // follow the transform as a moved leaf's do.
        if !hasSource, slot < motion.count, !dirty[slot] || motion[slot].contains(.motionOnly),
           moveOwnItems(c, record, address, nodes, store, &builder, toPixels: toPixels, opacity: opacity,
                        layerOpacity: layerOpacity, isGroup: isGroup, clip: clip) {
            return
        }
        if failed { return }
        // Re-emitted: its own values (or its placement) changed.
        records[c].moveKind = .reemitted
        if isGroup {
            builder.items[itemStart] = DrawListBuilder.groupMarker(opacity: opacity, count: itemEnd - itemStart - 1)
        }
        var ownStart = itemStart + (isGroup ? 1 : 0)
        var drawShadow = shadowSourceDepth < DrawListBuilder.maxShadowSourceNesting
        if hasSource {
            // Its blurred shadow: the marker, then the layer again as the source (at the shadow's
            // offset, opacity 1, unclipped, its sublayers the first batch); the source's length
            // is structure (the marker's count, as the full build made it).
            guard ownStart < itemEnd, case .shadowGroup(_, _, let count) = builder.items[ownStart].kind,
                  ownStart + 1 + count <= itemEnd,
                  let marker = DrawListBuilder.shadowGroupMarker(address, toPixels: toPixels, opacity: layerOpacity,
                                                                 clip: clip, count: count) else {
                reemitVisit(c, record, store, nodes, &builder, parentToPixels: parentToPixels,
                            parentOpacity: parentOpacity, clip: clip)
                return
            }
            builder.items[ownStart] = marker
            let offsetToPixels = Transform3D.translation(p.shadowOffset.width, p.shadowOffset.height).concatenating(toPixels)
            let depth = shadowSourceDepth
            openGroups += 1
            shadowSourceDepth += 1
            let done = reemitLayer(slot, ownStart: ownStart + 1, end: ownStart + 1 + count, clipStart: clipStart,
                                   batch: (c + 1)..<split, store, nodes, &builder, toPixels: offsetToPixels,
                                   opacity: 1, clip: -1, drawShadow: false)
            openGroups -= 1
            shadowSourceDepth = depth
            if failed { return }
            guard done else {
                reemitVisit(c, record, store, nodes, &builder, parentToPixels: parentToPixels,
                            parentOpacity: parentOpacity, clip: clip)
                return
            }
            ownStart += 1 + count
            drawShadow = false
        }
        let done = reemitLayer(slot, ownStart: ownStart, end: itemEnd, clipStart: clipCursor, batch: split..<subtreeEnd,
                               store, nodes, &builder, toPixels: toPixels, opacity: layerOpacity, clip: clip,
                               drawShadow: drawShadow)
        if failed { return }
        guard done else {
            reemitVisit(c, record, store, nodes, &builder, parentToPixels: parentToPixels, parentOpacity: parentOpacity,
                        clip: clip)
            return
        }
        guard clipCursor == clipEnd else { fail(.counts); return }
        reemittedOwn += 1
    }

    /// A changed layer with sublayers whose own values are the model's (it only moved or faded,
    /// or its superlayer did): its own items placed in place (`moveItems`: rects, gradients, an
    /// analytic shadow, shape atlas entries), its group marker's opacity and its clip made
    /// anew, its sublayers' batch walked between them. False, with nothing the re-emission
    /// would not rewrite touched, when an item does not simply follow the transform.
    private mutating func moveOwnItems(_ c: Int, _ record: VisitRecord, _ address: UnsafePointer<LayerNode>,
                                       _ nodes: UnsafeBufferPointer<LayerNode>, _ store: NodeStore,
                                       _ builder: inout DrawListBuilder, toPixels: Transform3D, opacity: Double,
                                       layerOpacity: Double, isGroup: Bool, clip: Int) -> Bool {
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let itemStart = Int(record.itemStart), itemEnd = Int(record.itemEnd)
        let clipStart = Int(record.clipStart), clipEnd = Int(record.clipEnd), subtreeEnd = Int(record.subtreeEnd)
        let ownStart = itemStart + (isGroup ? 1 : 0)
        let childrenStart = subtreeEnd > c + 1 ? Int(records[c + 1].itemStart) : itemEnd
        let ownClips = p.masksToBounds ? 1 : 0
        guard ownStart <= childrenStart, childrenStart <= itemEnd, clipStart + ownClips <= clipEnd,
              subtreeEnd == c + 1 || Int(records[c + 1].clipStart) == clipStart + ownClips,
              place(ownStart..<childrenStart, &builder, toPixels: toPixels, opacity: layerOpacity,
                    shadowOffset: p.shadowOffset) else { return false }
        if isGroup {
            builder.items[itemStart] = DrawListBuilder.groupMarker(opacity: opacity, count: itemEnd - itemStart - 1)
        }
        var innerClip = clip
        if ownClips == 1 {
            builder.clips[clipStart] = builder.ownClip(p.bounds, DrawListBuilder.radii(p.cornerRadius, p.maskedCorners),
                                                       toPixels: toPixels, parent: clip)
            innerClip = clipStart
        }
        cursor = childrenStart
        clipCursor = clipStart + ownClips
        if subtreeEnd > c + 1 {
            patchChildren((c + 1)..<subtreeEnd, store, nodes, &builder,
                          parentToPixels: p.sublayerSpace.concatenating(toPixels), parentOpacity: layerOpacity,
                          clip: innerClip)
            if failed { return true }
        }
        // Its border, after its sublayers' items.
        guard clipCursor == clipEnd, cursor <= itemEnd,
              place(cursor..<itemEnd, &builder, toPixels: toPixels, opacity: layerOpacity, shadowOffset: p.shadowOffset)
        else { fail(.counts); return true }
        cursor = itemEnd
        movedOwn += 1
        lastVisitMovedOwn = true
        return true
    }

    /// Places `range`'s items (a layer's own) at `toPixels` with `opacity` (`moveItems`).
    private func place(_ range: Range<Int>, _ builder: inout DrawListBuilder, toPixels: Transform3D, opacity: Double,
                       shadowOffset: Size) -> Bool {
        guard !range.isEmpty else { return true }
        guard range.upperBound <= builder.items.count else { return false }
        let atlas = builder.shapeAtlas
        return builder.items.withUnsafeMutableBufferPointer { items in
            var buckets = BucketMemo()
            return Self.moveItems(items.baseAddress!, range, toPixels: toPixels, opacity: opacity, shadowOffset: shadowOffset,
                                  atlas: atlas, buckets: &buckets)
        }
    }

    /// The layer's own items re-emitted from `ownStart` (its clip at `clipStart`) and its border
    /// last before `end`, and `batch`, its sublayers' visits, walked between them (their records
    /// say where they start). False when the builder needs the whole visit (a blurred shadow);
    /// a mismatch fails the patch. Leaves the cursors at `end` and after the clips made.
    private mutating func reemitLayer(_ slot: Int, ownStart: Int, end: Int, clipStart: Int, batch: Range<Int>,
                                      _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                      _ builder: inout DrawListBuilder, toPixels: Transform3D, opacity: Double, clip: Int,
                                      drawShadow: Bool) -> Bool {
        guard let own = reemitOwn(slot, ownStart: ownStart, itemEnd: end, clipStart: clipStart, store, nodes, &builder,
                                  toPixels: toPixels, opacity: opacity, clip: clip, drawShadow: drawShadow) else {
            return false
        }
        let childrenStart = ownStart + own.before, childrenEnd = end - (own.border ? 1 : 0)
        let childClips = clipStart + own.clips
        if !batch.isEmpty {
            guard Int(records[batch.lowerBound].itemStart) == childrenStart,
                  Int(records[batch.lowerBound].clipStart) == childClips else { fail(.counts); return true }
            cursor = childrenStart
            clipCursor = childClips
            let address = nodes.baseAddress! + slot
            patchChildren(batch, store, nodes, &builder,
                          parentToPixels: address.pointee.properties.sublayerSpace.concatenating(toPixels),
                          parentOpacity: opacity, clip: own.innerClip)
            guard !failed, cursor == childrenEnd else { fail(.counts); return true }
        } else {
            guard childrenStart == childrenEnd else { fail(.counts); return true }
            clipCursor = childClips
        }
        cursor = end
        return true
    }

    /// The layer's own items re-emitted by the builder and spliced in from `ownStart` (its
    /// border, if any, at `itemEnd - 1`), its clip at `clipStart`. Nil when the builder needs
    /// the whole visit (a blurred shadow) or the patch failed.
    private mutating func reemitOwn(_ slot: Int, ownStart: Int, itemEnd: Int, clipStart: Int, _ store: NodeStore,
                                    _ nodes: UnsafeBufferPointer<LayerNode>, _ builder: inout DrawListBuilder,
                                    toPixels: Transform3D, opacity: Double, clip: Int, drawShadow: Bool)
        -> (innerClip: Int, before: Int, border: Bool, clips: Int)? {
        var made: (innerClip: Int, before: Int, border: Bool)?
        withScratch(&builder, clipStart: clipStart) { builder in
            made = builder.reemitOwnItems(slot, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip,
                                          drawShadow: drawShadow)
        }
        guard let made, !failed, !atlasTransition(at: ownStart, builder.items) else { return nil }
        // Before the sublayers' from `ownStart`, the border last.
        let before = made.before
        guard ownStart + before + (made.border ? 1 : 0) <= itemEnd else { fail(.counts); return nil }
        splice(0..<before, at: ownStart, &builder.items)
        if made.border { splice(before..<(before + 1), at: itemEnd - 1, &builder.items) }
        spliceClips(at: clipStart, &builder.clips)
        return failed ? nil : (made.innerClip, before, made.border, scratchClips.count)
    }

    /// The whole visit re-emitted by the builder (as a full build makes it) and spliced in when
    /// its records equal the full build's (structure, counts, culling), else the patch fails.
    private mutating func reemitVisit(_ c: Int, _ record: VisitRecord, _ store: NodeStore,
                                      _ nodes: UnsafeBufferPointer<LayerNode>, _ builder: inout DrawListBuilder,
                                      parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        withScratch(&builder, clipStart: Int(record.clipStart)) { builder in
            builder.reemitVisit(Int(record.slot), childIndex: Int(record.childIndex), store, nodes,
                                parentToPixels: parentToPixels, parentOpacity: parentOpacity, clip: clip)
        }
        if failed || atlasTransition(at: Int(record.itemStart), builder.items) { return }
        let n = Int(record.subtreeEnd) - c, itemBase = Int32(truncatingIfNeeded: Int(record.itemStart))
        guard builder.records.list.count == n else { fail(.counts); return }
        for k in 0..<n {
            let new = builder.records.list[k], old = records[c + k], base = Int32(truncatingIfNeeded: c)
            guard new.slot == old.slot, new.childIndex == old.childIndex, new.drawn == old.drawn,
                  k == 0 || new.parent + base == old.parent, new.split + base == old.split,
                  new.subtreeEnd + base == old.subtreeEnd,
                  new.itemStart + itemBase == old.itemStart, new.itemEnd + itemBase == old.itemEnd,
                  new.clipStart == old.clipStart, new.clipEnd == old.clipEnd else {
                fail(k == 0 || new.drawn == old.drawn ? .counts : .culling); return
            }
        }
        splice(0..<scratchItems.count, at: Int(record.itemStart), &builder.items)
        spliceClips(at: Int(record.clipStart), &builder.clips)
        for k in c..<(c + n) { records[k].moveKind = .reemitted }
        reemittedWhole += 1
        records[c].drawnNow = builder.records.list[0].drawn
        cursor = Int(record.itemEnd)
        clipCursor = Int(record.clipEnd)
    }

    /// Runs `body` on the builder set up to re-emit for this patch: appending into the scratch
    /// buffers (`scratchItems` and `scratchClips` hold what it made after), its clips numbered
    /// from `clipStart` with the list's clips below that, at this point of the walk (groups
    /// open, shadow sources deep). A refusal fails the patch.
    private mutating func withScratch(_ builder: inout DrawListBuilder, clipStart: Int, _ body: (inout DrawListBuilder) -> Void) {
        scratchItems.removeAll(keepingCapacity: true)
        scratchClips.removeAll(keepingCapacity: true)
        swap(&scratchItems, &builder.items)
        swap(&scratchClips, &builder.clips)
        builder.clipBase = scratchClips   // (the list's clips, shared while the builder reads them)
        builder.clipOffset = clipStart
        builder.forPatch = true
        builder.refusal = nil
        builder.openGroups = openGroups
        builder.shadowSourceDepth = shadowSourceDepth
        builder.shadowSourceItems = 0
        body(&builder)
        if let refusal = builder.refusal { fail(refusal) }
        builder.forPatch = false
        builder.clipBase = []
        builder.clipOffset = 0
        swap(&scratchItems, &builder.items)
        swap(&scratchClips, &builder.clips)
    }

    /// Whether the re-emitted items placed from `start` put a shape atlas item where the last
    /// full build drew meshes (the entry was made after that shape drew): then the patch gives
    /// way (`.shapeAtlas`: the full build that follows settles it, with no backoff). Checked
    /// before the counts, which such a change alters too.
    private mutating func atlasTransition(at start: Int, _ items: [DrawItem]) -> Bool {
        for k in scratchItems.indices where scratchItems[k].isAtlasItem {
            if start + k >= items.count || !items[start + k].isAtlasItem {
                fail(.shapeAtlas)
                return true
            }
        }
        return false
    }

    /// Writes the re-emitted items `range` over `items` from `start`, giving way (the patch
    /// fails) where it would put a group or shadow marker into a list that had none.
    private mutating func splice(_ range: Range<Int>, at start: Int, _ items: inout [DrawItem]) {
        guard start >= 0, start + range.count <= items.count, range.upperBound <= scratchItems.count else {
            fail(.overflow); return
        }
        if !hasMarkers {
            for k in range where scratchItems[k].isMarker {
                fail(.counts); return
            }
        }
        scratchItems.withUnsafeBufferPointer { made in
            items.withUnsafeMutableBufferPointer { items in
                for k in range { items[start + k - range.lowerBound] = made[k] }
            }
        }
    }

    /// Writes the re-emitted clips over `clips` from `start`.
    private mutating func spliceClips(at start: Int, _ clips: inout [Clip]) {
        guard start >= 0, start + scratchClips.count <= clips.count else { fail(.overflow); return }
        for k in scratchClips.indices { clips[start + k] = scratchClips[k] }
    }
}

extension DrawItem {
    /// Whether it draws a shape atlas entry (read in place).
    var isAtlasItem: Bool { atlasEntry.slot >= 0 }
    var isGroupMarker: Bool { if case .group = payload { true } else { false } }
    /// Whether this is an elided group's marker (`DrawListBuilder.elidedGroupMarker`: no other
    /// item has zero bounds and opacity).
    var isElidedGroupMarker: Bool {
        if case .rect = payload { opacity == 0 && bounds == .zero } else { false }
    }
    /// A group or blurred-shadow marker (read from the storage: no `Kind` is made).
    var isMarker: Bool { writeCase == .group }
}

extension DrawListBuilder {
    /// A layer's own items for a patch (`DrawListPatcher`): what `visitLayer` makes of it but
    /// its sublayers' — its clip, shadow, background and content, then its border when that
    /// goes above the sublayers — appended as in every build. Returns the clip its content and
    /// sublayers use, how many items come before the sublayers' and whether the border follows
    /// them; nil when its shadow is blurred (its source is its subtree: the patcher re-emits
    /// the whole visit).
    mutating func reemitOwnItems(_ slot: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                 toPixels: Transform3D, opacity: Double, clip: Int, drawShadow: Bool)
        -> (innerClip: Int, before: Int, border: Bool)? {
        ownItemsOnly = true
        needsSubtree = false
        defer { ownItemsOnly = false }
        let (innerClip, borderLast) = appendOwnItems(slot, -1, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip,
                                                     drawShadow: drawShadow)
        if needsSubtree { return nil }
        let before = items.count
        if borderLast { appendBorder(slot, nodes, toPixels: toPixels, opacity: opacity, clip: clip) }
        return (innerClip, before, borderLast)
    }

    /// A whole visit for a patch, as a full build makes it (recorded into `records`, from 0).
    mutating func reemitVisit(_ slot: Int, childIndex: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                              parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        records.begin()
        let r = records.open(slot: slot, childIndex: childIndex, item: items.count, clip: clipOffset + clips.count)
        visit(slot, r, store, nodes, parentToPixels: parentToPixels, parentOpacity: parentOpacity, clip: clip)
        records.close(r, item: items.count, clip: clipOffset + clips.count)
    }
}
