import CVulkan
import LaminaFrame

/// One frame in flight: its command buffers, fence, instance ring and clip buffer.
struct FrameSlot {
    /// The frame's passes (`PassRecorder.record`), submitted again while `recorded` matches.
    let commandBuffer: VkCommandBuffer
    /// The window copy and end timestamp (`PassRecorder.recordTail`), recorded every frame.
    let tailBuffer: VkCommandBuffer
    let fence: VkFence
    /// Instance ring buffer for this slot (instances packed at their kinds' strides), sized to
    /// the need in bytes (`sizeInstanceRing`).
    var instances: VulkanBuffer?
    /// This frame's `ClipRecord`s (at least `minimumRecords`' room, so the descriptor is
    /// always valid), sized to the need as the ring. `clipSet` points at it.
    var clips: VulkanBuffer?
    let clipSet: VkDescriptorSet
    /// Set 1 of the rect/mesh layout: the mesh arena, as `arenaBuffer` (the buffer it was last
    /// pointed at; the arena's buffer changes when it is rebuilt).
    let arenaSet: VkDescriptorSet
    var arenaBuffer: VkBuffer?
    /// The frame submitted with `fence` and not yet waited for.
    var pendingFrame: UInt64?
    /// What `commandBuffer`'s passes were recorded with, nil when they must be recorded again.
    var recorded: OffscreenRenderer.RecordingKey?
    /// Bumped when the slot's ring or clip buffer is replaced or a set of its is updated.
    var changes: UInt64 = 0

    /// Smallest ring or clip buffer, in instances or records.
    static let minimumRecords = 64

    /// The room to give `need` instances or records: an eighth more (and a minimum), so that a
    /// count that moves a little does not replace the buffer every frame.
    static func room(for need: Int) -> Int { need + need / 8 + minimumRecords }

    /// Whether a buffer of `capacity` is too small for `need`, or so much larger (over a
    /// quarter more than `room(for:)`) that it is replaced by a smaller one.
    static func needsResize(capacity: Int, need: Int) -> Bool {
        capacity < need || capacity > room(for: need) + room(for: need) / 4
    }

    /// Bytes of the instance ring's unit: one vec4 (instance strides are multiples of it).
    static let ringUnit = 16

    /// The ring's bytes for `need` bytes of instances: `room(for:)` in vec4s.
    static func ringRoom(for need: Int) -> Int { room(for: (need + ringUnit - 1) / ringUnit) * ringUnit }

    /// `needsResize` of a ring of `capacity` bytes for `need` bytes, in vec4s.
    static func ringNeedsResize(capacity: Int, need: Int) -> Bool {
        needsResize(capacity: capacity / ringUnit, need: (need + ringUnit - 1) / ringUnit)
    }
}

extension OffscreenRenderer {
    /// Bytes of the frame slots' instance rings and clip buffers, for tests and stats.
    public var slotBufferBytes: Int {
        slots.reduce(0) { $0 + ($1.instances?.size ?? 0) + ($1.clips?.size ?? 0) }
    }

    /// Lets go of what idle frame slots hold (the render thread is going to sleep): waits for
    /// the frames in flight, then frees the instance rings and clip buffers of every slot but
    /// the one that drew last (the next frame makes what it needs again) — with `all`, that
    /// one's too: the next frame then writes every instance, not only the changed ones (the
    /// render loop does so once it has been idle a second: `RenderLoop.idleRingReleaseDelay`).
    /// Nothing drawn changes.
    /// - Thread: render thread only.
    public func releaseIdleBuffers(all: Bool = false) throws(RenderError) {
        for index in slots.indices { try finish(slot: index, wait: true) }
        guard frameNumber > 0 else { return }
        let last = all ? -1 : Int((frameNumber - 1) % UInt64(Self.framesInFlight))
        for index in slots.indices where index != last {
            // Its frame has finished: nothing reads the buffers.
            slots[index].instances?.destroy(device)
            slots[index].instances = nil
            slots[index].clips?.destroy(device)
            slots[index].clips = nil
            slots[index].recorded = nil
            slots[index].changes += 1
            encoders[index] = FrameEncoder()
        }
    }

