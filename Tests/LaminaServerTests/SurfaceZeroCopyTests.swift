import Foundation
import Glibc
@testable import Lamina
import LaminaPNG
import LaminaServer
import LaminaWire
import Testing
import TestSupport
import DaemonTestSupport

/// The zero-copy path of shared-memory surfaces (`HostMemorySurfaces`: the pool's pages
/// imported with `VK_EXT_external_memory_host`, copied by the GPU straight into the surface's
/// texture) against the copying path, through the real daemon on lavapipe: the same pixels
/// exactly for both byte orders with a padded stride and an unaligned offset, only the damage
/// taken, no release before the GPU read, a sealed memfd that cannot be truncated, and nothing
/// left once the client is gone. Its 37-pixel buffers (rows of 148 or 160 bytes) are never
/// sampled in place (lavapipe's linear images of that width have rows of 192): these are the
/// GPU copy's releases, one per attachment after the copy; `SurfaceInPlaceTests` has the
/// in-place rule (released once replaced and its last frame finished).
@Suite(.serialized) struct SurfaceZeroCopyTests {
    static let width = 37, height = 23, stride = 37 * 4 + 12

    /// Premultiplied pixel (x, y) of pattern `seed` as R, G, B, A (alpha 255 or 128).
    static func rgba(_ x: Int, _ y: Int, _ seed: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        let a = (x + y + seed) % 3 == 0 ? 128 : 255
        return (UInt8(min((x * 23 + seed * 61) % 256, a)), UInt8(min((y * 37 + seed * 17) % 256, a)),
                UInt8(min(((x ^ y) * 5 + seed) % 256, a)), UInt8(a))
    }

