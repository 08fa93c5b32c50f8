import Synchronization

/// A tessellated mesh's identity, minted when `MeshCache` stores it: equal for the same path,
/// style and scale bucket while the cache keeps the mesh, and never handed out again (a
/// process-wide counter), so a backend may keep GPU copies by id and a frame that still
/// draws an evicted mesh cannot meet its id on another mesh.
public struct MeshID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let value: UInt64

    /// A new id, distinct from every id made before in this process.
    public static func unique() -> MeshID { MeshID(value: meshIDCounter.add(1, ordering: .relaxed).newValue) }

    public static func < (a: MeshID, b: MeshID) -> Bool { a.value < b.value }
    public var description: String { "mesh#\(value)" }
}

private let meshIDCounter = Atomic<UInt64>(0)

/// What a cached mesh was tessellated for: the path, the fill or stroke style, the scale bucket.
public struct MeshKey: Hashable, Sendable {
    public enum Style: Hashable, Sendable {
        case fill(FillRule)
        /// A stroke. For a mesh trimmed in the shader, pass `style.untrimmed` so that an
        /// animated strokeStart/strokeEnd reuses the same mesh.
        case stroke(StrokeStyle, trimmedInShader: Bool)
    }
    public var path: Path
    public var style: Style
    public var scaleBucket: Int
    public var antialias: Bool
    /// The visible window the mesh was cut to (`FillTessellator.coverageMesh`), or nil: whole.
    public var window: Rect?

    public init(path: Path, style: Style, scaleBucket: Int, antialias: Bool = true, window: Rect? = nil) {
        self.path = path; self.style = style; self.scaleBucket = scaleBucket; self.antialias = antialias
        self.window = window
    }
}

