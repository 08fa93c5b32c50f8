import CVulkan

/// The physical device the renderer picked, the logical device and its one graphics queue.
/// Wraps `vkCreateDevice`. Render thread only.
final class VulkanDevice {
    let physical: VkPhysicalDevice
    let raw: VkDevice
    let queue: VkQueue
    let queueFamily: UInt32
    /// The device extensions enabled (`init`'s required ones and the optional ones it has).
    let enabledExtensions: Set<String>
    let properties: VkPhysicalDeviceProperties
    let memoryProperties: VkPhysicalDeviceMemoryProperties
    /// Nanoseconds per timestamp tick, or nil when the queue cannot write timestamps.
    let timestampPeriod: Double?
    /// Mask of the valid bits of a timestamp.
    let timestampMask: UInt64

    /// Device name as the driver reports it (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    var name: String { string(fromCharTuple: properties.deviceName) }

    /// Live Vulkan objects made from this device: the handles registered with `track` and not
    /// yet released with `untrack` (debug builds; always 0 in release). The renderer expects 0
    /// before it destroys the device.
    var liveObjects: Int { registered.count }
    private var registered: Set<UInt> = []

    /// Registers objects just created (each handle once). Debug builds only.
    @inline(__always)
    func track(_ handles: OpaquePointer?...) {
        #if DEBUG
        for handle in handles {
            let inserted = registered.insert(UInt(bitPattern: handle)).inserted
            assert(handle != nil && inserted, "Vulkan object \(String(describing: handle)) registered twice or nil")
        }
        #endif
    }

    /// Releases objects about to be destroyed (each registered before). Debug builds only.
    @inline(__always)
    func untrack(_ handles: OpaquePointer?...) {
        #if DEBUG
        for handle in handles {
            let removed = registered.remove(UInt(bitPattern: handle)) != nil
            assert(removed, "Vulkan object \(String(describing: handle)) destroyed but never registered")
        }
        #endif
    }

    /// Picks a device: a discrete GPU, else an integrated one, else a virtual one, else the CPU
    /// (lavapipe). Needs Vulkan 1.2 and a graphics queue. `extensions`: device extensions to
    /// enable (`VK_KHR_swapchain` for a window); `optional`: also enabled where the device has
    /// them (`enabledExtensions` tells which).
    init(instance: VulkanInstance, extensions required: [String] = [], optional: [String] = []) throws(RenderError) {
        let devices: [VkPhysicalDevice?] = try enumerate("vkEnumeratePhysicalDevices") {
            vkEnumeratePhysicalDevices(instance.raw, $0, $1)
        }
        func rank(_ type: VkPhysicalDeviceType) -> Int {
            switch type {
            case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: 4
            case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: 3
            case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: 2
            case VK_PHYSICAL_DEVICE_TYPE_CPU: 1
            default: 0
            }
        }
        var best: (device: VkPhysicalDevice, family: UInt32, properties: VkPhysicalDeviceProperties,
                   timestampBits: UInt32, rank: Int)?
        for case let device? in devices {
            var props = VkPhysicalDeviceProperties()
            vkGetPhysicalDeviceProperties(device, &props)
            guard props.apiVersion >= vulkanAPIVersion(1, 2) else { continue }
            let families: [VkQueueFamilyProperties] = enumerate {
                vkGetPhysicalDeviceQueueFamilyProperties(device, $0, $1)
            }
            guard let family = families.firstIndex(where: {
                $0.queueFlags & VK_QUEUE_GRAPHICS_BIT.rawValue != 0
            }) else { continue }
            let r = rank(props.deviceType)
            if best == nil || r > best!.rank {
                best = (device, UInt32(family), props, families[family].timestampValidBits, r)
            }
        }
        guard let best else { throw .noDevice(RenderError.installHint) }

        physical = best.device
        queueFamily = best.family
        properties = best.properties
        var memory = VkPhysicalDeviceMemoryProperties()
        vkGetPhysicalDeviceMemoryProperties(best.device, &memory)
        memoryProperties = memory
        if best.timestampBits > 0 {
            timestampPeriod = Double(best.properties.limits.timestampPeriod)
            timestampMask = best.timestampBits >= 64 ? ~0 : (UInt64(1) << best.timestampBits) - 1
        } else {
            timestampPeriod = nil
            timestampMask = 0
        }

        let available: [VkExtensionProperties] = (try? enumerate("vkEnumerateDeviceExtensionProperties") {
            vkEnumerateDeviceExtensionProperties(best.device, nil, $0, $1)
        }) ?? []
        let names = Set(available.map { string(fromCharTuple: $0.extensionName) })
        let extensions = required + optional.filter { names.contains($0) && !required.contains($0) }
        enabledExtensions = Set(extensions)
        var priority: Float = 1
        var device: VkDevice?
        let result = withCStrings(extensions) { extensionNames in withUnsafePointer(to: &priority) { priorityPointer in
            var queueInfo = VkDeviceQueueCreateInfo()
            queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
            queueInfo.queueFamilyIndex = best.family
            queueInfo.queueCount = 1
            queueInfo.pQueuePriorities = priorityPointer
            return withUnsafePointer(to: &queueInfo) { queueInfoPointer in
                var info = VkDeviceCreateInfo()
                info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
                info.queueCreateInfoCount = 1
                info.pQueueCreateInfos = queueInfoPointer
                info.enabledExtensionCount = UInt32(extensions.count)
                info.ppEnabledExtensionNames = extensionNames
                return vkCreateDevice(best.device, &info, nil, &device)
            }
        }}
        try vk("vkCreateDevice", result)
        guard let device else { throw .vulkan(.unexpected(0), call: "vkCreateDevice") }
        raw = device
        var queue: VkQueue?
        vkGetDeviceQueue(device, best.family, 0, &queue)
        guard let queue else { throw .vulkan(.unexpected(0), call: "vkGetDeviceQueue") }
        self.queue = queue
    }

