import Testing
@testable import LaminaGeometry

@Suite struct MeshCacheTests {
    @Test func hitsMissesAndBuckets() throws {
        var cache = MeshCache(capacity: 2)
        let path = Path.ellipse(in: Rect(0, 0, 10, 10))
        _ = try cache.mesh(for: path, style: .fill(.nonZero), scale: 2.05)
        _ = try cache.mesh(for: path, style: .fill(.nonZero), scale: 2.1)   // same bucket
        #expect(cache.hits == 1 && cache.misses == 1)
        _ = try cache.mesh(for: path, style: .fill(.nonZero), scale: 4)
        #expect(cache.misses == 2)
        #expect(MeshCache.bucket(forScale: 2) == 4 && MeshCache.scale(forBucket: 4) == 2)
        // Animated trim: the shader-trimmed key ignores strokeStart/strokeEnd.
        let a = StrokeStyle(lineWidth: 2, strokeEnd: 0.3).untrimmed, b = StrokeStyle(lineWidth: 2, strokeEnd: 0.9).untrimmed
        #expect(MeshKey(path: path, style: .stroke(a, trimmedInShader: true), scaleBucket: 0)
                == MeshKey(path: path, style: .stroke(b, trimmedInShader: true), scaleBucket: 0))
    }

    @Test func evictsLeastRecentlyUsed() throws {
        var cache = MeshCache(capacity: 2)
        let p1 = Path.rect(Rect(0, 0, 1, 1)), p2 = Path.rect(Rect(0, 0, 2, 2)), p3 = Path.rect(Rect(0, 0, 3, 3))
        _ = try cache.mesh(for: p1, style: .fill(.evenOdd), scale: 1)
        _ = try cache.mesh(for: p2, style: .fill(.evenOdd), scale: 1)
        _ = try cache.mesh(for: p1, style: .fill(.evenOdd), scale: 1)   // p1 used again
        _ = try cache.mesh(for: p3, style: .fill(.evenOdd), scale: 1)   // evicts p2
        #expect(cache.count == 2)
        #expect(cache.lookup(MeshKey(path: p1, style: .fill(.evenOdd), scaleBucket: 0)) != nil)
        #expect(cache.lookup(MeshKey(path: p2, style: .fill(.evenOdd), scaleBucket: 0)) == nil)
    }
}
