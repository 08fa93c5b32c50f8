import Foundation
import Lamina
import LaminaAnimation
import LaminaGeometry
import LaminaPNG
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// lamina-viewer under a private Xvfb: the window's pixels as the X server holds them match
/// the offscreen render of the same frame (Lamina's capture) exactly, before and after a
/// resize; each key changes what it is documented to change; Q and SIGTERM shut it down.
@Suite(.serialized) struct ViewerTests {
    static let width = 320, height = 240

    /// The scene of DaemonTests (its pixels worked out there) and a blue triangle shape layer.
    static func buildScene(_ c: Connection) throws {
        try DaemonScene.build(c, commit: false)
        let shape = c.makeShapeLayer()
        shape.bounds = Rect(0, 0, 320, 240); shape.anchorPoint = Point(0, 0); shape.position = Point(0, 0)
        shape.path = .polygon([Point(200, 100), Point(300, 100), Point(250, 20)])
        shape.fillColor = Color(0, 0, 1)
        c.root.addSublayer(shape)
        try c.commit()
    }

    @Test func windowMatchesOffscreenRenderAndKeysWork() throws {
        let x = try XServer()
        let viewer = try ViewerProcess(display: x.display, size: "\(Self.width)x\(Self.height)")
        defer { viewer.stop() }
        let window = try x.window(named: "Lamina")
        let c = try Connection(socketPath: viewer.socket, name: "viewer-test")
        defer { c.close() }
        try Self.buildScene(c)

        // The window shows the offscreen render's bytes.
        var shot = try matchingScreenshot(x, window, c, width: Self.width, height: Self.height)
        expectPixel(shot, 100, 30, RGBA(255, 0, 0, 255))       // A: red
        expectPixel(shot, 70, 45, RGBA(0, 255, 0, 255))        // C, turned 45°: green
        expectPixel(shot, 110, 110, RGBA(128, 0, 128, 255), tolerance: 1)   // B at 50 % over A
        expectPixel(shot, 250, 80, RGBA(0, 0, 255, 255))       // inside the triangle
        expectPixel(shot, 300, 220, RGBA(0, 0, 0, 255))        // background

        // A resize: the screen follows the window (more points at scale 1), still the same bytes.
        try x.resize(window: window, width: 400, height: 300)
        shot = try matchingScreenshot(x, window, c, width: 400, height: 300)
        expectPixel(shot, 100, 30, RGBA(255, 0, 0, 255))
        expectPixel(shot, 390, 290, RGBA(0, 0, 0, 255))
        try x.resize(window: window, width: Self.width, height: Self.height)
        _ = try matchingScreenshot(x, window, c, width: Self.width, height: Self.height)

        // H: the HUD's budget line, white, 48 px down from the top (margin 8 + half the 80 px graph).
        try x.key("h", window: window)
        try viewer.waitForLine("hud on")
        try waitForPixel(x, window, 100, 48) { $0 == RGBA(255, 255, 255, 255) }
        try x.key("h", window: window)
        try viewer.waitForLine("hud off")
        // W: the triangle's fill at 35 % (0.35 × 255 = 89.25 over black) under white edges.
        try x.key("w", window: window)
        try viewer.waitForLine("wireframe on")
        try waitForPixel(x, window, 250, 80) { $0.r == 0 && $0.g == 0 && abs($0.b - 89) <= 1 }
        // The bottom edge: a 1-pixel white rect centered on the pixel boundary y = 100 covers half
        // of pixel row 100, so 0.5 × 255 white over what is below (no red or green there).
        try waitForPixel(x, window, 250, 100) { abs($0.r - 128) <= 8 && abs($0.g - 128) <= 8 }
        try x.key("w", window: window)
        try viewer.waitForLine("wireframe off")
        // D: the region a frame's damage redraws is tinted (20 % of a hue): a layer added while
        // it is on is tinted, the black background far from it is not.
        try x.key("d", window: window)
        try viewer.waitForLine("redraw tint on")
        let marker = c.makeLayer()
        marker.bounds = Rect(0, 0, 20, 20); marker.anchorPoint = Point(0, 0); marker.position = Point(280, 200)
        marker.backgroundColor = Color(1, 1, 1)
        c.root.addSublayer(marker)
        try c.commit()
        try waitForPixel(x, window, 290, 210) { $0.r + $0.g + $0.b > 400 && $0.r + $0.g + $0.b < 3 * 255 }
        try waitForPixel(x, window, 10, 230) { $0 == RGBA(0, 0, 0, 255) }
        try x.key("d", window: window)
        try viewer.waitForLine("redraw tint off")
        _ = try matchingScreenshot(x, window, c, width: Self.width, height: Self.height)

        // Space and S: compositor time stops, then runs at a tenth. The layer moves 10 points/s.
        let mover = c.makeLayer()
        mover.bounds = Rect(0, 0, 10, 10); mover.position = Point(20, 220); mover.backgroundColor = Color(1, 1, 0)
        c.root.addSublayer(mover)
        var timing = AnimationTiming(); timing.duration = 100
        mover.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(20), to: .double(1020), timing: timing)),
                  forKey: "move")
        try c.commit()
        func moverX() throws -> Double {
            guard case .point(let p) = try mover.presentationValue(forKeyPath: "position") else { return .nan }
            return p.x
        }
        try x.key("space", window: window)
        try viewer.waitForLine("paused")
        let pausedAt = try moverX()
        usleep(300_000)
        #expect(try moverX() == pausedAt, "paused: the presentation does not move")
        try x.key("space", window: window)
        try viewer.waitForLine("resumed")
        var (moved, seconds) = try measure(moverX)
        #expect(moved > 0.5 * 10 * seconds, "running: \(moved) points in \(seconds) s at 10 points/s")
        try x.key("s", window: window)
        try viewer.waitForLine("slow animations on")
        (moved, seconds) = try measure(moverX)
        #expect(moved > 0 && moved < 0.2 * 10 * seconds, "slow: \(moved) points in \(seconds) s, a tenth of 10 points/s")
        try x.key("s", window: window)
        try viewer.waitForLine("slow animations off")

        // R: the viewer's Reduce Motion setting (not sent to clients yet).
        try x.key("r", window: window)
        try viewer.waitForLine("reduce motion on")
        // C: a PNG of the window's size.
        try x.key("c", window: window)
        try viewer.waitForLine("captured \(viewer.captures)/viewer-1.png")
        let png = try PNG.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: "\(viewer.captures)/viewer-1.png"))))
        #expect(png.width == Self.width && png.height == Self.height)
        // Q: quits as SIGTERM does — exit status 0, the socket removed.
        // (xdotool may report the window gone before it sent the key's release.)
        _ = try? x.key("q", window: window)
        #expect(viewer.waitForExit(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: viewer.socket))
    }

    @Test func sigtermShutsTheViewerDown() throws {
        let x = try XServer()
        let viewer = try ViewerProcess(display: x.display, size: "200x100")
        defer { viewer.stop() }
        _ = try x.window(named: "Lamina")
        try viewer.waitForLine("serving")   // its signal handling is in place
        kill(viewer.pid, SIGTERM)
        #expect(viewer.waitForExit(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: viewer.socket))
        try viewer.waitForLine("stopped")
    }

    /// Screenshots the window until it has the given size and equals the capture of the
    /// current frame (the offscreen render) byte for byte in RGB; returns it.
    func matchingScreenshot(_ x: XServer, _ window: String, _ c: Connection, width: Int, height: Int) throws -> RGBAImage {
        let deadline = Date().addingTimeInterval(10)
        var last = ""
        while Date() < deadline {
            let capture = try PNG.decode(c.capture().png)
            let shot = try x.screenshot(window: window)
            if shot.width == width && shot.height == height && capture.width == width && capture.height == height {
                var opaque = capture
                for i in stride(from: 3, to: opaque.pixels.count, by: 4) { opaque.pixels[i] = 255 }
                let comparison = PixelComparator.compare(shot, opaque, tolerance: .exact)
                if comparison.passed { return shot }
                last = comparison.description
            } else {
                last = "window \(shot.width)x\(shot.height), capture \(capture.width)x\(capture.height)"
            }
            usleep(50_000)
        }
        Issue.record("the window never matched the offscreen render: \(last)")
        throw ToolError("no match")
    }

    func waitForPixel(_ x: XServer, _ window: String, _ px: Int, _ py: Int, _ check: (RGBA) -> Bool) throws {
        let deadline = Date().addingTimeInterval(10)
        var seen = RGBA(0, 0, 0, 0)
        while Date() < deadline {
            seen = try x.screenshot(window: window).pixel(px, py)
            if check(seen) { return }
            usleep(50_000)
        }
        Issue.record("pixel (\(px), \(py)) is \(seen)")
    }

    /// How far the value moves over about 0.4 s of real time, and the real seconds between the reads.
    func measure(_ read: () throws -> Double) throws -> (Double, Double) {
        let start = Date()
        let a = try read()
        usleep(400_000)
        let b = try read()
        return (b - a, Date().timeIntervalSince(start))
    }
}

