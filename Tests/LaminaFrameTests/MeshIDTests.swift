import Testing
import LaminaGeometry
import LaminaTree
@testable import LaminaFrame
import LaminaModel

/// Mesh ids: the identity a backend keeps GPU meshes by.
@Suite("Mesh ids")
struct MeshIDTests {
    @Test func samePathStyleAndScaleBucketIsTheSameID() throws {
        var cache = MeshCache()
        let path = Path.ellipse(in: Rect(0, 0, 10, 10))
        let a = try cache.entry(for: path, style: .fill(.nonZero), scale: 2.05)
        let b = try cache.entry(for: path, style: .fill(.nonZero), scale: 2.1)      // same quarter-octave bucket
        let equalPath = Path.ellipse(in: Rect(0, 0, 10, 10))                          // equal, other storage
        let c = try cache.entry(for: equalPath, style: .fill(.nonZero), scale: 2.05)
        #expect(a.id == b.id && a.id == c.id)
        let otherScale = try cache.entry(for: path, style: .fill(.nonZero), scale: 4)
        let otherRule = try cache.entry(for: path, style: .fill(.evenOdd), scale: 2.05)
        let stroke = try cache.entry(for: path, style: .stroke(StrokeStyle(), trimmedInShader: false), scale: 2.05)
        #expect(Set([a.id, otherScale.id, otherRule.id, stroke.id]).count == 4)
        #expect(cache.key(for: a.id) == MeshKey(path: path, style: .fill(.nonZero), scaleBucket: MeshCache.bucket(forScale: 2.05)))
    }

    @Test func anEvictedMeshsIDIsNeverHandedOutAgain() throws {
        // Capacity 1: each new path evicts the last. A frame still drawing the first mesh keeps
        // its id; no later mesh (the same path tessellated again included) gets it.
        var cache = MeshCache(capacity: 1)
        let first = try cache.entry(for: .rect(Rect(0, 0, 1, 1)), style: .fill(.nonZero), scale: 1)
        let heldByAFrame = DrawItem(bounds: .zero, backgroundColor: .clear,
                                    kind: .mesh(MeshDraw(id: first.id, mesh: first.mesh, color: Color(0, 0, 0))))
        var later: [MeshID] = []
        for k in 1...50 {
            later.append(try cache.entry(for: .rect(Rect(0, 0, Double(k + 1), 1)), style: .fill(.nonZero), scale: 1).id)
        }
        #expect(cache.key(for: first.id) == nil, "evicted")
        let again = try cache.entry(for: .rect(Rect(0, 0, 1, 1)), style: .fill(.nonZero), scale: 1)
        later.append(again.id)
        guard case .mesh(let draw) = heldByAFrame.kind else { return }
        #expect(!later.contains(draw.id))
        #expect(Set(later).count == later.count, "every mesh its own id")
    }

    @Test func aShapeLayerKeepsItsMeshIDFromFrameToFrame() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .shape), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 32, 32))),
            .set(1, keyPath: "position", value: .point(Point(16, 16))),
            .set(1, keyPath: "path", value: .path(.ellipse(in: Rect(0, 0, 32, 32)))),
            .set(1, keyPath: "fillColor", value: .color(Color(1, 0, 0))),
        ])))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        builder.usesShapeAtlas = false  // the meshes every frame (the atlas would draw the unchanged shape)
        func ids() -> [MeshID] {
            builder.build(t).items.compactMap { if case .mesh(let m) = $0.kind { m.id } else { nil } }
        }
        let first = ids()
        #expect(first.count == 1)
        #expect(ids() == first)
        // At twice the scale (another bucket): another mesh, another id.
        builder.scale = 2
        let scaled = ids()
        #expect(scaled.count == 1 && scaled != first)
    }
}
