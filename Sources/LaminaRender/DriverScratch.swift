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
/// A release submits `passes` render passes into a 1×1 image, each drawing one sharp rect of
/// zero size (nothing is covered, nothing else is touched): each draw makes the driver take a
/// scene, freeing the finished one's blocks, and bins almost nothing. `HeapTrim` then hands
/// the pages back. Made only for a CPU device: on a GPU the binning is the device's own.
///
/// Render thread only; `destroy` once no submitted work can use it.
final class DriverScratch {
    private let commandBuffer: VkCommandBuffer
    private let fence: VkFence
    private let image: VulkanImage
    private let instance: VulkanBuffer
    /// Passes per release: each takes one finished scene (the first the driver finds), so a
    /// few free the scenes of a busy spell's overlapping frames and passes.
    static let passes = 4

    init(device: VulkanDevice, commands: VulkanCommands, pipeline: VulkanPipeline,
         format: VkFormat, stencilFormat: VkFormat) throws(RenderError) {
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
            // One sharp rect of zero size at the image's centre, fully transparent: every
            // vertex at clip (0, 0, w 1), zero bounds and color, opacity 0 — no pixel is covered.
            let stride = RectInstance.stride(.sharp)
            let instance = try VulkanBuffer(device: device, size: stride, usage: mapFlags(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT))
            undo.append { instance.destroy(device) }
            instance.mapped.initializeMemory(as: UInt8.self, repeating: 0, count: stride)
            // clipW (the motion part's third vec4): w = 1 everywhere, opacity (its w lane) 0.
            instance.mapped.storeBytes(of: SIMD4<Float>(0, 0, 1, 0), toByteOffset: 32, as: SIMD4<Float>.self)
            self.instance = instance
            commandBuffer = try commands.makeCommandBuffer(device: device)
            try Self.record(commandBuffer, image: image, instance: instance, pipeline: pipeline)
        } catch {
            throw fail(error)
        }
    }

    private static func record(_ cmd: VkCommandBuffer, image: VulkanImage, instance: VulkanBuffer,
                               pipeline: VulkanPipeline) throws(RenderError) {
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        try vk("vkBeginCommandBuffer", vkBeginCommandBuffer(cmd, &begin))
        var clears = [VkClearValue(), VkClearValue()]
        for _ in 0..<passes {
            clears.withUnsafeMutableBufferPointer { clearPointer in
                var info = VkRenderPassBeginInfo()
                info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO
                info.renderPass = pipeline.groupRenderPass
                info.framebuffer = image.framebuffer
                info.renderArea = VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: VkExtent2D(width: 1, height: 1))
                info.clearValueCount = 2
                info.pClearValues = UnsafePointer(clearPointer.baseAddress)
                vkCmdBeginRenderPass(cmd, &info, VK_SUBPASS_CONTENTS_INLINE)
            }
            var viewport = VkViewport(x: 0, y: 0, width: 1, height: 1, minDepth: 0, maxDepth: 1)
            vkCmdSetViewport(cmd, 0, 1, &viewport)
            var scissor = VkRect2D(offset: VkOffset2D(x: 0, y: 0), extent: VkExtent2D(width: 1, height: 1))
            vkCmdSetScissor(cmd, 0, 1, &scissor)
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.pipeline(PipelineVariant(kind: .sharp, clipped: false)))
            var buffer: VkBuffer? = instance.raw
            var offset: VkDeviceSize = 0
            vkCmdBindVertexBuffers(cmd, 1, 1, &buffer, &offset)
            vkCmdDraw(cmd, 4, 1, 0, 0)
            vkCmdEndRenderPass(cmd)
        }
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
    }

    /// Submits the passes and waits for them (every frame before must have finished: the
    /// caller waited for them).
    func release(device: VulkanDevice, commands: VulkanCommands) throws(RenderError) {
        try commands.submit(commandBuffer, fence: fence, device: device)
        try commands.waitAndReset(fence, device: device)
    }

    func destroy(_ device: VulkanDevice, commands: VulkanCommands) {
        commands.destroyFence(fence, device: device)
        image.destroy(device)
        instance.destroy(device)
    }
}
