import CVulkan
import LaminaGeometry
#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame

/// Draws `DrawList`s into an offscreen `R8G8B8A8_UNORM` image through Vulkan and reads the
/// pixels back. The public entry point of the Vulkan core.
///
/// Colors are blended in sRGB-encoded space with premultiplied alpha (blend factors ONE,
/// ONE_MINUS_SRC_ALPHA; a UNORM, not `_SRGB`, target), as Core Animation does.
/// Up to `framesInFlight` frames run on the GPU while the next is recorded; each frame slot
/// has its own command buffer, fence, instance ring buffer and timestamp queries.
///
/// Render thread only: create, use and release it on one thread. Not Sendable.
///
/// With `LAMINA_VALIDATION=1` in the environment (or `validation: true`), the Khronos
/// validation layer is on and every warning or error it reports lands in `validationLog`.
public final class OffscreenRenderer {
    /// Frames the CPU may record ahead of the GPU.
    public static let framesInFlight = 2

    /// Target size in device pixels.
    public private(set) var width: Int
    public private(set) var height: Int
    /// Validation-layer warnings and errors; empty when validation is off. Keep a reference
    /// to read what was reported during shutdown too.
    public let validationLog: ValidationLog
    /// Shorthand for `validationLog.messages`.
    public var validationMessages: [String] { validationLog.messages }
    /// Whether the validation layer is on.
    public var validationEnabled: Bool { instance.validationEnabled }
    /// The device's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    public var deviceName: String { device.name }
    /// Whether the device is a CPU implementation (lavapipe).
    public var isSoftwareDevice: Bool { device.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU }
    /// Whether the queue writes timestamps, so `FrameTiming.gpu` will be filled in.
    public var hasGPUTimestamps: Bool { commands.queryPool != nil }
    /// Live Vulkan objects (debug builds; 0 in release builds).
    public var liveObjectCount: Int { device.liveObjects }
    /// GPU seconds of the latest finished frame, and which frame, when timestamps work.
    public private(set) var latestGPUTime: (frame: UInt64, seconds: Double)?

    private static let format = VK_FORMAT_R8G8B8A8_UNORM
    private let stencilFormat: VkFormat
    /// Meshes on the GPU by cache key: an unchanged shape is not uploaded again. A mesh
    /// unused for `meshIdleFrames` frames is retired (destroyed after that frame's fence).
    private var gpuMeshes: [MeshKey: GPUMesh] = [:]
    /// Meshes uploaded so far (misses of `gpuMeshes`), for tests and stats.
    public private(set) var meshUploads = 0
    /// Meshes resident on the GPU.
    public var gpuMeshCount: Int { gpuMeshes.count }
    static let meshIdleFrames: UInt64 = 120
    /// Reused every frame so that a frame allocates nothing once they have grown (render
    /// thread only): the frame's passes, their draws (`Pass.draws` ranges of `frameDraws`),
    /// and per nesting depth of groups the draws of the pass being collected.
    private var framePasses: [Pass] = []
    private var frameDraws: [Draw] = []
    private var drawStack: [[Draw]] = []

    /// One recorded draw: a run of analytic instances, one mesh with its instance, or a
    /// group's offscreen image composited with its opacity.
    private enum Draw {
        /// Consecutive instances of one variant (kind and clipping), one instanced draw.
        case rects(first: Int, count: Int, variant: PipelineVariant)
        /// SAFETY: unretained (a draw list's meshes would cost a retain and release each);
        /// `gpuMeshes` holds every mesh a frame draws until after the frame is recorded (a mesh
        /// is forgotten only after `meshIdleFrames` frames without use).
        case mesh(Unmanaged<GPUMesh>, instance: Int, clipped: Bool)
        case composite(group: Int, opacity: Float)
        /// One pass of a shadow's blur: the quad of `instance` (device pixels) reading group
        /// image `source`'s alpha along x (or y when `vertical`) within `valid` (the part of
        /// `source` its pass cleared), scissored to `scissor`.
        case blur(source: Int, instance: Int, vertical: Bool, sigma: Float, valid: PixelRect, scissor: PixelRect)
    }

    /// A rectangle of whole device pixels.
    struct PixelRect: Equatable {
        var minX: Int, minY: Int, maxX: Int, maxY: Int
        var isEmpty: Bool { maxX <= minX || maxY <= minY }
        func intersection(_ other: PixelRect) -> PixelRect {
            PixelRect(minX: max(minX, other.minX), minY: max(minY, other.minY),
                      maxX: min(maxX, other.maxX), maxY: min(maxY, other.maxY))
        }
        var vk: VkRect2D {
            VkRect2D(offset: VkOffset2D(x: Int32(minX), y: Int32(minY)),
                     extent: VkExtent2D(width: UInt32(max(maxX - minX, 0)), height: UInt32(max(maxY - minY, 0))))
        }
    }

    /// One render pass: into the target (`group` nil) or into a group's offscreen image,
    /// clearing and drawing only `area` (nil: the whole target).
    private struct Pass {
        var group: Int?
        var area: PixelRect?
        /// Indices into `frameDraws`.
        var draws: Range<Int>
    }

    /// A group's offscreen image and the descriptor set the composite reads it through.
    private struct GroupTarget {
        let image: VulkanImage
        let descriptorSet: VkDescriptorSet
    }
    /// Offscreen images for groups and shadows, target-sized, reused every frame and within
    /// a frame once the pass that reads one has been recorded (render thread only).
    private var groupTargets: [GroupTarget] = []
    private let descriptorPool: VkDescriptorPool
    /// Most offscreen images one frame may hold at once: a group holds one until its parent's
    /// pass, a blurred shadow two (its content, then its horizontal blur until its parent's pass).
    public static let maxGroups = 128

