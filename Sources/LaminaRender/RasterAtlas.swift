import CVulkan
import LaminaFrame
import LaminaImage

/// The GPU side of the raster cache (LaminaFrame's `RasterCache`, CALayer.shouldRasterize):
/// one image per atlas page a draw list names (`DrawList.rasterAtlas`, by its placeholder
/// image's id), the target's size, with a stencil and the atlas render pass' framebuffer, and
/// the set the image pipeline samples it through; and what each page holds — which drawing
/// version (`RasterDraw.version`) in which region — so that an `.atlas` pass whose version its
/// region already holds is left out. Pages no list has named for `idleFrames` frames are freed
/// through the `LifetimeTracker`. Render thread only.
final class RasterAtlas {
    final class Page {
        let image: VulkanImage
        let set: VkDescriptorSet
        /// Stands for the page in the encoder's image draws (which mark a texture used): a 1 × 1
        /// texture, never uploaded nor sampled.
        let token: TextureImage
        /// Whether its layout has left UNDEFINED (a barrier recorded before its first pass).
        var initialized = false
        /// The drawings it holds: version and region (regions never overlap).
        var holds: [(version: UInt64, region: PixelRect)] = []
        var lastFrame: UInt64 = 0

        init(image: VulkanImage, set: VkDescriptorSet, token: TextureImage) {
            self.image = image; self.set = set; self.token = token
        }
    }

    /// Frames a page may go unnamed before it is freed.
    static let idleFrames: UInt64 = 30
    /// Pages at most (`RasterCache.maxPages`); the descriptor pool has room for twice as many sets.
    static let maxPages = RasterCacheLimits.maxPages

    private(set) var pages: [UInt64: Page] = [:]
    /// Bumped when a page is made or freed, or a recording draws into a page (a recorded frame
    /// that left a pass out is reused only while this stays the same).
    private(set) var changes: UInt64 = 0
    /// `.atlas` passes drawn and left out so far (tests, stats).
    private(set) var passesDrawn = 0
    private(set) var passesSkipped = 0
    /// Offscreen passes left out because only held atlas passes read them (`passesToSkip`).
    private(set) var groupPassesSkipped = 0
    /// The pages of the list being drawn, by `RasterDraw.page`.
    private var current: [Page] = []
    private var currentIDs: [UInt64] = []

    /// Makes the pages `state` names exist at its size (a page of another size is replaced).
    func prepare(_ state: RasterAtlasState?, frame: UInt64, device: VulkanDevice, pipeline: VulkanPipeline,
                 pool: VkDescriptorPool, lifetimes: LifetimeTracker) throws(RenderError) {
        current.removeAll(keepingCapacity: true)
        currentIDs.removeAll(keepingCapacity: true)
        guard let state, state.width > 0, state.height > 0 else { return }
        for placeholder in state.pages {
            let id = placeholder.id
            if let page = pages[id], page.image.width == state.width, page.image.height == state.height {
                page.lastFrame = frame
                current.append(page)
                currentIDs.append(id)
                continue
            }
            if let old = pages.removeValue(forKey: id) { retire(old, lifetimes) }
            guard pages.count < Self.maxPages else { break }
            let image = try VulkanImage(device: device, width: state.width, height: state.height,
                                        format: OffscreenTarget.colorFormat, stencilFormat: try VulkanImage.stencilFormat(device: device),
                                        renderPass: pipeline.atlasRenderPass, sampled: true)
            let set: VkDescriptorSet
            let token: TextureImage
            do {
                set = try allocateDescriptorSet(device: device, pool: pool, layout: pipeline.compositeSetLayout)
                token = try TextureImage(device: device, width: 1, height: 1, format: VK_FORMAT_R8G8B8A8_UNORM,
                                         bytesPerPixel: 4, mipmapped: false)
            } catch {
                image.destroy(device)
                throw error
            }
            writeImageDescriptor(device: device, set: set, sampler: pipeline.sampler, view: image.view)
            let page = Page(image: image, set: set, token: token)
            page.lastFrame = frame
            pages[id] = page
            current.append(page)
            currentIDs.append(id)
            changes += 1
        }
    }

