import CVulkan

/// What a Vulkan call can fail with that callers cannot prevent. Every `VkResult` is mapped
/// here once, by `VulkanError(_:)`; code that calls Vulkan uses `check(_:)`.
public enum VulkanError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Host or device memory ran out (`VK_ERROR_OUT_OF_HOST_MEMORY`, `…_DEVICE_MEMORY`,
    /// `VK_ERROR_FRAGMENTED_POOL`, `VK_ERROR_OUT_OF_POOL_MEMORY`).
    case outOfMemory
    /// The device was lost (`VK_ERROR_DEVICE_LOST`): a driver reset or crash.
    case deviceLost
    /// A window surface changed under a swapchain (`VK_ERROR_OUT_OF_DATE_KHR`,
    /// `VK_SUBOPTIMAL_KHR`, `VK_ERROR_SURFACE_LOST_KHR`): recreate it.
    case surfaceOutOfDate
    /// Anything else, with the raw `VkResult` code.
    case unexpected(Int32)

    /// Maps a failing `VkResult`.
    init(_ result: VkResult) {
        switch result {
        case VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_OUT_OF_DEVICE_MEMORY,
             VK_ERROR_FRAGMENTED_POOL, VK_ERROR_OUT_OF_POOL_MEMORY:
            self = .outOfMemory
        case VK_ERROR_DEVICE_LOST:
            self = .deviceLost
        case VK_ERROR_OUT_OF_DATE_KHR, VK_SUBOPTIMAL_KHR, VK_ERROR_SURFACE_LOST_KHR:
            self = .surfaceOutOfDate
        default:
            self = .unexpected(result.rawValue)
        }
    }

    public var description: String {
        switch self {
        case .outOfMemory: "Vulkan: out of memory"
        case .deviceLost: "Vulkan: device lost"
        case .surfaceOutOfDate: "Vulkan: surface out of date"
        case .unexpected(let code): "Vulkan: unexpected result \(code)"
        }
    }
}

/// Throws unless `result` is `VK_SUCCESS`.
@inline(__always)
func check(_ result: VkResult) throws(VulkanError) {
    if result != VK_SUCCESS { throw VulkanError(result) }
}

/// Runs the result of a Vulkan call through `check` and names the call in the error:
/// `try vk("vkCreateBuffer", vkCreateBuffer(...))`.
@inline(__always)
func vk(_ call: StaticString, _ result: VkResult) throws(RenderError) {
    if result != VK_SUCCESS { throw .vulkan(VulkanError(result), call: "\(call)") }
}
