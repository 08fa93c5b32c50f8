import Testing
import LaminaFrame
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

/// Only meshes test the stencil (each pixel once: a reference per mesh, the first fragment
/// writes it, later ones fail), so a pass that draws no mesh leaves it uncleared
/// (`PassRecorder`, "Stencil"). The stencil image outlives the frame (lavapipe keeps its
/// memory), so a mesh-drawing pass that skipped its clear would find an earlier frame's marks
/// and drop those pixels: these frames draw a mesh, then frames without one, then the mesh
/// again, and find it whole.
@Suite("Stencil clears")
struct StencilClearTests {
    static let size = 64
    static let white = Color(1, 1, 1)

    /// The 32 × 32 square at (16, 16) as a filled mesh (reference 1, its pass's first mesh).
    static func square(_ color: Color) throws -> DrawItem {
        var cache = MeshCache()
        let (id, mesh) = try cache.entry(for: Path.rect(Rect(16, 16, 32, 32)), style: .fill(.nonZero), scale: 1)
        return DrawItem(bounds: mesh.bounds, backgroundColor: .clear, kind: .mesh(MeshDraw(id: id, mesh: mesh, color: color)))
    }

    @Test func aMeshAfterFramesWithoutMeshesDrawsEveryPixel() throws {
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        // Frame 1: the square in red (its pixels' stencil now 1).
        try renderer.render(DrawList(width: Self.size, height: Self.size, clearColor: Self.white,
                                     items: [try Self.square(Color(1, 0, 0))]))
        // Frames 2 and 3: plain rects only (no mesh: the stencil left as frame 1 wrote it), one
        // of them in a translucent group (an offscreen pass without a mesh too).
        let rects = DrawList(width: Self.size, height: Self.size, clearColor: Self.white, items: [
            DrawItem(bounds: Rect(4, 4, 20, 20), backgroundColor: Color(0, 1, 0)),
            DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: 0.5, count: 1)),
            DrawItem(bounds: Rect(30, 30, 20, 20), backgroundColor: Color(0, 0, 1)),
        ])
        try renderer.render(rects)
        try renderer.render(rects)
        // Frame 4: the square again, in blue.
        let blue = DrawList(width: Self.size, height: Self.size, clearColor: Self.white,
                            items: [try Self.square(Color(0, 0, 1))])
        try renderer.render(blue)
        let drawn = RGBAImage(width: Self.size, height: Self.size, pixels: try renderer.readPixels())
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        // Every pixel of the square blue (its edges lie on pixel edges: whole coverage), the
        // rest the clear color.
        for (x, y) in [(16, 16), (47, 16), (16, 47), (47, 47), (32, 32), (20, 40)] {
            expectPixel(drawn, x, y, RGBA(0, 0, 255), tolerance: 2, "(\(x), \(y)) inside the square")
        }
        for (x, y) in [(15, 15), (48, 32), (32, 48), (5, 5)] {
            expectPixel(drawn, x, y, RGBA(255, 255, 255), tolerance: 2, "(\(x), \(y)) outside it")
        }
        // And the bytes a fresh renderer (its stencil never written) draws.
        let fresh = try renderImage(blue)
        let differing = zip(fresh.pixels, drawn.pixels).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) bytes differ from a fresh renderer's")
    }
}
