import LaminaGeometry
import LaminaTree
import LaminaModel

/// The retained list's moves after the walk (issue 11 item 5): `patchChildren` puts aside the
/// leaf visits whose items `moveLeaf` found to be of kinds that simply follow the transform
/// (`DrawListPatcher.MoveKind`) and `runMoves` moves them in one tight loop after the walk.
///
/// A batch of siblings whose visits were all put aside or skipped is replayed by the next
/// patch of the same full build without looking at its records (`replaySteadyBatch`): with no
/// zPosition animated (no order to check), the same changed slots (the plan's: so the same
/// record flags) and no visit re-emitted since (`Moves.epoch`), the batch makes the same moves
/// and notes the same changed ranges; only its superlayer's placement is new.
extension DrawListPatcher {
    /// What moving a visit's items needs of its record (so the loop reads no record).
    struct Move {
        var slot: Int32, itemStart: Int32, itemEnd: Int32, record: Int32
        var context: Int16
        var kind: MoveKind, doubleSided: Bool
    }
    /// `clip`: the superlayer's clip for its sublayers (a visit re-emitted after the walk).
    struct MoveContext { var parentToPixels: Transform3D; var parentOpacity: Double; var clip: Int }

    /// A batch as the last patch made it: its moves and changed ranges (in the last patch's
    /// `Moves.last` and `lastRanges`) and where the cursors were after it.
    struct SteadyBatch {
        var moves: Range<Int32>, ranges: Range<Int32>
        var itemEnd: Int32, clipEnd: Int32
        var forcing: Bool
        var epoch: UInt64
    }

    /// The moves of this patch and the last, their batches' contexts, and the steady batches.
    struct Moves {
        var list: [Move] = []
        var last: [Move] = []
        var contexts: [MoveContext] = []
        /// Per record: the entry in `steady` of the batch starting there, or -1.
        var steadyIndex: [Int32] = []
        var steady: [SteadyBatch] = []
        /// The changed ranges each steady batch noted, this patch and the last.
        var ranges: [Range<Int>] = []
        var lastRanges: [Range<Int>] = []
        /// Changed by each full build, failed patch and re-emission after the walk: older
        /// steady batches are not replayed.
        private(set) var epoch: UInt64 = 1
        /// Batches replayed, since the builder was made (tests).
        var replayed = 0

        mutating func begin() {
            swap(&list, &last)
            list.removeAll(keepingCapacity: true)
            contexts.removeAll(keepingCapacity: true)
            swap(&ranges, &lastRanges)
            ranges.removeAll(keepingCapacity: true)
        }

        mutating func invalidate() { epoch &+= 1 }
    }

    /// Notes what a batch does while `patchChildren` walks it (the changed ranges merged in two
    /// fields, as `noteChanged` does), and keeps it as a steady batch at its end.
    struct SteadyRecorder {
        let batch: Range<Int>
        let movesStart: Int, rangesStart: Int
        let forcing: Bool
        /// False once a visit of the batch was moved or re-emitted in the walk.
        var isSteady = true
        private var open = OpenRange()

        init(batch: Range<Int>, moves: Int, ranges: Int, forcing: Bool) {
            self.batch = batch
            movesStart = moves
            rangesStart = ranges
            self.forcing = forcing
        }

        /// (A closed range goes to `ranges` at once: if a sublayer batch is walked in the middle,
        /// this batch is not steady and its ranges there are not used.)
        @inline(__always)
        mutating func note(_ range: Range<Int>, _ ranges: inout [Range<Int>]) {
            open.note(range, closingInto: &ranges)
        }

        mutating func end(_ moving: inout Moves, cursor: Int, clipCursor: Int) {
            guard isSteady, batch.lowerBound < moving.steadyIndex.count else { return }
            open.close(into: &moving.ranges)
            let entry = SteadyBatch(moves: Int32(movesStart)..<Int32(moving.list.count),
                                    ranges: Int32(rangesStart)..<Int32(moving.ranges.count),
                                    itemEnd: Int32(truncatingIfNeeded: cursor), clipEnd: Int32(truncatingIfNeeded: clipCursor),
                                    forcing: forcing, epoch: moving.epoch)
            let index = Int(moving.steadyIndex[batch.lowerBound])
            if index >= 0 && index < moving.steady.count {
                moving.steady[index] = entry
            } else {
                moving.steadyIndex[batch.lowerBound] = Int32(moving.steady.count)
                moving.steady.append(entry)
            }
        }
    }
}

