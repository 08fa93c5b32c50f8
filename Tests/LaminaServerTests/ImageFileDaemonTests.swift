import Foundation
import Lamina
import LaminaPNG
import LaminaServer
import LaminaWire
import Testing
import TestSupport
import DaemonTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `openImageFile` (0x44): a PNG file's descriptor sent with SCM_RIGHTS, read region by region
/// by the real daemon for a tiled layer (docs/protocol.md, Images).
@Suite(.serialized) struct ImageFileDaemonTests {
    /// A 64×48 PNG whose pixel (x, y) is (4x, 5y, 200) opaque: the file is unlinked before it
    /// is sent (no path reaches it), a tiled layer of 16×16 tiles shows it at 1:1 at (10, 20),
    /// and every sampled pixel reads back as the file's own once its tiles are in.
    @Test func aFileSentByDescriptorIsShownByATiledLayer() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "image file")
        let (w, h) = (64, 48)
        var px = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h { for x in 0..<w { px[(y * w + x) * 4] = UInt8(4 * x); px[(y * w + x) * 4 + 1] = UInt8(5 * y); px[(y * w + x) * 4 + 2] = 200 } }
        let path = NSTemporaryDirectory() + "lamina-image-file-\(getpid()).png"
        try Data(PNG.encode(RGBAImage(width: w, height: h, pixels: px))).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        unlink(path)
        let image = try c.openImageFile(descriptor: fd, name: "big")
        #expect(image.width == w && image.height == h)
        let layer = c.makeLayer(.tiled) as! TiledLayer
        layer.frame = Rect(10, 20, Double(w), Double(h))
        layer.tileSize = Size(16, 16)
        layer.fadeDuration = 0
        layer.setContents(image)
        c.root.addSublayer(layer)
        try c.commit()
        // Frames never wait for tiles: capture until they are in (a few seconds at most).
        var img = try DaemonTests.capture(c)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, img[10 + 63, 20 + 47].1 < 230 || img[10, 20].2 < 190 {
            Thread.sleep(forTimeInterval: 0.05)
            img = try DaemonTests.capture(c)
        }
        for (x, y) in [(0, 0), (17, 3), (40, 30), (63, 47), (31, 16)] {
            DaemonTests.expectPixel(img, 10 + x, 20 + y, (4 * x, 5 * y, 200))
        }
        DaemonTests.expectPixel(img, 5, 5, (0, 0, 0))
        // Released while shown: still shown; the name may be used again.
        try image.release()
        DaemonTests.expectPixel(try DaemonTests.capture(c), 10 + 40, 20 + 30, (160, 150, 200))
    }

    /// Each bad descriptor is refused with its reason; the connection goes on.
    @Test func badDescriptorsAreNamedErrors() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "image file errors")
        func failure(_ fd: Int32, _ name: String) -> (ErrorCode, String)? {
            do { _ = try c.openImageFile(descriptor: fd, name: name); return nil } catch let LaminaError.requestFailed(_, code, message, failed) {
                #expect(failed.key == name)
                return (code, message)
            } catch { return nil }
        }
        // A pipe: not a regular file.
        var pipeFDs: [Int32] = [0, 0]
        #expect(pipe(&pipeFDs) == 0)
        defer { close(pipeFDs[0]); close(pipeFDs[1]) }
        let notRegular = failure(pipeFDs[0], "pipe")
        #expect(notRegular?.0 == .invalidImage && notRegular?.1.contains("not a regular file") == true)
        // A text file: not a PNG.
        let text = NSTemporaryDirectory() + "lamina-image-file-\(getpid()).txt"
        try Data("not a picture at all".utf8).write(to: URL(fileURLWithPath: text))
        let tfd = open(text, O_RDONLY | O_CLOEXEC)
        defer { close(tfd); unlink(text) }
        let notPNG = failure(tfd, "text")
        #expect(notPNG?.0 == .invalidImage && notPNG?.1.contains("not a PNG") == true)
        // A PNG whose header says (2^30 + 1) × 1 pixels: over the largest side.
        let huge = NSTemporaryDirectory() + "lamina-image-file-huge-\(getpid()).png"
        try Data(Self.pngHeader(width: (1 << 30) + 1, height: 1)).write(to: URL(fileURLWithPath: huge))
        let hfd = open(huge, O_RDONLY | O_CLOEXEC)
        defer { close(hfd); unlink(huge) }
        let tooLarge = failure(hfd, "huge")
        #expect(tooLarge?.0 == .limitExceeded && tooLarge?.1.contains("too large") == true, "\(String(describing: tooLarge))")
        // Still serving: a good upload works.
        let png = try PNG.encode(RGBAImage(width: 1, height: 1, pixels: [1, 2, 3, 255]))
        #expect(try c.uploadImage(png, name: "after").width == 1)
    }

    /// A PNG signature, an IHDR chunk (8-bit RGB) and an empty IDAT: enough for a header read.
    static func pngHeader(width: Int, height: Int) -> [UInt8] {
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            // CRC-32 (ISO 3309, as PNG defines it) over the type and data.
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return be(data.count) + body + be(Int(crc ^ 0xFFFF_FFFF))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be(width) + be(height) + [8, 2, 0, 0, 0])
            + chunk("IDAT", []) + chunk("IEND", [])
    }
}
