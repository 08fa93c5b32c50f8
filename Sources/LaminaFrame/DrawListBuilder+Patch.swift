import LaminaGeometry
import LaminaTree

/// The retained draw list (issue 11, item 5): a build of the same model as the last full
/// build — same tree (`LayerTree.lineage`), same `version`, so the same structure and model
/// values, with only the animated layers' presentation values changed
/// (`LayerTree.presentationChangedSlots`) — patches the previous items in place instead of
/// walking and rebuilding the whole list.
///
/// The full build records each layer visit in painter's order (`Retained.Record`: its slot,
/// its parent visit, the ranges of items and clips it and its subtree made, where its real
/// sublayers start after a blurred shadow's source, its index among its siblings, whether
/// it passed the culling). A patch walks the same code from the root, taking each layer's
/// sublayers from the records instead of looking them up and sorting them, skipping every
/// visit with no changed layer in or above it, and re-emitting the others: the changed layers
/// and their subtrees (their transforms and opacities follow), and the ancestors on the way
/// down to them (whose items come out as they were). Emitting overwrites the items and clips
/// at the recorded positions. Each re-emitted visit must produce exactly its recorded counts
/// of items and clips and the same culling decision, and siblings must still be in zPosition
/// order; so every item lands where a full build puts it, and the skipped visits' items are
/// what a full build would make of their unchanged inputs. Anything else — a group opacity or
/// a shadow or a clip appearing or going, a culling change, a zPosition reorder, a shape's new
/// scale bucket (no tessellation in a patch), a text layer or a contents cross-fade to draw,
/// other images, size or scale — makes the patch fail and the frame a full build (the
/// reference path), which records anew.
///
/// Buffers: the builder alternates two item and clip buffers (the caller keeps the previous
/// list). A patch writes into the buffer of the list before last when that holds a list of
/// the same full build (its stale items are those of the layers changed since then: this
/// frame's and the last frame's changed slots), else into a copy of the last list (once after
/// each full build).
struct Retained {
    /// One layer visit of the last full build.
    struct Record {
        var slot: Int32
        var parent: Int32
        /// The first record of the sublayers visited for real (after those of a blurred
        /// shadow's source, which start at the next record).
        var split: Int32
        /// The record after this visit's subtree.
        var subtreeEnd: Int32
        var itemStart: Int32, itemEnd: Int32
        var clipStart: Int32, clipEnd: Int32
        /// Its position among its superlayer's sublayers (the zPosition sort is stable).
        var childIndex: Int32
        /// Whether it passed the culling (hidden, transparent, facing away).
        var drawn: Bool
        /// Patching: whether it passed the culling this time.
        var drawnNow: Bool
        /// What `moveLeaf` knows of the visit's items (in the record's padding: still 40 bytes).
        var moveKind: MoveKind = .unknown
        /// The layer's `isDoubleSided`, noted with `moveKind` (the model's: a layer animating
        /// it is not moved).
        var doubleSided = false
    }

    /// What a list was built from: a patch needs the same.
    struct Key: Equatable {
        var lineage: UInt64
        var version: UInt64
        var count: Int
        var widthPoints: Double, heightPoints: Double, scale: Double
        var background: Color
        var imagesVersion: UInt64
    }

    var records: [Record] = []
    /// The visits of the last full build whose shape drew its meshes but may get a shape atlas
    /// entry next frame: a patch that does not redraw one of them gives way to a full build.
    var pendingShapes: [Int32] = []
    /// The visit being recorded (full build).
    private var current = -1
    var key: Key?
    /// Bumped by each full build; the generation each buffer's list belongs to (0: none).
    private(set) var generation: UInt64 = 0
    var itemsGeneration: UInt64 = 0
    var spareGeneration: UInt64 = 0
    /// The slots the last build changed (a patch of the list before last re-emits them too).
    var lastChanged: [Int] = []
    var plan = FramePlan()
    var atlas: TextAtlasState?
    /// Whether the list has group or blurred-shadow markers (its plan depends on values).
    var hasMarkers = false
    /// Whether the full build hit the blurred shadows' item cap (then it is not patched).
    var capped = false
    /// Builds left before the next patch is tried (after a failed one), and how many a failed
    /// patch sets (a scene that fails every frame — a text layer animating — then pays for a
    /// failed attempt once in that many frames).
    var backoff = 0
    var backoffAfterFailure = 16
    /// Whether the last patch tried failed.
    var failedLast = false

