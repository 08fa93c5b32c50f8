import CVulkan
import Foundation
import LaminaImage

// GPU buffers (docs/protocol.md, GPU buffers): a client's Vulkan image whose memory it exported
// as an opaque fd (`VK_KHR_external_memory_fd`), imported by the daemon (`GpuBufferImporter`)
// and read when the commit that attached it is applied; and the client's side of it
// (`GpuImageExporter`), the Vulkan helper for clients and what the tests render with.

/// The image parameters both sides use: the memory of an opaque fd is imported into an image
/// made exactly as the exporter made its own (Vulkan's rule for `OPAQUE_FD`).
enum SharedImageParameters {
    static let usage = mapFlags(VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_IMAGE_USAGE_SAMPLED_BIT,
                                VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT)
    static let handleType = mapFlags(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)
    /// `VkFormat` values the daemon takes, and the byte order they mean.
    static let formats: [UInt32: SurfacePixelFormat] = [
        UInt32(VK_FORMAT_R8G8B8A8_UNORM.rawValue): .rgba8, UInt32(VK_FORMAT_B8G8R8A8_UNORM.rawValue): .bgra8,
    ]
    static let externalQueueFamily: UInt32 = ~1   // VK_QUEUE_FAMILY_EXTERNAL

    /// `vkCreateImage` of a `width` × `height` image of `format` with external memory of the
    /// opaque fd type, in layout UNDEFINED.
    static func makeImage(device: VulkanDevice, width: Int, height: Int, format: VkFormat) throws(RenderError) -> VkImage {
        var external = VkExternalMemoryImageCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO
        external.handleTypes = handleType
        var info = imageCreateInfo2D(width: width, height: height, format: format, usage: usage)
        var image: VkImage?
        let result = withUnsafePointer(to: &external) { p in
            info.pNext = UnsafeRawPointer(p)
            return vkCreateImage(device.raw, &info, nil, &image)
        }
        try vk("vkCreateImage", result)
        guard let image else { throw .vulkan(.unexpected(0), call: "vkCreateImage") }
        return image
    }

    /// `vkAllocateMemory` of `size` bytes of memory type `type` with `next` chained (the
    /// export or import of an opaque fd).
    static func allocate<Next>(_ device: VkDevice, size: VkDeviceSize, type: UInt32,
                               chaining next: inout Next) -> (VkResult, VkDeviceMemory?) {
        var allocate = VkMemoryAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocate.allocationSize = size
        allocate.memoryTypeIndex = type
        var memory: VkDeviceMemory?
        let result = withUnsafePointer(to: &next) { p in
            allocate.pNext = UnsafeRawPointer(p)
            return vkAllocateMemory(device, &allocate, nil, &memory)
        }
        return (result, memory)
    }

    /// The device's `VkPhysicalDeviceIDProperties.deviceUUID`.
    static func deviceUUID(_ device: VulkanDevice) -> [UInt8] {
        var id = VkPhysicalDeviceIDProperties()
        id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES
        physicalProperties(device, into: &id)
        return withUnsafeBytes(of: id.deviceUUID) { Array($0) }
    }

    /// Fills `properties` (a `VkPhysicalDevice…Properties` with its `sType` set) through
    /// `vkGetPhysicalDeviceProperties2`, chained after the core properties.
    static func physicalProperties<T>(_ device: VulkanDevice, into properties: inout T) {
        var props = VkPhysicalDeviceProperties2()
        props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
        withUnsafeMutablePointer(to: &properties) { p in
            props.pNext = UnsafeMutableRawPointer(p)
            vkGetPhysicalDeviceProperties2(device.physical, &props)
        }
    }

    /// Records and runs `body`'s commands on `device`'s queue, waiting until they are done.
    static func run(_ device: VulkanDevice, _ commands: VulkanCommands, _ cmd: VkCommandBuffer, fence: VkFence,
                    _ body: (VkCommandBuffer) -> Void) throws(RenderError) {
        try beginRecording(cmd, oneTime: true)
        body(cmd)
        try vk("vkEndCommandBuffer", vkEndCommandBuffer(cmd))
        try commands.submit(cmd, fence: fence, device: device)
        try commands.waitAndReset(fence, device: device)
    }

