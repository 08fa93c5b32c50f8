import CVulkan
import LaminaFrame
import LaminaImage

/// The GPU copies of the images a frame draws (`ImageDraw`), by `Image.id`: each uploaded once
/// (a staging buffer copied in, mipmaps made by blits, recorded at the start of the frame that
/// first draws it) and shared by every item showing it; one that no item has drawn for
/// `idleFrames` frames is freed through the `LifetimeTracker` once the frames that read it
/// have finished. Also owns the samplers (one per `ImageDraw.samplerIndex`) and the
/// descriptor pools of the images' sets. Small images drawn without mip levels go into the
/// small-image atlas (`ImageAtlas`) instead, sharing its pages' textures and sets. Render
/// thread only.
final class ImageResidency {
    /// Frames without a draw after which an image's GPU copy is freed.
    static let idleFrames: UInt64 = 30

    private(set) var textures: [UInt64: TextureImage] = [:]
    /// `forgetIdle`'s idle ids (kept between sweeps: no array made per frame).
    private var idleScratch: [UInt64] = []
    /// Images first drawn by the frame being encoded, with their staging buffers.
    private var pending: [(texture: TextureImage, staging: VulkanBuffer)] = []
    /// Dirty rectangles of the glyph atlas to copy in this frame, with their staging buffer.
    private var pendingWrites: [(texture: TextureImage, staging: VulkanBuffer, regions: [VkBufferImageCopy])] = []
    /// Images uploaded so far (tests, stats).
    private(set) var uploads = 0
    /// Atlas dirty rectangles copied in so far, and their bytes (tests, stats).
    private(set) var atlasWrites = 0
    private(set) var atlasWriteBytes = 0
    /// Bytes of the resident images' level 0.
    private(set) var residentBytes = 0
    /// By `ImageDraw.samplerIndex` (minification × 2 + magnification).
    private let samplers: [VkSampler]
    private var pools: [VkDescriptorPool] = []
    private static let setsPerPool: UInt32 = 256
    /// The small-image atlas, and the largest side of an image it takes (0: none; tests).
    let atlas = ImageAtlas()
    var atlasLimit = ImageAtlas.maxSide
    /// Atlas pages and blank images (`Image.isBlank`: the shape atlas' frame pages) made this
    /// frame, to be cleared before their first writes.
    private var pendingPages: [TextureImage] = []
    /// The resident blank images: each list that draws one carries it with all its writes
    /// (`DrawList.framePage`), so one no list drew last frame goes at the next sweep (made
    /// again, cleared and written, should a list bring it back).
    private var blankImages: Set<UInt64> = []

    /// What draws an image item: the set binding its texture (or its atlas page) with the
    /// item's sampler, that texture, and its atlas entry when it is in the atlas (the item's
    /// instances are then moved into the page: `RectInstance.placeInAtlas`).
    struct Binding {
        let set: VkDescriptorSet
        let texture: TextureImage
        var entry: AtlasEntry? = nil
    }

    init(device: VulkanDevice) throws(RenderError) {
        var samplers: [VkSampler] = []
        for index in 0..<6 {
            let minification = ImageDraw.Filter(rawValue: index / 2)!
            let magnifyNearest = index % 2 == 1
            var info = VkSamplerCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO
            info.magFilter = magnifyNearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR
            info.minFilter = minification == .nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR
            info.mipmapMode = minification == .trilinear ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST
            info.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE  // CA: edge pixels extend
            info.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
            info.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
            info.minLod = 0
            // Without mipmaps: level 0 only, and 0.25 (not 0) so that λ still tells minification
            // from magnification (the Vulkan spec's emulation of GL_LINEAR / GL_NEAREST).
            info.maxLod = minification == .trilinear ? 1000 : 0.25
            var sampler: VkSampler?
            let result = vkCreateSampler(device.raw, &info, nil, &sampler)
            guard result == VK_SUCCESS, let sampler else {
                for s in samplers { vkDestroySampler(device.raw, s, nil); device.untrack(s) }
                throw .vulkan(VulkanError(result), call: "vkCreateSampler")
            }
            device.track(sampler)
            samplers.append(sampler)
        }
        self.samplers = samplers
    }

    /// Resident images: textures of their own and atlas entries.
    var count: Int { textures.count + atlas.entries.count }

