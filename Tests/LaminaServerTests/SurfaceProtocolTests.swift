import Foundation
import Glibc
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaServer
import LaminaWire
import Testing

/// Surfaces through the protocol (docs/protocol.md, Surfaces) on the embedded daemon, with real
/// memfds: buffers of both formats with padded strides and offsets inside a pool copied to the
/// pixels the surface shows, damage-only copies, release / presentation / frame-callback
/// events and their order under the manual clock, atomicity with the commit's other changes,
/// and each refusal with no descriptor or mapping left behind. Expected pixels are computed
/// here from the bytes each test writes (BGRA swapped to RGBA by hand).
@Suite struct SurfaceProtocolTests {
    /// A client's memfd, mapped read-write in this process (the client's side).
    final class Memory {
        let fd: Int32
        let base: UnsafeMutableRawPointer
        let size: Int
        let name: String
        init(size: Int, sealShrink: Bool = true, tag: String = #function) {
            name = "surface-test-\(UInt32.random(in: 0...UInt32.max))"
            fd = MemoryFile.make(name: name, size: size, sealShrink: sealShrink)
            precondition(fd >= 0)
            base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)!
            self.size = size
        }
        deinit { munmap(base, size) }
        /// A duplicate the daemon takes (and closes): this side keeps `fd` for its own use.
        func handOff() -> Int32 { dup(fd) }
        func closeOwn() { close(fd) }
        subscript(offset: Int) -> UInt8 {
            get { base.load(fromByteOffset: offset, as: UInt8.self) }
            set { base.storeBytes(of: newValue, toByteOffset: offset, as: UInt8.self) }
        }
        /// Descriptors of this process open on the memfd, and mappings of it (not ours).
        var daemonDescriptors: Int {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return entries.count { e in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(e)"))?.contains(name) ?? false
            }
        }
        var mappings: Int {
            // (procfs files report size 0: read to the end.)
            let maps = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()) ?? Data(),
                              as: UTF8.self)
            return maps.split(separator: "\n").count { $0.contains(name) }
        }
    }

    /// Pixel (x, y) of a test pattern as straight R, G, B, A (opaque or half transparent,
    /// premultiplied by the writer).
    static func rgba(_ x: Int, _ y: Int, _ seed: Int = 0) -> (UInt8, UInt8, UInt8, UInt8) {
        let a = (x + y + seed) % 3 == 0 ? 128 : 255
        let r = (x * 37 + seed * 11) % 256, g = (y * 53 + seed * 7) % 256, b = (x * y + seed) % 256
        // premultiplied
        return (UInt8(r * a / 255), UInt8(g * a / 255), UInt8(b * a / 255), UInt8(a))
    }

    /// Writes the pattern into a buffer's bytes in `format`'s order.
    static func fill(_ m: Memory, offset: Int, width: Int, height: Int, stride: Int, format: BufferFormat, seed: Int = 0,
                     rect: (Int, Int, Int, Int)? = nil) {
        let (x0, y0, w, h) = rect ?? (0, 0, width, height)
        for y in y0..<(y0 + h) {
            for x in x0..<(x0 + w) {
                let (r, g, b, a) = rgba(x, y, seed)
                let o = offset + y * stride + x * 4
                if format == .bgra8 { m[o] = b; m[o + 1] = g; m[o + 2] = r } else { m[o] = r; m[o + 1] = g; m[o + 2] = b }
                m[o + 3] = a
            }
        }
    }

    static func pool(_ d: EmbeddedDaemon, _ c: UInt32, id: UInt32, _ m: Memory, size: Int? = nil) -> Event {
        d.request(.createPool(id: id, size: UInt64(size ?? m.size)), descriptors: [m.handOff()], from: c)
    }

    /// The surface images the next frame draws, by layer position (x of the layer's frame).
    static func surfaceImages(_ d: EmbeddedDaemon) -> [Image] {
        d.drawList().items.compactMap { if case .image(let draw) = $0.kind, draw.image.surface != nil { draw.image } else { nil } }
    }

    static func expectPattern(_ image: Image, seed: Int = 0, where keep: (Int, Int) -> Bool = { _, _ in true },
                              sourceLocation: SourceLocation = #_sourceLocation) {
        var wrong = 0
        for y in 0..<image.height {
            for x in 0..<image.width where keep(x, y) {
                let p = image[x, y], e = rgba(x, y, seed)
                if p != e { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels differ from pattern \(seed)", sourceLocation: sourceLocation)
    }

    static func expectError(_ e: Event, _ code: ErrorCode, containing text: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .error(_, let got, let message, _) = e else {
            Issue.record("expected error \(code), got \(e)", sourceLocation: sourceLocation)
            return
        }
        #expect(got == code, "\(message)", sourceLocation: sourceLocation)
        #expect(message.contains(text), "\(message)", sourceLocation: sourceLocation)
    }

    /// A surface layer `layer` with frame x 0…w at x `x`, attached in the same commit.
    static func surface(_ layer: UInt32, x: Double, w: Int, h: Int) -> [Request] {
        [.createLayer(id: layer, kind: .surface), .setProperty(id: layer, keyPath: "frame", value: .rect(Rect(x, 0, Double(w), Double(h)))),
         .addSublayer(parent: 0, child: layer)]
    }

    @Test func bothFormatsWithPaddedStrideAndOffsetsShowTheBuffersPixels() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let m = Memory(size: 64 << 10)
        // BGRA 13×7 at offset 256 with a stride of 64 bytes (12 bytes of padding a row), RGBA
        // 9×5 at offset 8192 with a stride of 40.
        Self.fill(m, offset: 256, width: 13, height: 7, stride: 64, format: .bgra8)
        Self.fill(m, offset: 8192, width: 9, height: 5, stride: 40, format: .rgba8, seed: 5)
        #expect(Self.pool(d, c, id: 1, m) == .poolCreated(id: 1))
        #expect(d.request(.createBuffer(id: 1, pool: 1, offset: 256, width: 13, height: 7, stride: 64, format: .bgra8), from: c)
                == .bufferCreated(id: 1))
        #expect(d.request(.createBuffer(id: 2, pool: 1, offset: 8192, width: 9, height: 5, stride: 40, format: .rgba8), from: c)
                == .bufferCreated(id: 2))
        let reply = d.commit(Self.surface(1, x: 0, w: 13, h: 7) + Self.surface(2, x: 50, w: 9, h: 5)
                             + [.attachBuffer(layer: 1, buffer: 1, damage: []), .attachBuffer(layer: 2, buffer: 2, damage: [])], from: c)
        guard case .committed = reply else { Issue.record("\(reply)"); return }
        let images = Self.surfaceImages(d)
        try #require(images.count == 2)
        #expect(images[0].width == 13 && images[0].height == 7 && images[1].width == 9 && images[1].height == 5)
        Self.expectPattern(images[0])
        Self.expectPattern(images[1], seed: 5)
        // The padding between rows was never read: poison it and attach again; nothing changes.
        for y in 0..<7 { for k in 52..<64 { m[256 + y * 64 + k] = 0xEE } }
        _ = d.commit([.attachBuffer(layer: 1, buffer: 1, damage: [])], from: c)
        Self.expectPattern(Self.surfaceImages(d)[0])
    }

    @Test func damageCopiesOnlyTheDamagedRectangles() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let (w, h) = (40, 30)
        let m = Memory(size: w * h * 4)
        Self.fill(m, offset: 0, width: w, height: h, stride: w * 4, format: .bgra8)
        _ = Self.pool(d, c, id: 1, m)
        _ = d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: UInt32(w), height: UInt32(h), stride: UInt32(w * 4), format: .bgra8), from: c)
        _ = d.commit(Self.surface(1, x: 0, w: w, h: h) + [.attachBuffer(layer: 1, buffer: 1, damage: [])], from: c)
        let first = try #require(Self.surfaceImages(d).first)
        let storage = try #require(first.surface)
        #expect(storage.copiedBytes == w * h * 4)
        // The client redraws everything with another pattern but says only 5×4 at (10, 20)
        // and 3×3 at (38, 28) (cut to 2×2 at the edge) changed: only those are copied.
        Self.fill(m, offset: 0, width: w, height: h, stride: w * 4, format: .bgra8, seed: 9)
        _ = d.commit([.attachBuffer(layer: 1, buffer: 1, damage: [DamageRect(x: 10, y: 20, width: 5, height: 4),
                                                                  DamageRect(x: 38, y: 28, width: 3, height: 3)])], from: c)
        let second = try #require(Self.surfaceImages(d).first)
        #expect(second !== first && second.surface === storage)
        #expect(storage.copiedBytes == w * h * 4 + (5 * 4 + 2 * 2) * 4)
        func damaged(_ x: Int, _ y: Int) -> Bool { (10..<15).contains(x) && (20..<24).contains(y) || x >= 38 && y >= 28 }
        Self.expectPattern(second, seed: 9, where: damaged)
        Self.expectPattern(second, seed: 0, where: { !damaged($0, $1) })
        #expect(storage.damage(since: storage.version - 1) == [SurfaceRect(x: 10, y: 20, width: 5, height: 4),
                                                              SurfaceRect(x: 38, y: 28, width: 2, height: 2)])
    }

    @Test func releasePresentationAndFrameCallbacksFollowTheFrameInOrder() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let m = Memory(size: 8 * 8 * 4 * 2)
        _ = Self.pool(d, c, id: 1, m)
        _ = d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: 8, height: 8, stride: 32, format: .rgba8), from: c)
        _ = d.request(.createBuffer(id: 2, pool: 1, offset: 256, width: 8, height: 8, stride: 32, format: .rgba8), from: c)
        _ = d.takeEvents(c)
        _ = d.request(.advanceClock(seconds: 0.5), from: c)
        _ = d.commit(Self.surface(1, x: 0, w: 8, h: 8) + [.attachBuffer(layer: 1, buffer: 1, damage: []),
                                                           .presentationFeedback(id: 7), .frameCallback(id: 8)], from: c)
        // The commit's frame (at the clock's 0.5 s, 60 Hz) copied buffer 1: released, then the
        // feedback, then the callback with the next frame's target time.
        let refresh = 1 / d.core.display.refreshRate
        let events = d.takeEvents(c).map(\.event)
        let frame: UInt64 = events.lazy.compactMap { if case .presented(_, _, _, _, let f) = $0 { f } else { nil } }.first ?? 0
        #expect(events == [.bufferReleased(id: 1),
                           .presented(id: 7, discarded: false, time: 0.5, refresh: refresh, frame: frame),
                           .frameDone(id: 8, time: 0.5, targetTime: 0.5 + refresh)])
        // Two commits in one write: the first's content never reaches a frame (discarded);
        // both buffers are released after the one frame; the ids keep their commits' order.
        _ = d.request(.advanceClock(seconds: 0.25), from: c)
        _ = d.takeEvents(c)
        let ids = d.send([.attachBuffer(layer: 1, buffer: 2, damage: []), .presentationFeedback(id: 9), .commit,
                          .attachBuffer(layer: 1, buffer: 1, damage: []), .presentationFeedback(id: 10), .frameCallback(id: 11),
                          .commit], from: c)
        let later = d.takeEvents(c)
        #expect(later.map(\.requestID) == [ids[2], ids[6], 0, 0, 0, 0, 0])
        let f2: UInt64 = later.lazy.compactMap { if case .presented(_, _, _, _, let f) = $0.event { f } else { nil } }.first ?? 0
        #expect(f2 > frame)
        #expect(later.dropFirst(2).map(\.event) == [
            .bufferReleased(id: 2), .bufferReleased(id: 1),
            .presented(id: 9, discarded: true, time: 0.75, refresh: refresh, frame: f2),
            .presented(id: 10, discarded: false, time: 0.75, refresh: refresh, frame: f2),
            .frameDone(id: 11, time: 0.75, targetTime: 0.75 + refresh)])
        // A frame callback with no attachment fires with the next frame too.
        #expect(d.commit([.frameCallback(id: 12)], from: c) == .committed(sequence: 4))
        #expect(d.takeEvents(c).map(\.event).count { if case .frameDone(12, 0.75, _) = $0 { true } else { false } } == 1)
    }

    @Test func aCommitShowsItsBufferWithItsOtherChangesOrNotAtAll() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let m = Memory(size: 2 * 6 * 6 * 4)
        Self.fill(m, offset: 0, width: 6, height: 6, stride: 24, format: .rgba8, seed: 1)
        Self.fill(m, offset: 144, width: 6, height: 6, stride: 24, format: .rgba8, seed: 2)
        _ = Self.pool(d, c, id: 1, m)
        _ = d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: 6, height: 6, stride: 24, format: .rgba8), from: c)
        _ = d.request(.createBuffer(id: 2, pool: 1, offset: 144, width: 6, height: 6, stride: 24, format: .rgba8), from: c)
        _ = d.commit(Self.surface(1, x: 0, w: 6, h: 6) + [.attachBuffer(layer: 1, buffer: 1, damage: [])], from: c)
        // Staged, not committed: nothing changes.
        d.send([.attachBuffer(layer: 1, buffer: 2, damage: []),
                .setProperty(id: 1, keyPath: "position", value: .point(Point(100, 100)))], from: c)
        Self.expectPattern(try #require(Self.surfaceImages(d).first), seed: 1)
        #expect(d.drawList().items.first { if case .image = $0.kind { true } else { false } }?.bounds.origin == Point(0, 0))
        // A commit that fails later (an unknown layer) applies neither the buffer nor the move.
        if case .error(_, let code, _, _) = d.commit([.setProperty(id: 99, keyPath: "opacity", value: .number(1))], from: c) {
            #expect(code == .unknownLayer)
        } else { Issue.record("expected unknownLayer") }
        Self.expectPattern(try #require(Self.surfaceImages(d).first), seed: 1)
        // The same changes committed: both in the one frame.
        var still = TransactionSettings.default
        still.disableActions = true
        d.send([.setTransaction(still), .attachBuffer(layer: 1, buffer: 2, damage: []),
                .setProperty(id: 1, keyPath: "position", value: .point(Point(100, 100)))], from: c)
        #expect(d.request(.commit, from: c) == .committed(sequence: 2))
        Self.expectPattern(try #require(Self.surfaceImages(d).first), seed: 2)
        #expect(d.request(.getPresentation(id: 1, keyPath: "position"), from: c) == .presentation(value: .point(Point(100, 100))))
    }

    @Test func refusalsNameTheirCauseAndLeaveNothingBehind() throws {
        let d = EmbeddedDaemon { $0.maxImageBytesPerClient = 1 << 20 }
        let c = d.connect()!
        let good = Memory(size: 4096)
        // No descriptor with createPool.
        Self.expectError(d.request(.createPool(id: 1, size: 4096), from: c), .invalidBuffer, containing: "no file descriptor")
        // Not a memfd: a pipe.
        var p: [Int32] = [0, 0]
        pipe(&p)
        close(p[1])
        Self.expectError(d.request(.createPool(id: 1, size: 16), descriptors: [p[0]], from: c), .invalidBuffer, containing: "not a memfd")
        #expect(fcntl(p[0], F_GETFD) == -1)   // the daemon closed it
        // A memfd without F_SEAL_SHRINK.
        let unsealed = Memory(size: 4096, sealShrink: false)
        Self.expectError(Self.pool(d, c, id: 1, unsealed), .invalidBuffer, containing: "F_SEAL_SHRINK")
        // A pool larger than the memfd.
        Self.expectError(Self.pool(d, c, id: 1, good, size: 8192), .invalidBuffer, containing: "memfd holds 4096")
        // Over the memory limit (1 MiB).
        let big = Memory(size: 2 << 20)
        Self.expectError(Self.pool(d, c, id: 1, big), .limitExceeded, containing: "maxImageBytesPerClient")
        // A good pool; buffers that do not fit it.
        #expect(Self.pool(d, c, id: 1, good) == .poolCreated(id: 1))
        Self.expectError(d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: 33, height: 32, stride: 132, format: .bgra8), from: c),
                         .invalidBuffer, containing: "pool holds 4096")
        Self.expectError(d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: 8, height: 8, stride: 28, format: .bgra8), from: c),
                         .invalidBuffer, containing: "stride 28 is less than width × 4 = 32")
        Self.expectError(d.request(.createBuffer(id: 1, pool: 2, offset: 0, width: 8, height: 8, stride: 32, format: .bgra8), from: c),
                         .unknownBuffer, containing: "no pool 2")
        var bad = MessageEncoder.encode(Request.createBuffer(id: 1, pool: 1, offset: 0, width: 8, height: 8, stride: 32, format: .bgra8),
                                        requestID: 50)
        bad[bad.count - 1] = 7   // format 7
        d.sendRaw(bad, from: c)
        #expect(d.takeEvents(c).contains { if case .error(_, .malformed, let msg, _) = $0.event { msg.contains("format 7") } else { false } })
        #expect(d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: 8, height: 8, stride: 32, format: .bgra8), from: c)
                == .bufferCreated(id: 1))
        // Another client can't name this client's pool or buffer.
        let other = d.connect()!
        Self.expectError(d.request(.createBuffer(id: 5, pool: 1, offset: 0, width: 8, height: 8, stride: 32, format: .bgra8), from: other),
                         .unknownBuffer, containing: "no pool 1")
        Self.expectError(d.commit(Self.surface(1, x: 0, w: 8, h: 8) + [.attachBuffer(layer: 1, buffer: 1, damage: [])], from: other),
                         .unknownBuffer, containing: "no buffer 1")
        // Attaching to a layer that is not a surface, a missing layer; contents on a surface.
        Self.expectError(d.commit([.createLayer(id: 3, kind: .layer), .attachBuffer(layer: 3, buffer: 1, damage: [])], from: c),
                         .invalidProperty, containing: "not a surface layer")
        Self.expectError(d.commit([.attachBuffer(layer: 4, buffer: 1, damage: [])], from: c), .unknownLayer, containing: "no layer 4")
        Self.expectError(d.commit([.createLayer(id: 5, kind: .surface), .setProperty(id: 5, keyPath: "contents", value: .string("x"))], from: c),
                         .invalidProperty, containing: "surface layer")
        // None of these left the daemon a descriptor; only the good pool is mapped.
        #expect(unsealed.daemonDescriptors == 1 && big.daemonDescriptors == 1 && good.daemonDescriptors == 1)  // ours
        #expect(unsealed.mappings == 1 && big.mappings == 1 && good.mappings == 2)
        // The client goes: its pool's mapping goes with it.
        d.hangUp(c)
        #expect(good.mappings == 1 && good.daemonDescriptors == 1)
    }

    @Test func aClientKilledMidCommitLeavesItsLastCompleteBufferAndNothingElse() throws {
        let d = EmbeddedDaemon()
        let c = d.connect()!
        let watcher = d.connect()!
        let m = Memory(size: 2 * 4 * 4 * 4)
        Self.fill(m, offset: 0, width: 4, height: 4, stride: 16, format: .bgra8, seed: 3)
        Self.fill(m, offset: 64, width: 4, height: 4, stride: 16, format: .bgra8, seed: 4)
        _ = Self.pool(d, c, id: 1, m)
        _ = d.request(.createBuffer(id: 1, pool: 1, offset: 0, width: 4, height: 4, stride: 16, format: .bgra8), from: c)
        _ = d.request(.createBuffer(id: 2, pool: 1, offset: 64, width: 4, height: 4, stride: 16, format: .bgra8), from: c)
        _ = d.commit(Self.surface(1, x: 0, w: 4, h: 4) + [.attachBuffer(layer: 1, buffer: 1, damage: [])], from: c)
        // Another descriptor sent ahead, never taken; then half of a commit's bytes.
        let spare = Memory(size: 4096)
        var bytes = MessageEncoder.encode(Request.attachBuffer(layer: 1, buffer: 2, damage: []), requestID: 40)
        bytes += MessageEncoder.encode(Request.commit, requestID: 41)
        _ = d.core  // (the core owns what it received)
        d.sendRaw(Array(bytes.prefix(bytes.count - 5)), from: c)
        _ = d.request(.ping(token: 1), descriptors: [spare.handOff()], from: watcher)  // (the watcher's, closed: not asked for)
        Self.expectPattern(try #require(Self.surfaceImages(d).first), seed: 3)
        #expect(m.mappings == 2)
        d.hangUp(c)
        #expect(Self.surfaceImages(d).isEmpty)   // its layers are gone, as any client's
        #expect(m.mappings == 1 && m.daemonDescriptors == 1 && spare.daemonDescriptors == 2)
        d.hangUp(watcher)
        #expect(spare.daemonDescriptors == 1)
    }
}
