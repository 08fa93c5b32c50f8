import Foundation
import Synchronization
import Lamina
import LaminaPNG
import LaminaServer
import Testing
import TestSupport
import DaemonTestSupport

/// `examples/shm-clock.py` (written from docs/protocol.md: a memfd pool sent with SCM_RIGHTS,
/// two buffers, cairo drawing, frame callbacks and releases) run against a real laminad for
/// a few frames while another client captures the canvas: the dial's pixels are cairo's.
@Suite(.serialized) struct ShmClockExampleTests {
    @Test func theClockExampleShowsItsCairoDialThroughSharedMemory() throws {
        let python = ProcessInfo.processInfo.environment["SHM_CLOCK_PYTHON"] ?? "/usr/bin/python3"
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import cairo"]
        try probe.run(); probe.waitUntilExit()
        try #require(probe.terminationStatus == 0, "python3-cairo is missing (scripts/bootstrap installs it)")
        // laminad in its own process: descriptors it receives are its own, never numbers this
        // test process's Foundation opens and closes around its child processes.
        try #require(FileManager.default.isExecutableFile(atPath: DaemonRobustnessTests.laminad.path), "laminad is not built")
        let socketPath = NSTemporaryDirectory() + "lamina-shm-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let laminad = Process()
        laminad.executableURL = DaemonRobustnessTests.laminad
        laminad.arguments = ["--headless", "--socket", socketPath, "--size", "200x200", "--clock", "manual"]
        laminad.standardOutput = FileHandle.nullDevice
        try laminad.run()
        defer { laminad.terminate(); laminad.waitUntilExit() }
        let up = Date().addingTimeInterval(20)
        while !UnixSocket.isLive(path: socketPath) && Date() < up { usleep(20_000) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [root.appendingPathComponent("examples/shm-clock.py").path, "--socket", socketPath, "--size", "160"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out; process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }
        // Wait for its third frame line (each after the frame callback of a commit).
        let printed = Mutex("")
        out.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            printed.withLock { $0 += String(decoding: d, as: UTF8.self) }
        }
        defer { out.fileHandleForReading.readabilityHandler = nil }
        let deadline = Date().addingTimeInterval(20)
        while printed.withLock({ $0.components(separatedBy: "\n").count }) < 4 && Date() < deadline && process.isRunning {
            usleep(10_000)
        }
        let text = printed.withLock { $0 }
        if !process.isRunning {
            Issue.record("the example ended: \(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))")
        }
        try #require(text.hasPrefix("frame 1 at ") && text.components(separatedBy: "\n").count >= 4, "\(text)")
        let c = try Connection(socketPath: socketPath, name: "watcher")
        let img = try PNG.decode(c.capture(at: nil).png)
        // The surface is at (20, 20), 160 × 160; the dial's center (100, 100) is the hub
        // (0.8, 0.1, 0.1); at 45° and 0.9 of the radius (78) no hand reaches (they end at
        // 0.75) and no tick lies (they are at multiples of 30°): the face (0.95, 0.93, 0.85);
        // the layer's corner is outside the disk: transparent over the black canvas.
        let r = 78.0, at45 = (100 + 0.9 * r * 0.7071, 100 - 0.9 * r * 0.7071)
        TestSupport.expectPixel(img, 100, 100, RGBA(204, 26, 26), tolerance: 2, alphaTolerance: 0)
        TestSupport.expectPixel(img, Int(at45.0), Int(at45.1), RGBA(242, 237, 217), tolerance: 2, alphaTolerance: 0)
        TestSupport.expectPixel(img, 200 - Int(at45.0), Int(at45.1), RGBA(242, 237, 217), tolerance: 2, alphaTolerance: 0)
        TestSupport.expectPixel(img, 22, 22, RGBA(0, 0, 0), tolerance: 0, alphaTolerance: 0)
        // The ring (dark, 3 px wide at the radius) on the dial's left edge.
        TestSupport.expectPixel(img, 20 + 2, 100, RGBA(51, 51, 64), tolerance: 8, alphaTolerance: 0)
        process.terminate()   // SIGTERM: the example stops cleanly
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
