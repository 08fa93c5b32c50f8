/// One vertex of a tessellated shape, as the renderer consumes it.
///
/// Positions are in the layer's local coordinates, in points; the renderer applies the
/// layer's transform. `coverage` is 1 inside the shape and falls to 0 at the outer edge of
/// the anti-aliasing fringe; the fragment's alpha is multiplied by the interpolated value.
/// `distance` is the arc length along the stroke's centerline (0 for fills), so that
/// strokeStart/strokeEnd can clip in the fragment shader without re-tessellating.
public struct MeshVertex: Hashable, Sendable {
    public var x: Float
    public var y: Float
    public var coverage: Float
    public var distance: Float

    @inlinable public init(x: Float, y: Float, coverage: Float = 1, distance: Float = 0) {
        self.x = x; self.y = y; self.coverage = coverage; self.distance = distance
    }
}

/// Indexed triangles ready for upload.
///
/// `indices[0 ..< interiorIndexCount]` are the interior triangles (coverage 1 everywhere);
/// the rest are the anti-aliasing fringe. The renderer draws the whole index range in one
/// draw call, in order, with the stencil "each pixel once" state (test EQUAL 0, pass op
/// INCREMENT_AND_CLAMP, then clear the covered stencil), so that neither overlapping stroke
/// pieces nor fringes blend twice. See `Sources/LaminaGeometry/README.md`.
public struct Mesh: Hashable, Sendable {
    public var vertices: [MeshVertex]
    public var indices: [UInt32]
    /// Number of leading indices that belong to interior triangles; the rest are fringe.
    public var interiorIndexCount: Int
    /// Bounds of every vertex, fringe included.
    public var bounds: Rect
    /// Stroke: total centerline length of the (untrimmed) path, the unit of `distance`
    /// (clip with `strokeStart * totalLength ≤ distance ≤ strokeEnd * totalLength`). Fill: 0.
    public var totalLength: Double
    /// What the renderer multiplies the mesh's coverage by (its color's alpha): 1, or a dash
    /// pattern's duty cycle where dashes finer than a quarter device pixel, too many to make,
    /// are drawn as the solid stroke (`StrokeTessellator.visibleRuns`).
    public var coverageScale = 1.0

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
    /// The interior triangles alone, as a mesh without fringe.
    public var interior: Mesh {
        Mesh(vertices: vertices, indices: Array(indices[0 ..< interiorIndexCount]),
             interiorIndexCount: interiorIndexCount, bounds: bounds, totalLength: totalLength)
    }
}

/// Interior triangles in double precision: what the tessellators produce before they are
/// packed into a `Mesh`. Used by exact-area tests and by the benchmark.
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