    // Patching state.
    private(set) var patching = false
    private(set) var failed = false
    var forcing = false
    var cursor = 0
    var clipCursor = 0
    /// Per slot: changed this frame (or the last, for the older buffer); only read by patches,
    /// and left marked from one to the next (`dirtyMarks`: the slots marked).
    var dirty: [Bool] = []
    var dirtyMarks: ([Int], [Int]) = ([], [])
    /// Per slot: changed, but only moved or faded (`LayerTree.markMotionOnlySlots`); its
    /// items may be moved in place (DrawListBuilder+Motion.swift). `.spare` marks the slots
    /// whose `statics` are filled (for this full build), `.spare2` those of them whose kept
    /// anchorPointZ and zPosition are both +0 (then only a shadow needs `statics`).
    var motion: [MotionSlotFlags] = []
    /// Per slot (filled on first use by `moveLeaf`): the model's `LeafStatics`.
    var statics: [LeafStatics] = []
    /// The leaf visits moved after the walk, and the batches of siblings replayed from the
    /// last patch (DrawListBuilder+Moves.swift).
    var moving = Moves()
    /// Whether the plan animates some layer's zPosition (else siblings keep the recorded
    /// order, which a patch then does not check) or anchorPointZ.
    var depthAnimated = true
    /// The full build (`generation`) `motion` was marked for.
    var motionGeneration: UInt64 = 0
    /// Per record: a changed layer in it or under it.
    var flags: [Bool] = []
    /// The full build and the changed slots `flags` were marked for.
    var flagsGeneration: UInt64 = 0
    var flagsChanged: [Int] = []
    /// The item ranges a patch rewrote with new values (the changed layers' visits, whole),
    /// for damage; two buffers alternating with the lists.
    var changedRanges: [Range<Int>] = []
    /// The parts of `changedRanges` that changed layers moved in place (`moveLeaf`, `runMoves`:
    /// only transforms and opacities differ), for the renderer; alternating as `changedRanges`.
    var motionRanges: [Range<Int>] = [], spareMotionRanges: [Range<Int>] = []
    /// Leaf visits the last patch moved in place (`moveLeaf`, `runMoves`; tests).
    var moved = 0
    /// Visits `runMoves` re-emitted (a shape atlas entry that no longer fits), since the
    /// builder was made (tests).
    var reemittedAfterWalk = 0
    var spareChangedRanges: [Range<Int>] = []

    /// The ranges being grown by adjacent changed visits (not yet in `changedRanges` and
    /// `motionRanges`: `flushChanged` puts them there).
    private var openChanged = OpenRange(), openMotion = OpenRange()

    /// Notes a changed visit's items (merged with the last range when adjacent), and among
    /// the motion ranges too when `motionOnly`.
    @inline(__always)
    mutating func noteChanged(_ range: Range<Int>, motionOnly: Bool = false) {
        guard !range.isEmpty else { return }
        openChanged.note(range, closingInto: &changedRanges)
        if motionOnly { openMotion.note(range, closingInto: &motionRanges) }
    }

    /// Completes `changedRanges` (before it is read).
    mutating func flushChanged() {
        openChanged.close(into: &changedRanges)
        openMotion.close(into: &motionRanges)
    }

    /// Forgets the motion ranges noted so far (a visit moved after the walk was re-emitted
    /// instead: its items may differ in more than transform and opacity).
    mutating func dropMotionRanges() {
        flushChanged()
        motionRanges.removeAll(keepingCapacity: true)
    }

    mutating func swapBuffers() { swap(&itemsGeneration, &spareGeneration) }

    /// Failed patches by their first reason (`Failure.rawValue`), since the builder was made.
    var failures = [Int](repeating: 0, count: Failure.allCases.count)
    private(set) var failure: Failure?

    mutating func fail(_ reason: Failure) {
        if !failed { failure = reason }
        failed = true
    }

    // MARK: Recording (full build)

    mutating func beginFull() {
        patching = false
        records.removeAll(keepingCapacity: true)
        pendingShapes.removeAll(keepingCapacity: true)
        current = -1
    }

    /// Opens the record of a visit (full build); returns its index. Patching: unused.
    @inline(__always)
    mutating func open(slot: Int, childIndex: Int, item: Int, clip: Int) -> Int {
        let r = records.count
        records.append(Record(slot: Int32(truncatingIfNeeded: slot), parent: Int32(truncatingIfNeeded: current),
                              split: Int32(truncatingIfNeeded: r + 1), subtreeEnd: Int32(truncatingIfNeeded: r + 1),
                              itemStart: Int32(truncatingIfNeeded: item), itemEnd: Int32(truncatingIfNeeded: item),
                              clipStart: Int32(truncatingIfNeeded: clip), clipEnd: Int32(truncatingIfNeeded: clip),
                              childIndex: Int32(truncatingIfNeeded: childIndex), drawn: false, drawnNow: false))
        current = r
        return r
    }

