/// One 16-byte record of a shape's coverage mesh, as the renderer uploads it: a corner of the
/// quad, the grid header, a tile or an edge (the layout is in CoverageMesh.swift; integers are
/// stored as the bit patterns of the fields). The names are those of the quad's corners:
/// a position in the layer's local coordinates, in points (the renderer applies the layer's
/// transform), and two more lanes.
public struct MeshVertex: Hashable, Sendable {
    public var x: Float
    public var y: Float
    public var coverage: Float
    public var distance: Float

    @inlinable public init(x: Float, y: Float, coverage: Float = 1, distance: Float = 0) {
        self.x = x; self.y = y; self.coverage = coverage; self.distance = distance
    }
}

/// What the renderer draws for a shape: a coverage mesh (`FillTessellator.coverageMesh`,
/// `StrokeTessellator.coverageMesh`) — `indices` are one quad over the shape as two triangles,
/// `vertices` the quad's corners and the tiled boundary the fragment shader integrates. See
/// `Sources/LaminaGeometry/README.md`.
public struct Mesh: Hashable, Sendable {
    public var vertices: [MeshVertex]
    public var indices: [UInt32]
    /// Leading indices that cover the shape: all six of a coverage mesh's (kept for the
    /// callers that make meshes by hand).
    public var interiorIndexCount: Int
    /// Bounds of the quad (the shape grown by the coverage margin).
    public var bounds: Rect
    /// Stroke: total centerline length of the (untrimmed) path. Fill: 0.
    public var totalLength: Double
    /// What the renderer multiplies the mesh's coverage by (its color's alpha): 1, or a dash
    /// pattern's duty cycle where dashes finer than a quarter device pixel, too many to make,
    /// are drawn as the solid stroke (`StrokeTessellator.visibleRuns`).
    public var coverageScale = 1.0
    /// A coverage mesh's boundary edges untiled, in local units: (x0, y0, x1, y1) from start to
    /// end, closed loops around the region (winding 1) running down on its left side — what
    /// `CoverageMesh.accumulate` rasterizes under any affine map; empty for meshes made by hand.
    public var boundary: [SIMD4<Float>] = []

    public init(vertices: [MeshVertex] = [], indices: [UInt32] = [], interiorIndexCount: Int = 0,
                bounds: Rect = .zero, totalLength: Double = 0) {
        self.vertices = vertices; self.indices = indices
        self.interiorIndexCount = interiorIndexCount; self.bounds = bounds; self.totalLength = totalLength
    }

    public static let empty = Mesh()

    public var triangleCount: Int { indices.count / 3 }
    public var isEmpty: Bool { indices.isEmpty }
    /// Bytes of vertex and index data (what an upload costs).
    public var byteCount: Int {
        vertices.count * MemoryLayout<MeshVertex>.stride + indices.count * MemoryLayout<UInt32>.stride
    }
}

/// Triangles in double precision (`FillTessellator.triangulate`): the fill sweeps' interior,
/// for exact-area tests.
public struct TriangleList: Hashable, Sendable {
    public var points: [Point]
    public var indices: [UInt32]

    public init(points: [Point] = [], indices: [UInt32] = []) { self.points = points; self.indices = indices }

    public var triangleCount: Int { indices.count / 3 }

    /// Sum of the absolute areas of the triangles.
    public var area: Double {
        var sum = 0.0
        var i = 0
        while i + 2 < indices.count {
            let a = points[Int(indices[i])], b = points[Int(indices[i + 1])], c = points[Int(indices[i + 2])]
            sum += abs((b - a).cross(c - a))
            i += 3
        }
        return sum / 2
    }

    /// The triangle at `index` as three points.
    public func triangle(_ index: Int) -> (Point, Point, Point) {
        (points[Int(indices[3 * index])], points[Int(indices[3 * index + 1])], points[Int(indices[3 * index + 2])])
    }
}

/// How the inside of a path is decided, as `CAShapeLayerFillRule`.
public enum FillRule: String, Hashable, Sendable, CaseIterable {
    case nonZero, evenOdd

    @inlinable public func isInside(_ winding: Int32) -> Bool {
        switch self {
        case .nonZero: winding != 0
        case .evenOdd: winding & 1 != 0
        }
    }
}

/// Why a path could not be tessellated. Never a trap: hostile input is an error.
public enum TessellationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A coordinate is NaN or infinite; `element` is the index in `Path.elements`
    /// (or the flat point index for polygon input).
    case nonFiniteCoordinate(element: Int)
    /// More vertices than the UInt32 index format can address.
    case tooManyVertices

    public var description: String {
        switch self {
        case .nonFiniteCoordinate(let e): "non-finite coordinate at element \(e)"
        case .tooManyVertices: "too many vertices for 32-bit indices"
        }
    }
}
