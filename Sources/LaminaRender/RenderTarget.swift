import CVulkan

/// What a frame is drawn into: the seam between the frame's recording (`PassRecorder`, the
/// same for every target) and what holds the pixels. `OffscreenTarget` is an image read back
/// on request; a window target would hand out its swapchain's image for the frame and present
/// it after submission. Render thread only.
protocol RenderTarget: AnyObject {
    /// Size in device pixels.
    var width: Int { get }
    var height: Int { get }
    /// The color format (the pipelines' render pass is made for it).
    var format: VkFormat { get }
    /// The framebuffer of the image frame `frame` draws into (compatible with the pipelines'
    /// main render pass; the pass leaves it in TRANSFER_SRC_OPTIMAL).
    func framebuffer(for frame: UInt64) throws(RenderError) -> VkFramebuffer
    /// Called once frame `frame`'s command buffer is submitted.
    func submitted(frame: UInt64) throws(RenderError)
}

/// An offscreen `R8G8B8A8_UNORM` image (with its stencil and framebuffer) as the frame's
/// target; `Readback` copies it out. Resizing retires the old image through the lifetime
/// tracker (frames in flight still draw into it).
final class OffscreenTarget: RenderTarget {
    static let colorFormat = VK_FORMAT_R8G8B8A8_UNORM

    private(set) var image: VulkanImage
    var width: Int { image.width }
    var height: Int { image.height }
    var format: VkFormat { Self.colorFormat }
    /// The latest frame submitted into the current image, nil before one / after a resize.
    private(set) var renderedFrame: UInt64?

    init(width: Int, height: Int, device: VulkanDevice, stencilFormat: VkFormat,
         renderPass: VkRenderPass) throws(RenderError) {
        image = try VulkanImage(device: device, width: width, height: height, format: Self.colorFormat,
                                stencilFormat: stencilFormat, renderPass: renderPass)
    }

    func framebuffer(for frame: UInt64) -> VkFramebuffer { image.framebuffer }

    func submitted(frame: UInt64) { renderedFrame = frame }

    /// A new image of the new size; the old one is retired.
    func resize(width: Int, height: Int, device: VulkanDevice, stencilFormat: VkFormat, renderPass: VkRenderPass,
                lifetimes: LifetimeTracker) throws(RenderError) {
        let new = try VulkanImage(device: device, width: width, height: height, format: Self.colorFormat,
                                  stencilFormat: stencilFormat, renderPass: renderPass)
        lifetimes.retire(.image(image))
        image = new
        renderedFrame = nil
    }

    func destroy(_ device: VulkanDevice) { image.destroy(device) }
}
