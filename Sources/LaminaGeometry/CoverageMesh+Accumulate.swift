extension CoverageMesh {
    /// Writes the coverage of `mesh` by one-device-pixel boxes centred every half pixel, as
    /// bytes (coverage × 255, rounded) — what `rasterize(_:origin:spacing:box:…)` writes with
    /// `spacing` = ½ / `scale` and `box` = 1 / `scale`: sample (i, j) is the box centred at
    /// ((`x0` + i), (`y0` + j)) × ½ / `scale` local units, stored at
    /// `out[j · rowStride + i · pixelStride]`. The cells are the half-pixel squares whose
    /// corners are the sample points, so each box is four whole cells (`accumulate(_:a:b:c:d:tx:ty:…)`
    /// with `box` 2). False (nothing written) for a mesh without a boundary (made by hand).
    @discardableResult
    public static func accumulate(_ mesh: Mesh, scale: Double, x0: Int, y0: Int, width: Int, height: Int,
                                  into out: UnsafeMutablePointer<UInt8>, rowStride: Int, pixelStride: Int) -> Bool {
        guard scale > 0 else { return false }
        return accumulate(mesh, a: 2 * scale, b: 0, c: 0, d: 2 * scale, tx: Double(1 - x0), ty: Double(1 - y0), box: 2,
                          width: width, height: height, into: out, rowStride: rowStride, pixelStride: pixelStride)
    }

    /// Writes the coverage of `mesh`'s region mapped by the affine map x' = a·x + c·y + tx,
    /// y' = b·x + d·y + ty into a plane of unit cells, as bytes (coverage × 255, rounded):
    /// sample (i, j) is the mean coverage of the `box` × `box` cells from cell (i, j), stored at
    /// `out[j · rowStride + i · pixelStride]`. With the layer's transform to device pixels
    /// (less the grid's origin) and `box` 1, each sample is the exact area of its device pixel
    /// inside the shape, whatever the map (rotation, skew, unequal scales).
    ///
    /// The region's boundary (`Mesh.boundary`: winding 1 inside) is accumulated as font
    /// rasterizers do: each edge's signed trapezoid per cell it crosses, its part right of the
    /// edge to that cell and the rest to the next, so that each row's running sum is the
    /// cells' covered area — exact, and a few nanoseconds a cell. False (nothing written) for
    /// a mesh without a boundary, a singular map or an empty grid.
    @discardableResult
    public static func accumulate(_ mesh: Mesh, a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double,
                                  box: Int, width: Int, height: Int,
                                  into out: UnsafeMutablePointer<UInt8>, rowStride: Int, pixelStride: Int) -> Bool {
        let det = a * d - b * c
        guard !mesh.boundary.isEmpty, width > 0, height > 0, box >= 1, det != 0, det.isFinite else { return false }
        // A mirroring map turns the boundary's orientation: the region lies left of the edges running down.
        let orientation = det > 0 ? 1.0 : -1.0
        let columns = width + box - 1, rows = height + box - 1
        let stride = columns + 1   // one more: an edge in the last column spills into it
        var cells = [Double](repeating: 0, count: stride * rows)
        cells.withUnsafeMutableBufferPointer { cellBuffer in
            let acc = cellBuffer.baseAddress!
            for e in mesh.boundary {
                let x0 = Double(e.x), y0 = Double(e.y), x1 = Double(e.z), y1 = Double(e.w)
                addEdge(a * x0 + c * y0 + tx, b * x0 + d * y0 + ty, a * x1 + c * y1 + tx, b * x1 + d * y1 + ty,
                        orientation: orientation, columns: columns, rows: rows, stride: stride, into: acc)
            }
            // Each row's running sum is its cells' covered area: one cell a sample, written as
            // it is summed (the same sums in the same order, so the same bytes as summing first).
            if box == 1 {
                for j in 0 ..< height {
                    let row = acc + j * stride, line = out + j * rowStride
                    var sum = 0.0
                    for i in 0 ..< width {
                        sum += row[i]
                        line[i * pixelStride] = UInt8(max(0, min(1, sum)) * 255 + 0.5)
                    }
                }
                return
            }
            for r in 0 ..< rows {
                let row = acc + r * stride
                var sum = 0.0
                for k in 0 ..< columns { sum += row[k]; row[k] = sum }
            }
            let scale = 1 / Double(box * box)
            for j in 0 ..< height {
                let line = out + j * rowStride
                for i in 0 ..< width {
                    var sum = 0.0
                    for r in j ..< j + box {
                        let row = acc + r * stride
                        for k in i ..< i + box { sum += row[k] }
                    }
                    line[i * pixelStride] = UInt8(max(0, min(1, sum * scale)) * 255 + 0.5)
                }
            }
        }
        return true
    }

    /// Adds the edge from (ua, va) to (ub, vb) (cell units; running down counts +1): in each
    /// cell row it crosses, its part's signed height, split at the cells' sides, goes to the
    /// cell it lies in as the fraction of the cell right of it and to the next cell as the rest
    /// (so a row's running sum counts it whole from there on). Parts left of the grid count in
    /// its first column whole; parts right of it cover no cell.
    private static func addEdge(_ ua: Double, _ va: Double, _ ub: Double, _ vb: Double, orientation: Double,
                                columns: Int, rows: Int, stride: Int, into acc: UnsafeMutablePointer<Double>) {
        guard va != vb else { return }
        let sign = va < vb ? orientation : -orientation
        let (xt, yt, xb, yb) = va < vb ? (ua, va, ub, vb) : (ub, vb, ua, va)
        let top = max(yt, 0), bottom = min(yb, Double(rows))
        guard top < bottom else { return }
        let dxdy = (xb - xt) / (yb - yt)
        let width = Double(columns)
        var r = Int(top.rounded(.down))
        while r < rows, Double(r) < bottom {
            let ya = max(top, Double(r)), yb = min(bottom, Double(r + 1))
            if yb > ya {
                let xa = xt + (ya - yt) * dxdy, xz = xt + (yb - yt) * dxdy
                addPiece(xa, ya, xz, yb, sign: sign, width: width, row: acc + r * stride)
            }
            r += 1
        }
    }

    /// One row's part of an edge, from (xa, ya) to (xb, yb) with ya < yb, split at the cells'
    /// sides (and the grid's).
    @inline(__always)
    private static func addPiece(_ xa: Double, _ ya: Double, _ xb: Double, _ yb: Double, sign: Double, width: Double,
                                 row: UnsafeMutablePointer<Double>) {
        let lo = min(xa, xb), hi = max(xa, xb)
        if hi <= 0 { row[0] += sign * (yb - ya); return }   // left of the grid: every cell right of it
        if lo >= width { return }
        let k0 = Int(lo.rounded(.down)), k1 = Int(hi.rounded(.down))
        if k0 == k1 || xa == xb {
            cell(k0, (xa + xb) / 2, sign * (yb - ya), row)
            return
        }
        // Walk the cells from xa's to xb's, cutting at each side x = k between them.
        let dydx = (yb - ya) / (xb - xa)
        let step = xb > xa ? 1 : -1
        var x = xa, y = ya
        var k = Int(xa.rounded(.down))
        if step < 0 && Double(k) == xa { k -= 1 }   // leaving leftwards from a side: the cell to its left
        while true {
            if k >= Int(width) { return }                    // the rest lies right of the grid
            if k < 0 && step < 0 { row[0] += sign * (yb - y); return }   // the rest left of it
            let side = step > 0 ? Double(k + 1) : Double(k)
            let done = step > 0 ? xb <= side : xb >= side
            let nx = done ? xb : side, ny = done ? yb : ya + (side - xa) * dydx
            let h = ny - y
            if h != 0 {
                cell(k, (x + nx) / 2, sign * h, row)
            }
            if done { return }
            x = nx; y = ny; k += step
        }
    }

    /// A piece of signed height `h` in cell column `k` at mean x `mid`: the cell gets the part
    /// right of it, the next cell the rest. Columns past the grid get nothing; before it, all
    /// in the first.
    @inline(__always)
    private static func cell(_ k: Int, _ mid: Double, _ h: Double, _ row: UnsafeMutablePointer<Double>) {
        if k < 0 { row[0] += h; return }
        let f = mid - Double(k)
        row[k] += h * (1 - f)
        row[k + 1] += h * f
    }
}
