import LaminaGeometry
import LaminaModel
import LaminaTree

/// The one reuse contract of the draw list: a build of the same model as the last full build
/// — the same tree (`LayerTree.lineage`) at the same `version`, so the same structure and
/// model values, with only the animated layers' presentation values changed
/// (`LayerTree.presentationChangedSlots`) — is the last list patched in place, or nothing
/// (then the builder walks the whole tree, the reference path).
///
/// `DrawListBuilder`'s full build records each layer visit in painter's order (`VisitRecord`:
/// its slot, its parent visit, the ranges of items and clips it and its subtree made, where
/// its real sublayers start after a blurred shadow's source, its index among its siblings,
/// whether it passed the culling); the patcher adopts them (`adopt`). A patch flags every
/// visit with a changed layer in or under it and walks the records from the root
/// (`patchChildren`), taking each visit one of four ways:
/// - **skip**: nothing in it changed — its items stay as they are;
/// - **move**: a leaf changed only in placement or opacity (or under a layer that was) — its
///   items' transforms and opacities are written in place (DrawListPatcher+Motion.swift, and
///   after the walk DrawListPatcher+Moves.swift);
/// - **descend**: a layer that did not change, above changed ones — its own items stay, its
///   sublayers' batches are walked with its placement, opacity and clip;
/// - **re-emit**: any other changed layer — the builder makes its own items again
///   (`DrawListBuilder.reemitOwnItems`; with a blurred shadow, whose source is its subtree,
///   the whole visit: `reemitSubtree`), appending into scratch as every build does, and the
///   patcher splices them in at the recorded places; under it everything is changed.
/// A re-emitted visit must make exactly its recorded counts of items and clips and the same
/// culling (a subtree re-emitted whole: the same records), and siblings must still be in
/// zPosition order; so every item lands where a full build puts it, and the skipped items are
/// what a full build would make of their unchanged inputs. Anything else — a group opacity or
/// a shadow or a clip appearing or going, a culling change, a zPosition reorder, a shape's new
/// scale bucket (no tessellation in a patch), a text layer to draw anew (one that only moved
/// at the same layout scale is moved), a contents cross-fade to draw,
/// other images, size or scale — makes the patch fail (`Failure`, counted by reason) and the
/// frame a full build, which records anew.
///
/// The result is the list and its `FrameDelta`: the item ranges rewritten with new values and
/// those of them only moved or faded (the renderer writes their instances' motion part alone).
///
/// Buffers: the builder alternates two item and clip buffers (the caller keeps the previous
/// list). A patch writes into the buffer of the list before last when that holds a list of
/// the same full build (its stale items are those of the layers changed since then: this
/// frame's and the last frame's changed slots), else into a copy of the last list (once after
/// each full build).
struct DrawListPatcher {
    /// What a list was built from: a patch needs the same.
    struct Key: Equatable {
        var lineage: UInt64
        var version: UInt64
        var count: Int
        var widthPoints: Double, heightPoints: Double, scale: Double
        var background: Color
        var imagesVersion: UInt64
    }

    /// The last full build's visits (`VisitRecords.list`).
    var records: [VisitRecord] = []
    /// The visits of the last full build whose shape drew its meshes but may get a shape atlas
    /// entry next frame: a patch that does not redraw one of them gives way to a full build.
    var pendingShapes: [Int32] = []
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

    /// Whether every build is a full one (`patchesInPlace` false).
    var disabled = false
    /// Whether the last build was a patch.
    var lastPatched = false