    /// Makes a CPU driver free what it keeps of the last frames it drew (`DriverScratch`);
    /// nothing unless the driver profile says so (`DriverProfile.releasesDriverScratch`). Waits for the frames in flight first. Nothing drawn changes. The
    /// render loop calls it once it has been idle a moment (`RenderLoop.idleReleaseDelay`):
    /// the next frame allocates the driver's memory again.
    /// - Thread: render thread only.
    public func releaseDriverFrameMemory() throws(RenderError) {
        guard let scratch else { return }
        for index in slots.indices { try finish(slot: index, wait: true) }
        // The driver frees on its own thread, into that thread's arena, where the freed
        // blocks join the arena's top: glibc hands a top back only when it exceeds the trim
        // threshold, which the profile raised (`DriverProfile.keptFreedHeap`, where the process
        // adopted that policy), and `malloc_trim` leaves other arenas' tops alone. For the
        // release only, glibc's default threshold.
        try HeapTrim.withDefaultThreshold { () throws(RenderError) in
            try scratch.release(device: device, commands: commands)
        }
    }

    /// Gives the slot a ring that holds `need` bytes of instances with modest room, replacing
    /// one that is too small or far too large (`FrameSlot.ringNeedsResize`). Returns whether it
    /// was replaced (its contents are then undefined).
    func sizeInstanceRing(slot slotIndex: Int, need: Int) throws(RenderError) -> Bool {
        let capacity = slots[slotIndex].instances?.size ?? 0
        guard slots[slotIndex].instances == nil || FrameSlot.ringNeedsResize(capacity: capacity, need: need) else {
            return false
        }
        try replaceInstanceBuffer(slot: slotIndex, capacity: FrameSlot.ringRoom(for: need), keeping: nil)
        return true
    }

    /// Gives the slot a new instance ring buffer of `capacity` bytes (at least `FrameSlot.ringRoom(for: 0)`),
    /// copying `keeping`'s instances (this frame's so far, written into the old buffer) to its
    /// start. The old buffer is retired to this frame (destroyed once it has finished).
    func replaceInstanceBuffer(slot slotIndex: Int, capacity: Int, keeping: RectInstance.Span?) throws(RenderError) {
        let old = slots[slotIndex].instances
        // Whole vec4s (every stride is a multiple of 16).
        let unit = FrameSlot.ringUnit
        let bytes = (max(capacity, FrameSlot.ringRoom(for: 0), keeping?.used ?? 0) + unit - 1) / unit * unit
        let buffer = try VulkanBuffer(device: device, size: bytes, usage: mapFlags(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT))
        if let keeping, keeping.used > 0 {
            // SAFETY: both buffers hold `keeping.used` bytes; no submitted frame reads either
            // (this slot's previous frame has finished). Reading mapped memory back may be slow on
            // a GPU (write-combined), but this happens only when the ring grows.
            buffer.mapped.copyMemory(from: UnsafeRawPointer(keeping.bytes), byteCount: keeping.used)
        }
        if let old { lifetimes.retire(.buffer(old), after: frameNumber) }
        slots[slotIndex].instances = buffer
        slots[slotIndex].changes += 1
    }

    /// Points the slot's arena descriptor set at the mesh arena's buffer when it changed (the
    /// slot's previous frame has finished, so the set is not in use).
    func pointArenaSet(slot slotIndex: Int) {
        guard let arena = meshes.arena.buffer, slots[slotIndex].arenaBuffer != arena.raw else { return }
        slots[slotIndex].arenaBuffer = arena.raw
        slots[slotIndex].changes += 1
        writeBufferDescriptor(device: device, set: slots[slotIndex].arenaSet, buffer: arena.raw)
    }

    /// Writes the frame's clips into the slot's clip buffer (replacing it, sized to the need as
    /// the ring, and pointing the slot's descriptor set at the new one; the old buffer is
    /// retired to this frame). The slot's previous frame has finished, so neither the buffer
    /// nor the set is in use.
    func uploadClips(_ clips: [Clip], slot slotIndex: Int) throws(RenderError) {
        let stride = MemoryLayout<ClipRecord>.stride
        let capacity = (slots[slotIndex].clips?.size ?? 0) / stride
        if slots[slotIndex].clips == nil || FrameSlot.needsResize(capacity: capacity, need: clips.count) {
            if let old = slots[slotIndex].clips { lifetimes.retire(.buffer(old), after: frameNumber) }
            let buffer = try VulkanBuffer(device: device, size: FrameSlot.room(for: clips.count) * stride,
                                          usage: mapFlags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
            slots[slotIndex].clips = buffer
            slots[slotIndex].changes += 1
            writeBufferDescriptor(device: device, set: slots[slotIndex].clipSet, buffer: buffer.raw)
        }
        if !clips.isEmpty, let buffer = slots[slotIndex].clips {
            // SAFETY: the buffer holds at least `clips.count` records, and this slot's previous
            // frame has finished.
            let records = buffer.mapped.bindMemory(to: ClipRecord.self, capacity: clips.count)
            for index in clips.indices { (records + index).initialize(to: ClipRecord(clips, at: index)) }
        }
    }
}

/// The patches (`DrawList.patch`) of the lists a renderer saw lately, newest last: which item
/// ranges changed from each list to the next, whole or in motion only (transform and opacity:
/// `DrawList.Patch.motionRanges`). Copies the ranges into buffers of its own (so the builder's
/// alternating buffers stay unshared). Render thread only.
struct PatchHistory {
    private var serials: [UInt64] = []
    /// The list each was patched from, 0 for a full build (or a list with group markers).
    private var bases: [UInt64] = []
    /// Per list: the ranges changed whole, and those changed in motion only (disjoint).
    private var ranges: [[Range<Int>]] = []
    private var motionRanges: [[Range<Int>]] = []
    private let capacity: Int
    /// Scratch for `changed` (its whole ranges before they are subtracted from the motion ones).
    private var scratch: [Range<Int>] = []