    /// A barrier on a shared image in layout GENERAL (both sides keep it there), handing it
    /// between this queue and the other process (`VK_QUEUE_FAMILY_EXTERNAL`): `acquire` takes it
    /// before a transfer reads or writes it; else it is released after the transfer wrote it.
    static func ownership(_ cmd: VkCommandBuffer, image: VkImage, family: UInt32, acquire: Bool, from old: VkImageLayout) {
        var b = VkImageMemoryBarrier()
        b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER
        b.oldLayout = old
        b.newLayout = VK_IMAGE_LAYOUT_GENERAL
        let transfer = mapFlags(VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_TRANSFER_WRITE_BIT)
        b.srcAccessMask = acquire ? 0 : transfer
        b.dstAccessMask = acquire ? transfer : 0
        let external = old == VK_IMAGE_LAYOUT_UNDEFINED ? queueFamilyIgnored : externalQueueFamily
        b.srcQueueFamilyIndex = acquire ? external : family
        b.dstQueueFamilyIndex = acquire ? (external == queueFamilyIgnored ? queueFamilyIgnored : family) : externalQueueFamily
        b.image = image
        b.subresourceRange = VkImageSubresourceRange(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), baseMipLevel: 0,
                                                     levelCount: 1, baseArrayLayer: 0, layerCount: 1)
        let transferStage = mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT)
        vkCmdPipelineBarrier(cmd, acquire ? mapFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT) : transferStage,
                             acquire ? transferStage : mapFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT), 0, 0, nil, 0, nil, 1, &b)
    }
}

/// The daemon's importer of GPU buffers: its own Vulkan device (on the device the renderer
/// picks, with `VK_KHR_external_memory_fd`), its queue and a lock that every use of them
/// takes (the server thread imports, the render thread reads). Made on the first
/// `createGpuBuffer`.
public final class GpuBufferImporter: @unchecked Sendable {
    // @unchecked: every Vulkan call goes through `lock`.
    private let lock = NSLock()
    private let instance: VulkanInstance
    private let device: VulkanDevice
    private let commands: VulkanCommands
    /// `VkPhysicalDeviceIDProperties.deviceUUID` of the device (16 bytes).
    public let deviceUUID: [UInt8]
    /// The device's name (error messages).
    public let deviceName: String
    public let validationLog = ValidationLog()
    /// The extensions a GPU buffer's synchronization would need, and whether the device has them.
    public let hasSemaphoreFD: Bool
    public let hasDRMFormatModifier: Bool

    /// The largest width or height a GPU buffer may have.
    public var maxDimension: Int { min(Int(device.properties.limits.maxImageDimension2D), 16384) }

    /// Vulkan objects the importer holds (images, memory, buffers of the buffers it imported).
    public var liveObjects: Int { lock.withLock { device.liveObjects } }

    /// - Parameter validation: the Khronos validation layer; nil reads `LAMINA_VALIDATION=1`.
    public init(validation: Bool? = nil) throws(RenderError) {
        let validation = validation ?? (getenv("LAMINA_VALIDATION").map { String(cString: $0) == "1" } ?? false)
        instance = try VulkanInstance(validation: validation, log: validationLog)
        do {
            device = try VulkanDevice(instance: instance, extensions: ["VK_KHR_external_memory_fd"])
        } catch {
            instance.destroy()
            throw .unsupported("the daemon's device cannot import memory (VK_KHR_external_memory_fd): \(error)")
        }
        do {
            commands = try VulkanCommands(device: device, timestampSlots: 1)
        } catch {
            device.destroy()
            instance.destroy()
            throw error
        }
        let physical = device.physical
        let props: [VkExtensionProperties] = (try? enumerate("vkEnumerateDeviceExtensionProperties") {
            vkEnumerateDeviceExtensionProperties(physical, nil, $0, $1)
        }) ?? []
        let available = Set(props.map { string(fromCharTuple: $0.extensionName) })
        hasSemaphoreFD = available.contains("VK_KHR_external_semaphore_fd")
        hasDRMFormatModifier = available.contains("VK_EXT_image_drm_format_modifier")
        deviceUUID = SharedImageParameters.deviceUUID(device)
        deviceName = device.name
    }

    deinit {
        commands.destroy(device)
        device.destroy()
        instance.destroy()
    }

