import Foundation
import Testing
import LaminaFrame
import LaminaGeometry
import TestSupport
@testable import LaminaRender

/// Going idle, the renderer makes lavapipe free the binned scene of the last frames it drew
/// (`DriverScratch`): llvmpipe keeps a scene's blocks until a later draw takes the scene.
/// What it frees is measured by `lamina-bench memory` in a process of its own (the test
/// process's heap and resident set are shared with the suites running beside these, too
/// noisy to assert on: docs/performance.md, "Session 7 — lead"); these check that nothing
/// drawn changes.
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
