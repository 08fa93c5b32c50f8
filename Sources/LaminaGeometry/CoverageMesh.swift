/// Exact area coverage for filled regions: the mesh the renderer draws for a shape is one quad
/// over its bounds plus a tiled list of the region's boundary edges, from which the fragment
/// shader computes, for each pixel, the fraction of the pixel's footprint inside the region
/// (an exact integral, not samples). See README.md, "Anti-aliasing: exact area coverage".
///
/// Layout of `Mesh.vertices` (16-byte records; integers are stored as the bit patterns of
/// the `Float` fields, read back with `floatBitsToUint`/`uintBitsToFloat` in the shader):
///
/// | record | contents |
/// |---|---|
/// | 0 … 3 | the quad's corners: x, y, corner index (0…3), 0 |
/// | 4 | grid origin x, y, tile size, margin (local units) |
/// | 5 | columns, rows (bits), 0, 0 |
/// | 6 … 6 + columns × rows − 1 | per tile (row-major): backdrop (Int32 bits), first edge record, edge count (bits), 0 |
/// | then | edges: x0, y0, x1, y1; an edge running down (y0 < y1) counts +1, up −1 |
///
/// Coverage of a pixel whose footprint is the box B (centre in tile t, half-size at most the
/// margin): `(backdrop(t) · |B| + Σ_e ± ∫_{y ∈ e ∩ B} (B.maxX − clamp(x_e(y), B.minX, B.maxX)) dy) / |B|`,
/// i.e. the winding number integrated over B; the edges bound a region of winding 1 (the
/// fill rule is already applied: they are the region's boundary from the sweep), so this is
/// the exact area fraction. Each tile's lists hold its edges clipped to the right of the tile's
/// expanded left side (tile grown by the margin) and, where an edge crosses that side, a
/// vertical step carrying the winding change below the crossing; the backdrop is the winding
/// at the expanded tile's top-left corner.
public enum CoverageMesh {
    /// A boundary edge with the region to its right (+1, running down) or left (−1); a
    /// horizontal one (y0 == y1, x0 < x1) has +1 with the region below it, −1 above.
    struct Edge {
        var x0, y0, x1, y1: Double   // y0 < y1, or y0 == y1 and x0 < x1
        var sign: Int32
    }

    /// Records before the tiles.
    public static let headerRecords = 6
    /// Tile side in device pixels (at the mesh's scale).
    public static let tilePixels = 4.0
    /// Most tiles a mesh gets; larger shapes get larger tiles.
    public static let maxTiles = 1 << 16
    /// Most edge records a mesh gets (about 64 MB while it is built); past it, larger tiles.
    public static let maxRecords = 1 << 21
    /// Flattening tolerance of coverage meshes in device pixels (cairo's default): chords lie
    /// inside convex curves, so a coarser one would make curved shapes measurably lighter
    /// (0.25 px: a 25-point disc 0.6 % small).
    public static let tolerance = 0.1

    /// The region's boundary: the sloped runs a fill sweep reported and the horizontal pieces
    /// of `polygons` under `rule` (found here: the sweeps do not report every one).
    static func edges(_ runs: [FillTessellator.BoundaryRun], _ polygons: [[Point]], rule: FillRule) -> [Edge] {
        var out: [Edge] = []
        out.reserveCapacity(runs.count)
        horizontalEdges(polygons, rule: rule, into: &out)
        for r in runs where r.a.y != r.b.y {
            // Inside to the right of the edge (+x) when the outward normal points left.
            let sign: Int32 = r.outward.x < 0 ? 1 : -1
            if r.a.y < r.b.y { out.append(Edge(x0: r.a.x, y0: r.a.y, x1: r.b.x, y1: r.b.y, sign: sign)) }
            else { out.append(Edge(x0: r.b.x, y0: r.b.y, x1: r.a.x, y1: r.a.y, sign: sign)) }
        }
        return out
    }

