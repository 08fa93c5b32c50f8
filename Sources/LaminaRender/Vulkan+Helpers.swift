import CVulkan
#if canImport(Glibc)
import Glibc
#endif

/// The count-then-fill pattern of `vkEnumerate…` / `vkGet…` calls that return arrays,
/// in one place. `fill` is called first with a nil pointer to get the count.
func enumerate<T>(
    _ call: StaticString,
    _ fill: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<T>?) -> VkResult
) throws(RenderError) -> [T] {
    var count: UInt32 = 0
    try vk(call, fill(&count, nil))
    if count == 0 { return [] }
    // SAFETY: `fill` writes at most `count` elements, and reports how many it wrote.
    let zeroed = UnsafeMutablePointer<T>.allocate(capacity: Int(count))
    defer { zeroed.deallocate() }
    let result = fill(&count, zeroed)
    if result != VK_SUCCESS && result != VK_INCOMPLETE {
        throw .vulkan(VulkanError(result), call: "\(call)")
    }
    return Array(UnsafeBufferPointer(start: zeroed, count: Int(count)))
}

/// Same, for calls that return void.
func enumerate<T>(
    _ fill: (UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<T>?) -> Void
) -> [T] {
    var count: UInt32 = 0
    fill(&count, nil)
    if count == 0 { return [] }
    let storage = UnsafeMutablePointer<T>.allocate(capacity: Int(count))
    defer { storage.deallocate() }
    fill(&count, storage)
    return Array(UnsafeBufferPointer(start: storage, count: Int(count)))
}

/// Calls `body` with a C array of C strings that lives only for the call.
func withCStrings<R, E: Error>(
    _ strings: [String],
    _ body: (UnsafePointer<UnsafePointer<CChar>?>?) throws(E) -> R
) throws(E) -> R {
    // SAFETY: the duplicated strings and the array outlive `body` and are freed after it.
    let duplicated: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { duplicated.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = duplicated.map { $0.map { UnsafePointer($0) } }
    return try pointers.withUnsafeBufferPointer { (buffer) throws(E) -> R in
        try body(strings.isEmpty ? nil : buffer.baseAddress)
    }
}

/// A 2D image's create info: one layer, one sample, optimal tiling, exclusive, from layout
/// UNDEFINED (textures, the offscreen targets' and the GPU buffers' images).
func imageCreateInfo2D(width: Int, height: Int, format: VkFormat, usage: VkImageUsageFlags,
                       mipLevels: Int = 1) -> VkImageCreateInfo {
    var info = VkImageCreateInfo()
    info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO
    info.imageType = VK_IMAGE_TYPE_2D
    info.format = format
    info.extent = VkExtent3D(width: UInt32(width), height: UInt32(height), depth: 1)
    info.mipLevels = UInt32(mipLevels)
    info.arrayLayers = 1
    info.samples = VK_SAMPLE_COUNT_1_BIT
    info.tiling = VK_IMAGE_TILING_OPTIMAL
    info.usage = usage
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED
    return info
}

/// Reads a fixed-size C char array field (imported as a tuple) as a String.
func string<T>(fromCharTuple tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let chars = raw.bindMemory(to: CChar.self)
        let length = chars.firstIndex(of: 0) ?? chars.count
        return String(decoding: raw.prefix(length), as: UTF8.self)
    }
}

/// Records a layout transition of a color image's mip `levels` (one array layer), waiting for
/// `srcAccess` at `srcStage` before `dstAccess` at `dstStage`: the one image barrier the
/// textures' uploads and writes and the window's swapchain copy use.
func recordImageBarrier(_ cmd: VkCommandBuffer, image: VkImage, levels: Range<Int> = 0..<1,
                        from old: VkImageLayout, to new: VkImageLayout, srcAccess: VkAccessFlags, dstAccess: VkAccessFlags,
                        srcStage: VkPipelineStageFlags, dstStage: VkPipelineStageFlags) {
    var b = VkImageMemoryBarrier()
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER
    b.oldLayout = old
    b.newLayout = new
    b.srcAccessMask = srcAccess
    b.dstAccessMask = dstAccess
    b.srcQueueFamilyIndex = queueFamilyIgnored
    b.dstQueueFamilyIndex = queueFamilyIgnored
    b.image = image
    b.subresourceRange = VkImageSubresourceRange(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT),
                                                 baseMipLevel: UInt32(levels.lowerBound), levelCount: UInt32(levels.count),
                                                 baseArrayLayer: 0, layerCount: 1)
    vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, nil, 0, nil, 1, &b)
}

/// Resets `cmd` and begins recording it (`vkResetCommandBuffer`, `vkBeginCommandBuffer`):
/// `oneTime`, to be submitted once (ONE_TIME_SUBMIT); else it may be submitted again.
func beginRecording(_ cmd: VkCommandBuffer, oneTime: Bool) throws(RenderError) {
    try vk("vkResetCommandBuffer", vkResetCommandBuffer(cmd, 0))
    var begin = VkCommandBufferBeginInfo()
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
    if oneTime { begin.flags = mapFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT) }
    try vk("vkBeginCommandBuffer", vkBeginCommandBuffer(cmd, &begin))
}
