import CVulkan
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import LaminaImage
import Synchronization

/// Zero-copy surfaces (docs/protocol.md, Surfaces; docs/performance.md): a client's
/// shared-memory pool imported as host memory (`VK_EXT_external_memory_host`: the mapping's
/// pages, page-aligned and its size rounded up to `minImportedHostPointerAlignment`, become a
/// `VkDeviceMemory` with a transfer-source buffer on it), and each damaged rectangle of a
/// buffer copied by the GPU from there straight into the surface's texture
/// (`vkCmdCopyBufferToImage` at the buffer's offset, its stride as the row length; BGRA into a
/// `B8G8R8A8` texture, so nothing is swizzled) — no CPU copy into the daemon's storage or a
/// staging buffer. The copies a frame's packets queue are recorded into one command buffer (a
/// batch), submitted by `finishReads(through:)` before the frame is published — and not waited
/// for: the render thread goes on to draw the frame (which samples the textures after the
/// copies, on the same queue) while a waiter thread waits for the batch's fence. Only then do
/// the batch's packets count as read (`readsCompleted`, reported through `onReadsCompleted`),
/// and the server sends their `bufferReleased` no earlier: a release never comes before the GPU
/// read the client's pages. A batch holds its pools (so their mappings and imports) until it
/// is collected; an import is freed once nothing but this cache holds its pool. A pool the device will not import, and
/// every pool while `enabled` is false (`LAMINA_SURFACE_COPY=1`, the daemon's
/// `surfaceZeroCopy`), takes the copying path. `F_SEAL_SHRINK` (required by `createPool`)
/// means the pages can never be truncated under a GPU read. Render thread only.
public final class HostMemorySurfaces: SurfaceDirectUploader {
    private let device: VulkanDevice
    private unowned let textures: ImageResidency
    private let commands: VulkanCommands
    /// `minImportedHostPointerAlignment`.
    let alignment: Int
    /// Whether buffers are imported at all (false: every surface is copied).
    public var enabled = true

    /// One imported pool: its memory and the buffer over all of it, holding the pool (and so
    /// its mapping) while the import lives.
    private final class Import {
        var pool: SharedMemoryPool?
        let buffer: VkBuffer
        let memory: VkDeviceMemory
        /// The memory's size and the memory types it may be bound as.
        let size: Int
        let memoryTypeBits: UInt32
        /// Linear images over its buffers, sampled in place (made on first use, freed with the
        /// import), and the buffer layouts that cannot be (their stride or offset does not fit).
        var images: [SurfaceBufferLayout: TextureImage] = [:]
        var misfits: Set<SurfaceBufferLayout> = []
        init(pool: SharedMemoryPool, buffer: VkBuffer, memory: VkDeviceMemory, size: Int, memoryTypeBits: UInt32) {
            self.pool = pool; self.buffer = buffer; self.memory = memory; self.size = size
            self.memoryTypeBits = memoryTypeBits
        }
    }
    /// The most in-place images one import keeps (a pool carved into more buffers copies the rest).
    private static let maxImagesPerImport = 16

    /// What a surface samples in place now: the buffer's pool (its mapping and import kept),
    /// layout, image and the attachment's lease.
    private struct Shown {
        weak var storage: SurfaceStorage?
        let pool: SharedMemoryPool
        let layout: SurfaceBufferLayout
        let lease: SurfaceLease?
    }
    /// By `SurfaceStorage.id`.
    private var shown: [UInt64: Shown] = [:]
    /// Buffers no longer shown this frame: their pools are held, and their leases ended, by
    /// the next batch (submitted after every frame that sampled them, so its fence means
    /// those frames finished).
    private var ending: [(pool: SharedMemoryPool, lease: SurfaceLease?)] = []
    /// Whether buffers whose stride and offset fit are sampled in place (`LAMINA_SURFACE_IN_PLACE=0`:
    /// never — every buffer copied by the GPU, as before; benchmarks compare the two in one binary).
    public var samplesInPlace = getenv("LAMINA_SURFACE_IN_PLACE").map { String(cString: $0) } != "0"
    /// Formats whose linear images may be bound to imported host memory and sampled.
    private var inPlaceFormats: Set<SurfacePixelFormat> = []
    /// Attachments sampled in place so far (tests, benchmarks).
    public private(set) var inPlaceAttaches = 0
    /// Surfaces sampled in place now (tests).
    public var liveInPlace: Int { shown.count }
    private var imports: [ObjectIdentifier: Import] = [:]
    /// Pools the device would not import (weakly: an id may be reused once the pool is gone).
    private var refused: [ObjectIdentifier: WeakPool] = [:]
    private final class WeakPool { weak var pool: SharedMemoryPool?; init(_ p: SharedMemoryPool) { pool = p } }

