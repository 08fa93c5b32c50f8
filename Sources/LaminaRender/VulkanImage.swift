import CVulkan

/// The offscreen color target: a device-local 2D image, its view and a framebuffer for the
/// renderer's render pass. Wraps `vkCreateImage`, `vkCreateImageView`, `vkCreateFramebuffer`.
/// Render thread only; destroy with `destroy(_:)` once no submitted frame can use it.
final class VulkanImage {
    let raw: VkImage
    let memory: VkDeviceMemory
    let view: VkImageView
    let framebuffer: VkFramebuffer
    let width: Int
    let height: Int
    let format: VkFormat

    init(device: VulkanDevice, width: Int, height: Int, format: VkFormat,
         renderPass: VkRenderPass) throws(RenderError) {
        precondition(width > 0 && height > 0, "VulkanImage needs a positive size")
        let limit = Int(device.properties.limits.maxImageDimension2D)
        guard width <= limit && height <= limit else {
            throw .unsupported("\(width)×\(height) exceeds the device's image size limit \(limit)")
        }
        self.width = width
        self.height = height
        self.format = format

        var info = VkImageCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO
        info.imageType = VK_IMAGE_TYPE_2D
        info.format = format
        info.extent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
        info.mipLevels = 1
        info.arrayLayers = 1
        info.samples = VK_SAMPLE_COUNT_1_BIT
        info.tiling = VK_IMAGE_TILING_OPTIMAL
        info.usage = mapFlags(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_USAGE_TRANSFER_SRC_BIT)
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED
        var image: VkImage?
        try vk("vkCreateImage", vkCreateImage(device.raw, &info, nil, &image))
        guard let image else { throw .vulkan(.unexpected(0), call: "vkCreateImage") }
        // Cleanup if a later step fails.
        var undo: [() -> Void] = [{ vkDestroyImage(device.raw, image, nil) }]
        func fail(_ error: RenderError) -> RenderError { undo.reversed().forEach { $0() }; return error }

        var requirements = VkMemoryRequirements()
        vkGetImageMemoryRequirements(device.raw, image, &requirements)
        let typeIndex: UInt32
        do {
            typeIndex = try device.memoryType(typeBits: requirements.memoryTypeBits, required: 0,
                                              preferred: mapFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
        } catch { throw fail(error) }
        var allocate = VkMemoryAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocate.allocationSize = requirements.size
        allocate.memoryTypeIndex = typeIndex
        var memory: VkDeviceMemory?
        var result = vkAllocateMemory(device.raw, &allocate, nil, &memory)
        guard result == VK_SUCCESS, let memory else { throw fail(.vulkan(VulkanError(result), call: "vkAllocateMemory")) }
        undo.append { vkFreeMemory(device.raw, memory, nil) }
        result = vkBindImageMemory(device.raw, image, memory, 0)
        guard result == VK_SUCCESS else { throw fail(.vulkan(VulkanError(result), call: "vkBindImageMemory")) }

        var viewInfo = VkImageViewCreateInfo()
        viewInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
        viewInfo.image = image
        viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D
        viewInfo.format = format
        viewInfo.subresourceRange = VkImageSubresourceRange(
            aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), baseMipLevel: 0, levelCount: 1,
            baseArrayLayer: 0, layerCount: 1)
        var view: VkImageView?
        result = vkCreateImageView(device.raw, &viewInfo, nil, &view)
        guard result == VK_SUCCESS, let view else { throw fail(.vulkan(VulkanError(result), call: "vkCreateImageView")) }
        undo.append { vkDestroyImageView(device.raw, view, nil) }

        var framebuffer: VkFramebuffer?
        result = withUnsafePointer(to: Optional(view)) { attachment in
            var fbInfo = VkFramebufferCreateInfo()
            fbInfo.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO
            fbInfo.renderPass = renderPass
            fbInfo.attachmentCount = 1
            fbInfo.pAttachments = attachment
            fbInfo.width = UInt32(width)
            fbInfo.height = UInt32(height)
            fbInfo.layers = 1
            return vkCreateFramebuffer(device.raw, &fbInfo, nil, &framebuffer)
        }
        guard result == VK_SUCCESS, let framebuffer else {
            throw fail(.vulkan(VulkanError(result), call: "vkCreateFramebuffer"))
        }
        self.raw = image
        self.memory = memory
        self.view = view
        self.framebuffer = framebuffer
        device.track(4)
    }

    func destroy(_ device: VulkanDevice) {
        vkDestroyFramebuffer(device.raw, framebuffer, nil)
        vkDestroyImageView(device.raw, view, nil)
        vkDestroyImage(device.raw, raw, nil)
        vkFreeMemory(device.raw, memory, nil)
        device.track(-4)
    }
}
