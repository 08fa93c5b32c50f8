/// Why the renderer could not start or draw a frame.
public enum RenderError: Error, Sendable, CustomStringConvertible {
    /// No Vulkan driver or no usable device: the message tells the user what to install.
    case noDevice(String)
    /// The device cannot do something the renderer needs (a format, a size limit).
    case unsupported(String)
    /// A Vulkan call failed; `call` names it.
    case vulkan(VulkanError, call: String)

    public var description: String {
        switch self {
        case .noDevice(let message): message
        case .unsupported(let message): "unsupported: \(message)"
        case .vulkan(let error, let call): "\(error) in \(call)"
        }
    }

    static let installHint = """
        no Vulkan device found. Lamina needs a Vulkan 1.2 driver; on a machine without a GPU \
        install Mesa's software rasterizer: `sudo apt install mesa-vulkan-drivers` \
        (it provides lavapipe)
        """
}
