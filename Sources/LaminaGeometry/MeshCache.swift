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
public struct MeshCache {
    public let capacity: Int
    public let maxBytes: Int
    private var entries: [MeshKey: (mesh: Mesh, id: MeshID, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    public private(set) var bytes = 0
    public private(set) var hits = 0
    public private(set) var misses = 0

    /// - Parameters: capacity: most meshes kept; maxBytes: most vertex and index bytes kept.
    public init(capacity: Int = 512, maxBytes: Int = 64 << 20) {
        self.capacity = max(1, capacity); self.maxBytes = max(1, maxBytes)
    }

    public var count: Int { entries.count }

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
    public mutating func lookupEntry(_ key: MeshKey) -> (id: MeshID, mesh: Mesh)? {
        guard var e = entries[key] else { misses += 1; return nil }
        clock += 1
        e.lastUse = clock
        entries[key] = e
        hits += 1
        return (e.id, e.mesh)
    }

    /// The id of the mesh cached for `key`, if any (not marking it used).
    public func id(for key: MeshKey) -> MeshID? { entries[key]?.id }

    /// The key of the cached mesh `id`, if it is still cached: a linear search, for tests and
    /// diagnostics.
    public func key(for id: MeshID) -> MeshKey? { entries.first { $0.value.id == id }?.key }

    /// Stores a mesh under a new id (returned), evicting the least recently used ones beyond
    /// the limits.
    @discardableResult
    public mutating func insert(_ mesh: Mesh, for key: MeshKey) -> MeshID {
        clock += 1
        if let old = entries[key] { bytes -= old.mesh.byteCount }
        let id = MeshID.unique()
        entries[key] = (mesh, id, clock)
        bytes += mesh.byteCount
        while entries.count > capacity || (bytes > maxBytes && entries.count > 1) {
            guard let victim = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
            bytes -= victim.value.mesh.byteCount
            entries.removeValue(forKey: victim.key)
        }
        return id
    }

    public mutating func removeAll() { entries.removeAll(); bytes = 0 }

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
        let key = MeshKey(path: path, style: style, scaleBucket: bucket, antialias: antialias, window: window)
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
