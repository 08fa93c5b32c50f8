// Just over ~500 lines: the render pass, every pipeline layout and the pipeline variants are
// created together so the compatibility rules between layouts (set 0 shared) stay visible in one
// place.
import CVulkan
#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import LaminaGeometry

/// The render pass for the offscreen target (color + stencil) and the pipelines, created once:
/// one per `PipelineVariant` — analytic items by kind (instanced strips) and meshes (stencil
/// "each pixel once": NOT_EQUAL ref, REPLACE, with a reference per mesh set while recording),
/// each with and without clips — and `composite` (group opacity). Wraps `vkCreateRenderPass`, `vkCreatePipelineLayout`, `vkCreateGraphicsPipelines`.
/// Render thread only.
final class VulkanPipeline {
    let renderPass: VkRenderPass
    /// The layout of the rect and mesh pipelines: set 0 = the frame's clip buffer.
    let layout: VkPipelineLayout
    /// Set 0 of `layout`: binding 0, the frame's `ClipRecord`s (storage buffer, fragment stage).
    let clipSetLayout: VkDescriptorSetLayout
    /// By `PipelineVariant.index`: a pipeline per kind and clipping, specialized so that no
    /// pixel pays for another kind's code (llvmpipe runs every branch of a shader masked, but
    /// compiles each pipeline with its specialization constants folded).
    private let variants: [VkPipeline]
    /// Seconds spent creating the variant pipelines: the source-over ones, and the additive
    /// ones (`PipelineVariant.additive`: an additive emitter's particles) — start-up cost,
    /// reported by `lamina-bench emitters --startup`.
    let variantSeconds: (plain: Double, additive: Double)
    /// Group opacity: the pass that renders a group offscreen (same attachments, so the same
    /// pipelines; it leaves the image ready to be sampled), and the composite pipeline that
    /// draws it over its parent with the group's opacity.
    let groupRenderPass: VkRenderPass
    /// The main render pass over a target that holds the previous frame (compatible with
    /// `renderPass`): the color image starts as that pass leaves it, and only the render area
    /// (the frame's damage) is cleared and drawn; the rest keeps its pixels.
    let retainedRenderPass: VkRenderPass
    /// A raster atlas page's pass (LaminaFrame's raster cache): as `groupRenderPass`, but the
    /// page stays sampled between frames (initial layout shader-read), so the clear of the
    /// pass's area (a region) keeps the rest of the page.
    let atlasRenderPass: VkRenderPass
    /// A pass that goes on drawing into a target an earlier pass was cut from
    /// (`FramePass.loads`: background filters copied part of it out): the color image is loaded,
    /// not cleared. For the frame's image (from the transfer-source layout the main pass and the
    /// copy leave it in, and leaving it so) and for an offscreen image (sampled before and after,
    /// as a group's pass leaves it).
    let continueRenderPass: VkRenderPass
    let groupContinueRenderPass: VkRenderPass
    /// `groupRenderPass` and `atlasRenderPass` with nothing cleared (color and stencil load ops
    /// don't-care; compatible with them: the same framebuffers and pipelines): the recorder
    /// clears what will be read by drawing `clear` (`PassRecorder`, "Clears"). Outside the
    /// render area (the rest of an atlas page) every pixel is kept.
    let groupUnclearedRenderPass: VkRenderPass
    let atlasUnclearedRenderPass: VkRenderPass
    /// Each pass above that clears the stencil, to its twin that leaves it undefined (stencil
    /// load op don't-care; otherwise the same, so compatible: the same framebuffers and
    /// pipelines): for passes that draw no mesh, the only stencil test, so that lavapipe does
    /// not clear a stencil nothing reads (`stencilUncleared(_:)`).
    private let stencilUnclearedTwins: [VkRenderPass: VkRenderPass]
    /// The drawn clear: a full-target triangle (`composite.vert`, `clear.frag`) writing
    /// transparent black without blending and stencil 0 wherever the scissor lets it, with
    /// `compositeLayout` (no set bound, no push constants).
    let clear: VkPipeline
    let compositeSetLayout: VkDescriptorSetLayout
    let compositeLayout: VkPipelineLayout
    let composite: VkPipeline
    /// A mask's step (CALayer.mask): the target multiplied by a sampled image's alpha
    /// (destination-in), with `compositeLayout`.
    let mask: VkPipeline
    /// A blend group's step (CALayer.compositingFilter): sets 0 and 1 the group's image and its
    /// backdrop (each as the composite's set 0), push constants opacity and mode; no blending.
    let blend: VkPipeline
    let blendLayout: VkPipelineLayout
    /// A filter group's color filter (CALayer.filters): `composite.frag` COLOR_MATRIX; set 0 the
    /// image (as the composite's), 96 bytes of push constants (opacity, the matrix's rows,
    /// its offsets); blended source-over as the composite.
    let colorMatrix: VkPipeline
    let filterLayout: VkPipelineLayout
    /// A filter's Gaussian blur: the blur pipeline with `shadow.frag` COLOR (all four channels).
    let blurColor: VkPipeline
    /// One pass of a blurred shadow's separable Gaussian (`shadow.vert|frag`, an instanced
    /// quad): `blurLayout` has set 0 = the clip buffer (as `layout`), set 1 = the source group
    /// image (as the composite's set 0), and 48 bytes of push constants (direction, sigma,
    /// radius, the source's valid area, the read scale of a half-size blur's resampling).
    let blur: VkPipeline
    let blurLayout: VkPipelineLayout
    /// Background filters' last step (`shadow.vert`, `shadow.frag` COLOR BACKDROP, no
    /// blending: it writes the mix of the backdrop and the filtered image): `backdropLayout`
    /// has set 0 = the clips, set 1 = the filtered image, set 2 = the backdrop, and the blur's
    /// 48 bytes of push constants.
    let backdrop: VkPipeline
    let backdropLayout: VkPipelineLayout
    /// The image variants' layout (`PipelineVariant` kind `.image`): set 0 the clips (as
    /// `layout`, so a bound clip set stays valid), set 1 the image with its sampler.
    let imageLayout: VkPipelineLayout
    /// Linear: the shadow blur fetches two taps at once between texels; the composite reads
    /// with texelFetch, which no filter affects.
    let sampler: VkSampler

