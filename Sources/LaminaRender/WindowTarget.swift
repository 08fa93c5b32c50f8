import CVulkan

/// The window target: a `VkSurfaceKHR` (made by the window's owner through `WindowSurface`)
/// and its swapchain. A frame is drawn exactly as offscreen — the same passes into the same
/// `OffscreenTarget` image — and the frame's command buffer then copies that image into the
/// acquired swapchain image (`vkCmdCopyImage`, or `vkCmdBlitImage` when the swapchain is
/// BGRA: a swizzle, never a scaling) and leaves it ready to present. So the window shows the
/// offscreen render's bytes, and captures read the same image.
///
/// Synchronization: one "acquired" semaphore per frame slot (free again once that slot's
/// fence has passed), one "copied" semaphore per swapchain image (an image is acquired again
/// only after its previous present, which waited on it), and per image the frame that last
/// wrote it, whose slot fence is waited for before the image is written again.
///
/// Resizing: when the surface's size or the frame's size changes, or acquire/present report
/// `VK_ERROR_OUT_OF_DATE_KHR` / `VK_SUBOPTIMAL_KHR`, the swapchain is recreated (the old one
/// passed as `oldSwapchain`, destroyed after the device is idle, with its semaphores). A
/// frame whose size is not the surface's is not presented (the next one, built at the new
/// size, is), and nothing is presented while the surface is 0 × 0 (minimized).
/// Render thread only.
final class WindowTarget {
    let surface: VkSurfaceKHR
    let pacing: PresentPacing
    private var swapchain: VkSwapchainKHR?
    private var images: [VkImage] = []
    private var imageFrames: [UInt64] = []
    private var copied: [VkSemaphore] = []
    private let acquired: [VkSemaphore]
    private var format = VK_FORMAT_UNDEFINED
    private var useBlit = false
    private(set) var width = 0
    private(set) var height = 0
    private var outOfDate = true
    /// The image acquired for the frame being recorded, and the slot whose semaphore signals it.
    private(set) var current: (index: UInt32, slot: Int)?

    /// Counters for statistics and tests.
    private(set) var presentedFrames = 0
    private(set) var recreations = 0
    private(set) var skippedFrames = 0

    init(device: VulkanDevice, surface: VkSurfaceKHR, refreshRate: Double?, fps: Double,
         slots: Int) throws(RenderError) {
        self.surface = surface
        var supported: VkBool32 = 0
        try vk("vkGetPhysicalDeviceSurfaceSupportKHR",
               vkGetPhysicalDeviceSurfaceSupportKHR(device.physical, device.queueFamily, surface, &supported))
        guard supported != 0 else { throw .unsupported("the device's queue cannot present to the window") }
        let modes: [VkPresentModeKHR] = try enumerate("vkGetPhysicalDeviceSurfacePresentModesKHR") {
            vkGetPhysicalDeviceSurfacePresentModesKHR(device.physical, surface, $0, $1)
        }
        pacing = PresentPacing.choose(offered: Set(modes.map(PresentMode.init)), displayHz: refreshRate, fps: fps)
        var semaphores: [VkSemaphore] = []
        for _ in 0..<slots {
            do { semaphores.append(try Self.makeSemaphore(device)) } catch {
                semaphores.forEach { Self.destroySemaphore($0, device) }
                throw error
            }
        }
        acquired = semaphores
    }

    /// Gets the swapchain image for a `width × height` frame drawn in frame slot `slot`.
    /// Returns false when the frame is not to be presented (minimized, or the surface's size
    /// is not the frame's). After true, `waitFrame` is the frame that last wrote the image
    /// (the caller waits for its fence before submitting; 0: none).
    func acquire(width: Int, height: Int, slot: Int, device: VulkanDevice) throws(RenderError) -> (Bool, waitFrame: UInt64) {
        current = nil
        if outOfDate || swapchain == nil || width != self.width || height != self.height {
            guard try recreate(device: device), width == self.width, height == self.height else {
                skippedFrames += 1
                return (false, 0)
            }
        }
        for attempt in 0..<2 {
            var index: UInt32 = 0
            // A bounded wait: a window the compositor cannot present to must not hold the
            // render thread (queries and captures still need frames).
            let result = vkAcquireNextImageKHR(device.raw, swapchain, 100_000_000, acquired[slot], nil, &index)
            switch result {
            case VK_SUCCESS, VK_SUBOPTIMAL_KHR:
                if result == VK_SUBOPTIMAL_KHR { outOfDate = true }
                current = (index, slot)
                return (true, imageFrames[Int(index)])
            case VK_ERROR_OUT_OF_DATE_KHR:
                guard attempt == 0, try recreate(device: device), width == self.width, height == self.height else {
                    skippedFrames += 1
                    return (false, 0)
                }
            case VK_TIMEOUT, VK_NOT_READY:
                skippedFrames += 1
                return (false, 0)
            default:
                try vk("vkAcquireNextImageKHR", result)
            }
        }
        skippedFrames += 1
        return (false, 0)
    }

