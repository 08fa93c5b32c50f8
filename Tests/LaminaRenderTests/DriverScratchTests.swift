import Foundation
import Testing
import LaminaFrame
import LaminaGeometry
import TestSupport
@testable import LaminaRender

/// Going idle, the renderer makes lavapipe free the binned scene of the last frames it drew
/// (`DriverScratch`): llvmpipe keeps a scene's blocks until a later draw takes the scene.
@Suite("Driver frame memory released when idle")
struct DriverScratchTests {
    static let size = 256

    /// `n` 2×2 rects spread over the target, each its own quad (two triangles).
    static func list(_ n: Int, shift: Double = 0) -> DrawList {
        var items: [DrawItem] = []
        for k in 0..<n {
            let x: Double = Double(k % 120) * 2 + shift, y: Double = Double(k / 120 % 120) * 2
            let red: Double = Double(k % 5) / 5
            items.append(DrawItem(bounds: Rect(x, y, 2, 2), backgroundColor: Color(red, 0.5, 1, 1)))
        }
        return DrawList(width: size, height: size, clearColor: .black, items: items)
    }

    /// Resident bytes of this process (`/proc/self/statm`'s second field, in pages).
    static func resident() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The heap in use and the resident set fall by at least the scene's size (the resident
    /// set too: the blocks join the top of the driver thread's arena, which glibc hands back
    /// only past the trim threshold the renderer raised). Lower bound per triangle: llvmpipe's
    /// setup stores three edge planes (a 64-bit constant and three 32-bit steps each: 72
    /// bytes), a value and two gradients per fragment input (48 bytes for one vec4), and a
    /// bin command — over 120 bytes; asserted: 100 bytes for each of the 2n triangles.
    @Test func releasingFreesTheLastFramesBinning() throws {
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        guard renderer.scratch != nil else { return }   // a GPU: nothing of the process's to free
        let n = 20_000
        var heap = 0, resident = 0
        // Other suites allocate meanwhile, and their renderers set the trim threshold back to
        // 64 MiB as they start (`keepFreedHeap`, process-wide): the best of eight tries.
        for attempt in 0..<8 where heap < 2 * n * 100 || resident < 2 * n * 100 {
            try renderer.render(Self.list(n, shift: Double(attempt)))
            try renderer.finish(frame: renderer.frameNumber)
            HeapTrim.trim()
            let (heapBefore, residentBefore) = (HeapTrim.bytesInUse(), Self.resident())
            try renderer.releaseDriverFrameMemory()
            heap = max(heap, heapBefore - HeapTrim.bytesInUse())
            resident = max(resident, residentBefore - Self.resident())
        }
        #expect(heap >= 2 * n * 100, "heap fell by \(heap) bytes")
        #expect(resident >= 2 * n * 100, "resident set fell by \(resident) bytes")
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// The release draws nothing anyone sees: the target keeps its pixels, and the frames
    /// after it (patched, damage-limited) equal a fresh renderer's.
    @Test func releasingChangesNoPixel() throws {
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        try renderer.render(Self.list(3000))
        let drawn = try renderer.readPixels()
        try renderer.releaseIdleBuffers()
        try renderer.releaseDriverFrameMemory()
        #expect(try renderer.readPixels() == drawn)
        for shift in [1.0, 3.0] {
            try renderer.render(Self.list(3000, shift: shift))
            #expect(try renderer.readPixels() == (try renderImage(Self.list(3000, shift: shift)).pixels))
        }
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// Idle a second, the renderer lets go of every slot's ring, the last frame's too: nothing
    /// is left in the slots, and the frames after it (which write their instances into new
    /// rings) equal a fresh renderer's, pixel for pixel.
    @Test func releasingEveryRingChangesNoPixel() throws {
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        let n = 3000
        for frame in 0..<3 { try renderer.render(Self.list(n, shift: Double(frame))) }
        try renderer.releaseIdleBuffers(all: true)
        #expect(renderer.slotBufferBytes == 0)
        for frame in 3..<6 {
            try renderer.render(Self.list(n, shift: Double(frame)))
            #expect(renderer.slotBufferBytes > 0)
            #expect(try renderer.readPixels() == (try renderImage(Self.list(n, shift: Double(frame))).pixels))
        }
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
