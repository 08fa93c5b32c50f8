import CVulkan
import LaminaFrame

/// Copies a rendered image into a host-visible buffer and hands out its bytes: its own
/// command buffer and fence, and a buffer kept between reads (replaced, through the lifetime
/// tracker, when the size changes). Render thread only.
final class Readback {
    private var buffer: VulkanBuffer?
    private let commandBuffer: VkCommandBuffer
    private let fence: VkFence

    init(device: VulkanDevice, commands: VulkanCommands) throws(RenderError) {
        fence = try commands.makeFence(device: device)
        do {
            commandBuffer = try commands.makeCommandBuffer(device: device)
        } catch {
            commands.destroyFence(fence, device: device)
            throw error
        }
    }

    /// Copies `image` (left in TRANSFER_SRC_OPTIMAL by the frame's pass, its writes made
    /// available to transfer reads by the pass's outgoing dependency) and waits for the copy;
    /// every frame submitted before has then finished too.
    func copy(_ image: VulkanImage, device: VulkanDevice, commands: VulkanCommands,
              lifetimes: LifetimeTracker) throws(RenderError) {
        let byteCount = image.width * image.height * 4
        if let old = buffer, old.size != byteCount {
            lifetimes.retire(.buffer(old))
            buffer = nil
        }
        if buffer == nil {
            buffer = try VulkanBuffer(device: device, size: byteCount, usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_DST_BIT),
                                      cached: true)
        }
        guard let buffer else { preconditionFailure("readback buffer exists") }
        let cmd = commandBuffer
        try beginRecording(cmd, oneTime: true)
        var region = VkBufferImageCopy()
        region.imageSubresource = VkImageSubresourceLayers(
            aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0, baseArrayLayer: 0, layerCount: 1)
        region.imageExtent = VkExtent3D(width: UInt32(image.width), height: UInt32(image.height), depth: 1)
        vkCmdCopyImageToBuffer(cmd, image.raw, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer.raw, 1, &region)
        var barrier = VkBufferMemoryBarrier()
        barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER
        barrier.srcAccessMask = mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT)
        barrier.dstAccessMask = mapFlags(VK_ACCESS_HOST_READ_BIT)
        barrier.srcQueueFamilyIndex = queueFamilyIgnored
        barrier.dstQueueFamilyIndex = queueFamilyIgnored
        barrier.buffer = buffer.raw
        barrier.offset = 0
        barrier.size = wholeSize
        vkCmdPipelineBarrier(cmd, mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), mapFlags(VK_PIPELINE_STAGE_HOST_BIT),
                             0, 0, nil, 1, &barrier, 0, nil)
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
        try commands.submit(cmd, fence: fence, device: device)
        try commands.waitAndReset(fence, device: device)
    }

    /// The last copy's bytes: RGBA8, row-major, top row first; `.straight` divides color by
    /// alpha (transparent pixels read 0, 0, 0, 0).
    func pixels(alpha: PixelAlpha, device: VulkanDevice) throws(RenderError) -> [UInt8] {
        guard let buffer else { preconditionFailure("pixels(alpha:) needs a copy first") }
        try buffer.invalidate(device: device)
        // SAFETY: the copy has finished and the buffer holds `size` bytes.
        var pixels = Array(UnsafeRawBufferPointer(start: buffer.mapped, count: buffer.size))
        if alpha == .straight {
            for i in stride(from: 0, to: pixels.count, by: 4) {
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

    func destroy(_ device: VulkanDevice, commands: VulkanCommands) {
        buffer?.destroy(device)
        buffer = nil
        commands.destroyFence(fence, device: device)
    }
}