    init(capacity: Int) { self.capacity = capacity }

    /// Notes the next list seen.
    mutating func note(_ list: DrawList) {
        var reused: [Range<Int>] = [], reusedMotion: [Range<Int>] = []
        if serials.count == capacity {
            serials.removeFirst()
            bases.removeFirst()
            reused = ranges.removeFirst()
            reusedMotion = motionRanges.removeFirst()
        }
        reused.removeAll(keepingCapacity: true)
        reusedMotion.removeAll(keepingCapacity: true)
        var base: UInt64 = 0
        if let patch = list.patch, list.serial != 0, !patch.hasMarkers {
            base = patch.base
            // Whole: the ranges less their motion parts (a subset of them).
            Self.subtract(patch.motionRanges, from: patch.ranges, into: &reused)
            reusedMotion.append(contentsOf: patch.motionRanges)
        }
        serials.append(list.serial)
        bases.append(base)
        ranges.append(reused)
        motionRanges.append(reusedMotion)
    }

    /// The item ranges outside which the newest list's `items` items equal those of list
    /// `serial`, when the lists since it were each patched from the one before: `whole`, the
    /// items changed in any way by one of them, and `motion`, those only moved or faded by
    /// each that changed them (both ascending, disjoint, and disjoint from each other). True
    /// when found and together they cost at most three quarters of writing every item (a
    /// motion-only item a quarter of a whole one; more are written as fast in full, and a
    /// patch that fails costs twice). False otherwise (then every item is written).
    mutating func changed(since serial: UInt64, items: Int, whole: inout [Range<Int>],
                          motion: inout [Range<Int>]) -> Bool {
        whole.removeAll(keepingCapacity: true)
        motion.removeAll(keepingCapacity: true)
        guard serial != 0, var i = serials.indices.last else { return false }
        var cost = 0
        while serials[i] != serial {
            guard bases[i] != 0, i > 0, serials[i - 1] == bases[i] else { return false }
            for range in ranges[i] {
                cost += 4 * range.count
                whole.append(range)
            }
            for range in motionRanges[i] {
                cost += range.count
                motion.append(range)
            }
            guard cost <= items * 3 else { return false }
            i -= 1
        }
        Self.merge(&whole)
        Self.merge(&motion)
        guard !whole.isEmpty, !motion.isEmpty else { return true }
        scratch.removeAll(keepingCapacity: true)
        Self.subtract(whole, from: motion, into: &scratch)
        swap(&motion, &scratch)
        return true
    }

    /// Sorts `ranges` and merges overlapping or adjacent ones: ascending and disjoint.
    static func merge(_ out: inout [Range<Int>]) {
        guard out.count > 1 else { return }
        out.sort { $0.lowerBound < $1.lowerBound }
        var merged = 0
        for k in 1..<out.count {
            if out[k].lowerBound <= out[merged].upperBound {
                out[merged] = out[merged].lowerBound..<max(out[merged].upperBound, out[k].upperBound)
            } else {
                merged += 1
                out[merged] = out[k]
            }
        }
        out.removeLast(out.count - merged - 1)
    }

    /// Appends to `out` the parts of `ranges` outside `removed` (both ascending and disjoint).
    static func subtract(_ removed: [Range<Int>], from ranges: [Range<Int>], into out: inout [Range<Int>]) {
        var r = 0
        for range in ranges {
            var lower = range.lowerBound
            while r < removed.count, removed[r].upperBound <= lower { r += 1 }
            var q = r
            while lower < range.upperBound {
                guard q < removed.count, removed[q].lowerBound < range.upperBound else {
                    out.append(lower..<range.upperBound)
                    break
                }
                if removed[q].lowerBound > lower { out.append(lower..<removed[q].lowerBound) }
                lower = max(lower, removed[q].upperBound)
                q += 1
            }
        }
    }
}