    /// A mesh's place in `meshArena`: its vertices from `vertexOffset`, its indices from
    /// `firstIndex` (both move when the arena is rebuilt).
    private final class GPUMesh {
        let key: MeshKey
        var vertexOffset: Int
        var firstIndex: Int
        let indexCount: Int
        var lastFrame: UInt64
        /// The CPU arrays, kept so that their storage (the `meshesByStorage` key) stays alive
        /// and so that a rebuilt arena can be refilled.
        let vertices: [MeshVertex]
        let indices: [UInt32]
        init(key: MeshKey, mesh: Mesh, lastFrame: UInt64) {
            self.key = key
            vertexOffset = 0; firstIndex = 0
            indexCount = mesh.indices.count; self.lastFrame = lastFrame
            vertices = mesh.vertices; indices = mesh.indices
        }
    }
    /// Every GPU mesh's vertices and indices (render thread only).
    private let meshArena = MeshArena()
    /// Bytes of the mesh arena's buffer (0 before the first mesh), for tests.
    var meshArenaBytes: Int { meshArena.buffer?.size ?? 0 }

    /// Identity of a mesh's arrays: the addresses of their storage. A `GPUMesh` keeps the
    /// arrays alive, so equal addresses mean the same arrays — a lookup that skips hashing
    /// the whole `MeshKey` (its path) for a mesh drawn before.
    private struct StorageKey: Hashable {
        let vertices: UInt
        let indices: UInt
        init?(_ mesh: Mesh) {
            guard let v = mesh.vertices.withUnsafeBufferPointer({ $0.baseAddress }),
                  let i = mesh.indices.withUnsafeBufferPointer({ $0.baseAddress }) else { return nil }
            vertices = UInt(bitPattern: v)
            indices = UInt(bitPattern: i)
        }
    }
    private var meshesByStorage: [StorageKey: GPUMesh] = [:]

    private let instance: VulkanInstance
    private let device: VulkanDevice
    private let pipeline: VulkanPipeline
    private let commands: VulkanCommands
    private var target: VulkanImage
    private var slots: [FrameSlot]
    /// Frames submitted so far; frame n (from 1) uses slot (n − 1) % framesInFlight.
    private var frameNumber: UInt64 = 0
    private var readback: VulkanBuffer?
    private let readbackCommands: VkCommandBuffer
    private let readbackFence: VkFence
    /// Frame number whose output is in `target`, or nil before the first frame / after resize.
    private var renderedFrame: UInt64?

    /// Objects to destroy once the frame that last used them has finished.
    private enum Retired {
        case buffer(VulkanBuffer)
        case image(VulkanImage)
        case descriptorSet(VkDescriptorSet)
        func destroy(_ device: VulkanDevice, pool: VkDescriptorPool) {
            switch self {
            case .buffer(let buffer): buffer.destroy(device)
            case .image(let image): image.destroy(device)
            case .descriptorSet(let set):
                var set: VkDescriptorSet? = set
                _ = vkFreeDescriptorSets(device.raw, pool, 1, &set)
            }
        }
    }

    /// One frame in flight.
    private struct FrameSlot {
        let commandBuffer: VkCommandBuffer
        let fence: VkFence
        /// Instance ring buffer for this slot; grows by doubling.
        var instances: VulkanBuffer?
        /// This frame's `ClipRecord`s (at least one record's room, so the descriptor is
        /// always valid); grows by doubling. `clipSet` points at it.
        var clips: VulkanBuffer?
        let clipSet: VkDescriptorSet
        /// Destroyed when this slot's fence next passes.
        var retired: [Retired] = []
        /// The frame submitted with `fence` and not yet waited for.
        var pendingFrame: UInt64?
    }

