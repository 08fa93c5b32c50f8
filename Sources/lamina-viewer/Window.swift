import CGLFW
import Foundation
import Lamina
import LaminaRender
import Synchronization

/// The GLFW window (main thread only, as GLFW requires) and what the render thread reads of
/// it through `WindowSurface`: the Vulkan surface, made on the render thread
/// (`glfwCreateWindowSurface` may be called from any thread), and the drawable size, which
/// the main thread refreshes after every batch of events.
final class ViewerWindow {
    /// A GLFW window handle that the render thread may use for `glfwCreateWindowSurface` only.
    private struct Handle: @unchecked Sendable { let raw: OpaquePointer }

    let raw: OpaquePointer
    /// The drawable as the main thread last read it (shared with the render thread).
    private final class Shared: Sendable {
        let drawable = Mutex(WindowSurface.Drawable(width: 0, height: 0, contentScale: 1))   // protected by its own lock
    }
    private let shared = Shared()
    let refreshRate: Double?

    /// Opens a window of `width × height` points at `scale` (GLFW scales it by the monitor's
    /// content scale where the platform needs it).
    init(title: String, width: Int, height: Int, scale: Double) throws {
        guard glfwInit() == GLFW_TRUE else { throw ViewerError("GLFW could not start (no X display? set DISPLAY or use xvfb-run)") }
        guard glfwVulkanSupported() == GLFW_TRUE else {
            glfwTerminate()
            throw ViewerError("GLFW finds no Vulkan loader (install libvulkan1 and mesa-vulkan-drivers)")
        }
        glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API)
        glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE)
        guard let window = glfwCreateWindow(Int32((Double(width) * scale).rounded()), Int32((Double(height) * scale).rounded()),
                                            title, nil, nil) else {
            glfwTerminate()
            throw ViewerError("GLFW could not open a window")
        }
        raw = window
        if let monitor = glfwGetPrimaryMonitor(), let mode = glfwGetVideoMode(monitor), mode.pointee.refreshRate > 0 {
            refreshRate = Double(mode.pointee.refreshRate)
        } else {
            refreshRate = nil
        }
        refresh()
    }

    /// Reads the drawable size and content scale (main thread; after events).
    func refresh() {
        var w: Int32 = 0, h: Int32 = 0
        glfwGetFramebufferSize(raw, &w, &h)
        var sx: Float = 1, sy: Float = 1
        glfwGetWindowContentScale(raw, &sx, &sy)
        let iconified = glfwGetWindowAttrib(raw, GLFW_ICONIFIED) != 0
        let now = WindowSurface.Drawable(width: iconified ? 0 : Int(w), height: iconified ? 0 : Int(h),
                                         contentScale: Double(max(sx, sy)))
        shared.drawable.withLock { $0 = now }
    }

    var current: WindowSurface.Drawable { shared.drawable.withLock { $0 } }

    /// The seam LaminaRender presents through.
    var surface: WindowSurface {
        var count: UInt32 = 0
        var extensions: [String] = []
        if let names = glfwGetRequiredInstanceExtensions(&count) {
            for i in 0..<Int(count) { if let name = names[i] { extensions.append(String(cString: name)) } }
        }
        let handle = Handle(raw: raw)
        let shared = self.shared
        return WindowSurface(instanceExtensions: extensions, makeSurface: { instance in
            var surface: VkSurfaceKHR?
            let result = glfwCreateWindowSurface(instance, handle.raw, nil, &surface)
            return result == VK_SUCCESS ? surface : nil
        }, drawable: { shared.drawable.withLock { $0 } }, refreshRate: refreshRate)
    }

    /// The cursor in canvas points (window coordinates → drawable pixels → points, as the
    /// render thread sizes the screen: pixels ÷ (configured scale × content scale)).
    func cursorPoint(scale: Double) -> Point {
        var x = 0.0, y = 0.0
        glfwGetCursorPos(raw, &x, &y)
        var ww: Int32 = 0, wh: Int32 = 0, fw: Int32 = 0, fh: Int32 = 0
        glfwGetWindowSize(raw, &ww, &wh)
        glfwGetFramebufferSize(raw, &fw, &fh)
        var sx: Float = 1, sy: Float = 1
        glfwGetWindowContentScale(raw, &sx, &sy)
        let pointScale = scale * Double(max(sx, sy))
        let px = ww > 0 ? Double(fw) / Double(ww) : 1, py = wh > 0 ? Double(fh) / Double(wh) : 1
        return Point(x * px / pointScale, y * py / pointScale)
    }

    /// The cursor in canvas points, or nil when it is outside the window.
    func pointer(scale: Double) -> Point? {
        guard glfwGetWindowAttrib(raw, GLFW_HOVERED) != 0 else { return nil }
        return cursorPoint(scale: scale)
    }

    var shouldClose: Bool { glfwWindowShouldClose(raw) != 0 }

    /// Closes the window; call once the render thread has released its surface.
    func close() {
        glfwDestroyWindow(raw)
        glfwTerminate()
    }
}

struct ViewerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
