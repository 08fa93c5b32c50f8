import LaminaGeometry

/// Per-instance data of `shaders/rect.vert`: one per drawn `DrawItem`, uploaded each frame.
///
/// Mirrors the shader's vertex inputs: each field is the `vec4` at the `location` `fields`
/// gives it (checked against the SPIR-V by RectInstanceLayoutTests). Plain data: no Vulkan
/// types.
///
/// **Strides.** The frame's instance ring stores each instance as the prefix of this struct
/// that its kind's vertex shaders read (`stride(_:)`): the fields are ordered so that those of
/// the commonest kinds come first — a sharp rect or a mesh 96 bytes (motion, bounds, color,
/// params), a plain rect 128 (and radii, border color), a shadow 144 (and cover), an image or
/// shape piece 176 (and the piece's rect and source), a gradient all 224. Every field has the
/// same offset whatever the stride, so one attribute table serves every pipeline; each
/// pipeline's binding takes its kind's stride (`Span.packed`).
///
/// Two parts. The **motion** part (the first 48 bytes: `clipX`, `clipY`, `clipW`) is all that
/// depends on the item's transform and opacity: the clip-space coefficients, the quad's
/// anti-aliasing margins and the opacity in their `w` lanes (`setMotion`). The **content** part
/// (the rest) depends on neither: colors without opacity (the vertex shader applies it), the
/// cover rect ungrown (the vertex shader grows it by the margins), so an item that only moved
/// or faded gets only its motion part written again (`writeMotion`), provided it stays affine.
package struct RectInstance: Equatable {
    /// Coefficients of (x, y, 1) in local units giving clip-space x, y and w (`xyz`); `w`
    /// lanes: the quad's anti-aliasing margins in local units across the edges x = const
    /// (`clipX.w`) and y = const (`clipY.w`), and the opacity in 0…1 (`clipW.w`).
    package var clipX: SIMD4<Float>
    package var clipY: SIMD4<Float>
    package var clipW: SIMD4<Float>
    /// Local rect: minX, minY, maxX, maxY.
    package var bounds: SIMD4<Float>
    /// Premultiplied fill color, without the opacity.
    package var fillColor: SIMD4<Float>
    /// x: border width in local units; y: kind (`Kind`); z: shadow sigma (local units);
    /// w: innermost clip + 1 (an index into the frame's `ClipRecord` buffer; 0 = no clip).
    package var params: SIMD4<Float>
    /// Corner radii: minXMinY, maxXMinY, minXMaxY, maxXMaxY, clamped to half the smaller side.
    /// Sharp rects (kinds 8–11): zero (the vertex shader takes the device pixels per local unit
    /// across the edges from the margins). Image pieces (kind 6): 1 on the sides of `cover`
    /// that are the frame's edges (grown for anti-aliasing), 0 on the others.
    package var radii: SIMD4<Float>
    /// Premultiplied border color, without the opacity.
    package var borderColor: SIMD4<Float>
    /// Local rect covered (minX, minY, maxX, maxY), which the vertex shader grows into the quad
    /// it rasterizes: by the margins (`clipX.w`, `clipY.w`) on each side (about a pixel) for
    /// most kinds; by half of them (and a little) for the sharp kinds 8–11, whose coverage is
    /// zero beyond half a pixel (about 5 % fewer pixels for a 48 × 32 layer); not at all for
    /// shape atlas pieces (kind 7, whose outer texels are zero); for image pieces (kind 6) on
    /// the sides `radii` marks. Plain and sharp rects (kinds 0, 8) cover their bounds: their
    /// vertex shaders read `bounds` instead (so their stride ends before this).
    package var cover: SIMD4<Float>
    /// Gradient geometry in local units: start.xy, end.xy.
    package var gradientPoints: SIMD4<Float> = .zero
    /// Gradients: the locations of up to four stops; their colors are `fillColor`,
    /// `borderColor`, `gradientColor2`, `gradientColor3` (straight, without the opacity, which
    /// the vertex shader multiplies into their alpha).
    /// Images: `gradientPoints` is the piece's rect (local minX, minY, maxX, maxY) and this
    /// the part of the image it shows (u0, v0, u1, v1); `bounds` the whole contents' frame
    /// (its edges are anti-aliased); `params.z` 0 draws texels × `fillColor`, 1 texel.r as
    /// coverage × `fillColor`.
    package var gradientLocations: SIMD4<Float> = .zero
    /// Gradients: x = number of stops in this instance (1…4), t range drawn [z, w).
    /// Meshes: trim start and end along the path (x, y), z = 1 when trimming (not read by
    /// mesh.vert, and beyond a mesh's stride: not stored in the ring).
    package var gradientRange: SIMD4<Float> = .zero
    package var gradientColor2: SIMD4<Float> = .zero
    package var gradientColor3: SIMD4<Float> = .zero

    /// `params.y`: what the fragment shader draws.
    package enum Kind: Float, CaseIterable {
        case rect = 0, shadow = 1, axial = 2, radial = 3, conic = 4, mesh = 5, image = 6, shape = 7, sharp = 8,
             axialSharp = 9, radialSharp = 10, conicSharp = 11,
             /// An image piece under an affine transform: kind 6's instance, drawn by a lean
             /// pipeline (`shaders/image.frag`: interpolated texture position and edge distances).
             imageSharp = 12,
             /// An axial or radial gradient masked by a shape's coverage (`ImageDraw.Mode.maskedGradient`,
             /// `shaders/masked.frag`): a shape piece's quad and texture position, the gradient's
             /// stops as a gradient's, its coordinate map in `bounds` (u) and `radii` (v).
             maskedAxial = 13, maskedRadial = 14

        /// Whether the kind's pipelines sample an image (set 1: image and shape pieces, masked gradients).
        @inlinable
        package var samplesImage: Bool {
            switch self {
            case .image, .shape, .imageSharp, .maskedAxial, .maskedRadial: true
            default: false
            }
        }
    }

    /// Every field with its shader location, in memory order (the vertex attribute table).
    package static var fields: [(location: UInt32, keyPath: PartialKeyPath<RectInstance>)] { [
        (0, \.clipX), (1, \.clipY), (2, \.clipW), (3, \.bounds), (6, \.fillColor), (8, \.params),
        (5, \.radii), (7, \.borderColor), (4, \.cover),
        (9, \.gradientPoints), (11, \.gradientLocations),
        (10, \.gradientRange), (12, \.gradientColor2), (13, \.gradientColor3),
    ] }

    /// Bytes an instance of `kind` takes in the frame's ring (`Span.packed`): the prefix of
    /// the struct up to the last field its variants' vertex shaders read (RectInstanceLayoutTests
    /// checks each against the SPIR-V). Sharp rects and meshes: motion, bounds, fill color,
    /// params; plain rects: and radii, border color; shadows: and cover; image and shape
    /// pieces: and the piece's rect and source; gradients: everything.
    @inlinable @inline(__always)
    package static func stride(_ kind: Kind) -> Int {
        switch kind {
        case .sharp, .mesh: 96
        case .rect: 128
        case .shadow: 144
        case .image, .shape, .imageSharp: 176
        case .axial, .radial, .conic, .axialSharp, .radialSharp, .conicSharp, .maskedAxial, .maskedRadial: 224
        }
    }

    /// `bytes / stride` for a `stride(_:)` value, with a constant divisor per stride (a
    /// multiply rather than a division; 0 for a stride of 0).
    @inlinable @inline(__always)
    package static func instances(inBytes bytes: Int, stride: Int) -> Int {
        switch stride {
        case 96: bytes / 96
        case 128: bytes / 128
        case 144: bytes / 144
        case 176: bytes / 176
        case 224: bytes / 224
        default: stride > 0 ? bytes / stride : 0
        }
    }

    /// The smallest `stride` (a lower bound of the bytes a list's drawn items take).
    package static let minimumStride = 96

    /// The locations of the motion part (`setMotion`; the rest is the content part).
    package static let motionLocations: Set<UInt32> = [0, 1, 2]

    /// Screen-space pixels the quad is grown by on each side. The coverage ramp reaches
    /// half a pixel outside an edge; one pixel leaves room for rounding.
    package static let antialiasMargin = 1.0

    /// An instance with every field zero (what a kind leaves unused).
    @inlinable
    package init() {
        clipX = .zero; clipY = .zero; clipW = .zero; bounds = .zero; cover = .zero; radii = .zero
        fillColor = .zero; borderColor = .zero; params = .zero
    }

    /// Sets the motion part (`clipX`, `clipY`, `clipW`): drawn through `m` with `opacity` on a
    /// `width`×`height` target, its quad growing `cover` by about a pixel. Returns false
    /// (changing nothing) when it draws nothing: edge-on, entirely behind the eye, or an opacity
    /// not above 0. Other fields are left as they are.
    @usableFromInline @inline(__always)
    mutating func setMotion(_ m: Transform3D, cover c: Rect, opacity: Double, width: Int, height: Int) -> Bool {
        if m.m14 == 0 && m.m24 == 0 {
            // (A cover rect not finite draws nothing, as w there is not a number.)
            guard c.minX.isFinite, c.minY.isFinite,
                  let margins = Self.affineMargins(m11: m.m11, m12: m.m12, m21: m.m21, m22: m.m22, m44: m.m44)
            else { return false }
            return setMotion(m11: m.m11, m12: m.m12, m14: 0, m21: m.m21, m22: m.m22, m24: 0, m41: m.m41, m42: m.m42,
                             m44: m.m44, margins: margins, opacity: opacity, scale: Self.clipScale(width, height))
        }
        // Local units per pixel across each pair of edges, at the corners (the extremes, as
        // w is affine in x and y). Across the edges x = const the perpendicular pixel
        // distance of a local step dx is dx·|det J| / |J·ey|, and symmetrically for y.
        var marginX = 0.0, marginY = 0.0
        var visible = false
        @inline(__always) func corner(_ x: Double, _ y: Double) {
            let X = x * m.m11 + y * m.m21 + m.m41
            let Y = x * m.m12 + y * m.m22 + m.m42
            let W = x * m.m14 + y * m.m24 + m.m44
            guard W > 1e-9 else { return }
            visible = true
            let ww = W * W
            let exX = (m.m11 * W - X * m.m14) / ww, exY = (m.m12 * W - Y * m.m14) / ww
            let eyX = (m.m21 * W - X * m.m24) / ww, eyY = (m.m22 * W - Y * m.m24) / ww
            let det = abs(exX * eyY - exY * eyX)
            guard det > 1e-12 else { return }
            marginX = max(marginX, (eyX * eyX + eyY * eyY).squareRoot() / det)
            marginY = max(marginY, (exX * exX + exY * exY).squareRoot() / det)
        }
        corner(c.minX, c.minY); corner(c.maxX, c.minY); corner(c.minX, c.maxY); corner(c.maxX, c.maxY)
        guard visible, marginX > 0, marginY > 0 else { return false }
        // Near the horizon the margin explodes; there a margin the size of the rect is plenty.
        // (Affine margins are exact and stay uncapped, so sub-pixel rects still reach a
        // pixel center and draw faintly rather than vanish.)
        marginX = min(marginX * Self.antialiasMargin, max(c.width, c.height))
        marginY = min(marginY * Self.antialiasMargin, max(c.width, c.height))
        return setMotion(m11: m.m11, m12: m.m12, m14: m.m14, m21: m.m21, m22: m.m22, m24: m.m24, m41: m.m41, m42: m.m42,
                         m44: m.m44, margins: SIMD2(Float(marginX), Float(marginY)), opacity: opacity,
                         scale: Self.clipScale(width, height))
    }

    /// The anti-aliasing margins (local units) of an affine transform (m14 = m24 = 0): the
    /// same everywhere, so no corner loop; nil when edge-on or behind the eye. With W = m44,
    /// the pixel Jacobian's columns are ex = (m11, m12)/W and ey = (m21, m22)/W, its determinant
    /// D/W² with D = m11·m22 − m12·m21, so the margins |ey|/det and |ex|/det are
    /// W·|(m21, m22)|/|D| and W·|(m11, m12)|/|D|: one division.
    @usableFromInline @inline(__always)
    static func affineMargins(m11: Double, m12: Double, m21: Double, m22: Double, m44: Double) -> SIMD2<Float>? {
        let d = abs(m11 * m22 - m12 * m21)
        guard m44 > 1e-9, d > 1e-12 * m44 * m44 else { return nil }  // (a NaN fails)
        let perDet = antialiasMargin * m44 / d
        let columns = SIMD2(m21, m11) * SIMD2(m21, m11) + SIMD2(m22, m12) * SIMD2(m22, m12)
        return SIMD2<Float>(columns.squareRoot() * perDet)
    }

    /// (2 / width, 2 / height): device pixels to clip space, for `setMotion`.
    @inlinable @inline(__always)
    package static func clipScale(_ width: Int, _ height: Int) -> SIMD2<Double> { 2 / SIMD2(Double(width), Double(height)) }

    /// Stores the motion part from the plane entries of the transform, its margins and opacity;
    /// `scale`: `clipScale` of the target.
    @usableFromInline @inline(__always)
    mutating func setMotion(m11: Double, m12: Double, m14: Double, m21: Double, m22: Double, m24: Double, m41: Double,
                            m42: Double, m44: Double, margins: SIMD2<Float>, opacity: Double,
                            scale: SIMD2<Double>) -> Bool {
        // Positive and finite-or-infinite in Float too (a NaN fails), and a visible opacity.
        guard margins.x > 0, margins.y > 0, opacity > 0 else { return false }
        // [x y 0 1] × M = (X, Y, ·, W); pixel = (X/W, Y/W); clip = (2X/w − W, 2Y/h − W, 0, W).
        let x = SIMD4(m11, m21, m41, 0) * scale.x - SIMD4(m14, m24, m44, 0)
        let y = SIMD4(m12, m22, m42, 0) * scale.y - SIMD4(m14, m24, m44, 0)
        clipX = SIMD4<Float>(x)
        clipX.w = margins.x
        clipY = SIMD4<Float>(y)
        clipY.w = margins.y
        clipW = SIMD4<Float>(SIMD4(m14, m24, m44, min(opacity, 1)))
        return true
    }

    /// Rewrites only the motion part of the `count` instances at `instances`, `stride` bytes
    /// apart, which hold `item` as written before it moved or faded (its content part is
    /// unchanged: `FrameDelta.motionOnly`), when both that transform and `item`'s are
    /// affine (so a sharp rect stays sharp) and it still draws. False (nothing written)
    /// otherwise: the caller writes the item whole, which tells whether it draws as before.
    ///
    /// - Parameter scale: `clipScale(width, height)` of the target (once per frame).
    @inlinable @inline(__always)
    package static func writeMotion(_ item: UnsafePointer<DrawItem>, scale: SIMD2<Double>,
                                    to instances: UnsafeMutableRawPointer, count: Int, stride: Int) -> Bool {
        // Read in place (a copy of the item would retain its payload).
        let m11 = item.pointee.m11, m12 = item.pointee.m12, m21 = item.pointee.m21, m22 = item.pointee.m22
        let m44 = item.pointee.m44
        guard item.pointee.m14 == 0, item.pointee.m24 == 0,
              let margins = affineMargins(m11: m11, m12: m12, m21: m21, m22: m22, m44: m44) else { return false }
        var motion = RectInstance()
        guard motion.setMotion(m11: m11, m12: m12, m14: 0, m21: m21, m22: m22, m24: 0, m41: item.pointee.m41,
                               m42: item.pointee.m42, m44: m44, margins: margins, opacity: item.pointee.opacity,
                               scale: scale)
        else { return false }
        // (Offsets 0, 16, 32 in every stride: the first three fields.)
        for k in 0..<count {
            let instance = instances + k * stride
            instance.storeBytes(of: motion.clipX, toByteOffset: 0, as: SIMD4<Float>.self)
            instance.storeBytes(of: motion.clipY, toByteOffset: 16, as: SIMD4<Float>.self)
            instance.storeBytes(of: motion.clipW, toByteOffset: 32, as: SIMD4<Float>.self)
        }
        return true
    }

    /// Whether a rect without radii (kinds 0 and 2–4) is drawn sharp (kinds 8–11) under `m`:
    /// when `m` is affine. Its pixel distances to the edges are then affine in screen space
    /// (the vertex shader scales them by the inverse margins).
    @usableFromInline @inline(__always)
    static func isSharp(_ m: Transform3D, radii: SIMD4<Float>) -> Bool {
        radii == .zero && m.m14 == 0 && m.m24 == 0
    }

    /// Radii clamped to half the smaller side of `b`.
    @inlinable
    package static func clampedRadii(_ r: CornerRadii, _ b: Rect) -> SIMD4<Float> {
        // Most rects have none (compared here: `CornerRadii.==` is another module's witness).
        if r.minXMinY == 0 && r.maxXMinY == 0 && r.minXMaxY == 0 && r.maxXMaxY == 0 { return .zero }
        let maxRadius = min(b.width, b.height) / 2
        func clampRadius(_ r: Double) -> Float { r.isFinite ? Float(min(max(r, 0), maxRadius)) : 0 }
        return SIMD4(clampRadius(r.minXMinY), clampRadius(r.maxXMinY), clampRadius(r.minXMaxY), clampRadius(r.maxXMaxY))
    }

    /// The clip field (`params.w`) of an item whose innermost clip is `index` among
    /// `clipCount` clips: index + 1, or 0 (no clip) when out of range. The shader walks the
    /// parents from there (`ClipRecord.parent`).
    @inlinable @inline(__always)
    package static func clipField(_ index: Int, clipCount: Int) -> Float {
        index >= 0 && index < clipCount ? Float(index + 1) : 0
    }

    /// What `write` did with an item.
    package enum Written: Equatable {
        /// `count` instances (gradient segments; 1 otherwise) of one variant, at the span's end.
        case drawn(count: Int, variant: PipelineVariant)
        /// The item draws nothing (empty, fully transparent, edge-on, behind the eye, a group).
        case nothing
        /// The span has no room for the item's `count` instances; nothing was written.
        case needsRoom(Int)
    }

    /// Writes the instances that draw `item` (none when it draws nothing; one per gradient
    /// segment for gradients) at the end of `span`, in place: the item is read through the
    /// pointer (no copy of the item or its payload beyond what its kind holds) and each instance
    /// is stored once. `.group` and `.shadowGroup` items draw nothing here (the renderer
    /// handles them).
    ///
    /// - Parameter clipCount: `DrawList.clips.count` (an out-of-range `clip` means none).
    @inlinable
    package static func write(_ item: UnsafePointer<DrawItem>, clipCount: Int, width: Int, height: Int,
                      to span: inout Span) -> Written {
        let opacity = item.pointee.opacity
        guard opacity > 0 else { return .nothing }
        let clip = clipField(item.pointee.clip, clipCount: clipCount)
        // The case first, read in place (a switch binding payloads copies the whole kind,
        // retaining what it holds, for every item); each case then reads what it needs.
        switch item.pointee.writeCase {
        case .rect:
            let b = item.pointee.bounds.standardized
            guard b.width > 0, b.height > 0,
                  b.origin.x.isFinite, b.origin.y.isFinite, b.width.isFinite, b.height.isFinite
            else { return .nothing }
            let borderWidth = item.pointee.borderWidth.isFinite ? max(item.pointee.borderWidth, 0) : 0
            let fill = premultiplied(item.pointee.backgroundColor)
            let border = borderWidth > 0 ? premultiplied(item.pointee.borderColor) : .zero
            guard fill.w > 0 || border.w > 0 else { return .nothing }
            var instance = RectInstance()
            let m = item.pointee.transform
            guard instance.setMotion(m, cover: b, opacity: opacity, width: width, height: height) else { return .nothing }
            instance.bounds = SIMD4(Float(b.minX), Float(b.minY), Float(b.maxX), Float(b.maxY))
            instance.cover = instance.bounds
            instance.radii = clampedRadii(item.pointee.cornerRadii, b)
            instance.fillColor = fill
            if borderWidth == 0, isSharp(m, radii: instance.radii) {
                instance.params = SIMD4(0, Kind.sharp.rawValue, 0, clip)
                guard span.hasRoom(1, .sharp) else { return .needsRoom(1) }
                span.append(instance, .sharp)
                return .drawn(count: 1, variant: PipelineVariant(kind: .sharp, clipped: clip != 0,
                                                                 additive: item.pointee.additive))
            }
            instance.borderColor = border
            instance.params = SIMD4(Float(borderWidth), Kind.rect.rawValue, 0, clip)
            guard span.hasRoom(1, .rect) else { return .needsRoom(1) }
            span.append(instance, .rect)
            return .drawn(count: 1, variant: PipelineVariant(kind: .rect, clipped: clip != 0,
                                                             additive: item.pointee.additive))
        case .shadow:
            guard span.hasRoom(1, .shadow) else { return .needsRoom(1) }
            let sigmaValue = item.pointee.shadowSigma
            let b = item.pointee.bounds.standardized
            let sigma = sigmaValue.isFinite ? max(sigmaValue, 0) : 0
            let color = premultiplied(item.pointee.backgroundColor)
            guard b.width > 0, b.height > 0, color.w > 0 else { return .nothing }
            let cover = Rect(b.minX - 3 * sigma, b.minY - 3 * sigma, b.width + 6 * sigma, b.height + 6 * sigma)
            var instance = RectInstance()
            guard instance.setMotion(item.pointee.transform, cover: cover, opacity: opacity, width: width, height: height)
            else { return .nothing }
            instance.bounds = SIMD4(Float(b.minX), Float(b.minY), Float(b.maxX), Float(b.maxY))
            instance.cover = SIMD4(Float(cover.minX), Float(cover.minY), Float(cover.maxX), Float(cover.maxY))
            instance.radii = clampedRadii(item.pointee.cornerRadii, b)
            instance.fillColor = color
            instance.params = SIMD4(0, Kind.shadow.rawValue, Float(sigma), clip)
            span.append(instance, .shadow)
            return .drawn(count: 1, variant: PipelineVariant(kind: .shadow, clipped: clip != 0))
        case .gradient:
            guard case .gradient(let gradient) = item.pointee.kind else { return .nothing }
            return writeGradient(item, gradient, clip: clip, width: width, height: height, to: &span)
        case .group:
            return .nothing  // the renderer handles groups
        case .image:
            guard case .image(let draw) = item.pointee.kind else { return .nothing }
            return writeImage(item, draw, clip: clip, width: width, height: height, to: &span)
        case .mesh:
            guard span.hasRoom(1, .mesh) else { return .needsRoom(1) }
            guard case .mesh(let draw) = item.pointee.kind else { return .nothing }
            let mb = draw.mesh.bounds.standardized
            let color = premultiplied(draw.color)
            guard !draw.mesh.isEmpty, color.w > 0 else { return .nothing }
            var instance = RectInstance()
            guard instance.setMotion(item.pointee.transform, cover: mb, opacity: opacity, width: width, height: height)
            else { return .nothing }
            instance.bounds = SIMD4(Float(mb.minX), Float(mb.minY), Float(mb.maxX), Float(mb.maxY))
            instance.cover = instance.bounds
            instance.fillColor = color
            instance.params = SIMD4(0, Kind.mesh.rawValue, 0, clip)
            let total = Float(draw.mesh.totalLength)
            instance.gradientRange = SIMD4(Float(draw.trimStart) * total, Float(draw.trimEnd) * total,
                                           draw.trimStart > 0 || draw.trimEnd < 1 ? 1 : 0, 0)
            span.append(instance, .mesh)
            return .drawn(count: 1, variant: PipelineVariant(kind: .mesh, clipped: clip != 0))
        }
    }

    /// The `.gradient` case of `write`: up to four stops per instance; longer lists are chunks
    /// that share their end stops, each drawing its own t range (the first and last extended
    /// to ±∞).
    @inlinable
    package static func writeGradient(_ item: UnsafePointer<DrawItem>, _ gradient: GradientFill, clip: Float,
                                      width: Int, height: Int, to span: inout Span) -> Written {
        let colors = gradient.colors
        let n = colors.count
        // Chunks: [0, 3], [3, 6], …: one for n ≤ 4, else ⌈(n − 1) / 3⌉.
        guard span.hasRoom(max(1, (n + 1) / 3), .axial) else { return .needsRoom(max(1, (n + 1) / 3)) }
        let b = item.pointee.bounds.standardized
        var base = RectInstance()
        let m = item.pointee.transform
        guard b.width > 0, b.height > 0, n > 0,
              base.setMotion(m, cover: b, opacity: item.pointee.opacity, width: width, height: height)
        else { return .nothing }
        base.bounds = SIMD4(Float(b.minX), Float(b.minY), Float(b.maxX), Float(b.maxY))
        base.cover = base.bounds
        base.radii = clampedRadii(item.pointee.cornerRadii, b)
        var kind: Kind = switch gradient.type { case .axial: .axial; case .radial: .radial; case .conic: .conic }
        if isSharp(m, radii: base.radii) {
            kind = switch gradient.type { case .axial: .axialSharp; case .radial: .radialSharp; case .conic: .conicSharp }
        }
        base.params = SIMD4(0, kind.rawValue, 0, clip)
        base.gradientPoints = SIMD4(Float(gradient.start.x), Float(gradient.start.y),
                                    Float(gradient.end.x), Float(gradient.end.y))
        let count = appendStops(base, colors: gradient.colors, locations: gradient.locations, kind: kind, to: &span)
        return count > 0 ? .drawn(count: count, variant: PipelineVariant(kind: kind, clipped: clip != 0)) : .nothing
    }

    /// Appends the instances of a gradient's stops (`base` with its geometry set): up to four
    /// stops per instance; longer lists are chunks that share their end stops, each drawing its
    /// own t range (the first and last extended to ±∞). Returns how many it appended (the
    /// caller has made room for `max(1, (n + 1) / 3)`).
    @inlinable
    package static func appendStops(_ base: RectInstance, colors: [Color], locations: [Double]?, kind: Kind,
                                    to span: inout Span) -> Int {
        let n = colors.count
        let given = locations.flatMap { $0.count == n ? $0 : nil }
        /// Stop `j`'s location before the running maximum: clamped to 0…1, or spread evenly.
        func raw(_ j: Int) -> Double {
            if let given { return given[j].isFinite ? min(max(given[j], 0), 1) : 0 }
            return n == 1 ? 0 : Double(j) / Double(n - 1)
        }
        /// Straight, without the opacity (the vertex shader multiplies it into the alpha).
        func straight(_ c: Color) -> SIMD4<Float> {
            SIMD4(Float(c.red), Float(c.green), Float(c.blue), Float(c.alpha))
        }
        let far: Float = 1e9
        var count = 0
        var first = 0
        var firstLocation = raw(0)  // locations are the running maximum of `raw`
        repeat {
            let last = min(first + 3, n - 1)
            var instance = base
            // Stops first...last in slots 0…; unused slots repeat the last stop.
            var stopLocations = SIMD4<Float>(repeating: 0)
            var stopColors = (SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero, SIMD4<Float>.zero)
            var l = firstLocation
            for slot in 0..<4 {
                let stop = min(first + slot, last)
                if slot > 0 && first + slot <= last {
                    l = max(raw(stop), l)
                }
                stopLocations[slot] = Float(l)
                let color = straight(colors[stop])
                switch slot {
                case 0: stopColors.0 = color
                case 1: stopColors.1 = color
                case 2: stopColors.2 = color
                default: stopColors.3 = color
                }
            }
            let lastLocation = l
            instance.fillColor = stopColors.0
            instance.borderColor = stopColors.1
            instance.gradientColor2 = stopColors.2
            instance.gradientColor3 = stopColors.3
            instance.gradientLocations = stopLocations
            let from: Float = first == 0 ? -far : Float(firstLocation)
            let to: Float = last == n - 1 ? far : Float(lastLocation)
            instance.gradientRange = SIMD4(Float(last - first + 1), 0, from, to)
            if to > from {
                span.append(instance, kind)
                count += 1
            }
            first = last
            firstLocation = lastLocation
        } while first < n - 1
        return count
    }
}

extension DrawItem.Kind {
    /// The cases `RectInstance.write` tells apart (`.group` for both group markers), read from
    /// an item's storage without making its `Kind` (`DrawItem.writeCase`).
    @usableFromInline package enum WriteCase { case rect, shadow, gradient, group, image, mesh }
}

/// Premultiplied color with `opacity` applied (clamped to 0…1).
@inlinable
package func mapPremultiplied(_ color: Color, opacity: Double) -> SIMD4<Float> {
    let alpha = min(max(color.alpha * opacity, 0), 1)
    func channel(_ c: Double) -> Float { Float(min(max(c, 0), 1) * alpha) }
    return SIMD4(channel(color.red), channel(color.green), channel(color.blue), Float(alpha))
}

/// Premultiplied color, channels and alpha clamped to 0…1, as the instances keep it (the vertex
/// shader multiplies in the opacity).
@inlinable
package func premultiplied(_ color: Color) -> SIMD4<Float> { mapPremultiplied(color, opacity: 1) }
