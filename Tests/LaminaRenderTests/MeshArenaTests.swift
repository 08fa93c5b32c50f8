import LaminaFrame
import Testing
import LaminaGeometry
import TestSupport
import LaminaPNG
@testable import LaminaRender

/// Meshes share one arena buffer; when it fills up mid-frame it is rebuilt larger and every
/// live mesh moves — meshes drawn before and after the move must all land where they belong.
@Suite("Mesh arena")
struct MeshArenaTests {
    /// 360 distinct circles (radius 9, in 20 × 20 cells of a 400 × 360 target), alternately
    /// red and blue: more than `MeshArena.minimumBytes` of vertices and indices, so the
    /// arena is rebuilt while the frame's draws are collected. Each circle's centre has its
    /// color, each cell's corner stays the clear color; a second frame draws the first circle
    /// again (moved by the rebuild) in green.
    @Test func rebuildMidFrameKeepsEveryMesh() throws {
        let columns = 20, rows = 18
        var cache = MeshCache()
        var items: [DrawItem] = []
        var meshBytes = 0
        for k in 0..<(columns * rows) {
            let center = Point(Double(k % columns) * 20 + 10, Double(k / columns) * 20 + 10)
            let path = Path.ellipse(in: Rect(center.x - 9, center.y - 9, 18, 18))
            let (id, mesh) = try cache.entry(for: path, style: .fill(.nonZero), scale: 1)
            meshBytes += MeshArena.size(vertexCount: mesh.vertices.count, indexCount: mesh.indices.count)
            items.append(DrawItem(bounds: mesh.bounds, backgroundColor: .clear,
                                  kind: .mesh(MeshDraw(id: id, mesh: mesh, color: k % 2 == 0 ? red : blue))))
        }
        #expect(meshBytes > MeshArena.minimumBytes, "the scene must overflow the first arena (\(meshBytes) bytes)")
        let white = Color(1, 1, 1)
        let renderer = try makeRenderer(width: 400, height: 360)
        try renderer.render(DrawList(width: 400, height: 360, clearColor: white, items: items))
        var image = RGBAImage(width: 400, height: 360, pixels: try renderer.readPixels(alpha: .straight))
        #expect(renderer.meshArenaBytes > MeshArena.minimumBytes)
        #expect(renderer.gpuMeshCount == columns * rows)
        for k in 0..<(columns * rows) {
            let x = (k % columns) * 20, y = (k / columns) * 20
            expectPixel(image, x + 10, y + 10, k % 2 == 0 ? RGBA(255, 0, 0) : RGBA(0, 0, 255), "circle \(k)")
            expectPixel(image, x, y, RGBA(255, 255, 255), "corner of cell \(k)")
        }
        guard case .mesh(var first) = items[0].kind else { return }
        first.color = green
        var again = items[0]
        again.kind = .mesh(first)
        try renderer.render(DrawList(width: 400, height: 360, clearColor: white, items: [again]))
        image = RGBAImage(width: 400, height: 360, pixels: try renderer.readPixels(alpha: .straight))
        expectPixel(image, 10, 10, RGBA(0, 255, 0), "first circle, moved by the rebuild")
        // The top edge row (radius 9 from y = 10): pixel (10, 1) is 98 % inside the circle
        // (1 − ∫₀¹ (9 − √(81 − x²)) dx), so red and blue are 255 × 0.02 ≈ 5; the flattened
        // circle's chords lie up to 0.1 px inside it (CoverageMesh.tolerance): up to 26 more.
        expectPixel(image, 10, 1, RGBA(5, 255, 5), tolerance: 26, "its top edge row (radius 9 from y = 10)")
        expectPixel(image, 30, 10, RGBA(255, 255, 255), "second circle not drawn")
        #expect(renderer.meshUploads == columns * rows, "no mesh uploaded twice")
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
