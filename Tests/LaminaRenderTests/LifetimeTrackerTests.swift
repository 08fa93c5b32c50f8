import CVulkan
import Foundation
import Testing
@testable import LaminaRender

/// The lifetime tracker through real Vulkan (lavapipe): objects retired to a submission are
/// destroyed only once it has finished, and the device's live-object count (the handles
/// registered) follows.
@Suite("Lifetime tracker")
struct LifetimeTrackerTests {
    @Test func objectsRetiredToASubmissionAreReleasedAfterItCompletes() throws {
        let log = ValidationLog()
        let instance = try VulkanInstance(validation: ProcessInfo.processInfo.environment["LAMINA_VALIDATION"] == "1",
                                          log: log)
        let device = try VulkanDevice(instance: instance)
        let commands = try VulkanCommands(device: device, timestampSlots: 1)
        var poolSize = VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 1)
        var poolInfo = VkDescriptorPoolCreateInfo()
        poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        poolInfo.flags = mapFlags(VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT)
        poolInfo.maxSets = 1
        poolInfo.poolSizeCount = 1
        var pool: VkDescriptorPool?
        let result = withUnsafePointer(to: &poolSize) { size in
            poolInfo.pPoolSizes = size
            return vkCreateDescriptorPool(device.raw, &poolInfo, nil, &pool)
        }
        #expect(result == VK_SUCCESS)
        guard let pool else { return }
        device.track(pool)
        let tracker = LifetimeTracker(device: device, descriptorPool: pool)
        let fence = try commands.makeFence(device: device)
        let cmd = try commands.makeCommandBuffer(device: device)
        /// Submits an empty command buffer signaling `fence`.
        func submit() throws {
            var begin = VkCommandBufferBeginInfo()
            begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
            #expect(vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS)
            #expect(vkEndCommandBuffer(cmd) == VK_SUCCESS)
            try commands.submit(cmd, fence: fence, device: device)
        }
        func buffer() throws -> VulkanBuffer {
            try VulkanBuffer(device: device, size: 256, usage: mapFlags(VK_BUFFER_USAGE_VERTEX_BUFFER_BIT))
        }
        let base = device.liveObjects
        // A buffer is two registered objects: the VkBuffer and its memory.
        let a = try buffer(), b = try buffer(), c = try buffer()
        #expect(device.liveObjects == base + 6)

        // Nothing submitted: retiring destroys at once.
        tracker.retire(.buffer(a))
        #expect(device.liveObjects == base + 4)

        // Submission 1 in flight: b waits for it.
        try submit()
        tracker.submitted(1)
        tracker.retire(.buffer(b))
        #expect(tracker.waitingCount == 1)
        #expect(device.liveObjects == base + 4)
        try commands.waitAndReset(fence, device: device)
        #expect(device.liveObjects == base + 4, "still there until the tracker hears the submission finished")
        tracker.finished(1)
        #expect(tracker.waitingCount == 0)
        #expect(device.liveObjects == base + 2)

        // Retired to submission 2 before it is made (an object the frame being recorded
        // replaced): kept through submission 2, released when it finishes.
        tracker.retire(.buffer(c), after: 2)
        tracker.finished(1)
        #expect(device.liveObjects == base + 2)
        try submit()
        tracker.submitted(2)
        try commands.waitAndReset(fence, device: device)
        tracker.finished(2)
        #expect(tracker.waitingCount == 0)
        #expect(device.liveObjects == base)

        commands.destroyFence(fence, device: device)
        device.untrack(pool)
        vkDestroyDescriptorPool(device.raw, pool, nil)
        commands.destroy(device)
        #expect(device.liveObjects == 0)
        device.destroy()
        instance.destroy()
        #expect(log.messages.isEmpty, "\(log.messages)")
    }
}
