/// The screen's size as the render thread sees it: the configured size without a window;
/// with one, the window's drawable read each frame — pixels ÷ (configured scale × the
/// display's content scale) points, so a HiDPI display draws the same points with more
/// pixels. While the window is minimized (0 × 0) the last size stays and nothing is drawn.
/// Render thread only.
struct WindowViewport {
    private let window: WindowSurface?
    private let configScale: Double
    private var last: WindowSurface.Drawable?
    private(set) var points: (Double, Double)
    private(set) var scale: Double
    private(set) var minimized = false

    init(config: RenderConfig) {
        window = config.window
        configScale = config.scale
        points = (config.widthPoints, config.heightPoints)
        scale = config.scale
    }

    /// Reads the window's drawable; true when the screen's size or scale changed.
    mutating func update() -> Bool {
        guard let window else { return false }
        let drawable = window.drawable()
        minimized = drawable.isEmpty
        guard !minimized, drawable != last else { return false }
        last = drawable
        let screen = drawable.screen(configScale: configScale)
        scale = screen.scale
        points = (screen.width, screen.height)
        return true
    }
}

/// The window's presentation so far.
public struct PresentationCounts: Sendable, Equatable {
    /// The present mode and who paces frames.
    public var pacing: PresentPacing
    /// Frames presented.
    public var presented: Int
    /// Frames drawn but not presented (a size change in flight, no swapchain image in time).
    public var unpresented: Int
    /// Swapchains made (1 + recreations after resizes and out-of-date surfaces).
    public var swapchains: Int
}
