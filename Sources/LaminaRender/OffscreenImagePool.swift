import CVulkan

/// The offscreen images a frame's passes draw into and sample (`FramePass.Target.image`):
/// target-sized color + stencil images with the group render pass's framebuffer, each with the
/// descriptor set the composite and blur pipelines read it through. Kept between frames and
/// made as a frame first needs them. Render thread only.
final class OffscreenImagePool {
    private struct Entry {
        let image: VulkanImage
        let descriptorSet: VkDescriptorSet
    }
    private var entries: [Entry] = []
    private let format: VkFormat
    private let stencilFormat: VkFormat

    init(format: VkFormat, stencilFormat: VkFormat) {
        self.format = format
        self.stencilFormat = stencilFormat
    }

    var count: Int { entries.count }
    /// Bumped when images are made or retired (recorded passes may refer to them).
    private(set) var changes: UInt64 = 0
    func framebuffer(_ index: Int) -> VkFramebuffer { entries[index].image.framebuffer }
    func descriptorSet(_ index: Int) -> VkDescriptorSet { entries[index].descriptorSet }
    /// The color image (a copy's source or destination: `FramePass.CopyOut`).
    func image(_ index: Int) -> VkImage { entries[index].image.raw }

    /// Makes sure `count` images of `width` × `height` exist.
    func reserve(_ count: Int, width: Int, height: Int, device: VulkanDevice, pipeline: VulkanPipeline,
                 descriptorPool: VkDescriptorPool) throws(RenderError) {
        while entries.count < count {
            let image = try VulkanImage(device: device, width: width, height: height, format: format,
                                        stencilFormat: stencilFormat, renderPass: pipeline.groupRenderPass, sampled: true)
            let set: VkDescriptorSet
            do {
                set = try allocateDescriptorSet(device: device, pool: descriptorPool, layout: pipeline.compositeSetLayout)
            } catch {
                image.destroy(device)
                throw error
            }
            writeImageDescriptor(device: device, set: set, sampler: pipeline.sampler, view: image.view)
            entries.append(Entry(image: image, descriptorSet: set))
            changes += 1
        }
    }

    /// Retires every image and set (the target's size changed); frames in flight keep them
    /// until they finish.
    func retireAll(_ lifetimes: LifetimeTracker) {
        for entry in entries {
            lifetimes.retire(.image(entry.image))
            lifetimes.retire(.descriptorSet(entry.descriptorSet))
        }
        entries.removeAll()
        changes += 1
    }

    /// Destroys the images (the device is idle; the sets go with their pool).
    func destroy(_ device: VulkanDevice) {
        for entry in entries { entry.image.destroy(device) }
        entries.removeAll()
    }
}

/// Wraps `vkAllocateDescriptorSets` for one set of `layout`.
func allocateDescriptorSet(device: VulkanDevice, pool: VkDescriptorPool,
                           layout: VkDescriptorSetLayout) throws(RenderError) -> VkDescriptorSet {
    var set: VkDescriptorSet?
    var layout: VkDescriptorSetLayout? = layout
    var allocate = VkDescriptorSetAllocateInfo()
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
    allocate.descriptorPool = pool
    allocate.descriptorSetCount = 1
    let result = withUnsafePointer(to: &layout) { layoutPointer in
        allocate.pSetLayouts = layoutPointer
        return vkAllocateDescriptorSets(device.raw, &allocate, &set)
    }
    guard result == VK_SUCCESS, let set else { throw .vulkan(VulkanError(result), call: "vkAllocateDescriptorSets") }
    return set
}

/// Points binding 0 of `set` at `view` sampled by `sampler` (a combined image sampler in
/// SHADER_READ_ONLY_OPTIMAL): offscreen group images and texture images alike.
func writeImageDescriptor(device: VulkanDevice, set: VkDescriptorSet, sampler: VkSampler?, view: VkImageView?,
                          layout: VkImageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL) {
    writeDescriptor(device: device, set: set,
                    image: VkDescriptorImageInfo(sampler: sampler, imageView: view, imageLayout: layout))
}

/// Points binding 0 of `set` (a storage buffer) at the whole of `buffer`: the frame slots' clip
/// and mesh-arena sets. The set must not be in use by a frame still running.
func writeBufferDescriptor(device: VulkanDevice, set: VkDescriptorSet?, buffer: VkBuffer?) {
    writeDescriptor(device: device, set: set,
                    buffer: VkDescriptorBufferInfo(buffer: buffer, offset: 0, range: wholeSize))
}

/// One descriptor write to binding 0 of `set`: an image when `image` is given, else a buffer.
private func writeDescriptor(device: VulkanDevice, set: VkDescriptorSet?, image: VkDescriptorImageInfo? = nil,
                             buffer: VkDescriptorBufferInfo? = nil) {
    var imageInfo = image ?? VkDescriptorImageInfo()
    var bufferInfo = buffer ?? VkDescriptorBufferInfo()
    withUnsafePointer(to: &imageInfo) { imagePointer in
        withUnsafePointer(to: &bufferInfo) { bufferPointer in
            var write = VkWriteDescriptorSet()
            write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
            write.dstSet = set
            write.dstBinding = 0
            write.descriptorCount = 1
            if image != nil {
                write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                write.pImageInfo = imagePointer
            } else {
                write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                write.pBufferInfo = bufferPointer
            }
            vkUpdateDescriptorSets(device.raw, 1, &write, 0, nil)
        }
    }
}
