import LaminaGeometry
import LaminaTree

// The retained list's kinds, switches and emitting (DrawListBuilder+Patch.swift has the records and the walk).

extension Retained {
    /// The kinds of a leaf visit's items, as far as moving them in place goes
    /// (DrawListBuilder+Motion.swift). Both buffers hold the full build's kinds at a visit's
    /// positions until a patch re-emits it, so what one buffer shows holds for the other.
    enum MoveKind: UInt8 {
        /// Not looked at since the full build: each item's payload is read.
        case unknown
        /// Rects and gradients only: each item takes the transform and opacity.
        case plain
        /// An analytic shadow (first, as a visit draws it), then rects and gradients.
        case shadowFirst
        /// Shape atlas entries (with rects and gradients): each item's payload is read and an
        /// entry checked every time (`moveItems`).
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
        /// The blurred shadows' item cap reached.
        case shadowCap
        /// The tree's slots do not fit the records.
        case slots
        /// Items or clips past the recorded list's end.
        case overflow
    }
}

extension DrawListBuilder {
    /// Whether builds patch the previous list when they can (true); false makes every build
    /// a full one (tests' reference path, benchmarks' comparison).
    public var patchesInPlace: Bool {
        get { !retainedDisabled }
        set { retainedDisabled = !newValue; if !newValue { retained.key = nil } }
    }

    /// Whether the last `build` patched the previous list (else it walked the whole tree).
    public var lastBuildPatched: Bool { lastPatched }

    /// Builds of the same model that were not patched, by reason (`Retained.Failure`'s case
    /// names; `shapeAtlas` also counts builds not tried as patches while shapes wait for
    /// atlas entries), since the builder was made; reasons that never happened are left out.
    public var patchFailures: [String: Int] {
        var out: [String: Int] = [:]
        for reason in Retained.Failure.allCases where retained.failures[reason.rawValue] > 0 {
            out["\(reason)"] = retained.failures[reason.rawValue]
        }
        return out
    }

    /// Lets go of the buffers of the list before last (the render thread calls it before it
    /// sleeps: an idle scene then keeps one list's items, not two). The next build patches a
    /// copy of the last list, or builds in full.
    public mutating func releaseSpareBuffers() {
        spareItems = []
        spareClips = []
        retained.spareGeneration = 0
        retained.spareChangedRanges = []
        retained.spareMotionRanges = []
    }

    /// Lets go of the retained list's records and per-slot marks (40 bytes and a few flags a
    /// layer): the next build is a full one, which records anew.
    public mutating func releaseRetainedRecords() {
        retained.key = nil
        retained.records = []
        retained.flags = []
        retained.flagsGeneration = 0
        retained.flagsChanged = []
        retained.dirty = []
        retained.dirtyMarks = ([], [])
        retained.motion = []
        retained.statics = []
        retained.moving = Retained.Moves()
        retained.motionGeneration = 0
        retained.pendingShapes = []
        retained.lastChanged = []
        retained.changedRanges = []
        retained.spareChangedRanges = []
        retained.motionRanges = []
        retained.spareMotionRanges = []
    }

    // MARK: Emitting (appends in a full build, overwrites in place in a patch)

    /// Where the next item goes.
    var itemPosition: Int { retained.patching ? retained.cursor : items.count }
    var clipPosition: Int { retained.patching ? retained.clipCursor : clips.count }

    @inline(__always)
    mutating func emit(_ item: consuming DrawItem) {
        if retained.patching {
            if retained.cursor < items.count { items[retained.cursor] = item } else { retained.fail(.overflow) }
            retained.cursor += 1
        } else {
            items.append(item)
        }
    }

    /// Sets a group marker's kind (its count once its items are made).
    @inline(__always)
    mutating func setKind(_ kind: DrawItem.Kind, at marker: Int) {
        if marker < items.count { items[marker].kind = kind } else { retained.fail(.overflow) }
    }

    /// Takes back the items from `marker` on (an empty or capped blurred shadow).
    mutating func unemit(to marker: Int) {
        if retained.patching { retained.cursor = marker } else { items.removeSubrange(marker...) }
    }

    /// Appends (or rewrites) a clip; its index.
    @inline(__always)
    mutating func emitClip(_ clip: Clip) -> Int {
        if retained.patching {
            let index = retained.clipCursor
            if index < clips.count { clips[index] = clip } else { retained.fail(.overflow) }
            retained.clipCursor += 1
            return index
        }
        clips.append(clip)
        return clips.count - 1
    }
}