    /// Writes pattern `seed` into the buffer at `base` (rows `stride` apart) in `format`'s order.
    static func fill(_ base: UnsafeMutableRawPointer, format: BufferFormat, seed: Int) {
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = rgba(x, y, seed)
                let bytes: [UInt8] = format == .bgra8 ? [b, g, r, a] : [r, g, b, a]
                for (i, v) in bytes.enumerated() { (base + y * stride + x * 4).storeBytes(of: v, toByteOffset: i, as: UInt8.self) }
            }
        }
    }

    /// A pool of `size` bytes (memfd named `name`, sealed unless `seal` is false), mapped here too.
    final class Pool {
        let fd: Int32, base: UnsafeMutableRawPointer, size: Int
        init(name: String, size: Int, seal: Bool = true) throws {
            fd = MemoryFile.make(name: name, size: size, sealShrink: seal)
            try #require(fd >= 0)
            base = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0))
            self.size = size
        }
        func unmap() { munmap(base, size); close(fd) }
    }

    /// `createPool` of `pool` as `id` (the descriptor sent is a duplicate, closed once sent).
    static func create(_ c: Connection, _ pool: Pool, id: UInt32) throws -> Event {
        let fd = dup(pool.fd)
        defer { close(fd) }
        return try c.roundTrip(.createPool(id: id, size: UInt64(pool.size)), descriptor: fd)
    }

    /// Buffer `id` of `pool` at `offset`, wrapped as the client library's `SurfaceBuffer`
    /// (its release clears `isBusy`).
    static func buffer(_ c: Connection, pool: Pool, poolID: UInt32, id: UInt32, offset: Int,
                       format: BufferFormat) throws -> SurfaceBuffer {
        let made = try c.roundTrip(.createBuffer(id: id, pool: poolID, offset: UInt64(offset), width: UInt32(width),
                                                 height: UInt32(height), stride: UInt32(stride), format: format))
        guard case .bufferCreated = made else { throw LaminaError.protocolViolation("expected bufferCreated, got \(made)") }
        let b = SurfaceBuffer(id: id, pixels: pool.base + offset, width: width, height: height, stride: stride, format: format)
        c.link.state.withLock { $0.bufferReleases[id] = { b.busy.store($0, ordering: .releasing) } }
        return b
    }

    /// Canvas pixels in the `width` × `height` box at (ox, oy) that differ from
    /// `expected(x, y)` (box coordinates; over the black background) by more than 1/255.
    static func misses(_ img: RGBAImage, at ox: Int, _ oy: Int, _ expected: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> Int {
        SurfaceDaemonTests.misses(img, x: ox..<(ox + width), y: oy..<(oy + height)) { x, y in
            let p = expected(x - ox, y - oy); return (p.0, p.1, p.2)
        }
    }

    static func waitUntil(_ seconds: Double = 5, _ done: () -> Bool) {
        let deadline = Date().addingTimeInterval(seconds)
        while !done() && Date() < deadline { usleep(2000) }
    }

    @Test(arguments: [true, false])
    func bothPathsShowBothByteOrdersExactlyAndTakeOnlyTheDamage(zeroCopy: Bool) throws {
        let daemon = try TestDaemon.make { $0.surfaceZeroCopy = zeroCopy }
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "zero-copy")
        c.setDisableActions(true)
        let name = "lamina-zero-copy-\(zeroCopy)-\(getpid())"
        let pool = try Pool(name: name, size: 4100 + 2 * Self.stride * Self.height + 64)
        defer { pool.unmap() }
        let poolID = c.takeSurfaceID()
        guard case .poolCreated = try Self.create(c, pool, id: poolID) else {
            Issue.record("createPool refused"); return
        }
        // Offsets that are multiples of 4 but not of a page; a stride 12 bytes past the row.
        let bgra = try Self.buffer(c, pool: pool, poolID: poolID, id: c.takeSurfaceID(), offset: 4100, format: .bgra8)
        let rgba = try Self.buffer(c, pool: pool, poolID: poolID, id: c.takeSurfaceID(), offset: 4100 + Self.stride * Self.height + 8,
                                   format: .rgba8)
        Self.fill(bgra.pixels, format: .bgra8, seed: 1)
        Self.fill(rgba.pixels, format: .rgba8, seed: 2)
        let left = c.makeSurfaceLayer(), right = c.makeSurfaceLayer()
        left.frame = Rect(10, 10, Double(Self.width), Double(Self.height))
        right.frame = Rect(100, 10, Double(Self.width), Double(Self.height))
        c.root.addSublayer(left)
        c.root.addSublayer(right)
        left.present(bgra)
        right.present(rgba)
        try c.commit()
        let img = try SurfaceDaemonTests.capture(c)
        #expect(Self.misses(img, at: 10, 10) { Self.rgba($0, $1, 1) } == 0)
        #expect(Self.misses(img, at: 100, 10) { Self.rgba($0, $1, 2) } == 0)
        #expect(SurfaceDaemonTests.misses(img, x: 0..<200, y: 40..<200) { _, _ in (0, 0, 0) } == 0)
        let counts = daemon.renderLoop.zeroCopyCounts
        #expect(counts.enabled == zeroCopy)
        #expect(counts.bytes == (zeroCopy ? 2 * Self.width * Self.height * 4 : 0))
        Self.waitUntil { !bgra.isBusy && !rgba.isBusy }
        // Every byte rewritten, but only 10×7 at (5, 3) said to have changed: only that shows.
        Self.fill(bgra.pixels, format: .bgra8, seed: 3)
        Self.fill(rgba.pixels, format: .rgba8, seed: 4)
        left.present(bgra, damage: [DamageRect(x: 5, y: 3, width: 10, height: 7)])
        right.present(rgba, damage: [DamageRect(x: 5, y: 3, width: 10, height: 7)])
        try c.commit()
        let img2 = try SurfaceDaemonTests.capture(c)
        func inside(_ x: Int, _ y: Int) -> Bool { (5..<15).contains(x) && (3..<10).contains(y) }
        #expect(Self.misses(img2, at: 10, 10) { inside($0, $1) ? Self.rgba($0, $1, 3) : Self.rgba($0, $1, 1) } == 0)
        #expect(Self.misses(img2, at: 100, 10) { inside($0, $1) ? Self.rgba($0, $1, 4) : Self.rgba($0, $1, 2) } == 0)
        #expect(daemon.renderLoop.zeroCopyCounts.bytes == (zeroCopy ? 2 * (Self.width * Self.height + 70) * 4 : 0))
        c.close()
    }

    @Test func noReleaseBeforeTheGPUReadAndTheMemfdCannotBeTruncated() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "zero-copy-release")
        c.setDisableActions(true)
        let pool = try Pool(name: "lamina-zero-copy-release-\(getpid())", size: 8192 + Self.stride * Self.height)
        defer { pool.unmap() }
        let poolID = c.takeSurfaceID()
        guard case .poolCreated = try Self.create(c, pool, id: poolID) else {
            Issue.record("createPool refused"); return
        }
        let b = try Self.buffer(c, pool: pool, poolID: poolID, id: c.takeSurfaceID(), offset: 8192, format: .bgra8)
        let layer = c.makeSurfaceLayer()
        layer.frame = Rect(10, 10, Double(Self.width), Double(Self.height))
        c.root.addSublayer(layer)
        for seed in 1...3 {
            Self.fill(b.pixels, format: .bgra8, seed: seed)
            layer.present(b)
            try c.commit()
            _ = try c.advanceClock(by: 0.01)   // the frame that applies the commit
            Self.waitUntil { !b.isBusy }
            #expect(!b.isBusy)
            // Released: the client may write again at once; what the frame read stays.
            Self.fill(b.pixels, format: .bgra8, seed: 9)
            let img = try SurfaceDaemonTests.capture(c)
            #expect(Self.misses(img, at: 10, 10) { Self.rgba($0, $1, seed) } == 0, "seed \(seed)")
        }
        #expect(daemon.renderLoop.zeroCopyCounts.bytes == 3 * Self.width * Self.height * 4)
        // F_SEAL_SHRINK (createPool requires it): the client cannot cut the pages from under a GPU read.
        #expect(ftruncate(pool.fd, 0) == -1 && errno == EPERM)
        #expect(ftruncate(pool.fd, off_t(pool.size - 4096)) == -1 && errno == EPERM)
        let img = try SurfaceDaemonTests.capture(c)
        #expect(Self.misses(img, at: 10, 10) { Self.rgba($0, $1, 3) } == 0)
        // A memfd without the seal is refused, naming it.
        let unsealed = try Pool(name: "lamina-zero-copy-unsealed-\(getpid())", size: 4096, seal: false)
        defer { unsealed.unmap() }
        do {
            _ = try Self.create(c, unsealed, id: c.takeSurfaceID())
            Issue.record("an unsealed pool was taken")
        } catch {
            #expect("\(error)".contains("invalidBuffer") && "\(error)".contains("F_SEAL_SHRINK"))
        }
        c.close()
    }

    @Test func theSwitchIsReadFromTheConfig() throws {
        let path = NSTemporaryDirectory() + "laminad-zero-copy-\(getpid()).json"
        defer { unlink(path) }
        try #"{"surfaceZeroCopy": false}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try DaemonConfig.load(path: path).surfaceZeroCopy == false)
        #expect(DaemonConfig().surfaceZeroCopy)
        try #"{"surfaceZeroCopy": 0}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.load(path: path) }
    }

    @Test func aClientGoneLeavesNoDescriptorMappingOrImport() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "zero-copy-gone")
        let name = "lamina-zero-copy-gone-\(getpid())"
        let pool = try Pool(name: name, size: 4096 + Self.stride * Self.height)
        let poolID = c.takeSurfaceID()
        guard case .poolCreated = try Self.create(c, pool, id: poolID) else {
            Issue.record("createPool refused"); return
        }
        let b = try Self.buffer(c, pool: pool, poolID: poolID, id: c.takeSurfaceID(), offset: 4096, format: .rgba8)
        _ = try c.roundTrip(.destroyPool(id: poolID))   // the buffer keeps the memory
        let layer = c.makeSurfaceLayer()
        layer.frame = Rect(0, 0, Double(Self.width), Double(Self.height))
        c.root.addSublayer(layer)
        Self.fill(b.pixels, format: .rgba8, seed: 5)
        layer.present(b)
        try c.commit()
        let img = try SurfaceDaemonTests.capture(c)
        #expect(Self.misses(img, at: 0, 0) { Self.rgba($0, $1, 5) } == 0)
        #expect(daemon.renderLoop.zeroCopyCounts.liveImports == 1)
        // Ours: one descriptor and one mapping; the daemon's: one mapping (its descriptor was
        // closed at createPool).
        #expect(SurfaceDaemonTests.held(name).fds == 1 && SurfaceDaemonTests.held(name).maps == 2)
        pool.unmap()
        c.close()
        Self.waitUntil { daemon.renderLoop.zeroCopyCounts.liveImports == 0 && SurfaceDaemonTests.held(name).maps == 0 }
        #expect(daemon.renderLoop.zeroCopyCounts.liveImports == 0)
        #expect(SurfaceDaemonTests.held(name) == (0, 0))
        #expect(daemon.renderLoop.zeroCopyCounts.poolsImported == 1)
    }
}