    /// The pipeline that draws `variant`. Without the additive variants (`init(…additive:
    /// false)`, for start-up measurements only) an additive variant gets its source-over one.
    func pipeline(_ variant: PipelineVariant) -> VkPipeline {
        if variant.additive, variant.index >= variants.count {
            return variants[PipelineVariant(kind: variant.kind, clipped: variant.clipped).index]
        }
        return variants[variant.index]
    }

    static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// Which pipeline `createPipeline` builds.
    private enum Kind { case rect, mesh, composite, mask, blend, backdrop, clear }

    /// A descriptor set layout of one descriptor of `type` at binding 0, for `stages` (the
    /// fragment stage; the clip buffer's, the vertex stage too: CLIP_VARYINGS in the shaders).
    private static func makeSetLayout(_ device: VulkanDevice, _ type: VkDescriptorType,
                                      stages: UInt32 = mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT)) throws(RenderError)
        -> VkDescriptorSetLayout {
        var binding = VkDescriptorSetLayoutBinding()
        binding.binding = 0
        binding.descriptorType = type
        binding.descriptorCount = 1
        binding.stageFlags = stages
        var setLayout: VkDescriptorSetLayout?
        let result = withUnsafePointer(to: &binding) { bindingPointer in
            var info = VkDescriptorSetLayoutCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
            info.bindingCount = 1
            info.pBindings = bindingPointer
            return vkCreateDescriptorSetLayout(device.raw, &info, nil, &setLayout)
        }
        guard result == VK_SUCCESS, let setLayout else {
            throw .vulkan(VulkanError(result), call: "vkCreateDescriptorSetLayout")
        }
        return setLayout
    }

    /// A pipeline layout of `setLayouts` (sets 0, 1, …) and, when `pushConstantBytes` > 0, one
    /// fragment-stage push constant range of that size.
    private static func makePipelineLayout(_ device: VulkanDevice, _ setLayouts: [VkDescriptorSetLayout],
                                           pushConstantBytes: UInt32 = 0) throws(RenderError) -> VkPipelineLayout {
        var range = VkPushConstantRange(stageFlags: mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT), offset: 0,
                                        size: pushConstantBytes)
        var layout: VkPipelineLayout?
        let result = setLayouts.map(Optional.some).withUnsafeBufferPointer { setLayoutsPointer in
            withUnsafePointer(to: &range) { rangePointer in
                var info = VkPipelineLayoutCreateInfo()
                info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
                info.setLayoutCount = UInt32(setLayouts.count)
                info.pSetLayouts = setLayoutsPointer.baseAddress
                info.pushConstantRangeCount = pushConstantBytes > 0 ? 1 : 0
                info.pPushConstantRanges = pushConstantBytes > 0 ? rangePointer : nil
                return vkCreatePipelineLayout(device.raw, &info, nil, &layout)
            }
        }
        guard result == VK_SUCCESS, let layout else { throw .vulkan(VulkanError(result), call: "vkCreatePipelineLayout") }
        return layout
    }

    /// A variant's shaders and the `RectInstance` locations its vertex shader reads: its row
    /// of the pipeline table (`shaders/variants.list`). One module serves the kinds that share
    /// an interface; the specialization constants (`ShaderTable.specialization`) pick each
    /// one's code.
    static func shaders(_ variant: PipelineVariant)
        -> (vertex: [UInt32], fragment: [UInt32], instanceLocations: Set<UInt32>) {
        let row = ShaderTable.row(variant)
        return (row.vertex, row.fragment, row.instanceLocations)
    }

    /// `additive` false leaves out the additive variants (8 pipelines; `lamina-bench emitters
    /// --startup`, with `LAMINA_BENCH_NO_ADDITIVE_PIPELINES=1`, measures what they cost).
    init(device: VulkanDevice, format: VkFormat, stencilFormat: VkFormat, additive: Bool = true) throws(RenderError) {
        var undo: [() -> Void] = []
        func fail(_ error: RenderError) -> RenderError { undo.reversed().forEach { $0() }; return error }

        /// One render pass (`makeRenderPass`'s options), destroyed again if a later step fails.
        func makePass(group: Bool, retained: Bool = false, keepsSampled: Bool = false, loads: Bool = false,
                      uncleared: Bool = false, clearsStencil: Bool = true) throws(RenderError) -> VkRenderPass {
            var made: VkRenderPass?
            let result = Self.makeRenderPass(device: device, format: format, stencilFormat: stencilFormat, group: group,
                                             retained: retained, keepsSampled: keepsSampled, loads: loads,
                                             uncleared: uncleared, clearsStencil: clearsStencil, renderPass: &made)
            guard result == VK_SUCCESS, let made else { throw fail(.vulkan(VulkanError(result), call: "vkCreateRenderPass")) }
            undo.append { vkDestroyRenderPass(device.raw, made, nil) }
            return made
        }
        /// A pass that clears the stencil, made with its twin that leaves it undefined.
        var stencilUnclearedTwins: [VkRenderPass: VkRenderPass] = [:]
        func makeTwinned(group: Bool, retained: Bool = false, keepsSampled: Bool = false,
                         loads: Bool = false) throws(RenderError) -> VkRenderPass {
            let pass = try makePass(group: group, retained: retained, keepsSampled: keepsSampled, loads: loads)
            stencilUnclearedTwins[pass] = try makePass(group: group, retained: retained, keepsSampled: keepsSampled,
                                                       loads: loads, clearsStencil: false)
            return pass
        }
        let renderPass = try makeTwinned(group: false)
        let groupRenderPass = try makeTwinned(group: true)
        let retainedRenderPass = try makeTwinned(group: false, retained: true)
        let atlasRenderPass = try makeTwinned(group: true, keepsSampled: true)
        let continueRenderPass = try makeTwinned(group: false, retained: true, loads: true)
        let groupContinueRenderPass = try makeTwinned(group: true, keepsSampled: true, loads: true)
        let groupUnclearedRenderPass = try makePass(group: true, uncleared: true)
        let atlasUnclearedRenderPass = try makePass(group: true, keepsSampled: true, uncleared: true)

        // Group composite: one combined image sampler (the group's image), opacity as a push constant.
        let setLayout: VkDescriptorSetLayout
        do { setLayout = try Self.makeSetLayout(device, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) } catch { throw fail(error) }
        undo.append { vkDestroyDescriptorSetLayout(device.raw, setLayout, nil) }
        let compositeLayout: VkPipelineLayout
        do { compositeLayout = try Self.makePipelineLayout(device, [setLayout], pushConstantBytes: 16) } catch { throw fail(error) }
        undo.append { vkDestroyPipelineLayout(device.raw, compositeLayout, nil) }
        let blendPipelineLayout: VkPipelineLayout
        do { blendPipelineLayout = try Self.makePipelineLayout(device, [setLayout, setLayout], pushConstantBytes: 16) } catch {
            throw fail(error)
        }
        undo.append { vkDestroyPipelineLayout(device.raw, blendPipelineLayout, nil) }
        let filterPipelineLayout: VkPipelineLayout
        do { filterPipelineLayout = try Self.makePipelineLayout(device, [setLayout], pushConstantBytes: 96) } catch {
            throw fail(error)
        }
        undo.append { vkDestroyPipelineLayout(device.raw, filterPipelineLayout, nil) }
        var samplerInfo = VkSamplerCreateInfo()
        samplerInfo.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO
        samplerInfo.magFilter = VK_FILTER_LINEAR
        samplerInfo.minFilter = VK_FILTER_LINEAR
        samplerInfo.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        samplerInfo.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        samplerInfo.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
        var sampler: VkSampler?
        let result = vkCreateSampler(device.raw, &samplerInfo, nil, &sampler)
        guard result == VK_SUCCESS, let sampler else { throw fail(.vulkan(VulkanError(result), call: "vkCreateSampler")) }
        undo.append { vkDestroySampler(device.raw, sampler, nil) }

        // Items arrive as instance attributes; the one descriptor is the frame's clip buffer,
        // which items index (any nesting depth without growing the instance).
        let clipSetLayout: VkDescriptorSetLayout
        do { clipSetLayout = try Self.makeSetLayout(device, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                    stages: mapFlags(VK_SHADER_STAGE_FRAGMENT_BIT, VK_SHADER_STAGE_VERTEX_BIT)) } catch { throw fail(error) }
        undo.append { vkDestroyDescriptorSetLayout(device.raw, clipSetLayout, nil) }
        let layout: VkPipelineLayout
        // Set 1: the mesh arena (the same layout: one fragment-stage storage buffer).
        do { layout = try Self.makePipelineLayout(device, [clipSetLayout, clipSetLayout]) } catch { throw fail(error) }
        undo.append { vkDestroyPipelineLayout(device.raw, layout, nil) }
        // The shadow blur: the clips (set 0) and the source image (set 1), 48 bytes of push constants.
        let blurLayout: VkPipelineLayout
        do { blurLayout = try Self.makePipelineLayout(device, [clipSetLayout, setLayout], pushConstantBytes: 48) } catch {
            throw fail(error)
        }
        undo.append { vkDestroyPipelineLayout(device.raw, blurLayout, nil) }
        let backdropLayout: VkPipelineLayout
        do { backdropLayout = try Self.makePipelineLayout(device, [clipSetLayout, setLayout, setLayout], pushConstantBytes: 48) } catch {
            throw fail(error)
        }
        undo.append { vkDestroyPipelineLayout(device.raw, backdropLayout, nil) }
        let imageLayout: VkPipelineLayout
        do { imageLayout = try Self.makePipelineLayout(device, [clipSetLayout, setLayout]) } catch { throw fail(error) }
        undo.append { vkDestroyPipelineLayout(device.raw, imageLayout, nil) }

        // Shader modules are needed only while the pipelines are created.
        var modules: [[UInt32]: VkShaderModule] = [:]
        func module(_ code: [UInt32]) throws(RenderError) -> VkShaderModule {
            if let module = modules[code] { return module }
            let module = try Self.shaderModule(device: device, code: code)
            modules[code] = module
            return module
        }
        defer { for module in modules.values { vkDestroyShaderModule(device.raw, module, nil) } }
        var variants: [VkPipeline] = []
        var plainSeconds = 0.0, additiveSeconds = 0.0
        var composite: VkPipeline?
        var mask: VkPipeline?
        var clearPipeline: VkPipeline?
        var blendPipeline: VkPipeline?
        var colorMatrixPipeline: VkPipeline?
        var blurColorPipeline: VkPipeline?
        var blur: VkPipeline?
        var backdropPipeline: VkPipeline?
        do throws(RenderError) {
            /// One pipeline made, checked, and queued for destruction should a later one fail.
            func make(_ kind: Kind, _ layout: VkPipelineLayout, _ vertex: [UInt32], _ fragment: [UInt32],
                      specialization: [UInt32] = [], locations: Set<UInt32> = [], stride: Int = 0,
                      additive: Bool = false) throws(RenderError) -> VkPipeline {
                var pipeline: VkPipeline?
                let result = Self.createPipeline(kind, device: device, layout: layout, renderPass: renderPass,
                                                 vertex: try module(vertex), fragment: try module(fragment),
                                                 specialization: specialization, instanceLocations: locations,
                                                 instanceStride: stride, additive: additive, pipeline: &pipeline)
                guard result == VK_SUCCESS, let pipeline else { throw .vulkan(VulkanError(result), call: "vkCreateGraphicsPipelines") }
                undo.append { vkDestroyPipeline(device.raw, pipeline, nil) }
                return pipeline
            }
            for variant in PipelineVariant.all where additive || !variant.additive {
                let started = Self.monotonicSeconds()
                defer {
                    if variant.additive { additiveSeconds += Self.monotonicSeconds() - started } else {
                        plainSeconds += Self.monotonicSeconds() - started
                    }
                }
                let (vertex, fragment, locations) = Self.shaders(variant)
                let kind: Kind = variant.kind == .mesh ? .mesh : .rect
                // Set 1 an image.
                let sampled = variant.kind.samplesImage
                variants.append(try make(kind, sampled ? imageLayout : layout, vertex, fragment,
                                         specialization: ShaderTable.specialization(variant), locations: locations,
                                         stride: Self.instanceStride(variant), additive: variant.additive))
            }
            composite = try make(.composite, compositeLayout, Shaders.compositeVert, Shaders.compositeFrag)
            mask = try make(.mask, compositeLayout, Shaders.compositeVert, Shaders.maskFrag)
            clearPipeline = try make(.clear, compositeLayout, Shaders.compositeVert, Shaders.clearFrag)
            blendPipeline = try make(.blend, blendPipelineLayout, Shaders.compositeVert, Shaders.blendFrag)
            // The blur passes draw one sharp-rect quad (its stride) over the box.
            let sharp = RectInstance.stride(.sharp)
            blur = try make(.rect, blurLayout, Shaders.shadowVert, Shaders.shadowFrag,
                            locations: Self.blurInstanceLocations, stride: sharp)
            colorMatrixPipeline = try make(.composite, filterPipelineLayout, Shaders.compositeVert, Shaders.colorMatrixFrag)
            blurColorPipeline = try make(.rect, blurLayout, Shaders.shadowVert, Shaders.blurColorFrag,
                                         locations: Self.blurInstanceLocations, stride: sharp)
            backdropPipeline = try make(.backdrop, backdropLayout, Shaders.shadowVert, Shaders.backdropFrag,
                                        locations: Self.blurInstanceLocations, stride: sharp)
        } catch {
            throw fail(error)
        }
        self.renderPass = renderPass
        self.layout = layout
        self.clipSetLayout = clipSetLayout
        self.variants = variants
        variantSeconds = (plainSeconds, additiveSeconds)
        guard let composite else { preconditionFailure("the composite pipeline was created above") }
        self.composite = composite
        guard let mask else { preconditionFailure("the mask pipeline was created above") }
        self.mask = mask
        guard let clearPipeline else { preconditionFailure("the clear pipeline was created above") }
        self.clear = clearPipeline
        guard let blendPipeline else { preconditionFailure("the blend pipeline was created above") }
        self.blend = blendPipeline
        self.blendLayout = blendPipelineLayout
        guard let colorMatrixPipeline, let blurColorPipeline else { preconditionFailure("the filter pipelines were created above") }
        self.colorMatrix = colorMatrixPipeline
        self.filterLayout = filterPipelineLayout
        self.blurColor = blurColorPipeline
        guard let blur else { preconditionFailure("the blur pipeline was created above") }
        self.blur = blur
        self.blurLayout = blurLayout
        guard let backdropPipeline else { preconditionFailure("the backdrop pipeline was created above") }
        self.backdrop = backdropPipeline
        self.backdropLayout = backdropLayout
        self.imageLayout = imageLayout
        self.groupRenderPass = groupRenderPass
        self.retainedRenderPass = retainedRenderPass
        self.atlasRenderPass = atlasRenderPass
        self.continueRenderPass = continueRenderPass
        self.groupContinueRenderPass = groupContinueRenderPass
        self.compositeSetLayout = setLayout
        self.compositeLayout = compositeLayout
        self.sampler = sampler
        self.groupUnclearedRenderPass = groupUnclearedRenderPass
        self.atlasUnclearedRenderPass = atlasUnclearedRenderPass
        self.stencilUnclearedTwins = stencilUnclearedTwins
        for twin in stencilUnclearedTwins.values { device.track(twin) }
        device.track(retainedRenderPass, atlasRenderPass, continueRenderPass, groupContinueRenderPass)
        device.track(groupUnclearedRenderPass, atlasUnclearedRenderPass, clearPipeline)
        device.track(renderPass, groupRenderPass, layout, clipSetLayout, setLayout, compositeLayout, composite, blur,
                     blurLayout, sampler, imageLayout)
        device.track(mask, blendPipeline, blendPipelineLayout)
        device.track(colorMatrixPipeline, filterPipelineLayout, blurColorPipeline)
        device.track(backdropPipeline, backdropLayout)
        for variant in variants { device.track(variant) }
    }

    func destroy(_ device: VulkanDevice) {
        for pipeline in variants { vkDestroyPipeline(device.raw, pipeline, nil) }
        vkDestroyPipeline(device.raw, composite, nil)
        vkDestroyPipeline(device.raw, mask, nil)
        vkDestroyPipeline(device.raw, clear, nil)
        vkDestroyRenderPass(device.raw, groupUnclearedRenderPass, nil)
        vkDestroyRenderPass(device.raw, atlasUnclearedRenderPass, nil)
        device.untrack(groupUnclearedRenderPass, atlasUnclearedRenderPass, clear)
        for twin in stencilUnclearedTwins.values {
            vkDestroyRenderPass(device.raw, twin, nil)
            device.untrack(twin)
        }
        vkDestroyPipeline(device.raw, blend, nil)
        vkDestroyPipelineLayout(device.raw, blendLayout, nil)
        device.untrack(mask, blend, blendLayout)
        vkDestroyPipeline(device.raw, colorMatrix, nil)
        vkDestroyPipelineLayout(device.raw, filterLayout, nil)
        vkDestroyPipeline(device.raw, blurColor, nil)
        device.untrack(colorMatrix, filterLayout, blurColor)
        vkDestroyPipeline(device.raw, backdrop, nil)
        vkDestroyPipelineLayout(device.raw, backdropLayout, nil)
        device.untrack(backdrop, backdropLayout)
        vkDestroyPipeline(device.raw, blur, nil)
        vkDestroyPipelineLayout(device.raw, blurLayout, nil)
        vkDestroyPipelineLayout(device.raw, imageLayout, nil)
        vkDestroySampler(device.raw, sampler, nil)
        vkDestroyPipelineLayout(device.raw, compositeLayout, nil)
        vkDestroyDescriptorSetLayout(device.raw, compositeSetLayout, nil)
        vkDestroyPipelineLayout(device.raw, layout, nil)
        vkDestroyDescriptorSetLayout(device.raw, clipSetLayout, nil)
        vkDestroyRenderPass(device.raw, groupRenderPass, nil)
        vkDestroyRenderPass(device.raw, retainedRenderPass, nil)
        vkDestroyRenderPass(device.raw, atlasRenderPass, nil)
        vkDestroyRenderPass(device.raw, continueRenderPass, nil)
        vkDestroyRenderPass(device.raw, groupContinueRenderPass, nil)
        device.untrack(retainedRenderPass, atlasRenderPass, continueRenderPass, groupContinueRenderPass)
        vkDestroyRenderPass(device.raw, renderPass, nil)
        device.untrack(renderPass, groupRenderPass, layout, clipSetLayout, compositeSetLayout, compositeLayout, composite,
                       blur, blurLayout, sampler, imageLayout)
        for variant in variants { device.untrack(variant) }
    }

    /// `pass` with the stencil left undefined instead of cleared (its twin), or `pass` itself
    /// where it clears no stencil already (the uncleared passes) or has no twin.
    func stencilUncleared(_ pass: VkRenderPass) -> VkRenderPass { stencilUnclearedTwins[pass] ?? pass }

    /// The render pass: color (cleared, kept) and stencil (cleared, discarded; undefined with
    /// `clearsStencil` false, as with `uncleared`). The main pass
    /// leaves the color image ready to be copied out; a group's pass (`group`) leaves it ready
    /// to be sampled by the composite, and waits for the previous frame's composite to finish
    /// reading it.
    private static func makeRenderPass(device: VulkanDevice, format: VkFormat, stencilFormat: VkFormat, group: Bool,
                                       retained: Bool = false, keepsSampled: Bool = false, loads: Bool = false,
                                       uncleared: Bool = false, clearsStencil: Bool = true,
                                       renderPass: inout VkRenderPass?) -> VkResult {
        var attachment = VkAttachmentDescription()
        attachment.format = format
        attachment.samples = VK_SAMPLE_COUNT_1_BIT
        // `loads`: a pass continuing after a cut keeps what was drawn; `uncleared`: the render
        // area's pixels undefined until drawn (the recorder draws its clears where anything will
        // be read; lavapipe leaves the memory as it was).
        attachment.loadOp = loads ? VK_ATTACHMENT_LOAD_OP_LOAD
            : uncleared ? VK_ATTACHMENT_LOAD_OP_DONT_CARE : VK_ATTACHMENT_LOAD_OP_CLEAR
        attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE
        attachment.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE
        attachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE
        // Retained: the image holds the previous frame, as the main pass left it; the clear
        // (load op) touches only the render area.
        attachment.initialLayout = retained ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
            : keepsSampled ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_UNDEFINED
        attachment.finalLayout = group ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
        var stencilAttachment = VkAttachmentDescription()
        stencilAttachment.format = stencilFormat
        stencilAttachment.samples = VK_SAMPLE_COUNT_1_BIT
        let stencilLoad = uncleared || !clearsStencil ? VK_ATTACHMENT_LOAD_OP_DONT_CARE : VK_ATTACHMENT_LOAD_OP_CLEAR
        stencilAttachment.loadOp = stencilLoad
        stencilAttachment.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE
        stencilAttachment.stencilLoadOp = stencilLoad
        stencilAttachment.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE
        stencilAttachment.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED
        stencilAttachment.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        let attachments = [attachment, stencilAttachment]
        var colorReference = VkAttachmentReference(attachment: 0, layout: VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
        var stencilReference = VkAttachmentReference(attachment: 1, layout: VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
        let colorStage = mapFlags(VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT)
        let testStages = mapFlags(VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT, VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT)
        let transferStage = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT)
        let fragmentStage = mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT)
        let stencilWrite = mapFlags(VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT)
        let colorWrite = mapFlags(VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT)
        let dependencies = [
            // Earlier use of the images (the previous frame's copy out of the target or its
            // composite reading a group image, stencil use, a group pass writing the stencil)
            // finishes before this pass clears them.
            VkSubpassDependency(srcSubpass: subpassExternal, dstSubpass: 0,
                                srcStageMask: transferStage | colorStage | testStages | fragmentStage,
                                dstStageMask: colorStage | testStages,
                                srcAccessMask: colorWrite | stencilWrite,
                                dstAccessMask: colorWrite | stencilWrite | mapFlags(VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT)
                                    | mapFlags(VK_ACCESS_COLOR_ATTACHMENT_READ_BIT),
                                dependencyFlags: 0),
            // This pass's drawing finishes before a copy (main) or a composite (group) reads it.
            // (The same dependencies in both passes keep them compatible, so one set of
            // pipelines draws into either.)
            VkSubpassDependency(srcSubpass: 0, dstSubpass: subpassExternal,
                                srcStageMask: colorStage, dstStageMask: fragmentStage | transferStage,
                                srcAccessMask: colorWrite,
                                dstAccessMask: mapFlags(VK_ACCESS_SHADER_READ_BIT) | mapFlags(VK_ACCESS_TRANSFER_READ_BIT),
                                dependencyFlags: 0),
        ]
        return withUnsafePointer(to: &colorReference) { colorPointer in
            var subpass = VkSubpassDescription()
            subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS
            subpass.colorAttachmentCount = 1
            subpass.pColorAttachments = colorPointer
            return withUnsafePointer(to: &stencilReference) { stencilPointer in
                subpass.pDepthStencilAttachment = stencilPointer
                return withUnsafePointer(to: &subpass) { subpassPointer in
                    attachments.withUnsafeBufferPointer { attachmentPointer in
                        dependencies.withUnsafeBufferPointer { dependencyPointer in
                            var info = VkRenderPassCreateInfo()
                            info.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO
                            info.attachmentCount = 2
                            info.pAttachments = attachmentPointer.baseAddress
                            info.subpassCount = 1
                            info.pSubpasses = subpassPointer
                            info.dependencyCount = UInt32(dependencies.count)
                            info.pDependencies = dependencyPointer.baseAddress
                            return vkCreateRenderPass(device.raw, &info, nil, &renderPass)
                        }
                    }
                }
            }
        }
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

    /// The vertex attributes of `RectInstance`: per instance, one vec4 per field, from `binding`.
    static func rectAttributes(binding: UInt32 = 0) -> [VkVertexInputAttributeDescription] {
        RectInstance.fields.map { field in
            VkVertexInputAttributeDescription(
                location: field.location, binding: binding, format: VK_FORMAT_R32G32B32A32_SFLOAT,
                offset: UInt32(MemoryLayout<RectInstance>.offset(of: field.keyPath)!))
        }
    }

    /// The `RectInstance` fields the clipped mesh vertex module reads (motion, color, params
    /// with the clip; the unclipped one all but params): its row's `instanceLocations`.
    static var meshInstanceLocations: Set<UInt32> {
        ShaderTable.row(PipelineVariant(kind: .mesh, clipped: true)).instanceLocations
    }

    /// Location of the mesh vertex (`MeshVertex`: x, y, coverage, distance) in mesh.vert.
    static let meshVertexLocation: UInt32 = 14

    /// The `RectInstance` fields shadow.vert reads (motion, bounds, color, params): those of a
    /// sharp rect, which its quad's instance is.
    static let blurInstanceLocations: Set<UInt32> = [0, 1, 2, 3, 6, 8]

    /// The instance binding's stride of a variant's pipeline: its kind's bytes in the ring.
    static func instanceStride(_ variant: PipelineVariant) -> Int { RectInstance.stride(variant.kind) }

    private static func createPipeline(
        _ kind: Kind, device: VulkanDevice, layout: VkPipelineLayout, renderPass: VkRenderPass,
        vertex: VkShaderModule, fragment: VkShaderModule, specialization: [UInt32] = [],
        instanceLocations: Set<UInt32>, instanceStride: Int, additive: Bool = false, pipeline: inout VkPipeline?
    ) -> VkResult {
        // The kind's stride in the ring: every location read lies within it (the fields'
        // offsets are the same in every stride); a draw binds the instances at its first one.
        let instanceStride = UInt32(instanceStride)
        let bindings: [VkVertexInputBindingDescription]
        var attributes: [VkVertexInputAttributeDescription]
        if kind == .composite || kind == .mask || kind == .blend || kind == .clear {
            bindings = []
            attributes = []
        } else if kind == .rect || kind == .backdrop {
            // Instances at binding 1 as for meshes, so a pass binds its buffers once.
            bindings = [VkVertexInputBindingDescription(binding: 1, stride: instanceStride,
                                                        inputRate: VK_VERTEX_INPUT_RATE_INSTANCE)]
            // Only what the variant's vertex shader reads (an unread attribute is wasted fetching).
            attributes = rectAttributes(binding: 1).filter { instanceLocations.contains($0.location) }
        } else {
            bindings = [
                VkVertexInputBindingDescription(binding: 0, stride: UInt32(MemoryLayout<MeshVertex>.stride),
                                                inputRate: VK_VERTEX_INPUT_RATE_VERTEX),
                VkVertexInputBindingDescription(binding: 1, stride: instanceStride,
                                                inputRate: VK_VERTEX_INPUT_RATE_INSTANCE),
            ]
            attributes = rectAttributes(binding: 1).filter { instanceLocations.contains($0.location) }
            attributes.append(VkVertexInputAttributeDescription(
                location: meshVertexLocation, binding: 0, format: VK_FORMAT_R32G32B32A32_SFLOAT, offset: 0))
        }
        var inputAssembly = VkPipelineInputAssemblyStateCreateInfo()
        inputAssembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO
        inputAssembly.topology = kind == .rect || kind == .backdrop ? VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST
        var depthStencil = VkPipelineDepthStencilStateCreateInfo()
        depthStencil.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO
        if kind == .mesh {
            // Each pixel once: every mesh has its own stencil reference (dynamic state); the
            // first fragment of the mesh that reaches a pixel draws and writes the reference,
            // later ones of the same mesh fail. No second pass to clear the marks: the
            // recorder clears the stencil only when the 255 references wrap around.
            depthStencil.stencilTestEnable = VkBool32(VK_TRUE)
            let op = VkStencilOpState(
                failOp: VK_STENCIL_OP_KEEP, passOp: VK_STENCIL_OP_REPLACE, depthFailOp: VK_STENCIL_OP_KEEP,
                compareOp: VK_COMPARE_OP_NOT_EQUAL, compareMask: 0xFF, writeMask: 0xFF, reference: 0)
            depthStencil.front = op
            depthStencil.back = op
        } else if kind == .clear {
            // The drawn clear: stencil 0 wherever it draws (as the render pass's clear).
            depthStencil.stencilTestEnable = VkBool32(VK_TRUE)
            let op = VkStencilOpState(
                failOp: VK_STENCIL_OP_REPLACE, passOp: VK_STENCIL_OP_REPLACE, depthFailOp: VK_STENCIL_OP_REPLACE,
                compareOp: VK_COMPARE_OP_ALWAYS, compareMask: 0xFF, writeMask: 0xFF, reference: 0)
            depthStencil.front = op
            depthStencil.back = op
        }
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
        if kind == .blend || kind == .backdrop || kind == .clear { blendAttachment.blendEnable = VkBool32(VK_FALSE) }
        if additive {
            // plusLighter: premultiplied source plus destination, every channel (alpha too),
            // clamped to 1 by the UNORM target (an additive variant, `PipelineVariant.additive`).
            blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_ONE
            blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE
        }
        if kind == .mask {
            // Destination-in: the target times the source's alpha (the shader writes it to
            // every channel).
            blendAttachment.srcColorBlendFactor = VK_BLEND_FACTOR_ZERO
            blendAttachment.dstColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA
            blendAttachment.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO
            blendAttachment.dstAlphaBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA
        }
        blendAttachment.colorWriteMask = mapFlags(
            VK_COLOR_COMPONENT_R_BIT, VK_COLOR_COMPONENT_G_BIT, VK_COLOR_COMPONENT_B_BIT, VK_COLOR_COMPONENT_A_BIT)
        let dynamicStates = kind == .mesh
            ? [VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR, VK_DYNAMIC_STATE_STENCIL_REFERENCE]
            : [VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR]

        // Specialization constant i (4 bytes each) at byte 4i of `specialization`, for both stages.
        let mapEntries = specialization.indices.map {
            VkSpecializationMapEntry(constantID: UInt32($0), offset: UInt32(4 * $0), size: 4)
        }
        return "main".withCString { entry in
        mapEntries.withUnsafeBufferPointer { mapPointer in
        specialization.withUnsafeBytes { specializationData in
            var specializationInfo = VkSpecializationInfo(
                mapEntryCount: UInt32(mapEntries.count), pMapEntries: mapPointer.baseAddress,
                dataSize: specializationData.count, pData: specializationData.baseAddress)
            return withUnsafePointer(to: &specializationInfo) { specializationPointer in
            let info = specialization.isEmpty ? nil : specializationPointer
            let stages: [VkPipelineShaderStageCreateInfo] = [
                VkPipelineShaderStageCreateInfo(
                    sType: VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, pNext: nil, flags: 0,
                    stage: VK_SHADER_STAGE_VERTEX_BIT, module: vertex, pName: entry, pSpecializationInfo: info),
                VkPipelineShaderStageCreateInfo(
                    sType: VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, pNext: nil, flags: 0,
                    stage: VK_SHADER_STAGE_FRAGMENT_BIT, module: fragment, pName: entry, pSpecializationInfo: info),
            ]
            return stages.withUnsafeBufferPointer { stagesPointer in
            attributes.withUnsafeBufferPointer { attributesPointer in
            dynamicStates.withUnsafeBufferPointer { dynamicPointer in
            bindings.withUnsafeBufferPointer { bindingPointer in
            withUnsafePointer(to: &blendAttachment) { blendPointer in
                var vertexInput = VkPipelineVertexInputStateCreateInfo()
                vertexInput.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO
                vertexInput.vertexBindingDescriptionCount = UInt32(bindings.count)
                vertexInput.pVertexBindingDescriptions = bindingPointer.baseAddress
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
                withUnsafePointer(to: &depthStencil) { depthStencilPointer in
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
                    info.pDepthStencilState = depthStencilPointer
                    info.layout = layout
                    info.renderPass = renderPass
                    info.subpass = 0
                    return vkCreateGraphicsPipelines(device.raw, nil, 1, &info, nil, &pipeline)
                }}}}}}}}
            }}}}}
            }
        }}}
    }
}