    /// Why a GPU buffer cannot be imported (the message names what is wrong).
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var message: String
        public var description: String { message }
        public init(message: String) { self.message = message }
    }

    /// Imports the memory `fd` (an opaque fd; taken: closed or owned by Vulkan, whatever the
    /// outcome) as a `width` × `height` image of `VkFormat` `format`, `size` bytes of memory
    /// type `memoryType`, exported on the device `deviceUUID`.
    public func importImage(fd: Int32, width: Int, height: Int, format: UInt32, size: UInt64, memoryType: UInt32,
                            deviceUUID uuid: [UInt8]) throws(Failure) -> ImportedGpuImage {
        var owned = true
        defer { if owned { close(fd) } }
        if let kind = Self.descriptorKind(fd), kind.contains("dmabuf") {
            throw Failure(message: "the descriptor is a DMA-BUF (\(kind)): the daemon takes only opaque fds (VK_KHR_external_memory_fd); DMA-BUF with DRM format modifiers needs VK_EXT_image_drm_format_modifier, which the daemon's device \(deviceName) \(hasDRMFormatModifier ? "has, but the daemon does not import them yet" : "lacks")")
        }
        guard uuid == deviceUUID else {
            throw Failure(message: "the buffer comes from device \(Self.hex(uuid)), not the daemon's \(deviceName) (\(Self.hex(deviceUUID))): export it on the device the daemon renders with")
        }
        guard let pixelFormat = SharedImageParameters.formats[format] else {
            throw Failure(message: "format \(format) is not one the daemon samples (37 VK_FORMAT_R8G8B8A8_UNORM, 44 VK_FORMAT_B8G8R8A8_UNORM)")
        }
        guard width > 0, height > 0, width <= maxDimension, height <= maxDimension else {
            throw Failure(message: "width and height must be 1…\(maxDimension) (got \(width)×\(height))")
        }
        lock.lock()
        defer { lock.unlock() }
        let image: VkImage
        do {
            image = try SharedImageParameters.makeImage(device: device, width: width, height: height,
                                                        format: VkFormat(rawValue: format))
        } catch {
            throw Failure(message: "the daemon's device cannot make the image: \(error)")
        }
        var requirements = VkMemoryRequirements()
        vkGetImageMemoryRequirements(device.raw, image, &requirements)
        let typeCount = device.memoryProperties.memoryTypeCount
        guard memoryType < typeCount, requirements.memoryTypeBits & (1 << memoryType) != 0 else {
            vkDestroyImage(device.raw, image, nil)
            throw Failure(message: "memory type \(memoryType) cannot hold the image (types allowed: bits \(String(requirements.memoryTypeBits, radix: 2)) of \(typeCount))")
        }
        guard size >= requirements.size else {
            vkDestroyImage(device.raw, image, nil)
            throw Failure(message: "size \(size) is less than the \(requirements.size) bytes a \(width)×\(height) image needs")
        }
        var importInfo = VkImportMemoryFdInfoKHR()
        importInfo.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR
        importInfo.handleType = VkExternalMemoryHandleTypeFlagBits(rawValue: SharedImageParameters.handleType)
        importInfo.fd = fd
        let (result, memory) = SharedImageParameters.allocate(device.raw, size: size, type: memoryType, chaining: &importInfo)
        guard result == VK_SUCCESS, let memory else {
            vkDestroyImage(device.raw, image, nil)
            throw Failure(message: "the memory could not be imported (vkAllocateMemory with VkImportMemoryFdInfoKHR: \(VulkanError(result))): is the descriptor an opaque fd from vkGetMemoryFdKHR?")
        }
        owned = false   // Vulkan owns the descriptor now
        let bound = vkBindImageMemory(device.raw, image, memory, 0)
        guard bound == VK_SUCCESS else {
            vkDestroyImage(device.raw, image, nil)
            vkFreeMemory(device.raw, memory, nil)
            throw Failure(message: "vkBindImageMemory: \(VulkanError(bound))")
        }
        device.track(image, memory)
        do {
            return try ImportedGpuImage(importer: self, image: image, memory: memory, width: width, height: height,
                                        format: pixelFormat, bytes: Int(size))
        } catch {
            vkDestroyImage(device.raw, image, nil)
            vkFreeMemory(device.raw, memory, nil)
            device.untrack(image, memory)
            throw Failure(message: "the daemon could not make the buffer's readback: \(error)")
        }
    }

    fileprivate func withDevice<R>(_ body: (VulkanDevice, VulkanCommands) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(device, commands)
    }

    /// What the kernel says `fd` is (the target of /proc/self/fd/FD: a DMA-BUF reads
    /// "anon_inode:dmabuf" or "/dmabuf:NAME"), or nil.
    static func descriptorKind(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// A GPU buffer the daemon imported: the image over the client's memory, a host-visible buffer
/// its pixels are copied into when a frame applies a commit that attached it (only the damaged
/// rectangles), and the command buffer and fence that copy uses. Freed (Vulkan objects and the
/// imported memory) when the last holder lets it go: the client's buffer table or a packet in
/// flight.
public final class ImportedGpuImage: SurfacePixelSource, @unchecked Sendable {
    // @unchecked: its Vulkan objects are used only under the importer's lock.
    private let importer: GpuBufferImporter
    private let image: VkImage
    private let memory: VkDeviceMemory
    private let readback: VulkanBuffer
    private let cmd: VkCommandBuffer
    private let fence: VkFence
    public let width: Int
    public let height: Int
    public let format: SurfacePixelFormat
    /// Bytes of the imported memory (they count against the client's memory limit).
    public let bytes: Int

    fileprivate init(importer: GpuBufferImporter, image: VkImage, memory: VkDeviceMemory, width: Int, height: Int,
                     format: SurfacePixelFormat, bytes: Int) throws(RenderError) {
        self.importer = importer
        self.image = image
        self.memory = memory
        self.width = width
        self.height = height
        self.format = format
        self.bytes = bytes
        // (Called with the importer's lock held.)
        let device = importer.deviceForInit
        let commands = importer.commandsForInit
        readback = try VulkanBuffer(device: device, size: width * height * 4, usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_DST_BIT),
                                    cached: true)
        do {
            fence = try commands.makeFence(device: device)
            cmd = try commands.makeCommandBuffer(device: device)
        } catch {
            readback.destroy(device)
            throw error
        }
    }

    deinit {
        importer.withDevice { device, commands in
            var c: VkCommandBuffer? = cmd
            vkFreeCommandBuffers(device.raw, commands.pool, 1, &c)
            commands.destroyFence(fence, device: device)
            readback.destroy(device)
            vkDestroyImage(device.raw, image, nil)
            vkFreeMemory(device.raw, memory, nil)
            device.untrack(image, memory)
        }
    }

    /// Copies `rects` of the image into the readback buffer (rows `width` × 4 bytes apart) and
    /// waits for the copy, then calls `body` with it. The client finished drawing before it
    /// committed (there is no semaphore to wait on: docs/protocol.md, GPU buffers).
    public func withPixels(_ rects: [SurfaceRect],
                           _ body: (UnsafeRawPointer, Int, SurfacePixelFormat) -> Void) -> Bool {
        let copied: Bool = importer.withDevice { device, commands in
            do throws(RenderError) {
                try SharedImageParameters.run(device, commands, cmd, fence: fence) { cmd in
                    SharedImageParameters.ownership(cmd, image: image, family: device.queueFamily, acquire: true,
                                                    from: VK_IMAGE_LAYOUT_GENERAL)
                    let regions = rects.map { r in
                        VkBufferImageCopy(
                            bufferOffset: VkDeviceSize((r.y * width + r.x) * 4), bufferRowLength: UInt32(width), bufferImageHeight: 0,
                            imageSubresource: VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                                                       baseArrayLayer: 0, layerCount: 1),
                            imageOffset: VkOffset3D(x: Int32(r.x), y: Int32(r.y), z: 0),
                            imageExtent: VkExtent3D(width: UInt32(r.width), height: UInt32(r.height), depth: 1))
                    }
                    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_GENERAL, readback.raw, UInt32(regions.count), regions)
                    var toHost = VkMemoryBarrier(sType: VK_STRUCTURE_TYPE_MEMORY_BARRIER, pNext: nil,
                                                 srcAccessMask: mapFlags(VK_ACCESS_TRANSFER_WRITE_BIT),
                                                 dstAccessMask: mapFlags(VK_ACCESS_HOST_READ_BIT))
                    vkCmdPipelineBarrier(cmd, mapFlags(VK_PIPELINE_STAGE_TRANSFER_BIT), mapFlags(VK_PIPELINE_STAGE_HOST_BIT), 0,
                                         1, &toHost, 0, nil, 0, nil)
                    SharedImageParameters.ownership(cmd, image: image, family: device.queueFamily, acquire: false,
                                                    from: VK_IMAGE_LAYOUT_GENERAL)
                }
                try readback.invalidate(device: device)
                return true
            } catch {
                return false
            }
        }
        guard copied else { return false }
        body(UnsafeRawPointer(readback.mapped), width * 4, format)
        return true
    }
}