extension DrawListPatcher {
    /// Replays `batch` from the last patch (see above); false when it is not steady.
    mutating func replaySteadyBatch(_ batch: Range<Int>, parentToPixels: Transform3D, parentOpacity: Double,
                                    clip: Int) -> Bool {
        if moving.steadyIndex.count != records.count {
            moving.steadyIndex = Array(repeating: -1, count: records.count)
            moving.steady.removeAll(keepingCapacity: true)
            return false
        }
        let index = Int(moving.steadyIndex[batch.lowerBound])
        guard index >= 0 else { return false }
        let entry = moving.steady[index]
        let first = records[batch.lowerBound]
        guard entry.epoch == moving.epoch, entry.forcing == forcing,
              cursor == Int(first.itemStart), clipCursor == Int(first.clipStart),
              Int(entry.moves.upperBound) <= moving.last.count,
              Int(entry.ranges.upperBound) <= moving.lastRanges.count,
              entry.moves.isEmpty || moving.contexts.count < Int(Int16.max) else { return false }
        let movesStart = moving.list.count, rangesStart = moving.ranges.count
        if !entry.moves.isEmpty {
            let context = Int16(moving.contexts.count)
            moving.contexts.append(DrawListPatcher.MoveContext(parentToPixels: parentToPixels,
                                                                 parentOpacity: parentOpacity, clip: clip))
            moving.list.append(contentsOf: moving.last[Int(entry.moves.lowerBound)..<Int(entry.moves.upperBound)])
            moving.list.withUnsafeMutableBufferPointer { list in
                for k in movesStart..<list.count { list[k].context = context }
            }
        }
        for k in Int(entry.ranges.lowerBound)..<Int(entry.ranges.upperBound) {
            let range = moving.lastRanges[k]
            noteChanged(range, motionOnly: true)
            moving.ranges.append(range)
        }
        moving.steady[index] = DrawListPatcher.SteadyBatch(
            moves: Int32(movesStart)..<Int32(moving.list.count),
            ranges: Int32(rangesStart)..<Int32(moving.ranges.count),
            itemEnd: entry.itemEnd, clipEnd: entry.clipEnd, forcing: entry.forcing, epoch: entry.epoch)
        cursor = Int(entry.itemEnd)
        clipCursor = Int(entry.clipEnd)
        moving.replayed += 1
        return true
    }

    /// Whether a visit can be moved after the walk (`runMoves`): a drawn leaf with no clip of its
    /// own, unchanged or changed in motion only, whose items `moveLeaf` found to be rects and
    /// gradients and contents images (after an analytic shadow), or shape atlas entries (not in a blurred shadow's
    /// source: one that fails the atlas' checks is re-emitted after the loop, as `visit` would
    /// in the walk).
    @inline(__always)
    func canDefer(_ c: Int, _ record: VisitRecord) -> Bool {
        guard record.moveKind == .plain || record.moveKind == .shadowFirst
                || (record.moveKind == .atlas && shadowSourceDepth == 0), record.drawn,
              Int(record.subtreeEnd) == c + 1, record.clipEnd == record.clipStart else { return false }
        let slot = Int(record.slot)
        return slot < motion.count && (!dirty[slot] || motion[slot].contains(.motionOnly))
    }

    /// Moves the visits `patchChildren` put aside, in one tight loop (no per-visit calls or
    /// array checks): what `moveLeaf` does for them, with the same values. It reads no record
    /// (`DrawListPatcher.Move` has what it needs) and of the node only what placing it needs: a
    /// deferred visit's layer was checked by `moveLeaf` to be a leaf, not hidden, and its
    /// `isDoubleSided` noted — model values, the same for this full build. Its anchorPointZ,
    /// zPosition and shadow offset are the defaults when it has no rare values, else kept
    /// per slot (`leafStatics`). A visit that would now be culled fails the patch (a full
    /// build follows, as when `visit` finds it culled); a shape whose atlas entry no longer
    /// fits is re-emitted by `visit` at its place.
    /// How many moves ahead `runMoves` prefetches the node and items of a move: each frame
    /// follows the rasterizer's, so they come from memory (~100 ns), and a move takes ~20 ns.
    static let movePrefetchDistance = 8
    /// The bytes of a node that placing its layer reads (its properties' inline fields up to
    /// the transform and rare-values references), and of an item that placing writes
    /// (transform entries and opacity: its first 80 bytes).
    static let nodeReadBytes = 88, placedBytes = 80

