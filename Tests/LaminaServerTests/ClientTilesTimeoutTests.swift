import DaemonTestSupport
import Foundation
import Lamina
import LaminaServer
import LaminaWire
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 24 item 4, what remained: a tile asked for and never answered is cancelled after
/// `ServerCore.tileAnswerTimeout` (2 s on the daemon's clock — the manual clock here), its slot
/// freed for tiles never asked for, and asked for again only after them; the client library
/// tells the app of each cancellation (`onCancelled`) and a provider drawing a cancelled tile
/// (`TileCancellation`).
extension ClientTilesDaemonTests {
    /// A tiled layer showing a 2048×2048 client-drawn image in 32×32 tiles at 1:1 from the
    /// origin, one level, whose provider logs each request and answers none; committed.
    static func neverAnswered(_ c: Connection, name: String, log: Log,
                              onCancelled: (@Sendable (TileRequest) async -> Void)? = nil) throws -> TiledLayer {
        let layer = c.makeLayer(.tiled) as! TiledLayer
        try layer.drawTiles(name: name, width: 2048, height: 2048, onCancelled: onCancelled) { r, _ in log.add(r); return false }
        layer.frame = Rect(0, 0, 2048, 2048)
        layer.tileSize = Size(32, 32)
        layer.levelsOfDetail = 1
        c.root.addSublayer(layer)
        try c.commit()
        return layer
    }

    /// A 2048×2048 image in 32×32 tiles at 1:1 from the origin: the 200×200 canvas shows
    /// columns and rows 0…6, 49 tiles, and the client answers none.
    @Test func unansweredTilesAreCancelledAfterTheTimeoutAndOthersAskedInTheirPlace() throws {
        #expect(ServerCore.tileAnswerTimeout == 2)
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "dropper")
        c.setDisableActions(true)
        let log = Log()
        let cancelled = Log()
        _ = try Self.neverAnswered(c, name: "dropped", log: log, onCancelled: { cancelled.add($0) })
        let first = log.wait { $0.count >= 16 }
        usleep(200_000)
        #expect(log.all.count == 16)
        let firstKeys = Self.keys(first, level: 0)
        #expect(firstKeys.count == 16)

        // Just under the timeout: nothing more.
        try c.advanceClock(by: 1.9)
        _ = try c.ping()
        usleep(200_000)
        #expect(log.all.count == 16)
        #expect(cancelled.all.isEmpty)

        // Past it: the 16 are cancelled (the app told of each), 16 never asked for are asked.
        try c.advanceClock(by: 0.2)
        let second = log.wait { $0.count >= 32 }
        let notices = cancelled.wait { $0.count >= 16 }
        usleep(200_000)
        #expect(log.all.count == 32)
        #expect(Self.keys(notices, level: 0) == firstKeys, "each timed-out request cancelled, once")
        #expect(cancelled.all.count == 16)
        let secondKeys = Self.keys(Array(second[16...]), level: 0)
        #expect(secondKeys.count == 16 && secondKeys.isDisjoint(with: firstKeys), "the freed slots go to tiles never asked for")
        #expect(secondKeys.allSatisfy { $0[0] <= 6 && $0[1] <= 6 })

