import Foundation
import LaminaServer
import Testing

/// `examples/client.py`, a client written from docs/protocol.md alone in another language,
/// run against a real daemon (manual clock): what it prints is checked against the document.
@Suite(.serialized) struct ExampleClientTests {
    @Test func thePythonExampleDrawsAnimatesAndHearsItsEvents() throws {
        var config = DaemonConfig()
        config.socket = NSTemporaryDirectory() + "lamina-example-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        config.width = 320; config.height = 240; config.fps = 60
        config.clock = "manual"
        let daemon = Daemon(config: config)
        try daemon.start()
        defer { daemon.stop() }

        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, root.appendingPathComponent("examples/client.py").path, daemon.socketPath]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out; process.standardError = err
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(errors)")
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            Issue.record("no JSON from the example: \(text) \(errors)"); return
        }
        #expect(object["version"] as? [Int] == [1, 0])
        #expect(object["display"] as? [Double] == [320, 240, 1, 60])
        #expect(object["manualClock"] as? Bool == true)
        // Linear from 50 to 150 over 0.5 s: 100 at 0.25 s; removed on completion: the model's 50.
        #expect(object["halfway"] as? Double == 100)
        #expect(object["end"] as? Double == 50)
        #expect(object["events"] as? [String] == ["started:2:slide", "stopped:2:slide"])
    }
}
