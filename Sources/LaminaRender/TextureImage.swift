import CVulkan

/// One image's GPU copy: a device-local, sampled 2D image with a full mipmap chain (made at
/// upload by blits), its views (every level, and level 0 alone), and a descriptor set per
/// sampler it has been drawn with. A one-channel image (A8: coverage) is seen through views
/// that repeat its channel in all four (r, r, r, r), so texel × color is color × coverage.
/// Wraps `vkCreateImage`, `vkCreateImageView`. Render thread only; destroyed through the
/// `LifetimeTracker` (`.texture`) once no submitted frame can read it.
final class TextureImage {
    let raw: VkImage
    let memory: VkDeviceMemory
    /// Every level (the trilinear sampler's).
    let view: VkImageView
    /// Level 0 alone, for the samplers without mipmaps (`view(mipmapped:)`); nil when the
    /// image has one level (`view` is that).
    let baseView: VkImageView?
    let width: Int
    let height: Int
    let format: VkFormat
    let mipLevels: Int
    /// Bytes of the pixels (level 0) this copy holds.
    let byteCount: Int
    /// The last frame that drew it.
    var lastUsed: UInt64 = 0
    /// Whether its pixels are still to be copied in (by the next recorded frame).
    var needsUpload = true
    /// For the glyph atlas: how many of its `TextAtlasState.writes` have been copied in.
    var appliedWrites = 0
    /// Whether `destroy` frees `memory` (false: a client's imported pages, bound in place).
    private(set) var ownsMemory = true
    /// The layout its sets bind it in: shader-read-only, or general for a linear image over a
    /// client's pages (which the client writes from the host between frames).
    private(set) var sampledLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
    /// By `ImageDraw.samplerIndex`: the set binding this image with that sampler, and its pool.
    var descriptorSets: [(set: VkDescriptorSet, pool: VkDescriptorPool)?] = Array(repeating: nil, count: 6)

    /// Mip levels down to 1 × 1: ⌊log₂ max(w, h)⌋ + 1.
    static func mipLevels(width: Int, height: Int) -> Int {
        var levels = 1, size = max(width, height)
        while size > 1 { size /= 2; levels += 1 }
        return levels
    }

