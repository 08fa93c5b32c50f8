import Glibc
import LaminaGeometry

/// The visible window of a shape (LaminaGeometry's `VisibleWindow`): a shape far larger than
/// the target is meshed only where it can be seen, so that no client's scene can make a frame
/// tessellate without bound (1e15-point paths, 1e30-wide lines, 1e27 dashes).
extension DrawListBuilder {
    /// How far a stroke's pieces reach from its centerline: half the width, times √2 (square
    /// caps' corners) or the miter limit (miter joins), whichever is more.
    static func strokeReach(_ s: StrokeStyle) -> Double {
        let h = s.lineWidth.isFinite ? max(0, s.lineWidth) / 2 : 0
        let miter = s.lineJoin == .miter ? (s.miterLimit.isFinite ? max(1, s.miterLimit) : .infinity) : 1
        return h * max(2.0.squareRoot(), miter)
    }

    /// Whether the layer's plane projects to a line or a point (the 3×3 of `toPixels` that maps
    /// it is singular): nothing it draws covers a pixel.
    static func projectsToLine(_ m: Transform3D) -> Bool {
        let det = m.m11 * (m.m22 * m.m44 - m.m24 * m.m42) - m.m12 * (m.m21 * m.m44 - m.m24 * m.m41)
            + m.m14 * (m.m21 * m.m42 - m.m22 * m.m41)
        return det == 0
    }

    /// The part of the layer's plane that can be seen, in local units: the target (grown by
    /// `grow` device pixels) mapped back through `toPixels`, bounded, grown by half its size and
    /// snapped outward to a grid of its size (a power of two), so that a shape moving a little
    /// keeps its window and its mesh. Nil — the whole shape is meshed, as always — when the
    /// shape (`bounds` grown by `reach`) lies within four window sizes of it anyway, or when
    /// the target does not map back to a bounded region (the plane's horizon crosses it).
    static func visibleWindow(_ bounds: Rect, reach: Double, toPixels m: Transform3D, width: Double, height: Double,
                              grow: Double) -> Rect? {
        guard width > 0, height > 0 else { return nil }
        // Local (x, y, 1) → device (X, Y, W) is the 3×3 of rows 1, 2, 4 and columns 1, 2, 4.
        let a = m.m11, b = m.m12, c = m.m14, d = m.m21, e = m.m22, f = m.m24, g = m.m41, h = m.m42, k = m.m44
        let det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
        guard det.isFinite, det != 0 else { return nil }
        // The inverse (adjugate / det), applied to a device corner as a row vector.
        let i11 = (e * k - f * h) / det, i12 = (c * h - b * k) / det, i13 = (b * f - c * e) / det
        let i21 = (f * g - d * k) / det, i22 = (a * k - c * g) / det, i23 = (c * d - a * f) / det
        let i31 = (d * h - e * g) / det, i32 = (b * g - a * h) / det, i33 = (a * e - b * d) / det
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (X, Y) in [(-grow, -grow), (width + grow, -grow), (width + grow, height + grow), (-grow, height + grow)] {
            let x = X * i11 + Y * i21 + i31, y = X * i12 + Y * i22 + i32, w = X * i13 + Y * i23 + i33
            // w = 1/W: in front of the eye (W > 0) at every corner, or the region is unbounded.
            guard w > 0, w.isFinite else { return nil }
            minX = min(minX, x / w); maxX = max(maxX, x / w); minY = min(minY, y / w); maxY = max(maxY, y / w)
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return nil }
        // At coordinates far beyond the window's size (a layer 1e30 points away), its extent
        // can be below the coordinates' resolution: a few ulps then.
        let ulps = 8 * max(abs(minX), abs(maxX), abs(minY), abs(maxY)).ulp
        let size = max(maxX - minX, maxY - minY, ulps)
        guard size > 0, size.isFinite else { return nil }
        let grid = exp2((log2(size)).rounded(.up))
        guard grid.isFinite, grid > 0 else { return nil }
        var x0 = ((minX - grid / 2) / grid).rounded(.down) * grid, y0 = ((minY - grid / 2) / grid).rounded(.down) * grid
        var x1 = ((maxX + grid / 2) / grid).rounded(.up) * grid, y1 = ((maxY + grid / 2) / grid).rounded(.up) * grid
        if !(x1 > x0 && y1 > y0) {
            let pad = max(grid / 2, ulps)
            (x0, y0, x1, y1) = (minX - pad, minY - pad, maxX + pad, maxY + pad)
        }
        guard x1 > x0, y1 > y0, (x1 - x0).isFinite, (y1 - y0).isFinite else { return nil }
        let r = reach.isFinite ? max(0, reach) : .infinity
        let slack = 4 * grid
        if bounds.minX - r >= x0 - slack, bounds.maxX + r <= x1 + slack,
           bounds.minY - r >= y0 - slack, bounds.maxY + r <= y1 + slack { return nil }
        return Rect(x0, y0, x1 - x0, y1 - y0)
    }
}