/// The built `lamina-viewer` on a display, with its own socket and captures folder; its
/// stdout lines are collected.
final class ViewerProcess: @unchecked Sendable {
    let process = Process()
    let socket: String
    let captures: String
    /// Everything it printed so far (chunks arrive at any boundary).
    private final class Output: Sendable { let value = Mutex<String>("") }   // protected by its own lock
    private let output = Output()
    /// How much of the output `waitForLine` has matched already.
    private var consumed = 0
    var pid: Int32 { process.processIdentifier }

    init(display: String, size: String) throws {
        let directory = NSTemporaryDirectory() + "lamina-viewer-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socket = directory + "/sock"
        captures = directory + "/captures"
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("lamina-viewer")
        guard FileManager.default.isExecutableFile(atPath: exe.path) else {
            throw ToolError("\(exe.path) is not built: swift build --build-tests builds it")
        }
        process.executableURL = exe
        process.arguments = ["--socket", socket, "--size", size, "--captures", captures, "--fps", "60"]
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        let lines = output
        out.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            lines.value.withLock { $0 += text }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, process.isRunning else { throw ToolError("lamina-viewer did not start") }
            usleep(20_000)
        }
    }

    /// Waits until the output after the previous match contains `text`.
    func waitForLine(_ text: String, timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let found = output.value.withLock { all -> Int? in
                let rest = String(decoding: Array(all.utf8.dropFirst(consumed)), as: UTF8.self)
                guard let range = rest.range(of: text) else { return nil }
                return consumed + rest[..<range.upperBound].utf8.count
            }
            if let found { consumed = found; return }
            guard Date() < deadline else {
                throw ToolError("lamina-viewer never printed '\(text)'; it printed \(output.value.withLock { $0 })")
            }
            usleep(20_000)
        }
    }

    /// The exit status, or nil if it is still running after `timeout` seconds.
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    func stop() {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        // The handler keeps the pipe's monitor, and through it the process, alive (a leak that
        // AddressSanitizer reports at exit: scripts/sanitize address).
        (process.standardOutput as? Pipe)?.fileHandleForReading.readabilityHandler = nil
        try? FileManager.default.removeItem(atPath: (socket as NSString).deletingLastPathComponent)
    }
}