    /// `polygons` with vertex rows closer than 1e-12 × the largest coordinate made one (the
    /// lowest): trigonometry leaves "horizontal" edges a few ulps off, and the sweeps report
    /// boundary runs along such slivers unreliably; exactly horizontal edges are found here.
    static func snappingRows(_ polygons: [[Point]]) -> [[Point]] {
        var ys: [Double] = []
        var largest = 0.0
        for poly in polygons { for p in poly { ys.append(p.y); largest = max(largest, abs(p.x), abs(p.y)) } }
        ys.sort()
        let eps = largest * 1e-12
        var snapped = false
        var row = [Double: Double]()
        var i = 0
        while i < ys.count {
            var j = i + 1
            while j < ys.count && ys[j] - ys[j - 1] <= eps { j += 1 }
            if j - i > 1 && ys[j - 1] != ys[i] {
                snapped = true
                for k in i + 1 ..< j { row[ys[k]] = ys[i] }
            }
            i = j
        }
        if !snapped { return polygons }
        return polygons.map { poly in poly.map { p in row[p.y].map { Point(p.x, $0) } ?? p } }
    }

    /// The horizontal pieces of the boundary of `polygons` under `rule`: on each row y that
    /// holds a horizontal edge, the x intervals where inside just above differs from inside
    /// just below (from the sloped edges crossing the row).
    ///
    /// A sweep over the rows in ascending order with the sloped edges sorted by their lower
    /// end: a row visits only the edges whose y range holds it (they join when the sweep
    /// reaches their lower end and leave once it passes their upper end), so the cost is the
    /// sorts plus the crossings, not rows × edges (a dashed stroke of thousands of dashes has
    /// thousands of rows, each crossed by a handful of its edges).
    static func horizontalEdges(_ polygons: [[Point]], rule: FillRule, into out: inout [Edge]) {
        var rows: [Double] = []
        // Sloped edges in their polygon's direction, with their y range.
        var sloped: [(a: Point, b: Point, lo: Double, hi: Double)] = []
        for poly in polygons where poly.count >= 2 {
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                if a.y == b.y {
                    if a.x != b.x { rows.append(a.y) }
                } else {
                    sloped.append((a, b, min(a.y, b.y), max(a.y, b.y)))
                }
            }
        }
        if rows.isEmpty { return }
        rows.sort()
        sloped.sort { $0.lo < $1.lo }
        var active: [Int] = []  // indices into `sloped` of the edges whose range may hold the row
        var joined = 0          // `sloped[..<joined]` have joined (their lower end is at or below the row)
        var crossings: [(x: Double, above: Int32, below: Int32)] = []
        var previous = Double.nan
        for y in rows where y != previous {
            previous = y
            while joined < sloped.count && sloped[joined].lo <= y { active.append(joined); joined += 1 }
            // Rows ascend: an edge the sweep has passed never holds a later row.
            active.removeAll { sloped[$0].hi < y }
            crossings.removeAll(keepingCapacity: true)
            for k in active {
                let (a, b, lo, hi) = sloped[k]
                let dir: Int32 = a.y < b.y ? 1 : -1
                let x = a.y == y ? a.x : (b.y == y ? b.x : a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y))
                crossings.append((x, lo < y ? dir : 0, y < hi ? dir : 0))
            }
            // (Crossings at one x are summed together below, so their order among themselves
            // does not matter.)
            crossings.sort { $0.x < $1.x }
            var above: Int32 = 0, below: Int32 = 0
            var i = 0
            while i < crossings.count {
                let x = crossings[i].x
                while i < crossings.count && crossings[i].x == x {
                    above += crossings[i].above; below += crossings[i].below; i += 1
                }
                guard i < crossings.count else { break }
                let inAbove = rule.isInside(above), inBelow = rule.isInside(below)
                if inAbove != inBelow && crossings[i].x > x {
                    out.append(Edge(x0: x, y0: y, x1: crossings[i].x, y1: y, sign: inBelow ? 1 : -1))
                }
            }
        }
    }

    /// The coverage mesh of the region bounded by `edges`, for `scale` device pixels per unit.
    static func mesh(_ edges: [Edge], scale: Double, totalLength: Double = 0) -> Mesh {
        guard !edges.isEmpty else { return .empty }
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for e in edges {
            minX = min(minX, e.x0, e.x1); maxX = max(maxX, e.x0, e.x1)
            minY = min(minY, e.y0); maxY = max(maxY, e.y1)
        }
        let px = 1 / scale
        let margin = px
        let width = maxX - minX + 2 * margin, height = maxY - minY + 2 * margin
        var tile = tilePixels * px
        while (width / tile).rounded(.up) * (height / tile).rounded(.up) > Double(maxTiles) { tile *= 2 }
        // At most `maxRecords` edge records: an edge makes at most one per tile row and column
        // it spans, plus one (thousands of edges each crossing a huge grid made gigabytes).
        func records(_ tile: Double) -> Double {
            var n = 0.0
            for e in edges { n += ((max(e.x0, e.x1) - min(e.x0, e.x1)) / tile).rounded(.up) + ((e.y1 - e.y0) / tile).rounded(.up) + 3 }
            return 2 * n
        }
        while records(tile) > Double(maxRecords) && (width > tile || height > tile) { tile *= 2 }
        let cols = max(1, Int((width / tile).rounded(.up))), rows = max(1, Int((height / tile).rounded(.up)))
        let ox = minX - margin, oy = minY - margin
        // Expanded tile (r, c): x from X(c) = ox + c·tile − margin, y from Y(r), both tile + 2·margin long.
        let span = tile + 2 * margin
        // (tile, record) pairs, grouped by tile afterwards (a counting sort).
        var tileOf: [Int32] = []
        var recs: [SIMD4<Double>] = []
        tileOf.reserveCapacity(4 * edges.count); recs.reserveCapacity(4 * edges.count)
        var backdrop = [Int32](repeating: 0, count: (cols + 1) * rows)
        for e in edges where e.y0 == e.y1 {
            // A horizontal edge changes the winding at each expanded tile's left side it
            // passes over (x0 < X(c) ≤ x1), below it: a step. At a band's top line the backdrop
            // (the winding just below the line) has it already.
            let r0 = max(0, Int(((e.y0 - oy + margin - span) / tile).rounded(.down)))
            let r1 = min(rows - 1, Int(((e.y0 - oy + margin) / tile).rounded(.down)))
            let c0 = max(0, Int(((e.x0 - ox + margin) / tile).rounded(.down)))
            let c1 = min(cols - 1, Int(((e.x1 - ox + margin) / tile).rounded(.down)))
            if r0 > r1 || c0 > c1 { continue }
            for r in r0 ... r1 {
                let top = oy + Double(r) * tile - margin, bottom = top + span
                guard top < e.y0 && e.y0 < bottom else { continue }
                for c in c0 ... c1 {
                    let left = ox + Double(c) * tile - margin
                    guard e.x0 < left && left <= e.x1 else { continue }
                    tileOf.append(Int32(r * cols + c)); recs.append(record(left, e.y0, left, bottom, e.sign))
                }
            }
        }
        for e in edges where e.y0 < e.y1 {
            let dxdy = (e.x1 - e.x0) / (e.y1 - e.y0)
            func x(at y: Double) -> Double { y <= e.y0 ? e.x0 : (y >= e.y1 ? e.x1 : e.x0 + (y - e.y0) * dxdy) }
            let r0 = max(0, Int(((e.y0 - oy + margin - span) / tile).rounded(.down)))
            let r1 = min(rows - 1, Int(((e.y1 - oy + margin) / tile).rounded(.down)))
            if r0 > r1 { continue }
            for r in r0 ... r1 {
                let top = oy + Double(r) * tile - margin, bottom = top + span
                // The winding at each expanded tile's top-left corner: the edge crosses y = top.
                if e.y0 <= top && top < e.y1 {
                    let xc = x(at: top)
                    // Columns whose X(c) > xc see the edge on their left.
                    let c = max(0, min(cols, Int(((xc - ox + margin) / tile).rounded(.down)) + 1))
                    backdrop[r * (cols + 1) + c] += e.sign
                }
                let ya = max(e.y0, top), yb = min(e.y1, bottom)
                if yb <= ya { continue }
                let xa = x(at: ya), xb = x(at: yb)
                let lo = min(xa, xb), hi = max(xa, xb)
                let c0 = max(0, Int(((lo - ox + margin - span) / tile).rounded(.down)))
                let c1 = min(cols - 1, Int(((hi - ox + margin) / tile).rounded(.down)))
                if c0 > c1 { continue }
                for c in c0 ... c1 {
                    let left = ox + Double(c) * tile - margin
                    // Wholly left of the side (x < X(c), the backdrop's rule): the backdrop and steps
                    // have it. An edge on the side itself is a record.
                    if hi < left { continue }
                    let t = Int32(r * cols + c)
                    if lo >= left {
                        tileOf.append(t); recs.append(record(xa, ya, xb, yb, e.sign))
                    } else {
                        // The part right of the expanded tile's left side, and the step: below the
                        // crossing the winding at that side changes by ±1.
                        let yc = min(yb, max(ya, ya + (left - xa) * (yb - ya) / (xb - xa)))
                        tileOf.append(t)
                        if xa < left { recs.append(record(left, yc, xb, yb, e.sign)) }
                        else { recs.append(record(xa, ya, left, yc, e.sign)) }
                        let delta: Int32 = xb < xa ? e.sign : -e.sign
                        tileOf.append(t); recs.append(record(left, yc, left, bottom, delta))
                    }
                }
            }
        }
        // Records.
        let tileCount = cols * rows
        var counts = [Int](repeating: 0, count: tileCount + 1)
        for t in tileOf { counts[Int(t) + 1] += 1 }
        for i in 0 ..< tileCount { counts[i + 1] += counts[i] }
        var v: [MeshVertex] = []
        v.reserveCapacity(headerRecords + tileCount + recs.count)
        let qx0 = Float(minX - margin), qy0 = Float(minY - margin), qx1 = Float(maxX + margin), qy1 = Float(maxY + margin)
        v.append(MeshVertex(x: qx0, y: qy0, coverage: 0, distance: 0))
        v.append(MeshVertex(x: qx1, y: qy0, coverage: 1, distance: 0))
        v.append(MeshVertex(x: qx1, y: qy1, coverage: 2, distance: 0))
        v.append(MeshVertex(x: qx0, y: qy1, coverage: 3, distance: 0))
        v.append(MeshVertex(x: Float(ox), y: Float(oy), coverage: Float(tile), distance: Float(margin)))
        v.append(MeshVertex(x: bits(UInt32(cols)), y: bits(UInt32(rows)), coverage: 0, distance: 0))
        let first = headerRecords + tileCount
        for r in 0 ..< rows {
            var winding: Int32 = 0
            for c in 0 ..< cols {
                winding += backdrop[r * (cols + 1) + c]
                let t = r * cols + c
                v.append(MeshVertex(x: bits(UInt32(bitPattern: winding)), y: bits(UInt32(first + counts[t])),
                                    coverage: bits(UInt32(counts[t + 1] - counts[t])), distance: 0))
            }
        }
        v.append(contentsOf: repeatElement(MeshVertex(x: 0, y: 0), count: recs.count))
        var slot = counts
        for (i, t) in tileOf.enumerated() {
            let e = recs[i]
            v[first + slot[Int(t)]] = MeshVertex(x: Float(e.x), y: Float(e.y), coverage: Float(e.z), distance: Float(e.w))
            slot[Int(t)] += 1
        }
        let bounds = Rect(Double(qx0), Double(qy0), Double(qx1 - qx0), Double(qy1 - qy0))
        var mesh = Mesh(vertices: v, indices: [0, 1, 2, 0, 2, 3], interiorIndexCount: 6, bounds: bounds, totalLength: totalLength)
        mesh.boundary.reserveCapacity(edges.count)
        for e in edges {
            // Loops run down with the region on their right; a horizontal piece with the region
            // below (+1) runs right to left, above (−1) left to right.
            let r = e.y0 < e.y1 ? record(e.x0, e.y0, e.x1, e.y1, e.sign)
                : (e.sign > 0 ? SIMD4(e.x1, e.y1, e.x0, e.y0) : SIMD4(e.x0, e.y0, e.x1, e.y1))
            mesh.boundary.append(SIMD4(Float(r.x), Float(r.y), Float(r.z), Float(r.w)))
        }
        return mesh
    }

    @inline(__always) private static func bits(_ u: UInt32) -> Float { Float(bitPattern: u) }

    /// An edge record: running down for +1, up for −1.
    @inline(__always) private static func record(_ xa: Double, _ ya: Double, _ xb: Double, _ yb: Double,
                                                 _ sign: Int32) -> SIMD4<Double> {
        sign > 0 ? SIMD4(xa, ya, xb, yb) : SIMD4(xb, yb, xa, ya)
    }
}

