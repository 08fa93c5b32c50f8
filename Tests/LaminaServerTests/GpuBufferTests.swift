import Foundation
import Glibc
import Lamina
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaPNG
import LaminaRender
import LaminaServer
import LaminaWire
import Testing
import DaemonTestSupport

/// GPU buffers (docs/protocol.md, GPU buffers) on lavapipe: a client image made, cleared and
/// written with Vulkan transfers (`GpuImageExporter`), its memory exported as an opaque fd and
/// imported by the daemon, shown in a surface layer. Expected pixels come from the values the
/// test wrote (a clear color converted to 8 bits by the UNORM rule, round(c × 255), and bytes
/// copied in), never from the daemon. Each refusal names what is wrong, and nothing the
/// daemon imported outlives the buffer or its client.
@Suite(.serialized) struct GpuBufferTests {
    static let rgba: UInt32 = 37, bgra: UInt32 = 44

    /// Pixels of `img` off by more than 1 in a color channel from `pattern` `seed` shown 40 × 30
    /// at (10, 20) over the black background (premultiplied pattern colors as they are).
    static func misses(_ img: RGBAImage, seed: Int) -> Int {
        var wrong = 0
        for y in 0..<img.height { for x in 0..<img.width {
            let i = (y * img.width + x) * 4
            let inside = x >= 10 && x < 50 && y >= 20 && y < 50
            let p = inside ? pattern(x - 10, y - 20, seed) : [0, 0, 0, 255]
            if (0..<3).contains(where: { abs(Int(img.pixels[i + $0]) - Int(p[$0])) > 1 }) { wrong += 1 }
        } }
        return wrong
    }

    /// Pixel (x, y) of pattern `seed` as R, G, B, A bytes (premultiplied: alpha 255 or 0 with zero colour).
    static func pattern(_ x: Int, _ y: Int, _ seed: Int) -> [UInt8] {
        (x + y + seed) % 5 == 0 ? [0, 0, 0, 0] : [UInt8((x * 31 + seed * 17) % 256), UInt8((y * 47 + seed) % 256), UInt8((x * y + 3 * seed) % 256), 255]
    }

    /// The pattern over rectangle (x, y, w, h) as bytes in `format`'s order.
    static func bytes(x: Int, y: Int, w: Int, h: Int, seed: Int, format: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        for py in y..<(y + h) {
            for px in x..<(x + w) {
                let p = pattern(px, py, seed)
                out += format == bgra ? [p[2], p[1], p[0], p[3]] : p
            }
        }
        return out
    }

    static func description(_ e: GpuImageExporter, id: UInt32) -> GpuBufferDescription {
        GpuBufferDescription(id: id, width: UInt32(e.width), height: UInt32(e.height), format: e.format, size: e.size,
                             memoryType: e.memoryType, deviceUUID: e.deviceUUID)
    }

    static func surface(_ layer: UInt32, w: Int, h: Int) -> [Request] {
        [.createLayer(id: layer, kind: .surface), .setProperty(id: layer, keyPath: "frame", value: .rect(Rect(0, 0, Double(w), Double(h)))),
         .addSublayer(parent: 0, child: layer)]
    }

    static func surfaceImage(_ d: EmbeddedDaemon) -> LaminaImage.Image? {
        d.drawList().items.compactMap { if case .image(let draw) = $0.kind, draw.image.surface != nil { draw.image } else { nil } }.first
    }

    /// Pixels of `image` that differ from `expected(x, y)` (R, G, B, A).
    static func wrong(_ image: LaminaImage.Image, _ expected: (Int, Int) -> [UInt8]) -> Int {
        var n = 0
        for y in 0..<image.height { for x in 0..<image.width {
            let p = image[x, y]
            if [p.0, p.1, p.2, p.3] != expected(x, y) { n += 1 }
        } }
        return n
    }

