import CGLFW
import Foundation
import Lamina
import LaminaFrame
import LaminaRender
import LaminaServer
import LaminaWire

/// The viewer's keys and the state they change (main thread only: GLFW calls the key
/// callback from `glfwWaitEvents…`). Each change is printed as one line on stdout.
final class ViewerControls {
    let daemon: Daemon
    let capturesDirectory: String
    var paused = false
    var slow = false
    /// Reduce Motion as the viewer's setting: the server's, so clients are told
    /// (`reduceMotionChanged`).
    var reduceMotion = false
    /// The window the pointer callbacks read positions in.
    private var window: ViewerWindow?
    var overlay = OverlaySettings()
    var quitRequested = false
    private var captureCount = 0
    /// Whether the T key's trace recording runs.
    private var tracing = false
    /// The layer the inspector has pinned (a click in inspect mode), if any.
    private(set) var pinned: LayerID?

    /// The instance the C key callback reaches (GLFW callbacks carry no context here).
    nonisolated(unsafe) static var current: ViewerControls?

    init(daemon: Daemon, capturesDirectory: String) {
        self.daemon = daemon
        self.capturesDirectory = capturesDirectory
    }

    func install(on window: ViewerWindow) {
        Self.current = self
        self.window = window
        glfwSetKeyCallback(window.raw) { _, key, _, action, mods in
            guard let controls = ViewerControls.current else { return }
            if ViewerControls.viewerKeys.contains(key) {
                if action == GLFW_PRESS { controls.press(key) }
            } else if key >= 0 {
                controls.forwardKey(key, action: action, mods: mods)
            }
        }
        // In inspect mode (I) the pointer goes to the inspector, not to the clients.
        glfwSetMouseButtonCallback(window.raw) { _, button, action, mods in
            guard let controls = ViewerControls.current, button >= 0, button <= 2 else { return }
            if controls.overlay.inspector {
                if button == 0 && action == GLFW_PRESS { controls.inspectorClick() }
                return
            }
            controls.forwardPointer(action == GLFW_PRESS ? .down : .up, button: UInt8(button), mods: mods)
        }
        glfwSetCursorPosCallback(window.raw) { _, _, _ in
            guard let controls = ViewerControls.current else { return }
            if controls.overlay.inspector { controls.inspectorPointer(); return }
            controls.forwardPointer(.moved, button: 0, mods: 0)
        }
        glfwSetScrollCallback(window.raw) { _, dx, dy in
            guard let controls = ViewerControls.current, !controls.overlay.inspector else { return }
            // GLFW's offsets are in lines, y up; the protocol's in points, y down (a line: 40 points).
            controls.forwardPointer(.scroll, button: 0, mods: 0, scroll: Point(dx * 40, -dy * 40))
        }
    }

    /// The keys the viewer keeps for itself; every other key goes to the clients.
    static let viewerKeys: Set<Int32> = [GLFW_KEY_SPACE, GLFW_KEY_S, GLFW_KEY_R, GLFW_KEY_H, GLFW_KEY_W, GLFW_KEY_D,
                                         GLFW_KEY_C, GLFW_KEY_T, GLFW_KEY_I, GLFW_KEY_O, GLFW_KEY_Q,
                                         GLFW_KEY_ESCAPE]

    /// A key for the clients: routed by the server (focus, the layer under the pointer, the
    /// frontmost client).
    func forwardKey(_ key: Int32, action: Int32, mods: Int32) {
        daemon.inject(.key(UInt32(key), isDown: action != GLFW_RELEASE, isRepeat: action == GLFW_REPEAT,
                           modifiers: UInt16(truncatingIfNeeded: mods) & 0xF, pointer: window?.pointer(scale: daemon.config.scale)))
    }

    /// A pointer event at the cursor, in canvas points.
    func forwardPointer(_ phase: PointerEvent.Phase, button: UInt8, mods: Int32, scroll: Point = Point(0, 0)) {
        guard let point = window?.cursorPoint(scale: daemon.config.scale) else { return }
        if phase == .down || phase == .up { say("pointer \(phase) at \(Int(point.x.rounded())),\(Int(point.y.rounded()))") }
        daemon.inject(.pointer(phase, at: point, button: button, modifiers: UInt16(truncatingIfNeeded: mods) & 0xF,
                               scroll: scroll))
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
            daemon.setReduceMotion(reduceMotion)
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
        case GLFW_KEY_T:
            toggleTrace()
        case GLFW_KEY_I:
            overlay.inspector.toggle()
            daemon.renderLoop.setOverlay(overlay)
            if overlay.inspector {
                inspectorPointer()
                say("inspector on (the pointer goes to the inspector: click pins a layer, Escape unpins)")
            } else {
                pinned = nil
                daemon.renderLoop.setInspectorPinned(nil)
                daemon.renderLoop.setInspectorPointer(nil)
                say("inspector off")
            }
        case GLFW_KEY_O:
            overlay.blendedLayers.toggle()
            daemon.renderLoop.setOverlay(overlay)
            say("blended layers \(overlay.blendedLayers ? "on" : "off")")
        case GLFW_KEY_ESCAPE where overlay.inspector && pinned != nil:
            pin(nil)
        case GLFW_KEY_Q, GLFW_KEY_ESCAPE:
            quitRequested = true
            say("quitting")
        default:
            break
        }
    }

    /// Inspect mode: the inspector outlines the layer under the cursor.
    func inspectorPointer() {
        daemon.renderLoop.setInspectorPointer(window?.cursorPoint(scale: daemon.config.scale))
    }

    /// Inspect mode's click: pins the topmost layer under the cursor in the newest presentation
    /// snapshot, or unpins when there is none.
    func inspectorClick() {
        guard let point = window?.cursorPoint(scale: daemon.config.scale) else { return }
        pin(daemon.renderLoop.snapshot?.hitTest(point))
    }

    private func pin(_ layer: LayerID?) {
        pinned = layer
        daemon.renderLoop.setInspectorPinned(layer)
        if let layer, let kind = daemon.renderLoop.snapshot?.tree[layer]?.kind {
            say("inspector pinned \(kind.name) \(layer)")
        } else {
            say("inspector unpinned")
        }
    }

    /// T: starts a trace recording on the render thread, or stops the viewer's and writes it
    /// (Chrome trace-event JSON, docs/protocol.md "Frame traces") as
    /// `<captures>/lamina-trace-<unix time>.json`, off the main thread.
    private func toggleTrace() {
        if !tracing {
            guard daemon.renderLoop.startTrace() else {
                say("trace not started: a client is recording one (startTrace)")
                return
            }
            tracing = true
            say("trace recording (T again stops it and writes it)")
            return
        }
        tracing = false
        guard let trace = daemon.renderLoop.stopTrace() else { say("trace: nothing recorded"); return }
        let path = "\(capturesDirectory)/lamina-trace-\(Int(Date().timeIntervalSince1970)).json"
        let directory = capturesDirectory
        Thread.detachNewThread {
            do {
                try Self.write(trace, to: path, directory: directory)
                say("trace written: \(path) (\(trace.frames.count) frames over \(String(format: "%.2f", trace.span)) s)")
            } catch {
                say("trace failed: \(error)")
            }
        }
    }

    static func write(_ trace: FrameTrace, to path: String, directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(trace.chromeJSON().utf8).write(to: URL(fileURLWithPath: path))
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