extension CoverageMesh {
    /// The fraction of the box of `width` × `height` centred at (`x`, `y`) (local units) that
    /// lies inside the region of a coverage `mesh`: the fragment shader's computation
    /// (`shaders/mesh.frag`) on the CPU, in Double, for tests and tools. The box is
    /// clamped to twice the mesh's margin, as in the shader.
    public static func coverage(of mesh: Mesh, x: Double, y: Double, width: Double, height: Double) -> Double {
        let v = mesh.vertices
        guard v.count > headerRecords else { return 0 }
        let ox = Double(v[4].x), oy = Double(v[4].y), tile = Double(v[4].coverage), margin = Double(v[4].distance)
        let cols = Int(v[5].x.bitPattern), rows = Int(v[5].y.bitPattern)
        let w = min(width, 2 * margin), h = min(height, 2 * margin)
        let tx = Int(((x - ox) / tile).rounded(.down)), ty = Int(((y - oy) / tile).rounded(.down))
        guard tx >= 0, ty >= 0, tx < cols, ty < rows else { return 0 }
        let t = v[headerRecords + ty * cols + tx]
        var acc = Double(Int32(bitPattern: t.x.bitPattern)) * w * h
        let first = Int(t.y.bitPattern), count = Int(t.coverage.bitPattern)
        let bx0 = x - w / 2, by0 = y - h / 2, by1 = y + h / 2
        for i in first ..< first + count {
            let e = v[i]
            acc += edgeArea(Double(e.x), Double(e.y), Double(e.coverage), Double(e.distance), bx0: bx0, by0: by0, by1: by1, w: w)
        }
        return max(0, min(1, acc / (w * h)))
    }