    /// Records the copy of `source` (left in TRANSFER_SRC_OPTIMAL by the frame's pass) into
    /// the acquired image, which ends in PRESENT_SRC_KHR.
    func recordCopy(from source: VulkanImage, frame: UInt64, cmd: VkCommandBuffer) {
        guard let current else { return }
        let image = images[Int(current.index)]
        imageFrames[Int(current.index)] = frame
        // The submission waits for the acquire semaphore at the transfer stage.
        recordImageBarrier(cmd, image: image, from: VK_IMAGE_LAYOUT_UNDEFINED, to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           srcAccess: 0, dstAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                           srcStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), dstStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT))
        let layers = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                              baseArrayLayer: 0, layerCount: 1)
        if useBlit {
            var blit = VkImageBlit()
            blit.srcSubresource = layers
            blit.dstSubresource = layers
            blit.srcOffsets.1 = VkOffset3D(x: Int32(width), y: Int32(height), z: 1)
            blit.dstOffsets.1 = VkOffset3D(x: Int32(width), y: Int32(height), z: 1)
            vkCmdBlitImage(cmd, source.raw, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, VK_FILTER_NEAREST)
        } else {
            var copy = VkImageCopy()
            copy.srcSubresource = layers
            copy.dstSubresource = layers
            copy.extent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
            vkCmdCopyImage(cmd, source.raw, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, image,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy)
        }
        recordImageBarrier(cmd, image: image, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, to: VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
                           srcAccess: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT), dstAccess: 0,
                           srcStage: mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT),
                           dstStage: mapFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT))
    }

    /// What the frame's submission waits for (at the transfer stage) and signals.
    var submitSemaphores: (wait: VkSemaphore, signal: VkSemaphore)? {
        guard let current else { return nil }
        return (acquired[current.slot], copied[Int(current.index)])
    }

    /// Presents the acquired image once the frame's submission has signaled its semaphore.
    /// Out of date or suboptimal: the swapchain is recreated before the next frame.
    func present(device: VulkanDevice) throws(RenderError) {
        guard let current else { return }
        self.current = nil
        var wait: VkSemaphore? = copied[Int(current.index)]
        var chain: VkSwapchainKHR? = swapchain
        var index = current.index
        var info = VkPresentInfoKHR()
        info.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR
        let result = withUnsafePointer(to: &wait) { waitPointer in
            withUnsafePointer(to: &chain) { chainPointer in
                withUnsafePointer(to: &index) { indexPointer in
                    info.waitSemaphoreCount = 1
                    info.pWaitSemaphores = waitPointer
                    info.swapchainCount = 1
                    info.pSwapchains = chainPointer
                    info.pImageIndices = indexPointer
                    return vkQueuePresentKHR(device.queue, &info)
                }
            }
        }
        switch result {
        case VK_SUCCESS: presentedFrames += 1
        case VK_SUBOPTIMAL_KHR: presentedFrames += 1; outOfDate = true
        case VK_ERROR_OUT_OF_DATE_KHR: outOfDate = true
        default: try vk("vkQueuePresentKHR", result)
        }
    }

    /// Makes a swapchain for the surface's current size (the old one retired). Returns false
    /// while the surface is 0 × 0.
    private func recreate(device: VulkanDevice) throws(RenderError) -> Bool {
        var caps = VkSurfaceCapabilitiesKHR()
        try vk("vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
               vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical, surface, &caps))
        let current = caps.currentExtent
        guard current.width != 0, current.height != 0 else { return false }
        // 0xFFFFFFFF: the surface takes the swapchain's size; it is then the frame's.
        let extent = current.width == UInt32.max ? VkExtent2D(width: UInt32(max(width, 1)), height: UInt32(max(height, 1)))
                                                 : current
        guard caps.supportedUsageFlags & mapFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT) != 0 else {
            throw .unsupported("the window's swapchain images cannot be copied into (no TRANSFER_DST usage)")
        }
        if format == VK_FORMAT_UNDEFINED { try chooseFormat(device: device) }
        // Nothing may still use the old swapchain's images or semaphores.
        try device.waitIdle()
        var info = VkSwapchainCreateInfoKHR()
        info.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR
        info.surface = surface
        info.minImageCount = caps.maxImageCount == 0 ? caps.minImageCount + 1 : min(caps.minImageCount + 1, caps.maxImageCount)
        info.imageFormat = format
        info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR
        info.imageExtent = extent
        info.imageArrayLayers = 1
        info.imageUsage = mapFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT)
        info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE
        info.preTransform = caps.currentTransform
        let alphas = [VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR,
                      VK_COMPOSITE_ALPHA_PRE_MULTIPLIED_BIT_KHR, VK_COMPOSITE_ALPHA_POST_MULTIPLIED_BIT_KHR]
        info.compositeAlpha = alphas.first { caps.supportedCompositeAlpha & $0.rawValue != 0 } ?? VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR
        info.presentMode = pacing.mode.vk
        info.clipped = VkBool32(VK_TRUE)
        info.oldSwapchain = swapchain
        var made: VkSwapchainKHR?
        try vk("vkCreateSwapchainKHR", vkCreateSwapchainKHR(device.raw, &info, nil, &made))
        guard let made else { throw .vulkan(.unexpected(0), call: "vkCreateSwapchainKHR") }
        device.track(made)
        destroySwapchain(device)
        swapchain = made
        images = try enumerate("vkGetSwapchainImagesKHR") { vkGetSwapchainImagesKHR(device.raw, made, $0, $1) }
            .compactMap { $0 }
        imageFrames = Array(repeating: 0, count: images.count)
        for _ in images { copied.append(try Self.makeSemaphore(device)) }
        width = Int(extent.width)
        height = Int(extent.height)
        outOfDate = false
        recreations += 1
        return true
    }

    /// An 8-bit UNORM format: the frame's bytes are sRGB-encoded already (an `_SRGB`
    /// swapchain would encode them again).
    private func chooseFormat(device: VulkanDevice) throws(RenderError) {
        let formats: [VkSurfaceFormatKHR] = try enumerate("vkGetPhysicalDeviceSurfaceFormatsKHR") {
            vkGetPhysicalDeviceSurfaceFormatsKHR(device.physical, surface, $0, $1)
        }
        let unorm = formats.first { $0.format == OffscreenTarget.colorFormat }
            ?? formats.first { $0.format == VK_FORMAT_B8G8R8A8_UNORM }
        guard let unorm else {
            throw .unsupported("the window offers no R8G8B8A8_UNORM or B8G8R8A8_UNORM format (\(formats.map(\.format.rawValue)))")
        }
        format = unorm.format
        useBlit = format != OffscreenTarget.colorFormat
        if useBlit {
            var properties = VkFormatProperties()
            vkGetPhysicalDeviceFormatProperties(device.physical, format, &properties)
            guard properties.optimalTilingFeatures & mapFlags(VK_FORMAT_FEATURE_BLIT_DST_BIT) != 0 else {
                throw .unsupported("the window's format cannot be blitted into")
            }
        }
    }

    private func destroySwapchain(_ device: VulkanDevice) {
        copied.forEach { Self.destroySemaphore($0, device) }
        copied = []
        images = []
        imageFrames = []
        if let swapchain {
            vkDestroySwapchainKHR(device.raw, swapchain, nil)
            device.untrack(swapchain)
        }
        swapchain = nil
    }

    /// Destroys the swapchain, the semaphores and the surface (the device must be idle).
    func destroy(device: VulkanDevice, instance: VulkanInstance) {
        destroySwapchain(device)
        acquired.forEach { Self.destroySemaphore($0, device) }
        vkDestroySurfaceKHR(instance.raw, surface, nil)
    }

    private static func makeSemaphore(_ device: VulkanDevice) throws(RenderError) -> VkSemaphore {
        var info = VkSemaphoreCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO
        var semaphore: VkSemaphore?
        try vk("vkCreateSemaphore", vkCreateSemaphore(device.raw, &info, nil, &semaphore))
        guard let semaphore else { throw .vulkan(.unexpected(0), call: "vkCreateSemaphore") }
        device.track(semaphore)
        return semaphore
    }

    private static func destroySemaphore(_ semaphore: VkSemaphore, _ device: VulkanDevice) {
        vkDestroySemaphore(device.raw, semaphore, nil)
        device.untrack(semaphore)
    }
}