    /// One submission's copies: its command buffer, fence, two timestamps (nil: the queue has
    /// none), and the pools it reads.
    private final class Batch: @unchecked Sendable {
        // @unchecked: the render thread owns it except `done`, which the waiter sets, and
        // `fence`, which the waiter only waits on.
        let commandBuffer: VkCommandBuffer
        let fence: VkFence
        let queryPool: VkQueryPool?
        var pools: [SharedMemoryPool] = []
        /// In-place attachments whose last sampling frame this batch follows: ended when it finished.
        var leases: [SurfaceLease] = []
        /// Whether it holds pools of buffers no longer sampled in place.
        var letsGoOfPools = false
        let done = Atomic<Bool>(false)
        init(commandBuffer: VkCommandBuffer, fence: VkFence, queryPool: VkQueryPool?) {
            self.commandBuffer = commandBuffer; self.fence = fence; self.queryPool = queryPool
        }
    }
    /// The most batches in flight: a fourth waits for the oldest.
    private static let maxBatches = 3
    private var idle: [Batch] = []
    private var inFlight: [Batch] = []
    /// The batch being recorded (copies queued since the last `finishReads`).
    private var recording: Batch?
    /// Waits for submitted batches' fences, in order, off the render thread.
    private let waiter = DispatchQueue(label: "lamina.surface-reads")
    /// Which packets' copies the GPU has finished (any thread).
    private let progress = ReadProgress()
    private var nextBatchID: UInt64 = 0
    /// `LAMINA_SURFACE_WAIT_READS=1`: the render thread waits for each batch before the frame
    /// is published, as before the waiter thread (benchmarks compare the two in one binary).
    private let waitsForReads = getenv("LAMINA_SURFACE_WAIT_READS").map { String(cString: $0) } == "1"
    /// Called on the waiter thread when a batch's fence signalled and `readsCompleted`
    /// advanced (not when a frame advanced it: the render loop reads it after each frame).
    public func onReadsCompleted(_ body: @escaping @Sendable (UInt64) -> Void) { progress.setCallback(body) }
    /// Called on the waiter thread when a batch that held buffers no longer sampled in place
    /// finished: a frame then lets go of their pools (and frees imports nobody else holds),
    /// which would otherwise wait for the next frame something else asks for.
    public func onPoolsLetGo(_ body: @escaping @Sendable () -> Void) { poolsLetGo.withLock { $0 = body } }
    private let poolsLetGo = Mutex<(@Sendable () -> Void)?>(nil)

    /// Pools imported so far, rectangles and bytes the GPU copied from them (tests, benchmarks).
    public private(set) var poolsImported = 0
    public private(set) var rectsCopied = 0
    public private(set) var bytesCopied = 0
    /// Render-thread seconds spent on it so far: recording the copies, and submitting and
    /// waiting for them (the GPU's copy included) — the whole cost of the path.
    public private(set) var seconds = 0.0
    /// GPU seconds of the copies alone (timestamps around them; 0 without timestamps): what
    /// the path costs the device, without the wait for earlier work on the queue.
    public private(set) var gpuSeconds = 0.0
    private static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    /// Pools whose import is alive now (tests: nothing left once a client is gone).
    public var liveImports: Int { imports.count }

    /// The newest packet sequence every GPU read of whose buffers has finished: the render
    /// loop's `surfaceReadsCompleted`, which gates `bufferReleased`.
    public var readsCompleted: UInt64 { progress.completed }

    /// All of the counts, as `RenderLoop.zeroCopyCounts` hands them out.
    var counts: ZeroCopyCounts {
        var c = ZeroCopyCounts()
        c.enabled = enabled; c.poolsImported = poolsImported; c.liveImports = liveImports
        c.bytes = bytesCopied; c.seconds = seconds; c.gpuSeconds = gpuSeconds
        c.inPlaceAttaches = inPlaceAttaches; c.liveInPlace = liveInPlace
        return c
    }