    /// Writes the coverage of `mesh` by square boxes of side `box` (local units) as bytes
    /// (coverage × 255, rounded): sample (i, j) of the `width` × `height` grid is the box
    /// centred at `origin` + (i, j) × `spacing`, stored at `out[j · rowStride + i · pixelStride]`.
    /// The same computation as `coverage(of:…)` and the shader, so a box of one device pixel
    /// centred on a pixel centre gets the shader's coverage of that pixel (the shape atlas).
    public static func rasterize(_ mesh: Mesh, origin: Point, spacing: Double, box: Double, width: Int, height: Int,
                                 into out: UnsafeMutablePointer<UInt8>, rowStride: Int, pixelStride: Int) {
        mesh.vertices.withUnsafeBufferPointer { v in
            guard v.count > headerRecords, width > 0, height > 0 else { return }
            let ox = Double(v[4].x), oy = Double(v[4].y), tile = Double(v[4].coverage), margin = Double(v[4].distance)
            let cols = Int(v[5].x.bitPattern), rows = Int(v[5].y.bitPattern)
            let w = min(box, 2 * margin)
            let area = w * w
            for j in 0..<height {
                let y = origin.y + Double(j) * spacing
                let ty = Int(((y - oy) / tile).rounded(.down))
                let row = out + j * rowStride
                guard ty >= 0, ty < rows else {
                    for i in 0..<width { row[i * pixelStride] = 0 }
                    continue
                }
                let by0 = y - w / 2, by1 = y + w / 2
                for i in 0..<width {
                    let x = origin.x + Double(i) * spacing
                    let tx = Int(((x - ox) / tile).rounded(.down))
                    guard tx >= 0, tx < cols else { row[i * pixelStride] = 0; continue }
                    let t = v[headerRecords + ty * cols + tx]
                    var acc = Double(Int32(bitPattern: t.x.bitPattern)) * area
                    let first = Int(t.y.bitPattern), count = Int(t.coverage.bitPattern)
                    let bx0 = x - w / 2
                    for k in first ..< first + count {
                        let e = v[k]
                        acc += edgeArea(Double(e.x), Double(e.y), Double(e.coverage), Double(e.distance),
                                        bx0: bx0, by0: by0, by1: by1, w: w)
                    }
                    row[i * pixelStride] = UInt8(max(0, min(1, acc / area)) * 255 + 0.5)
                }
            }
        }
    }

