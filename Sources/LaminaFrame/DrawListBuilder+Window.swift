import Foundation
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

    /// `LAMINA_CLIP_WINDOWS=0`: windows bounded by the target alone, not by the clips (to
    /// compare in one binary).
    static let windowsToClips = ProcessInfo.processInfo.environment["LAMINA_CLIP_WINDOWS"] != "0"

    /// Device pixels a clip's box is grown by: its anti-aliased edge covers pixels whose
    /// centre lies outside its rect, by less than one.
    static let clipAreaMargin = 2.0

    /// The device box, grown by `clipAreaMargin`, outside which clip `index` and its parents
    /// cover nothing (each clip's rect mapped by its transform; one partly behind the eye
    /// bounds nothing), or nil when none bounds it. Items drawn through the clip show nothing
    /// outside it, so a shape's window need reach no further (`visibleRegion`'s `area`).
    func clipArea(_ index: Int) -> Rect? {
        guard Self.windowsToClips else { return nil }
        var box: Rect? = nil
        var i = index, steps = 0
        while i >= 0, steps < 64, let c = clip(at: i) {
            steps += 1
            let r = c.rect.standardized, t = c.transform
            var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
            var bounded = r.width >= 0 && r.height >= 0
            for p in [Point(r.minX, r.minY), Point(r.maxX, r.minY), Point(r.maxX, r.maxY), Point(r.minX, r.maxY)] where bounded {
                let w = p.x * t.m14 + p.y * t.m24 + t.m44
                let x = (p.x * t.m11 + p.y * t.m21 + t.m41) / w, y = (p.x * t.m12 + p.y * t.m22 + t.m42) / w
                guard w > 0, x.isFinite, y.isFinite else { bounded = false; break }
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
            if bounded {
                let g = Self.clipAreaMargin
                let b = Rect(minX - g, minY - g, maxX - minX + 2 * g, maxY - minY + 2 * g)
                if let old = box {
                    // Disjoint: the clip covers nothing; a degenerate box still bounds it.
                    box = old.intersection(b) ?? Rect(b.minX, b.minY, 0, 0)
                } else { box = b }
            }
            guard c.parent < i else { break }
            i = c.parent
        }
        return box
    }

    /// What a shape layer's plane shows of itself in the target.
    enum Visible: Equatable {
        /// Mesh the whole shape.
        case whole
        /// Mesh only the part in this window (local units).
        case window(Rect)
        /// Nothing in front of the eye lands in the target.
        case nothing

        var window: Rect? { if case .window(let r) = self { r } else { nil } }
    }

    /// Device pixels next to the plane's horizon left out of a window (the plane's far part
    /// squeezed there is unbounded): a pixel loses at most √2 × this of its area.
    static let horizonGap = 1.0 / 512

    /// The part of the layer's plane that can be seen, in local units: the target (grown by
    /// `grow` device pixels) mapped back through `toPixels` — where the plane's horizon crosses
    /// it, the part in front of the eye at least `horizonGap` from the horizon — grown by half
    /// its size and snapped outward to a grid of its size (a power of two), so that a shape
    /// moving a little keeps its window and its mesh. `.whole` — the whole shape is meshed, as
    /// always — when the shape (`bounds` grown by `reach`) lies within four window sizes of it
    /// anyway, or the map is not invertible in Double; `.nothing` when the shape lies wholly
    /// outside it or the plane wholly behind the eye.
    ///
    /// `area` (device pixels), when given, bounds the target further: the device box of the
    /// clips the shape is drawn through (`clipArea`), outside which none of its pixels shows.
    static func visibleRegion(_ bounds: Rect, reach: Double, toPixels m: Transform3D, width: Double, height: Double,
                              grow: Double, footprint: Double = .infinity, area: Rect? = nil) -> Visible {
        guard width > 0, height > 0 else { return .whole }
        // Where no window bounds it, "nothing" only for a shape far larger than the target (as
        // for a window; smaller ones are drawn as always, and the GPU clips them).
        let r0 = reach.isFinite ? max(0, reach) : .infinity
        let extent = (max(bounds.width, bounds.height) + 2 * r0) * 4 / max(footprint, .leastNormalMagnitude)
        let nothing: Visible = extent > 16 * max(width, height) ? .nothing : .whole
        // Local (x, y, 1) → device (X, Y, W) is the 3×3 of rows 1, 2, 4 and columns 1, 2, 4,
        // divided by its largest entry (the same projective map; no overflow).
        let largest = max(abs(m.m11), abs(m.m12), abs(m.m14), abs(m.m21), abs(m.m22), abs(m.m24),
                          abs(m.m41), abs(m.m42), abs(m.m44))
        guard largest > 0, largest.isFinite else { return .whole }
        let a = m.m11 / largest, b = m.m12 / largest, c = m.m14 / largest, d = m.m21 / largest, e = m.m22 / largest
        let f = m.m24 / largest, g = m.m41 / largest, h = m.m42 / largest, k = m.m44 / largest
        let det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
        guard det.isFinite else { return .whole }
        if det == 0 { return nothing }   // seen edge-on: the plane projects to a line
        // The inverse (adjugate / det), applied to a device point as a row vector: (x, y, w)
        // with w of the sign of W (1/W up to the positive factor `largest`).
        let i11 = (e * k - f * h) / det, i12 = (c * h - b * k) / det, i13 = (b * f - c * e) / det
        let i21 = (f * g - d * k) / det, i22 = (a * k - c * g) / det, i23 = (c * d - a * f) / det
        let i31 = (d * h - e * g) / det, i32 = (b * g - a * h) / det, i33 = (a * e - b * d) / det
        func wOf(_ p: Point) -> Double { p.x * i13 + p.y * i23 + i33 }
        var (x0t, y0t, x1t, y1t) = (-grow, -grow, width + grow, height + grow)
        if let a = area, a.minX < a.maxX, a.minY < a.maxY, a.minX.isFinite, a.maxX.isFinite, a.minY.isFinite, a.maxY.isFinite,
           max(x0t, a.minX) < min(x1t, a.maxX), max(y0t, a.minY) < min(y1t, a.maxY) {
            (x0t, y0t, x1t, y1t) = (max(x0t, a.minX), max(y0t, a.minY), min(x1t, a.maxX), min(y1t, a.maxY))
        }
        let corners = (Point(x0t, y0t), Point(x1t, y0t), Point(x1t, y1t), Point(x0t, y1t))
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var bounded = true
        func add(_ p: Point) {
            let x = p.x * i11 + p.y * i21 + i31, y = p.x * i12 + p.y * i22 + i32, w = wOf(p)
            guard w > 0, w.isFinite else { bounded = false; return }
            minX = min(minX, x / w); maxX = max(maxX, x / w); minY = min(minY, y / w); maxY = max(maxY, y / w)
        }
        if wOf(corners.0) > 0 && wOf(corners.1) > 0 && wOf(corners.2) > 0 && wOf(corners.3) > 0 {
            add(corners.0); add(corners.1); add(corners.2); add(corners.3)
        } else {
            let target = [corners.0, corners.1, corners.2, corners.3]
            // The horizon (w = 0) crosses the target: keep the part with w ≥ the value at
            // `horizonGap` pixels from it (w is linear; its gradient's length converts).
            let wMin = horizonGap * (i13 * i13 + i23 * i23).squareRoot()
            guard wMin.isFinite else { return .whole }
            if wMin == 0 { return nothing }   // W constant, and not positive: all behind the eye
            var kept: [Point] = []
            for (n, p) in target.enumerated() {
                let o = target[(n + 1) % target.count]
                let wp = wOf(p) - wMin, wo = wOf(o) - wMin
                if wp >= 0 { kept.append(p) }
                if (wp >= 0) != (wo >= 0) { kept.append(p.lerp(to: o, wp / (wp - wo))) }
            }
            if kept.count < 3 { return nothing }
            for p in kept { add(p) }
        }
        guard bounded, minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return .whole }
        // At coordinates far beyond the window's size (a layer 1e30 points away), its extent
        // can be below the coordinates' resolution: a few ulps then.
        let ulps = 8 * max(abs(minX), abs(maxX), abs(minY), abs(maxY)).ulp
        let size = max(maxX - minX, maxY - minY, ulps)
        guard size > 0, size.isFinite else { return .whole }
        let grid = exp2((log2(size)).rounded(.up))
        guard grid.isFinite, grid > 0 else { return .whole }
        var x0 = ((minX - grid / 2) / grid).rounded(.down) * grid, y0 = ((minY - grid / 2) / grid).rounded(.down) * grid
        var x1 = ((maxX + grid / 2) / grid).rounded(.up) * grid, y1 = ((maxY + grid / 2) / grid).rounded(.up) * grid
        if !(x1 > x0 && y1 > y0) {
            let pad = max(grid / 2, ulps)
            (x0, y0, x1, y1) = (minX - pad, minY - pad, maxX + pad, maxY + pad)
        }
        guard x1 > x0, y1 > y0, (x1 - x0).isFinite, (y1 - y0).isFinite else { return .whole }
        let r = r0
        // Wholly outside the target mapped back, grown by a footprint (at most `footprint`
        // local units across a visible pixel's centre): nothing to draw
        // (for a huge shape).
        let fp = footprint.isFinite ? max(0, footprint) : .infinity
        if bounds.maxX + r < minX - fp || bounds.minX - r > maxX + fp || bounds.maxY + r < minY - fp || bounds.minY - r > maxY + fp {
            return nothing
        }
        let slack = 4 * grid
        if bounds.minX - r >= x0 - slack, bounds.maxX + r <= x1 + slack,
           bounds.minY - r >= y0 - slack, bounds.maxY + r <= y1 + slack { return .whole }
        return .window(Rect(x0, y0, x1 - x0, y1 - y0))
    }
}