    /// Nil when the device has no `VK_EXT_external_memory_host`, or its alignment is not a
    /// divisor of the page size (a pool's mapping could not be imported whole).
    init?(device: VulkanDevice, textures: ImageResidency, commands: VulkanCommands) {
        guard device.enabledExtensions.contains("VK_EXT_external_memory_host") else { return nil }
        var host = VkPhysicalDeviceExternalMemoryHostPropertiesEXT()
        host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
        SharedImageParameters.physicalProperties(device, into: &host)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let alignment = Int(host.minImportedHostPointerAlignment)
        guard alignment > 0, alignment <= page, page % alignment == 0 else { return nil }
        for _ in 0..<Self.maxBatches {
            guard let cmd = try? commands.makeCommandBuffer(device: device),
                  let fence = try? commands.makeFence(device: device) else { return nil }
            var queries: VkQueryPool? = nil
            if device.timestampPeriod != nil {
                var info = VkQueryPoolCreateInfo()
                info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO
                info.queryType = VK_QUERY_TYPE_TIMESTAMP
                info.queryCount = 2
                if vkCreateQueryPool(device.raw, &info, nil, &queries) == VK_SUCCESS, let q = queries { device.track(q) } else { queries = nil }
            }
            idle.append(Batch(commandBuffer: cmd, fence: fence, queryPool: queries))
        }
        self.device = device
        self.textures = textures
        self.commands = commands
        self.alignment = alignment
        enabled = getenv("LAMINA_SURFACE_COPY").map { String(cString: $0) } != "1"
        for (format, vkFormat) in [(SurfacePixelFormat.bgra8, VK_FORMAT_B8G8R8A8_UNORM), (.rgba8, VK_FORMAT_R8G8B8A8_UNORM)]
            where Self.samplesLinearHostImages(device, vkFormat) {
            inPlaceFormats.insert(format)
        }
    }

