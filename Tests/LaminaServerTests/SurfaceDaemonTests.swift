import Foundation
import Glibc
import Lamina
import LaminaPNG
import LaminaServer
import LaminaWire
import Synchronization
import Testing
import TestSupport
import DaemonTestSupport

/// Surfaces drawn by the real daemon (sockets, SCM_RIGHTS, the render thread, lavapipe) through
/// the Swift client's `SurfaceLayer`, read back by `capture`: the buffer's pixels exactly, a
/// damaged rectangle uploaded into the resident texture alone, a transform and a corner radius
/// applied to a surface as to any contents, frame callbacks and releases through the client,
/// and no descriptor or mapping left in the daemon once the client is gone.
@Suite(.serialized) struct SurfaceDaemonTests {
    /// Premultiplied pixel (x, y) of pattern `seed`, as R, G, B, A.
    static func rgba(_ x: Int, _ y: Int, _ seed: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        (UInt8((x * 29 + seed * 50) % 256), UInt8((y * 41 + seed * 20) % 256), UInt8((x ^ y) * 3 % 256), 255)
    }

    static func draw(_ b: SurfaceBuffer, seed: Int) {
        for y in 0..<b.height {
            for x in 0..<b.width {
                let (r, g, bl, a) = rgba(x, y, seed)
                let p = b.pixels + y * b.stride + x * 4
                p.storeBytes(of: bl, toByteOffset: 0, as: UInt8.self); p.storeBytes(of: g, toByteOffset: 1, as: UInt8.self)
                p.storeBytes(of: r, toByteOffset: 2, as: UInt8.self); p.storeBytes(of: a, toByteOffset: 3, as: UInt8.self)
            }
        }
    }

    static func capture(_ c: Connection) throws -> RGBAImage { try PNG.decode(c.capture(at: nil).png) }

    /// Pixels of `img` in `rect` (canvas) that differ from `expected(x, y)` by more than 1/255.
    static func misses(_ img: RGBAImage, x: Range<Int>, y: Range<Int>, _ expected: (Int, Int) -> (UInt8, UInt8, UInt8)) -> Int {
        var n = 0
        for py in y { for px in x {
            let i = (py * img.width + px) * 4, e = expected(px, py)
            if abs(Int(img.pixels[i]) - Int(e.0)) > 1 || abs(Int(img.pixels[i + 1]) - Int(e.1)) > 1
                || abs(Int(img.pixels[i + 2]) - Int(e.2)) > 1 { n += 1 }
        } }
        return n
    }

    /// Entries of /proc/self/fd naming a memfd of `name`, and mappings of it.
    static func held(_ name: String) -> (fds: Int, maps: Int) {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let fds = entries.count { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.contains(name) ?? false }
        let maps = String(decoding: (try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd()) ?? Data(),
                          as: UTF8.self)
        return (fds, maps.split(separator: "\n").count { $0.contains(name) })
    }

