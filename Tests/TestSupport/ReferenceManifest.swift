import Foundation

/// A reference folder's `manifest.txt`: which program drew each reference PNG in it, one
/// line per file (`NAME.png MAKER`, `#` comments).
///
/// - `lamina` (``selfMade``): Lamina's own output, looked at before it was committed; the only
///   references that `LAMINA_REGENERATE_REFERENCES=1` may rewrite.
/// - `scripts/gen-references`, `scripts/scene-cairo`: an independent renderer (cairo); `scripts/lottie-rlottie`: rlottie. Only
///   that script writes the file and its line (scripts/reference_manifest.py).
public struct ReferenceManifest: Sendable {
    /// The maker of references that are Lamina's own output.
    public static let selfMade = "lamina"
    /// The manifest's file name inside a reference folder.
    public static let fileName = "manifest.txt"

    /// File name (`NAME.png`) → maker.
    public var makers: [String: String]

    /// Reads `directory/manifest.txt`; a missing file or a line that is not two fields throws.
    public init(directory: String) throws {
        let path = "\(directory)/\(Self.fileName)"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ReferenceError("no reference manifest at \(path)")
        }
        makers = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let fields = line.split(separator: " ")
            if fields.isEmpty || line.hasPrefix("#") { continue }
            guard fields.count == 2, fields[0].hasSuffix(".png") else {
                throw ReferenceError("\(path):\(number + 1): expected \"NAME.png MAKER\", found \"\(line)\"")
            }
            makers[String(fields[0])] = String(fields[1])
        }
    }

    /// What is wrong with the folder: reference PNGs without a line, lines without a file, and
    /// references of `independent` (file name → the script that must have drawn it) declared
    /// with another maker. Empty when all is well. `-actual` and `-diff` PNGs (a failed
    /// comparison's output) are not references.
    public static func problems(directory: String, independent: [String: String]) throws -> [String] {
        let manifest = try ReferenceManifest(directory: directory)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".png") && !$0.hasSuffix("-actual.png") && !$0.hasSuffix("-diff.png")
        }
        var problems: [String] = []
        for file in files.sorted() where manifest.makers[file] == nil {
            problems.append("\(file) has no line in \(fileName)")
        }
        for file in manifest.makers.keys.sorted() where !files.contains(file) {
            problems.append("\(fileName) lists \(file), which is not there")
        }
        for (file, script) in independent.sorted(by: { $0.key < $1.key }) where manifest.makers[file] != script {
            problems.append("\(file) is drawn by \(script) but \(fileName) says \(manifest.makers[file] ?? "nothing")")
        }
        return problems
    }
}

/// A reference that cannot be compared with or (re)written.
public struct ReferenceError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
