/// Packs tessellator output into `Mesh`es: interior triangles first, fringe after.
enum MeshBuilder {
    /// Fill mesh: interior from `tri`, and for each boundary run a fringe quad `fringe` wide
    /// outside the boundary (coverage 1 → 0) with a bevel wedge at each end, so that
    /// convex corners are covered.
    static func fillMesh(_ tri: TriangleList, runs: [FillTessellator.BoundaryRun], fringe f: Double) -> Mesh {
        var v: [MeshVertex] = []
        v.reserveCapacity(tri.points.count + runs.count * 6)
        for p in tri.points { v.append(MeshVertex(x: Float(p.x), y: Float(p.y))) }
        var idx = tri.indices
        let interior = idx.count
        idx.reserveCapacity(interior + runs.count * 12)
        for r in runs {
            let d = (r.b - r.a).normalized
            let base = UInt32(v.count)
            let pts = [r.a, r.b, r.a + r.outward * f, r.b + r.outward * f, r.a - d * f, r.b + d * f]
            let cov: [Float] = [1, 1, 0, 0, 0, 0]
            for i in 0 ..< 6 { v.append(MeshVertex(x: Float(pts[i].x), y: Float(pts[i].y), coverage: cov[i])) }
            idx.append(contentsOf: [base, base + 1, base + 3, base, base + 3, base + 2,
                                    base, base + 2, base + 4, base + 1, base + 5, base + 3])
        }
        return Mesh(vertices: v, indices: idx, interiorIndexCount: interior, bounds: bounds(of: v), totalLength: 0)
    }

    static func bounds(of v: [MeshVertex]) -> Rect {
        guard let f = v.first else { return .zero }
        var x0 = f.x, y0 = f.y, x1 = f.x, y1 = f.y
        for p in v { x0 = min(x0, p.x); y0 = min(y0, p.y); x1 = max(x1, p.x); y1 = max(y1, p.y) }
        return Rect(Double(x0), Double(y0), Double(x1 - x0), Double(y1 - y0))
    }
}