    /// Opens a Vulkan device and creates the offscreen target, pipelines and frame slots.
    ///
    /// - Parameters:
    ///   - width, height: target size in device pixels, positive.
    ///   - validation: enable the validation layer; nil reads `LAMINA_VALIDATION=1` from the
    ///     environment.
    /// - Throws: `RenderError.noDevice` (with a message naming `mesa-vulkan-drivers`) when
    ///   there is no Vulkan driver or device; other `RenderError`s when setup fails.
    /// - Thread: becomes the renderer's thread (render thread only).
    public init(width: Int, height: Int, validation: Bool? = nil) throws(RenderError) {
        precondition(width > 0 && height > 0, "OffscreenRenderer needs a positive size, got \(width)×\(height)")
        let validation = validation ?? (getenv("LAMINA_VALIDATION").map { String(cString: $0) == "1" } ?? false)
        self.width = width
        self.height = height
        let log = ValidationLog()
        validationLog = log
        instance = try VulkanInstance(validation: validation, log: log)
        // What exists so far, destroyed in reverse order if a later step throws.
        var cleanup: [() -> Void] = []
        do throws(RenderError) {
            let device = try VulkanDevice(instance: instance)
            cleanup.append { device.destroy() }
            self.device = device
            if device.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU { Self.keepFreedHeap() }
            let stencilFormat = try VulkanImage.stencilFormat(device: device)
            self.stencilFormat = stencilFormat
            let pipeline = try VulkanPipeline(device: device, format: Self.format, stencilFormat: stencilFormat)
            cleanup.append { pipeline.destroy(device) }
            self.pipeline = pipeline
            // Group images (combined image samplers) and one clip buffer per frame slot.
            let poolSizes = [
                VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                     descriptorCount: UInt32(2 * Self.maxGroups)),
                VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: UInt32(Self.framesInFlight)),
            ]
            var poolInfo = VkDescriptorPoolCreateInfo()
            poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
            poolInfo.flags = mapFlags(VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT)
            poolInfo.maxSets = UInt32(2 * Self.maxGroups + Self.framesInFlight)
            poolInfo.poolSizeCount = UInt32(poolSizes.count)
            var pool: VkDescriptorPool?
            try vk("vkCreateDescriptorPool", poolSizes.withUnsafeBufferPointer { sizePointer in
                poolInfo.pPoolSizes = sizePointer.baseAddress
                return vkCreateDescriptorPool(device.raw, &poolInfo, nil, &pool)
            })
            guard let pool else { throw RenderError.vulkan(.unexpected(0), call: "vkCreateDescriptorPool") }
            cleanup.append { vkDestroyDescriptorPool(device.raw, pool, nil) }
            descriptorPool = pool
            device.track(1)
            let commands = try VulkanCommands(device: device, timestampSlots: Self.framesInFlight)
            cleanup.append { commands.destroy(device) }
            self.commands = commands
            let target = try VulkanImage(device: device, width: width, height: height, format: Self.format,
                                         stencilFormat: stencilFormat, renderPass: pipeline.renderPass)
            cleanup.append { target.destroy(device) }
            self.target = target
            var slots: [FrameSlot] = []
            for _ in 0..<Self.framesInFlight {
                let fence = try commands.makeFence(device: device)
                cleanup.append { commands.destroyFence(fence, device: device) }
                let clipSet = try Self.allocateSet(device: device, pool: pool, layout: pipeline.clipSetLayout)
                slots.append(FrameSlot(commandBuffer: try commands.makeCommandBuffer(device: device), fence: fence,
                                       clipSet: clipSet))
            }
            self.slots = slots
            let readbackFence = try commands.makeFence(device: device)
            cleanup.append { commands.destroyFence(readbackFence, device: device) }
            self.readbackFence = readbackFence
            readbackCommands = try commands.makeCommandBuffer(device: device)
        } catch {
            cleanup.reversed().forEach { $0() }
            instance.destroy()
            throw error
        }
    }

    deinit {
        // Nothing may be in use when it is destroyed: wait for every frame first.
        _ = vkDeviceWaitIdle(device.raw)
        for slot in slots {
            slot.retired.forEach { $0.destroy(device, pool: descriptorPool) }
            slot.instances?.destroy(device)
            slot.clips?.destroy(device)
            commands.destroyFence(slot.fence, device: device)
        }
        readback?.destroy(device)
        meshArena.destroy(device)
        for group in groupTargets { group.image.destroy(device) }
        vkDestroyDescriptorPool(device.raw, descriptorPool, nil)  // frees the sets too
        device.track(-1)
        commands.destroyFence(readbackFence, device: device)
        commands.destroy(device)
        target.destroy(device)
        pipeline.destroy(device)
        device.destroy()
        instance.destroy()
    }

    /// Records and submits one frame drawing `list`, without waiting for the GPU (except for
    /// the frame that used the same slot `framesInFlight` frames ago). A list whose size
    /// differs from the target's resizes the target first.
    ///
    /// - Returns: CPU phase times of this frame and the GPU time of the latest finished one.
    /// - Thread: render thread only.
    @discardableResult
    public func render(_ list: DrawList) throws(RenderError) -> FrameTiming {
        let start = now()
        if list.width != width || list.height != height {
            try resize(width: list.width, height: list.height)
        }
        frameNumber += 1
        let slotIndex = Int((frameNumber - 1) % UInt64(Self.framesInFlight))
        let waitStart = now()
        try finish(slot: slotIndex, wait: true)
        let gpuWait = now() - waitStart

        // Upload: instances straight into this slot's mapped ring buffer (its previous frame has
        // finished), meshes not yet on the GPU.
        let stride = MemoryLayout<RectInstance>.stride
        if (slots[slotIndex].instances?.size ?? 0) < (list.items.count + 2) * stride {
            try replaceInstanceBuffer(slot: slotIndex, capacity: list.items.count + 2, keeping: nil)
        }
        guard let ring = slots[slotIndex].instances else { preconditionFailure("the instance ring exists") }
        var span = RectInstance.Span(base: ring.mapped.bindMemory(to: RectInstance.self, capacity: ring.size / stride),
                                     capacity: ring.size / stride)
        // Locals, not the class's properties, in the per-item loop (no exclusivity checks).
        let clipCount = list.clips.count, width = width, height = height
        var passes = framePasses
        passes.removeAll(keepingCapacity: true)
        var allDraws = frameDraws
        allDraws.removeAll(keepingCapacity: true)
        var stack = drawStack
        defer { framePasses = passes; frameDraws = allDraws; drawStack = stack }
        // Offscreen images: `groupCount` used this frame, `freeTargets` free again.
        var groupCount = 0
        var freeTargets: [Int] = []
        func allocateTarget() throws(RenderError) -> Int {
            if let target = freeTargets.popLast() { return target }
            guard groupCount < Self.maxGroups else {
                throw .unsupported("more than \(Self.maxGroups) offscreen images (opacity groups, shadows) at once")
            }
            groupCount += 1
            return groupCount - 1
        }
        /// Writes `item`'s instances at the end of `span`, growing the ring buffer when full.
        func write(_ item: UnsafePointer<DrawItem>) throws(RenderError) -> RectInstance.Written {
            let written = RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span)
            guard case .needsRoom(let room) = written else { return written }
            try replaceInstanceBuffer(slot: slotIndex, capacity: 2 * (span.count + room), keeping: span)
            guard let ring = slots[slotIndex].instances else { preconditionFailure("the instance ring exists") }
            span.base = ring.mapped.bindMemory(to: RectInstance.self, capacity: ring.size / stride)
            span.capacity = ring.size / stride
            return RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span)
        }
        /// An item made here (a blur pass's quad), written like one of the list's.
        func write(_ item: DrawItem) throws(RenderError) -> RectInstance.Written {
            var item = item
            return try write(&item)
        }
        let whole = PixelRect(minX: 0, minY: 0, maxX: width, maxY: height)
        // Collects `range` into a pass for `group` (nil: the target) over `area`; nested groups
        // and shadows first, so passes come out children before parents and the target's pass
        // last. The images this pass reads are free again once it is recorded. A pass's draws
        // gather in `stack[depth]` and move to `allDraws` when it is complete.
        func collect(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, group: Int?, area: PixelRect?,
                     depth: Int) throws(RenderError) {
            if stack.count <= depth { stack.append([]) }
            stack[depth].removeAll(keepingCapacity: true)
            var reads: [Int] = []
            var k = range.lowerBound
            while k < range.upperBound {
                let item = items.baseAddress! + k
                switch item.pointee.kind {
                case .group(let opacity, let count):
                    let end = min(k + 1 + max(count, 0), range.upperBound)
                    if opacity > 0, end > k + 1 {
                        let g = try allocateTarget()
                        try collect(items, (k + 1)..<end, group: g, area: nil, depth: depth + 1)
                        stack[depth].append(.composite(group: g, opacity: Float(min(opacity, 1))))
                        reads.append(g)
                    }
                    k = end
                    continue
                case .shadowGroup(let color, let sigmaValue, let count):
                    let end = min(k + 1 + max(count, 0), range.upperBound)
                    defer { k = end }
                    let sigma = sigmaValue.isFinite ? max(sigmaValue, 0) : 0
                    let cappedSigma: Double = min(sigma, 100_000)
                    let radius = Int((3 * cappedSigma).rounded(.up))
                    // The content's bounding box grown by the blur, on the target (coordinates
                    // far outside it, infinite or NaN — a hostile transform — clamp to the
                    // target's neighbourhood, NaN to the whole of it).
                    guard end > k + 1, let box = Self.deviceBounds(list, (k + 1)..<end, width: width, height: height)
                    else { continue }
                    let margin = radius + 1
                    let limit = max(width, height) + 2 * margin + 4
                    let grown = PixelRect(minX: Self.pixel(box.minX, .down, within: limit) - margin,
                                          minY: Self.pixel(box.minY, .down, within: limit) - margin,
                                          maxX: Self.pixel(box.maxX, .up, within: limit) + margin,
                                          maxY: Self.pixel(box.maxY, .up, within: limit) + margin)
                        .intersection(whole)
                    guard !grown.isEmpty else { continue }
                    let quadWidth = Double(grown.maxX - grown.minX), quadHeight = Double(grown.maxY - grown.minY)
                    let quad = Rect(Double(grown.minX), Double(grown.minY), quadWidth, quadHeight)
                    // The vertical pass's instance: the shadow color, opacity and clips.
                    let vertical = span.count
                    guard case .drawn(1, _) = try write(DrawItem(bounds: quad, backgroundColor: color,
                                                                  opacity: item.pointee.opacity, clip: item.pointee.clip))
                    else { continue }
                    let horizontal = span.count
                    guard case .drawn(1, _) = try write(DrawItem(bounds: quad, backgroundColor: Color(0, 0, 0)))
                    else { continue }
                    // Content into one image, its horizontal blur into another, whose vertical
                    // blur this pass draws.
                    let content = try allocateTarget()
                    try collect(items, (k + 1)..<end, group: content, area: grown, depth: depth + 1)
                    let blurred = try allocateTarget()
                    allDraws.append(.blur(source: content, instance: horizontal, vertical: false, sigma: Float(cappedSigma),
                                          valid: grown, scissor: grown))
                    passes.append(Pass(group: blurred, area: grown, draws: (allDraws.count - 1)..<allDraws.count))
                    freeTargets.append(content)
                    stack[depth].append(.blur(source: blurred, instance: vertical, vertical: true, sigma: Float(cappedSigma),
                                              valid: grown, scissor: grown.intersection(area ?? whole)))
                    reads.append(blurred)
                    continue
                case .mesh(let meshDraw):
                    k += 1
                    let first = span.count
                    guard case .drawn(_, let variant) = try write(item) else { continue }
                    stack[depth].append(.mesh(Unmanaged.passUnretained(try gpuMesh(meshDraw)), instance: first,
                                              clipped: variant.clipped))
                case .rect, .shadow, .gradient:
                    k += 1
                    let first = span.count
                    guard case .drawn(let added, let variant) = try write(item) else { continue }
                    // An item's instances (gradient segments) share kind and clip, so one variant.
                    if case .rects(let runFirst, let runCount, let runVariant)? = stack[depth].last, runVariant == variant {
                        stack[depth][stack[depth].count - 1] = .rects(first: runFirst, count: runCount + added, variant: variant)
                    } else {
                        stack[depth].append(.rects(first: first, count: added, variant: variant))
                    }
                }
            }
            let start = allDraws.count
            allDraws.append(contentsOf: stack[depth])
            passes.append(Pass(group: group, area: area, draws: start..<allDraws.count))
            freeTargets.append(contentsOf: reads)
        }
        try list.items.withUnsafeBufferPointer { (items) throws(RenderError) in
            try collect(items, 0..<items.count, group: nil, area: nil, depth: 0)
        }
        try makeGroupTargets(groupCount)
        retireIdleMeshes()
        try uploadClips(list.clips, slot: slotIndex)
        let uploaded = now()

        try record(slot: slotIndex, passes: passes, draws: allDraws, clearColor: list.clearColor)
        let recorded = now()

        try commands.submit(slots[slotIndex].commandBuffer, fence: slots[slotIndex].fence, device: device)
        slots[slotIndex].pendingFrame = frameNumber
        renderedFrame = frameNumber
        let submitted = now()

        var timing = FrameTiming(frameNumber: frameNumber, upload: uploaded - start - gpuWait, record: recorded - uploaded,
                                 submit: submitted - recorded, gpu: latestGPUTime?.seconds,
                                 gpuFrameNumber: latestGPUTime?.frame)
        timing.gpuWait = gpuWait
        return timing
    }

    /// Waits for the last frame and returns its pixels: `width × height × 4` bytes, RGBA8,
    /// row-major, top row first.
    ///
    /// - Parameter alpha: `.premultiplied` (default) returns the target's bytes as they are;
    ///   `.straight` divides color by alpha. With an opaque clear color both are equal.
    /// - Precondition: a frame has been rendered at the current size.
    /// - Thread: render thread only.
    public func readPixels(alpha: PixelAlpha = .premultiplied) throws(RenderError) -> [UInt8] {
        precondition(renderedFrame != nil, "readPixels() needs a rendered frame at the current size")
        let byteCount = width * height * 4
        if let old = readback, old.size != byteCount {
            retire(.buffer(old))
            readback = nil
        }
        if readback == nil {
            readback = try VulkanBuffer(device: device, size: byteCount,
                                        usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_DST_BIT), cached: true)
        }
        guard let readback else { preconditionFailure("readback buffer exists") }

        let cmd = readbackCommands
        try vk("vkResetCommandBuffer", vkResetCommandBuffer(cmd, 0))
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = mapFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)
        try vk("vkBeginCommandBuffer", vkBeginCommandBuffer(cmd, &begin))
        // The render pass left the image in TRANSFER_SRC_OPTIMAL, its writes made available
        // to transfer reads by the pass's outgoing dependency.
        var region = VkBufferImageCopy()
        region.imageSubresource = VkImageSubresourceLayers(
            aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0, baseArrayLayer: 0, layerCount: 1)
        region.imageExtent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
        vkCmdCopyImageToBuffer(cmd, target.raw, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.raw, 1, &region)
        var barrier = VkBufferMemoryBarrier()
        barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER
        barrier.srcAccessMask = mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT)
        barrier.dstAccessMask = mapFlags(VK_ACCESS_HOST_READ_BIT)
        barrier.srcQueueFamilyIndex = queueFamilyIgnored
        barrier.dstQueueFamilyIndex = queueFamilyIgnored
        barrier.buffer = readback.raw
        barrier.offset = 0
        barrier.size = wholeSize
        vkCmdPipelineBarrier(cmd, mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), mapFlags(VK_PIPELINE_STAGE_HOST_BIT),
                             0, 0, nil, 1, &barrier, 0, nil)
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
        try commands.submit(cmd, fence: readbackFence, device: device)
        try commands.waitAndReset(readbackFence, device: device)
        // Every earlier frame finished before the copy did: collect their timings now.
        for index in slots.indices { try finish(slot: index, wait: false) }

        try readback.invalidate(device: device)
        // SAFETY: the copy has finished and the buffer holds `byteCount` bytes.
        var pixels = Array(UnsafeRawBufferPointer(start: readback.mapped, count: byteCount))
        if alpha == .straight {
            for i in stride(from: 0, to: byteCount, by: 4) {
                let a = Int(pixels[i + 3])
                if a == 0 {
                    pixels[i] = 0; pixels[i + 1] = 0; pixels[i + 2] = 0
                } else if a < 255 {
                    for c in 0..<3 { pixels[i + c] = UInt8(min(255, (Int(pixels[i + c]) * 255 + a / 2) / a)) }
                }
            }
        }
        return pixels
    }

    /// Changes the target size. The old image is destroyed once the frames using it finish.
    /// The content is undefined until the next `render`.
    /// - Thread: render thread only.
    public func resize(width: Int, height: Int) throws(RenderError) {
        precondition(width > 0 && height > 0, "resize needs a positive size, got \(width)×\(height)")
        guard width != self.width || height != self.height else { return }
        let image = try VulkanImage(device: device, width: width, height: height, format: Self.format,
                                    stencilFormat: stencilFormat, renderPass: pipeline.renderPass)
        retire(.image(target))
        target = image
        for group in groupTargets {
            retire(.image(group.image))
            retire(.descriptorSet(group.descriptorSet))
        }
        groupTargets.removeAll()
        self.width = width
        self.height = height
        renderedFrame = nil
    }

    // MARK: - Frames

    /// Puts `object` on the retire list of the latest submitted frame (frames finish in
    /// submission order, so every earlier user is done by then), or destroys it now when no
    /// frame is pending.
    private func retire(_ object: Retired) {
        if let index = slots.indices.filter({ slots[$0].pendingFrame != nil })
            .max(by: { slots[$0].pendingFrame! < slots[$1].pendingFrame! }) {
            slots[index].retired.append(object)
        } else {
            object.destroy(device, pool: descriptorPool)
        }
    }

    /// If the slot's frame is pending: waits for it (or, with `wait: false`, checks whether it
    /// finished), records its GPU time and frees what it retired.
    private func finish(slot index: Int, wait: Bool) throws(RenderError) {
        guard let frame = slots[index].pendingFrame else { return }
        if wait {
            try commands.waitAndReset(slots[index].fence, device: device)
        } else {
            let status = vkGetFenceStatus(device.raw, slots[index].fence)
            if status == VK_NOT_READY { return }
            try vk("vkGetFenceStatus", status)
            var fence: VkFence? = slots[index].fence
            try vk("vkResetFences", vkResetFences(device.raw, 1, &fence))
        }
        slots[index].pendingFrame = nil
        if let seconds = commands.gpuSeconds(slot: index, device: device),
           frame > (latestGPUTime?.frame ?? 0) {
            latestGPUTime = (frame, seconds)
        }
        slots[index].retired.forEach { $0.destroy(device, pool: descriptorPool) }
        slots[index].retired.removeAll()
    }

    /// The GPU copy of a mesh, uploaded on first use.
    private func gpuMesh(_ draw: MeshDraw) throws(RenderError) -> GPUMesh {
        let storage = StorageKey(draw.mesh)
        if let storage, let mesh = meshesByStorage[storage] {
            mesh.lastFrame = frameNumber
            return mesh
        }
        if let mesh = gpuMeshes[draw.key] {
            mesh.lastFrame = frameNumber
            return mesh
        }
        let mesh = GPUMesh(key: draw.key, mesh: draw.mesh, lastFrame: frameNumber)
        if let placed = meshArena.place(mesh.vertices, mesh.indices) {
            (mesh.vertexOffset, mesh.firstIndex) = placed
        } else {
            // Full: a new arena twice the live meshes' size, refilled; frames in flight keep
            // the old one until they finish. (Meshes this frame already drew from are moved
            // too; recording reads their new places.)
            let live = gpuMeshes.values.reduce(MeshArena.size(vertexCount: mesh.vertices.count, indexCount: mesh.indexCount)) {
                $0 + MeshArena.size(vertexCount: $1.vertices.count, indexCount: $1.indexCount)
            }
            if let old = try meshArena.rebuild(bytes: 2 * live, device: device) { retire(.buffer(old)) }
            for placedMesh in gpuMeshes.values + [mesh] {
                guard let placed = meshArena.place(placedMesh.vertices, placedMesh.indices) else {
                    preconditionFailure("a rebuilt mesh arena holds every live mesh")
                }
                (placedMesh.vertexOffset, placedMesh.firstIndex) = placed
            }
        }
        gpuMeshes[draw.key] = mesh
        if let storage { meshesByStorage[storage] = mesh }
        meshUploads += 1
        return mesh
    }

    /// Forgets meshes no frame has used for `meshIdleFrames` frames (checked every 60 frames);
    /// their arena space is reclaimed when the arena is next rebuilt.
    private func retireIdleMeshes() {
        guard frameNumber % 60 == 0 else { return }
        for (key, mesh) in gpuMeshes where frameNumber - mesh.lastFrame > Self.meshIdleFrames {
            gpuMeshes[key] = nil
        }
        meshesByStorage = meshesByStorage.filter { frameNumber - $0.value.lastFrame <= Self.meshIdleFrames }
    }

    /// Records the slot's command buffer: timestamps around one render pass that clears and
    /// records `draws` (instances from the slot's ring buffer, meshes from their buffers).
    /// Recording does not depend on the target image beyond its framebuffer and size, so a
    /// window target can reuse it.
    private func record(slot index: Int, passes: [Pass], draws: [Draw], clearColor: Color) throws(RenderError) {
        let cmd = slots[index].commandBuffer
        try vk("vkResetCommandBuffer", vkResetCommandBuffer(cmd, 0))
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = mapFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)
        try vk("vkBeginCommandBuffer", vkBeginCommandBuffer(cmd, &begin))
        let query = UInt32(2 * index)
        if let queryPool = commands.queryPool {
            vkCmdResetQueryPool(cmd, queryPool, query, 2)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queryPool, query)
        }
        let whole = PixelRect(minX: 0, minY: 0, maxX: width, maxY: height)
        for pass in passes {
            var clearStencil = VkClearValue()
            clearStencil.depthStencil = VkClearDepthStencilValue(depth: 1, stencil: 0)
            let clears = [mapClearColor(pass.group == nil ? clearColor : .clear), clearStencil]
            clears.withUnsafeBufferPointer { clearPointer in
                var info = VkRenderPassBeginInfo()
                info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO
                info.renderPass = pass.group == nil ? pipeline.renderPass : pipeline.groupRenderPass
                info.framebuffer = pass.group.map { groupTargets[$0].image.framebuffer } ?? target.framebuffer
                info.renderArea = (pass.area ?? whole).vk
                info.clearValueCount = 2
                info.pClearValues = clearPointer.baseAddress
                vkCmdBeginRenderPass(cmd, &info, VK_SUBPASS_CONTENTS_INLINE)
            }
            if !pass.draws.isEmpty {
                recordDraws(draws[pass.draws], area: pass.area ?? whole, cmd: cmd, instances: slots[index].instances,
                            clipSet: slots[index].clipSet)
            }
            vkCmdEndRenderPass(cmd)
        }
        if let queryPool = commands.queryPool {
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool, query + 1)
        }
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
    }

    /// Records one pass's draws, scissored to the pass's `area`. Depends only on the
    /// target's size, not on its image.
    private func recordDraws(_ draws: ArraySlice<Draw>, area: PixelRect, cmd: VkCommandBuffer, instances: VulkanBuffer?,
                             clipSet: VkDescriptorSet) {
        var viewport = VkViewport(x: 0, y: 0, width: Float(width), height: Float(height), minDepth: 0, maxDepth: 1)
        vkCmdSetViewport(cmd, 0, 1, &viewport)
        var scissor = area.vk
        vkCmdSetScissor(cmd, 0, 1, &scissor)
        var bound: VkPipeline? = nil
        func bind(_ pipeline: VkPipeline) {
            if bound != pipeline { vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline); bound = pipeline }
        }
        // Binding 0: the mesh arena (mesh vertices), binding 1: the instances; bound once.
        var vertexBuffersBound = false
        func bindVertexBuffers() {
            guard !vertexBuffersBound, let instances else { return }
            var instanceBuffer: VkBuffer? = instances.raw
            var offset: VkDeviceSize = 0
            vkCmdBindVertexBuffers(cmd, 1, 1, &instanceBuffer, &offset)
            if let arena = meshArena.buffer {
                var arenaBuffer: VkBuffer? = arena.raw
                vkCmdBindVertexBuffers(cmd, 0, 1, &arenaBuffer, &offset)
                vkCmdBindIndexBuffer(cmd, arena.raw, 0, VK_INDEX_TYPE_UINT32)
            }
            vertexBuffersBound = true
        }
        // Set 0 of the rect/mesh layout; a composite binds its own (incompatible) set 0.
        var clipSetBound = false
        func bindClips() {
            guard !clipSetBound else { return }
            var set: VkDescriptorSet? = clipSet
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.layout, 0, 1, &set, 0, nil)
            clipSetBound = true
        }
        var stencilReference: UInt32 = 0
        for draw in draws {
            switch draw {
            case .rects(let first, let count, let variant):
                guard instances != nil else { continue }
                bind(pipeline.pipeline(variant))
                if variant.clipped { bindClips() }
                bindVertexBuffers()
                vkCmdDraw(cmd, 4, UInt32(count), 0, UInt32(first))
            case .mesh(let mesh, let instance, let clipped):
                guard instances != nil else { continue }
                bindVertexBuffers()
                bind(pipeline.pipeline(PipelineVariant(kind: .mesh, clipped: clipped)))
                let mesh = mesh.takeUnretainedValue()
                if clipped { bindClips() }
                // Each mesh its own stencil reference (the pass cleared the stencil to 0).
                stencilReference += 1
                if stencilReference > 255 {
                    var clear = VkClearAttachment()
                    clear.aspectMask = mapFlags(VK_IMAGE_ASPECT_STENCIL_BIT)
                    clear.clearValue.depthStencil = VkClearDepthStencilValue(depth: 1, stencil: 0)
                    var rect = VkClearRect(rect: scissor, baseArrayLayer: 0, layerCount: 1)
                    vkCmdClearAttachments(cmd, 1, &clear, 1, &rect)
                    stencilReference = 1
                }
                vkCmdSetStencilReference(cmd, mapFlags(VK_STENCIL_FACE_FRONT_AND_BACK), stencilReference)
                vkCmdDrawIndexed(cmd, UInt32(mesh.indexCount), 1, UInt32(mesh.firstIndex), Int32(mesh.vertexOffset),
                                 UInt32(instance))
            case .composite(let group, let opacity):
                bind(pipeline.composite)
                var set: VkDescriptorSet? = groupTargets[group].descriptorSet
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.compositeLayout, 0, 1, &set, 0, nil)
                clipSetBound = false
                var constants = SIMD4<Float>(opacity, 0, 0, 0)
                vkCmdPushConstants(cmd, pipeline.compositeLayout, mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), 0, 16, &constants)
                vkCmdDraw(cmd, 3, 1, 0, 0)
            case .blur(let source, let instance, let vertical, let sigma, let valid, let blurArea):
                guard instances != nil, !blurArea.isEmpty else { continue }
                bind(pipeline.blur)
                bindVertexBuffers()
                // Set 0 the clips, set 1 the source; `blurLayout` is not compatible with
                // `layout` (push constants), so a later rect or mesh binds its set 0 again.
                var sets: [VkDescriptorSet?] = [clipSet, groupTargets[source].descriptorSet]
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.blurLayout, 0, 2, &sets, 0, nil)
                clipSetBound = false
                // Taps over ±3σ, reads clamped to where the source pass cleared its image.
                var constants = (SIMD4<Float>(vertical ? 0 : 1, vertical ? 1 : 0, sigma, (3 * sigma).rounded(.up)),
                                 SIMD4<Float>(Float(valid.minX), Float(valid.minY), Float(valid.maxX), Float(valid.maxY)))
                vkCmdPushConstants(cmd, pipeline.blurLayout, mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), 0, 32, &constants)
                var blurScissor = blurArea.vk
                vkCmdSetScissor(cmd, 0, 1, &blurScissor)
                vkCmdDraw(cmd, 4, 1, 0, UInt32(instance))
                vkCmdSetScissor(cmd, 0, 1, &scissor)
            }
        }
    }

    /// A box edge as a whole pixel, rounded `down` (low edges) or `up` (high edges) and
    /// clamped to ±`limit`; NaN goes to the far side (-limit for a low edge, +limit for a high
    /// one), so a box with NaN covers everything.
    static func pixel(_ v: Double, _ rounding: FloatingPointRoundingRule, within limit: Int) -> Int {
        guard !v.isNaN else { return rounding == .down ? -limit : limit }
        return Int(min(max(v, -Double(limit)), Double(limit)).rounded(rounding))
    }

    /// The device-pixel bounding box of what the items in `range` can touch (AA fringe
    /// included), nil when there are none; the whole target when a corner lies behind the eye.
    static func deviceBounds(_ list: DrawList, _ range: Range<Int>, width: Int, height: Int)
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        func add(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) {
            guard let b = box else { box = (minX, minY, maxX, maxY); return }
            box = (min(b.minX, minX), min(b.minY, minY), max(b.maxX, maxX), max(b.maxY, maxY))
        }
        var k = range.lowerBound
        while k < range.upperBound {
            let item = list.items[k]
            k += 1
            let local: Rect
            switch item.kind {
            case .rect, .gradient: local = item.bounds.standardized
            case .shadow(let sigma):
                let b = item.bounds.standardized, g = 3 * (sigma.isFinite ? max(sigma, 0) : 0)
                local = Rect(b.minX - g, b.minY - g, b.width + 2 * g, b.height + 2 * g)
            case .mesh(let draw): local = draw.mesh.bounds.standardized
            case .group: continue  // its items follow
            case .shadowGroup(_, let sigma, let count):
                let end = min(k + max(count, 0), range.upperBound)
                if let inner = deviceBounds(list, k..<end, width: width, height: height) {
                    let g = 3 * (sigma.isFinite ? max(sigma, 0) : 0)
                    add(inner.minX - g, inner.minY - g, inner.maxX + g, inner.maxY + g)
                }
                k = end
                continue
            }
            guard local.width > 0 || local.height > 0 else { continue }
            let m = item.transform
            for (x, y) in [(local.minX, local.minY), (local.maxX, local.minY), (local.minX, local.maxY),
                           (local.maxX, local.maxY)] {
                let w = x * m.m14 + y * m.m24 + m.m44
                guard w > 1e-9 else { return (0, 0, Double(width), Double(height)) }
                let px = (x * m.m11 + y * m.m21 + m.m41) / w, py = (x * m.m12 + y * m.m22 + m.m42) / w
                add(px, py, px, py)
            }
        }
        // The anti-aliasing margin (about a pixel).
        return box.map { ($0.minX - 1.5, $0.minY - 1.5, $0.maxX + 1.5, $0.maxY + 1.5) }
    }

    /// Makes sure `count` group targets exist at the current size.
    private func makeGroupTargets(_ count: Int) throws(RenderError) {
        while groupTargets.count < count {
            let image = try VulkanImage(device: device, width: width, height: height, format: Self.format,
                                        stencilFormat: stencilFormat, renderPass: pipeline.groupRenderPass, sampled: true)
            let set: VkDescriptorSet
            do {
                set = try Self.allocateSet(device: device, pool: descriptorPool, layout: pipeline.compositeSetLayout)
            } catch {
                image.destroy(device)
                throw error
            }
            var imageInfo = VkDescriptorImageInfo(sampler: pipeline.sampler, imageView: image.view,
                                                  imageLayout: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
            withUnsafePointer(to: &imageInfo) { imagePointer in
                var write = VkWriteDescriptorSet()
                write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                write.dstSet = set
                write.dstBinding = 0
                write.descriptorCount = 1
                write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                write.pImageInfo = imagePointer
                vkUpdateDescriptorSets(device.raw, 1, &write, 0, nil)
            }
            groupTargets.append(GroupTarget(image: image, descriptorSet: set))
        }
    }

    /// Workaround for lavapipe (llvmpipe, Mesa 22–23): each frame it mallocs and frees tens of
    /// megabytes (its binned scene data) at the top of the heap, and glibc's default trim
    /// threshold hands that memory back to the kernel after every frame, so the next frame
    /// page-faults it in again — 35 % of all CPU time with 2,000 meshes a frame, and about 40 %
    /// of the GPU time of `lamina-bench frames --mix shape`. Keeping up to 64 MiB of freed
    /// heap (16 MiB is not enough) stops the churn. Process-wide, set once, only when the
    /// device is a CPU; it can go when llvmpipe pools its scene memory.
    private static func keepFreedHeap() {
        #if canImport(Glibc)
        // mallopt is in <malloc.h>, which the Glibc module does not import: look it up.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
        guard let process = dlopen(nil, RTLD_NOW) else { return }
        defer { dlclose(process) }
        guard let symbol = dlsym(process, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(trimThreshold, 64 << 20)
        #endif
    }

    /// Wraps `vkAllocateDescriptorSets` for one set of `layout`.
    private static func allocateSet(device: VulkanDevice, pool: VkDescriptorPool,
                                    layout: VkDescriptorSetLayout) throws(RenderError) -> VkDescriptorSet {
        var set: VkDescriptorSet?
        var layout: VkDescriptorSetLayout? = layout
        var allocate = VkDescriptorSetAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
        allocate.descriptorPool = pool
        allocate.descriptorSetCount = 1
        let result = withUnsafePointer(to: &layout) { layoutPointer in
            allocate.pSetLayouts = layoutPointer
            return vkAllocateDescriptorSets(device.raw, &allocate, &set)
        }
        guard result == VK_SUCCESS, let set else { throw .vulkan(VulkanError(result), call: "vkAllocateDescriptorSets") }
        return set
    }

    /// Writes the frame's clips into the slot's clip buffer (growing it by doubling and
    /// pointing the slot's descriptor set at the new one). The slot's previous frame has
    /// finished, so neither the buffer nor the set is in use.
    private func uploadClips(_ clips: [Clip], slot slotIndex: Int) throws(RenderError) {
        let stride = MemoryLayout<ClipRecord>.stride
        let bytes = clips.count * stride
        let current = slots[slotIndex].clips?.size ?? 0
        if slots[slotIndex].clips == nil || bytes > current {
            if let old = slots[slotIndex].clips { slots[slotIndex].retired.append(.buffer(old)) }
            let buffer = try VulkanBuffer(device: device, size: max(bytes, 2 * current, 64 * stride),
                                          usage: mapFlags(VK_BUFFER_USAGE_STORAGE_BUFFER_BIT))
            slots[slotIndex].clips = buffer
            var info = VkDescriptorBufferInfo(buffer: buffer.raw, offset: 0, range: wholeSize)
            withUnsafePointer(to: &info) { infoPointer in
                var write = VkWriteDescriptorSet()
                write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                write.dstSet = slots[slotIndex].clipSet
                write.dstBinding = 0
                write.descriptorCount = 1
                write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                write.pBufferInfo = infoPointer
                vkUpdateDescriptorSets(device.raw, 1, &write, 0, nil)
            }
        }
        if bytes > 0, let buffer = slots[slotIndex].clips {
            // SAFETY: the buffer holds at least `bytes`, and this slot's previous frame has finished.
            let records = buffer.mapped.bindMemory(to: ClipRecord.self, capacity: clips.count)
            for index in clips.indices { (records + index).initialize(to: ClipRecord(clips, at: index)) }
        }
    }

    /// Gives the slot a new instance ring buffer of at least `capacity` instances (at least
    /// twice the old one's), copying `keeping`'s instances (this frame's so far, written into the
    /// old buffer) to its start. The old buffer goes on the slot's retire list.
    private func replaceInstanceBuffer(slot slotIndex: Int, capacity: Int, keeping: RectInstance.Span?) throws(RenderError) {
        let stride = MemoryLayout<RectInstance>.stride
        let old = slots[slotIndex].instances
        let bytes = max(capacity * stride, 2 * (old?.size ?? 0), 64 * stride)
        let buffer = try VulkanBuffer(device: device, size: bytes, usage: mapFlags(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT))
        if let keeping, keeping.count > 0 {
            // SAFETY: both buffers hold `keeping.count` instances; no submitted frame reads either
            // (this slot's previous frame has finished). Reading mapped memory back may be slow on
            // a GPU (write-combined), but this happens only when the ring grows.
            buffer.mapped.copyMemory(from: UnsafeRawPointer(keeping.base), byteCount: keeping.count * stride)
        }
        if let old { slots[slotIndex].retired.append(.buffer(old)) }
        slots[slotIndex].instances = buffer
    }

    private func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
