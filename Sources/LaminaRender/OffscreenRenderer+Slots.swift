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
            buffer.write("instance ring (grown)", at: 0, from: UnsafeRawPointer(keeping.bytes), count: keeping.used)
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
            let records = buffer.bytes("clip buffer", at: 0, length: clips.count * stride)
                .bindMemory(to: ClipRecord.self, capacity: clips.count)
            for index in clips.indices { (records + index).initialize(to: ClipRecord(clips, at: index)) }
        }
    }
}