extension GpuBufferImporter {
    // The device and commands for `ImportedGpuImage.init`, which runs inside `importImage`
    // with the lock held.
    fileprivate var deviceForInit: VulkanDevice { device }
    fileprivate var commandsForInit: VulkanCommands { commands }
}

/// A client's Vulkan image shared with the daemon (the Vulkan helper for clients; docs/protocol.md,
/// GPU buffers): made on the device the daemon renders with, its memory exportable as an
/// opaque fd, kept in layout GENERAL. `clear` and `write` draw into it and wait until the
/// drawing is done (so it may be attached at once); `exportMemory()` gives a descriptor to
/// send with `createGpuBuffer`.
public final class GpuImageExporter {
    private let instance: VulkanInstance
    private let device: VulkanDevice
    private let commands: VulkanCommands
    private let cmd: VkCommandBuffer
    private let fence: VkFence
    private let image: VkImage
    private let memory: VkDeviceMemory
    private var layout = VK_IMAGE_LAYOUT_UNDEFINED
    public let width: Int
    public let height: Int
    /// The `VkFormat` value.
    public let format: UInt32
    /// Bytes of the allocation and its memory type (`createGpuBuffer`'s size and memoryType).
    public let size: UInt64
    public let memoryType: UInt32
    public let deviceUUID: [UInt8]
    public let validationLog = ValidationLog()

