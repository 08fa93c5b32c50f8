import Foundation

/// The repository's root folder (tests read scripts, scenes and references from the source tree).
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The first executable `name` in `PATH`, else in `fallbacks` (full paths); nil when none.
public func executableInPath(_ name: String, fallbacks: [String] = []) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return (path.split(separator: ":").map { "\($0)/\(name)" } + fallbacks)
        .first { FileManager.default.isExecutableFile(atPath: $0) }
}
