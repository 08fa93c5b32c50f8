import Foundation
import Glibc
@testable import Lamina
import LaminaPNG
import LaminaRender
import LaminaServer
import LaminaWire
import Synchronization
import Testing
import TestSupport
import DaemonTestSupport

/// Shared-memory buffers sampled in place (`HostMemorySurfaces`: a linear image bound to the
/// imported pool at the buffer's offset, drawn without any copy), through the real daemon on
/// lavapipe: the same pixels as both copying paths for the same buffers, a stride or offset
/// that does not fit copied instead, releases only once a later attach replaced the buffer
/// (and exactly once, a buffer attached again counted once), nothing left once the client is
/// gone, and no validation error.
@Suite(.serialized) struct SurfaceInPlaceTests {
    /// 48 pixels: rows of 192 bytes, lavapipe's row pitch for a linear image that wide (width × 4
    /// rounded up to 64 bytes; docs/performance.md, "Sampling the client's pages directly").
    static let width = 48, height = 23, pitch = 192

    /// Releases counted per buffer.
    final class Releases: Sendable {
        let counts = Mutex<[UInt32: Int]>([:])
        var all: [UInt32: Int] { counts.withLock { $0 } }
    }

    /// Writes `SurfaceZeroCopyTests.rgba`'s pattern `seed` at `base`, rows `stride` apart.
    static func fill(_ base: UnsafeMutableRawPointer, stride: Int, format: BufferFormat, seed: Int) {
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = SurfaceZeroCopyTests.rgba(x, y, seed)
                let bytes: [UInt8] = format == .bgra8 ? [b, g, r, a] : [r, g, b, a]
                for (i, v) in bytes.enumerated() { (base + y * stride + x * 4).storeBytes(of: v, toByteOffset: i, as: UInt8.self) }
            }
        }
    }

    /// Buffer `id` of `pool` at `offset` with `stride`, as a `SurfaceBuffer`; each release
    /// (not a replay's re-marking) is counted in `releases`.
    static func buffer(_ c: Connection, pool: SurfaceZeroCopyTests.Pool, poolID: UInt32, offset: Int, stride: Int,
                       format: BufferFormat, releases: Releases) throws -> SurfaceBuffer {
        let id = c.takeSurfaceID()
        let made = try c.roundTrip(.createBuffer(id: id, pool: poolID, offset: UInt64(offset), width: UInt32(width),
                                                 height: UInt32(height), stride: UInt32(stride), format: format))
        guard case .bufferCreated = made else { throw LaminaError.protocolViolation("expected bufferCreated, got \(made)") }
        let b = SurfaceBuffer(id: id, pixels: pool.base + offset, width: width, height: height, stride: stride, format: format)
        c.link.state.withLock {
            $0.bufferReleases[id] = { busy in
                if !busy { releases.counts.withLock { $0[id, default: 0] += 1 } }
                b.busy.store(busy, ordering: .releasing)
            }
        }
        return b
    }

    /// A pool named `poolName` of `size` bytes made on `c`, two BGRA buffers of the suite's size
    /// back to back at its start (each release counted in `releases`), and a surface layer at
    /// (10, 10) added to the root (staged), showing neither yet.
    static func twoBuffers(_ c: Connection, poolName: String, size: Int) throws
        -> (pool: SurfaceZeroCopyTests.Pool, releases: Releases, a: SurfaceBuffer, b: SurfaceBuffer, layer: SurfaceLayer) {
        let pool = try SurfaceZeroCopyTests.Pool(name: poolName, size: size)
        let poolID = c.takeSurfaceID()
        guard case .poolCreated = try SurfaceZeroCopyTests.create(c, pool, id: poolID) else {
            pool.unmap()
            throw LaminaError.protocolViolation("createPool refused")
        }
        let releases = Releases()
        let a = try buffer(c, pool: pool, poolID: poolID, offset: 0, stride: pitch, format: .bgra8, releases: releases)
        let b = try buffer(c, pool: pool, poolID: poolID, offset: pitch * height, stride: pitch, format: .bgra8,
                           releases: releases)
        let layer = c.makeSurfaceLayer()
        layer.frame = Rect(10, 10, Double(width), Double(height))
        c.root.addSublayer(layer)
        return (pool, releases, a, b, layer)
    }

    static func errors(_ daemon: Daemon) -> [String] {
        daemon.renderLoop.validationMessages.filter { $0.contains("[vulkan error]") || $0.contains("Validation Error") }
    }

    /// One daemon's capture of a BGRA buffer shown as it is and an RGBA one scaled 1.5 × 2
    /// (sampled with linear filtering), with its zero-copy counts.
    static func show(inPlace: Bool, zeroCopy: Bool, stride: Int, offsets: (Int, Int))
        throws -> (image: RGBAImage, counts: ZeroCopyCounts, errors: [String]) {
        let daemon = try TestDaemon.make { $0.surfaceZeroCopy = zeroCopy; $0.surfaceInPlace = inPlace }
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "in-place")
        defer { c.close() }
        c.setDisableActions(true)
        let pool = try SurfaceZeroCopyTests.Pool(name: "lamina-in-place-\(inPlace)-\(zeroCopy)-\(getpid())", size: 4 * 4096 + 2 * stride * height)
        defer { pool.unmap() }
        let poolID = c.takeSurfaceID()
        guard case .poolCreated = try SurfaceZeroCopyTests.create(c, pool, id: poolID) else { throw LaminaError.protocolViolation("createPool refused") }
        let releases = Releases()
        let bgra = try buffer(c, pool: pool, poolID: poolID, offset: offsets.0, stride: stride, format: .bgra8, releases: releases)
        let rgba = try buffer(c, pool: pool, poolID: poolID, offset: offsets.1, stride: stride, format: .rgba8, releases: releases)
        fill(bgra.pixels, stride: stride, format: .bgra8, seed: 1)
        fill(rgba.pixels, stride: stride, format: .rgba8, seed: 2)
        let left = c.makeSurfaceLayer(), right = c.makeSurfaceLayer()
        left.frame = Rect(10, 10, Double(width), Double(height))
        right.frame = Rect(80, 40, Double(width) * 1.5, Double(height) * 2)
        c.root.addSublayer(left)
        c.root.addSublayer(right)
        left.present(bgra)
        right.present(rgba)
        try c.commit()
        let img = try SurfaceDaemonTests.capture(c)
        return (img, daemon.renderLoop.zeroCopyCounts, errors(daemon))
    }

    @Test func sampledInPlaceShowsTheSamePixelsAsBothCopyingPaths() throws {
        // Offsets that are multiples of 16 (the linear image's alignment) but not of a page.
        let offsets = (4096 + 16, 4096 + 16 + Self.pitch * Self.height + 48)
        let inPlace = try Self.show(inPlace: true, zeroCopy: true, stride: Self.pitch, offsets: offsets)
        let gpuCopy = try Self.show(inPlace: false, zeroCopy: true, stride: Self.pitch, offsets: offsets)
        let cpuCopy = try Self.show(inPlace: false, zeroCopy: false, stride: Self.pitch, offsets: offsets)
        #expect(inPlace.counts.inPlaceAttaches == 2 && inPlace.counts.bytes == 0, "\(inPlace.counts)")
        #expect(gpuCopy.counts.inPlaceAttaches == 0 && gpuCopy.counts.bytes == 2 * Self.width * Self.height * 4)
        #expect(cpuCopy.counts.inPlaceAttaches == 0 && !cpuCopy.counts.enabled)
        // The unscaled buffer is the pattern itself; everything, the scaled one included, is the
        // same on every path.
        #expect(SurfaceDaemonTests.misses(inPlace.image, x: 10..<(10 + Self.width), y: 10..<(10 + Self.height)) { x, y in
            let p = SurfaceZeroCopyTests.rgba(x - 10, y - 10, 1); return (p.0, p.1, p.2)
        } == 0)
        #expect(zip(inPlace.image.pixels, gpuCopy.image.pixels).count { $0 != $1 } == 0, "in place against the GPU copy")
        #expect(zip(inPlace.image.pixels, cpuCopy.image.pixels).count { $0 != $1 } == 0, "in place against the CPU copy")
        // The scaled one was drawn at all (not the black background).
        #expect(SurfaceDaemonTests.misses(inPlace.image, x: 80..<152, y: 40..<86) { _, _ in (0, 0, 0) } > 72 * 46 / 2)
        #expect(inPlace.errors.isEmpty && gpuCopy.errors.isEmpty && cpuCopy.errors.isEmpty, "\(inPlace.errors)")
    }

    @Test func aStrideOrOffsetThatDoesNotFitIsCopied() throws {
        // Rows 16 bytes past the pitch; then the pitch, but at offsets that are multiples of 4, not 16.
        for (stride, offsets) in [(Self.pitch + 16, (4096 + 16, 4096 + 16 + (Self.pitch + 16) * Self.height + 16)),
                                  (Self.pitch, (4096 + 4, 4096 + 8 + Self.pitch * Self.height))] {
            let shown = try Self.show(inPlace: true, zeroCopy: true, stride: stride, offsets: offsets)
            #expect(shown.counts.inPlaceAttaches == 0, "stride \(stride)")
            #expect(shown.counts.bytes == 2 * Self.width * Self.height * 4, "stride \(stride)")
            #expect(SurfaceDaemonTests.misses(shown.image, x: 10..<(10 + Self.width), y: 10..<(10 + Self.height)) { x, y in
                let p = SurfaceZeroCopyTests.rgba(x - 10, y - 10, 1); return (p.0, p.1, p.2)
            } == 0, "stride \(stride)")
            #expect(shown.errors.isEmpty, "\(shown.errors)")
        }
    }

    @Test func aBufferIsReleasedOnceOnlyAfterALaterAttachReplacedIt() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "in-place-release")
        c.setDisableActions(true)
        let name = "lamina-in-place-release-\(getpid())"
        let (pool, releases, a, b, layer) = try Self.twoBuffers(c, poolName: name, size: 2 * Self.pitch * Self.height + 64)
        func frames(_ n: Int) throws { for _ in 0..<n { _ = try c.advanceClock(by: 0.01) } }
        func shows(_ seed: Int) throws -> Bool {
            let img = try SurfaceDaemonTests.capture(c)
            return SurfaceDaemonTests.misses(img, x: 10..<(10 + Self.width), y: 10..<(10 + Self.height)) { x, y in
                let p = SurfaceZeroCopyTests.rgba(x - 10, y - 10, seed); return (p.0, p.1, p.2)
            } == 0
        }
        Self.fill(a.pixels, stride: Self.pitch, format: .bgra8, seed: 1)
        layer.present(a)
        try c.commit()
        try frames(3)
        #expect(try shows(1))
        // Attached again (damage only): still shown, so still not released.
        layer.present(a, damage: [DamageRect(x: 0, y: 0, width: 4, height: 4)])
        try c.commit()
        try frames(3)
        usleep(200_000)
        #expect(a.isBusy && releases.all[a.id] == nil)
        #expect(daemon.renderLoop.zeroCopyCounts.inPlaceAttaches == 2 && daemon.renderLoop.zeroCopyCounts.bytes == 0)
        // B replaces it: A is released (once for both attachments), after the frame that applies B.
        Self.fill(b.pixels, stride: Self.pitch, format: .bgra8, seed: 2)
        layer.present(b)
        try c.commit()
        try frames(1)
        SurfaceZeroCopyTests.waitUntil { !a.isBusy }
        #expect(!a.isBusy && b.isBusy)
        // Released: the client writes into A at once; what shows is B.
        Self.fill(a.pixels, stride: Self.pitch, format: .bgra8, seed: 9)
        #expect(try shows(2))
        try frames(3)
        usleep(200_000)
        #expect(releases.all == [a.id: 1])
        // The memfd is sealed: the client cannot cut the pages from under the sampling frames.
        #expect(ftruncate(pool.fd, 0) == -1 && errno == EPERM)
        // Nothing attached: B is released too, once.
        c.stage(.attachBuffer(layer: layer.id, buffer: 0, damage: []))
        try c.commit()
        try frames(1)
        SurfaceZeroCopyTests.waitUntil { !b.isBusy }
        try frames(3)
        usleep(100_000)
        #expect(releases.all == [a.id: 1, b.id: 1])
        #expect(daemon.renderLoop.zeroCopyCounts.liveInPlace == 0)
        // The client goes: no descriptor, mapping or import of its memfd is left.
        pool.unmap()
        c.close()
        SurfaceZeroCopyTests.waitUntil { daemon.renderLoop.zeroCopyCounts.liveImports == 0 && SurfaceDaemonTests.held(name).maps == 0 }
        #expect(daemon.renderLoop.zeroCopyCounts.liveImports == 0)
        #expect(SurfaceDaemonTests.held(name) == (0, 0))
        #expect(Self.errors(daemon).isEmpty, "\(Self.errors(daemon))")
    }

    @Test func aClientGoneWhileItsBufferIsSampledInPlaceLeavesNothing() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "in-place-gone")
        let name = "lamina-in-place-gone-\(getpid())"
        let pool = try SurfaceZeroCopyTests.Pool(name: name, size: Self.pitch * Self.height)
        let poolID = c.takeSurfaceID()
        guard case .poolCreated = try SurfaceZeroCopyTests.create(c, pool, id: poolID) else {
            Issue.record("createPool refused"); return
        }
        let releases = Releases()
        let a = try Self.buffer(c, pool: pool, poolID: poolID, offset: 0, stride: Self.pitch, format: .rgba8, releases: releases)
        _ = try c.roundTrip(.destroyPool(id: poolID))   // the buffer keeps the memory
        Self.fill(a.pixels, stride: Self.pitch, format: .rgba8, seed: 4)
        let layer = c.makeSurfaceLayer()
        layer.frame = Rect(0, 0, Double(Self.width), Double(Self.height))
        c.root.addSublayer(layer)
        layer.present(a)
        try c.commit()
        let img = try SurfaceDaemonTests.capture(c)
        #expect(SurfaceDaemonTests.misses(img, x: 0..<Self.width, y: 0..<Self.height) { x, y in
            let p = SurfaceZeroCopyTests.rgba(x, y, 4); return (p.0, p.1, p.2)
        } == 0)
        #expect(daemon.renderLoop.zeroCopyCounts.liveInPlace == 1)
        pool.unmap()
        c.close()
        SurfaceZeroCopyTests.waitUntil { daemon.renderLoop.zeroCopyCounts.liveImports == 0 && SurfaceDaemonTests.held(name).maps == 0 }
        #expect(daemon.renderLoop.zeroCopyCounts.liveImports == 0 && daemon.renderLoop.zeroCopyCounts.liveInPlace == 0)
        #expect(SurfaceDaemonTests.held(name) == (0, 0))
    }

    /// The frame redraws only the attached damage, on every path: B (another pattern
    /// everywhere, against the damage promise) attached with one rectangle shows inside it
    /// alone — sampled in place, where the whole of B is the texture, too.
    @Test(arguments: [(true, true), (false, true), (false, false)])
    func theFramesDamageFollowsTheAttachedRectangles(inPlace: Bool, zeroCopy: Bool) throws {
        let daemon = try TestDaemon.make { $0.surfaceZeroCopy = zeroCopy; $0.surfaceInPlace = inPlace }
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "in-place-damage")
        defer { c.close() }
        c.setDisableActions(true)
        let (pool, _, a, b, layer) = try Self.twoBuffers(c, poolName: "lamina-in-place-damage-\(inPlace)-\(zeroCopy)-\(getpid())",
                                                         size: 2 * Self.pitch * Self.height)
        defer { pool.unmap() }
        Self.fill(a.pixels, stride: Self.pitch, format: .bgra8, seed: 1)
        layer.present(a)
        try c.commit()
        _ = try SurfaceDaemonTests.capture(c)
        Self.fill(b.pixels, stride: Self.pitch, format: .bgra8, seed: 2)
        layer.present(b, damage: [DamageRect(x: 20, y: 5, width: 8, height: 6)])
        try c.commit()
        let img = try SurfaceDaemonTests.capture(c)
        // Inside the rectangle B; outside it A — the frame did not redraw it (its damage is the
        // rectangle, with a pixel or two of margin that redraws A's own pixels where the copy
        // paths keep A and B shows in place: so only well outside is A asserted for all paths).
        func inside(_ x: Int, _ y: Int) -> Bool { (20..<28).contains(x) && (5..<11).contains(y) }
        func near(_ x: Int, _ y: Int) -> Bool { (16..<32).contains(x) && (1..<15).contains(y) }
        #expect(SurfaceDaemonTests.misses(img, x: 10..<(10 + Self.width), y: 10..<(10 + Self.height)) { x, y in
            let lx = x - 10, ly = y - 10
            if near(lx, ly) && !inside(lx, ly) { return Self.either(img, x, y, lx, ly) }
            let p = SurfaceZeroCopyTests.rgba(lx, ly, inside(lx, ly) ? 2 : 1); return (p.0, p.1, p.2)
        } == 0, "inPlace \(inPlace) zeroCopy \(zeroCopy)")
        #expect(daemon.renderLoop.zeroCopyCounts.inPlaceAttaches == (inPlace ? 2 : 0))
        #expect(Self.errors(daemon).isEmpty, "\(Self.errors(daemon))")
    }

    /// Pixel (x, y) of `img` when it is pattern 1's or pattern 2's at (lx, ly) (the damage's
    /// margin: either may show there), else pattern 1's (counted as a miss).
    static func either(_ img: RGBAImage, _ x: Int, _ y: Int, _ lx: Int, _ ly: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * img.width + x) * 4
        let got = (img.pixels[i], img.pixels[i + 1], img.pixels[i + 2])
        let two = SurfaceZeroCopyTests.rgba(lx, ly, 2)
        if got == (two.0, two.1, two.2) { return got }
        let one = SurfaceZeroCopyTests.rgba(lx, ly, 1)
        return (one.0, one.1, one.2)
    }
}
