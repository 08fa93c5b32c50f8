import Foundation
import Lamina
import LaminaPNG
import LaminaRender
import LaminaWire
import Testing
import TestSupport
import LaminaSceneTree

/// Scene files with images: the top level's `images` (paths relative to the scene file),
/// `contents` naming an entry, the contents fields — rendered by the headless compositor as
/// `laminactl render` does, against the cairo reference LaminaRenderTests' ImageGoldenTests
/// compares with (the same scene: `image-rect-filter`; tolerance as there).
@Suite struct ImageSceneTests {
    /// Tests/LaminaRenderTests/References, where the source image and the reference are.
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("LaminaRenderTests/References").path

    static let sceneJSON = """
    {"size": [136, 56], "background": [1, 1, 1, 1],
     "images": {"grid": "image-source-grid.png"},
     "layers": [
       {"frame": [4, 4, 64, 48], "contents": "grid", "contentsRect": [0.25, 0, 0.5, 0.5],
        "magnificationFilter": "nearest"},
       {"frame": [72, 4, 60, 48], "contents": "grid", "opacity": 0.5, "cornerRadius": 8, "masksToBounds": true}
     ]}
    """

    @Test func sceneWithImagesMatchesTheReference() throws {
        let scene = try Scene(json: Self.sceneJSON, folder: Self.references)
        #expect(scene.images == ["grid": Self.references + "/image-source-grid.png"])
        let compositor = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                                scale: scene.scale, background: scene.background)
        compositor.images = try HeadlessCompositor.loadImages(scene.images)
        let pixels = try compositor.render(try scene.tree(at: 0).presentation(at: 0))
        let image = RGBAImage(width: compositor.pixelWidth, height: compositor.pixelHeight, pixels: pixels)
        try expectMatchesReference(image, Self.references + "/image-rect-filter.png",
                                   .independent(mean: 1, percent: 0.5, threshold: 64), name: "image-rect-filter")
    }

    @Test func contentsMustNameAnImage() {
        let json = """
        {"images": {"a": "a.png"}, "layers": [{"contents": "b"}]}
        """
        #expect { try Scene(json: json) } throws: { "\($0)".contains("layers[0].contents") && "\($0)".contains("\"b\"") }
        #expect(throws: Never.self) { try Scene(json: #"{"images": {"a": "a.png"}, "layers": [{"contents": "a"}, {"contents": null}]}"#) }
        #expect(throws: SceneError.self) { try Scene(json: #"{"layers": [{"contentsGravity": "middle"}]}"#) }
        #expect(throws: SceneError.self) { try Scene(json: #"{"images": {"a": 3}}"#) }
    }

    @Test func aMissingOrBadImageFileIsAnErrorNamingIt() throws {
        #expect { try HeadlessCompositor.loadImages(["logo": "/nonexistent/logo.png"]) } throws: {
            "\($0)".contains("logo") && "\($0)".contains("/nonexistent/logo.png")
        }
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-bad-\(getpid()).png").path
        try Data("not an image at all".utf8).write(to: URL(fileURLWithPath: bad))
        defer { try? FileManager.default.removeItem(atPath: bad) }
        #expect { try HeadlessCompositor.loadImages(["bad": bad]) } throws: {
            "\($0)".contains("\"bad\"") && "\($0)".contains("unsupported")
        }
    }
}