    // Patching state.
    /// Offscreen groups open and blurred shadows' sources entered at the visit being patched
    /// (the builder's, as its walk would have them there).
    var openGroups = 0
    var shadowSourceDepth = 0
    /// The builder's scratch buffers for re-emitted items and clips (kept between patches).
    var scratchItems: [DrawItem] = []
    var scratchClips: [Clip] = []
    private(set) var failed = false
    var forcing = false
    var cursor = 0
    var clipCursor = 0
    /// Per slot: changed this frame (or the last, for the older buffer); only read by patches,
    /// and left marked from one to the next (`dirtyMarks`: the slots marked).
    var dirty: [Bool] = []
    var dirtyMarks: ([Int], [Int]) = ([], [])
    /// Per slot: changed, but only moved or faded (`LayerTree.markMotionOnlySlots`); its
    /// items may be moved in place (DrawListPatcher+Motion.swift). `.spare` marks the slots
    /// whose `statics` are filled (for this full build), `.spare2` those of them whose kept
    /// anchorPointZ and zPosition are both +0 (then only a shadow needs `statics`).
    var motion: [MotionSlotFlags] = []
    /// Per slot (filled on first use by `moveLeaf`): the model's `LeafStatics`.
    var statics: [LeafStatics] = []
    /// The leaf visits moved after the walk, and the batches of siblings replayed from the
    /// last patch (DrawListPatcher+Moves.swift).
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
    /// Visits the last patch descended (own items kept), re-emitted its own items of, and
    /// re-emitted whole (tests, `lamina-bench build`).
    var descended = 0, reemittedOwn = 0, reemittedWhole = 0
    /// Layers with sublayers (or a clip of their own) whose own items the last patch moved in
    /// place (tests, `lamina-bench build`).
    var movedOwn = 0
    /// Whether the last visit's own items were moved in place with its clip (`moveOwnItems`):
    /// for a leaf, the whole visit changed in transform and opacity only (its clip record is
    /// rewritten, and the renderer uploads every clip each frame).
    var lastVisitMovedOwn = false
    /// Visits `runMoves` re-emitted (a shape atlas entry that no longer fits), since the
    /// builder was made (tests).
    var reemittedAfterWalk = 0
    var spareChangedRanges: [Range<Int>] = []
    /// `changedRanges` merged, ascending (`checkGroupElision`'s scratch).
    var rewritten: [Range<Int>] = []

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

    // MARK: Adopting a full build

    /// An empty patcher (moved in while the builder's is at work: allocates nothing).
    static var placeholder: DrawListPatcher { DrawListPatcher(failures: []) }

    init() {}
    private init(failures: [Int]) { self.failures = failures }

    /// Takes the records of the full build just made (the old ones are let go: the builder's
    /// records are only a re-emission's scratch until the next full build).
    mutating func adopt(_ made: inout VisitRecords, key: Key, items: [DrawItem], plan: FramePlan,
                        atlas: TextAtlasState?, capped: Bool) {
        swap(&records, &made.list)
        swap(&pendingShapes, &made.pendingShapes)
        made.list = []
        generation &+= 1
        moving.invalidate()
        itemsGeneration = generation
        self.key = key
        self.plan = plan
        self.atlas = atlas
        self.capped = capped
        lastChanged.removeAll(keepingCapacity: true)
        hasMarkers = items.contains { $0.isMarker }
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
        failed = false
        failure = nil
        if !ok { fail(.slots) } else if shapesKept { fail(.shapeAtlas) }
        forcing = false
        moved = 0
        descended = 0
        movedOwn = 0
        reemittedOwn = 0
        reemittedWhole = 0
        moving.begin()
        cursor = 0
        clipCursor = 0
        return ok && !shapesKept
    }

    /// Fails the patch (`groupElision`) where the full build would decide a group opacity group
    /// otherwise than the patched list has it (`DrawListBuilder.drawsApart`, asked of the
    /// patched items): a kept group whose items now draw apart, or an elided one whose items no
    /// longer do. (An elided group whose layer is visited is re-emitted whole by `revisit`: its
    /// opacity is in its items.) Only groups with an item in `changedRanges` are asked: every
    /// other item is the list's this patch started from, whose groups were decided on them.
    mutating func checkGroupElision(_ builder: inout DrawListBuilder) {
        guard builder.elidesGroups, !builder.opacityGroups.isEmpty else { return }
        flushChanged()
        rewritten.removeAll(keepingCapacity: true)
        rewritten.append(contentsOf: changedRanges)
        FrameDeltaHistory.merge(&rewritten)   // ascending and disjoint
        for k in builder.opacityGroups.indices {
            let (marker, end) = builder.opacityGroups[k]
            guard marker < end, end <= builder.items.count else { fail(.groupElision); return }
            // The first rewritten range ending past the marker: the group is untouched unless it starts before `end`.
            var low = 0, high = rewritten.count
            while low < high {
                let mid = (low + high) / 2
                if rewritten[mid].upperBound <= marker { low = mid + 1 } else { high = mid }
            }
            guard low < rewritten.count, rewritten[low].lowerBound < end else { continue }
            let kept = builder.items[marker].isGroupMarker
            guard kept || builder.items[marker].isElidedGroupMarker else { fail(.groupElision); return }
            if builder.drawsApart(marker + 1..<end) == kept { fail(.groupElision); return }
        }
    }

