import Foundation
import Testing
import TestSupport

/// The scene references are scripts/scene-cairo's alone: its manifest lists every reference,
/// and every scene file's reference is declared as drawn by that script (so the regenerate
/// switch refuses to overwrite it with Lamina's output).
@Suite("Scene reference manifest")
struct SceneReferenceManifestTests {
    @Test func listsEveryReferenceAndSceneCairoOwnsThem() throws {
        let scenes = PixelComparator.referencePath("x").replacingOccurrences(of: "/References/x.png", with: "/Scenes")
        let names = try FileManager.default.contentsOfDirectory(atPath: scenes).filter { $0.hasSuffix(".json") }
        #expect(names.count >= 11, "\(names)")
        let independent = Dictionary(uniqueKeysWithValues: names.map {
            (String($0.dropLast(".json".count)) + ".png", "scripts/scene-cairo")
        })
        let problems = try ReferenceManifest.problems(directory: scenes + "/References", independent: independent)
        #expect(problems.isEmpty, "\(problems)")
    }
}
