import CVulkan
import Glibc
import LaminaFrame
import LaminaGeometry

/// Records a frame's explicit passes (`FramePlan`) into a command buffer for any
/// `RenderTarget`: each pass clears and draws its area of the frame's image or of an
/// offscreen image from the pool, in plan order (children before the passes that sample
/// them), between two timestamps. Depends on the target only through its framebuffer and
/// size. Render thread only.
///
/// A frame is two command buffers submitted together: the passes (`record`), which a frame
/// slot submits again unchanged while the frame's draws and everything they refer to are
/// the same, and the tail (`recordTail`: the window copy and the end timestamp), recorded
/// every frame.
///
/// Clears: an offscreen pass over its whole image clears it in the render pass (lavapipe bins
/// that clear for the rasterizer threads). Any other offscreen or atlas pass — a group's box,
/// a batch's union of regions, a raster region — begins a render pass that clears nothing
/// (`VulkanPipeline.groupUnclearedRenderPass`, `atlasUnclearedRenderPass`: load ops don't-care)
/// and clears only `FramePass.clears` (a batch's members' regions) or its area by drawing
/// `VulkanPipeline.clear` scissored to each: lavapipe does a render pass's clear of less than the whole image on
/// the submitting thread, mapping the image (which waits for the rasterizer to finish what it
/// has queued) and filling it there — a stall and a single-threaded fill per pass. The drawn
/// clear writes the same bytes (transparent black, stencil 0). A pass that starts from the
/// frame's clear color (`clearsToFrameColor`) and the frame pass clear as before.
/// `LAMINA_DRAWN_CLEARS=0` turns the drawn clears off (every pass clears its whole area in the
/// render pass, as before), for measurements.
///
/// Stencil: only meshes test it (`RecordedDraw.mesh`: each pixel once). A pass none of whose
/// draws is a mesh begins its render pass's twin that leaves the stencil undefined
/// (`VulkanPipeline.stencilUncleared(_:)`) instead of clearing it: lavapipe bins a whole
/// clear into every tile with the color's (1.8 % of the plain mix's rasterizer samples, docs/
/// performance.md, "Where the plain mix's frame goes") and does a partial one (under damage) on
/// the submitting thread.
/// `LAMINA_STENCIL_CLEARS=1` clears it in every pass, as before, for measurements.
struct PassRecorder {
    let pipeline: VulkanPipeline
    let commands: VulkanCommands
    /// False with `LAMINA_DRAWN_CLEARS=0` (see above).
    static let drawsClears = getenv("LAMINA_DRAWN_CLEARS").map { String(cString: $0) } != "0"
    /// False with `LAMINA_STENCIL_CLEARS=1` (see above).
    static let skipsUnusedStencilClears = getenv("LAMINA_STENCIL_CLEARS").map { String(cString: $0) } != "1"

    /// What one frame's recording reads.
    struct Frame {
        let commandBuffer: VkCommandBuffer
        /// The frame's timestamp pair (`VulkanCommands.gpuSeconds(slot:)`).
        let timestampSlot: Int
        let framebuffer: VkFramebuffer
        /// The frame's color image (the source and destination of copies: `FramePass.CopyOut`).
        let image: VkImage
        let width: Int
        let height: Int
        let clearColor: Color
        let instances: VulkanBuffer?
        let clipSet: VkDescriptorSet
        /// Set 1 for meshes: the arena as a storage buffer.
        let arenaSet: VkDescriptorSet
        let arena: VulkanBuffer?
        /// When the frame's image holds the previous frame: the only pixels to clear and draw
        /// (the frame's damage); the rest of the image is kept. Nil: all of it.
        var damage: PixelRect? = nil
        /// Records what must happen before the passes (image uploads).
        var prelude: ((VkCommandBuffer) -> Void)? = nil
    }