    /// Whether linear 2D images of `format` may be sampled and bound to imported host memory.
    private static func samplesLinearHostImages(_ device: VulkanDevice, _ format: VkFormat) -> Bool {
        var properties = VkFormatProperties()
        vkGetPhysicalDeviceFormatProperties(device.physical, format, &properties)
        guard properties.linearTilingFeatures & mapFlags(VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) != 0 else { return false }
        var external = VkPhysicalDeviceExternalImageFormatInfo()
        external.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO
        external.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        var info = VkPhysicalDeviceImageFormatInfo2()
        info.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2
        info.format = format
        info.type = VK_IMAGE_TYPE_2D
        info.tiling = VK_IMAGE_TILING_LINEAR
        info.usage = mapFlags(VK_IMAGE_USAGE_SAMPLED_BIT)
        var externalProps = VkExternalImageFormatProperties()
        externalProps.sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES
        var props = VkImageFormatProperties2()
        props.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2
        let result = withUnsafeMutablePointer(to: &external) { e in
            info.pNext = UnsafeRawPointer(e)
            return withUnsafeMutablePointer(to: &externalProps) { x in
                props.pNext = UnsafeMutableRawPointer(x)
                return vkGetPhysicalDeviceImageFormatProperties2(device.physical, &info, &props)
            }
        }
        guard result == VK_SUCCESS else { return false }
        let features = externalProps.externalMemoryProperties.externalMemoryFeatures
        return features & mapFlags(VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0
    }

    public func upload(_ update: SurfaceUpdate, rects: [SurfaceRect], into storage: SurfaceStorage) -> Bool {
        guard enabled, let pool = update.pool, update.source == nil else { return false }
        let t0 = Self.now()
        defer { seconds += Self.now() - t0 }
        let l = update.layout
        guard l.misfit(poolSize: pool.size) == nil, l.width == storage.width, l.height == storage.height,
              let buffer = imported(pool) else { return false }
        // Sampled in place when its format, stride and offset fit (a new image's transition
        // is recorded first: without a batch to record it in, the buffer is copied).
        var inPlace = samplesInPlace ? inPlaceImage(pool, l) : nil
        if let (image, isNew) = inPlace, isNew {
            if let batch = recordingBatch() { image.recordInPlaceTransition(into: batch.commandBuffer) } else { inPlace = nil }
            if inPlace == nil { image.destroy(device); imports[ObjectIdentifier(pool)]?.images[l] = nil }
        }
        // What the storage showed in place until now is replaced (by this buffer again, or another).
        let previous = shown.removeValue(forKey: storage.id)
        if let (image, _) = inPlace {
            shown[storage.id] = Shown(storage: storage, pool: pool, layout: l, lease: update.lease)
            update.lease?.hold()
            textures.setInPlace(image, for: storage.id)
            inPlaceAttaches += 1
            if let previous { letGo(previous) }
            return true
        }
        if let previous { letGo(previous) }
        textures.setInPlace(nil, for: storage.id)
        // Copied after being sampled in place: the texture takes the whole buffer.
        let rects = previous == nil ? rects : [SurfaceRect(x: 0, y: 0, width: l.width, height: l.height)]
        let made: (texture: TextureImage, isNew: Bool)?
        do { made = try textures.directTexture(storage, format: l.format, device: device) } catch { return false }
        guard let (texture, isNew) = made, let batch = recordingBatch() else { return false }
        let commandBuffer = batch.commandBuffer
        if !batch.pools.contains(where: { $0 === pool }) { batch.pools.append(pool) }
        let transfer = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), fragment = mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT)
        let write = mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT), shaderRead = mapFlags(VK_ACCESS_SHADER_READ_BIT)
        // Earlier frames' reads (submitted before on this queue) and earlier copies come first.
        recordImageBarrier(commandBuffer, image: texture.raw,
                           from: isNew ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                           to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, srcAccess: isNew ? 0 : shaderRead | write,
                           dstAccess: write, srcStage: isNew ? mapFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT) : fragment | transfer,
                           dstStage: transfer)
        var regions: [VkBufferImageCopy] = []
        for r in rects where r.area > 0 {
            regions.append(.level0(r, bufferOffset: l.offset + r.y * l.stride + r.x * 4, rowPixels: l.stride / 4))
            bytesCopied += r.area * 4
        }
        rectsCopied += regions.count
        if !regions.isEmpty {
            regions.withUnsafeBufferPointer { p in
                vkCmdCopyBufferToImage(commandBuffer, buffer, texture.raw, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                       UInt32(p.count), p.baseAddress)
            }
        }
        recordImageBarrier(commandBuffer, image: texture.raw, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, srcAccess: write, dstAccess: shaderRead,
                           srcStage: transfer, dstStage: fragment)
        texture.needsUpload = false
        return true
    }

    /// The batch being recorded, begun when there is none (nil: it could not be).
    private func recordingBatch() -> Batch? {
        if let batch = recording { return batch }
        collect(waitForOne: idle.isEmpty)
        guard let batch = idle.popLast() else { return nil }
        guard (try? beginRecording(batch.commandBuffer, oneTime: true)) != nil else { idle.append(batch); return nil }
        recording = batch
        if let queryPool = batch.queryPool {
            vkCmdResetQueryPool(batch.commandBuffer, queryPool, 0, 2)
            vkCmdWriteTimestamp(batch.commandBuffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queryPool, 0)
        }
        return batch
    }

    /// The linear image sampling buffer `layout` of `pool` in place, made the first time
    /// (`isNew`: its layout transition still to be recorded); nil when its format, stride or
    /// offset does not fit the device's linear images (then it is copied).
    private func inPlaceImage(_ pool: SharedMemoryPool, _ layout: SurfaceBufferLayout) -> (TextureImage, isNew: Bool)? {
        guard inPlaceFormats.contains(layout.format), let entry = imports[ObjectIdentifier(pool)], entry.pool === pool else {
            return nil
        }
        if let image = entry.images[layout] { return (image, false) }
        guard !entry.misfits.contains(layout), entry.images.count < Self.maxImagesPerImport,
              let image = TextureImage(inPlace: entry.memory, memorySize: entry.size, memoryTypeBits: entry.memoryTypeBits,
                                       offset: layout.offset, stride: layout.stride, width: layout.width,
                                       height: layout.height,
                                       format: layout.format == .bgra8 ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_R8G8B8A8_UNORM,
                                       handleType: VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, device: device) else {
            if entry.misfits.count < 64 { entry.misfits.insert(layout) }
            return nil
        }
        entry.images[layout] = image
        return (image, true)
    }

    public func dropped(_ storage: SurfaceStorage) {
        guard let previous = shown.removeValue(forKey: storage.id) else { return }
        letGo(previous)
        textures.setInPlace(nil, for: storage.id)
    }

    /// A surface no longer samples `entry`'s buffer in place (it is out of `shown`). When the
    /// same buffer is still sampled in place under a later attachment (this surface's next one,
    /// or another surface's), that one's release stands for this one: superseded now.
    /// Otherwise the pool is held, and the lease ended, by the next batch, submitted after
    /// every frame that sampled it.
    private func letGo(_ entry: Shown) {
        if let lease = entry.lease,
           shown.values.contains(where: { $0.pool === entry.pool && $0.layout == entry.layout && $0.lease != nil && $0.lease !== lease }) {
            lease.supersede()
            return
        }
        ending.append((entry.pool, entry.lease))
    }

    /// Submits the copies queued since the last call — the packets of a frame whose newest is
    /// `sequence` — without waiting for them: the waiter thread waits for the batch's fence and
    /// then advances `readsCompleted` (at once when nothing is queued or in flight). Collects
    /// finished batches and frees the imports of pools nobody else holds. Called by the render
    /// loop before it publishes a frame.
    public func finishReads(through sequence: UInt64) {
        // Surfaces gone without a word (their storage freed) let go of their buffers too.
        for (key, entry) in shown where entry.storage == nil {
            shown[key] = nil
            letGo(entry)
            textures.setInPlace(nil, for: key)
        }
        if !ending.isEmpty, let batch = recordingBatch() {
            batch.letsGoOfPools = true
            for (pool, lease) in ending {
                if !batch.pools.contains(where: { $0 === pool }) { batch.pools.append(pool) }
                if let lease { batch.leases.append(lease) }
            }
            ending = []
        }
        if let batch = recording {
            let t0 = Self.now()
            defer { seconds += Self.now() - t0 }
            recording = nil
            if let queryPool = batch.queryPool {
                vkCmdWriteTimestamp(batch.commandBuffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool, 1)
            }
            if (try? vk("vkEndCommandBuffer", vkEndCommandBuffer(batch.commandBuffer))) != nil,
               (try? commands.submit(batch.commandBuffer, fence: batch.fence, device: device)) != nil {
                inFlight.append(batch)
                nextBatchID += 1
                let id = nextBatchID
                progress.submitted(id)   // (before its waiter can finish it)
                nonisolated(unsafe) let raw = device.raw
                let progress = self.progress
                let leases = batch.leases, letsGo = batch.letsGoOfPools
                batch.leases = []
                batch.letsGoOfPools = false
                let letGo = letsGo ? poolsLetGo.withLock { $0 } : nil
                waiter.async {
                    var fence: VkFence? = batch.fence
                    _ = vkWaitForFences(raw, 1, &fence, VkBool32(VK_TRUE), UInt64.max)
                    for lease in leases { lease.end() }
                    batch.done.store(true, ordering: .releasing)
                    progress.finished(id, notify: !leases.isEmpty)
                    letGo?()
                }
                if waitsForReads {
                    var fence: VkFence? = batch.fence
                    _ = vkWaitForFences(device.raw, 1, &fence, VkBool32(VK_TRUE), UInt64.max)
                    waiter.sync {}
                }
            } else {
                // Not submitted: nothing reads the pages (the surface shows what it had). The
                // ended leases wait for the device to go idle instead.
                vkDeviceWaitIdle(device.raw)
                for lease in batch.leases { lease.end() }
                batch.leases = []
                batch.letsGoOfPools = false
                batch.pools = []
                idle.append(batch)
                progress.notify()
            }
        }
        progress.frame(through: sequence)
        collect(waitForOne: false)
        for (key, entry) in imports {
            guard isKnownUniquelyReferenced(&entry.pool) else { continue }
            if !entry.images.isEmpty { textures.noteInPlaceFreed() }
            free(entry)
            imports[key] = nil
        }
        refused = refused.filter { $0.value.pool != nil }
    }

    /// Takes finished batches back (their timestamps read, their pools let go); with
    /// `waitForOne`, waits for the oldest first (every batch is in flight).
    private func collect(waitForOne: Bool) {
        if waitForOne, let oldest = inFlight.first {
            var fence: VkFence? = oldest.fence
            _ = vkWaitForFences(device.raw, 1, &fence, VkBool32(VK_TRUE), UInt64.max)
            waiter.sync {}   // its waiter is done with it too
        }
        while let batch = inFlight.first, batch.done.load(ordering: .acquiring) {
            inFlight.removeFirst()
            batch.done.store(false, ordering: .relaxed)
            var fence: VkFence? = batch.fence
            _ = vkResetFences(device.raw, 1, &fence)
            if let queryPool = batch.queryPool, let period = device.timestampPeriod {
                var stamps: (UInt64, UInt64) = (0, 0)
                let got = withUnsafeMutableBytes(of: &stamps) { p in
                    vkGetQueryPoolResults(device.raw, queryPool, 0, 2, p.count, p.baseAddress, 8,
                                          mapFlags(VK_QUERY_RESULT_64_BIT))
                }
                if got == VK_SUCCESS {
                    let ticks = (stamps.1 &- stamps.0) & device.timestampMask
                    gpuSeconds += Double(ticks) * period / 1e9
                }
            }
            batch.pools = []
            idle.append(batch)
        }
    }

    /// The buffer over `pool`'s imported pages, importing them the first time (nil when the
    /// device will not).
    private func imported(_ pool: SharedMemoryPool) -> VkBuffer? {
        let key = ObjectIdentifier(pool)
        if let entry = imports[key], entry.pool === pool { return entry.buffer }
        if let r = refused[key], r.pool === pool { return nil }
        guard let entry = importPool(pool) else {
            refused[key] = WeakPool(pool)
            return nil
        }
        imports[key] = entry
        poolsImported += 1
        return entry.buffer
    }

    private func importPool(_ pool: SharedMemoryPool) -> Import? {
        let size = (pool.size + alignment - 1) / alignment * alignment
        guard Int(bitPattern: pool.base) % alignment == 0 else { return nil }
        typealias HostProps = @convention(c) (VkDevice?, VkExternalMemoryHandleTypeFlagBits, UnsafeRawPointer?,
                                              UnsafeMutablePointer<VkMemoryHostPointerPropertiesEXT>?) -> VkResult
        guard let raw = vkGetDeviceProcAddr(device.raw, "vkGetMemoryHostPointerPropertiesEXT") else { return nil }
        let hostProps = unsafeBitCast(raw, to: HostProps.self)
        let handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        var pointerProps = VkMemoryHostPointerPropertiesEXT()
        pointerProps.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
        guard hostProps(device.raw, handleType, pool.base, &pointerProps) == VK_SUCCESS else { return nil }

        var external = VkExternalMemoryBufferCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
        external.handleTypes = handleType.rawValue
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(size)
        info.usage = mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT)
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        let made = withUnsafePointer(to: &external) { p in
            info.pNext = UnsafeRawPointer(p)
            return vkCreateBuffer(device.raw, &info, nil, &buffer)
        }
        guard made == VK_SUCCESS, let buffer else { return nil }
        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(device.raw, buffer, &requirements)
        let bits = requirements.memoryTypeBits & pointerProps.memoryTypeBits
        guard bits != 0, requirements.size <= VkDeviceSize(size) else {
            vkDestroyBuffer(device.raw, buffer, nil)
            return nil
        }
        var importInfo = VkImportMemoryHostPointerInfoEXT()
        importInfo.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT
        importInfo.handleType = handleType
        importInfo.pHostPointer = UnsafeMutableRawPointer(mutating: pool.base)
        let (result, memory) = SharedImageParameters.allocate(device.raw, size: VkDeviceSize(size),
                                                              type: UInt32(bits.trailingZeroBitCount), chaining: &importInfo)
        guard result == VK_SUCCESS, let memory else {
            vkDestroyBuffer(device.raw, buffer, nil)
            return nil
        }
        guard vkBindBufferMemory(device.raw, buffer, memory, 0) == VK_SUCCESS else {
            vkDestroyBuffer(device.raw, buffer, nil)
            vkFreeMemory(device.raw, memory, nil)
            return nil
        }
        device.track(buffer)
        device.track(memory)
        return Import(pool: pool, buffer: buffer, memory: memory, size: size, memoryTypeBits: 1 << UInt32(bits.trailingZeroBitCount))
    }

    private func free(_ entry: Import) {
        for image in entry.images.values { image.destroy(device) }
        entry.images = [:]
        vkDestroyBuffer(device.raw, entry.buffer, nil)
        vkFreeMemory(device.raw, entry.memory, nil)
        device.untrack(entry.buffer, entry.memory)
        entry.pool = nil
    }

    /// Frees everything (the device is idle).
    func destroy() {
        if let batch = recording {
            _ = vkEndCommandBuffer(batch.commandBuffer)
            recording = nil
            idle.append(batch)
        }
        waiter.sync {}   // (the device is idle: every waiter has returned or is about to)
        shown = [:]
        ending = []
        idle += inFlight
        inFlight = []
        for entry in imports.values { free(entry) }
        imports.removeAll()
        for batch in idle {
            if let queryPool = batch.queryPool {
                vkDestroyQueryPool(device.raw, queryPool, nil)
                device.untrack(queryPool)
            }
            commands.destroyFence(batch.fence, device: device)
        }
        idle = []
    }
}