    mutating func runMoves(store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>, _ builder: inout DrawListBuilder) {
        guard !moving.list.isEmpty else { return }
        var failed = false
        let count = motion.count
        if statics.count != count {
            statics = Array(repeating: DrawListPatcher.LeafStatics(anchorPointZ: 0, zPosition: 0, shadowOffset: .zero),
                                     count: count)
        }
        let itemCount = builder.items.count
        let defaults = DrawListPatcher.LeafStatics(anchorPointZ: 0, zPosition: 0, shadowOffset: LayerProperties().shadowOffset)
        let atlas = builder.shapeAtlas, prefetches = builder.prefetches
        var buckets = BucketMemo()
        var reemits: [Int] = []   // moves whose shape atlas entry no longer fits (rare: no array made otherwise)
        // The arrays are borrowed once (no other access happens in the loop).
        moving.list.withUnsafeBufferPointer { moves in
        moving.contexts.withUnsafeBufferPointer { contexts in
        motion.withUnsafeMutableBufferPointer { motion in
        statics.withUnsafeMutableBufferPointer { statics in
        builder.items.withUnsafeMutableBufferPointer { items in
            let base = items.baseAddress!
            // The superlayer's placement, loaded when the batch changes (moves come by batch).
            var contextIndex = -1
            var parentToPixels = Transform3D.identity, parentOpacity = 1.0
            // (Nothing prefetched while the builder does not prefetch: `prefetches`.)
            let prefetchEnd = prefetches ? moves.count - Self.movePrefetchDistance : 0
            for (index, move) in moves.enumerated() {
                let slot = Int(move.slot)
                if index < prefetchEnd {
                    // What a later move reads and writes (see `movePrefetchDistance`).
                    let ahead = moves[index + Self.movePrefetchDistance]
                    let node = UnsafeRawPointer(nodes.baseAddress! + Int(ahead.slot))
                    prefetch(node)
                    prefetch(node + Self.nodeReadBytes - 1)
                    var k = Int(ahead.itemStart)
                    while k < Int(ahead.itemEnd) && k < itemCount {
                        let item = UnsafeRawPointer(base + k)
                        prefetchForWriting(item)
                        prefetchForWriting(item + Self.placedBytes - 1)
                        k += 1
                    }
                }
                if Int(move.context) != contextIndex {
                    contextIndex = Int(move.context)
                    parentToPixels = contexts[contextIndex].parentToPixels
                    parentOpacity = contexts[contextIndex].parentOpacity
                }
                let address = nodes.baseAddress! + slot
                var p: LayerProperties { _read { yield address.pointee.properties } }
                guard Int(move.itemEnd) <= itemCount else { failed = true; return }
                let opacity = parentOpacity * min(max(p.opacity, 0), 1)
                guard opacity > 0 else { failed = true; return }
                var leaf = defaults
                if p.hasRareValues {
                    let flags = motion[slot]
                    if flags.contains(.spare) {
                        // Kept; +0 depth (most layers) needs them only for the shadow's offset.
                        if !flags.contains(.spare2) || move.kind == .shadowFirst { leaf = statics[slot] }
                    } else {
                        leaf = DrawListPatcher.LeafStatics(anchorPointZ: p.anchorPointZ, zPosition: p.zPosition,
                                                    shadowOffset: p.shadowOffset)
                        if !flags.contains(.depth) {
                            statics[slot] = leaf
                            motion[slot].formUnion(Self.keptFlags(leaf))
                        }
                    }
                }
                let a = p.transformToSuperlayer(anchorPointZ: leaf.anchorPointZ, zPosition: leaf.zPosition)
                var toPixels = Self.placement(a, parentToPixels)
                guard move.doubleSided || !DrawListBuilder.facesAway(toPixels) else { failed = true; return }
                // The third row only where a shadow's placement needs it (or may: `moveItems`).
                if move.kind != .plain { toPixels = Self.withRow3(toPixels, a, parentToPixels) }
                if !Self.placeMoved(base, Int(move.itemStart)..<Int(move.itemEnd), kind: move.kind, toPixels: toPixels,
                                    opacity: opacity, shadowOffset: leaf.shadowOffset, atlas: atlas, buckets: &buckets) {
                    reemits.append(index)
                }
            }
        }
        }
        }
        }
        }
        if failed { fail(.culling); return }
        moved += moving.list.count - reemits.count
        if !reemits.isEmpty {
            moving.invalidate()  // (their batches are not replayed)
            dropMotionRanges()   // (noted as moved in the walk)
        }
        // As `patchChildren` re-emits a visit `moveLeaf` cannot move (its items and clips are
        // written at its recorded place, which is all that depends on where the cursor is).
        let (walkCursor, walkClipCursor) = (cursor, clipCursor)
        for index in reemits where !failed {
            let move = moving.list[index]
            let c = Int(move.record)
            let record = records[c]
            let context = moving.contexts[Int(move.context)]
            records[c].moveKind = .reemitted
            records[c].drawnNow = false
            reemittedAfterWalk += 1
            let forcing = self.forcing
            self.forcing = true   // its own items are re-emitted
            revisit(c, record, store, nodes, &builder, parentToPixels: context.parentToPixels,
                    parentOpacity: context.parentOpacity, clip: context.clip)
            self.forcing = forcing
            if records[c].drawnNow != record.drawn { fail(.culling) }
            if cursor != Int(record.itemEnd) || clipCursor != Int(record.clipEnd) { fail(.counts) }
        }
        cursor = walkCursor
        clipCursor = walkClipCursor
    }
}

/// A range of items being grown by adjacent visits, in two fields rather than an array write
/// per visit: a visit that does not continue it closes it into an array and opens its own.
struct OpenRange {
    private var start = 0, end = 0

    /// Extends the open range by `range` when they touch; otherwise appends the open range
    /// (if any) to `ranges` and opens `range`.
    @inline(__always)
    mutating func note(_ range: Range<Int>, closingInto ranges: inout [Range<Int>]) {
        if start < end && end == range.lowerBound {
            end = range.upperBound
        } else {
            if start < end { ranges.append(start..<end) }
            start = range.lowerBound
            end = range.upperBound
        }
    }

    /// Appends the open range (if any) to `ranges` and empties it.
    @inline(__always)
    mutating func close(into ranges: inout [Range<Int>]) {
        if start < end { ranges.append(start..<end) }
        start = 0
        end = 0
    }
}
