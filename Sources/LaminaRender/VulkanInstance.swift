import CVulkan
#if canImport(Glibc)
import Glibc
#endif

/// A Vulkan instance, with the validation layer and a debug messenger when asked for.
/// Wraps `vkCreateInstance`. Render thread only.
final class VulkanInstance {
    let raw: VkInstance
    /// The messenger that feeds `log`; nil without validation.
    private var messenger: VkDebugUtilsMessengerEXT?
    let log: ValidationLog
    /// Whether `VK_LAYER_KHRONOS_validation` is on.
    let validationEnabled: Bool
    /// Retained while the messenger may call back, as its user data.
    private let logBox: Unmanaged<ValidationLog>

    static let validationLayer = "VK_LAYER_KHRONOS_validation"

    /// - Parameter validation: enable the Khronos validation layer and the debug messenger.
    ///   Throws `unsupported` when asked for but the layer is not installed.
    /// - Parameter surfaceExtensions: what a window surface needs (`WindowSurface`), if any.
    init(validation: Bool, log: ValidationLog, surfaceExtensions: [String] = []) throws(RenderError) {
        self.log = log
        self.validationEnabled = validation
        self.logBox = Unmanaged.passRetained(log)

        var layers: [String] = []
        var extensions: [String] = surfaceExtensions
        if validation {
            let available: [VkLayerProperties] = try enumerate("vkEnumerateInstanceLayerProperties") {
                vkEnumerateInstanceLayerProperties($0, $1)
            }
            guard available.contains(where: { string(fromCharTuple: $0.layerName) == Self.validationLayer }) else {
                logBox.release()
                throw .unsupported("""
                    LAMINA_VALIDATION=1 but \(Self.validationLayer) is not installed \
                    (apt install vulkan-validationlayers)
                    """)
            }
            layers.append(Self.validationLayer)
            extensions.append("VK_EXT_debug_utils")
            // Provided by the layer: turns on synchronization validation (hazards between
            // frames, the render pass and the readback copy) besides the default checks.
            extensions.append("VK_EXT_validation_features")
        }

        var messengerInfo = Self.messengerCreateInfo(userData: logBox.toOpaque())
        var instance: VkInstance?
        let result: VkResult = "Lamina".withCString { name in
            withCStrings(layers) { layerNames in
                withCStrings(extensions) { extensionNames in
                    withUnsafePointer(to: &messengerInfo) { messengerPointer in
                        var enabledFeatures = [VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT]
                        var features = VkValidationFeaturesEXT()
                        features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT
                        features.pNext = UnsafeRawPointer(messengerPointer)
                        features.enabledValidationFeatureCount = UInt32(enabledFeatures.count)
                        var app = VkApplicationInfo()
                        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
                        app.pApplicationName = name
                        app.pEngineName = name
                        app.apiVersion = vulkanAPIVersion(1, 2)
                        return withUnsafePointer(to: &app) { appPointer in
                        enabledFeatures.withUnsafeMutableBufferPointer { featuresPointer in
                        features.pEnabledValidationFeatures = UnsafePointer(featuresPointer.baseAddress)
                        return withUnsafePointer(to: &features) { featuresChain in
                            var info = VkInstanceCreateInfo()
                            info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
                            // Chained so that messages from vkCreateInstance itself are caught.
                            info.pNext = validation ? UnsafeRawPointer(featuresChain) : nil
                            info.pApplicationInfo = appPointer
                            info.enabledLayerCount = UInt32(layers.count)
                            info.ppEnabledLayerNames = layerNames
                            info.enabledExtensionCount = UInt32(extensions.count)
                            info.ppEnabledExtensionNames = extensionNames
                            return vkCreateInstance(&info, nil, &instance)
                        }}}
                    }
                }
            }
        }
        guard result == VK_SUCCESS, let instance else {
            logBox.release()
            if result == VK_ERROR_INCOMPATIBLE_DRIVER || result == VK_ERROR_INITIALIZATION_FAILED {
                throw .noDevice(RenderError.installHint)
            }
            throw .vulkan(VulkanError(result), call: "vkCreateInstance")
        }
        raw = instance

        if validation {
            guard let create = unsafeBitCast(
                vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"),
                to: PFN_vkCreateDebugUtilsMessengerEXT?.self)
            else {
                vkDestroyInstance(instance, nil)
                logBox.release()
                throw .unsupported("VK_EXT_debug_utils has no vkCreateDebugUtilsMessengerEXT")
            }
            var created: VkDebugUtilsMessengerEXT?
            let result = create(instance, &messengerInfo, nil, &created)
            guard result == VK_SUCCESS else {
                vkDestroyInstance(instance, nil)
                logBox.release()
                throw .vulkan(VulkanError(result), call: "vkCreateDebugUtilsMessengerEXT")
            }
            messenger = created
        }
    }

    /// Destroys the messenger and the instance; everything made from it must be gone.
    func destroy() {
        if let messenger,
           let destroy = unsafeBitCast(
               vkGetInstanceProcAddr(raw, "vkDestroyDebugUtilsMessengerEXT"),
               to: PFN_vkDestroyDebugUtilsMessengerEXT?.self) {
            destroy(raw, messenger, nil)
        }
        messenger = nil
        vkDestroyInstance(raw, nil)
        logBox.release()
    }

    private static func messengerCreateInfo(userData: UnsafeMutableRawPointer) -> VkDebugUtilsMessengerCreateInfoEXT {
        var info = VkDebugUtilsMessengerCreateInfoEXT()
        info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT
        info.messageSeverity = VkDebugUtilsMessageSeverityFlagsEXT(
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT.rawValue
                | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue)
        info.messageType = VkDebugUtilsMessageTypeFlagsEXT(
            VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT.rawValue
                | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT.rawValue
                | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT.rawValue)
        info.pfnUserCallback = { severity, _, data, userData in
            // SAFETY: userData is the ValidationLog retained by the instance until destroy().
            guard let userData else { return VkBool32(VK_FALSE) }
            let log = Unmanaged<ValidationLog>.fromOpaque(userData).takeUnretainedValue()
            let text = data?.pointee.pMessage.map { String(cString: $0) } ?? "(no message)"
            let level = severity.rawValue & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT.rawValue != 0
                ? "error" : "warning"
            let line = "[vulkan \(level)] \(text)"
            log.append(line)
            var bytes = Array((line + "\n").utf8)
            _ = write(2, &bytes, bytes.count)
            return VkBool32(VK_FALSE)
        }
        info.pUserData = userData
        return info
    }
}