/// Which packets' GPU reads are done: `completed` is the packet before the frame of the oldest
/// batch not finished, or the newest frame's packet when every batch finished (packets are
/// applied in order, a frame's after the previous frame's). Any thread.
final class ReadProgress: Sendable {
    private struct State {
        var latest: UInt64 = 0
        /// Submitted batches not finished: their ids and the newest packet before their frame's.
        var unfinished: [(id: UInt64, before: UInt64)] = []
        var completed: UInt64 = 0
        var callback: (@Sendable (UInt64) -> Void)?
    }
    private let state = Mutex(State())

    var completed: UInt64 { state.withLock { $0.completed } }

    func setCallback(_ body: @escaping @Sendable (UInt64) -> Void) { state.withLock { $0.callback = body } }

    /// Batch `id` of the frame being made was submitted (before its packets count).
    func submitted(_ id: UInt64) { update(notify: false) { s in s.unfinished.append((id, s.latest)) } }

    /// The frame whose newest packet is `sequence` was made (its batch, if any, submitted).
    func frame(through sequence: UInt64) { update(notify: false) { s in s.latest = max(s.latest, sequence) } }

    /// Batch `id`'s fence signalled (`notify`: call back even when `completed` did not advance:
    /// in-place leases it ended may be released).
    func finished(_ id: UInt64, notify always: Bool = false) {
        update(notify: true, always: always) { s in s.unfinished.removeAll { $0.id == id } }
    }