    /// Index of a memory type allowed by `typeBits` with all of `required`, preferring one
    /// that also has `preferred`.
    func memoryType(typeBits: UInt32, required: VkMemoryPropertyFlags,
                    preferred: VkMemoryPropertyFlags = 0) throws(RenderError) -> UInt32 {
        var fallback: UInt32?
        let types = withUnsafeBytes(of: memoryProperties.memoryTypes) {
            Array($0.bindMemory(to: VkMemoryType.self).prefix(Int(memoryProperties.memoryTypeCount)))
        }
        for (index, type) in types.enumerated() where typeBits & (1 << UInt32(index)) != 0 {
            guard type.propertyFlags & required == required else { continue }
            if type.propertyFlags & preferred == preferred { return UInt32(index) }
            if fallback == nil { fallback = UInt32(index) }
        }
        guard let fallback else { throw .unsupported("no memory type with properties \(required)") }
        return fallback
    }

    /// Allocates memory for `requirements` from a type with the `required` properties
    /// (preferring `preferred`): the one allocation path of buffers and images. On error nothing
    /// is allocated; the caller destroys the object it allocated for.
    func allocateMemory(_ requirements: VkMemoryRequirements, required: VkMemoryPropertyFlags,
                        preferred: VkMemoryPropertyFlags = 0) throws(RenderError) -> (memory: VkDeviceMemory, type: UInt32) {
        var allocate = VkMemoryAllocateInfo()
        allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocate.allocationSize = requirements.size
        allocate.memoryTypeIndex = try memoryType(typeBits: requirements.memoryTypeBits, required: required,
                                                  preferred: preferred)
        var memory: VkDeviceMemory?
        let result = vkAllocateMemory(raw, &allocate, nil, &memory)
        guard result == VK_SUCCESS, let memory else { throw .vulkan(VulkanError(result), call: "vkAllocateMemory") }
        return (memory, allocate.memoryTypeIndex)
    }

    /// Waits until the device is idle (`vkDeviceWaitIdle`).
    func waitIdle() throws(RenderError) {
        try vk("vkDeviceWaitIdle", vkDeviceWaitIdle(raw))
    }

    /// Destroys the device. Everything made from it must be destroyed first.
    func destroy() {
        assert(liveObjects == 0, "VulkanDevice destroyed with \(liveObjects) live Vulkan objects")
        vkDestroyDevice(raw, nil)
    }
}