    /// Clears the marks; whether the patch succeeded (every item and clip rewritten in place).
    mutating func endPatch(changed: [Int], older: Bool, items: Int, clips: Int) -> Bool {
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
    /// What a list is built from: a patch needs the same.
    func patchKey(_ tree: LayerTree) -> DrawListPatcher.Key {
        DrawListPatcher.Key(lineage: tree.lineage, version: tree.version, count: tree.count, widthPoints: widthPoints,
                            heightPoints: heightPoints, scale: scale, background: background, imagesVersion: imagesVersion)
    }
}

extension DrawListPatcher {
    /// The previous list patched for `tree`, or nil when a full build is needed.
    mutating func patch(_ tree: LayerTree, _ builder: inout DrawListBuilder) -> DrawList? {
        lastPatched = false
        guard !disabled, let key, !capped else { return nil }
        if backoff > 0 { backoff -= 1; return nil }
        guard key == builder.patchKey(tree), let changed = tree.presentationChangedSlots,
              tree.nodes.slot(of: .root) != nil else { return nil }
        // Shapes about to move into the shape atlas (or its restart, or a new base): a full build.
        guard !builder.usesShapeAtlas || builder.shapeAtlas.isSettled else {
            failures[Failure.shapeAtlas.rawValue] += 1
            return nil
        }
        let older: Bool
        if itemsGeneration == generation && spareGeneration == generation {
            older = true   // the list before last, of this full build: re-emit the last frame's changes too
        } else if spareGeneration == generation {
            older = false  // a copy of the last list (made on the first write)
            builder.items = builder.spareItems
            builder.clips = builder.spareClips
        } else {
            return nil
        }
        builder.shapeAtlas.beginFrame(builder.lastSerial + 1)
        // Once per full build: the plan (and so which slots only move) is the model's.
        if motionGeneration != generation {
            motion.removeAll(keepingCapacity: true)
            if !tree.markMotionOnlySlots(&motion) { motion.removeAll() }
            depthAnimated = motion.isEmpty || motion.contains { $0.contains(.depth) }
            motionGeneration = generation
        }
        if beginPatch(changed: changed, older: older, count: tree.count) {
            openGroups = 0
            shadowSourceDepth = 0
            tree.nodes.withUnsafeNodes { nodes in
                let toPixels = Transform3D.scale(builder.scale, builder.scale, 1)
                patchChildren(0..<records.count, tree.nodes, nodes, &builder, parentToPixels: toPixels, parentOpacity: 1,
                              clip: -1)
                if !failed { runMoves(store: tree.nodes, nodes, &builder) }
                if !failed { checkGroupElision(&builder) }
            }
        }
        guard endPatch(changed: changed, older: older, items: builder.items.count, clips: builder.clips.count) else {
            return nil
        }
        lastPatched = true
        let plan = hasMarkers ? builder.planner.plan(builder.items, width: builder.pixelWidth, height: builder.pixelHeight)
            : self.plan
        let base = builder.lastSerial
        builder.lastSerial += 1
        var list = DrawList(width: builder.pixelWidth, height: builder.pixelHeight, clearColor: builder.background,
                            items: builder.items, clips: builder.clips, plan: plan)
        list.serial = builder.lastSerial
        list.textAtlas = atlas
        list.shapeAtlas = builder.shapeAtlas.endFrame()
        list.framePage = builder.shapeAtlas.framePage
        // The items outside the changed visits are the previous list's (those changed last
        // frame, when this buffer is the list before last, are changed ones now too).
        list.delta = FrameDelta(base: base, rewritten: changedRanges, motionOnly: motionRanges, hasMarkers: hasMarkers)
        return list
    }