    @inline(__always)
    mutating func close(_ r: Int, item: Int, clip: Int) {
        records[r].itemEnd = Int32(truncatingIfNeeded: item)
        records[r].clipEnd = Int32(truncatingIfNeeded: clip)
        records[r].subtreeEnd = Int32(truncatingIfNeeded: records.count)
        current = Int(records[r].parent)
    }

    /// The visit being recorded drew a shape that may get an atlas entry next frame.
    mutating func notePendingShape() {
        if !patching, current >= 0 { pendingShapes.append(Int32(truncatingIfNeeded: current)) }
    }

    /// The visit passed the culling.
    @inline(__always)
    mutating func markDrawn(_ r: Int) {
        if patching { records[r].drawnNow = true } else { records[r].drawn = true }
    }

    /// A client container's sublayers (one batch).
    func children(of r: Int) -> Range<Int> {
        patching ? (r + 1)..<Int(records[r].subtreeEnd) : 0..<0
    }

    /// The layer's sublayers visited for real; recording, they start here.
    @inline(__always)
    mutating func realChildren(of r: Int) -> Range<Int> {
        if patching { return Int(records[r].split)..<Int(records[r].subtreeEnd) }
        records[r].split = Int32(truncatingIfNeeded: records.count)
        return 0..<0
    }

    /// The sublayers visited as a blurred shadow's source.
    func sourceChildren(of r: Int) -> Range<Int> {
        patching ? (r + 1)..<Int(records[r].split) : 0..<0
    }

    mutating func endFull(key: Key, items: [DrawItem], plan: FramePlan, atlas: TextAtlasState?, capped: Bool) {
        generation &+= 1
        moving.invalidate()
        itemsGeneration = generation
        self.key = key
        self.plan = plan
        self.atlas = atlas
        self.capped = capped
        lastChanged.removeAll(keepingCapacity: true)
        hasMarkers = items.contains { item in
            switch item.kind {
            case .group, .shadowGroup: true
            default: false
            }
        }
        if records.count > Int(Int32.max) / 2 || items.count > Int(Int32.max) / 2 { self.key = nil }
    }

    // MARK: Patching

    /// Marks the changed slots and the records they flag; false (the patch failed) when the
    /// tree's slots do not fit, or a shape waiting for its atlas entry would not be redrawn.
    mutating func beginPatch(changed: [Int], older: Bool, count: Int) -> Bool {
        // The marks stay from one patch to the next while they are the same slots (the plan's).
        let marks = (changed, older ? lastChanged : [])
        if dirty.count != count || marks != dirtyMarks {
            if dirty.count != count {
                dirty = Array(repeating: false, count: count)
            } else {
                for s in dirtyMarks.0 where s < count { dirty[s] = false }
                for s in dirtyMarks.1 where s < count { dirty[s] = false }
            }
            for s in changed where s < count { dirty[s] = true }
            if older { for s in lastChanged where s < count { dirty[s] = true } }
            dirtyMarks = marks
        }
        // The changed slots are the plan's animated ones, the same for every patch of a full
        // build (same version, same plan: the same array): the flags are then too.
        let sameFlags = flagsGeneration == generation && flags.count == records.count && changed == flagsChanged
            && (!older || lastChanged == changed)
        if flags.count != records.count { flags = Array(repeating: false, count: records.count) }
        let n = records.count
        var ok = true, shapesKept = false
        records.withUnsafeBufferPointer { records in
            dirty.withUnsafeBufferPointer { dirty in
                flags.withUnsafeMutableBufferPointer { flags in
                    if sameFlags { ok = true } else {
                    for r in 0..<n { flags[r] = false }
                    var r = n - 1
                    while r >= 0 {
                        let slot = Int(records[r].slot)
                        guard slot >= 0, slot < count else { ok = false; return }
                        if dirty[slot] { flags[r] = true }
                        if flags[r], records[r].parent >= 0 { flags[Int(records[r].parent)] = true }
                        r -= 1
                    }
                    }
                    // A shape waiting for its atlas entry that the patch would keep as it was.
                    for r in pendingShapes where Int(r) < n && !flags[Int(r)] {
                        shapesKept = true
                        return
                    }
                }
            }
        }
        if ok && !sameFlags {
            flagsGeneration = generation
            flagsChanged = changed
        } else if !ok {
            flagsGeneration = 0
        }
        swap(&changedRanges, &spareChangedRanges)
        changedRanges.removeAll(keepingCapacity: true)
        swap(&motionRanges, &spareMotionRanges)
        motionRanges.removeAll(keepingCapacity: true)
        openChanged = OpenRange()
        openMotion = OpenRange()
        patching = true
        failed = false
        failure = nil
        if !ok { fail(.slots) } else if shapesKept { fail(.shapeAtlas) }
        forcing = false
        moved = 0
        moving.begin()
        cursor = 0
        clipCursor = 0
        return ok && !shapesKept
    }

