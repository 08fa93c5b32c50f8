import CVulkan
import LaminaImage

extension ImageResidency {
    /// A surface layer's GPU copy (`Image.surface`): one texture per `SurfaceStorage`, without
    /// mipmaps (a surface changes every frame; level 0 is what it draws), uploaded whole when
    /// first drawn, then brought up to the storage's version by copying only the rectangles
    /// that changed since the version it holds (`SurfaceStorage.damage(since:)`; everything
    /// when the log no longer reaches back that far). Render thread only.
    func texture(_ surface: SurfaceStorage, device: VulkanDevice) throws(RenderError) -> TextureImage? {
        let limit = Int(device.properties.limits.maxImageDimension2D)
        guard surface.width <= limit, surface.height <= limit else { return nil }
        // Sampled in place: the client's pages themselves.
        if let inPlace = inPlaceTextures[surface.id] { return inPlace }
        // Written by direct uploads only (HostMemorySurfaces): the texture is all there is.
        if surface.directFormat != nil { return existing(surface.id) }
        if let texture = existing(surface.id) {
            let held = UInt64(texture.appliedWrites)
            guard held < surface.version else { return texture }
            let whole = SurfaceRect(x: 0, y: 0, width: surface.width, height: surface.height)
            let rects = surface.damage(since: held) ?? [whole]
            try write(rects, of: surface, into: texture, device: device)
            texture.appliedWrites = Int(surface.version)
            return texture
        }
        let texture = try TextureImage(device: device, width: surface.width, height: surface.height,
                                       format: VK_FORMAT_R8G8B8A8_UNORM, bytesPerPixel: 4, mipmapped: false)
        let staging: VulkanBuffer
        do {
            staging = try VulkanBuffer(device: device, size: surface.byteCount, usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        } catch {
            texture.destroy(device)
            throw error
        }
        // SAFETY: the staging buffer holds `byteCount` bytes and nothing reads it yet.
        staging.write("surface staging", at: 0, from: surface.pixels, count: surface.byteCount)
        texture.appliedWrites = Int(surface.version)
        adopt(texture, key: surface.id, staging: staging)
        return texture
    }

    /// Copies `rects` of the storage into a staging buffer and queues them as writes into level 0.
    private func write(_ rects: [SurfaceRect], of surface: SurfaceStorage, into texture: TextureImage,
                       device: VulkanDevice) throws(RenderError) {
        let bytes = rects.reduce(0) { $0 + $1.area * 4 }
        guard bytes > 0 else { return }
        let staging = try VulkanBuffer(device: device, size: bytes, usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        var regions: [VkBufferImageCopy] = []
        var offset = 0
        for r in rects {
            for row in 0..<r.height {
                // SAFETY: the staging buffer holds every rectangle's bytes, laid end to end.
                staging.write("surface staging (rectangles)", at: offset + row * r.width * 4,
                              from: surface.pixels + ((r.y + row) * surface.width + r.x) * 4, count: r.width * 4)
            }
            regions.append(.level0(r, bufferOffset: offset, rowPixels: 0))
            offset += r.area * 4
        }
        queueWrites(texture, staging: staging, regions: regions, bytes: bytes)
    }

    /// The GPU copy a direct upload writes `surface` into, in the buffer's byte order (BGRA
    /// as `B8G8R8A8_UNORM`, so the copy needs no swizzle and samples as RGBA), made when it has
    /// none (`isNew`: its contents undefined until the first, whole, upload). Kept while the
    /// storage lives — not freed when idle: its pixels are nowhere else.
    func directTexture(_ surface: SurfaceStorage, format: SurfacePixelFormat,
                       device: VulkanDevice) throws(RenderError) -> (texture: TextureImage, isNew: Bool)? {
        let limit = Int(device.properties.limits.maxImageDimension2D)
        guard surface.width <= limit, surface.height <= limit else { return nil }
        if let texture = existing(surface.id) {
            // A texture made by the copy path (RGBA) cannot take BGRA bytes.
            guard directSurfaces[surface.id] != nil, surface.directFormat == format else { return nil }
            return (texture, false)
        }
        let texture = try TextureImage(device: device, width: surface.width, height: surface.height,
                                       format: format == .bgra8 ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_R8G8B8A8_UNORM,
                                       bytesPerPixel: 4, mipmapped: false)
        adoptDirect(texture, key: surface.id)
        directSurfaces[surface.id] = WeakSurface(surface)
        return (texture, true)
    }

    /// Whether texture `key` holds a live surface's only pixels (never freed when idle); a
    /// surface gone is forgotten here, its texture then freed as any idle one.
    func holdsDirectSurface(_ key: UInt64) -> Bool {
        guard let held = directSurfaces[key] else { return false }
        if held.surface != nil { return true }
        directSurfaces[key] = nil
        return false
    }
}

/// A surface storage, not kept alive by the residency's record of it.
final class WeakSurface {
    weak var surface: SurfaceStorage?
    init(_ surface: SurfaceStorage) { self.surface = surface }
}

extension VkBufferImageCopy {
    /// The copy of rectangle `r` of level 0 from a buffer: its first pixel at `bufferOffset`,
    /// rows `rowPixels` pixels apart (0: tightly packed).
    static func level0(_ r: SurfaceRect, bufferOffset: Int, rowPixels: Int) -> VkBufferImageCopy {
        var region = VkBufferImageCopy()
        region.bufferOffset = VkDeviceSize(bufferOffset)
        region.bufferRowLength = UInt32(rowPixels)
        region.imageSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                                           baseArrayLayer: 0, layerCount: 1)
        region.imageOffset = VkOffset3D(x: Int32(r.x), y: Int32(r.y), z: 0)
        region.imageExtent = VkExtent3D(width: UInt32(r.width), height: UInt32(r.height), depth: 1)
        return region
    }
}