    /// The set and stand-in texture drawing `draw` when its image is a page of the list being
    /// drawn (a composite of a rasterized layer); nil for any other image.
    func resolve(_ draw: ImageDraw) -> (VkDescriptorSet, TextureImage)? {
        guard !currentIDs.isEmpty, draw.image.width == 1, draw.image.height == 1 else { return nil }
        let id = draw.image.id
        for (k, pageID) in currentIDs.enumerated() where pageID == id { return (current[k].set, current[k].token) }
        return nil
    }

    /// Which passes of `plan` to leave out (true: its page holds its version in its area
    /// already, or an offscreen pass only such passes read — the groups, masks and filters of
    /// a rasterized subtree held already), noting what the others will leave in their pages.
    /// Call once per recording.
    func passesToSkip(_ plan: FramePlan) -> [Bool] {
        let held = heldAtlasPasses(plan)
        guard held.contains(true) else { return held }
        let skips = plan.passesLeftOut(held: held)
        for (index, pass) in plan.passes.enumerated() where skips[index] {
            if case .image = pass.target { groupPassesSkipped += 1 }
        }
        return skips
    }

    /// The atlas passes of `plan` whose page holds their version in their area already.
    private func heldAtlasPasses(_ plan: FramePlan) -> [Bool] {
        var skips = [Bool](repeating: false, count: plan.passes.count)
        for (index, pass) in plan.passes.enumerated() {
            guard case .atlas(let p) = pass.target else { continue }
            guard p >= 0, p < current.count else { skips[index] = true; continue }
            let page = current[p]
            if pass.rasterVersion != 0, page.initialized,
               page.holds.contains(where: { $0.version == pass.rasterVersion && $0.region == pass.area }) {
                skips[index] = true
                passesSkipped += 1
                continue
            }
            page.holds.removeAll { !$0.region.intersection(pass.area).isEmpty }
            page.holds.append((pass.rasterVersion, pass.area))
            passesDrawn += 1
            changes += 1
        }
        return skips
    }

    /// Whether a page of the list being drawn still needs its first layout change.
    var needsInitialization: Bool { current.contains { !$0.initialized } }

    /// Records the first layout change of the list's new pages (undefined → sampled: what the
    /// atlas render pass expects) into `cmd`. A buffer holding it must not be submitted again.
    func recordInitialization(into cmd: VkCommandBuffer) {
        for page in current where !page.initialized {
            recordImageBarrier(cmd, image: page.image.raw, from: VK_IMAGE_LAYOUT_UNDEFINED,
                               to: VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, srcAccess: 0,
                               dstAccess: mapFlags(VK_ACCESS_SHADER_READ_BIT),
                               srcStage: mapFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                               dstStage: mapFlags(VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                                                  VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT))
            page.initialized = true
        }
    }

    /// The framebuffer of page `p` of the list being drawn.
    func framebuffer(_ p: Int) -> VkFramebuffer? { p >= 0 && p < current.count ? current[p].image.framebuffer : nil }

    /// Frees pages unnamed for `idleFrames` frames (after the frames that read them).
    func forgetIdle(frame: UInt64, lifetimes: LifetimeTracker) {
        guard !pages.isEmpty else { return }
        var idle: [UInt64] = []
        for (id, page) in pages where page.lastFrame + Self.idleFrames < frame { idle.append(id) }
        for id in idle { retire(pages.removeValue(forKey: id)!, lifetimes) }
    }

    /// Bytes of the pages' color images.
    var bytes: Int { pages.values.reduce(0) { $0 + $1.image.width * $1.image.height * 4 } }

    private func retire(_ page: Page, _ lifetimes: LifetimeTracker) {
        lifetimes.retire(.image(page.image))
        lifetimes.retire(.descriptorSet(page.set))
        lifetimes.retire(.texture(page.token))
        changes += 1
    }

    /// Destroys every page (the device is idle; the sets go with their pool).
    func destroy(_ device: VulkanDevice) {
        for page in pages.values {
            page.image.destroy(device)
            page.token.destroy(device)
        }
        pages.removeAll()
        current.removeAll()
        currentIDs.removeAll()
    }
}
