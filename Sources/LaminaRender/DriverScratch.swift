import CVulkan
import LaminaFrame

/// Makes a CPU driver let go of the memory it keeps for the last frame it rasterized, before
/// the render thread sleeps.
///
/// lavapipe (llvmpipe) bins each render pass into a "scene": per triangle its plane equations
/// and, per fragment input, a value and two gradients — about 230 bytes a triangle, 25 MB for
/// 50,000 quads. It frees a scene's blocks only when a later draw takes that scene
/// (`lp_setup_get_empty_scene` ends the rasterization of the first finished scene it finds);
/// a pass that only clears does not take one. So after the last frame before an idle spell
/// the frame's binning stays allocated for as long as the daemon is idle: 539 of the ~1,350
/// heap bytes per drawn layer that `lamina-bench memory --layers 50000 --trim` measured.
///
/// A release draws one transparent rect over a 256×256 image made for it, then `passes`
/// render passes into a 1×1 image, each drawing one zero-size rect (nothing anyone sees is
/// touched): each draw makes the driver take a finished scene, freeing its blocks, and bins
/// almost nothing; while the first pass rasterizes, the later ones find the scenes taken
/// before them busy and take the next ones, whatever order the busy spell left them in.
/// `HeapTrim` then hands the pages back. Made only for a CPU device: on a GPU the binning is
/// the device's own.
///
/// Render thread only; `destroy` once no submitted work can use it.
final class DriverScratch {
    private let commandBuffer: VkCommandBuffer
    private let fence: VkFence
    private let image: VulkanImage
    private let instances: VulkanBuffer
    private let pipeline: VulkanPipeline
    private let format: VkFormat
    private let stencilFormat: VkFormat
    /// Passes per release after the first: each takes one finished scene.
    static let passes = 4
    /// Side of the first pass's image (made for the release, then destroyed): its draw covers
    /// it, so that rasterizing it outlasts the other passes' binning by far.
    static let side = 256

    init(device: VulkanDevice, commands: VulkanCommands, pipeline: VulkanPipeline,
         format: VkFormat, stencilFormat: VkFormat) throws(RenderError) {
        self.pipeline = pipeline
        self.format = format
        self.stencilFormat = stencilFormat
        var undo: [() -> Void] = []
        func fail(_ error: RenderError) -> RenderError { undo.reversed().forEach { $0() }; return error }
        do {
            let fence = try commands.makeFence(device: device)
            undo.append { commands.destroyFence(fence, device: device) }
            self.fence = fence
            let image = try VulkanImage(device: device, width: 1, height: 1, format: format,
                                        stencilFormat: stencilFormat, renderPass: pipeline.groupRenderPass, sampled: true)
            undo.append { image.destroy(device) }
            self.image = image
            // Two sharp rects, fully transparent (zero color, opacity 0 in clipW's w lane):
            // the first the unit square mapped onto the whole target (clip x = 2u − 1,
            // y = 2v − 1, w = 1), the second of zero size at the target's centre.
            let stride = RectInstance.stride(.sharp)
            let instances = try VulkanBuffer(device: device, size: 2 * stride,
                                             usage: mapFlags(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT))
            undo.append { instances.destroy(device) }
            let m = instances.bytes("driver scratch instances", at: 0, length: 2 * stride)
            m.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * stride)
            m.storeBytes(of: SIMD4<Float>(2, 0, -1, 0), toByteOffset: 0, as: SIMD4<Float>.self)
            m.storeBytes(of: SIMD4<Float>(0, 2, -1, 0), toByteOffset: 16, as: SIMD4<Float>.self)
            m.storeBytes(of: SIMD4<Float>(0, 0, 1, 0), toByteOffset: 32, as: SIMD4<Float>.self)
            m.storeBytes(of: SIMD4<Float>(0, 0, 1, 1), toByteOffset: 48, as: SIMD4<Float>.self)  // bounds
            m.storeBytes(of: SIMD4<Float>(0, 0, 1, 0), toByteOffset: stride + 32, as: SIMD4<Float>.self)
            self.instances = instances
            commandBuffer = try commands.makeCommandBuffer(device: device)
        } catch {
            throw fail(error)
        }
    }

    /// One render pass into `framebuffer` (`side` × `side`) drawing instance `index`.
    private func recordPass(_ cmd: VkCommandBuffer, framebuffer: VkFramebuffer, side: Int, index: UInt32) {
        var clears = [VkClearValue(), VkClearValue()]
        let extent = VkExtent2D(width: UInt32(side), height: UInt32(side))
        clears.withUnsafeMutableBufferPointer { clearPointer in
            var info = VkRenderPassBeginInfo()
            info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO
            info.renderPass = pipeline.groupRenderPass
            info.framebuffer = framebuffer
            info.renderArea = VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: extent)
            info.clearValueCount = 2
            info.pClearValues = UnsafePointer(clearPointer.baseAddress)
            vkCmdBeginRenderPass(cmd, &info, VK_SUBPASS_CONTENTS_INLINE)
        }
        var viewport = VkViewport(x: 0, y: 0, width: Float(side), height: Float(side), minDepth: 0, maxDepth: 1)
        vkCmdSetViewport(cmd, 0, 1, &viewport)
        var scissor = VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: extent)
        vkCmdSetScissor(cmd, 0, 1, &scissor)
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.pipeline(PipelineVariant(kind: .sharp, clipped: false)))
        var buffer: VkBuffer? = instances.raw
        var offset: VkDeviceSize = 0
        vkCmdBindVertexBuffers(cmd, 1, 1, &buffer, &offset)
        vkCmdDraw(cmd, 4, 1, 0, index)
        vkCmdEndRenderPass(cmd)
    }

    /// Submits the release and waits for it (every frame before must have finished: the caller
    /// waited for them, so every scene is finished). The first pass, over a `side` × `side`
    /// image made for it, takes the first scene; while the driver's threads rasterize it, each
    /// of the `passes` passes after it finds the scenes taken so far still busy and takes the
    /// next finished one — freeing up to `passes` + 1 scenes whatever order they are in (a
    /// release that finds fewer scenes makes new, empty ones: at most `passes` + 1 in all).
    func release(device: VulkanDevice, commands: VulkanCommands) throws(RenderError) {
        let big = try VulkanImage(device: device, width: Self.side, height: Self.side, format: format,
                                  stencilFormat: stencilFormat, renderPass: pipeline.groupRenderPass, sampled: true)
        defer { big.destroy(device) }
        let cmd = commandBuffer
        try beginRecording(cmd, oneTime: true)
        recordPass(cmd, framebuffer: big.framebuffer, side: Self.side, index: 0)
        for _ in 0..<Self.passes { recordPass(cmd, framebuffer: image.framebuffer, side: 1, index: 1) }
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
        try commands.submit(cmd, fence: fence, device: device)
        try commands.waitAndReset(fence, device: device)
    }

    func destroy(_ device: VulkanDevice, commands: VulkanCommands) {
        commands.destroyFence(fence, device: device)
        image.destroy(device)
        instances.destroy(device)
    }
}
