import Foundation
import Lamina
import LaminaPNG
import LaminaServer
import LaminaWire
import Synchronization
import Testing
import TestSupport
import DaemonTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Client-drawn tiled images (docs/protocol.md, Images: `createTiledImage`, `tileWanted`,
/// `tileCancelled`, `provideTile`) against the real daemon (manual clock, 200×200 black canvas).
/// Each tile the tests' providers draw is one colour worked out from its key alone
/// (`color(level:column:row:)`), so a pixel of the canvas is checked against the tile that
/// must cover it, computed by hand from the layer's frame and the tile grid.
@Suite(.serialized) struct ClientTilesDaemonTests {
    /// A tile's colour: red from its column, green from its row, blue from its level.
    static func color(level: Int32, column: UInt32, row: UInt32) -> (Int, Int, Int) {
        (40 + 30 * Int(column), 40 + 30 * Int(row), level == 0 ? 220 : level == 1 ? 120 : 60)
    }

    /// What a provider saw, in order, and a gate it may wait on.
    final class Log: Sendable {
        let requests = Mutex<[TileRequest]>([])
        let gate = DispatchSemaphore(value: 0)
        func add(_ r: TileRequest) { requests.withLock { $0.append(r) } }
        var all: [TileRequest] { requests.withLock { $0 } }
        func wait(until body: ([TileRequest]) -> Bool, seconds: Double = 20) -> [TileRequest] {
            let deadline = Date().addingTimeInterval(seconds)
            while !body(all) && Date() < deadline { usleep(2000) }
            return all
        }
    }

    /// Fills a tile with its colour, opaque.
    static func fill(_ r: TileRequest, _ pixels: UnsafeMutableRawBufferPointer) {
        let (cr, cg, cb) = color(level: r.level, column: r.column, row: r.row)
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = UInt8(cr); pixels[i + 1] = UInt8(cg); pixels[i + 2] = UInt8(cb); pixels[i + 3] = 255
        }
    }

    static func keys(_ list: [TileRequest], level: Int32) -> Set<[UInt32]> {
        Set(list.filter { $0.level == level }.map { [$0.column, $0.row] })
    }

    /// Captures until `done` holds for the frame (the answers arrive between frames), or 20 s.
    static func capture(_ c: Connection, until done: (RGBAImage) -> Bool) throws -> RGBAImage {
        var img = try DaemonTests.capture(c)
        let deadline = Date().addingTimeInterval(20)
        while !done(img) && Date() < deadline {
            usleep(20_000)
            img = try DaemonTests.capture(c)
        }
        return img
    }

    static func near(_ img: RGBAImage, _ x: Int, _ y: Int, _ rgb: (Int, Int, Int)) -> Bool {
        let p = img[x, y]
        return abs(Int(p.0) - rgb.0) <= 2 && abs(Int(p.1) - rgb.1) <= 2 && abs(Int(p.2) - rgb.2) <= 2
    }

    /// A 512×512 image in 64×64 tiles, two levels. Shown at half size (frame 256×256 at (10, 20)):
    /// the daemon asks for level 1's tiles in view, exactly columns and rows 0…2 (the canvas
    /// ends at x 200, y 200: level-1 pixels 0…190 × 0…180), with their pixel rects; the answers
    /// are drawn. Then at full size (level 0) the provider holds its answers: meanwhile level 1's
    /// tiles are shown magnified in their place (the frame never waits); once it answers, level 0
    /// is shown.
    @Test func visibleTilesAreAskedForAndTheAnswersDrawnOverTheCoarserLevel() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "tiles")
        c.setDisableActions(true)   // the manual clock stands still: no implicit animations
        let log = Log()
        let layer = c.makeLayer(.tiled) as! TiledLayer
        try layer.drawTiles(name: "drawn", width: 512, height: 512) { r, pixels in
            log.add(r)
            if r.level == 0 { log.gate.wait() }
            Self.fill(r, pixels)
            return true
        }
        layer.frame = Rect(10, 20, 256, 256)
        layer.tileSize = Size(64, 64)
        layer.levelsOfDetail = 2
        layer.fadeDuration = 0
        c.root.addSublayer(layer)
        try c.commit()
        let nine = Set((0..<3).flatMap { x in (0..<3).map { y in [UInt32(x), UInt32(y)] } })
        let first = log.wait { Self.keys($0, level: 1).count >= 9 }
        #expect(Self.keys(first, level: 1) == nine)
        #expect(first.allSatisfy { $0.level == 1 && $0.name == "drawn" && $0.tileWidth == 64 && $0.tileHeight == 64 })
        for r in first {
            #expect(r.x == r.column * 64 && r.y == r.row * 64 && r.width == 64 && r.height == 64)
        }
        // Drawn: the centre of each level-1 tile, at (10 + 64c + 32, 20 + 64r + 32) (1 point a
        // level-1 pixel), where it is on the canvas.
        let centres = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2), (2, 1)].map { (c: $0.0, r: $0.1) }
        var img = try Self.capture(c) { img in
            centres.allSatisfy { Self.near(img, 10 + 64 * $0.c + 32, 20 + 64 * $0.r + 32,
                                           Self.color(level: 1, column: UInt32($0.c), row: UInt32($0.r))) }
        }
        for t in centres {
            DaemonTests.expectPixel(img, 10 + 64 * t.c + 32, 20 + 64 * t.r + 32,
                                    Self.color(level: 1, column: UInt32(t.c), row: UInt32(t.r)))
        }
        DaemonTests.expectPixel(img, 5, 5, (0, 0, 0))

        // Full size: level 0 (1 point a pixel), its tiles columns and rows 0…2 in view.
        c.setDisableActions(true)   // (each transaction: the manual clock would hold an animation at its start)
        layer.frame = Rect(10, 20, 512, 512)
        try c.commit()
        // The provider holds its first level-0 answer (the others wait behind it).
        _ = log.wait { Self.keys($0, level: 0).count >= 1 }
        // Not answered yet: level 1's tiles, magnified, where level 0's will be. Canvas pixel
        // (10 + px, 20 + py) is level-1 tile (px / 128, py / 128).
        img = try DaemonTests.capture(c)
        for (px, py) in [(32, 32), (150, 100), (100, 150), (170, 170)] {
            DaemonTests.expectPixel(img, 10 + px, 20 + py, Self.color(level: 1, column: UInt32(px / 128), row: UInt32(py / 128)))
        }
        for _ in 0..<9 { log.gate.signal() }
        let asked = log.wait { Self.keys($0, level: 0).count >= 9 }
        #expect(Self.keys(asked, level: 0) == nine)
        #expect(asked.count == 18, "each tile asked for once")
        img = try Self.capture(c) { Self.near($0, 10 + 150, 20 + 100, Self.color(level: 0, column: 2, row: 1))
            && Self.near($0, 10 + 32, 20 + 32, Self.color(level: 0, column: 0, row: 0))
            && Self.near($0, 10 + 170, 20 + 170, Self.color(level: 0, column: 2, row: 2)) }
        // Level 0: canvas pixel (10 + px, 20 + py) is tile (px / 64, py / 64).
        for (px, py) in [(32, 32), (150, 100), (100, 150), (170, 170), (70, 10)] {
            DaemonTests.expectPixel(img, 10 + px, 20 + py, Self.color(level: 0, column: UInt32(px / 64), row: UInt32(py / 64)))
        }
        #expect(log.all.count == 18, "nothing asked twice")
    }

    /// A client that never answers: at most 16 tiles are asked of it at once (49 are in view),
    /// each once; when the layer moves away they are cancelled and the new view's asked for;
    /// meanwhile another client is served and drawn as usual.
    @Test func aClientThatNeverAnswersIsAskedABoundedNumberAndCancelled() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "silent")
        c.setDisableActions(true)
        let other = try Connection(socketPath: daemon.socketPath, name: "other")
        let log = Log()
        let layer = try Self.neverAnswered(c, name: "never", log: log)
        let first = log.wait { $0.count >= 16 }
        usleep(300_000)
        #expect(log.all.count == 16, "at most 16 asked at once")
        #expect(Set(first.map { [$0.column, $0.row] }).count == 16, "each once")
        #expect(first.allSatisfy { $0.column < 7 && $0.row < 7 }, "only tiles in view (columns and rows 0…6)")
        // Another client is unaffected.
        let plain = other.makeLayer(.layer)
        plain.frame = Rect(150, 150, 20, 20)
        plain.backgroundColor = Color(1, 0, 0, 1)
        other.root.addSublayer(plain)
        try other.commit()
        DaemonTests.expectPixel(try DaemonTests.capture(other), 160, 160, (255, 0, 0))
        // Away: the 16 are cancelled (else none more could be asked), 16 of the new view asked for.
        c.setDisableActions(true)
        layer.position = Point(1024 - 1000, 1024 - 1000)   // image 1000…1200 in view
        try c.commit()
        let second = log.wait { $0.count >= 32 }
        usleep(300_000)
        #expect(second.count == 32)
        #expect(second[16...].allSatisfy { $0.column >= 31 && $0.row >= 31 && $0.column <= 37 && $0.row <= 37 })
        _ = try other.ping()
    }

    /// Bad answers are refused by name, the connection and the image going on: an unknown
    /// image, an image not drawn by the client, a tile side outside 16…1024, a level or tile
    /// that does not exist, an unknown buffer, a buffer of the wrong size. A right answer never
    /// asked for is taken.
    @Test func badAnswersAreRefusedByName() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "hostile")
        _ = try c.createTiledImage(name: "drawn", width: 100, height: 70) { _, _ in false }
        _ = try c.uploadImage(premultipliedRGBA: [UInt8](repeating: 255, count: 16), width: 2, height: 2, name: "plain")
        let surface = c.makeSurfaceLayer()
        try surface.makeBuffers(width: 64, height: 64, format: .rgba8, count: 1)
        let buffer = surface.buffers[0].id
        var requestID: UInt32 = 1000
        func answer(_ name: String = "drawn", level: Int32 = 0, column: UInt32 = 0, row: UInt32 = 0, side: UInt32 = 64,
                    buffer b: UInt32? = nil) throws -> RequestError? {
            requestID += 1
            let before = c.pendingErrors.count
            try c.sendRaw(MessageEncoder.encode(.provideTile(TileAnswer(name: name, level: level, column: column, row: row,
                                                                        tileWidth: side, tileHeight: side,
                                                                        buffer: b ?? buffer)), requestID: requestID))
            _ = try c.ping()   // replies come in order: an error for the answer is in by now
            return c.pendingErrors.count > before ? c.pendingErrors.last : nil
        }
        func expectRefused(_ e: RequestError?, _ code: ErrorCode, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(e?.code == code, sourceLocation: sourceLocation)
            #expect(e?.message.contains(words) == true, "\(e?.message ?? "accepted")", sourceLocation: sourceLocation)
            #expect(e?.opcode == 0x46, sourceLocation: sourceLocation)
        }
        expectRefused(try answer("nothing"), .unknownImage, "no image of this name")
        expectRefused(try answer("plain"), .invalidImage, "not a client-drawn tiled image")
        expectRefused(try answer(side: 3), .invalidValue, "tile sides are 16…")
        // 100×70: level 7 is 1×1 (the last); column 2 of level 0 in 64-pixel tiles does not exist.
        expectRefused(try answer(level: 8), .invalidValue, "no such tile")
        expectRefused(try answer(level: -100), .invalidValue, "no such tile")
        expectRefused(try answer(column: 2), .invalidValue, "no such tile")
        expectRefused(try answer(row: 5), .invalidValue, "no such tile")
        expectRefused(try answer(buffer: 999), .unknownBuffer, "no shared-memory buffer 999")
        // Tile (1, 1) of level 0 is 36×6 pixels: the 64×64 buffer is refused, naming both sizes.
        expectRefused(try answer(column: 1, row: 1), .invalidBuffer, "the tile is 36×6 pixels but buffer \(buffer) is 64×64")
        // Level 1 (50×35) in one 64-pixel tile: 50×35, refused too.
        expectRefused(try answer(level: 1), .invalidBuffer, "the tile is 50×35 pixels")
        // Tile (0, 0) of level 0 is 64×64: taken (answered with bufferReleased, no error).
        #expect(try answer() == nil)
        #expect(c.pendingErrors.allSatisfy { $0.failed.key == "drawn" || $0.failed.key == "nothing" || $0.failed.key == "plain" })
        _ = try c.ping()
    }

    /// The tile cache's budget (`tileCacheBytes`, 12 tiles of 64×64 here) holds for client
    /// tiles: panning over 18 answered tiles keeps at most 12 (the 12 in view stay), and a tile
    /// evicted is asked for again when it comes back into view.
    @Test func theTileBudgetHoldsAndEvictedTilesAreAskedForAgain() throws {
        let budget = 12 * 64 * 64 * 4
        let daemon = try TestDaemon.make { $0.tileCacheBytes = budget }
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "budget")
        c.setDisableActions(true)
        let log = Log()
        let layer = c.makeLayer(.tiled) as! TiledLayer
        try layer.drawTiles(name: "pan", width: 1024, height: 512) { r, pixels in log.add(r); Self.fill(r, pixels); return true }
        layer.frame = Rect(10, 20, 1024, 512)
        layer.tileSize = Size(64, 64)
        layer.levelsOfDetail = 1
        layer.fadeDuration = 0
        c.root.addSublayer(layer)
        try c.commit()
        _ = log.wait { $0.count >= 9 }
        _ = try Self.capture(c) { Self.near($0, 10 + 160, 20 + 160, Self.color(level: 0, column: 2, row: 2)) }
        #expect(daemon.renderLoop.tileCacheBytes.resident == 9 * 64 * 64 * 4)
        // Pan right by 192 points: image x 182…382 in view, columns 2…5 (3…5 new).
        c.setDisableActions(true)
        layer.frame = Rect(10 - 192, 20, 1024, 512)
        try c.commit()
        _ = log.wait { $0.count >= 18 }
        let panned = try Self.capture(c) { Self.near($0, 10 + 160, 20 + 160, Self.color(level: 0, column: 5, row: 2)) }
        DaemonTests.expectPixel(panned, 10 + 10, 20 + 10, Self.color(level: 0, column: 3, row: 0))
        #expect(daemon.renderLoop.tileCacheBytes.resident <= budget)
        #expect(daemon.renderLoop.tileCacheBytes.peak <= budget)
        // Back: the evicted tiles of columns 0 and 1 are asked for again (each once more).
        c.setDisableActions(true)
        layer.frame = Rect(10, 20, 1024, 512)
        try c.commit()
        let again = log.wait { $0.count >= 18 + 6 }
        usleep(300_000)
        // Columns 0 and 1 were evicted (least recently drawn); column 2 stayed in view throughout.
        let repeated = Array(log.all.dropFirst(18))
        #expect(repeated.count == 6)
        #expect(Set(repeated.map { [$0.column, $0.row] }) == Set((0..<2).flatMap { x in (0..<3).map { [UInt32(x), UInt32($0)] } }))
        let back = try Self.capture(c) { Self.near($0, 10 + 160, 20 + 160, Self.color(level: 0, column: 2, row: 2))
            && Self.near($0, 10 + 10, 20 + 10, Self.color(level: 0, column: 0, row: 0)) }
        DaemonTests.expectPixel(back, 10 + 100, 20 + 100, Self.color(level: 0, column: 1, row: 1))
        #expect(daemon.renderLoop.tileCacheBytes.resident <= budget)
    }
}
