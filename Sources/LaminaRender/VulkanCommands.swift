import CVulkan

/// The command pool, the fences and the timestamp query pool the renderer records and
/// submits with. Wraps `vkCreateCommandPool`, `vkCreateFence`, `vkCreateQueryPool`.
/// Render thread only.
final class VulkanCommands {
    let pool: VkCommandPool
    /// Two timestamps per frame slot (start, end); nil when the queue has no timestamps.
    let queryPool: VkQueryPool?

    init(device: VulkanDevice, timestampSlots: Int) throws(RenderError) {
        var info = VkCommandPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        info.flags = mapFlags(VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT)
        info.queueFamilyIndex = device.queueFamily
        var pool: VkCommandPool?
        try vk("vkCreateCommandPool", vkCreateCommandPool(device.raw, &info, nil, &pool))
        guard let pool else { throw .vulkan(.unexpected(0), call: "vkCreateCommandPool") }
        self.pool = pool
        device.track(pool)

        if device.timestampPeriod != nil {
            var queryInfo = VkQueryPoolCreateInfo()
            queryInfo.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO
            queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP
            queryInfo.queryCount = UInt32(2 * timestampSlots)
            var queryPool: VkQueryPool?
            let result = vkCreateQueryPool(device.raw, &queryInfo, nil, &queryPool)
            guard result == VK_SUCCESS, let queryPool else {
                vkDestroyCommandPool(device.raw, pool, nil)
                device.untrack(pool)
                throw .vulkan(VulkanError(result), call: "vkCreateQueryPool")
            }
            self.queryPool = queryPool
            device.track(queryPool)
        } else {
            queryPool = nil
        }
    }

    /// Allocates a primary command buffer (`vkAllocateCommandBuffers`); freed with the pool.
    func makeCommandBuffer(device: VulkanDevice) throws(RenderError) -> VkCommandBuffer {
        var info = VkCommandBufferAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        info.commandPool = pool
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        info.commandBufferCount = 1
        var buffer: VkCommandBuffer?
        try vk("vkAllocateCommandBuffers", vkAllocateCommandBuffers(device.raw, &info, &buffer))
        guard let buffer else { throw .vulkan(.unexpected(0), call: "vkAllocateCommandBuffers") }
        return buffer
    }

    /// An unsignaled fence (`vkCreateFence`); destroy with `destroyFence`.
    func makeFence(device: VulkanDevice) throws(RenderError) -> VkFence {
        var info = VkFenceCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        var fence: VkFence?
        try vk("vkCreateFence", vkCreateFence(device.raw, &info, nil, &fence))
        guard let fence else { throw .vulkan(.unexpected(0), call: "vkCreateFence") }
        device.track(fence)
        return fence
    }

    func destroyFence(_ fence: VkFence, device: VulkanDevice) {
        vkDestroyFence(device.raw, fence, nil)
        device.untrack(fence)
    }

    /// Waits for `fence` without a time limit, then resets it.
    func waitAndReset(_ fence: VkFence, device: VulkanDevice) throws(RenderError) {
        var fence: VkFence? = fence
        try vk("vkWaitForFences", vkWaitForFences(device.raw, 1, &fence, VkBool32(VK_TRUE), UInt64.max))
        try vk("vkResetFences", vkResetFences(device.raw, 1, &fence))
    }

    /// Submits one command buffer that signals `fence` (`vkQueueSubmit`); with `semaphores`
    /// (a window frame) it waits for `wait` at the transfer stage and signals `signal`.
    func submit(_ commandBuffer: VkCommandBuffer, fence: VkFence, device: VulkanDevice,
                semaphores: (wait: VkSemaphore, signal: VkSemaphore)? = nil) throws(RenderError) {
        try submit([commandBuffer], fence: fence, device: device, semaphores: semaphores)
    }

    /// Submits `commandBuffers` in order as one batch, as `submit(_:fence:device:semaphores:)`.
    func submit(_ commandBuffers: [VkCommandBuffer?], fence: VkFence, device: VulkanDevice,
                semaphores: (wait: VkSemaphore, signal: VkSemaphore)? = nil) throws(RenderError) {
        var wait: VkSemaphore? = semaphores?.wait
        var signal: VkSemaphore? = semaphores?.signal
        var stage = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT)
        let result = commandBuffers.withUnsafeBufferPointer { bufferPointer in
            withUnsafePointer(to: &wait) { waitPointer in
            withUnsafePointer(to: &signal) { signalPointer in
            withUnsafePointer(to: &stage) { stagePointer in
                var info = VkSubmitInfo()
                info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
                info.commandBufferCount = UInt32(bufferPointer.count)
                info.pCommandBuffers = bufferPointer.baseAddress
                if semaphores != nil {
                    info.waitSemaphoreCount = 1
                    info.pWaitSemaphores = waitPointer
                    info.pWaitDstStageMask = stagePointer
                    info.signalSemaphoreCount = 1
                    info.pSignalSemaphores = signalPointer
                }
                return vkQueueSubmit(device.queue, 1, &info, fence)
            }}}
        }
        try vk("vkQueueSubmit", result)
    }

    /// GPU seconds between the two timestamps of `slot`, once its frame has finished.
    func gpuSeconds(slot: Int, device: VulkanDevice) -> Double? {
        guard let queryPool, let period = device.timestampPeriod else { return nil }
        var values: (UInt64, UInt64) = (0, 0)
        let result = withUnsafeMutableBytes(of: &values) { raw in
            vkGetQueryPoolResults(device.raw, queryPool, UInt32(2 * slot), 2, raw.count, raw.baseAddress,
                                  VkDeviceSize(MemoryLayout<UInt64>.stride),
                                  mapFlags(VK_QUERY_RESULT_64_BIT))
        }
        guard result == VK_SUCCESS else { return nil }
        let start = values.0 & device.timestampMask, end = values.1 & device.timestampMask
        guard end >= start else { return nil }
        return Double(end - start) * period / 1e9
    }

    /// Destroys the query pool and the pool with its command buffers.
    func destroy(_ device: VulkanDevice) {
        if let queryPool {
            vkDestroyQueryPool(device.raw, queryPool, nil)
            device.untrack(queryPool)
        }
        vkDestroyCommandPool(device.raw, pool, nil)
        device.untrack(pool)
    }
}
