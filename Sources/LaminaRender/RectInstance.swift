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
    /// x: border width in local units; y: kind (`Kind`); z: shadow sigma (local units);
    /// w: innermost clip + 1 (an index into the frame's `ClipRecord` buffer; 0 = no clip).
    var params: SIMD4<Float>
    /// Gradient geometry in local units: start.xy, end.xy.
    var gradientPoints: SIMD4<Float> = .zero
    /// Gradients: x = number of stops in this instance (1…4), t range drawn [z, w).
    /// Meshes: trim start and end along the path (x, y), z = 1 when trimming.
    var gradientRange: SIMD4<Float> = .zero
    /// Gradients: the locations of up to four stops; their colors are `fillColor`,
    /// `borderColor`, `gradientColor2`, `gradientColor3` (straight, opacity in alpha).
    var gradientLocations: SIMD4<Float> = .zero
    var gradientColor2: SIMD4<Float> = .zero
    var gradientColor3: SIMD4<Float> = .zero

    /// `params.y`: what the fragment shader draws.
    enum Kind: Float {
        case rect = 0, shadow = 1, axial = 2, radial = 3, conic = 4, mesh = 5
    }

    /// Every field with its shader location, in order (the vertex attribute table).
    static var fields: [(location: UInt32, keyPath: PartialKeyPath<RectInstance>)] { [
        (0, \.clipX), (1, \.clipY), (2, \.clipW), (3, \.bounds), (4, \.quad),
        (5, \.radii), (6, \.fillColor), (7, \.borderColor), (8, \.params),
        (9, \.gradientPoints), (10, \.gradientRange),
        (11, \.gradientLocations), (12, \.gradientColor2), (13, \.gradientColor3),
    ] }

    /// Screen-space pixels the quad is grown by on each side. The coverage ramp reaches
    /// half a pixel outside an edge; one pixel leaves room for rounding.
    static let antialiasMargin = 1.0

    /// The instance for a `.rect` `item` on a `width`×`height` pixel target, or nil when the
    /// item draws nothing (empty, fully transparent, edge-on or entirely behind the eye).
    /// Other kinds go through `append(_:clips:width:height:to:)`.
    init?(_ item: DrawItem, width: Int, height: Int) {
        let b = item.bounds.standardized
        guard b.width > 0, b.height > 0, item.opacity > 0,
              b.origin.x.isFinite, b.origin.y.isFinite, b.width.isFinite, b.height.isFinite
        else { return nil }
        let borderWidth = item.borderWidth.isFinite ? max(item.borderWidth, 0) : 0
        let fill = mapPremultiplied(item.backgroundColor, opacity: item.opacity)
        let border = borderWidth > 0 ? mapPremultiplied(item.borderColor, opacity: item.opacity) : .zero
        guard fill.w > 0 || border.w > 0 else { return nil }
        // Fails (returns nil) when the geometry draws nothing.
        self.init(transform: item.transform, bounds: b, cover: b, width: width, height: height)
        radii = Self.clampedRadii(item.cornerRadii, b)
        fillColor = fill
        borderColor = border
        params = SIMD4(Float(borderWidth), Kind.rect.rawValue, 0, 0)
    }

    /// The geometry part of an instance: `bounds` drawn through `transform`, rasterizing
    /// `cover` grown by about a pixel. Colors and kind are left for the caller.
    private init?(transform m: Transform3D, bounds b: Rect, cover c: Rect, width: Int, height: Int) {
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
        func corner(_ x: Double, _ y: Double) {
            let X = x * m.m11 + y * m.m21 + m.m41
            let Y = x * m.m12 + y * m.m22 + m.m42
            let W = x * m.m14 + y * m.m24 + m.m44
            guard W > 1e-9 else { return }
            visible = true
            let ex = Point((m.m11 * W - X * m.m14) / (W * W), (m.m12 * W - Y * m.m14) / (W * W))
            let ey = Point((m.m21 * W - X * m.m24) / (W * W), (m.m22 * W - Y * m.m24) / (W * W))
            let det = abs(ex.cross(ey))
            guard det > 1e-12 else { return }
            marginX = max(marginX, ey.length / det)
            marginY = max(marginY, ex.length / det)
        }
        if m.m14 == 0 && m.m24 == 0 {
            corner(c.minX, c.minY)  // affine: the same everywhere
        } else {
            corner(c.minX, c.minY); corner(c.maxX, c.minY); corner(c.minX, c.maxY); corner(c.maxX, c.maxY)
        }
        guard visible, marginX > 0, marginY > 0 else { return nil }
        marginX *= Self.antialiasMargin
        marginY *= Self.antialiasMargin
        if m.m14 != 0 || m.m24 != 0 {
            // Near the horizon the margin explodes; there a margin the size of the rect is plenty.
            // (Affine margins are exact and stay uncapped, so sub-pixel rects still reach a
            // pixel center and draw faintly rather than vanish.)
            marginX = min(marginX, max(c.width, c.height))
            marginY = min(marginY, max(c.width, c.height))
        }
        bounds = SIMD4(Float(b.minX), Float(b.minY), Float(b.maxX), Float(b.maxY))
        quad = SIMD4(Float(c.minX - marginX), Float(c.minY - marginY), Float(c.maxX + marginX), Float(c.maxY + marginY))
        radii = .zero
        fillColor = .zero
        borderColor = .zero
        params = .zero
    }

    /// Radii clamped to half the smaller side of `b`.
    static func clampedRadii(_ r: CornerRadii, _ b: Rect) -> SIMD4<Float> {
        let maxRadius = min(b.width, b.height) / 2
        func clampRadius(_ r: Double) -> Float { r.isFinite ? Float(min(max(r, 0), maxRadius)) : 0 }
        return SIMD4(clampRadius(r.minXMinY), clampRadius(r.maxXMinY), clampRadius(r.minXMaxY), clampRadius(r.maxXMaxY))
    }

    /// Points the instance at its innermost clip, `clips[index]` (none when out of range);
    /// the shader walks the parents from there (`ClipRecord.parent`).
    mutating func setClips(_ index: Int, _ clips: [Clip]) {
        params.w = index >= 0 && index < clips.count ? Float(index + 1) : 0
    }

    /// Appends the instances that draw `item` (none when it draws nothing; one per gradient
    /// segment for gradients) and returns how many.
    static func append(_ item: DrawItem, clips: [Clip], width: Int, height: Int,
                       to out: inout [RectInstance]) -> Int {
        guard item.opacity > 0 else { return 0 }
        switch item.kind {
        case .rect:
            guard var instance = RectInstance(item, width: width, height: height) else { return 0 }
            instance.setClips(item.clip, clips)
            out.append(instance)
            return 1
        case .shadow(let sigmaValue):
            let b = item.bounds.standardized
            let sigma = sigmaValue.isFinite ? max(sigmaValue, 0) : 0
            let color = mapPremultiplied(item.backgroundColor, opacity: item.opacity)
            guard b.width > 0, b.height > 0, color.w > 0 else { return 0 }
            let cover = Rect(b.minX - 3 * sigma, b.minY - 3 * sigma, b.width + 6 * sigma, b.height + 6 * sigma)
            guard var instance = RectInstance(transform: item.transform, bounds: b, cover: cover,
                                              width: width, height: height) else { return 0 }
            instance.radii = clampedRadii(item.cornerRadii, b)
            instance.fillColor = color
            instance.params = SIMD4(0, Kind.shadow.rawValue, Float(sigma), 0)
            instance.setClips(item.clip, clips)
            out.append(instance)
            return 1
        case .gradient(let gradient):
            let b = item.bounds.standardized
            guard b.width > 0, b.height > 0, !gradient.colors.isEmpty,
                  var base = RectInstance(transform: item.transform, bounds: b, cover: b, width: width, height: height)
            else { return 0 }
            base.radii = clampedRadii(item.cornerRadii, b)
            let kind: Kind = switch gradient.type { case .axial: .axial; case .radial: .radial; case .conic: .conic }
            base.params = SIMD4(0, kind.rawValue, 0, 0)
            base.gradientPoints = SIMD4(Float(gradient.start.x), Float(gradient.start.y),
                                        Float(gradient.end.x), Float(gradient.end.y))
            base.setClips(item.clip, clips)
            let colors = gradient.colors
            let n = colors.count
            var locations = [Double](repeating: 0, count: n)
            for i in 0..<n {
                if let l = gradient.locations, l.count == n {
                    locations[i] = l[i].isFinite ? min(max(l[i], 0), 1) : 0
                } else {
                    locations[i] = n == 1 ? 0 : Double(i) / Double(n - 1)
                }
                if i > 0 { locations[i] = max(locations[i], locations[i - 1]) }
            }
            let far: Float = 1e9
            func straight(_ c: Color) -> SIMD4<Float> {
                SIMD4(Float(c.red), Float(c.green), Float(c.blue), Float(c.alpha * item.opacity))
            }
            // Up to four stops per instance; longer lists are chunks that share their end stops,
            // each drawing its own t range (the first and last extended to ±∞).
            var count = 0
            var first = 0
            repeat {
                let last = min(first + 3, n - 1)
                var instance = base
                var stopLocations = SIMD4<Float>(repeating: Float(locations[last]))
                var stopColors = [SIMD4<Float>](repeating: straight(colors[last]), count: 4)
                for (slot, stop) in (first...last).enumerated() {
                    stopLocations[slot] = Float(locations[stop])
                    stopColors[slot] = straight(colors[stop])
                }
                instance.fillColor = stopColors[0]
                instance.borderColor = stopColors[1]
                instance.gradientColor2 = stopColors[2]
                instance.gradientColor3 = stopColors[3]
                instance.gradientLocations = stopLocations
                let from: Float = first == 0 ? -far : Float(locations[first])
                let to: Float = last == n - 1 ? far : Float(locations[last])
                instance.gradientRange = SIMD4(Float(last - first + 1), 0, from, to)
                if to > from {
                    out.append(instance)
                    count += 1
                }
                first = last
            } while first < n - 1
            return count
        case .group, .shadowGroup:
            return 0  // the renderer handles groups
        case .mesh(let draw):
            let mb = draw.mesh.bounds.standardized
            let color = mapPremultiplied(draw.color, opacity: item.opacity)
            guard !draw.mesh.isEmpty, color.w > 0,
                  var instance = RectInstance(transform: item.transform, bounds: mb, cover: mb, width: width, height: height)
            else { return 0 }
            instance.fillColor = color
            instance.params = SIMD4(0, Kind.mesh.rawValue, 0, 0)
            let total = Float(draw.mesh.totalLength)
            instance.gradientRange = SIMD4(Float(draw.trimStart) * total, Float(draw.trimEnd) * total,
                                           draw.trimStart > 0 || draw.trimEnd < 1 ? 1 : 0, 0)
            instance.setClips(item.clip, clips)
            out.append(instance)
            return 1
        }
    }
}
