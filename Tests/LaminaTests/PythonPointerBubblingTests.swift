import Foundation
import Lamina
import LaminaServer
import Testing
import DaemonTestSupport

/// The Python client bubbles pointer events as the Swift client does (`Layer.on_pointer`):
/// `clients/python/tests/bubbling_driver.py` runs against a real daemon hosted here, whose
/// input is injected as the viewer's window injects it (`Daemon.inject`). Its layers are
/// PointerBubblingTests': the canvas point (50, 70) is outer's (30, 40), middle's (10, 10) (it
/// is scaled ×2 about its anchor at outer's (10, 20)), inner's (5, 5) and the container's
/// (50, 70); after inner moves into other (at the origin), (10, 10) is other's (10, 10) and
/// inner's (5, 5).
@Suite(.serialized) struct PythonPointerBubblingTests {
    @Test func handlersRunInnermostFirstInTheirOwnCoordinatesUntilOneHandlesIt() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, root.appendingPathComponent("clients/python/tests/bubbling_driver.py").path,
                             daemon.socketPath]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input; process.standardOutput = output; process.standardError = errors
        try process.run()
        // A stuck driver must not hang the suite.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        defer { watchdog.cancel() }

        var buffer = Data()
        var result: [String: Any]?
        func nextLine() -> String? {
            while true {
                if let nl = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                    buffer = Data(buffer[(nl + 1)...])
                    return line
                }
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { return nil }
                buffer.append(more)
            }
        }
        var clicks = 0
        while let line = nextLine() {
            let words = line.split(separator: " ")
            if words.first == "click", words.count == 3, let x = Double(words[1]), let y = Double(words[2]) {
                daemon.inject(.pointer(.down, at: Point(x, y), button: 0))
                daemon.inject(.pointer(.up, at: Point(x, y), button: 0))
                input.fileHandleForWriting.write(Data("\n".utf8))
                clicks += 1
            } else if line.hasPrefix("result ") {
                result = try JSONSerialization.jsonObject(with: Data(line.dropFirst(7).utf8)) as? [String: Any]
            }
        }
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(clicks == 5)
        guard let result, let ids = result["ids"] as? [String: Int] else {
            Issue.record("no result from the driver: \(stderr)"); return
        }
        let other = ids["other"]!, outer = ids["outer"]!, middle = ids["middle"]!, inner = ids["inner"]!
        func seen(_ scenario: String) -> [String] { result[scenario] as? [String] ?? ["missing"] }
        #expect(seen("bubbles") == [
            "inner \(inner) \(inner) 5 5", "middle \(middle) \(inner) 10 10", "outer \(outer) \(inner) 30 40",
            "root 0 \(inner) 50 70",
            "connection \(inner) \(inner) 5 5",    // on_pointer: the event as routed
        ])
        #expect(seen("handled") == ["inner \(inner) \(inner) 5 5", "middle \(middle) \(inner) 10 10"])
        // inner has no handler and middle's raises: outer's is next.
        #expect(seen("passes") == ["outer \(outer) \(inner) 30 40"])
        #expect(stderr.contains("ZeroDivisionError"))
        #expect(result["handlerOf"] as? [String: Bool] == ["middle": true, "inner": false])
        #expect(seen("moved") == ["inner \(inner) \(inner) 5 5", "other \(other) \(inner) 10 10"])
        #expect(seen("staged") == ["inner \(inner) \(inner) 5 5", "other \(other) \(inner) 10 10"])
    }
}
