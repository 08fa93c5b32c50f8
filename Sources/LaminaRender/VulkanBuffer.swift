import CVulkan
import LaminaFrame

/// A buffer with its own memory, host-visible and persistently mapped (the renderer only
/// needs upload rings and readback). Wraps `vkCreateBuffer` + `vkAllocateMemory`.
/// Render thread only; destroy with `destroy(_:)` once no submitted frame can use it.
final class VulkanBuffer {
    let raw: VkBuffer
    let memory: VkDeviceMemory
    let size: Int
    /// The mapped memory, valid until `destroy`.
    let mapped: UnsafeMutableRawPointer
    /// Whether the memory is host-coherent; otherwise reads need `invalidate`.
    let isCoherent: Bool

    /// - Parameters:
    ///   - usage: `VkBufferUsageFlags`.
    ///   - cached: prefer host-cached memory (for reading back on the CPU).
    init(device: VulkanDevice, size: Int, usage: VkBufferUsageFlags, cached: Bool = false) throws(RenderError) {
        precondition(size > 0, "VulkanBuffer needs a positive size")
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(size)
        info.usage = usage
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        try vk("vkCreateBuffer", vkCreateBuffer(device.raw, &info, nil, &buffer))
        guard let buffer else { throw .vulkan(.unexpected(0), call: "vkCreateBuffer") }

        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(device.raw, buffer, &requirements)
        let visible = mapFlags(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
        let coherent = mapFlags(VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
        let hostCached = mapFlags(VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
        let (memory, typeIndex): (VkDeviceMemory, UInt32)
        do {
            (memory, typeIndex) = cached
                ? try device.allocateMemory(requirements, required: visible, preferred: hostCached | coherent)
                : try device.allocateMemory(requirements, required: visible | coherent)
        } catch {
            vkDestroyBuffer(device.raw, buffer, nil)
            throw error
        }
        var mapped: UnsafeMutableRawPointer?
        let bound = vkBindBufferMemory(device.raw, buffer, memory, 0)
        let mapResult = bound == VK_SUCCESS ? vkMapMemory(device.raw, memory, 0, wholeSize, 0, &mapped) : bound
        guard mapResult == VK_SUCCESS, let mapped else {
            vkDestroyBuffer(device.raw, buffer, nil)
            vkFreeMemory(device.raw, memory, nil)
            throw .vulkan(VulkanError(mapResult), call: "vkBindBufferMemory/vkMapMemory")
        }
        let flags = withUnsafeBytes(of: device.memoryProperties.memoryTypes) {
            $0.bindMemory(to: VkMemoryType.self)[Int(typeIndex)].propertyFlags
        }
        self.raw = buffer
        self.memory = memory
        self.size = size
        self.mapped = mapped
        self.isCoherent = flags & coherent != 0
        device.track(buffer, memory)
    }

    /// Copies `count` bytes from `source` to `offset` of the mapped memory, after checking that
    /// they lie within the buffer (`checkHostWrite`, naming it `what`).
    func write(_ what: StaticString, at offset: Int, from source: UnsafeRawPointer, count: Int) {
        checkHostWrite(what, offset: offset, length: count, capacity: size)
        (mapped + offset).copyMemory(from: source, byteCount: count)
    }

    /// The mapped memory at `offset`, after checking that `length` bytes from there lie within
    /// the buffer (`checkHostWrite`, naming it `what`): for writes made in place.
    func bytes(_ what: StaticString, at offset: Int, length: Int) -> UnsafeMutableRawPointer {
        checkHostWrite(what, offset: offset, length: length, capacity: size)
        return mapped + offset
    }

    /// Makes device writes visible to the host for non-coherent memory
    /// (`vkInvalidateMappedMemoryRanges`).
    func invalidate(device: VulkanDevice) throws(RenderError) {
        guard !isCoherent else { return }
        var range = VkMappedMemoryRange()
        range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE
        range.memory = memory
        range.offset = 0
        range.size = wholeSize
        try vk("vkInvalidateMappedMemoryRanges", vkInvalidateMappedMemoryRanges(device.raw, 1, &range))
    }

    func destroy(_ device: VulkanDevice) {
        vkUnmapMemory(device.raw, memory)
        vkDestroyBuffer(device.raw, raw, nil)
        vkFreeMemory(device.raw, memory, nil)
        device.untrack(raw, memory)
    }
}
