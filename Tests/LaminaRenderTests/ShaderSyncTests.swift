import Foundation
import Testing

/// `Sources/LaminaRender/Shaders+Generated.swift` must be what `scripts/gen-shaders`
/// produces from `shaders/` today.
@Suite("Generated shaders")
struct ShaderSyncTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var glslcPath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/glslc" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test(.enabled(if: glslcPath != nil, "glslc is not installed (apt install glslc): cannot check generated shaders"))
    func generatedFileIsInSync() throws {
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("lamina-shaders-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).swift")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = Self.repository.appendingPathComponent("scripts/gen-shaders")
        process.arguments = [output.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let generated = try String(contentsOf: output, encoding: .utf8)
        let checkedIn = try String(
            contentsOf: Self.repository.appendingPathComponent("Sources/LaminaRender/Shaders+Generated.swift"),
            encoding: .utf8)
        #expect(generated == checkedIn, "Shaders+Generated.swift is stale: run scripts/gen-shaders")
    }
}
