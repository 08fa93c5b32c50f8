import Foundation
import Lamina
import LaminaGeometry
import LaminaWire
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// xdotool clicks a layer in lamina-viewer's window under Xvfb: the client that owns it gets
/// the down and the up with the point in the layer's coordinates; another client gets
/// nothing; a key not kept by the viewer reaches the clicked layer's client.
@Suite(.serialized) struct ViewerInputTests {
    @Test func aClickReachesTheLayersClientInItsCoordinates() throws {
        let x = try XServer()
        let viewer = try ViewerProcess(display: x.display, size: "200x150")
        defer { viewer.stop() }
        let window = try x.window(named: "Lamina")
        // A: a 100×100 layer centred at (70, 80), rotated 90°: its point p lands on
        // (70, 80) + R(p − (50, 50)) with R(u, v) = (−v, u), so the canvas point (60, 50) =
        // (70 − v, 80 + u) is u = −30, v = 10: its point (20, 60).
        let a = try Connection(socketPath: viewer.socket, name: "a")
        defer { a.close() }
        let layer = a.makeLayer()
        layer.bounds = Rect(0, 0, 100, 100); layer.position = Point(70, 80); layer.transform = .rotation(.pi / 2)
        layer.backgroundColor = Color(1, 0, 0)
        a.root.addSublayer(layer)
        try a.commit()
        // B: a layer far from the click.
        let b = try Connection(socketPath: viewer.socket, name: "b")
        defer { b.close() }
        let other = b.makeLayer()
        other.bounds = Rect(0, 0, 20, 20); other.position = Point(180, 130); other.backgroundColor = Color(0, 0, 1)
        b.root.addSublayer(other)
        try b.commit()
        _ = try b.capture()   // a frame with both is on the screen (and in the snapshot)

        final class Heard: Sendable {   // what each client's callbacks heard (delivery context)
            let pointers = Mutex<[PointerEvent]>([]), keys = Mutex<[KeyEvent]>([]), other = Mutex<[InputEvent]>([])
        }
        let heard = Heard()
        a.onPointer = { p in heard.pointers.withLock { $0.append(p) } }
        a.onKey = { k in heard.keys.withLock { $0.append(k) } }
        b.onPointer = { p in heard.other.withLock { $0.append(.pointer(p)) } }
        b.onKey = { k in heard.other.withLock { $0.append(.key(k)) } }
        var got: [PointerEvent] { heard.pointers.withLock { $0 } }
        var keys: [KeyEvent] { heard.keys.withLock { $0 } }
        try x.run("/usr/bin/xdotool", ["mousemove", "--window", window, "60", "50", "click", "1"])
        try viewer.waitForLine("pointer up")
        try x.run("/usr/bin/xdotool", ["key", "--window", window, "Right"])
        let deadline = Date().addingTimeInterval(10)
        while (got.filter { $0.phase != .moved }.count < 2 || keys.count < 2) && Date() < deadline {
            usleep(50_000)
        }
        let clicks = got.filter { $0.phase != .moved }
        #expect(clicks.map(\.phase) == [.down, .up])
        #expect(clicks.allSatisfy { $0.layer == layer.id && $0.button == 0 })
        for c in clicks {
            #expect(abs(c.canvasLocation.x - 60) < 1e-9 && abs(c.canvasLocation.y - 50) < 1e-9)
            #expect(abs(c.location.x - 20) < 1e-9 && abs(c.location.y - 60) < 1e-9)
        }
        #expect(keys.map(\.isDown) == [true, false] && keys.allSatisfy { $0.key == KeyCode.right && $0.layer == layer.id })
        usleep(200_000)
        #expect(heard.other.withLock { $0.isEmpty })
    }
}

/// lamina-demo's gallery in lamina-viewer: the arrow keys, sent by xdotool to the window,
/// reach the demo as input events and switch its pages.
@Suite(.serialized) struct GalleryInViewerTests {
    @Test func arrowKeysSwitchTheGallerysPages() throws {
        let x = try XServer()
        let viewer = try ViewerProcess(display: x.display, size: "400x300")
        defer { viewer.stop() }
        let window = try x.window(named: "Lamina")
        let demo = Process()
        demo.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("lamina-demo")
        demo.arguments = ["--socket", viewer.socket, "--hold", "20"]
        let out = Pipe()
        demo.standardOutput = out
        final class Lines: Sendable { let text = Mutex("") }
        let lines = Lines()
        out.fileHandleForReading.readabilityHandler = { h in
            let t = String(decoding: h.availableData, as: UTF8.self)
            lines.text.withLock { $0 += t }
        }
        try demo.run()
        defer { if demo.isRunning { demo.terminate(); demo.waitUntilExit() } }
        func waitFor(_ s: String) -> Bool {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if lines.text.withLock({ $0.contains(s) }) { return true }
                usleep(50_000)
            }
            return false
        }
        #expect(waitFor("gallery page 1: Progress ring"))
        _ = try Connection(socketPath: viewer.socket, name: "probe").capture()   // a frame with the demo's page
        try x.run("/usr/bin/xdotool", ["key", "--window", window, "Right"])
        #expect(waitFor("page 2: Springs"))
        try x.run("/usr/bin/xdotool", ["key", "--window", window, "Left", "Left"])
        #expect(waitFor("page 16: Lottie"))   // wrapped around to the last page
    }
}
