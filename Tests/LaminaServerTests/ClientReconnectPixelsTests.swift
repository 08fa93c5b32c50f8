import DaemonTestSupport
import Foundation
import Lamina
import LaminaPNG
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 24 with issue 28's restart: what a client shows through shared memory and tiles comes
/// back after its daemon restarts. Daemon A (a real `laminad`, manual clock, 160×120) is
/// killed with a surface layer showing the second buffer of its ring, a tiled layer showing a
/// PNG file named by descriptor (the file unlinked before the kill) and a tiled layer of
/// client-drawn tiles; daemon B starts on the same socket and the client replays: B's frame
/// equals A's under the project's pixel rule, and each source's own pixels are checked at
/// chosen points against the formulas that made them.
extension ClientReconnectTests {
    /// The PNG file's pixel (x, y), opaque.
    static func fileColor(_ x: Int, _ y: Int) -> (Int, Int, Int) { (6 * x, 7 * y, 180) }
    /// A client-drawn tile's colour from its column and row.
    static func tileColor(_ column: UInt32, _ row: UInt32) -> (Int, Int, Int) { (40 + 70 * Int(column), 50 + 70 * Int(row), 210) }

    @Test func surfacesImageFilesAndDrawnTilesShowTheSamePixelsAfterARestart() throws {
        let (path, a, c, seen) = try Self.start("pixels")
        defer { c.close() }
        c.setDisableActions(true)
        let surface = c.makeSurfaceLayer()
        surface.frame = Rect(4, 4, 24, 16)
        c.root.addSublayer(surface)
        try surface.makeBuffers(width: 24, height: 16, count: 2)
        let first = try #require(surface.nextBuffer())
        SurfaceDaemonTests.draw(first, seed: 1)
        surface.present(first)
        try c.commit()
        let second = try #require(surface.nextBuffer())
        SurfaceDaemonTests.draw(second, seed: 2)
        surface.present(second)                          // the last attached: pattern 2
        try c.commit()

        let file = NSTemporaryDirectory() + "lamina-replay-\(getpid()).png"
        var px: [UInt8] = []
        for y in 0..<30 { for x in 0..<40 { let (r, g, b) = Self.fileColor(x, y); px += [UInt8(r), UInt8(g), UInt8(b), 255] } }
        try Data(PNG.encode(RGBAImage(width: 40, height: 30, pixels: px))).write(to: URL(fileURLWithPath: file))
        _ = try c.openImageFile(file, name: "file")
        unlink(file)                                     // the daemons read the client's descriptor
        let filed = c.makeLayer(.tiled) as! TiledLayer
        filed.frame = Rect(32, 4, 40, 30)
        filed.tileSize = Size(16, 16)
        filed.fadeDuration = 0
        filed.contents = "file"
        c.root.addSublayer(filed)

        let asked = Mutex(0)
        let drawn = c.makeLayer(.tiled) as! TiledLayer
        try drawn.drawTiles(name: "drawn", width: 64, height: 64) { r, pixels in
            asked.withLock { $0 += 1 }
            let (cr, cg, cb) = Self.tileColor(r.column, r.row)
            for i in stride(from: 0, to: pixels.count, by: 4) {
                pixels[i] = UInt8(cr); pixels[i + 1] = UInt8(cg); pixels[i + 2] = UInt8(cb); pixels[i + 3] = 255
            }
            return true
        }
        drawn.frame = Rect(80, 4, 64, 64)
        drawn.tileSize = Size(32, 32)
        drawn.fadeDuration = 0
        c.root.addSublayer(drawn)
        try c.commit()

        // Canvas point → the colour its source's formula gives.
        var want: [(x: Int, y: Int, rgb: (Int, Int, Int))] = []
        for (x, y) in [(0, 0), (23, 15), (7, 9)] {
            let p = SurfaceDaemonTests.rgba(x, y, 2)
            want.append((4 + x, 4 + y, (Int(p.0), Int(p.1), Int(p.2))))
        }
        for (x, y) in [(0, 0), (39, 29), (17, 3)] { want.append((32 + x, 4 + y, Self.fileColor(x, y))) }
        for (x, y) in [(5, 5), (40, 50), (60, 10)] {
            want.append((80 + x, 4 + y, Self.tileColor(UInt32(x / 32), UInt32(y / 32))))
        }
        func settled() throws -> RGBAImage {
            try ClientTilesDaemonTests.capture(c) { img in want.allSatisfy { ClientTilesDaemonTests.near(img, $0.x, $0.y, $0.rgb) } }
        }
        let before = try settled()
        for w in want { DaemonTests.expectPixel(before, w.x, w.y, w.rgb) }
        let askedBefore = asked.withLock { $0 }

        a.kill()
        #expect(seen.wait(for: 1) == ["lost"])
        let b = try Self.restart(on: path, seen)
        let after = try settled()
        for w in want { DaemonTests.expectPixel(after, w.x, w.y, w.rgb) }
        let rule = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)
        let same = PixelComparator.compare(after, before, tolerance: rule)
        #expect(same.passed, "B against A: \(same)")
        #expect(asked.withLock { $0 } > askedBefore, "B asked for the drawn tiles again")

        // The buffer attached again is released by B (the other was freed at the replay); the
        // ring goes on.
        let deadline = Date().addingTimeInterval(5)
        while (first.isBusy || second.isBusy) && Date() < deadline { usleep(2000) }
        #expect(!first.isBusy && !second.isBusy)
        let third = try #require(surface.nextBuffer())
        SurfaceDaemonTests.draw(third, seed: 3)
        surface.present(third)
        try c.commit()
        let p = SurfaceDaemonTests.rgba(7, 9, 3)
        DaemonTests.expectPixel(try SurfaceDaemonTests.capture(c), 4 + 7, 4 + 9, (Int(p.0), Int(p.1), Int(p.2)))
        withExtendedLifetime(b) {}
    }
}
