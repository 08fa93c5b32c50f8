import Testing
import TestSupport
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

    /// A mesh of `n` vertices and no indices: 16·n bytes (a `MeshVertex` is four floats).
    private static func mesh(_ n: Int) -> Mesh {
        Mesh(vertices: Array(repeating: MeshVertex(x: 0, y: 0), count: n))
    }

    private static func key(_ side: Double) -> MeshKey {
        MeshKey(path: .rect(Rect(0, 0, side, side)), style: .fill(.nonZero), scaleBucket: 0)
    }

    /// The order worked out by hand: each insert and hit moves the clock, and the oldest stamp
    /// goes first; evicted slots are reused by later meshes without disturbing the others.
    @Test func evictionFollowsTheUsesThroughReusedSlots() {
        var cache = MeshCache(capacity: 3)
        let k = (1...6).map { Self.key(Double($0)) }
        let id1 = cache.insert(Self.mesh(1), for: k[0])        // stamp 1
        cache.insert(Self.mesh(1), for: k[1])                   // 2
        let id3 = cache.insert(Self.mesh(1), for: k[2])         // 3
        #expect(cache.lookup(k[0]) != nil)                      // k1: 4
        #expect(cache.lookup(k[1]) != nil)                      // k2: 5
        cache.insert(Self.mesh(1), for: k[3])                   // 6: evicts k3 (3)
        #expect(cache.id(for: k[2]) == nil && cache.key(for: id3) == nil)
        #expect(cache.key(for: id1) == k[0])
        cache.insert(Self.mesh(1), for: k[4])                   // 7: evicts k1 (4), into k3's slot
        #expect(cache.id(for: k[0]) == nil)
        #expect(cache.lookup(k[1]) != nil)                      // k2: 8
        cache.insert(Self.mesh(1), for: k[5])                   // 9: evicts k4 (6), into k1's slot
        #expect(cache.count == 3)
        #expect([0, 1, 2, 3, 4, 5].map { cache.id(for: k[$0]) != nil } == [false, true, false, false, true, true])
        #expect(cache.bytes == 3 * 16)
        #expect(cache.hits == 3 && cache.misses == 0)
    }

    /// Thousands of inserts, hits and misses over keys that differ only in their path's last
    /// point, their style, bucket or window (so that many share most of their hash's input),
    /// through a cache of 16: after each step the cached keys and their ids are those of a
    /// plain least-recently-used list kept beside it (each removal also moves other keys in
    /// the cache's table, whose saved hashes must still find them).
    @Test func manyKeysFollowALeastRecentlyUsedList() {
        var cache = MeshCache(capacity: 16)
        var keys: [MeshKey] = []
        for k in 0 ..< 48 {
            var path = Path()
            path.move(to: Point(0, 0))
            for i in 1 ... 20 { path.addLine(to: Point(Double(i), Double(i % 3))) }
            path.addLine(to: Point(Double(k % 12), 50))
            let style: MeshKey.Style = k % 12 < 6 ? .fill(.nonZero) : .stroke(StrokeStyle(lineWidth: 1), trimmedInShader: false)
            keys.append(MeshKey(path: path, style: style, scaleBucket: k / 24, window: k % 24 < 12 ? nil : Rect(0, 0, 9, 9)))
        }
        #expect(Set(keys).count == keys.count)
        var lru: [(key: Int, id: MeshID)] = []   // least recently used first
        var r = SeededRandom(seed: 20)
        for step in 0 ..< 3000 {
            let k = Int.random(in: 0 ..< keys.count, using: &r)
            if Bool.random(using: &r) {
                let id = cache.insert(Self.mesh(1), for: keys[k])
                lru.removeAll { $0.key == k }
                lru.append((k, id))
                if lru.count > 16 { lru.removeFirst() }
            } else if let hit = cache.lookupEntry(keys[k]) {
                let i = lru.firstIndex { $0.key == k }
                #expect(i != nil && lru[i!].id == hit.id, "step \(step)")
                if let i { lru.append(lru.remove(at: i)) }
            } else {
                #expect(!lru.contains { $0.key == k }, "step \(step): key \(k) missed")
            }
            #expect(cache.count == lru.count)
            for (i, key) in keys.enumerated() {
                #expect(cache.id(for: key) == lru.first { $0.key == i }?.id, "step \(step): key \(i)")
            }
        }
    }

    /// The byte limit: the oldest meshes go until the rest fit, but the newest always stays.
    @Test func theByteLimitEvictsOldestButKeepsTheNewest() {
        var cache = MeshCache(capacity: 100, maxBytes: 100)
        let k = (1...5).map { Self.key(Double($0)) }
        cache.insert(Self.mesh(2), for: k[0])                   // 32 bytes
        cache.insert(Self.mesh(3), for: k[1])                   // 48: 80 in all
        #expect(cache.bytes == 80 && cache.count == 2)
        cache.insert(Self.mesh(1), for: k[2])                   // 96: fits
        #expect(cache.bytes == 96 && cache.count == 3)
        cache.insert(Self.mesh(2), for: k[3])                   // 128: k1 goes, 96
        #expect(cache.bytes == 96 && cache.id(for: k[0]) == nil && cache.count == 3)
        let replaced = cache.id(for: k[1])
        cache.insert(Self.mesh(1), for: k[1])                   // k2 replaced (48 → 16): 64
        #expect(cache.bytes == 64 && cache.count == 3 && cache.id(for: k[1]) != replaced)
        cache.insert(Self.mesh(10), for: k[4])                  // 160 alone: everything else goes
        #expect(cache.count == 1 && cache.bytes == 160 && cache.id(for: k[4]) != nil)
        cache.removeAll()
        #expect(cache.count == 0 && cache.bytes == 0 && cache.lookup(k[4]) == nil)
    }
}
