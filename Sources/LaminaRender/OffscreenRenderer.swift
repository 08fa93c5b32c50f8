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
    /// The driver-motivated switches for this device (`DriverProfile`): chosen from the device
    /// when it opens, unless `init` was given one. The render loop reads the idle-policy
    /// switches (`releasesIdleRings`) and hands the frame's to its `FrameDriver` (`adopt`).
    public let driverProfile: DriverProfile
    /// Whether the queue writes timestamps, so `FrameTiming.gpu` will be filled in.
    public var hasGPUTimestamps: Bool { commands.queryPool != nil }
    /// Live Vulkan objects (debug builds; 0 in release builds).
    public var liveObjectCount: Int { device.liveObjects }
    /// GPU seconds of the latest finished frame, and which frame, when timestamps work.
    public private(set) var latestGPUTime: (frame: UInt64, seconds: Double)?

    let stencilFormat: VkFormat
    /// Meshes uploaded so far, for tests and stats.
    public var meshUploads: Int { meshes.uploads }
    /// Meshes resident on the GPU.
    public var gpuMeshCount: Int { meshes.count }
    /// Images uploaded so far (layer contents), for tests and stats.
    public var imageUploads: Int { textures.uploads }
    /// Images resident on the GPU, and the bytes of their pixels (without mipmaps).
    public var gpuImageCount: Int { textures.count }
    public var gpuImageBytes: Int { textures.residentBytes }
    /// Glyph-atlas dirty rectangles copied in so far, and their bytes (text), for tests and stats.
    public var atlasWrites: Int { textures.atlasWrites }
    public var atlasWriteBytes: Int { textures.atlasWriteBytes }
    /// The small-image atlas: images placed in it so far, its entries and pages now, and the
    /// bytes of the entries' texels.
    public var imageAtlasPlacements: Int { textures.atlasPlacements }
    public var imageAtlasEntries: Int { textures.atlas.entries.count }
    public var imageAtlasPages: Int { textures.atlas.pages.count }
    public var imageAtlasBytes: Int { textures.atlas.entryBytes }
    /// The largest side of an image the small-image atlas takes (0: none, every image a texture
    /// of its own; benchmarks compare the two).
    public var imageAtlasLimit: Int {
        get { textures.atlasLimit }
        set { textures.atlasLimit = max(0, min(newValue, ImageAtlas.maxSide)) }
    }
    /// Draws the latest frame issued (instanced runs, meshes, passes' composites…).
    public private(set) var lastFrameDraws = 0
    /// Bytes of the mesh arena's buffer (0 before the first mesh), for tests.
    var meshArenaBytes: Int { meshes.arena.buffer?.size ?? 0 }
    /// Most offscreen images one frame may hold at once: a group holds one until its parent's
    /// pass, a blurred shadow two (its content, then its horizontal blur until its parent's pass).
    public static let maxGroups = 128

    private let instance: VulkanInstance
    let device: VulkanDevice
    let pipeline: VulkanPipeline
    let commands: VulkanCommands
    private let descriptorPool: VkDescriptorPool
    let lifetimes: LifetimeTracker
    let meshes = MeshResidency()
    let textures: ImageResidency
    /// Zero-copy surfaces (`VK_EXT_external_memory_host`); nil where the device has no import
    /// of host memory (then every surface is copied).
    public let hostSurfaces: HostMemorySurfaces?
    let images: OffscreenImagePool
    /// The raster cache's atlas pages (CALayer.shouldRasterize).
    let rasterAtlas = RasterAtlas()
    private let target: OffscreenTarget
    /// The window the frames are also presented to (`init(…window:)`), if any.
    private let window: WindowTarget?
    private let readback: Readback
    /// Frees a CPU driver's kept frame memory before the render thread sleeps; nil unless the
    /// profile says so (`DriverProfile.releasesDriverScratch`).
    let scratch: DriverScratch?
    private let recorder: PassRecorder
    var slots: [FrameSlot]
    /// Per frame slot: its encoding (what its ring holds, its draws).
    var encoders: [FrameEncoder]
    /// Frames submitted so far; frame n (from 1) uses slot (n − 1) % framesInFlight.
    var frameNumber: UInt64 = 0
    /// `DrawList.serial` of the list the target holds as drawn (0: unknown, redraw all).
    private var drawnSerial: UInt64 = 0
    /// Makes the next frame draw (and present) in full, whatever its damage: the window shows
    /// something other than what the target holds (a capture drew the frame without the
    /// viewer's overlays into it, without presenting).
    func forgetDrawnList() { drawnSerial = 0 }
    /// The patches of the lists seen lately (which items changed from list to list).
    private var history = FrameDeltaHistory(capacity: 2 * framesInFlight)
    /// Bumped when the target is replaced (with the residencies' own `changes`:
    /// `resourceEpoch`; each slot counts its own buffers' changes).
    var bufferChanges: UInt64 = 0

    /// Frames whose passes were recorded, and frames that submitted their slot's recorded
    /// passes again (the draws and everything they refer to unchanged), for tests and stats.
    public private(set) var framesRecorded = 0
    public private(set) var framesReused = 0
    /// Instances written whole so far, and frames that wrote only the changed items' instances
    /// (patching the slot's ring), for tests and stats.
    public private(set) var instancesWritten = 0
    /// Instances whose motion part alone was written so far (items that only moved or faded).
    public private(set) var motionWritten = 0
    /// Bytes written into the instance rings so far: instances whole at their kind's stride
    /// (`RectInstance.stride`), 48 per motion part.
    public private(set) var instanceBytesWritten = 0
    public private(set) var framesPatched = 0
    /// False: every frame writes every instance and records its passes (the reference path,
    /// for tests comparing the two, and `lamina-bench upload`'s `LAMINA_BENCH_FULL=1`).
    public var reusesWork = true

    /// Seconds the renderer's start spent creating its variant pipelines: the source-over ones
    /// and the 8 additive ones (an additive emitter's particles; 0 when left out).
    package var pipelineSeconds: (plain: Double, additive: Double) { pipeline.variantSeconds }

    /// Opens a Vulkan device and creates the offscreen target, pipelines and frame slots.
    ///
    /// - Parameters:
    ///   - width, height: target size in device pixels, positive.
    ///   - validation: enable the validation layer; nil reads `LAMINA_VALIDATION=1` from the
    ///     environment.
    ///   - window: also present every frame to this window (`WindowTarget`): its surface is
    ///     made on this thread, the present mode chosen for `fps` and the display's rate.
    ///   - profile: the driver profile; nil chooses it from the device
    ///     (`DriverProfile.forDevice`), or from `LAMINA_DRIVER_PROFILE` (`cpuRasterizer` or
    ///     `gpu`) in the environment, to try one profile on another device.
    /// - Throws: `RenderError.noDevice` (with a message naming `mesa-vulkan-drivers`) when
    ///   there is no Vulkan driver or device; other `RenderError`s when setup fails.
    /// - Thread: becomes the renderer's thread (render thread only).
    public init(width: Int, height: Int, validation: Bool? = nil, window: WindowSurface? = nil,
                fps: Double = 120, profile: DriverProfile? = nil) throws(RenderError) {
        precondition(width > 0 && height > 0, "OffscreenRenderer needs a positive size, got \(width)×\(height)")
        let validation = validation ?? (getenv("LAMINA_VALIDATION").map { String(cString: $0) == "1" } ?? false)
        self.width = width
        self.height = height
        let log = ValidationLog()
        validationLog = log
        instance = try VulkanInstance(validation: validation, log: log,
                                      surfaceExtensions: window?.instanceExtensions ?? [])
        // What exists so far, destroyed in reverse order if a later step throws.
        var cleanup: [() -> Void] = []
        do throws(RenderError) {
            // The window's surface first: the device must be able to present to it.
            var surface: VkSurfaceKHR?
            if let window {
                guard let made = window.makeSurface(instance.raw) else {
                    throw RenderError.unsupported("the window's Vulkan surface could not be made")
                }
                surface = made
                cleanup.append { [instance] in vkDestroySurfaceKHR(instance.raw, made, nil) }
            }
            let device = try VulkanDevice(instance: instance, extensions: window == nil ? [] : ["VK_KHR_swapchain"],
                                          optional: ["VK_EXT_external_memory_host"])
            cleanup.append { device.destroy() }
            self.device = device
            let profile = profile ?? DriverProfile.named(getenv("LAMINA_DRIVER_PROFILE").map { String(cString: $0) })
                ?? DriverProfile.forDevice(device.properties.deviceType)
            driverProfile = profile
            // Applied only where the executable adopted `HeapTrim.Policy.driverProfile`.
            if let bytes = profile.keptFreedHeap { HeapTrim.keepFreed(bytes) }
            let stencilFormat = try VulkanImage.stencilFormat(device: device)
            self.stencilFormat = stencilFormat
            // LAMINA_BENCH_NO_ADDITIVE_PIPELINES=1 (measurements only: `lamina-bench emitters
            // --startup`) leaves out the additive particles' 8 pipelines.
            let additive = getenv("LAMINA_BENCH_NO_ADDITIVE_PIPELINES").map { String(cString: $0) != "1" } ?? true
            let pipeline = try VulkanPipeline(device: device, format: OffscreenTarget.colorFormat, stencilFormat: stencilFormat,
                                              additive: additive)
            cleanup.append { pipeline.destroy(device) }
            self.pipeline = pipeline
            // Offscreen images (combined image samplers) and one clip buffer per frame slot.
            let poolSizes = [
                VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                     descriptorCount: UInt32(2 * Self.maxGroups + 2 * RasterAtlas.maxPages)),
                VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: UInt32(2 * Self.framesInFlight)),
            ]
            var poolInfo = VkDescriptorPoolCreateInfo()
            poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
            poolInfo.flags = mapFlags(VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT)
            poolInfo.maxSets = UInt32(2 * Self.maxGroups + 2 * RasterAtlas.maxPages + 2 * Self.framesInFlight)
            poolInfo.poolSizeCount = UInt32(poolSizes.count)
            var pool: VkDescriptorPool?
            try vk("vkCreateDescriptorPool", poolSizes.withUnsafeBufferPointer { sizePointer in
                poolInfo.pPoolSizes = sizePointer.baseAddress
                return vkCreateDescriptorPool(device.raw, &poolInfo, nil, &pool)
            })
            guard let pool else { throw RenderError.vulkan(.unexpected(0), call: "vkCreateDescriptorPool") }
            device.track(pool)
            cleanup.append { device.untrack(pool); vkDestroyDescriptorPool(device.raw, pool, nil) }
            descriptorPool = pool
            lifetimes = LifetimeTracker(device: device, descriptorPool: pool)
            images = OffscreenImagePool(format: OffscreenTarget.colorFormat, stencilFormat: stencilFormat)
            let textures = try ImageResidency(device: device)
            cleanup.append { textures.destroy(device) }
            self.textures = textures
            let commands = try VulkanCommands(device: device, timestampSlots: Self.framesInFlight)
            cleanup.append { commands.destroy(device) }
            self.commands = commands
            let host = HostMemorySurfaces(device: device, textures: textures, commands: commands)
            if let host { cleanup.append { host.destroy() } }
            hostSurfaces = host
            recorder = PassRecorder(pipeline: pipeline, commands: commands)
            let target = try OffscreenTarget(width: width, height: height, device: device, stencilFormat: stencilFormat,
                                             renderPass: pipeline.renderPass)
            cleanup.append { target.destroy(device) }
            self.target = target
            var slots: [FrameSlot] = []
            for _ in 0..<Self.framesInFlight {
                let fence = try commands.makeFence(device: device)
                cleanup.append { commands.destroyFence(fence, device: device) }
                let clipSet = try allocateDescriptorSet(device: device, pool: pool, layout: pipeline.clipSetLayout)
                let arenaSet = try allocateDescriptorSet(device: device, pool: pool, layout: pipeline.clipSetLayout)
                slots.append(FrameSlot(commandBuffer: try commands.makeCommandBuffer(device: device),
                                       tailBuffer: try commands.makeCommandBuffer(device: device), fence: fence,
                                       clipSet: clipSet, arenaSet: arenaSet))
            }
            self.slots = slots
            encoders = Array(repeating: FrameEncoder(), count: Self.framesInFlight)
            let readback = try Readback(device: device, commands: commands)
            self.readback = readback
            cleanup.append { readback.destroy(device, commands: commands) }
            scratch = profile.releasesDriverScratch
                ? try DriverScratch(device: device, commands: commands, pipeline: pipeline,
                                    format: OffscreenTarget.colorFormat, stencilFormat: stencilFormat)
                : nil
            if let scratch { cleanup.append { scratch.destroy(device, commands: commands) } }
            if let surface {
                self.window = try WindowTarget(device: device, surface: surface, refreshRate: window?.refreshRate,
                                               fps: fps, slots: Self.framesInFlight)
            } else {
                self.window = nil
            }
        } catch {
            cleanup.reversed().forEach { $0() }
            instance.destroy()
            throw error
        }
    }

    deinit {
        // Nothing may be in use when it is destroyed: wait for every frame first.
        _ = vkDeviceWaitIdle(device.raw)
        lifetimes.destroyAll()
        for slot in slots {
            slot.instances?.destroy(device)
            slot.clips?.destroy(device)
            commands.destroyFence(slot.fence, device: device)
        }
        readback.destroy(device, commands: commands)
        scratch?.destroy(device, commands: commands)
        window?.destroy(device: device, instance: instance)
        meshes.destroy(device)
        hostSurfaces?.destroy()
        textures.destroy(device)
        images.destroy(device)
        rasterAtlas.destroy(device)
        device.untrack(descriptorPool)
        vkDestroyDescriptorPool(device.raw, descriptorPool, nil)  // frees the sets too
        commands.destroy(device)
        target.destroy(device)
        pipeline.destroy(device)
        device.destroy()
        instance.destroy()
    }

    /// Records and submits one frame drawing `list`, without waiting for the GPU (except for
    /// the frame that used the same slot `framesInFlight` frames ago). A list whose size
    /// differs from the target's resizes the target first. With a window, the frame is also
    /// presented unless `present` is false (a capture of another time).
    ///
    /// - Returns: CPU phase times of this frame and the GPU time of the latest finished one.
    /// - Thread: render thread only.
    @discardableResult
    public func render(_ list: DrawList, present: Bool = true) throws(RenderError) -> FrameTiming {
        let start = now()
        if list.width != width || list.height != height {
            try resize(width: list.width, height: list.height)
        }
        let plan = list.plan
        history.note(list)
        // The target still holds the list this one's damage is relative to: redraw only the
        // damage (nothing at all when it is empty).
        var damage: PixelRect? = nil
        if let d = list.damage, d.since != 0, d.since == drawnSerial, target.renderedFrame != nil {
            if d.rect.isEmpty {
                drawnSerial = list.serial
                return FrameTiming(frameNumber: frameNumber, upload: 0, record: 0, submit: 0,
                                   gpu: latestGPUTime?.seconds, gpuFrameNumber: latestGPUTime?.frame)
            }
            damage = d.rect
        }
        drawnSerial = 0
        // (One more under damage for what the frame passes draw outside it for a copy out of the
        // frame: `PassRecorder.record`.)
        let imagesNeeded = plan.imageCount + (damage != nil && plan.passes.contains { $0.copyOut != nil } ? 1 : 0)
        guard imagesNeeded <= Self.maxGroups else {
            throw .unsupported("more than \(Self.maxGroups) offscreen images (opacity groups, shadows) at once")
        }
        frameNumber += 1
        let frame = frameNumber
        let slotIndex = Int((frame - 1) % UInt64(Self.framesInFlight))
        let waitStart = now()
        try finish(slot: slotIndex, wait: true)
        // A window frame: the swapchain image, once the frame that last wrote it has finished.
        var presenting = false
        if let window, present {
            let (acquired, lastFrame) = try window.acquire(width: width, height: height, slot: slotIndex, device: device)
            presenting = acquired
            if acquired && lastFrame > 0 { try finish(frame: lastFrame) }
        }
        let gpuWait = now() - waitStart
        // What the slot's recorded passes were recorded with: nil until they are recorded
        // again or found still valid (so an error on the way leaves them to be recorded).
        let recorded = slots[slotIndex].recorded
        slots[slotIndex].recorded = nil

        // Upload: instances straight into this slot's mapped ring buffer (its previous frame has
        // finished) — only the changed items' when the ring holds a list this one patches —
        // meshes not yet on the GPU.
        var encoder = FrameEncoder()
        swap(&encoder, &encoders[slotIndex])
        defer { swap(&encoder, &encoders[slotIndex]) }
        // (Bytes: each drawn item takes at least the smallest stride.)
        if try sizeInstanceRing(slot: slotIndex,
                                need: max(list.items.count * RectInstance.minimumStride, encoder.instanceBytes)) {
            encoder.forgetHeld()
        }
        guard let ring = slots[slotIndex].instances else { preconditionFailure("the instance ring exists") }
        var span = RectInstance.Span(packed: ring.mapped, capacity: ring.size)
        let device = device, meshes = meshes, lifetimes = lifetimes, textures = textures
        let imageSetLayout = pipeline.compositeSetLayout
        if let atlas = list.textAtlas { try textures.update(atlas, frame: frame, device: device) }
        if let atlas = list.shapeAtlas { try textures.update(atlas, frame: frame, device: device) }
        if let page = list.framePage { try textures.update(page, frame: frame, device: device) }
        let rasterAtlas = rasterAtlas
        try rasterAtlas.prepare(list.rasterAtlas, frame: frame, device: device, pipeline: pipeline, pool: descriptorPool,
                                lifetimes: lifetimes)
        // What changed since the list the ring holds (nil: write every item).
        var delta: FrameDelta? = nil
        if reusesWork, let held = encoder.held { delta = history.delta(since: held.serial, items: list.items.count) }
        let outcome = try encoder.encode(list, delta: delta, frame: frame, imageEpoch: textures.changes, into: &span,
                                         grow: { (span, need) throws(RenderError) in
            try replaceInstanceBuffer(slot: slotIndex, capacity: FrameSlot.ringRoom(for: need), keeping: span)
            guard let ring = slots[slotIndex].instances else { preconditionFailure("the instance ring exists") }
            span.bytes = ring.mapped
            span.capacity = ring.size
        }, mesh: { (draw) throws(RenderError) in
            try meshes.resident(draw, frame: frame, device: device, lifetimes: lifetimes)
        }, image: { (draw) throws(RenderError) in
            if let (set, page) = rasterAtlas.resolve(draw) { return ImageResidency.Binding(set: set, texture: page) }
            return try textures.resident(draw, frame: frame, device: device, setLayout: imageSetLayout)
        })
        delta = nil  // the history's buffers unshared again (no copy when they are next refilled)
        encoder.noteImageEpoch(textures.changes)
        lastFrameDraws = encoder.draws.count
        instancesWritten += outcome.written
        motionWritten += outcome.motionWritten
        instanceBytesWritten += outcome.bytesWritten
        if outcome.patched { framesPatched += 1 }
        try images.reserve(imagesNeeded, width: width, height: height, device: device, pipeline: pipeline,
                           descriptorPool: descriptorPool)
        meshes.forgetIdle(frame: frame)
        textures.forgetIdle(frame: frame, lifetimes: lifetimes)
        rasterAtlas.forgetIdle(frame: frame, lifetimes: lifetimes)
        try uploadClips(list.clips, slot: slotIndex)
        pointArenaSet(slot: slotIndex)
        let uploaded = now()

        // Record the passes unless the slot's recorded ones draw exactly this (the same draws,
        // plan, target, damage and buffers, nothing they refer to changed since, no uploads).
        let slot = slots[slotIndex]
        let framebuffer = target.framebuffer(for: frame)
        let key = RecordingKey(plan: plan, framebuffer: framebuffer, width: width, height: height,
                               clearColor: list.clearColor, damage: damage, instances: slot.instances?.raw,
                               clips: slot.clips?.raw, arena: meshes.arena.buffer?.raw,
                               epoch: resourceEpoch &+ slot.changes)
        if outcome.drawsChanged || recorded != key || textures.hasPendingUploads || rasterAtlas.needsInitialization
            || !reusesWork {
            let uploads = textures.hasPendingUploads || rasterAtlas.needsInitialization
            let skips = rasterAtlas.passesToSkip(plan)
            try recorder.record(PassRecorder.Frame(commandBuffer: slot.commandBuffer, timestampSlot: slotIndex,
                                                   framebuffer: framebuffer, image: target.image.raw,
                                                   width: width, height: height,
                                                   clearColor: list.clearColor, instances: slot.instances,
                                                   clipSet: slot.clipSet, arenaSet: slot.arenaSet, arena: meshes.arena.buffer,
                                                   damage: damage,
                                                   prelude: { cmd in
                                                       textures.recordUploads(into: cmd, frame: frame, lifetimes: lifetimes)
                                                       rasterAtlas.recordInitialization(into: cmd)
                                                   }),
                                plan: plan, draws: encoder.draws, passDraws: encoder.passDraws, images: images,
                                atlas: rasterAtlas, skips: skips)
            framesRecorded += 1
            // A buffer with uploads is not submitted again (its staging buffers go).
            slots[slotIndex].recorded = uploads ? nil : key
        } else {
            framesReused += 1
            slots[slotIndex].recorded = key
        }
        try recorder.recordTail(slot.tailBuffer, timestampSlot: slotIndex,
                                window: presenting ? window.map { ($0, target.image, frame) } : nil)
        let recordedTime = now()

        try commands.submit([slot.commandBuffer, slot.tailBuffer], fence: slot.fence, device: device,
                            semaphores: presenting ? window?.submitSemaphores : nil)
        slots[slotIndex].pendingFrame = frame
        lifetimes.submitted(frame)
        target.submitted(frame: frame)
        drawnSerial = list.serial
        if presenting { try window?.present(device: device) }
        let submitted = now()

        var timing = FrameTiming(frameNumber: frame, upload: uploaded - start - gpuWait, record: recordedTime - uploaded,
                                 submit: submitted - recordedTime, gpu: latestGPUTime?.seconds,
                                 gpuFrameNumber: latestGPUTime?.frame)
        timing.gpuWait = gpuWait
        return timing
    }

    /// Everything a frame's recorded passes depend on besides its draws: equal keys (and
    /// draws) record the same commands.
    struct RecordingKey: Equatable {
        var plan: FramePlan
        var framebuffer: VkFramebuffer
        var width: Int, height: Int
        var clearColor: Color
        var damage: PixelRect?
        var instances: VkBuffer?, clips: VkBuffer?, arena: VkBuffer?
        var epoch: UInt64
    }

    /// Changes whenever an object a recorded frame may refer to was made, replaced, updated
    /// or released (a handle can be reused by a new object, so handles alone do not tell).
    var resourceEpoch: UInt64 {
        bufferChanges &+ textures.changes &+ meshes.changes &+ images.changes &+ rasterAtlas.changes
    }

    /// Waits for the last frame and returns its pixels: `width × height × 4` bytes, RGBA8,
    /// row-major, top row first.
    ///
    /// - Parameter alpha: `.premultiplied` (default) returns the target's bytes as they are;
    ///   `.straight` divides color by alpha. With an opaque clear color both are equal.
    /// - Precondition: a frame has been rendered at the current size.
    /// - Thread: render thread only.
    public func readPixels(alpha: PixelAlpha = .premultiplied) throws(RenderError) -> [UInt8] {
        precondition(target.renderedFrame != nil, "readPixels() needs a rendered frame at the current size")
        try readback.copy(target.image, device: device, commands: commands, lifetimes: lifetimes)
        // Every earlier frame finished before the copy did: collect their timings now.
        for index in slots.indices { try finish(slot: index, wait: false) }
        return try readback.pixels(alpha: alpha, device: device)
    }

    /// Changes the target size. The old image is destroyed once the frames using it finish.
    /// The content is undefined until the next `render`.
    /// - Thread: render thread only.
    public func resize(width: Int, height: Int) throws(RenderError) {
        precondition(width > 0 && height > 0, "resize needs a positive size, got \(width)×\(height)")
        guard width != self.width || height != self.height else { return }
        try target.resize(width: width, height: height, device: device, stencilFormat: stencilFormat,
                          renderPass: pipeline.renderPass, lifetimes: lifetimes)
        images.retireAll(lifetimes)
        bufferChanges += 1
        self.width = width
        self.height = height
    }

    // MARK: - Window

    /// How frames reach the window and who paces them; nil without a window.
    public var presentPacing: PresentPacing? { window?.pacing }
    /// Frames presented to the window so far.
    public var presentedFrames: Int { window?.presentedFrames ?? 0 }
    /// Frames rendered but not presented (minimized, a size change in flight, no image in time).
    public var unpresentedFrames: Int { window?.skippedFrames ?? 0 }
    /// Swapchains made so far (1 + the recreations after resizes and out-of-date surfaces).
    public var swapchainsMade: Int { window?.recreations ?? 0 }

    // MARK: - Frames

    /// Waits for frame `frame` if it is still pending in its slot.
    func finish(frame: UInt64) throws(RenderError) {
        let index = Int((frame - 1) % UInt64(Self.framesInFlight))
        if slots[index].pendingFrame == frame { try finish(slot: index, wait: true) }
    }

    /// If the slot's frame is pending: waits for it (or, with `wait: false`, checks whether it
    /// finished), records its GPU time and frees what was retired to it.
    func finish(slot index: Int, wait: Bool) throws(RenderError) {
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
        lifetimes.finished(frame)
    }

    private func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
