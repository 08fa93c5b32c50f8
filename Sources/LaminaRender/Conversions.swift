import CVulkan
import LaminaGeometry

// Small mappings between Lamina's values and Vulkan's, in one place.

/// `VK_MAKE_API_VERSION(0, major, minor, 0)` (a function-like macro Swift cannot import).
func vulkanAPIVersion(_ major: UInt32, _ minor: UInt32, _ patch: UInt32 = 0) -> UInt32 {
    (major << 22) | (minor << 12) | patch
}

/// Major and minor of a packed Vulkan version.
func mapAPIVersion(_ version: UInt32) -> (major: UInt32, minor: UInt32) {
    ((version >> 22) & 0x7F, (version >> 12) & 0x3FF)
}

/// A straight-alpha sRGB-encoded color as the premultiplied clear value of a UNORM target.
func mapClearColor(_ color: Color) -> VkClearValue {
    let (r, g, b, a) = color.premultiplied
    var value = VkClearValue()
    value.color.float32 = (Float(r), Float(g), Float(b), Float(a))
    return value
}

/// A set of flag bits as the `Vk…Flags` integer that create infos take.
func mapFlags<Bits: RawRepresentable>(_ bits: Bits...) -> UInt32 where Bits.RawValue == UInt32 {
    bits.reduce(0) { $0 | $1.rawValue }
}

/// `VK_QUEUE_FAMILY_IGNORED`, `VK_SUBPASS_EXTERNAL`, `VK_WHOLE_SIZE` (macros Swift may not import).
let queueFamilyIgnored: UInt32 = ~0
let subpassExternal: UInt32 = ~0
let wholeSize: VkDeviceSize = ~0