    /// Clears the marks; whether the patch succeeded (every item and clip rewritten in place).
    mutating func endPatch(changed: [Int], older: Bool, items: Int, clips: Int) -> Bool {
        patching = false
        flushChanged()
        let ok = !failed && cursor == items && clipCursor == clips
        if ok {
            itemsGeneration = generation
            lastChanged = changed
        } else {
            itemsGeneration = 0
            moving.invalidate()
            let reason = failure ?? .counts
            failures[reason.rawValue] += 1
            // An atlas transition is settled by the full build that follows: no backoff, unless
            // the last patch failed too (shapes that keep changing scale).
            backoff = reason == .shapeAtlas && !failedLast ? 0 : backoffAfterFailure
        }
        failedLast = !ok
        return ok
    }
}

extension DrawListBuilder {
    func retainedKey(_ tree: LayerTree) -> Retained.Key {
        Retained.Key(lineage: tree.lineage, version: tree.version, count: tree.count, widthPoints: widthPoints,
                     heightPoints: heightPoints, scale: scale, background: background, imagesVersion: imagesVersion)
    }

    // MARK: Patching

    /// The previous list patched for `tree`, or nil when a full build is needed.
    mutating func patch(_ tree: LayerTree) -> DrawList? {
        lastPatched = false
        guard !retainedDisabled, let key = retained.key, !retained.capped else { return nil }
        if retained.backoff > 0 { retained.backoff -= 1; return nil }
        guard key == retainedKey(tree), let changed = tree.presentationChangedSlots,
              tree.nodes.slot(of: .root) != nil else { return nil }
        // Shapes about to move into the shape atlas (or its restart, or a new base): a full build.
        guard !usesShapeAtlas || shapeAtlas.isSettled else {
            retained.failures[Retained.Failure.shapeAtlas.rawValue] += 1
            return nil
        }
        let older: Bool
        if retained.itemsGeneration == retained.generation && retained.spareGeneration == retained.generation {
            older = true   // the list before last, of this full build: re-emit the last frame's changes too
        } else if retained.spareGeneration == retained.generation {
            older = false  // a copy of the last list (made on the first write)
            items = spareItems
            clips = spareClips
        } else {
            return nil
        }
        shapeAtlas.beginFrame(lastSerial + 1)
        // Once per full build: the plan (and so which slots only move) is the model's.
        if retained.motionGeneration != retained.generation {
            retained.motion.removeAll(keepingCapacity: true)
            if !tree.markMotionOnlySlots(&retained.motion) { retained.motion.removeAll() }
            retained.depthAnimated = retained.motion.isEmpty || retained.motion.contains { $0.contains(.depth) }
            retained.motionGeneration = retained.generation
        }
        if retained.beginPatch(changed: changed, older: older, count: tree.count) {
            shadowSourceItems = 0
            openGroups = 0
            shadowSourceDepth = 0
            tree.nodes.withUnsafeNodes { nodes in
                let toPixels = Transform3D.scale(scale, scale, 1)
                patchChildren(0..<retained.records.count, tree.nodes, nodes, parentToPixels: toPixels, parentOpacity: 1,
                              clip: -1)
                if !retained.failed { runMoves(store: tree.nodes, nodes) }
            }
        }
        guard retained.endPatch(changed: changed, older: older, items: items.count, clips: clips.count) else {
            return nil
        }
        lastPatched = true
        let plan = retained.hasMarkers ? planner.plan(items, width: pixelWidth, height: pixelHeight) : retained.plan
        let base = lastSerial
        lastSerial += 1
        var list = DrawList(width: pixelWidth, height: pixelHeight, clearColor: background, items: items, clips: clips,
                            plan: plan)
        list.serial = lastSerial
        list.textAtlas = retained.atlas
        list.shapeAtlas = shapeAtlas.endFrame()
        // The items outside the changed visits are the previous list's (those changed last
        // frame, when this buffer is the list before last, are changed ones now too).
        list.patch = DrawList.Patch(base: base, ranges: retained.changedRanges, motionRanges: retained.motionRanges,
                                    hasMarkers: retained.hasMarkers)
        return list
    }

