import Foundation
import Testing
import LaminaPNG

/// LaminaPNG has no test target of its own; its round trips live here.
@Suite("PNG")
struct PNGTests {
    @Test func roundTrip() throws {
        var pixels: [UInt8] = []
        for i in 0..<(7 * 5 * 4) { pixels.append(UInt8(truncatingIfNeeded: i &* 37 &+ 11)) }
        let image = RGBAImage(width: 7, height: 5, pixels: pixels)
        let decoded = try PNG.decode(try PNG.encode(image))
        #expect(decoded == image)
    }

    @Test func fileRoundTrip() throws {
        let image = RGBAImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 128])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-png-\(getpid()).png").path
        defer { unlink(path) }
        try PNG.write(image, path: path)
        #expect(try PNG.read(path: path) == image)
    }

    @Test func garbageIsAnError() {
        #expect(throws: PNGError.self) { try PNG.decode([1, 2, 3, 4, 5]) }
        #expect(throws: PNGError.self) { try PNG.read(path: "/nonexistent/lamina.png") }
    }
}