    @Test func aSurfaceShowsItsBufferAndItsDamageExactly() throws {
        // The copying paths (their damage rule; SurfaceInPlaceTests has the in-place one's).
        let daemon = try TestDaemon.make { $0.surfaceInPlace = false }
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "surface")
        let surface = c.makeSurfaceLayer()
        let frames = Mutex<[Double]>([])
        surface.onFrame = { _, target in frames.withLock { $0.append(target) } }
        try surface.makeBuffers(width: 64, height: 48, count: 2)
        surface.frame = Rect(20, 30, 64, 48)
        c.root.addSublayer(surface)
        let a = try #require(surface.nextBuffer())
        Self.draw(a, seed: 1)
        surface.present(a)
        #expect(a.isBusy)
        try c.commit()
        let img = try Self.capture(c)
        #expect(Self.misses(img, x: 20..<84, y: 30..<78) { x, y in let p = Self.rgba(x - 20, y - 30, 1); return (p.0, p.1, p.2) } == 0)
        #expect(Self.misses(img, x: 0..<200, y: 0..<30) { _, _ in (0, 0, 0) } == 0)
        // Released once the frame copied it; the frame callback came with the next target.
        let deadline = Date().addingTimeInterval(5)
        while (a.isBusy || frames.withLock({ $0.isEmpty })) && Date() < deadline { usleep(2000) }
        #expect(!a.isBusy && frames.withLock { $0.count } == 1)
        // The whole buffer redrawn, but only 10×6 at (5, 7) said to have changed: the
        // resident texture takes only that rectangle.
        let b = try #require(surface.nextBuffer())
        #expect(b !== a)
        Self.draw(b, seed: 2)
        surface.present(b, damage: [DamageRect(x: 5, y: 7, width: 10, height: 6)])
        try c.commit()
        let img2 = try Self.capture(c)
        #expect(Self.misses(img2, x: 20..<84, y: 30..<78) { x, y in
            let lx = x - 20, ly = y - 30
            let p = (5..<15).contains(lx) && (7..<13).contains(ly) ? Self.rgba(lx, ly, 2) : Self.rgba(lx, ly, 1)
            return (p.0, p.1, p.2)
        } == 0)
        // The client goes: the daemon holds no descriptor or mapping of its memfd.
        let name = try #require(surface.memoryName)
        c.close()
        let until = Date().addingTimeInterval(5)
        while Self.held(name).maps > 1 && Date() < until { usleep(5000) }
        #expect(Self.held(name).fds == 0)
        #expect(Self.held(name).maps <= 1)   // the client's own (this process), until the layer object goes
    }

    @Test func presentationFeedbackComesWithTheFrameThatShowedEachPresent() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "feedback")
        let surface = c.makeSurfaceLayer()
        let frames = Mutex<[Double]>([]), presented = Mutex<[PresentationFeedback]>([])
        surface.onFrame = { time, _ in frames.withLock { $0.append(time) } }
        surface.onPresented = { f in presented.withLock { $0.append(f) } }
        try surface.makeBuffers(width: 8, height: 8, count: 2)
        surface.frame = Rect(0, 0, 8, 8)
        c.root.addSublayer(surface)
        for seed in 1...2 {
            let b = try #require(surface.nextBuffer())
            Self.draw(b, seed: seed)
            surface.present(b)
            try c.commit()
            let deadline = Date().addingTimeInterval(5)
            while presented.withLock({ $0.count }) < seed || frames.withLock({ $0.count }) < seed, Date() < deadline { usleep(2000) }
        }
        // A plain transaction can ask too (no surface in it).
        let plain = Mutex<PresentationFeedback?>(nil)
        c.requestPresentationFeedback { f in plain.withLock { $0 = f } }
        surface.opacity = 0.5
        try c.commit()
        let deadline = Date().addingTimeInterval(5)
        while plain.withLock({ $0 == nil }), Date() < deadline { usleep(2000) }
        let f = presented.withLock { $0 }, times = frames.withLock { $0 }
        try #require(f.count == 2 && times.count == 2)
        // The frame that showed each present is the one whose callback came: the same time.
        #expect(f.map(\.time) == times)
        #expect(f.allSatisfy { !$0.discarded && $0.refreshInterval > 0 && $0.refreshInterval < 1 })
        #expect(f[1].frame > f[0].frame)
        let last = try #require(plain.withLock { $0 })
        #expect(!last.discarded && last.frame > f[1].frame)
    }

    @Test func aTransformAndACornerRadiusApplyToASurface() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "surface")
        c.setDisableActions(true)
        let surface = c.makeSurfaceLayer()
        try surface.makeBuffers(width: 40, height: 20, count: 1)
        // 40×20 shown at twice its size, turned 90° clockwise about its center (100, 100),
        // nearest sampling: canvas (x, y) shows buffer ((y − 60) / 2, (140 − x) / 2)...
        surface.bounds = Rect(0, 0, 80, 40)
        surface.position = Point(100, 100)
        surface.transform = Transform3D.rotation(.pi / 2)
        surface.magnificationFilter = .nearest
        c.root.addSublayer(surface)
        let buffer = try #require(surface.nextBuffer())
        Self.draw(buffer, seed: 3)
        surface.present(buffer)
        try c.commit()
        let img = try Self.capture(c)
        // Rotated bounds: x in 80…120, y in 60…140. A point (lx, ly) of the layer's bounds
        // lands at (100 − (ly − 20), 100 + (lx − 40)) (y down, clockwise), so canvas (x, y)
        // is bounds (40 + y − 100, 20 − x + 100): buffer pixel ⌊that / 2⌋. Pixel centers
        // 1 px inside the edges (the sample positions on the rotated edges are exact halves).
        #expect(Self.misses(img, x: 81..<119, y: 61..<139) { x, y in
            let lx = (Double(y) + 0.5 - 100 + 40), ly = (20 - (Double(x) + 0.5) + 100)
            let p = Self.rgba(Int(lx / 2), Int(ly / 2), 3)
            return (p.0, p.1, p.2)
        } < 38 * 78 / 200)   // within 0.5 %: texel boundaries falling on pixel centers
        #expect(Self.misses(img, x: 0..<79, y: 0..<200) { _, _ in (0, 0, 0) } == 0)
        // A corner radius of 20 with masksToBounds, untransformed: the corners are cut (the
        // pixel at the very corner is the background), the middle is the buffer's.
        c.setDisableActions(true)
        surface.transform = .identity
        surface.cornerRadius = 20
        surface.masksToBounds = true
        try c.commit()
        let rounded = try Self.capture(c)
        let (ox, oy) = (60, 80)   // bounds 80×40 centered at (100, 100)
        #expect(Self.misses(rounded, x: ox..<(ox + 2), y: oy..<(oy + 2)) { _, _ in (0, 0, 0) } == 0)
        #expect(Self.misses(rounded, x: (ox + 78)..<(ox + 80), y: (oy + 38)..<(oy + 40)) { _, _ in (0, 0, 0) } == 0)
        #expect(Self.misses(rounded, x: (ox + 20)..<(ox + 60), y: oy..<(oy + 40)) { x, y in
            let p = Self.rgba((x - ox) / 2, (y - oy) / 2, 3); return (p.0, p.1, p.2)
        } == 0)
    }
}
