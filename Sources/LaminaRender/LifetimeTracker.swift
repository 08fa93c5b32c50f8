import CVulkan

/// Vulkan objects that submitted work may still read, each destroyed once the submission it
/// was retired to has finished.
///
/// Submissions are numbered in the order they go to the queue (the renderer's frame numbers).
/// A fence signal covers every earlier submission on the queue, so when submission `n` is
/// known to have finished, everything retired to `n` or earlier can go. Render thread only.
final class LifetimeTracker {
    /// An object waiting for a submission.
    enum Object {
        case buffer(VulkanBuffer)
        case image(VulkanImage)
        /// Freed back to `descriptorPool`.
        case descriptorSet(VkDescriptorSet)
        /// An object that destroys itself (an image's texture with its descriptor sets).
        case texture(TextureImage)
    }

    private let device: VulkanDevice
    private let descriptorPool: VkDescriptorPool
    /// Submitted and not yet known to have finished, oldest first.
    private var pending: [UInt64] = []
    /// Objects by the submission they wait for, in retirement order.
    private var waiting: [(submission: UInt64, object: Object)] = []

    init(device: VulkanDevice, descriptorPool: VkDescriptorPool) {
        self.device = device
        self.descriptorPool = descriptorPool
    }

    /// Objects waiting for a submission to finish.
    var waitingCount: Int { waiting.count }

    /// The latest submission not yet known to have finished, if any.
    var latestPending: UInt64? { pending.last }

    /// Submission `n` went to the queue.
    func submitted(_ n: UInt64) {
        precondition(n > (pending.last ?? 0), "submissions are numbered in queue order")
        pending.append(n)
    }

    /// Submission `n` has finished (its fence signaled): it and every earlier submission are
    /// done, and what was retired to them is destroyed.
    func finished(_ n: UInt64) {
        pending.removeAll { $0 <= n }
        guard waiting.contains(where: { $0.submission <= n }) else { return }
        var kept: [(submission: UInt64, object: Object)] = []
        for entry in waiting {
            if entry.submission <= n { destroy(entry.object) } else { kept.append(entry) }
        }
        waiting = kept
    }

    /// Destroys `object` once submission `n` has finished (for an object the submission being
    /// recorded may read: it is submitted next).
    func retire(_ object: Object, after n: UInt64) {
        waiting.append((n, object))
    }

    /// Destroys `object` once every submission so far has finished, or now when none is
    /// pending.
    func retire(_ object: Object) {
        if let latest = pending.last {
            waiting.append((latest, object))
        } else {
            destroy(object)
        }
    }

    /// Destroys everything still waiting (the device is idle).
    func destroyAll() {
        waiting.forEach { destroy($0.object) }
        waiting.removeAll()
        pending.removeAll()
    }

    private func destroy(_ object: Object) {
        switch object {
        case .buffer(let buffer): buffer.destroy(device)
        case .image(let image): image.destroy(device)
        case .descriptorSet(let set):
            var set: VkDescriptorSet? = set
            _ = vkFreeDescriptorSets(device.raw, descriptorPool, 1, &set)
        case .texture(let texture): texture.destroy(device)
        }
    }
}
