import Foundation
import LaminaServer
import Testing

/// `examples/swift` (the `lamina-example` executable, built with the tests) run against a
/// real daemon with the manual clock; what it prints is checked against values computed
/// from its own words and the document.
@Suite(.serialized) struct SwiftExampleTests {
    /// A built executable (`lamina-example`, `lamina-kiosk`, …): beside the test bundle, else in
    /// the package's .build/debug.
    static func executable(_ name: String = "lamina-example") -> URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug").standardized,
        ]
        return candidates.map { $0.appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// A started headless daemon for an example: the manual clock, `width × height`, a fresh
    /// socket path named after `label`.
    static func daemon(_ label: String, width: Int, height: Int) throws -> Daemon {
        var config = DaemonConfig()
        config.socket = NSTemporaryDirectory() + "lamina-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        config.width = width; config.height = height
        config.clock = "manual"
        let daemon = Daemon(config: config)
        try daemon.start()
        return daemon
    }

    /// Runs `exe` with `arguments` to its end: what it wrote to standard output and error.
    static func run(_ exe: URL, _ arguments: [String],
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> (text: String, errors: String) {
        let process = Process()
        process.executableURL = exe
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out; process.standardError = err
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)", sourceLocation: sourceLocation)
        return (text, errors)
    }

    @Test func theSwiftExampleDrawsAnimatesAndHearsItsEvents() throws {
        guard let exe = Self.executable() else { Issue.record("lamina-example was not built"); return }
        let daemon = try Self.daemon("swift-example", width: 320, height: 240)
        defer { daemon.stop() }
        let (text, errors) = try Self.run(exe, [daemon.socketPath])
        guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            Issue.record("no JSON from the example: \(text) \(errors)"); return
        }
        #expect(o["display"] as? [Int] == [320, 240])
        #expect(o["reduceMotion"] as? Bool == false)
        // position.x by +100 from 160, linear over 0.5 s: 210 at 0.25 s.
        #expect(o["halfwayX"] as? Double == 210)
        #expect(o["hitSquare"] as? Bool == true)
        #expect(o["opacity"] as? Bool == true)
        // The delegate heard the slide start and finish; the fade's completion block ran.
        #expect(o["events"] as? [String] == ["faded", "started:slide", "stopped:slide:true"])
    }
}