    /// Records the frame's passes into `frame.commandBuffer`, after the frame's start
    /// timestamp and `prelude`. The buffer may be submitted again while nothing it refers to
    /// changes (not one-time-submit; it resets its own timestamp queries); `recordTail`
    /// records what follows it in the same submission.
    /// `atlas`: the raster atlas' pages (`.atlas` passes); `skips`: per pass, whether to leave
    /// it out (an atlas page holds what it would draw: `RasterAtlas.passesToSkip`).
    func record(_ frame: Frame, plan: FramePlan, draws: [RecordedDraw], passDraws: [Range<Int>],
                images: OffscreenImagePool, atlas: RasterAtlas? = nil, skips: [Bool] = []) throws(RenderError) {
        let cmd = frame.commandBuffer
        try beginRecording(cmd, oneTime: false)
        let query = UInt32(2 * frame.timestampSlot)
        if let queryPool = commands.queryPool {
            vkCmdResetQueryPool(cmd, queryPool, query, 2)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queryPool, query)
        }
        frame.prelude?(cmd)
        // Under damage, the frame passes' areas (wider than the damage before a copy out of the
        // frame); what they draw outside the damage is the previous frame's again at the end,
        // kept meanwhile in offscreen image `plan.imageCount` (`OffscreenRenderer` reserves it).
        let damagedAreas = frame.damage.map { plan.damagedFrameAreas($0) }
        var kept: [PixelRect] = []
        if let damage = frame.damage, let areas = damagedAreas,
           let first = plan.passes.indices.first(where: { plan.passes[$0].target == .frame }), let widest = areas[first] {
            kept = widest.subtracting(damage)
            if !kept.isEmpty {
                let scratch = images.image(plan.imageCount)
                prepareCopy(cmd, into: scratch, from: frame.image, frameSource: true)
                copy(cmd, from: frame.image, to: scratch, kept)
                recordImageBarrier(cmd, image: scratch, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                   to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, srcAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                                   dstAccess: mapFlags(VK_ACCESS_TRANSFER_READ_BIT),
                                   srcStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT),
                                   dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT))
            }
        }
        for (index, pass) in plan.passes.enumerated() {
            if index < skips.count, skips[index] { continue }
            var clearStencil = VkClearValue()
            clearStencil.depthStencil = VkClearDepthStencilValue(depth: 1, stencil: 0)
            let clears: [VkClearValue]
            let framebuffer: VkFramebuffer
            var renderPass: VkRenderPass
            var area = pass.area
            // The parts of the area to clear by drawing (nil: the render pass clears all of it).
            var drawnClears: [PixelRect]? = nil
            switch pass.target {
            case .frame:
                clears = [mapClearColor(frame.clearColor), clearStencil]
                framebuffer = frame.framebuffer
                if let damaged = damagedAreas?[index] {
                    // Render area and scissor cut to the damage (wider before a copy out of the
                    // frame: `FramePlan.damagedFrameAreas`): the clear and every draw (blurred
                    // shadows' steps included) stay inside it.
                    renderPass = pass.loads ? pipeline.continueRenderPass : pipeline.retainedRenderPass
                    area = damaged
                    if area.isEmpty { area = PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0) }
                } else {
                    renderPass = pass.loads ? pipeline.continueRenderPass : pipeline.renderPass
                }
            case .image(let image):
                clears = [mapClearColor(pass.clearsToFrameColor ? frame.clearColor : .clear), clearStencil]
                framebuffer = images.framebuffer(image)
                let whole = PixelRect(minX: 0, minY: 0, maxX: frame.width, maxY: frame.height)
                if pass.loads {
                    renderPass = pipeline.groupContinueRenderPass
                } else if Self.drawsClears, !pass.clearsToFrameColor, pass.clears != nil || area != whole {
                    renderPass = pipeline.groupUnclearedRenderPass
                    drawnClears = pass.clears ?? [area]
                } else {
                    renderPass = pipeline.groupRenderPass
                }
            case .atlas(let page):
                // Only its region is cleared; the rest of the page is kept.
                guard let pageFramebuffer = atlas?.framebuffer(page) else { continue }
                clears = [mapClearColor(.clear), clearStencil]
                framebuffer = pageFramebuffer
                if Self.drawsClears {
                    renderPass = pipeline.atlasUnclearedRenderPass
                    drawnClears = [area]
                } else {
                    renderPass = pipeline.atlasRenderPass
                }
            }
            let range = passDraws[index]
            if Self.skipsUnusedStencilClears, !draws[range].contains(where: \.testsStencil) {
                renderPass = pipeline.stencilUncleared(renderPass)
            }
            clears.withUnsafeBufferPointer { clearPointer in
                var info = VkRenderPassBeginInfo()
                info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO
                info.renderPass = renderPass
                info.framebuffer = framebuffer
                info.renderArea = area.vk
                info.clearValueCount = 2
                info.pClearValues = clearPointer.baseAddress
                vkCmdBeginRenderPass(cmd, &info, VK_SUBPASS_CONTENTS_INLINE)
            }
            if let drawnClears { recordClears(drawnClears, area: area, cmd: cmd, frame: frame) }
            if !range.isEmpty && !area.isEmpty {
                recordDraws(draws[range], area: area, cmd: cmd, frame: frame, images: images)
            }
            vkCmdEndRenderPass(cmd)
            if let out = pass.copyOut {
                let source: VkImage
                switch pass.target {
                case .frame: source = frame.image  // (the main pass leaves it a transfer source)
                case .image(let image):
                    source = images.image(image)
                    recordImageBarrier(cmd, image: source, from: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                       to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                       srcAccess: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                                       dstAccess: mapFlags(VK_ACCESS_TRANSFER_READ_BIT),
                                       srcStage: mapFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT),
                                       dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT))
                case .atlas: continue  // (atlas passes are not cut: FramePlanner)
                }
                let destination = images.image(out.image)
                prepareCopy(cmd, into: destination, from: source, frameSource: false)
                copy(cmd, from: source, to: destination, [out.area.intersection(
                    PixelRect(minX: 0, minY: 0, maxX: frame.width, maxY: frame.height))])
                recordImageBarrier(cmd, image: destination, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                   to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                   srcAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                                   dstAccess: mapFlags(VK_ACCESS_SHADER_READ_BIT),
                                   srcStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT),
                                   dstStage: mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT))
                if case .image = pass.target {
                    // Back to how a group's pass leaves it (the continuing pass starts from it).
                    recordImageBarrier(cmd, image: source, from: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                       to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                       srcAccess: mapFlags(VK_ACCESS_TRANSFER_READ_BIT),
                                       dstAccess: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_READ_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                                       srcStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT),
                                       dstStage: mapFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT))
                }
            }
        }
        if !kept.isEmpty {
            // The previous frame's pixels back where the passes drew only for the copies.
            let scratch = images.image(plan.imageCount)
            recordImageBarrier(cmd, image: frame.image, from: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               srcAccess: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                               dstAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                               srcStage: mapFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT),
                               dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT))
            copy(cmd, from: scratch, to: frame.image, kept)
            recordImageBarrier(cmd, image: frame.image, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                               to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               srcAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                               dstAccess: mapFlags(VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                               srcStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT),
                               dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT))
        }
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
    }

    /// Makes offscreen image `destination` a copy's destination (its earlier contents dropped),
    /// after every earlier use of it — and, for a copy out of the frame before the passes
    /// (`frameSource`), after the previous frame's writes of the frame's image `source`.
    private func prepareCopy(_ cmd: VkCommandBuffer, into destination: VkImage, from source: VkImage, frameSource: Bool) {
        let earlier = mapFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT)
        recordImageBarrier(cmd, image: destination, from: VK_IMAGE_LAYOUT_UNDEFINED, to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           srcAccess: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT),
                           dstAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                           srcStage: earlier, dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT))
        if frameSource {
            recordImageBarrier(cmd, image: source, from: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               srcAccess: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_WRITE_BIT),
                               dstAccess: mapFlags(VK_ACCESS_TRANSFER_READ_BIT),
                               srcStage: earlier, dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT))
        }
    }

    /// Copies `rects` of `source` (transfer source) to the same place in `destination` (transfer
    /// destination); both images have the target's size and format.
    private func copy(_ cmd: VkCommandBuffer, from source: VkImage, to destination: VkImage, _ rects: [PixelRect]) {
        let layers = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                              baseArrayLayer: 0, layerCount: 1)
        let regions = rects.filter { !$0.isEmpty }.map { r in
            VkImageCopy(srcSubresource: layers, srcOffset: VkOffset3D(x: Int32(r.minX), y: Int32(r.minY), z: 0),
                        dstSubresource: layers, dstOffset: VkOffset3D(x: Int32(r.minX), y: Int32(r.minY), z: 0),
                        extent: VkExtent3D(width: UInt32(r.maxX - r.minX), height: UInt32(r.maxY - r.minY), depth: 1))
        }
        guard !regions.isEmpty else { return }
        regions.withUnsafeBufferPointer { r in
            vkCmdCopyImage(cmd, source, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, destination,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, UInt32(r.count), r.baseAddress)
        }
    }

    /// Clears `rects`, each cut to the pass's `area`, to transparent black and stencil 0 by
    /// drawing `VulkanPipeline.clear` scissored to each (see the type's notes, "Clears").
    private func recordClears(_ rects: [PixelRect], area: PixelRect, cmd: VkCommandBuffer, frame: Frame) {
        var viewport = VkViewport(x: 0, y: 0, width: Float(frame.width), height: Float(frame.height),
                                  minDepth: 0, maxDepth: 1)
        vkCmdSetViewport(cmd, 0, 1, &viewport)
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.clear)
        for rect in rects {
            let cut = rect.intersection(area)
            guard !cut.isEmpty else { continue }
            var scissor = cut.vk
            vkCmdSetScissor(cmd, 0, 1, &scissor)
            vkCmdDraw(cmd, 3, 1, 0, 0)
        }
    }

    /// Records what follows a frame's passes in its submission into `cmd` (one-time): with
    /// `window`, the copy of the frame's image (`source`) into the window's acquired swapchain
    /// image (`WindowTarget.recordCopy`); then the frame's end timestamp. Recorded every
    /// frame (a few commands), so the passes' buffer does not depend on the swapchain image.
    func recordTail(_ cmd: VkCommandBuffer, timestampSlot: Int,
                    window: (target: WindowTarget, source: VulkanImage, frame: UInt64)?) throws(RenderError) {
        try beginRecording(cmd, oneTime: true)
        if let window { window.target.recordCopy(from: window.source, frame: window.frame, cmd: cmd) }
        if let queryPool = commands.queryPool {
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queryPool, UInt32(2 * timestampSlot + 1))
        }
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
    }

    /// Records one pass's draws, scissored to the pass's area (`passArea`), or to a batched
    /// member's region within it after a `.scissor` draw.
    private func recordDraws(_ draws: ArraySlice<RecordedDraw>, area passArea: PixelRect, cmd: VkCommandBuffer,
                             frame: Frame, images: OffscreenImagePool) {
        var viewport = VkViewport(x: 0, y: 0, width: Float(frame.width), height: Float(frame.height),
                                  minDepth: 0, maxDepth: 1)
        vkCmdSetViewport(cmd, 0, 1, &viewport)
        var area = passArea
        var scissor = area.vk
        vkCmdSetScissor(cmd, 0, 1, &scissor)
        var bound: VkPipeline? = nil
        func bind(_ pipeline: VkPipeline) {
            if bound != pipeline { vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline); bound = pipeline }
        }
        let instances = frame.instances
        // Binding 0: the mesh arena (mesh vertices), binding 1: the instances; bound once. A
        // draw's first instance is a byte offset aligned to its kind's stride (`RecordedDraw`),
        // so it is instance `first / stride` of its pipeline's binding (a rebinding per draw
        // at that offset doubled the recording of a mixed scene on lavapipe).
        var vertexBuffersBound = false
        func bindVertexBuffers() {
            guard !vertexBuffersBound, let instances else { return }
            var instanceBuffer: VkBuffer? = instances.raw
            var offset: VkDeviceSize = 0
            vkCmdBindVertexBuffers(cmd, 1, 1, &instanceBuffer, &offset)
            if let arena = frame.arena {
                var arenaBuffer: VkBuffer? = arena.raw
                vkCmdBindVertexBuffers(cmd, 0, 1, &arenaBuffer, &offset)
                vkCmdBindIndexBuffer(cmd, arena.raw, 0, VK_INDEX_TYPE_UINT32)
            }
            vertexBuffersBound = true
        }
        /// The instance index of the one at byte `first` in a pipeline of `kind`'s stride.
        func index(_ first: Int, _ kind: RectInstance.Kind) -> UInt32 {
            let stride = RectInstance.stride(kind)
            assert(first % stride == 0, "a draw's first instance is aligned to its stride")
            return UInt32(RectInstance.instances(inBytes: first, stride: stride))
        }
        // Set 0 of the rect/mesh layout; a composite binds its own (incompatible) set 0.
        var clipSetBound = false
        func bindClips() {
            guard !clipSetBound else { return }
            var set: VkDescriptorSet? = frame.clipSet
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.layout, 0, 1, &set, 0, nil)
            clipSetBound = true
        }
        var arenaSetBound = false
        func bindArena() {
            guard !arenaSetBound else { return }
            var set: VkDescriptorSet? = frame.arenaSet
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.layout, 1, 1, &set, 0, nil)
            arenaSetBound = true
        }
        /// Draws offscreen image `image` over the target through `full` (a full-screen triangle
        /// whose set 0 is the image, with `bytes` of fragment push constants), scissored to
        /// where the image's pass drew (`imageArea`: the rest of the image is stale) within
        /// this pass's area. A composite's set 0 is not the rect layout's: both sets go unbound.
        func drawImage(_ image: Int, drawnIn imageArea: PixelRect, _ full: VkPipeline, _ layout: VkPipelineLayout,
                       constants: UnsafeMutableRawPointer, bytes: UInt32) {
            let cut = imageArea.intersection(area)
            guard !cut.isEmpty else { return }
            var imageScissor = cut.vk
            vkCmdSetScissor(cmd, 0, 1, &imageScissor)
            defer { vkCmdSetScissor(cmd, 0, 1, &scissor) }
            bind(full)
            var set: VkDescriptorSet? = images.descriptorSet(image)
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nil)
            clipSetBound = false
            arenaSetBound = false
            vkCmdPushConstants(cmd, layout, mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), 0, bytes, constants)
            vkCmdDraw(cmd, 3, 1, 0, 0)
        }
        var stencilReference: UInt32 = 0
        for draw in draws {
            switch draw {
            case .rects(let first, let count, let variant):
                guard instances != nil else { continue }
                bind(pipeline.pipeline(variant))
                if variant.clipped { bindClips() }
                bindVertexBuffers()
                vkCmdDraw(cmd, 4, UInt32(count), 0, index(first, variant.kind))
            case .mesh(let mesh, let instance, let clipped):
                guard instances != nil else { continue }
                bindVertexBuffers()
                bind(pipeline.pipeline(PipelineVariant(kind: .mesh, clipped: clipped)))
                let mesh = mesh.takeUnretainedValue()
                if clipped { bindClips() }
                bindArena()
                // Each mesh its own stencil reference (the pass cleared the stencil to 0).
                stencilReference += 1
                if stencilReference > 255 {
                    var clear = VkClearAttachment()
                    clear.aspectMask = mapFlags(VK_IMAGE_ASPECT_STENCIL_BIT)
                    clear.clearValue.depthStencil = VkClearDepthStencilValue(depth: 1, stencil: 0)
                    // (All of the pass: every member's meshes share the references.)
                    var rect = VkClearRect(rect: passArea.vk, baseArrayLayer: 0, layerCount: 1)
                    vkCmdClearAttachments(cmd, 1, &clear, 1, &rect)
                    stencilReference = 1
                }
                vkCmdSetStencilReference(cmd, mapFlags(VK_STENCIL_FACE_FRONT_AND_BACK), stencilReference)
                vkCmdDrawIndexed(cmd, UInt32(mesh.indexCount), 1, UInt32(mesh.firstIndex), Int32(mesh.vertexOffset),
                                 index(instance, .mesh))
            case .image(let first, let count, let variant, let set, _):
                guard instances != nil else { continue }
                bind(pipeline.pipeline(variant))
                if variant.clipped { bindClips() }
                bindVertexBuffers()
                var imageSet: VkDescriptorSet? = set
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.imageLayout, 1, 1, &imageSet, 0, nil)
                // Set 1 is the image here but the mesh arena in the rect/mesh layout: a later
                // mesh binds the arena again.
                arenaSetBound = false
                vkCmdDraw(cmd, 4, UInt32(count), 0, index(first, variant.kind))
            case .composite(let image, let opacity, let imageArea):
                var constants = SIMD4<Float>(opacity, 0, 0, 0)
                drawImage(image, drawnIn: imageArea, pipeline.composite, pipeline.compositeLayout, constants: &constants, bytes: 16)
            case .filtered(let image, var constants, let imageArea):
                guard constants.count == 24 else { continue }
                constants.withUnsafeMutableBytes { c in
                    drawImage(image, drawnIn: imageArea, pipeline.colorMatrix, pipeline.filterLayout,
                              constants: c.baseAddress!, bytes: 96)
                }
            case .scissor(let within):
                area = within.intersection(passArea)
                if area.isEmpty { area = PixelRect(minX: passArea.minX, minY: passArea.minY, maxX: passArea.minX, maxY: passArea.minY) }
                scissor = area.vk
                vkCmdSetScissor(cmd, 0, 1, &scissor)
            case .blend(let source, let backdrop, let mode, let opacity):
                // The blend of the group over its backdrop, written in place of the pass's pixels.
                bind(pipeline.blend)
                var sets: [VkDescriptorSet?] = [images.descriptorSet(source), images.descriptorSet(backdrop)]
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.blendLayout, 0, 2, &sets, 0, nil)
                clipSetBound = false
                arenaSetBound = false
                var constants = SIMD4<Float>(opacity, Float(mode), 0, 0)
                vkCmdPushConstants(cmd, pipeline.blendLayout, mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), 0, 16, &constants)
                vkCmdDraw(cmd, 3, 1, 0, 0)
            case .mask(let image, let maskArea):
                // Destination-in over the whole pass (where the mask is clear, the content goes),
                // or over a batched mask's region.
                let cut = maskArea.map { $0.intersection(area) } ?? area
                guard !cut.isEmpty else { continue }
                bind(pipeline.mask)
                var set: VkDescriptorSet? = images.descriptorSet(image)
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.compositeLayout, 0, 1, &set, 0, nil)
                clipSetBound = false
                arenaSetBound = false
                var maskScissor = cut.vk
                vkCmdSetScissor(cmd, 0, 1, &maskScissor)
                vkCmdDraw(cmd, 3, 1, 0, 0)
                vkCmdSetScissor(cmd, 0, 1, &scissor)
            case .backdrop(let source, let backdrop, let instance, let sigma, let valid, let box, let readScale):
                guard instances != nil else { continue }
                let cut = box.intersection(area)
                guard !cut.isEmpty else { continue }
                bind(pipeline.backdrop)
                bindVertexBuffers()
                // Set 0 the clips, set 1 the filtered image, set 2 the backdrop.
                var sets: [VkDescriptorSet?] = [frame.clipSet, images.descriptorSet(source), images.descriptorSet(backdrop)]
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.backdropLayout, 0, 3, &sets, 0, nil)
                clipSetBound = false
                arenaSetBound = false
                var constants = (SIMD4<Float>(0, 1, sigma, (3 * sigma).rounded(.up)),
                                 SIMD4<Float>(Float(valid.minX), Float(valid.minY), Float(valid.maxX), Float(valid.maxY)),
                                 SIMD4<Float>(readScale, 0, 0, 0))
                vkCmdPushConstants(cmd, pipeline.backdropLayout, mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), 0, 48, &constants)
                var backdropScissor = cut.vk
                vkCmdSetScissor(cmd, 0, 1, &backdropScissor)
                vkCmdDraw(cmd, 4, 1, 0, index(instance, .sharp))
                vkCmdSetScissor(cmd, 0, 1, &scissor)
            case .blur(let source, let instance, let vertical, let sigma, let valid, let blurArea, let color, let readScale):
                guard instances != nil, !blurArea.isEmpty else { continue }
                bind(color ? pipeline.blurColor : pipeline.blur)
                bindVertexBuffers()
                // Set 0 the clips, set 1 the source; `blurLayout` is not compatible with
                // `layout` (push constants), so a later rect or mesh binds its set 0 again.
                var sets: [VkDescriptorSet?] = [frame.clipSet, images.descriptorSet(source)]
                vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.blurLayout, 0, 2, &sets, 0, nil)
                clipSetBound = false
                arenaSetBound = false
                // Taps over ±3σ, reads clamped to where the source pass cleared its image.
                var constants = (SIMD4<Float>(vertical ? 0 : 1, vertical ? 1 : 0, sigma, (3 * sigma).rounded(.up)),
                                 SIMD4<Float>(Float(valid.minX), Float(valid.minY), Float(valid.maxX), Float(valid.maxY)),
                                 SIMD4<Float>(readScale, 0, 0, 0))
                vkCmdPushConstants(cmd, pipeline.blurLayout, mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), 0, 48, &constants)
                let cut = blurArea.intersection(area)
                guard !cut.isEmpty else { continue }
                var blurScissor = cut.vk
                vkCmdSetScissor(cmd, 0, 1, &blurScissor)
                vkCmdDraw(cmd, 4, 1, 0, index(instance, .sharp))
                vkCmdSetScissor(cmd, 0, 1, &scissor)
            }
        }
    }
}

extension PixelRect {
    /// The rect as a Vulkan render area or scissor (an empty rect has zero extent).
    var vk: VkRect2D {
        VkRect2D(offset: VkOffset2D(x: Int32(minX), y: Int32(minY)),
                 extent: VkExtent2D(width: UInt32(max(maxX - minX, 0)), height: UInt32(max(maxY - minY, 0))))
    }
}

private extension RecordedDraw {
    /// Whether the draw tests the stencil (a mesh), so its pass must clear it.
    var testsStencil: Bool {
        if case .mesh = self { return true }
        return false
    }
}
