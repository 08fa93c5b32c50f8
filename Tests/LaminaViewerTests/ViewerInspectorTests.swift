import Foundation
import Lamina
import LaminaFrame
import LaminaGeometry
import LaminaPNG
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// lamina-viewer's I and O keys under Xvfb, sent by xdotool: O shows each pixel's count of
/// blended layers in the palette (and the client's capture stays the frame); I outlines the
/// layer under the pointer, a click pins it (the clients hear nothing), Escape unpins (and
/// does not quit). `--help` lists both keys.
@Suite(.serialized) struct ViewerInspectorTests {
    @Test func theIAndOKeysToggleTheInspectorAndTheBlendedLayersView() throws {
        let x = try XServer()
        let viewer = try ViewerProcess(display: x.display, size: "320x240")
        defer { viewer.stop() }
        let window = try x.window(named: "Lamina")
        let c = try Connection(socketPath: viewer.socket, name: "inspected")
        defer { c.close() }
        // A (40, 40, 100, 80) red and B (100, 80, 100, 80) blue: 1 layer in A alone, 2 where
        // they overlap, 0 elsewhere.
        for (frame, color) in [(Rect(40, 40, 100, 80), Color(1, 0, 0)), (Rect(100, 80, 100, 80), Color(0, 0, 1))] {
            let layer = c.makeLayer()
            layer.bounds = Rect(0, 0, frame.width, frame.height); layer.anchorPoint = Point(0, 0)
            layer.position = frame.origin; layer.backgroundColor = color
            c.root.addSublayer(layer)
        }
        try c.commit()
        final class Heard: Sendable { let pointers = Mutex(0) }
        let heard = Heard()
        c.onPointer = { _ in heard.pointers.withLock { $0 += 1 } }
        let views = ViewerTests()
        _ = try views.matchingScreenshot(x, window, c, width: 320, height: 240)
        let plain = try PNG.decode(c.capture().png)
        func rgb(_ n: Int) -> RGBA { let p = BlendCount.color(forCount: n); return RGBA(Int(p.r), Int(p.g), Int(p.b), 255) }

        // O: the palette's colours by count; the client's capture is still the frame.
        try x.key("o", window: window)
        try viewer.waitForLine("blended layers on")
        try views.waitForPixel(x, window, 60, 60) { $0 == rgb(1) }
        try views.waitForPixel(x, window, 120, 100) { $0 == rgb(2) }
        try views.waitForPixel(x, window, 250, 20) { $0 == rgb(0) }
        #expect(try PNG.decode(c.capture().png).pixels == plain.pixels, "the capture excludes the view")
        try x.key("o", window: window)
        try viewer.waitForLine("blended layers off")
        _ = try views.matchingScreenshot(x, window, c, width: 320, height: 240)

        // I: the layer under the pointer outlined in magenta on its edges (A's left edge x = 40:
        // pixel columns 39 and 40), its inside untouched; the pointer goes to the inspector.
        try x.key("i", window: window)
        try viewer.waitForLine("inspector on")
        try x.run("/usr/bin/xdotool", ["mousemove", "--window", window, "60", "60"])
        try views.waitForPixel(x, window, 39, 90) { $0 == RGBA(255, 0, 255, 255) }
        try views.waitForPixel(x, window, 40, 90) { $0 == RGBA(255, 0, 255, 255) }
        try views.waitForPixel(x, window, 43, 90) { $0 == RGBA(255, 0, 0, 255) }
        try views.waitForPixel(x, window, 36, 90) { $0 == RGBA(0, 0, 0, 255) }
        // A click pins A: the panel's text appears at the top right.
        try x.run("/usr/bin/xdotool", ["click", "1"])
        try viewer.waitForLine("inspector pinned layer ")
        try views.waitForPixel(x, window, 0, 0) { _ in
            let shot = (try? x.screenshot(window: window)) ?? RGBAImage(width: 1, height: 1, pixels: [0, 0, 0, 255])
            return (150..<320).contains { px in (10..<24).contains { py in shot.width > px && shot.pixel(px, py).r > 128 } }
        }
        #expect(try PNG.decode(c.capture().png).pixels == plain.pixels, "the capture excludes the inspector")
        // Escape unpins (the viewer keeps running); I turns the inspector off.
        try x.key("Escape", window: window)
        try viewer.waitForLine("inspector unpinned")
        try x.key("i", window: window)
        try viewer.waitForLine("inspector off")
        usleep(200_000)
        #expect(heard.pointers.withLock { $0 } == 0, "no pointer event reached the client while inspecting")
        _ = try views.matchingScreenshot(x, window, c, width: 320, height: 240)
        // The pointer reaches the clients again.
        try x.run("/usr/bin/xdotool", ["mousemove", "--window", window, "70", "70"])
        let deadline = Date().addingTimeInterval(10)
        while heard.pointers.withLock({ $0 }) == 0 && Date() < deadline { usleep(50_000) }
        #expect(heard.pointers.withLock { $0 } > 0)
        #expect(viewer.waitForExit(timeout: 0.1) == nil, "still running")
    }

    @Test func theHelpListsTheInspectorAndTheBlendedLayersKeys() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("lamina-viewer")
        p.arguments = ["--help"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains("\n  I      inspector: the layer under the pointer outlined"))
        #expect(text.contains("\n  O      blended layers: each pixel coloured by how many layers were blended into it"))
        #expect(text.contains("clients'\ncaptures never include them"))
    }
}