        // Again: the last 17 never asked for go first (16 of them), …
        try c.advanceClock(by: 2)
        let third = log.wait { $0.count >= 48 }
        let thirdKeys = Self.keys(Array(third[32...]), level: 0)
        #expect(thirdKeys.count == 16 && thirdKeys.isDisjoint(with: firstKeys.union(secondKeys)))
        // … then the one left and the oldest timed out (the first 16's) again.
        try c.advanceClock(by: 2)
        let fourth = log.wait { $0.count >= 64 }
        let fourthKeys = Self.keys(Array(fourth[48...]), level: 0)
        let all = Set((0...6).flatMap { col in (0...6).map { [UInt32(col), UInt32($0)] } })
        let never = all.subtracting(firstKeys).subtracting(secondKeys).subtracting(thirdKeys)
        #expect(never.count == 1)
        #expect(fourthKeys.count == 16 && never.isSubset(of: fourthKeys))
        #expect(fourthKeys.subtracting(never).isSubset(of: firstKeys), "retries: the oldest timed out first")
        _ = try c.ping()
    }

    /// A provider drawing a tile cancelled meanwhile sees `isCancelled` (set by the reader
    /// thread while the delivery context is busy drawing) and its answer is not sent; the
    /// tiles asked for behind it and cancelled are not drawn; `onCancelled` tells of each. A
    /// 512×64 image in 64×64 tiles from canvas x 10: tiles 0…2 in view; then from x −310:
    /// tiles 4…7 (image x 320…510).
    @Test func aProviderDrawingACancelledTileIsToldAndItsAnswerNotSent() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "slow")
        c.setDisableActions(true)
        let log = Log()
        let cancelled = Log()
        let sawCancel = Mutex<[Bool]>([])
        let release = DispatchSemaphore(value: 0)
        let drawing = Mutex<TileCancellation?>(nil)
        _ = try c.createTiledImage(name: "slow", width: 512, height: 64, onCancelled: { cancelled.add($0) }) { r, pixels, cancellation in
            log.add(r)
            if r.column == 0 {
                drawing.withLock { $0 = cancellation }
                release.wait()                           // held until the test lets go
            }
            Self.fill(r, pixels)
            sawCancel.withLock { $0.append(cancellation.isCancelled) }
            return true
        }
        let layer = c.makeLayer(.tiled) as! TiledLayer
        layer.contents = "slow"
        layer.anchorPoint = Point(0, 0)
        layer.bounds = Rect(0, 0, 512, 64)
        layer.position = Point(10, 20)
        layer.tileSize = Size(64, 64)
        layer.levelsOfDetail = 1
        layer.fadeDuration = 0
        c.root.addSublayer(layer)
        try c.commit()
        _ = log.wait { $0.count >= 1 }
        var deadline = Date().addingTimeInterval(10)
        while drawing.withLock({ $0 == nil }) && Date() < deadline { usleep(2000) }
        #expect(log.all.map(\.column) == [0])
        // Tiles 0…2 leave the view while 0 is drawn: it is told at once.
        c.setDisableActions(true)
        layer.position = Point(-310, 20)
        try c.commit()
        deadline = Date().addingTimeInterval(10)
        while drawing.withLock({ $0?.isCancelled != true }) && Date() < deadline { usleep(2000) }
        #expect(drawing.withLock { $0?.isCancelled } == true)
        #expect(cancelled.all.isEmpty, "the notices wait behind the drawing on the delivery context")
        release.signal()
        let notices = cancelled.wait { $0.count >= 3 }
        #expect(Set(notices.map(\.column)) == [0, 1, 2])
        // Tiles 4…7 asked for and drawn; 1 and 2 never were; 0's answer was not sent.
        let img = try Self.capture(c) { img in
            (5...7).allSatisfy { col in Self.near(img, -310 + 64 * col + 32, 50, Self.color(level: 0, column: UInt32(col), row: 0)) }
        }
        for col in 5...7 {
            DaemonTests.expectPixel(img, -310 + 64 * col + 32, 50, Self.color(level: 0, column: UInt32(col), row: 0))
        }
        #expect(Set(log.all.map(\.column)) == [0, 4, 5, 6, 7])
        #expect(sawCancel.withLock { $0.first } == true)
        #expect(sawCancel.withLock { $0.count } == 5)
        // Back: tile 0 is asked again (no answer was cached) and shown.
        release.signal()
        c.setDisableActions(true)
        layer.position = Point(10, 20)
        try c.commit()
        let back = try Self.capture(c) { Self.near($0, 40, 50, Self.color(level: 0, column: 0, row: 0)) }
        DaemonTests.expectPixel(back, 40, 50, Self.color(level: 0, column: 0, row: 0))
        #expect(log.all.filter { $0.column == 0 }.count == 2)
    }
}
