import Foundation
import Testing
import LaminaPNG
import TestSupport

/// References drawn by the independent renderer stay its own: the manifest names the maker of
/// every reference, and the regenerate switch rewrites only Lamina's own (self-made) ones.
@Suite("Reference manifest")
struct ReferenceManifestTests {
    /// Every PNG in References/ has a line, every line a PNG, and each scene that
    /// scripts/gen-references draws (its `save(surface, "NAME")` calls) is declared as drawn by it.
    @Test func listsEveryReferenceAndTheScriptsOwnThem() throws {
        let references = PixelComparator.referencePath("x").replacingOccurrences(of: "/x.png", with: "")
        let script = try String(contentsOfFile: references + "/../../../scripts/gen-references", encoding: .utf8)
        let drawn = script.split(separator: "\n").compactMap { line -> String? in
            guard let start = line.range(of: "save(surface, \""), let end = line.range(of: "\")", range: start.upperBound..<line.endIndex)
            else { return nil }
            return String(line[start.upperBound..<end.lowerBound]) + ".png"
        }
        #expect(drawn.count >= 14, "the scenes of scripts/gen-references: \(drawn)")
        let problems = try ReferenceManifest.problems(
            directory: references, independent: Dictionary(uniqueKeysWithValues: drawn.map { ($0, "scripts/gen-references") }))
        #expect(problems.isEmpty, "\(problems)")
    }

    /// In a scratch folder: regenerating a self-made reference writes it; regenerating one drawn
    /// by a script is refused and leaves the file as it was; an undeclared reference is refused
    /// whether comparing or regenerating.
    @Test func regenerateTouchesOnlySelfMadeReferences() throws {
        let directory = NSTemporaryDirectory() + "lamina-manifest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let black = RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 16))
        let white = RGBAImage(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 16))
        for name in ["own", "cairo", "stray"] { try PNG.write(black, path: "\(directory)/\(name).png") }
        try "# test\nown.png lamina\ncairo.png scripts/gen-references\n"
            .write(toFile: "\(directory)/manifest.txt", atomically: true, encoding: .utf8)

        let own = try PixelComparator.compare(white, referencePath: "\(directory)/own.png", tolerance: .exact, regenerate: true)
        #expect(own.passed)
        #expect(try PNG.read(path: "\(directory)/own.png") == white)

        #expect(throws: ReferenceError.self) {
            try PixelComparator.compare(white, referencePath: "\(directory)/cairo.png", tolerance: .exact, regenerate: true)
        }
        #expect(try PNG.read(path: "\(directory)/cairo.png") == black)
        let cairo = try PixelComparator.compare(white, referencePath: "\(directory)/cairo.png", tolerance: .exact, regenerate: false)
        #expect(!cairo.passed)

        for regenerate in [false, true] {
            #expect(throws: ReferenceError.self) {
                try PixelComparator.compare(black, referencePath: "\(directory)/stray.png", tolerance: .exact, regenerate: regenerate)
            }
        }
        #expect(try ReferenceManifest.problems(directory: directory, independent: ["cairo.png": "scripts/gen-references"])
                == ["stray.png has no line in manifest.txt"])
        #expect(try ReferenceManifest.problems(directory: directory, independent: ["own.png": "scripts/gen-references"])
                == ["stray.png has no line in manifest.txt", "own.png is drawn by scripts/gen-references but manifest.txt says lamina"])
    }
}