    /// `mipmapped`: false for atlases (drawn from level 0 only; a single level also lets
    /// llvmpipe sample without choosing a level).
    init(device: VulkanDevice, width: Int, height: Int, format: VkFormat, bytesPerPixel: Int,
         mipmapped: Bool = true) throws(RenderError) {
        precondition(width > 0 && height > 0, "TextureImage needs a positive size")
        self.width = width
        self.height = height
        self.format = format
        mipLevels = mipmapped ? Self.mipLevels(width: width, height: height) : 1
        byteCount = width * height * bytesPerPixel
        var info = imageCreateInfo2D(width: width, height: height, format: format, usage: mapFlags(
            VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_USAGE_SAMPLED_BIT), mipLevels: mipLevels)
        var image: VkImage?
        try vk("vkCreateImage", vkCreateImage(device.raw, &info, nil, &image))
        guard let image else { throw .vulkan(.unexpected(0), call: "vkCreateImage") }
        var requirements = VkMemoryRequirements()
        vkGetImageMemoryRequirements(device.raw, image, &requirements)
        let memory: VkDeviceMemory
        do {
            memory = try device.allocateMemory(requirements, required: 0,
                                               preferred: mapFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)).memory
        } catch {
            vkDestroyImage(device.raw, image, nil)
            throw error
        }
        var result = vkBindImageMemory(device.raw, image, memory, 0)
        func makeView(levels: Int) -> VkImageView? {
            var viewInfo = VkImageViewCreateInfo()
            viewInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
            viewInfo.image = image
            viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D
            viewInfo.format = format
            if format == VK_FORMAT_R8_UNORM {
                let r = VK_COMPONENT_SWIZZLE_R
                viewInfo.components = VkComponentMapping(r: r, g: r, b: r, a: r)
            }
            viewInfo.subresourceRange = VkImageSubresourceRange(
                aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), baseMipLevel: 0, levelCount: UInt32(levels),
                baseArrayLayer: 0, layerCount: 1)
            var view: VkImageView?
            if result == VK_SUCCESS { result = vkCreateImageView(device.raw, &viewInfo, nil, &view) }
            return view
        }
        let view = makeView(levels: mipLevels)
        let baseView = mipLevels > 1 ? makeView(levels: 1) : nil
        guard result == VK_SUCCESS, let view else {
            if let view { vkDestroyImageView(device.raw, view, nil) }
            vkDestroyImage(device.raw, image, nil)
            vkFreeMemory(device.raw, memory, nil)
            throw .vulkan(VulkanError(result), call: "vkBindImageMemory/vkCreateImageView")
        }
        raw = image
        self.memory = memory
        self.view = view
        self.baseView = baseView
        device.track(image, memory, view)
        if let baseView { device.track(baseView) }
    }

    /// A linear, one-level image over `memory` (a client's imported pages, not owned) at
    /// `offset`, sampled in place (HostMemorySurfaces): made only when its rows lie `stride`
    /// bytes apart there (the implementation's row pitch), `offset` is a multiple of its
    /// alignment and it fits in `memorySize` bytes; nil otherwise (nothing left behind). Its
    /// contents are the memory's (the client's pixels); `recordInPlaceTransition` moves it from
    /// `UNDEFINED` (which an image over external memory must start in) to `GENERAL`, where it stays.
    init?(inPlace memory: VkDeviceMemory, memorySize: Int, memoryTypeBits: UInt32, offset: Int, stride: Int,
          width: Int, height: Int, format: VkFormat, handleType: VkExternalMemoryHandleTypeFlagBits, device: VulkanDevice) {
        var external = VkExternalMemoryImageCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO
        external.handleTypes = handleType.rawValue
        var info = imageCreateInfo2D(width: width, height: height, format: format, usage: mapFlags(VK_IMAGE_USAGE_SAMPLED_BIT))
        info.tiling = VK_IMAGE_TILING_LINEAR   // (initial layout UNDEFINED: external memory requires it)
        var image: VkImage?
        let made = withUnsafePointer(to: &external) { p in
            info.pNext = UnsafeRawPointer(p)
            return vkCreateImage(device.raw, &info, nil, &image)
        }
        guard made == VK_SUCCESS, let image else { return nil }
        var requirements = VkMemoryRequirements()
        vkGetImageMemoryRequirements(device.raw, image, &requirements)
        var subresource = VkImageSubresource(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0, arrayLayer: 0)
        var layout = VkSubresourceLayout()
        vkGetImageSubresourceLayout(device.raw, image, &subresource, &layout)
        let alignment = max(Int(requirements.alignment), 1)
        guard layout.offset == 0, Int(layout.rowPitch) == stride, offset % alignment == 0,
              requirements.memoryTypeBits & memoryTypeBits != 0,
              offset + Int(requirements.size) <= memorySize,
              vkBindImageMemory(device.raw, image, memory, VkDeviceSize(offset)) == VK_SUCCESS else {
            vkDestroyImage(device.raw, image, nil)
            return nil
        }
        var viewInfo = VkImageViewCreateInfo()
        viewInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
        viewInfo.image = image
        viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D
        viewInfo.format = format
        viewInfo.subresourceRange = VkImageSubresourceRange(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), baseMipLevel: 0,
                                                            levelCount: 1, baseArrayLayer: 0, layerCount: 1)
        var view: VkImageView?
        guard vkCreateImageView(device.raw, &viewInfo, nil, &view) == VK_SUCCESS, let view else {
            vkDestroyImage(device.raw, image, nil)
            return nil
        }
        raw = image
        self.memory = memory
        self.view = view
        baseView = nil
        self.width = width
        self.height = height
        self.format = format
        mipLevels = 1
        byteCount = width * height * 4
        ownsMemory = false
        sampledLayout = VK_IMAGE_LAYOUT_GENERAL
        needsUpload = false
        device.track(image, view)
    }

    /// Records the one transition of an in-place image, after the host's writes, to `GENERAL`
    /// for fragment shaders. (From `UNDEFINED`, which lets a driver drop the contents; a linear
    /// image's layout is its memory's row order, and lavapipe changes nothing.)
    func recordInPlaceTransition(into cmd: VkCommandBuffer) {
        recordImageBarrier(cmd, image: raw, from: VK_IMAGE_LAYOUT_UNDEFINED, to: VK_IMAGE_LAYOUT_GENERAL,
                           srcAccess: mapFlags(VK_ACCESS_HOST_WRITE_BIT), dstAccess: mapFlags(VK_ACCESS_SHADER_READ_BIT),
                           srcStage: mapFlags(VK_PIPELINE_STAGE_HOST_BIT),
                           dstStage: mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT))
    }

    /// The view a sampler reads: every level for a mipmapped (trilinear) one; level 0 alone
    /// for the others, which read nothing else (their `maxLod` 0.25 keeps to level 0, the
    /// level of detail only choosing between the minification and magnification filters), so
    /// the same texels — but llvmpipe samples a one-level view whose two filters agree without
    /// computing a level of detail per pixel quad.
    func view(mipmapped: Bool) -> VkImageView { mipmapped ? view : baseView ?? view }

    /// Records the copy of `staging` (level 0's pixels, tightly packed) into the image, the
    /// blits that make each smaller level from the one above (linear), and the barriers that
    /// leave every level ready for fragment shaders.
    func recordUpload(from staging: VulkanBuffer, into cmd: VkCommandBuffer) {
        func barrier(levels: Range<Int>, from old: VkImageLayout, to new: VkImageLayout, srcAccess: VkAccessFlags,
                     dstAccess: VkAccessFlags, srcStage: VkPipelineStageFlags, dstStage: VkPipelineStageFlags) {
            recordImageBarrier(cmd, image: raw, levels: levels, from: old, to: new, srcAccess: srcAccess, dstAccess: dstAccess,
                               srcStage: srcStage, dstStage: dstStage)
        }
        let transfer = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT)
        let write = mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT), read = mapFlags(VK_ACCESS_TRANSFER_READ_BIT)
        barrier(levels: 0..<mipLevels, from: VK_IMAGE_LAYOUT_UNDEFINED, to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                srcAccess: 0, dstAccess: write, srcStage: mapFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT), dstStage: transfer)
        var region = VkBufferImageCopy()
        region.imageSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                                           baseArrayLayer: 0, layerCount: 1)
        region.imageExtent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
        vkCmdCopyBufferToImage(cmd, staging.raw, raw, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region)
        var w = width, h = height
        for level in 1..<max(mipLevels, 1) {
            barrier(levels: (level - 1)..<level, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                    to: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, srcAccess: write, dstAccess: read, srcStage: transfer,
                    dstStage: transfer)
            let nw = max(w / 2, 1), nh = max(h / 2, 1)
            var blit = VkImageBlit()
            blit.srcSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT),
                                                           mipLevel: UInt32(level - 1), baseArrayLayer: 0, layerCount: 1)
            blit.dstSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT),
                                                           mipLevel: UInt32(level), baseArrayLayer: 0, layerCount: 1)
            blit.srcOffsets.1 = VkOffset3D(x: Int32(w), y: Int32(h), z: 1)
            blit.dstOffsets.1 = VkOffset3D(x: Int32(nw), y: Int32(nh), z: 1)
            vkCmdBlitImage(cmd, raw, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, raw, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &blit, VK_FILTER_LINEAR)
            w = nw
            h = nh
        }
        let fragment = mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT), shaderRead = mapFlags(VK_ACCESS_SHADER_READ_BIT)
        if mipLevels > 1 {
            barrier(levels: 0..<(mipLevels - 1), from: VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                    to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, srcAccess: read, dstAccess: shaderRead,
                    srcStage: transfer, dstStage: fragment)
        }
        barrier(levels: (mipLevels - 1)..<mipLevels, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, srcAccess: write, dstAccess: shaderRead,
                srcStage: transfer, dstStage: fragment)
        needsUpload = false
    }

    /// Records the copy of dirty rectangles (`regions` of `staging`) into level 0, between
    /// barriers from and back to shader reads (the glyph atlas; its samplers read level 0 only).
    func recordWrites(from staging: VulkanBuffer, regions: [VkBufferImageCopy], into cmd: VkCommandBuffer) {
        func barrier(from old: VkImageLayout, to new: VkImageLayout, srcAccess: VkAccessFlags, dstAccess: VkAccessFlags,
                     srcStage: VkPipelineStageFlags, dstStage: VkPipelineStageFlags) {
            recordImageBarrier(cmd, image: raw, from: old, to: new, srcAccess: srcAccess, dstAccess: dstAccess,
                               srcStage: srcStage, dstStage: dstStage)
        }
        let transfer = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), fragment = mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT)
        let write = mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT), shaderRead = mapFlags(VK_ACCESS_SHADER_READ_BIT)
        // Earlier frames' reads (and an upload earlier in this command buffer) come first.
        barrier(from: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                srcAccess: shaderRead | write, dstAccess: write, srcStage: fragment | transfer, dstStage: transfer)
        regions.withUnsafeBufferPointer { r in
            vkCmdCopyBufferToImage(cmd, staging.raw, raw, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, UInt32(r.count), r.baseAddress)
        }
        barrier(from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                srcAccess: write, dstAccess: shaderRead, srcStage: transfer, dstStage: fragment)
    }

    /// Records the clear of a new image (an atlas page, one level) to transparent black and the
    /// barrier that leaves it ready for `recordWrites` and fragment shaders.
    func recordClear(into cmd: VkCommandBuffer) {
        let transfer = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), fragment = mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT)
        let write = mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT), shaderRead = mapFlags(VK_ACCESS_SHADER_READ_BIT)
        recordImageBarrier(cmd, image: raw, levels: 0..<mipLevels, from: VK_IMAGE_LAYOUT_UNDEFINED,
                           to: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, srcAccess: 0, dstAccess: write,
                           srcStage: mapFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT), dstStage: transfer)
        var clear = VkClearColorValue()
        var range = VkImageSubresourceRange(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), baseMipLevel: 0,
                                            levelCount: UInt32(mipLevels), baseArrayLayer: 0, layerCount: 1)
        vkCmdClearColorImage(cmd, raw, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &clear, 1, &range)
        recordImageBarrier(cmd, image: raw, levels: 0..<mipLevels, from: VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                           to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, srcAccess: write, dstAccess: shaderRead,
                           srcStage: transfer, dstStage: fragment)
        needsUpload = false
    }

    func destroy(_ device: VulkanDevice) {
        for entry in descriptorSets {
            guard let entry else { continue }
            var set: VkDescriptorSet? = entry.set
            _ = vkFreeDescriptorSets(device.raw, entry.pool, 1, &set)
        }
        descriptorSets = Array(repeating: nil, count: descriptorSets.count)
        vkDestroyImageView(device.raw, view, nil)
        if let baseView {
            vkDestroyImageView(device.raw, baseView, nil)
            device.untrack(baseView)
        }
        vkDestroyImage(device.raw, raw, nil)
        if ownsMemory {
            vkFreeMemory(device.raw, memory, nil)
            device.untrack(raw, memory, view)
        } else {
            device.untrack(raw, view)
        }
    }
}