    /// ± ∫ (box right side − clamp(x(y), box)) dy over the edge's part within the box's rows.
    static func edgeArea(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                         bx0: Double, by0: Double, by1: Double, w: Double) -> Double {
        var (x0, y0, x1, y1, s) = (ax, ay, bx, by, 1.0)
        if y0 > y1 { (x0, y0, x1, y1, s) = (bx, by, ax, ay, -1) }
        let ya = max(y0, by0), yb = min(y1, by1)
        if yb <= ya { return 0 }
        let k = (x1 - x0) / (y1 - y0)
        let u0 = x0 + (ya - y0) * k - bx0, u1 = x0 + (yb - y0) * k - bx0
        func g(_ u: Double) -> Double { u <= 0 ? 0 : (u <= w ? 0.5 * u * u : w * (u - 0.5 * w)) }
        let du = u1 - u0
        let mean = abs(du) < 1e-3 * w ? max(0, min(w, 0.5 * (u0 + u1))) : (g(u1) - g(u0)) / du
        return s * (yb - ya) * (w - mean)
    }
}

extension FillTessellator {
    /// The mesh the renderer draws for a filled shape: one quad over its bounds and the
    /// tiled boundary of the filled region, from which each pixel's exact area coverage is
    /// computed (`CoverageMesh`).
    ///
    /// - Parameters:
    ///   - scale: device pixels per point on screen (the flattening tolerance, the tiles and
    ///     the margin depend on it; see `MeshCache.bucket`).
    ///   - tolerance: flattening tolerance in device pixels.
    ///   - window: when given, the visible part of the local plane (every visible pixel's
    ///     centre is in it): the mesh is exact there and holds nothing far outside it
    ///     (`VisibleWindow`); nil meshes the whole shape.
    public static func coverageMesh(_ path: Path, rule: FillRule, scale: Double = 1,
                                    tolerance: Double = CoverageMesh.tolerance, window: Rect? = nil) throws(TessellationError) -> Mesh {
        let s = scale.isFinite && scale > 0 ? scale : 1
        var flat = try Flattener.flatten(path, scale: s, tolerance: tolerance).map(\.points)
        if let window {
            let w = VisibleWindow.grown(window, by: VisibleWindow.margin / s)
            flat = flat.map { VisibleWindow.clip($0, to: w) }.filter { !$0.isEmpty }
        }
        let polys = CoverageMesh.snappingRows(flat)
        var runs: [BoundaryRun]? = []
        _ = try triangulate(polys, rule: rule, boundary: &runs, triangles: false)
        return CoverageMesh.mesh(CoverageMesh.edges(runs ?? [], polys, rule: rule), scale: s)
    }
}

