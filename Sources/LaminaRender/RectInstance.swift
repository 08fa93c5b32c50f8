import LaminaGeometry

/// Per-instance data of `shaders/rect.vert`: one per drawn `DrawItem`, uploaded each frame.
///
/// Mirrors the shader's vertex inputs: field `i` is the `vec4` at `location = i`, so the
/// offset of field `i` is `16 × i` (checked against the SPIR-V by RectInstanceLayoutTests).
/// Plain data: no Vulkan types.
struct RectInstance: Equatable {
    /// Coefficients of (x, y, 1) in local units giving clip-space x, y and w.
    var clipX: SIMD4<Float>
    var clipY: SIMD4<Float>
    var clipW: SIMD4<Float>
    /// Local rect: minX, minY, maxX, maxY.
    var bounds: SIMD4<Float>
    /// Local quad rasterized: `bounds` grown by about a pixel on each side for anti-aliasing.
    var quad: SIMD4<Float>
    /// Corner radii: minXMinY, maxXMinY, minXMaxY, maxXMaxY, clamped to half the smaller side.
    var radii: SIMD4<Float>
    /// Premultiplied fill color with opacity applied.
    var fillColor: SIMD4<Float>
    /// Premultiplied border color with opacity applied.
    var borderColor: SIMD4<Float>
    /// x: border width in local units; y, z, w: reserved (0).
    var params: SIMD4<Float>

    /// Every field with its shader location, in order (the vertex attribute table).
    static var fields: [(location: UInt32, keyPath: PartialKeyPath<RectInstance>)] { [
        (0, \.clipX), (1, \.clipY), (2, \.clipW), (3, \.bounds), (4, \.quad),
        (5, \.radii), (6, \.fillColor), (7, \.borderColor), (8, \.params),
    ] }

    /// Screen-space pixels the quad is grown by on each side. The coverage ramp reaches
    /// half a pixel outside an edge; one pixel leaves room for rounding.
    static let antialiasMargin = 1.0

    /// The instance for `item` on a `width`×`height` pixel target, or nil when the item
    /// draws nothing (empty, fully transparent, edge-on or entirely behind the eye).
    init?(_ item: DrawItem, width: Int, height: Int) {
        let b = item.bounds.standardized
        guard b.width > 0, b.height > 0, item.opacity > 0,
              b.origin.x.isFinite, b.origin.y.isFinite, b.width.isFinite, b.height.isFinite
        else { return nil }
        let borderWidth = item.borderWidth.isFinite ? max(item.borderWidth, 0) : 0
        let fill = mapPremultiplied(item.backgroundColor, opacity: item.opacity)
        let border = borderWidth > 0 ? mapPremultiplied(item.borderColor, opacity: item.opacity) : .zero
        guard fill.w > 0 || border.w > 0 else { return nil }

        let m = item.transform
        let w = Double(width), h = Double(height)
        // [x y 0 1] × M = (X, Y, ·, W); pixel = (X/W, Y/W); clip = (2X/w − W, 2Y/h − W, 0, W).
        clipX = SIMD4(Float(2 * m.m11 / w - m.m14), Float(2 * m.m21 / w - m.m24), Float(2 * m.m41 / w - m.m44), 0)
        clipY = SIMD4(Float(2 * m.m12 / h - m.m14), Float(2 * m.m22 / h - m.m24), Float(2 * m.m42 / h - m.m44), 0)
        clipW = SIMD4(Float(m.m14), Float(m.m24), Float(m.m44), 0)

        // Local units per pixel across each pair of edges, at the corners (the extremes, as
        // w is affine in x and y). Across the edges x = const the perpendicular pixel
        // distance of a local step dx is dx·|det J| / |J·ey|, and symmetrically for y.
        var marginX = 0.0, marginY = 0.0
        var visible = false
        for (x, y) in [(b.minX, b.minY), (b.maxX, b.minY), (b.minX, b.maxY), (b.maxX, b.maxY)] {
            let X = x * m.m11 + y * m.m21 + m.m41
            let Y = x * m.m12 + y * m.m22 + m.m42
            let W = x * m.m14 + y * m.m24 + m.m44
            guard W > 1e-9 else { continue }
            visible = true
            let ex = Point((m.m11 * W - X * m.m14) / (W * W), (m.m12 * W - Y * m.m14) / (W * W))
            let ey = Point((m.m21 * W - X * m.m24) / (W * W), (m.m22 * W - Y * m.m24) / (W * W))
            let det = abs(ex.cross(ey))
            guard det > 1e-12 else { continue }
            marginX = max(marginX, ey.length / det)
            marginY = max(marginY, ex.length / det)
        }
        guard visible, marginX > 0, marginY > 0 else { return nil }
        marginX *= Self.antialiasMargin
        marginY *= Self.antialiasMargin
        if m.m14 != 0 || m.m24 != 0 {
            // Near the horizon the margin explodes; there a margin the size of the rect is plenty.
            // (Affine margins are exact and stay uncapped, so sub-pixel rects still reach a
            // pixel center and draw faintly rather than vanish.)
            marginX = min(marginX, max(b.width, b.height))
            marginY = min(marginY, max(b.width, b.height))
        }

        bounds = SIMD4(Float(b.minX), Float(b.minY), Float(b.maxX), Float(b.maxY))
        quad = SIMD4(Float(b.minX - marginX), Float(b.minY - marginY), Float(b.maxX + marginX), Float(b.maxY + marginY))
        let maxRadius = min(b.width, b.height) / 2
        func clampRadius(_ r: Double) -> Float { r.isFinite ? Float(min(max(r, 0), maxRadius)) : 0 }
        let r = item.cornerRadii
        radii = SIMD4(clampRadius(r.minXMinY), clampRadius(r.maxXMinY), clampRadius(r.minXMaxY), clampRadius(r.maxXMaxY))
        fillColor = fill
        borderColor = border
        params = SIMD4(Float(borderWidth), 0, 0, 0)
    }
}
