import Foundation
import Lamina
import LaminaPNG
import LaminaServer
import LaminaWire
import Testing
import TestSupport
import DaemonTestSupport

/// An uploaded image drawn by the real daemon (sockets, render thread, lavapipe), read back
/// through `capture`.
@Suite(.serialized) struct ImageDaemonTests {
    @Test func uploadedImageIsCaptured() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "images")
        // 2×2: red, green / blue, white; stretched (gravity resize) over 100×100 with nearest
        // magnification, each pixel covers a 50×50 quadrant.
        let px: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]
        let png = try PNG.encode(RGBAImage(width: 2, height: 2, pixels: px))
        let image = try c.uploadImage(png, name: "quads")
        #expect(image.width == 2 && image.height == 2)
        let layer = c.makeLayer()
        layer.frame = Rect(50, 50, 100, 100)
        layer.magnificationFilter = .nearest
        layer.setContents(image)
        c.root.addSublayer(layer)
        try c.commit()
        // Released while shown: the layer keeps showing it.
        try image.release()
        let img = try DaemonTests.capture(c)
        DaemonTests.expectPixel(img, 10, 10, (0, 0, 0))
        DaemonTests.expectPixel(img, 75, 75, (255, 0, 0))
        DaemonTests.expectPixel(img, 125, 75, (0, 255, 0))
        DaemonTests.expectPixel(img, 75, 125, (0, 0, 255))
        DaemonTests.expectPixel(img, 125, 125, (255, 255, 255))
        // Bad bytes: an error naming the image, the connection goes on.
        #expect(throws: LaminaError.self) { _ = try c.uploadImage(Array("not an image".utf8), name: "junk") }
        do { _ = try c.uploadImage(Array("not an image, really".utf8), name: "junk") } catch let LaminaError.requestFailed(_, code, _, failed) {
            #expect(code == .invalidImage && failed.key == "junk")
        }
        c.setDisableActions(true)
        layer.opacity = 0
        try c.commit()
        DaemonTests.expectPixel(try DaemonTests.capture(c), 75, 75, (0, 0, 0))
    }
}

extension ImageDaemonTests {
    /// `laminactl load`'s player uploads a scene's images, then its layers show them: the
    /// 8×6 grid at its natural size (gravity topLeft) reads back as the file's pixels.
    @Test func scenePlayerUploadsTheScenesImages() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "scene")
        let folder = ImageSceneTests.references
        let scene = try Scene(json: """
            {"size": [200, 200], "images": {"grid": "image-source-grid.png"},
             "layers": [{"frame": [10, 20, 50, 50], "contents": "grid", "contentsGravity": "topLeft"}]}
            """, folder: folder)
        try ScenePlayer(scene: scene, connection: c).loadAndPlay()
        let source = try PNG.read(path: folder + "/image-source-grid.png")
        let img = try DaemonTests.capture(c)
        for y in 0..<6 {
            for x in 0..<8 {
                let (r, g, b, a) = source[x, y]
                // Over the black background: straight color × alpha (the capture is opaque).
                let over = { (v: UInt8) in Int((Double(v) * Double(a) / 255).rounded()) }
                DaemonTests.expectPixel(img, 10 + x, 20 + y, (over(r), over(g), over(b)))
            }
        }
        DaemonTests.expectPixel(img, 30, 40, (0, 0, 0))  // the layer's bounds beyond the image
    }
}

extension ImageDaemonTests {
    /// A Lottie file's embedded image (a data URI) reaches the daemon through `laminactl load`'s
    /// player: uploaded under its asset id and shown by the image layer — the 2×2 PNG stretched
    /// over the asset's 100×100 at the layer's position (50, 50), anchor (0, 0).
    @Test func lottieEmbeddedImageIsUploadedAndShown() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "lottie")
        let px: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]
        let png = try PNG.encode(RGBAImage(width: 2, height: 2, pixels: px))
        let uri = "data:image/png;base64," + Data(png).base64EncodedString()
        let scene = try Scene(json: #"""
            {"v":"5.7.4","fr":30,"ip":0,"op":60,"w":200,"h":200,
             "assets":[{"id":"quads","w":100,"h":100,"e":1,"u":"","p":"\#(uri)"}],
             "layers":[{"ty":2,"nm":"Img","ind":1,"refId":"quads","ks":{"p":{"a":0,"k":[50,50]},"a":{"a":0,"k":[0,0]}},
                        "ip":0,"op":60,"st":0}]}
            """#)
        #expect(scene.imageData["quads"] == png)
        try ScenePlayer(scene: scene, connection: c).loadAndPlay()
        let img = try DaemonTests.capture(c)
        DaemonTests.expectPixel(img, 10, 10, (0, 0, 0))
        // Linear magnification (Lottie has no filter setting): near each texel's centre the
        // colour is within a few levels of the texel's.
        for (x, y, rgb) in [(75, 75, (255, 0, 0)), (125, 75, (0, 255, 0)), (75, 125, (0, 0, 255)), (125, 125, (255, 255, 255))] {
            expectPixel(img, x, y, RGBA(rgb.0, rgb.1, rgb.2), tolerance: 8, alphaTolerance: 0)
        }
    }
}