extension StrokeTessellator {
    /// The coverage mesh of a stroke (see `FillTessellator.coverageMesh`): the boundary of the
    /// union of its pieces at their true width (a hairline, width 0, is one device pixel wide),
    /// trimmed and dashed on the CPU. `totalLength` is the untrimmed centerline length.
    /// `window` as for fills: only the pieces that can reach it are made (dashes found from
    /// the pattern's period, not walked to), each cut to it.
    public static func coverageMesh(_ path: Path, style: StrokeStyle, scale: Double = 1,
                                    tolerance: Double = CoverageMesh.tolerance, window: Rect? = nil) throws(TessellationError) -> Mesh {
        try coverageMesh(path, style: style, scale: scale, tolerance: tolerance, pieces: .outlines, window: window)
    }

    /// What the sweep unions: the runs' outlines (`StrokeBuilder.outline`, what draws), or
    /// the pieces' triangles merged into quads where they can be, or as they are (tests
    /// compare the three).
    enum Pieces { case outlines, quads, triangles }

    static func coverageMesh(_ path: Path, style: StrokeStyle, scale: Double, tolerance: Double,
                             pieces: Pieces, window: Rect? = nil) throws(TessellationError) -> Mesh {
        let s = scale.isFinite && scale > 0 ? scale : 1
        let w = window.map { VisibleWindow.grown($0, by: VisibleWindow.margin / s) }
        let b = try build(path, style: style, scale: s, tolerance: tolerance, trim: true, window: w,
                          outlining: pieces == .outlines)
        var polys: [[Point]] = pieces == .outlines ? b.outlines : []
        if pieces != .outlines { polys.reserveCapacity(b.interior.count / 3) }
        let t = b.interior
        var i = 0
        while i + 2 < t.count {
            let a = b.points[Int(t[i])], p = b.points[Int(t[i + 1])], c = b.points[Int(t[i + 2])]
            let cr = (p - a).cross(c - a)
            // The builder emits a segment's body and most pieces as two triangles (a, p, c),
            // (a, c, d) sharing the diagonal a–c: with the same orientation they lie on either
            // side of it and form one simple quad, whose winding is theirs summed — the union
            // is the same with a third fewer edges for the sweep.
            if pieces == .quads, i + 5 < t.count, t[i + 3] == t[i], t[i + 4] == t[i + 2] {
                let d = b.points[Int(t[i + 5])]
                let cr2 = (c - a).cross(d - a)
                if (cr > 0 && cr2 > 0) || (cr < 0 && cr2 < 0) {
                    polys.append(cr > 0 ? [a, p, c, d] : [a, d, c, p])
                    i += 6
                    continue
                }
            }
            if cr > 0 { polys.append([a, p, c]) } else if cr < 0 { polys.append([a, c, p]) }
            i += 3
        }
        if let w { polys = polys.map { VisibleWindow.clip($0, to: w) }.filter { !$0.isEmpty } }
        // Outlines apart (dashes, mostly) are unioned apart: one self-crossing dash no longer
        // sends every dash through the general sweep.
        var edges: [CoverageMesh.Edge] = []
        for group in pieces == .outlines ? CoverageMesh.clusters(polys) : [polys] {
            let snapped = CoverageMesh.snappingRows(group)
            var runs: [FillTessellator.BoundaryRun]? = []
            _ = try FillTessellator.triangulate(snapped, rule: .nonZero, boundary: &runs, triangles: false)
            edges += CoverageMesh.edges(runs ?? [], snapped, rule: .nonZero)
        }
        var mesh = CoverageMesh.mesh(edges, scale: s, totalLength: b.totalLength)
        mesh.coverageScale = b.coverageScale
        return mesh
    }
}

