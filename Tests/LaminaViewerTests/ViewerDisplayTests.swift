import Foundation
import Lamina
import LaminaWire
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Clients follow lamina-viewer's window under Xvfb: xdotool resizes it, a connected client's
/// `onDisplayChange` hears the new size in points (pixels ÷ scale 1: Xvfb's 96 dpi is content
/// scale 1, and the viewer runs at the configured scale 1) at the configured 60 Hz, and a
/// client connecting afterwards is welcomed with it.
@Suite(.serialized) struct ViewerDisplayTests {
    final class Heard: Sendable {   // what the callback heard (the connection's delivery context)
        let displays = Mutex<[DisplayInfo]>([])
    }

    /// Waits until `condition` holds on what was heard (10 s at most).
    static func wait(_ heard: Heard, _ condition: ([DisplayInfo]) -> Bool) -> [DisplayInfo] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let seen = heard.displays.withLock { $0 }
            if condition(seen) { return seen }
            usleep(20_000)
        }
        return heard.displays.withLock { $0 }
    }

    @Test func clientsFollowTheWindowsSize() throws {
        let x = try XServer()
        let viewer = try ViewerProcess(display: x.display, size: "320x240")
        defer { viewer.stop() }
        let window = try x.window(named: "Lamina")
        let a = try Connection(socketPath: viewer.socket, name: "a")
        defer { a.close() }
        #expect(a.display == DisplayInfo(width: 320, height: 240, scale: 1, refreshRate: 60))
        let heard = Heard()
        a.onDisplayChange = { info in heard.displays.withLock { $0.append(info) } }

        // 400 × 300 pixels at scale 1: 400 × 300 points.
        let big = DisplayInfo(width: 400, height: 300, scale: 1, refreshRate: 60)
        try x.resize(window: window, width: 400, height: 300)
        var seen = Self.wait(heard) { $0.last == big }
        #expect(seen.last == big, "heard \(seen)")
        #expect(a.display == big)
        #expect(a.canvasSize.width == 400 && a.canvasSize.height == 300)
        // A client connecting after the resize is welcomed with the new size.
        let b = try Connection(socketPath: viewer.socket, name: "b")
        defer { b.close() }
        #expect(b.display == big)

        // Smaller than configured: both clients hear it; each change is told once.
        let small = DisplayInfo(width: 250, height: 180, scale: 1, refreshRate: 60)
        let heardB = Heard()
        b.onDisplayChange = { info in heardB.displays.withLock { $0.append(info) } }
        try x.resize(window: window, width: 250, height: 180)
        seen = Self.wait(heard) { $0.last == small }
        let seenB = Self.wait(heardB) { $0.last == small }
        #expect(seen == [big, small], "a heard \(seen)")
        #expect(seenB == [small], "b heard \(seenB)")
        let c = try Connection(socketPath: viewer.socket, name: "c")
        defer { c.close() }
        #expect(c.display == small)
        // The screen follows too: a capture is the window's size in pixels.
        let png = try c.capture()
        #expect(png.width == 250 && png.height == 180)
    }
}
