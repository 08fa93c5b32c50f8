import CGLFW
import Foundation
import Lamina
import LaminaRender
import LaminaServer

/// The viewer's keys and the state they change (main thread only: GLFW calls the key
/// callback from `glfwWaitEvents…`). Each change is printed as one line on stdout.
final class ViewerControls {
    let daemon: Daemon
    let capturesDirectory: String
    var paused = false
    var slow = false
    /// Reduce Motion as the viewer's setting. Clients are not told yet: the protocol's Reduce
    /// Motion setting and event are not in LaminaServer yet (the protocol helper adds them).
    var reduceMotion = false
    var overlay = OverlaySettings()
    var quitRequested = false
    private var captureCount = 0

    /// The instance the C key callback reaches (GLFW callbacks carry no context here).
    nonisolated(unsafe) static var current: ViewerControls?

    init(daemon: Daemon, capturesDirectory: String) {
        self.daemon = daemon
        self.capturesDirectory = capturesDirectory
    }

    func install(on window: ViewerWindow) {
        Self.current = self
        glfwSetKeyCallback(window.raw) { _, key, _, action, _ in
            guard action == GLFW_PRESS else { return }
            ViewerControls.current?.press(key)
        }
    }

    /// Compositor time's rate: 0 paused, 0.1 slow, else 1.
    var rate: Double { paused ? 0 : slow ? 0.1 : 1 }

    func press(_ key: Int32) {
        switch key {
        case GLFW_KEY_SPACE:
            paused.toggle()
            daemon.clock.setRate(rate)
            daemon.renderLoop.requestFrame()
            say(paused ? "paused" : "resumed")
        case GLFW_KEY_S:
            slow.toggle()
            daemon.clock.setRate(rate)
            say("slow animations \(slow ? "on (×0.1)" : "off")")
        case GLFW_KEY_R:
            reduceMotion.toggle()
            say("reduce motion \(reduceMotion ? "on" : "off")")
        case GLFW_KEY_H:
            overlay.hud.toggle()
            daemon.renderLoop.setOverlay(overlay)
            say("hud \(overlay.hud ? "on" : "off")")
        case GLFW_KEY_W:
            overlay.wireframe.toggle()
            daemon.renderLoop.setOverlay(overlay)
            say("wireframe \(overlay.wireframe ? "on" : "off")")
        case GLFW_KEY_D:
            overlay.tintRedraws.toggle()
            daemon.renderLoop.setOverlay(overlay)
            say("redraw tint \(overlay.tintRedraws ? "on" : "off")")
        case GLFW_KEY_C:
            captureCount += 1
            capture(to: "\(capturesDirectory)/viewer-\(captureCount).png")
        case GLFW_KEY_Q, GLFW_KEY_ESCAPE:
            quitRequested = true
            say("quitting")
        default:
            break
        }
    }

    /// Captures the current frame through the socket, as any client would, off the main
    /// thread (the event loop keeps running), and writes the PNG.
    private func capture(to path: String) {
        let socket = daemon.socketPath
        let directory = capturesDirectory
        Thread.detachNewThread {
            do {
                let connection = try Connection(socketPath: socket, name: "lamina-viewer capture")
                defer { connection.close() }
                let shot = try connection.capture()
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try Data(shot.png).write(to: URL(fileURLWithPath: path))
                say("captured \(path) (\(shot.width)x\(shot.height))")
            } catch {
                say("capture failed: \(error)")
            }
        }
    }

    /// The presentation figures as one JSON object: presented frames per second (presents
    /// over the run), frame-time p50/p99, frames missed by the pacing, frames not presented.
    static func measurementJSON(_ loop: RenderLoop) -> String {
        let stats = loop.stats
        let counts = loop.presentation
        let seconds = max(loop.clock.realSeconds, 1e-9)
        func number(_ x: Double) -> String { String(format: "%.3f", x) }
        return """
            {"presentMode":"\(counts?.pacing.rawValue ?? "none")","seconds":\(number(seconds)),\
            "presented":\(counts?.presented ?? 0),"presentedFPS":\(number(Double(counts?.presented ?? 0) / seconds)),\
            "renderedFPS":\(number(stats.fps)),"p50ms":\(number(stats.p50ms)),"p99ms":\(number(stats.p99ms)),\
            "missed":\(stats.droppedFrames),"unpresented":\(counts?.unpresented ?? 0),\
            "swapchains":\(counts?.swapchains ?? 0),"layers":\(stats.layers),"targetFPS":\(number(stats.targetFPS))}
            """
    }
}