/// Tessellated meshes keyed by (path, style, scale bucket), least recently used evicted first.
///
/// Render thread only: not thread-safe (no locks; the render thread owns it).
///
/// Scale buckets are quarter-octaves: scales within about 19 % of each other share a mesh,
/// which is tessellated at the bucket's upper scale (so flattening and the fringe are never
/// coarser than needed). Use `mesh(…)` to look up or tessellate in one call.
///
/// The meshes live in slots (a freed slot is reused), the keys map to them, and each slot's
/// last use is kept in an array of its own: a hit stamps its slot in place (one hash of the
/// key), and an eviction finds the least recently used mesh by scanning those stamps alone —
/// without copying an entry (its key's path and its mesh's arrays, retained and released) as
/// a search of the dictionary did, which a grid of morphing shapes paid for every new mesh
/// once the cache was full (docs/performance.md, "The Lottie grid's render thread").
public struct MeshCache {
    public let capacity: Int
    public let maxBytes: Int
    private struct Slot {
        var key: Hashed
        var mesh: Mesh
        var id: MeshID
    }
    /// A key with its hash worked out once: hashing a key hashes its path's every element, and
    /// the index would otherwise do it at each step of a miss — the lookup, the insertion, the
    /// eviction's removal, and again for each key a removal moves in the table.
    struct Hashed: Hashable {
        let key: MeshKey
        let hash: Int
        init(_ key: MeshKey) { self.key = key; hash = key.hashValue }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Hashed, b: Hashed) -> Bool { a.hash == b.hash && a.key == b.key }
    }
    /// The slot of each cached key.
    private var index: [Hashed: Int] = [:]
    /// The cached meshes by slot (nil: free).
    private var slots: [Slot?] = []
    /// Per slot, the clock at its last use (`UInt64.max` for a free slot: never the oldest).
    private var lastUse: [UInt64] = []
    /// Free slots, reused before the arrays grow.
    private var free: [Int] = []
    private var clock: UInt64 = 0
    public private(set) var bytes = 0
    public private(set) var hits = 0
    public private(set) var misses = 0

    /// - Parameters: capacity: most meshes kept; maxBytes: most vertex and index bytes kept.
    public init(capacity: Int = 512, maxBytes: Int = 64 << 20) {
        self.capacity = max(1, capacity); self.maxBytes = max(1, maxBytes)
    }

    public var count: Int { index.count }

    /// The bucket of a device-pixels-per-point scale (quarter octaves, rounded up). A scale a
    /// few ulps above a bucket's (a rotation's row norm is 1 only up to rounding) is in that
    /// bucket: otherwise a spinning shape would flip between two meshes from frame to frame.
    public static func bucket(forScale scale: Double) -> Int {
        let s = scale.isFinite && scale > 0 ? scale : 1
        return Int((log2(s) * 4 - 1e-9).rounded(.up))
    }

    /// The scale a bucket's meshes are tessellated at.
    public static func scale(forBucket bucket: Int) -> Double { exp2(Double(bucket) / 4) }

    /// The cached mesh for `key`, marking it used.
    public mutating func lookup(_ key: MeshKey) -> Mesh? { lookupEntry(key)?.mesh }

    /// The cached mesh for `key` with its id, marking it used.
    public mutating func lookupEntry(_ key: MeshKey) -> (id: MeshID, mesh: Mesh)? { lookupEntry(Hashed(key)) }

    private mutating func lookupEntry(_ key: Hashed) -> (id: MeshID, mesh: Mesh)? {
        guard let i = index[key], let id = slots[i]?.id, let mesh = slots[i]?.mesh else { misses += 1; return nil }
        clock += 1
        lastUse[i] = clock
        hits += 1
        return (id, mesh)
    }

    /// The id of the mesh cached for `key`, if any (not marking it used).
    public func id(for key: MeshKey) -> MeshID? { index[Hashed(key)].flatMap { slots[$0]?.id } }

    /// The key of the cached mesh `id`, if it is still cached: a linear search, for tests and
    /// diagnostics.
    public func key(for id: MeshID) -> MeshKey? { slots.lazy.compactMap { $0 }.first { $0.id == id }?.key.key }

    /// Stores a mesh under a new id (returned), evicting the least recently used ones beyond
    /// the limits.
    @discardableResult
    public mutating func insert(_ mesh: Mesh, for key: MeshKey) -> MeshID { insert(mesh, for: Hashed(key)) }

    private mutating func insert(_ mesh: Mesh, for key: Hashed) -> MeshID {
        clock += 1
        let id = MeshID.unique()
        if let i = index[key] {
            bytes -= slots[i]?.mesh.byteCount ?? 0
            slots[i] = Slot(key: key, mesh: mesh, id: id)
            lastUse[i] = clock
        } else if let i = free.popLast() {
            index[key] = i
            slots[i] = Slot(key: key, mesh: mesh, id: id)
            lastUse[i] = clock
        } else {
            index[key] = slots.count
            slots.append(Slot(key: key, mesh: mesh, id: id))
            lastUse.append(clock)
        }
        bytes += mesh.byteCount
        while index.count > capacity || (bytes > maxBytes && index.count > 1) {
            evict(leastRecentlyUsed())
        }
        return id
    }

    /// The used slot with the oldest stamp (stamps are distinct: the clock moves at every use).
    private func leastRecentlyUsed() -> Int {
        lastUse.withUnsafeBufferPointer { stamps in
            var best = 0
            for i in stamps.indices where stamps[i] < stamps[best] { best = i }
            return best
        }
    }

    private mutating func evict(_ i: Int) {
        guard let victim = slots[i] else { return }
        bytes -= victim.mesh.byteCount
        index.removeValue(forKey: victim.key)
        slots[i] = nil
        lastUse[i] = .max
        free.append(i)
    }

    public mutating func removeAll() {
        index.removeAll(); slots.removeAll(); lastUse.removeAll(); free.removeAll(); bytes = 0
    }

    /// The mesh for a path and style at an on-screen scale: from the cache, or tessellated
    /// at the bucket's scale and stored.
    /// With a `window` (local units), the mesh is cut to it (see `FillTessellator.coverageMesh`).
    public mutating func mesh(for path: Path, style: MeshKey.Style, scale: Double,
                              antialias: Bool = true, window: Rect? = nil) throws(TessellationError) -> Mesh {
        try entry(for: path, style: style, scale: scale, antialias: antialias, window: window).mesh
    }

    /// `mesh(for:style:scale:antialias:window:)` with the mesh's id.
    public mutating func entry(for path: Path, style: MeshKey.Style, scale: Double,
                               antialias: Bool = true, window: Rect? = nil) throws(TessellationError) -> (id: MeshID, mesh: Mesh) {
        let bucket = Self.bucket(forScale: scale)
        let key = Hashed(MeshKey(path: path, style: style, scaleBucket: bucket, antialias: antialias, window: window))
        if let e = lookupEntry(key) { return e }
        let s = Self.scale(forBucket: bucket)
        let m: Mesh
        switch style {
        case .fill(let rule):
            m = try FillTessellator.coverageMesh(path, rule: rule, scale: s, window: window)
        case .stroke(let stroke, _):
            m = try StrokeTessellator.coverageMesh(path, style: stroke, scale: s, window: window)
        }
        return (insert(m, for: key), m)
    }
}

import Foundation