    /// The descriptor set drawing `draw.image` with `draw`'s filters, and the image's copy (or
    /// its atlas page and entry), uploading the image (recorded by `recordUploads`) when it is
    /// not resident; nil when the device cannot hold an image that large (the item is not
    /// drawn; nothing else is affected).
    func resident(_ draw: ImageDraw, frame: UInt64, device: VulkanDevice,
                  setLayout: VkDescriptorSetLayout) throws(RenderError) -> Binding? {
        // (An image resident as a texture of its own — a glyph or shape atlas, updated in
        // place — stays one.)
        if ImageAtlas.accepts(draw, limit: atlasLimit), textures[draw.image.id] == nil {
            let entry = try atlasEntry(draw.image, device: device)
            entry.lastUsed = frame
            let page = entry.page.texture
            page.lastUsed = frame
            return Binding(set: try descriptorSet(page, draw, device: device, setLayout: setLayout), texture: page,
                           entry: entry)
        }
        // (A shape's coverage, drawn at its own scale, needs no mipmaps.)
        let mipmapped: Bool = if case .shape = draw.mode { false } else { true }
        guard let texture = try texture(draw.image, device: device, mipmapped: mipmapped) else { return nil }
        texture.lastUsed = frame
        return Binding(set: try descriptorSet(texture, draw, device: device, setLayout: setLayout), texture: texture)
    }

    /// The set binding `texture` with `draw`'s sampler, made on first use.
    private func descriptorSet(_ texture: TextureImage, _ draw: ImageDraw, device: VulkanDevice,
                               setLayout: VkDescriptorSetLayout) throws(RenderError) -> VkDescriptorSet {
        let index = draw.samplerIndex
        if let entry = texture.descriptorSets[index] { return entry.set }
        let (set, pool) = try allocateSet(device: device, layout: setLayout)
        writeImageDescriptor(device: device, set: set, sampler: samplers[index],
                             view: texture.view(mipmapped: draw.minification == .trilinear), layout: texture.sampledLayout)
        texture.descriptorSets[index] = (set, pool)
        changes += 1
        return set
    }

    /// `image`'s atlas entry, placing it (its texels copied in by `recordUploads`, a page made
    /// when none has room) when it has none.
    private func atlasEntry(_ image: Image, device: VulkanDevice) throws(RenderError) -> AtlasEntry {
        if let entry = atlas.entry(image.id) { return entry }
        let staging = try VulkanBuffer(device: device, size: image.width * image.height * 4,
                                       usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        let entry: AtlasEntry
        do {
            changes += 1
            entry = try atlas.place(image, placed: changes) { () throws(RenderError) -> AtlasPage in
                let size = ImageAtlas.pageSize
                let texture = try TextureImage(device: device, width: size, height: size,
                                               format: VK_FORMAT_R8G8B8A8_UNORM, bytesPerPixel: 4, mipmapped: false)
                pendingPages.append(texture)
                residentBytes += texture.byteCount
                return AtlasPage(texture: texture)
            }
        } catch {
            staging.destroy(device)
            throw error
        }
        let bytes = ImageAtlas.rgba(image)
        // SAFETY: the staging buffer holds width × height × 4 bytes and nothing reads it yet.
        bytes.withUnsafeBytes { staging.write("atlas staging", at: 0, from: $0.baseAddress!, count: $0.count) }
        var region = VkBufferImageCopy()
        region.imageSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                                           baseArrayLayer: 0, layerCount: 1)
        region.imageOffset = VkOffset3D(x: Int32(entry.x), y: Int32(entry.y), z: 0)
        region.imageExtent = VkExtent3D(width: UInt32(entry.width), height: UInt32(entry.height), depth: 1)
        pendingWrites.append((entry.page.texture, staging, [region]))
        uploads += 1
        atlasPlacements += 1
        return entry
    }
    /// Images placed in the small-image atlas so far (tests, stats).
    private(set) var atlasPlacements = 0

    /// Bumped whenever an image, a descriptor set or an upload is made or an image is
    /// forgotten: a command buffer recorded before may refer to what changed (a recorded
    /// frame is reused only while this stays the same).
    private(set) var changes: UInt64 = 0
    /// Whether uploads wait to be recorded (`recordUploads`).
    var hasPendingUploads: Bool { !pending.isEmpty || !pendingWrites.isEmpty || !pendingPages.isEmpty }