    /// A patch's walk over one batch of sibling visits (see `Retained`): the zPosition order
    /// checked, flagged visits re-emitted (all of them under a changed layer), others skipped.
    mutating func patchChildren(_ batch: Range<Int>, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        var c = batch.lowerBound
        var previousZ = -Double.infinity
        var previousIndex: Int32 = -1
        let depthAnimated = retained.depthAnimated
        var context: Int16 = -1
        // The batch as the last patch made it, when nothing in it can differ (DrawListBuilder+Moves.swift).
        if !depthAnimated, !batch.isEmpty, replaySteadyBatch(batch, parentToPixels: parentToPixels,
                                                             parentOpacity: parentOpacity, clip: clip) { return }
        var steady = Retained.SteadyRecorder(batch: batch, moves: retained.moving.list.count,
                                             ranges: retained.moving.ranges.count, forcing: retained.forcing)
        while c < batch.upperBound, !retained.failed {
            let record = retained.records[c]
            let slot = Int(record.slot)
            // With no zPosition animated, every zPosition is the model's, as in the full build.
            if depthAnimated {
                let z = nodes[slot].properties.zPosition
                guard !z.isNaN && (z > previousZ || (z == previousZ && record.childIndex > previousIndex)) else {
                    retained.fail(.order); return
                }
                previousZ = z
                previousIndex = record.childIndex
            }
            guard retained.cursor == Int(record.itemStart), retained.clipCursor == Int(record.clipStart) else {
                retained.fail(.counts); return
            }
            if retained.forcing || retained.flags[c] {
                // (Past 32,767 batches with such visits, the rest are moved where they are.)
                if canDefer(c, record), context >= 0 || retained.moving.contexts.count < Int(Int16.max) {
                    // Moved after the walk (`runMoves`); a failure there fails the patch (for
                    // such a visit it is a culling change).
                    if context < 0 {
                        context = Int16(retained.moving.contexts.count)
                        retained.moving.contexts.append(Retained.MoveContext(parentToPixels: parentToPixels,
                                                                             parentOpacity: parentOpacity, clip: clip))
                    }
                    retained.moving.list.append(Retained.Move(slot: record.slot, itemStart: record.itemStart,
                                                              itemEnd: record.itemEnd, record: Int32(truncatingIfNeeded: c),
                                                              context: context, kind: record.moveKind,
                                                              doubleSided: record.doubleSided))
                    retained.cursor = Int(record.itemEnd)
                    retained.clipCursor = Int(record.clipEnd)
                    if !retained.forcing && retained.dirty[slot] {
                        retained.noteChanged(Int(record.itemStart)..<Int(record.itemEnd), motionOnly: true)
                        steady.note(Int(record.itemStart)..<Int(record.itemEnd), &retained.moving.ranges)
                    }
                    c = Int(record.subtreeEnd)
                    continue
                }
                steady.isSteady = false
                let forcing = retained.forcing
                // A changed layer under no changed one: its whole visit has new values.
                let changed = !forcing && retained.dirty[slot]
                if changed { retained.forcing = true }
                retained.records[c].drawnNow = false
                let moved = moveLeaf(c, record, nodes, parentToPixels: parentToPixels, parentOpacity: parentOpacity)
                if !moved {
                    retained.records[c].moveKind = .reemitted
                    visit(slot, c, store, nodes, parentToPixels: parentToPixels, parentOpacity: parentOpacity, clip: clip)
                }
                retained.forcing = forcing
                if retained.records[c].drawnNow != record.drawn {
                    retained.fail(.culling); return
                }
                if retained.cursor != Int(record.itemEnd) || retained.clipCursor != Int(record.clipEnd) {
                    retained.fail(.counts); return
                }
                if changed { retained.noteChanged(Int(record.itemStart)..<Int(record.itemEnd), motionOnly: moved) }
            } else {
                retained.cursor = Int(record.itemEnd)
                retained.clipCursor = Int(record.clipEnd)
            }
            c = Int(record.subtreeEnd)
        }
        if !depthAnimated && !retained.failed { steady.end(&retained.moving, cursor: retained.cursor, clipCursor: retained.clipCursor) }
    }
}
