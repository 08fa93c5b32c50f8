import CVulkan

/// The offscreen target: a device-local color image and a stencil image (for the meshes'
/// "each pixel once" rule), their views and a framebuffer for the renderer's render pass.
/// Wraps `vkCreateImage`, `vkCreateImageView`, `vkCreateFramebuffer`.
/// Render thread only; destroy with `destroy(_:)` once no submitted frame can use it.
final class VulkanImage {
    let raw: VkImage
    let memory: VkDeviceMemory
    let view: VkImageView
    let stencil: VkImage
    let stencilMemory: VkDeviceMemory
    let stencilView: VkImageView
    let framebuffer: VkFramebuffer
    let width: Int
    let height: Int
    let format: VkFormat

    /// The first stencil format the device can attach with optimal tiling.
    static func stencilFormat(device: VulkanDevice) throws(RenderError) -> VkFormat {
        for format in [VK_FORMAT_S8_UINT, VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT,
                       VK_FORMAT_D16_UNORM_S8_UINT] {
            var properties = VkFormatProperties()
            vkGetPhysicalDeviceFormatProperties(device.physical, format, &properties)
            if properties.optimalTilingFeatures & mapFlags(VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) != 0 {
                return format
            }
        }
        throw .unsupported("no stencil attachment format")
    }

    /// - Parameter sampled: also usable as a sampled image (a group's offscreen target).
    init(device: VulkanDevice, width: Int, height: Int, format: VkFormat, stencilFormat: VkFormat,
         renderPass: VkRenderPass, sampled: Bool = false) throws(RenderError) {
        precondition(width > 0 && height > 0, "VulkanImage needs a positive size")
        let limit = Int(device.properties.limits.maxImageDimension2D)
        guard width <= limit && height <= limit else {
            throw .unsupported("\(width)×\(height) exceeds the device's image size limit \(limit)")
        }
        self.width = width
        self.height = height
        self.format = format

        // Cleanup if a later step fails.
        var undo: [() -> Void] = []
        func fail(_ error: RenderError) -> RenderError { undo.reversed().forEach { $0() }; return error }
        let color: (VkImage, VkDeviceMemory, VkImageView)
        let stencil: (VkImage, VkDeviceMemory, VkImageView)
        do {
            color = try Self.makeImage(device: device, width: width, height: height, format: format,
                                       usage: mapFlags(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
                                           | mapFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT)  // (backdrops' copies)
                                           | (sampled ? mapFlags(VK_IMAGE_USAGE_SAMPLED_BIT) : 0),
                                       aspect: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT))
            undo.append { Self.destroyImage(device, color) }
            stencil = try Self.makeImage(device: device, width: width, height: height, format: stencilFormat,
                                         usage: mapFlags(VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT),
                                         aspect: mapFlags(VK_IMAGE_ASPECT_STENCIL_BIT))
            undo.append { Self.destroyImage(device, stencil) }
        } catch { throw fail(error) }

        var framebuffer: VkFramebuffer?
        let attachments: [VkImageView?] = [color.2, stencil.2]
        let result = attachments.withUnsafeBufferPointer { attachment in
            var fbInfo = VkFramebufferCreateInfo()
            fbInfo.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO
            fbInfo.renderPass = renderPass
            fbInfo.attachmentCount = 2
            fbInfo.pAttachments = attachment.baseAddress
            fbInfo.width = UInt32(width)
            fbInfo.height = UInt32(height)
            fbInfo.layers = 1
            return vkCreateFramebuffer(device.raw, &fbInfo, nil, &framebuffer)
        }
        guard result == VK_SUCCESS, let framebuffer else {
            throw fail(.vulkan(VulkanError(result), call: "vkCreateFramebuffer"))
        }
        (raw, memory, view) = color
        (self.stencil, stencilMemory, stencilView) = stencil
        self.framebuffer = framebuffer
        device.track(raw, memory, view, self.stencil, stencilMemory, stencilView, framebuffer)
    }

    /// A device-local 2D image with its memory and a view of `aspect`.
    private static func makeImage(device: VulkanDevice, width: Int, height: Int, format: VkFormat,
                                  usage: VkImageUsageFlags, aspect: VkImageAspectFlags)
        throws(RenderError) -> (VkImage, VkDeviceMemory, VkImageView) {
        var info = imageCreateInfo2D(width: width, height: height, format: format, usage: usage)
        var image: VkImage?
        try vk("vkCreateImage", vkCreateImage(device.raw, &info, nil, &image))
        guard let image else { throw .vulkan(.unexpected(0), call: "vkCreateImage") }
        var undo: [() -> Void] = [{ vkDestroyImage(device.raw, image, nil) }]
        func fail(_ error: RenderError) -> RenderError { undo.reversed().forEach { $0() }; return error }

        var requirements = VkMemoryRequirements()
        vkGetImageMemoryRequirements(device.raw, image, &requirements)
        let memory: VkDeviceMemory
        do {
            memory = try device.allocateMemory(requirements, required: 0,
                                               preferred: mapFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)).memory
        } catch { throw fail(error) }
        undo.append { vkFreeMemory(device.raw, memory, nil) }
        var result = vkBindImageMemory(device.raw, image, memory, 0)
        guard result == VK_SUCCESS else { throw fail(.vulkan(VulkanError(result), call: "vkBindImageMemory")) }

        var viewInfo = VkImageViewCreateInfo()
        viewInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
        viewInfo.image = image
        viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D
        viewInfo.format = format
        viewInfo.subresourceRange = VkImageSubresourceRange(
            aspectMask: aspect, baseMipLevel: 0, levelCount: 1, baseArrayLayer: 0, layerCount: 1)
        var view: VkImageView?
        result = vkCreateImageView(device.raw, &viewInfo, nil, &view)
        guard result == VK_SUCCESS, let view else { throw fail(.vulkan(VulkanError(result), call: "vkCreateImageView")) }
        return (image, memory, view)
    }

    private static func destroyImage(_ device: VulkanDevice, _ parts: (VkImage, VkDeviceMemory, VkImageView)) {
        vkDestroyImageView(device.raw, parts.2, nil)
        vkDestroyImage(device.raw, parts.0, nil)
        vkFreeMemory(device.raw, parts.1, nil)
    }

    func destroy(_ device: VulkanDevice) {
        vkDestroyFramebuffer(device.raw, framebuffer, nil)
        Self.destroyImage(device, (stencil, stencilMemory, stencilView))
        Self.destroyImage(device, (raw, memory, view))
        device.untrack(raw, memory, view, stencil, stencilMemory, stencilView, framebuffer)
    }
}
