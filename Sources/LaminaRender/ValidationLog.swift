import Synchronization

/// Warnings and errors reported by the Vulkan validation layer (and the loader) through the
/// debug-utils messenger, kept so that tests can fail when any was reported.
///
/// Outlives the renderer on purpose: messages printed while it shuts down (leaked objects
/// reported by `vkDestroyDevice`, say) land here too. Any thread may read it.
public final class ValidationLog: Sendable {
    // protected by the Mutex: the messenger callback runs on whichever thread made the call.
    private let storage = Mutex<[String]>([])

    public init() {}

    /// Every warning or error message so far, oldest first.
    public var messages: [String] { storage.withLock { $0 } }

    func append(_ message: String) { storage.withLock { $0.append(message) } }
}
