import CVulkan

/// The render pass for the offscreen target and the analytic-rect pipeline, created once.
/// Wraps `vkCreateRenderPass`, `vkCreatePipelineLayout`, `vkCreateGraphicsPipelines`.
/// Render thread only.
final class VulkanPipeline {
    let renderPass: VkRenderPass
    let layout: VkPipelineLayout
    let rect: VkPipeline

    init(device: VulkanDevice, format: VkFormat) throws(RenderError) {
        var undo: [() -> Void] = []
        func fail(_ error: RenderError) -> RenderError { undo.reversed().forEach { $0() }; return error }

        // Render pass: clear, draw, keep; leave the image ready to be copied out.
        var attachment = VkAttachmentDescription()
        attachment.format = format
        attachment.samples = VK_SAMPLE_COUNT_1_BIT
        attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR
        attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE
        attachment.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE
        attachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE
        attachment.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED
        attachment.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
        var colorReference = VkAttachmentReference(attachment: 0, layout: VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
        let colorStage = mapFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT)
        let transferStage = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT)
        let dependencies = [
            // The previous frame's copy out of the image finishes before this frame clears it.
            VkSubpassDependency(srcSubpass: subpassExternal, dstSubpass: 0,
                                srcStageMask: transferStage | colorStage, dstStageMask: colorStage,
                                srcAccessMask: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                                dstAccessMask: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                                dependencyFlags: 0),
            // This frame's drawing finishes before a copy reads the image.
            VkSubpassDependency(srcSubpass: 0, dstSubpass: subpassExternal,
                                srcStageMask: colorStage, dstStageMask: transferStage,
                                srcAccessMask: mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT),
                                dstAccessMask: mapFlags(VK_ACCESS_TRANSFER_READ_BIT),
                                dependencyFlags: 0),
        ]
        var renderPass: VkRenderPass?
        var result = withUnsafePointer(to: &colorReference) { colorPointer in
            var subpass = VkSubpassDescription()
            subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS
            subpass.colorAttachmentCount = 1
            subpass.pColorAttachments = colorPointer
            return withUnsafePointer(to: &subpass) { subpassPointer in
                withUnsafePointer(to: &attachment) { attachmentPointer in
                    dependencies.withUnsafeBufferPointer { dependencyPointer in
                        var info = VkRenderPassCreateInfo()
                        info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO
                        info.attachmentCount = 1
                        info.pAttachments = attachmentPointer
                        info.subpassCount = 1
                        info.pSubpasses = subpassPointer
                        info.dependencyCount = UInt32(dependencies.count)
                        info.pDependencies = dependencyPointer.baseAddress
                        return vkCreateRenderPass(device.raw, &info, nil, &renderPass)
                    }
                }
            }
        }
        guard result == VK_SUCCESS, let renderPass else { throw fail(.vulkan(VulkanError(result), call: "vkCreateRenderPass")) }
        undo.append { vkDestroyRenderPass(device.raw, renderPass, nil) }

        // No descriptors, no push constants: everything arrives as instance attributes.
        var layoutInfo = VkPipelineLayoutCreateInfo()
        layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
        var layout: VkPipelineLayout?
        result = vkCreatePipelineLayout(device.raw, &layoutInfo, nil, &layout)
        guard result == VK_SUCCESS, let layout else { throw fail(.vulkan(VulkanError(result), call: "vkCreatePipelineLayout")) }
        undo.append { vkDestroyPipelineLayout(device.raw, layout, nil) }

        let vertex: VkShaderModule, fragment: VkShaderModule
        do {
            vertex = try Self.shaderModule(device: device, code: Shaders.rectVert)
            undo.append { vkDestroyShaderModule(device.raw, vertex, nil) }
            fragment = try Self.shaderModule(device: device, code: Shaders.rectFrag)
            undo.append { vkDestroyShaderModule(device.raw, fragment, nil) }
        } catch { throw fail(error) }

        var pipeline: VkPipeline?
        result = Self.createRectPipeline(device: device, layout: layout, renderPass: renderPass,
                                         vertex: vertex, fragment: fragment, pipeline: &pipeline)
        vkDestroyShaderModule(device.raw, vertex, nil)
        vkDestroyShaderModule(device.raw, fragment, nil)
        undo.removeLast(2)
        guard result == VK_SUCCESS, let pipeline else {
            throw fail(.vulkan(VulkanError(result), call: "vkCreateGraphicsPipelines"))
        }
        self.renderPass = renderPass
        self.layout = layout
        self.rect = pipeline
        device.track(3)
    }

    func destroy(_ device: VulkanDevice) {
        vkDestroyPipeline(device.raw, rect, nil)
        vkDestroyPipelineLayout(device.raw, layout, nil)
        vkDestroyRenderPass(device.raw, renderPass, nil)
        device.track(-3)
    }

    /// Wraps `vkCreateShaderModule`.
    private static func shaderModule(device: VulkanDevice, code: [UInt32]) throws(RenderError) -> VkShaderModule {
        var module: VkShaderModule?
        let result = code.withUnsafeBufferPointer { words in
            var info = VkShaderModuleCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            info.codeSize = words.count * 4
            info.pCode = words.baseAddress
            return vkCreateShaderModule(device.raw, &info, nil, &module)
        }
        guard result == VK_SUCCESS, let module else { throw .vulkan(VulkanError(result), call: "vkCreateShaderModule") }
        return module
    }

    /// The vertex attributes of `RectInstance`: binding 0, per instance, one vec4 per field.
    static var rectAttributes: [VkVertexInputAttributeDescription] {
        RectInstance.fields.map { field in
            VkVertexInputAttributeDescription(
                location: field.location, binding: 0, format: VK_FORMAT_R32G32B32A32_SFLOAT,
                offset: UInt32(MemoryLayout<RectInstance>.offset(of: field.keyPath)!))
        }
    }

    private static func createRectPipeline(
        device: VulkanDevice, layout: VkPipelineLayout, renderPass: VkRenderPass,
        vertex: VkShaderModule, fragment: VkShaderModule, pipeline: inout VkPipeline?
    ) -> VkResult {
        var binding = VkVertexInputBindingDescription(
            binding: 0, stride: UInt32(MemoryLayout<RectInstance>.stride), inputRate: VK_VERTEX_INPUT_RATE_INSTANCE)
        let attributes = rectAttributes
        var inputAssembly = VkPipelineInputAssemblyStateCreateInfo()
        inputAssembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO
        inputAssembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP
        var viewport = VkPipelineViewportStateCreateInfo()
        viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO
        viewport.viewportCount = 1
        viewport.scissorCount = 1
        var raster = VkPipelineRasterizationStateCreateInfo()
        raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO
        raster.polygonMode = VK_POLYGON_MODE_FILL
        raster.cullMode = mapFlags(VK_CULL_MODE_NONE)  // transforms may mirror a layer
        raster.frontFace = VK_FRONT_FACE_CLOCKWISE
        raster.lineWidth = 1
        var multisample = VkPipelineMultisampleStateCreateInfo()
        multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO
        multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT
        // Premultiplied "over" in sRGB-encoded space.
        var blendAttachment = VkPipelineColorBlendAttachmentState()
        blendAttachment.blendEnable = VkBool32(VK_TRUE)
        blendAttachment.srcColorBlendFactor = VK_BLEND_FACTOR_ONE
        blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA
        blendAttachment.colorBlendOp = VK_BLEND_OP_ADD
        blendAttachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE
        blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA
        blendAttachment.alphaBlendOp = VK_BLEND_OP_ADD
        blendAttachment.colorWriteMask = mapFlags(
            VK_COLOR_COMPONENT_R_BIT, VK_COLOR_COMPONENT_G_BIT, VK_COLOR_COMPONENT_B_BIT, VK_COLOR_COMPONENT_A_BIT)
        let dynamicStates = [VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR]

        return "main".withCString { entry in
            let stages: [VkPipelineShaderStageCreateInfo] = [
                VkPipelineShaderStageCreateInfo(
                    sType: VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, pNext: nil, flags: 0,
                    stage: VK_SHADER_STAGE_VERTEX_BIT, module: vertex, pName: entry, pSpecializationInfo: nil),
                VkPipelineShaderStageCreateInfo(
                    sType: VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, pNext: nil, flags: 0,
                    stage: VK_SHADER_STAGE_FRAGMENT_BIT, module: fragment, pName: entry, pSpecializationInfo: nil),
            ]
            return stages.withUnsafeBufferPointer { stagesPointer in
            attributes.withUnsafeBufferPointer { attributesPointer in
            dynamicStates.withUnsafeBufferPointer { dynamicPointer in
            withUnsafePointer(to: &binding) { bindingPointer in
            withUnsafePointer(to: &blendAttachment) { blendPointer in
                var vertexInput = VkPipelineVertexInputStateCreateInfo()
                vertexInput.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO
                vertexInput.vertexBindingDescriptionCount = 1
                vertexInput.pVertexBindingDescriptions = bindingPointer
                vertexInput.vertexAttributeDescriptionCount = UInt32(attributes.count)
                vertexInput.pVertexAttributeDescriptions = attributesPointer.baseAddress
                var blend = VkPipelineColorBlendStateCreateInfo()
                blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO
                blend.attachmentCount = 1
                blend.pAttachments = blendPointer
                var dynamic = VkPipelineDynamicStateCreateInfo()
                dynamic.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO
                dynamic.dynamicStateCount = UInt32(dynamicStates.count)
                dynamic.pDynamicStates = dynamicPointer.baseAddress
                return withUnsafePointer(to: &vertexInput) { vertexInputPointer in
                withUnsafePointer(to: &inputAssembly) { inputAssemblyPointer in
                withUnsafePointer(to: &viewport) { viewportPointer in
                withUnsafePointer(to: &raster) { rasterPointer in
                withUnsafePointer(to: &multisample) { multisamplePointer in
                withUnsafePointer(to: &blend) { blendStatePointer in
                withUnsafePointer(to: &dynamic) { dynamicStatePointer in
                    var info = VkGraphicsPipelineCreateInfo()
                    info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO
                    info.stageCount = UInt32(stages.count)
                    info.pStages = stagesPointer.baseAddress
                    info.pVertexInputState = vertexInputPointer
                    info.pInputAssemblyState = inputAssemblyPointer
                    info.pViewportState = viewportPointer
                    info.pRasterizationState = rasterPointer
                    info.pMultisampleState = multisamplePointer
                    info.pColorBlendState = blendStatePointer
                    info.pDynamicState = dynamicStatePointer
                    info.layout = layout
                    info.renderPass = renderPass
                    info.subpass = 0
                    return vkCreateGraphicsPipelines(device.raw, nil, 1, &info, nil, &pipeline)
                }}}}}}}
            }}}}}
        }
    }
}
