import CVulkan

/// The seam between a window system and the renderer's window target. LaminaRender knows no
/// window library: the executable that owns the window (`lamina-viewer`, the only importer of
/// `CGLFW`) fills this in with the instance extensions its surface needs, a function that
/// makes the `VkSurfaceKHR`, and the window's drawable size, read on the render thread.
public struct WindowSurface: Sendable {
    /// The window's drawable area now: device pixels (0 × 0 while minimized) and the
    /// display's content scale (2 on a HiDPI display, 1 otherwise).
    public struct Drawable: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var contentScale: Double
        public init(width: Int, height: Int, contentScale: Double) {
            self.width = width; self.height = height; self.contentScale = contentScale
        }
        /// Nothing can be drawn (a minimized window).
        public var isEmpty: Bool { width <= 0 || height <= 0 }
        /// The screen this drawable shows at a configured points-to-pixels `scale`: pixels ÷
        /// (configured scale × content scale) points, and that product as the scale. The one
        /// formula the render thread (its viewport) and the server (clients' display) use.
        public func screen(configScale: Double) -> (width: Double, height: Double, scale: Double) {
            let scale = configScale * (contentScale > 0 ? contentScale : 1)
            return (Double(width) / scale, Double(height) / scale, scale)
        }
    }

    /// Instance extensions the surface needs (`VK_KHR_surface` and the platform's, e.g.
    /// `VK_KHR_xcb_surface`), as the window library reports them.
    public var instanceExtensions: [String]
    /// Makes the window's surface for a `VkInstance`, on the render thread; returns the
    /// `VkSurfaceKHR`, or nil when it cannot. The renderer destroys the surface.
    public var makeSurface: @Sendable (_ instance: OpaquePointer) -> OpaquePointer?
    /// The drawable now; any thread may call it (the window's thread updates it).
    public var drawable: @Sendable () -> Drawable
    /// The display's refresh rate in Hz, when the window system knows it.
    public var refreshRate: Double?

    public init(instanceExtensions: [String], makeSurface: @escaping @Sendable (OpaquePointer) -> OpaquePointer?,
                drawable: @escaping @Sendable () -> Drawable, refreshRate: Double?) {
        self.instanceExtensions = instanceExtensions
        self.makeSurface = makeSurface
        self.drawable = drawable
        self.refreshRate = refreshRate
    }
}

/// How frames reach the display, and who paces them.
public enum PresentPacing: String, Sendable, Equatable {
    /// FIFO at the display's rate, which is the configured rate: presentation blocks the
    /// render thread once a frame is queued, so the swapchain paces it (no sleeping).
    case fifo
    /// Mailbox: the newest frame replaces a queued one; the render thread paces itself from
    /// real timestamps at the configured rate.
    case mailbox
    /// Immediate: frames go out as they are done (tearing possible); the render thread paces
    /// itself from real timestamps.
    case immediate
    /// FIFO because nothing else is offered, at a display rate that is not the configured
    /// one: the render thread paces itself too, and the display's rate caps it.
    case fifoCapped

    /// Whether the render thread paces frames itself (sleeps to its deadlines).
    public var renderThreadPaces: Bool { self != .fifo }

    /// The mode for a display refreshing at `displayHz` (nil: unknown) and a configured rate
    /// `fps`, from the modes the surface offers (FIFO is always offered).
    ///
    /// FIFO where the display runs at the configured rate (within 1 %): vsync paces exactly,
    /// with no tearing and no sleeping. Otherwise FIFO would hold the compositor at the
    /// display's rate (60 Hz on a 60 Hz display, not the configured 120), so mailbox (no
    /// tearing, the newest frame wins), else immediate, with the render thread pacing from
    /// real timestamps; FIFO only when it is the one mode offered.
    public static func choose(offered: Set<PresentMode>, displayHz: Double?, fps: Double) -> PresentPacing {
        if let displayHz, displayHz > 0, abs(displayHz - fps) <= 0.01 * fps, offered.contains(.fifo) { return .fifo }
        if offered.contains(.mailbox) { return .mailbox }
        if offered.contains(.immediate) { return .immediate }
        return .fifoCapped
    }

    /// The Vulkan present mode.
    var mode: PresentMode {
        switch self {
        case .fifo, .fifoCapped: .fifo
        case .mailbox: .mailbox
        case .immediate: .immediate
        }
    }
}

/// The present modes the choice considers (`VkPresentModeKHR`).
public enum PresentMode: Sendable, Hashable {
    case fifo, mailbox, immediate, other

    init(_ mode: VkPresentModeKHR) {
        switch mode {
        case VK_PRESENT_MODE_FIFO_KHR: self = .fifo
        case VK_PRESENT_MODE_MAILBOX_KHR: self = .mailbox
        case VK_PRESENT_MODE_IMMEDIATE_KHR: self = .immediate
        default: self = .other
        }
    }

    var vk: VkPresentModeKHR {
        switch self {
        case .fifo, .other: VK_PRESENT_MODE_FIFO_KHR
        case .mailbox: VK_PRESENT_MODE_MAILBOX_KHR
        case .immediate: VK_PRESENT_MODE_IMMEDIATE_KHR
        }
    }
}