    /// Calls back with `completed` as it is (leases ended outside a batch).
    func notify() { update(notify: true, always: true) { _ in } }

    private func update(notify: Bool, always: Bool = false, _ body: (inout State) -> Void) {
        let (advanced, callback) = state.withLock { s -> (UInt64?, (@Sendable (UInt64) -> Void)?) in
            body(&s)
            let value = s.unfinished.first?.before ?? s.latest
            guard value > s.completed else { return always ? (s.completed, s.callback) : (nil, nil) }
            s.completed = value
            return (value, s.callback)
        }
        if notify, let advanced, let callback { callback(advanced) }
    }
}

/// Counts of the zero-copy surface path (`RenderLoop.zeroCopyCounts`), as of the last frame.
public struct ZeroCopyCounts: Sendable, Equatable {
    /// Whether the path is on (a device with `VK_EXT_external_memory_host`, not switched off).
    public var enabled = false
    /// Pools imported so far, and imports alive now.
    public var poolsImported = 0
    public var liveImports = 0
    /// Bytes the GPU copied straight from shared memory so far.
    public var bytes = 0
    /// Render-thread seconds it took (`HostMemorySurfaces.seconds`).
    public var seconds = 0.0
    /// GPU seconds of its copies alone (`HostMemorySurfaces.gpuSeconds`).
    public var gpuSeconds = 0.0
    /// Attachments sampled in place so far (no copy at all), and surfaces sampled in place now.
    public var inPlaceAttaches = 0
    public var liveInPlace = 0
    public init() {}
}
