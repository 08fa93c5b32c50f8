import Foundation
import Lamina
import LaminaLottie
import LaminaSceneTree
import Testing

/// The corpus of real Lottie files (`Tests/Fixtures/lottie-corpus`, sources and licences in
/// its LICENSES.md): every file imports — parts not mapped are warnings, never errors — and
/// its layer tree evaluates at three times. The frame-by-frame comparison with rlottie is
/// `scripts/lottie-corpus` (too slow for the suite).
@Suite struct LottieCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/lottie-corpus")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    @Test func theCorpusIsThere() { #expect(Self.files.count >= 30) }

    @Test(arguments: files)
    func importsAndEvaluates(_ name: String) throws {
        let scene = try Scene(contentsOfFile: Self.folder.appendingPathComponent(name).path)
        #expect(scene.isLottie && scene.layerCount > 1)
        let clock = try #require(scene.lottieClock)
        for t in [0, clock.duration / 2, clock.duration * 0.75] {
            _ = try scene.tree(at: t).presentation(at: t)
        }
    }
}