    /// The resident copy of `image`, uploading it (recorded by `recordUploads`) when it is not
    /// resident; nil when the device cannot hold an image that large.
    private func texture(_ image: Image, device: VulkanDevice, mipmapped: Bool = true) throws(RenderError) -> TextureImage? {
        if let surface = image.surface { return try texture(surface, device: device) }
        if let existing = textures[image.id] { return existing }
        let limit = Int(device.properties.limits.maxImageDimension2D)
        guard image.width <= limit, image.height <= limit else { return nil }
        let texture = try TextureImage(device: device, width: image.width, height: image.height,
                                   format: image.format == .a8 ? VK_FORMAT_R8_UNORM : VK_FORMAT_R8G8B8A8_UNORM,
                                   bytesPerPixel: image.format.bytesPerPixel, mipmapped: mipmapped)
        if image.isBlank {
            // (A frame page: cleared, then written by `update`.)
            textures[image.id] = texture
            blankImages.insert(image.id)
            pendingPages.append(texture)
            changes += 1
            residentBytes += texture.byteCount
            return texture
        }
        let staging: VulkanBuffer
        do {
            staging = try VulkanBuffer(device: device, size: image.pixels.count,
                                       usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        } catch {
            texture.destroy(device)
            throw error
        }
        // SAFETY: the staging buffer holds `pixels.count` bytes and nothing reads it yet.
        image.pixels.withUnsafeBytes { staging.write("image staging", at: 0, from: $0.baseAddress!, count: $0.count) }
        textures[image.id] = texture
        pending.append((texture, staging))
        uploads += 1
        changes += 1
        residentBytes += texture.byteCount
        return texture
    }

    /// A surface layer's copy (ImageResidency+Surfaces.swift).
    func adopt(_ texture: TextureImage, key: UInt64, staging: VulkanBuffer) {
        textures[key] = texture
        pending.append((texture, staging))
        uploads += 1
        changes += 1
        residentBytes += texture.byteCount
    }

    /// A surface's texture written by direct uploads (ImageResidency+Surfaces.swift).
    func adoptDirect(_ texture: TextureImage, key: UInt64) {
        textures[key] = texture
        changes += 1
        residentBytes += texture.byteCount
    }
    /// Queues dirty rectangles of a resident texture (ImageResidency+Surfaces.swift).
    func queueWrites(_ texture: TextureImage, staging: VulkanBuffer, regions: [VkBufferImageCopy], bytes: Int) {
        pendingWrites.append((texture, staging, regions))
        changes += 1
        surfaceWrites += regions.count
        surfaceWriteBytes += bytes
    }
    /// Surfaces whose pixels only their texture holds (ImageResidency+Surfaces.swift), by key.
    var directSurfaces: [UInt64: WeakSurface] = [:]
    /// Surfaces sampled in place: the linear image over the client's pages each one shows now,
    /// by `SurfaceStorage.id` (owned by HostMemorySurfaces, not freed here).
    private(set) var inPlaceTextures: [UInt64: TextureImage] = [:]
    /// Shows `texture` (nil: nothing in place) for surface `key`; a recorded frame or an
    /// encoder's bindings made before no longer hold.
    func setInPlace(_ texture: TextureImage?, for key: UInt64) {
        guard inPlaceTextures[key] !== texture else { return }
        inPlaceTextures[key] = texture
        changes += 1
    }
    /// In-place textures are about to be destroyed (their import freed): nothing recorded may refer to them.
    func noteInPlaceFreed() { changes += 1 }
    /// Surface rectangles copied in so far, and their bytes (tests, benchmarks).
    private(set) var surfaceWrites = 0
    private(set) var surfaceWriteBytes = 0

    func existing(_ key: UInt64) -> TextureImage? { textures[key] }

    /// Brings the glyph atlas' copy up to date with `atlas`: its base uploaded when not
    /// resident, then the writes not yet applied copied in as dirty rectangles (recorded by
    /// `recordUploads`, after the whole-image uploads).
    func update(_ atlas: TextAtlasState, frame: UInt64, device: VulkanDevice) throws(RenderError) {
        guard let texture = try texture(atlas.base, device: device, mipmapped: false) else { return }
        texture.lastUsed = frame
        guard texture.appliedWrites < atlas.writes.count else { return }
        let writes = atlas.writes[texture.appliedWrites...]
        let size = writes.reduce(0) { $0 + $1.bytes.count }
        let staging = try VulkanBuffer(device: device, size: max(size, 4), usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        var regions: [VkBufferImageCopy] = []
        var offset = 0
        for w in writes {
            // SAFETY: the staging buffer holds every write's bytes, laid end to end.
            w.bytes.withUnsafeBytes { staging.write("glyph atlas staging", at: offset, from: $0.baseAddress!, count: $0.count) }
            var region = VkBufferImageCopy()
            region.bufferOffset = VkDeviceSize(offset)
            region.imageSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                                               baseArrayLayer: 0, layerCount: 1)
            region.imageOffset = VkOffset3D(x: Int32(w.x), y: Int32(w.y), z: 0)
            region.imageExtent = VkExtent3D(width: UInt32(w.width), height: UInt32(w.height), depth: 1)
            regions.append(region)
            offset += w.bytes.count
        }
        texture.appliedWrites = atlas.writes.count
        pendingWrites.append((texture, staging, regions))
        changes += 1
        atlasWrites += regions.count
        atlasWriteBytes += size
    }

    /// Records the uploads of the images first drawn this frame into `cmd` (before its render
    /// passes) and retires their staging buffers to `frame`.
    func recordUploads(into cmd: VkCommandBuffer, frame: UInt64, lifetimes: LifetimeTracker) {
        for page in pendingPages { page.recordClear(into: cmd) }
        pendingPages.removeAll(keepingCapacity: true)
        for (texture, staging) in pending {
            texture.recordUpload(from: staging, into: cmd)
            lifetimes.retire(.buffer(staging), after: frame)
        }
        pending.removeAll(keepingCapacity: true)
        for (texture, staging, regions) in pendingWrites {
            texture.recordWrites(from: staging, regions: regions, into: cmd)
            lifetimes.retire(.buffer(staging), after: frame)
        }
        pendingWrites.removeAll(keepingCapacity: true)
    }

    /// Frees (once the frames that may read them have finished) the images no item has drawn
    /// for `idleFrames` frames.
    func forgetIdle(frame: UInt64, lifetimes: LifetimeTracker) {
        guard frame % 8 == 0 || textures.count > 64 else { return }  // a sweep now and then
        // The idle ids first, then their removal: removing while iterating `textures` would
        // copy the whole dictionary (the loop holds its storage) at the first removal.
        idleScratch.removeAll(keepingCapacity: true)
        for (id, texture) in textures where texture.lastUsed + (blankImages.contains(id) ? 1 : Self.idleFrames) < frame
            && !holdsDirectSurface(id) {
            idleScratch.append(id)
        }
        for id in idleScratch {
            guard let texture = textures.removeValue(forKey: id) else { continue }
            blankImages.remove(id)
            residentBytes -= texture.byteCount
            lifetimes.retire(.texture(texture), after: frame)
            changes += 1
        }
        // Atlas entries likewise (their space reused); a page left empty goes as an image.
        if frame > Self.idleFrames, atlas.forget(usedBefore: frame - Self.idleFrames, emptied: { page in
            residentBytes -= page.texture.byteCount
            lifetimes.retire(.texture(page.texture), after: frame)
        }) {
            changes += 1
        }
    }

    /// A set of `layout` from the newest pool, adding a pool when it is full.
    private func allocateSet(device: VulkanDevice, layout: VkDescriptorSetLayout) throws(RenderError)
        -> (VkDescriptorSet, VkDescriptorPool) {
        if let pool = pools.last, let set = try? allocateDescriptorSet(device: device, pool: pool, layout: layout) {
            return (set, pool)
        }
        var size = VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, descriptorCount: Self.setsPerPool)
        var info = VkDescriptorPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        info.flags = mapFlags(VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT)
        info.maxSets = Self.setsPerPool
        info.poolSizeCount = 1
        var pool: VkDescriptorPool?
        try vk("vkCreateDescriptorPool", withUnsafePointer(to: &size) { sizePointer in
            info.pPoolSizes = sizePointer
            return vkCreateDescriptorPool(device.raw, &info, nil, &pool)
        })
        guard let pool else { throw .vulkan(.unexpected(0), call: "vkCreateDescriptorPool") }
        device.track(pool)
        pools.append(pool)
        return (try allocateDescriptorSet(device: device, pool: pool, layout: layout), pool)
    }

    /// Destroys everything (the device is idle; `LifetimeTracker.destroyAll` ran first).
    func destroy(_ device: VulkanDevice) {
        for texture in textures.values { texture.destroy(device) }
        textures.removeAll()
        blankImages.removeAll()
        for page in atlas.removeAll() { page.texture.destroy(device) }
        pendingPages.removeAll()
        for (_, staging) in pending { staging.destroy(device) }
        pending.removeAll()
        for (_, staging, _) in pendingWrites { staging.destroy(device) }
        pendingWrites.removeAll()
        for pool in pools {
            vkDestroyDescriptorPool(device.raw, pool, nil)
            device.untrack(pool)
        }
        pools.removeAll()
        for sampler in samplers {
            vkDestroySampler(device.raw, sampler, nil)
            device.untrack(sampler)
        }
    }
}