    /// Descriptors of this process open on exported GPU memory (lavapipe's opaque fds are
    /// memfds named "llvmpipe memory fd"; other suites running meanwhile open none of those).
    static func openDescriptors() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.count { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.contains("memfd:llvmpipe memory fd") ?? false }
    }

    @Test(arguments: [rgba, bgra])
    func aClearedAndWrittenImageIsShownAndItsDamageAlone(format: UInt32) throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let e = try GpuImageExporter(width: 24, height: 16, format: format)
        // Clear to (0.2, 0.6, 1, 1): bytes round(0.2 × 255) = 51, 153, 255, 255 in the format's order.
        try e.clear(0.2, 0.6, 1, 1)
        try e.write(Self.bytes(x: 3, y: 2, w: 10, h: 7, seed: 1, format: format), x: 3, y: 2, width: 10, height: 7)
        #expect(d.request(.createGpuBuffer(Self.description(e, id: 5)), descriptors: [try e.exportMemory()], from: c)
                == .bufferCreated(id: 5))
        let reply = d.commit(Self.surface(1, w: 24, h: 16) + [.attachBuffer(layer: 1, buffer: 5, damage: [])], from: c)
        guard case .committed = reply else { Issue.record("\(reply)"); return }
        let image = try #require(Self.surfaceImage(d))
        #expect(image.width == 24 && image.height == 16)
        // The clear color's channels are R, G, B, A whatever the byte order: the surface shows them so.
        let shownClear: [UInt8] = [51, 153, 255, 255]
        func inside(_ x: Int, _ y: Int, _ r: (Int, Int, Int, Int)) -> Bool { x >= r.0 && x < r.0 + r.2 && y >= r.1 && y < r.1 + r.3 }
        #expect(Self.wrong(image) { x, y in inside(x, y, (3, 2, 10, 7)) ? Self.pattern(x, y, 1) : shownClear } == 0)
        // Released once the frame read it.
        #expect(d.takeEvents(c).contains { $0.event == .bufferReleased(id: 5) })
        // Draw a new pattern over 20×12 at (2, 2) but say only 6×4 at (8, 5) changed: only that
        // rectangle is read.
        try e.write(Self.bytes(x: 2, y: 2, w: 20, h: 12, seed: 2, format: format), x: 2, y: 2, width: 20, height: 12)
        _ = d.commit([.attachBuffer(layer: 1, buffer: 5, damage: [DamageRect(x: 8, y: 5, width: 6, height: 4)])], from: c)
        let image2 = try #require(Self.surfaceImage(d))
        #expect(Self.wrong(image2) { x, y in
            inside(x, y, (8, 5, 6, 4)) ? Self.pattern(x, y, 2) : inside(x, y, (3, 2, 10, 7)) ? Self.pattern(x, y, 1) : shownClear
        } == 0)
    }

    @Test func refusalsNameWhatIsWrongAndLeaveNothingBehind() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let before = Self.openDescriptors()
        do {
            let e = try GpuImageExporter(width: 32, height: 32)
            let good = Self.description(e, id: 1)
            let otherUUID = good.deviceUUID.map { $0 ^ 0xFF }
            // Each a change of the good description, and what the refusal must say.
            let wrong: [(change: (inout GpuBufferDescription) -> Void, says: String)] = [
                ({ $0.deviceUUID = otherUUID }, "comes from device \(otherUUID.map { String(format: "%02x", $0) }.joined())"),
                ({ $0.format = 97 }, "format 97 is not one the daemon samples"),   // VK_FORMAT_R16G16B16A16_SFLOAT
                ({ $0.size = 64 }, "size 64 is less than"),                            // smaller than the image needs
                ({ $0.memoryType = 31 }, "memory type 31"),                            // cannot hold it
                ({ $0.width = 20000 }, "width and height must be 1…"),
            ]
            for (change, says) in wrong {
                var description = good
                change(&description)
                SurfaceProtocolTests.expectError(d.request(.createGpuBuffer(description), descriptors: [try e.exportMemory()], from: c),
                                 .invalidBuffer, containing: says)
            }
            // No descriptor at all.
            SurfaceProtocolTests.expectError(d.request(.createGpuBuffer(good), from: c), .invalidBuffer, containing: "no file descriptor came with createGpuBuffer")
            // Over the client's memory limit.
            let limited = EmbeddedDaemon { $0.maxImageBytesPerClient = 1024 }
            let lc = limited.connect()!
            SurfaceProtocolTests.expectError(limited.request(.createGpuBuffer(good), descriptors: [try e.exportMemory()], from: lc),
                             .limitExceeded, containing: "over the client's memory limit")
            // The good one is taken after all that; its id is then in use.
            #expect(d.request(.createGpuBuffer(good), descriptors: [try e.exportMemory()], from: c) == .bufferCreated(id: 1))
            SurfaceProtocolTests.expectError(d.request(.createGpuBuffer(good), descriptors: [try e.exportMemory()], from: c),
                             .invalidValue, containing: "the id is in use")
            SurfaceProtocolTests.expectError(d.request(.createBuffer(id: 1, pool: 9, offset: 0, width: 1, height: 1, stride: 4, format: .rgba8), from: c),
                             .unknownBuffer, containing: "no pool 9")
            // A surface shows it; then the client goes.
            try e.clear(1, 1, 1, 1)
            guard case .committed = d.commit(Self.surface(1, w: 32, h: 32) + [.attachBuffer(layer: 1, buffer: 1, damage: [])], from: c)
            else { Issue.record("commit refused"); return }
            #expect(Self.surfaceImage(d).map { Self.wrong($0) { _, _ in [255, 255, 255, 255] } } == 0)
            let importer = try #require(try? d.core.gpuImporter?.get())
            let holding = importer.liveObjects
            // A second buffer adds objects; destroying it takes them away.
            #expect(d.request(.createGpuBuffer(Self.description(e, id: 2)), descriptors: [try e.exportMemory()], from: c)
                    == .bufferCreated(id: 2))
            let two = importer.liveObjects
            #expect(two > holding)
            let extra = try e.exportMemory()
            #expect(Self.openDescriptors() > before)   // the count sees an exported descriptor
            close(extra)
            #expect(d.request(.destroyBuffer(id: 2), from: c) == .bufferDestroyed(id: 2))
            #expect(importer.liveObjects == holding)
            d.hangUp(c)
            _ = d.tick(1, interval: 1.0 / 60)
            #expect(importer.liveObjects == holding - (two - holding))
            // (Performance warnings about layout GENERAL are expected: both sides keep the image in it.)
            let errors = (importer.validationLog.messages + e.validationLog.messages).filter { $0.contains("[vulkan error]") }
            #expect(errors.isEmpty, "\(errors)")
        }
        // Every descriptor exported and sent was closed by the daemon or went with the imported
        // memory (the exporter is gone too).
        #expect(Self.openDescriptors() == before)
    }

    @Test func theSwiftClientSharesAGpuImageWithTheRealDaemon() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "gpu")
        let e = try GpuImageExporter(width: 40, height: 30, format: Self.bgra)
        try e.clear(0, 0, 0, 1)
        try e.write(Self.bytes(x: 0, y: 0, w: 40, h: 30, seed: 3, format: Self.bgra), x: 0, y: 0, width: 40, height: 30)
        let surface = c.makeSurfaceLayer()
        let buffer = try surface.addGpuBuffer(memoryFD: try e.exportMemory(), width: e.width, height: e.height, format: e.format,
                                              size: e.size, memoryType: e.memoryType, deviceUUID: e.deviceUUID)
        surface.frame = Rect(10, 20, 40, 30)
        c.root.addSublayer(surface)
        surface.present(buffer)
        try c.commit()
        #expect(Self.misses(try PNG.decode(c.capture(at: nil).png), seed: 3) == 0)
        let deadline = Date().addingTimeInterval(5)
        while buffer.isBusy && Date() < deadline { usleep(2000) }
        #expect(!buffer.isBusy)
        // Another device's UUID through the client: a clear error.
        #expect(throws: LaminaError.self) {
            _ = try surface.addGpuBuffer(memoryFD: try e.exportMemory(), width: e.width, height: e.height, format: e.format,
                                         size: e.size, memoryType: e.memoryType, deviceUUID: [UInt8](repeating: 7, count: 16))
        }
    }

    /// A surface showing a GPU buffer (a Vulkan image shared by its memory's fd) under a real
    /// `laminad` that is killed and restarted (ClientReconnectTests' daemons): after the
    /// restart the client sends the buffer again (a duplicate of the fd it kept) and attaches it
    /// again, so daemon B shows the same pixels — the image's, which the client drew once.
    @Test func aGpuBufferShowsTheSamePixelsAfterARestart() throws {
        let (path, a, c, seen) = try ClientReconnectTests.start("gpu-pixels")
        defer { c.close() }
        c.setDisableActions(true)
        let e = try GpuImageExporter(width: 40, height: 30, format: Self.bgra)
        try e.clear(0, 0, 0, 1)
        try e.write(Self.bytes(x: 0, y: 0, w: 40, h: 30, seed: 5, format: Self.bgra),
                    x: 0, y: 0, width: 40, height: 30)
        let surface = c.makeSurfaceLayer()
        let buffer = try surface.addGpuBuffer(memoryFD: try e.exportMemory(), width: e.width, height: e.height,
                                              format: e.format, size: e.size, memoryType: e.memoryType, deviceUUID: e.deviceUUID)
        surface.frame = Rect(10, 20, 40, 30)
        c.root.addSublayer(surface)
        surface.present(buffer)
        try c.commit()
        func misses(_ img: RGBAImage) -> Int { Self.misses(img, seed: 5) }
        let before = try ClientTilesDaemonTests.capture(c) { misses($0) == 0 }
        #expect(misses(before) == 0)
        a.kill()
        #expect(seen.wait(for: 1) == ["lost"])
        let b = try ClientReconnectTests.restart(on: path, seen)
        let after = try ClientTilesDaemonTests.capture(c) { misses($0) == 0 }
        #expect(misses(after) == 0, "daemon B shows the GPU buffer's pixels")
        #expect(zip(after.pixels, before.pixels).count { $0 != $1 } == 0, "B's frame against A's")
        // B releases it as any attachment; the client draws again and presents.
        let deadline = Date().addingTimeInterval(5)
        while buffer.isBusy && Date() < deadline { usleep(2000) }
        #expect(!buffer.isBusy)
        withExtendedLifetime((b, e)) {}
    }
}
