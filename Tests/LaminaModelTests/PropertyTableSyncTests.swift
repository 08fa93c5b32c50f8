import Foundation
import Testing
import TestSupport

/// The generated per-property files (`*+Generated.swift` in LaminaModel, LaminaTree and Lamina) must be what
/// `scripts/gen-properties` writes from `Sources/LaminaModel/Properties.table` today.
@Suite("Generated property code")
struct PropertyTableSyncTests {
    static let repository = repositoryRoot
    static var python3Path: String? { executableInPath("python3") }

    @Test(.enabled(if: python3Path != nil, "python3 is not installed: cannot check the generated property code"))
    func generatedFilesAreInSync() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python3Path!)
        process.arguments = [Self.repository.appendingPathComponent("scripts/gen-properties").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