    /// `format`: a `VkFormat` value (37 RGBA8, 44 BGRA8).
    public init(width: Int, height: Int, format: UInt32 = 37, validation: Bool? = nil) throws(RenderError) {
        let validation = validation ?? (getenv("LAMINA_VALIDATION").map { String(cString: $0) == "1" } ?? false)
        self.width = width
        self.height = height
        self.format = format
        instance = try VulkanInstance(validation: validation, log: validationLog)
        do {
            device = try VulkanDevice(instance: instance, extensions: ["VK_KHR_external_memory_fd"])
        } catch {
            instance.destroy()
            throw error
        }
        do {
            commands = try VulkanCommands(device: device, timestampSlots: 1)
        } catch {
            device.destroy(); instance.destroy()
            throw error
        }
        deviceUUID = SharedImageParameters.deviceUUID(device)
        do {
            cmd = try commands.makeCommandBuffer(device: device)
            fence = try commands.makeFence(device: device)
            image = try SharedImageParameters.makeImage(device: device, width: width, height: height,
                                                        format: VkFormat(rawValue: format))
        } catch {
            commands.destroy(device); device.destroy(); instance.destroy()
            throw error
        }
        var requirements = VkMemoryRequirements()
        vkGetImageMemoryRequirements(device.raw, image, &requirements)
        var export = VkExportMemoryAllocateInfo()
        export.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO
        export.handleTypes = SharedImageParameters.handleType
        var memory: VkDeviceMemory?
        var result = VK_ERROR_UNKNOWN
        let type = try? device.memoryType(typeBits: requirements.memoryTypeBits, required: 0,
                                          preferred: mapFlags(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
        if let type {
            (result, memory) = SharedImageParameters.allocate(device.raw, size: requirements.size, type: type, chaining: &export)
        }
        if result == VK_SUCCESS, let memory { result = vkBindImageMemory(device.raw, image, memory, 0) }
        guard result == VK_SUCCESS, let memory else {
            if let memory { vkFreeMemory(device.raw, memory, nil) }
            vkDestroyImage(device.raw, image, nil)
            commands.destroyFence(fence, device: device); commands.destroy(device); device.destroy(); instance.destroy()
            throw .vulkan(VulkanError(result), call: "vkAllocateMemory (exportable)/vkBindImageMemory")
        }
        self.memory = memory
        size = requirements.size
        memoryType = type!
    }

    deinit {
        vkDestroyImage(device.raw, image, nil)
        vkFreeMemory(device.raw, memory, nil)
        commands.destroyFence(fence, device: device)
        commands.destroy(device)
        device.destroy()
        instance.destroy()
    }

    /// A new descriptor of the image's memory (`vkGetMemoryFdKHR`, opaque fd); the caller owns
    /// it (sending it with `createGpuBuffer` hands it over).
    public func exportMemory() throws(RenderError) -> Int32 {
        typealias GetFd = @convention(c) (VkDevice?, UnsafePointer<VkMemoryGetFdInfoKHR>?, UnsafeMutablePointer<Int32>?) -> VkResult
        guard let raw = vkGetDeviceProcAddr(device.raw, "vkGetMemoryFdKHR") else {
            throw .unsupported("vkGetMemoryFdKHR is missing")
        }
        let getFd = unsafeBitCast(raw, to: GetFd.self)
        var info = VkMemoryGetFdInfoKHR()
        info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR
        info.memory = memory
        info.handleType = VkExternalMemoryHandleTypeFlagBits(rawValue: SharedImageParameters.handleType)
        var fd: Int32 = -1
        try vk("vkGetMemoryFdKHR", getFd(device.raw, &info, &fd))
        return fd
    }

    /// Fills the image with one color (`vkCmdClearColorImage`; channels 0…1, as the format's
    /// channels) and waits until it is done.
    public func clear(_ r: Float, _ g: Float, _ b: Float, _ a: Float) throws(RenderError) {
        try draw { cmd in
            var color = VkClearColorValue(float32: (r, g, b, a))
            var range = VkImageSubresourceRange(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), baseMipLevel: 0, levelCount: 1,
                                                baseArrayLayer: 0, layerCount: 1)
            vkCmdClearColorImage(cmd, image, VK_IMAGE_LAYOUT_GENERAL, &color, 1, &range)
        }
    }

    /// Copies `pixels` (4 bytes a pixel in the image's format, rows `width` × 4 bytes) into the
    /// rectangle `x, y, w, h` of the image (`vkCmdCopyBufferToImage`) and waits until it is done.
    public func write(_ pixels: [UInt8], x: Int, y: Int, width w: Int, height h: Int) throws(RenderError) {
        precondition(pixels.count == w * h * 4 && x >= 0 && y >= 0 && x + w <= width && y + h <= height)
        let staging = try VulkanBuffer(device: device, size: pixels.count, usage: mapFlags(VK_BUFFER_USAGE_TRANSFER_SRC_BIT))
        defer { staging.destroy(device) }
        pixels.withUnsafeBytes { staging.mapped.copyMemory(from: $0.baseAddress!, byteCount: pixels.count) }
        try draw { cmd in
            var region = VkBufferImageCopy()
            region.imageSubresource = VkImageSubresourceLayers(aspectMask: mapFlags(VK_IMAGE_ASPECT_COLOR_BIT), mipLevel: 0,
                                                               baseArrayLayer: 0, layerCount: 1)
            region.imageOffset = VkOffset3D(x: Int32(x), y: Int32(y), z: 0)
            region.imageExtent = VkExtent3D(width: UInt32(w), height: UInt32(h), depth: 1)
            vkCmdCopyBufferToImage(cmd, staging.raw, image, VK_IMAGE_LAYOUT_GENERAL, 1, &region)
        }
    }

    /// Takes the image from the daemon's side, records `body` (transfers in layout GENERAL),
    /// hands the image back, submits and waits.
    private func draw(_ body: (VkCommandBuffer) -> Void) throws(RenderError) {
        let first = layout == VK_IMAGE_LAYOUT_UNDEFINED
        try SharedImageParameters.run(device, commands, cmd, fence: fence) { cmd in
            SharedImageParameters.ownership(cmd, image: image, family: device.queueFamily, acquire: true,
                                            from: first ? VK_IMAGE_LAYOUT_UNDEFINED : VK_IMAGE_LAYOUT_GENERAL)
            body(cmd)
            SharedImageParameters.ownership(cmd, image: image, family: device.queueFamily, acquire: false,
                                            from: VK_IMAGE_LAYOUT_GENERAL)
        }
        layout = VK_IMAGE_LAYOUT_GENERAL
    }
}