    /// A patch's walk over one batch of sibling visits: the zPosition order checked, each
    /// flagged visit moved, descended or re-emitted (all of them under a changed layer),
    /// others skipped.
    mutating func patchChildren(_ batch: Range<Int>, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                _ builder: inout DrawListBuilder,
                                parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        var c = batch.lowerBound
        var previousZ = -Double.infinity
        var previousIndex: Int32 = -1
        let depthAnimated = self.depthAnimated
        var context: Int16 = -1
        // The batch as the last patch made it, when nothing in it can differ (DrawListPatcher+Moves.swift).
        if !depthAnimated, !batch.isEmpty, replaySteadyBatch(batch, parentToPixels: parentToPixels,
                                                             parentOpacity: parentOpacity, clip: clip) { return }
        var steady = SteadyRecorder(batch: batch, moves: moving.list.count, ranges: moving.ranges.count, forcing: forcing)
        while c < batch.upperBound, !failed {
            let record = records[c]
            let slot = Int(record.slot)
            // With no zPosition animated, every zPosition is the model's, as in the full build.
            if depthAnimated {
                let z = nodes[slot].properties.zPosition
                guard !z.isNaN && (z > previousZ || (z == previousZ && record.childIndex > previousIndex)) else {
                    fail(.order); return
                }
                previousZ = z
                previousIndex = record.childIndex
            }
            guard cursor == Int(record.itemStart), clipCursor == Int(record.clipStart) else {
                fail(.counts); return
            }
            if forcing || flags[c] {
                // (Past 32,767 batches with such visits, the rest are moved where they are.)
                if canDefer(c, record), context >= 0 || moving.contexts.count < Int(Int16.max) {
                    // Moved after the walk (`runMoves`); a failure there fails the patch (for
                    // such a visit it is a culling change).
                    if context < 0 {
                        context = Int16(moving.contexts.count)
                        moving.contexts.append(MoveContext(parentToPixels: parentToPixels, parentOpacity: parentOpacity,
                                                           clip: clip))
                    }
                    moving.list.append(Move(slot: record.slot, itemStart: record.itemStart, itemEnd: record.itemEnd,
                                            record: Int32(truncatingIfNeeded: c), context: context, kind: record.moveKind,
                                            doubleSided: record.doubleSided))
                    cursor = Int(record.itemEnd)
                    clipCursor = Int(record.clipEnd)
                    if !forcing && dirty[slot] {
                        noteChanged(Int(record.itemStart)..<Int(record.itemEnd), motionOnly: true)
                        steady.note(Int(record.itemStart)..<Int(record.itemEnd), &moving.ranges)
                    }
                    c = Int(record.subtreeEnd)
                    continue
                }
                steady.isSteady = false
                let forcing = self.forcing
                // A changed layer under no changed one: its whole visit has new values.
                let changed = !forcing && dirty[slot]
                if changed { self.forcing = true }
                records[c].drawnNow = false
                var moved = moveLeaf(c, record, nodes, &builder, parentToPixels: parentToPixels, parentOpacity: parentOpacity)
                if !moved {
                    lastVisitMovedOwn = false
                    revisit(c, record, store, nodes, &builder, parentToPixels: parentToPixels, parentOpacity: parentOpacity,
                            clip: clip)
                    // A leaf with a clip of its own (a square masksToBounds) moved in place.
                    moved = lastVisitMovedOwn && Int(record.subtreeEnd) == c + 1
                }
                self.forcing = forcing
                if failed { return }
                if records[c].drawnNow != record.drawn {
                    fail(.culling); return
                }
                if cursor != Int(record.itemEnd) || clipCursor != Int(record.clipEnd) {
                    fail(.counts); return
                }
                if changed { noteChanged(Int(record.itemStart)..<Int(record.itemEnd), motionOnly: moved) }
            } else {
                cursor = Int(record.itemEnd)
                clipCursor = Int(record.clipEnd)
            }
            c = Int(record.subtreeEnd)
        }
        if !depthAnimated && !failed { steady.end(&moving, cursor: cursor, clipCursor: clipCursor) }
    }
}

extension DrawListPatcher {
    /// The kinds of a leaf visit's items, as far as moving them in place goes
    /// (DrawListPatcher+Motion.swift). Both buffers hold the full build's kinds at a visit's
    /// positions until a patch re-emits it, so what one buffer shows holds for the other.
    enum MoveKind: UInt8 {
        /// Not looked at since the full build: each item's payload is read.
        case unknown
        /// Rects, gradients and the layer's contents image only: each item takes the transform
        /// and opacity.
        case plain
        /// An analytic shadow (first, as a visit draws it), then rects, gradients and contents.
        case shadowFirst
        /// Shape atlas entries or text glyph runs (with rects and gradients): each item's payload
        /// is read and an entry's or a run's scale checked every time (`moveItems`).
        case atlas
        /// Other kinds: not moved in place.
        case mixed
        /// Re-emitted by a patch since the full build: the buffers may differ; read every time.
        case reemitted
    }

    /// A layer's model values that placing it needs and that live in its rare-properties box
    /// (a pointer away): kept per slot for layers that do not animate them (`moveLeaf`).
    struct LeafStatics {
        var anchorPointZ: Double, zPosition: Double
        var shadowOffset: Size
    }

