import Foundation
import Lamina
import LaminaPNG
import LaminaServer
import LaminaWire
import Testing
import TestSupport
import DaemonTestSupport

/// End to end: laminad on a temporary socket with the manual clock, driven through the
/// client library, frames captured through Vulkan (lavapipe here) and read back as PNG.
/// The protocol's logic is tested without sockets or a GPU in `EmbeddedDaemonTests`; these
/// few cover what only the real thing has: pixels, sockets, threads' stacks.
@Suite(.serialized) struct DaemonTests {
    static func capture(_ c: Connection) throws -> RGBAImage {
        try PNG.decode(c.capture(at: 0).png)
    }

    /// Checks a pixel against an expected 8-bit color within ±2/255.
    static func expectPixel(_ img: RGBAImage, _ x: Int, _ y: Int, _ rgb: (Int, Int, Int),
                            sourceLocation: SourceLocation = #_sourceLocation) {
        TestSupport.expectPixel(img, x, y, RGBA(rgb.0, rgb.1, rgb.2), tolerance: 2, alphaTolerance: 0,
                                sourceLocation: sourceLocation)
    }

    static func buildScene(_ c: Connection) throws { try DaemonScene.build(c) }

    @Test func threeOverlappingLayersMatchHandComputedPixels() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "test")
        try Self.buildScene(c)
        let img = try Self.capture(c)
        #expect(img.width == 200 && img.height == 200)
        // Outside every layer: the black background.
        Self.expectPixel(img, 10, 10, (0, 0, 0))
        Self.expectPixel(img, 130, 60, (0, 0, 0))
        // A alone: red. A spans x, y ∈ [20, 120] (anchor (0,0) at (20,20)).
        Self.expectPixel(img, 100, 30, (255, 0, 0))
        // C is centered at A's (50,50) = canvas (70,70); turned 45° it is the diamond
        // |dx| + |dy| ≤ 20√2 ≈ 28.28. Pixel (70,45) has center (70.5, 45.5): 0.5 + 24.5 = 25 → green.
        Self.expectPixel(img, 70, 45, (0, 255, 0))
        // Pixel (52,52), center (52.5,52.5): 17.5 + 17.5 = 35 > 28.28 → outside the diamond (an
        // unturned square would cover it): red.
        Self.expectPixel(img, 52, 52, (255, 0, 0))
        // B spans [100, 180]² (anchor (1,1) at (180,180)). Over black: 0.5 × 255 = 127.5 blue.
        Self.expectPixel(img, 150, 150, (0, 0, 128))
        // Over red, premultiplied in sRGB-encoded space: 0.5·blue + (1 − 0.5)·red = (127.5, 0, 127.5).
        Self.expectPixel(img, 110, 110, (128, 0, 128))
    }

    /// docs/protocol.md's example, its bytes written to a raw socket: a red square over
    /// 0…100 on the black canvas.
    @Test func theDocumentsExampleDrawsItsRedSquare() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let fd = try UnixSocket.connect(path: daemon.socketPath)
        defer { close(fd) }
        try UnixSocket.writeAll(fd, try ProtocolRulesTests.documentExampleBytes())
        var d = FrameDecoder()
        var buf = [UInt8](repeating: 0, count: 4096)
        var replies: [(Event, UInt32)] = []
        while replies.count < 2 {
            let n = read(fd, &buf, buf.count)
            guard n > 0 else { break }
            d.feed(buf[0..<n])
            while case .message(let e, let id)? = d.nextEvent() { replies.append((e, id)) }
        }
        guard replies.count == 2, case .committed = replies[1].0, replies[1].1 == 7 else { Issue.record("\(replies)"); return }
        let watcher = try Connection(socketPath: daemon.socketPath, name: "watcher")
        let img = try Self.capture(watcher)
        for (x, y) in [(2, 2), (50, 50), (97, 97)] { Self.expectPixel(img, x, y, (255, 0, 0)) }
        for (x, y) in [(103, 50), (50, 103), (150, 150)] { Self.expectPixel(img, x, y, (0, 0, 0)) }
    }

    @Test func garbageFromAnotherClientChangesNothing() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "good")
        try Self.buildScene(c)
        let before = try Self.capture(c)

        // A raw client that never says hello: it gets a badHandshake error and is closed.
        let fd = try UnixSocket.connect(path: daemon.socketPath)
        try UnixSocket.writeAll(fd, Array("\u{1}\u{2}garbage that is not a lamina message at all....".utf8))
        var d = FrameDecoder()
        var buf = [UInt8](repeating: 0, count: 4096)
        var got: Event? = nil
        while got == nil {
            let n = read(fd, &buf, buf.count)
            if n <= 0 { break }
            d.feed(buf[0..<n])
            if case .message(let e, _)? = d.nextEvent() { got = e }
        }
        close(fd)
        guard case .error(_, .badHandshake, _, _)? = got else { Issue.record("expected badHandshake, got \(String(describing: got))"); return }

        // A client that says hello and then sends a broken and an oversized message.
        let bad = try Connection(socketPath: daemon.socketPath, name: "bad")
        var junk = MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 900)
        junk[16] = 77
        let oversized = [0x50, 0x46, 0, 0, 0x12, 0, 0, 0, 0x85, 3, 0, 0] + [UInt8](repeating: 0xAB, count: 0x4650 - 12)
        try bad.sendRaw(junk + oversized)
        do {
            try bad.commit()
            Issue.record("the bad client's commit must be rejected")
        } catch LaminaError.requestFailed(_, let code, _, _) {
            #expect(code == .transactionFailed)
        }
        #expect(bad.pendingErrors.map(\.code) == [.malformed, .messageTooLarge])
        #expect(bad.pendingErrors.map(\.requestID) == [900, 901])

        let after = try Self.capture(c)
        #expect(after == before)
        #expect(try c.ping() >= 0)
    }

    /// End to end (sockets + lavapipe): a rejected commit leaves the rendered frame as it was.
    /// The embedded daemon's tests check the tree and hit tests; this one checks the pixels.
    @Test func commitsAreAllOrNothing() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        try Self.buildScene(c)
        let before = try Self.capture(c)
        let l = c.makeLayer()
        l.frame = Rect(0, 0, 200, 200)
        l.backgroundColor = Color(1, 1, 1)
        c.root.addSublayer(l)
        try c.sendRaw(MessageEncoder.encode(.setProperty(id: 4242, keyPath: "opacity", value: .number(1)), requestID: 77))
        do {
            try c.commit()
            Issue.record("the commit should have been rejected")
        } catch LaminaError.requestFailed(_, let code, let message, _) {
            #expect(code == .unknownLayer)
            #expect(message.contains("request 77"))
            #expect(message.contains("layer 4242 does not exist"))
        }
        #expect(try Self.capture(c) == before)
    }

    @Test func aLiveSocketIsRefusedAndAStaleOneReplaced() throws {
        let daemon = try TestDaemon.make()
        var config = daemon.config
        #expect(throws: (any Error).self) { try Daemon(config: config).start() }
        daemon.stop()
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        // A stale socket file (its daemon died without cleaning up).
        let fd = try UnixSocket.listen(path: daemon.socketPath)
        close(fd)
        config.socket = daemon.socketPath
        let second = Daemon(config: config)
        try second.start()
        let c = try Connection(socketPath: daemon.socketPath)
        #expect(try c.ping() >= 0)
        var st = stat()
        #expect(stat(daemon.socketPath, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
        second.stop()
    }

    /// Drawing, capturing and hit testing recurse once per nesting level on the daemon's
    /// threads: at the deepest nesting the configuration allows they work, and
    /// one level more is refused with `limitExceeded` — the daemon stays up.
    @Test func theDeepestAllowedNestingDrawsAndOneMoreIsRefused() throws {
        let depth = DaemonConfig.maxDepthLimit
        let daemon = try TestDaemon.make(maxDepth: depth)
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        var parent: Layer? = nil
        var deepest: Layer! = nil
        for level in 1...depth {
            let l = c.makeLayer()
            // Each level 0.02 points smaller than its superlayer, all centred on (100, 100);
            // the deepest is the 2048th, a red 100×100 square.
            let side = level == depth ? 100 : 200 - 0.02 * Double(level)
            l.bounds = Rect(0, 0, side, side)
            l.position = parent == nil ? Point(100, 100) : Point((200 - 0.02 * Double(level - 1)) / 2,
                                                                  (200 - 0.02 * Double(level - 1)) / 2)
            l.backgroundColor = level == depth ? Color(1, 0, 0) : Color(0, 0, Double(level % 2))
            if let parent { parent.addSublayer(l) } else { c.root.addSublayer(l) }
            parent = l
            deepest = l
        }
        try c.commit()
        let image = try Self.capture(c)
        Self.expectPixel(image, 100, 100, (255, 0, 0))
        Self.expectPixel(image, 60, 100, (255, 0, 0))
        Self.expectPixel(image, 45, 100, (0, 0, 255))   // beside the red square: level 2047 (159 wide), odd
        let hit = try c.hitTest(Point(100, 100))
        #expect(hit.layer == deepest.id)
        let extra = c.makeLayer()
        extra.bounds = Rect(0, 0, 10, 10)
        deepest.addSublayer(extra)
        do {
            try c.commit()
            Issue.record("a level beyond maxDepth was accepted")
        } catch LaminaError.requestFailed(_, let code, _, _) {
            #expect(code == .limitExceeded)
        }
        #expect(try Self.capture(c) == image)
    }
}
