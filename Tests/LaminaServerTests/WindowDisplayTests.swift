import Foundation
import Lamina
import LaminaRender
import LaminaServer
import LaminaWire
import Testing
import DaemonTestSupport

/// `Daemon.windowChanged`: a window's drawable becomes the clients' display — pixels ÷
/// (configured scale × content scale) points, rounded, at that scale and the configured rate —
/// told to connected clients and in later welcomes; a minimized (0 × 0) drawable changes nothing.
@Suite struct WindowDisplayTests {
    @Test func aWindowsDrawableBecomesTheDisplay() throws {
        let daemon = try TestDaemon.make(size: (200, 200))
        defer { daemon.stop() }
        let fps = daemon.config.fps
        #expect(daemon.config.scale == 1)
        let a = try Connection(socketPath: daemon.socketPath, name: "a")
        defer { a.close() }
        #expect(a.display == DisplayInfo(width: 200, height: 200, scale: 1, refreshRate: fps))
        let seen = Recorder()
        a.onDisplayChange = { d in seen.add("\(d.width)x\(d.height)@\(d.scale)") }

        // A HiDPI display: 1280 × 961 pixels at content scale 2 are 640 × 480.5 points, rounded to 481.
        daemon.windowChanged(WindowSurface.Drawable(width: 1280, height: 961, contentScale: 2))
        #expect(seen.wait(for: 1) == ["640x481@2.0"])
        // Minimized: nothing changes, nothing is told.
        daemon.windowChanged(WindowSurface.Drawable(width: 0, height: 0, contentScale: 2))
        // Back at content scale 1, the same pixels: 1280 × 961 points.
        daemon.windowChanged(WindowSurface.Drawable(width: 1280, height: 961, contentScale: 1))
        #expect(seen.wait(for: 2) == ["640x481@2.0", "1280x961@1.0"])
        let b = try Connection(socketPath: daemon.socketPath, name: "b")
        defer { b.close() }
        #expect(b.display == DisplayInfo(width: 1280, height: 961, scale: 1, refreshRate: fps))
        #expect(a.display == b.display)
    }
}