    /// Why a patch gave up (the first reason of each failed patch is counted in `failures`).
    enum Failure: Int, CaseIterable {
        /// A visit made other counts of items or clips than recorded (a group, shadow or clip
        /// appearing or going; a shape drawn from other meshes).
        case counts
        /// A layer passed the culling where it did not, or the reverse.
        case culling
        /// Siblings no longer in zPosition order.
        case order
        /// A shape needs a mesh it did not draw last frame (no tessellation in a patch).
        case newMesh
        /// A shape would be drawn from the shape atlas where it drew meshes (or the atlas
        /// starts over): the next full build settles it, so no backoff follows.
        case shapeAtlas
        /// A text layer to draw.
        case text
        /// A contents cross-fade to draw.
        case contentsFade
        /// A tiled layer to draw (its tiles follow its device transform and arrive over time).
        case tiled
        /// The blurred shadows' item cap reached.
        case shadowCap
        /// The tree's slots do not fit the records.
        case slots
        /// Items or clips past the recorded list's end.
        case overflow
        /// A group opacity group kept whose items now draw apart, or one elided
        /// (`DrawListBuilder.drawsApart`) whose items no longer do: the full build decides from
        /// the items it makes.
        case groupElision
    }
}

extension DrawListBuilder {
    /// Whether builds patch the previous list when they can (true); false makes every build
    /// a full one (tests' reference path, benchmarks' comparison).
    public var patchesInPlace: Bool {
        get { !patcher.disabled }
        set { patcher.disabled = !newValue; if !newValue { patcher.key = nil } }
    }

    /// How the last patch took the visits it did not skip (`DrawListPatcher`): leaves moved in
    /// place, unchanged layers descended, changed layers whose own items were re-emitted, and
    /// visits re-emitted whole. Zero after a full build.
    public struct PatchWays: Sendable, Equatable {
        public var moved = 0, descended = 0, reemittedOwn = 0, reemittedWhole = 0
        public init(moved: Int = 0, descended: Int = 0, reemittedOwn: Int = 0, reemittedWhole: Int = 0) {
            self.moved = moved; self.descended = descended; self.reemittedOwn = reemittedOwn
            self.reemittedWhole = reemittedWhole
        }
    }
    public var lastPatchWays: PatchWays {
        guard patcher.lastPatched else { return PatchWays() }
        return PatchWays(moved: patcher.moved + patcher.movedOwn, descended: patcher.descended, reemittedOwn: patcher.reemittedOwn,
                         reemittedWhole: patcher.reemittedWhole)
    }

    /// Whether the last `build` patched the previous list (else it walked the whole tree).
    public var lastBuildPatched: Bool { patcher.lastPatched }

    /// Builds of the same model that were not patched, by reason (`DrawListPatcher.Failure`'s case
    /// names; `shapeAtlas` also counts builds not tried as patches while shapes wait for
    /// atlas entries), since the builder was made; reasons that never happened are left out.
    public var patchFailures: [String: Int] {
        var out: [String: Int] = [:]
        for reason in DrawListPatcher.Failure.allCases where reason.rawValue < patcher.failures.count
            && patcher.failures[reason.rawValue] > 0 {
            out["\(reason)"] = patcher.failures[reason.rawValue]
        }
        return out
    }

    /// Lets go of the buffers of the list before last (the render thread calls it before it
    /// sleeps: an idle scene then keeps one list's items, not two). The next build patches a
    /// copy of the last list, or builds in full.
    public mutating func releaseSpareBuffers() {
        spareItems = []
        spareClips = []
        patcher.spareGeneration = 0
        patcher.spareChangedRanges = []
        patcher.spareMotionRanges = []
    }

    /// Lets go of the retained list's records and per-slot marks (40 bytes and a few flags a
    /// layer): the next build is a full one, which records anew.
    public mutating func releaseRetainedRecords() {
        patcher.key = nil
        patcher.records = []
        patcher.flags = []
        patcher.flagsGeneration = 0
        patcher.flagsChanged = []
        patcher.dirty = []
        patcher.dirtyMarks = ([], [])
        patcher.motion = []
        patcher.statics = []
        patcher.moving = DrawListPatcher.Moves()
        patcher.motionGeneration = 0
        patcher.pendingShapes = []
        patcher.lastChanged = []
        patcher.changedRanges = []
        patcher.spareChangedRanges = []
        patcher.rewritten = []
        patcher.motionRanges = []
        patcher.spareMotionRanges = []
        // The scratch a re-emission used (its subtree's items and clips) and the records'.
        patcher.scratchItems = []
        patcher.scratchClips = []
        records = VisitRecords()
    }
}