extension CoverageMesh {
    /// `polygons` in groups whose bounding boxes (closed) overlap no other group's: the
    /// regions of different groups are disjoint, so the boundary of their union is the groups'
    /// boundaries together, each found by its own sweep. Polygons whose boxes meet share a
    /// group (through others too); past `crowd` boxes open at once along x, a new one joins
    /// all of them (coarser groups, never a wrong one).
    static func clusters(_ polygons: [[Point]], crowd: Int = 64) -> [[[Point]]] {
        let n = polygons.count
        if n < 2 { return [polygons] }
        var boxes: [(x0: Double, y0: Double, x1: Double, y1: Double)] = []
        boxes.reserveCapacity(n)
        for poly in polygons {
            var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
            for q in poly { x0 = min(x0, q.x); x1 = max(x1, q.x); y0 = min(y0, q.y); y1 = max(y1, q.y) }
            boxes.append((x0, y0, x1, y1))
        }
        var parent = Array(0 ..< n)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        func join(_ a: Int, _ b: Int) { let ra = root(a), rb = root(b); if ra != rb { parent[max(ra, rb)] = min(ra, rb) } }
        let order = (0 ..< n).sorted { boxes[$0].x0 < boxes[$1].x0 }
        var open: [Int] = []
        for i in order {
            let b = boxes[i]
            open.removeAll { boxes[$0].x1 < b.x0 }
            if open.count > crowd {
                for j in open { join(i, j) }
            } else {
                for j in open where boxes[j].y0 <= b.y1 && b.y0 <= boxes[j].y1 { join(i, j) }
            }
            open.append(i)
        }
        var groupOf = [Int](repeating: -1, count: n)
        var groups: [[[Point]]] = []
        for i in 0 ..< n {
            let r = root(i)
            if groupOf[r] < 0 { groupOf[r] = groups.count; groups.append([]) }
            groups[groupOf[r]].append(polygons[i])
        }
        return groups
    }
}
