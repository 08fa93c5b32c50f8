import Testing
import TestSupport
import LaminaGeometry
@testable import LaminaFrame

/// `RectInstance.write` (instances written in place into the ring buffer) against the path it
/// replaced (`RectInstance.append` building an array, kept here verbatim as `Reference`), for
/// many random items of every kind, including degenerate ones: the same count, the variant the
/// renderer batches by, and the same instances as the vertex shader sees them.
///
/// Since the motion part was split off (session 5), an instance keeps its cover rect ungrown,
/// its margins and opacity in the clip rows' w lanes and its colors without the opacity; the
/// vertex shader grows the quad and applies the opacity. `resolved` does what the shader does
/// (instance.vert.glsl's `quad()`, `edges` and colors), giving the reference's layout back; the
/// values are compared to a few Float ulps rather than bit for bit, as the quad is now
/// Float(cover) ± Float(margin) instead of Float(cover ± margin) and the clip rows are
/// m·(2/w) instead of 2m/w. An opacity above 1 (outside `DrawItem.opacity`'s 0…1) counts as 1.
@Suite("Instances written in place")
struct InstanceWriteTests {
    @Test func writeEqualsTheArrayPath() {
        var random = SeededRandom(seed: 0x1a31_2a)
        let clips = [Clip(transform: .identity, rect: Rect(0, 0, 10, 10)),
                     Clip(transform: .identity, rect: Rect(1, 1, 5, 5), parent: 0)]
        let capacity = 64
        let buffer = UnsafeMutablePointer<RectInstance>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var drawnCount = 0
        for index in 0..<20_000 {
            var item = Self.randomItem(&random)
            let (width, height) = random.bool(0.1) ? (1, 1) : (1280, 720)
            var expected: [RectInstance] = []
            let expectedCount = Reference.append(item, clips: clips, width: width, height: height, to: &expected)
            // Written after a few instances already there, as in a frame.
            let offset = random.int(0..<8)
            var span = RectInstance.Span(base: buffer, capacity: capacity, count: offset)
            let written = RectInstance.write(&item, clipCount: clips.count, width: width, height: height, to: &span)
            switch written {
            case .drawn(let count, let variant):
                #expect(count == expectedCount, "item \(index)")
                #expect(span.count == offset + count, "item \(index)")
                #expect(variant == PipelineVariant(expected[0]), "item \(index)")
                for i in 0..<min(count, expected.count) {
                    #expect(Self.close(Self.resolved(buffer[offset + i]), expected[i]),
                            "item \(index), instance \(i): \(item)")
                }
                drawnCount += 1
            case .nothing:
                #expect(expectedCount == 0, "item \(index): \(item)")
                #expect(span.count == offset)
            case .needsRoom:
                Issue.record("item \(index): a span with room for 56 instances was too small")
            }
            // A full span writes nothing and asks for at least what the item draws.
            var full = RectInstance.Span(base: buffer, capacity: offset, count: offset)
            switch RectInstance.write(&item, clipCount: clips.count, width: width, height: height, to: &full) {
            case .drawn: Issue.record("item \(index): written into a full span")
            case .nothing: #expect(expectedCount == 0, "item \(index)")
            case .needsRoom(let room): #expect(room >= expectedCount && room > 0, "item \(index)")
            }
            #expect(full.count == offset)
        }
        // Most random items draw something (the comparison is not vacuous).
        #expect(drawnCount > 10_000)
    }

    /// What the vertex shader makes of `i` (instance.vert.glsl), in the reference's layout: the
    /// quad grown from the cover rect by the margins (half of them, and a little, for the sharp
    /// kinds, whose radii are the inverse margins), the opacity in the colors (gradient stops:
    /// in their alpha), the w lanes zero.
    static func resolved(_ i: RectInstance) -> RectInstance {
        var r = i
        let margins = SIMD4<Float>(-i.clipX.w, -i.clipY.w, i.clipX.w, i.clipY.w), opacity = i.clipW.w
        r.clipX.w = 0; r.clipY.w = 0; r.clipW.w = 0
        switch RectInstance.Kind(rawValue: i.params.y) {
        case .sharp, .axialSharp, .radialSharp, .conicSharp:
            r.cover = i.cover + margins * (0.5 * 1.0001)
            r.radii = SIMD4(1 / i.clipX.w, 1 / i.clipY.w, 0, 0)
        default:
            r.cover = i.cover + margins
        }
        switch RectInstance.Kind(rawValue: i.params.y) {
        case .axial, .radial, .conic, .axialSharp, .radialSharp, .conicSharp:
            r.fillColor.w *= opacity; r.borderColor.w *= opacity
            r.gradientColor2.w *= opacity; r.gradientColor3.w *= opacity
        default:
            r.fillColor *= opacity; r.borderColor *= opacity
        }
        return r
    }

    /// Equal to a few Float ulps in every lane (NaNs equal), except a sharp rect's pixels per
    /// unit: the reference took them from the Float difference bounds − quad, good to an ulp
    /// of the bounds, so their inverses are compared to that.
    static func close(_ a: RectInstance, _ b: RectInstance) -> Bool {
        func near(_ x: Float, _ y: Float, _ scale: Float = 1) -> Bool {
            x == y || (x.isNaN && y.isNaN) || abs(x - y) <= 4e-6 * max(scale, abs(x), abs(y))
        }
        for field in RectInstance.fields {
            let x = a[keyPath: field.keyPath] as! SIMD4<Float>, y = b[keyPath: field.keyPath] as! SIMD4<Float>
            let sharp = field.location == 5 && [8, 9, 10, 11].contains(a.params.y)
            for lane in 0..<4 {
                if sharp && lane < 2 {
                    let bound = max(abs(a.bounds[lane]), abs(a.bounds[lane + 2]))
                    guard near(1 / x[lane], 1 / y[lane], 4 * bound) else { return false }
                } else {
                    guard near(x[lane], y[lane]) else { return false }
                }
            }
        }
        return true
    }

    static let mesh = Mesh(vertices: [MeshVertex(x: 0, y: 0), MeshVertex(x: 10, y: 0), MeshVertex(x: 0, y: 8)],
                           indices: [0, 1, 2], interiorIndexCount: 3, bounds: Rect(0, 0, 10, 8), totalLength: 30)

    static func randomItem(_ r: inout SeededRandom) -> DrawItem {
        func value(_ range: ClosedRange<Double>) -> Double {
            r.bool(0.03) ? [Double.nan, .infinity, -.infinity, 0, -1][r.int(0..<5)] : r.double(range)
        }
        func color() -> Color { Color(value(-0.2...1.2), value(0...1), value(0...1), r.bool(0.1) ? 0 : value(0...1.3)) }
        // Transform: translation, rotation, scale (sometimes zero or mirrored), sometimes perspective.
        var m = Transform3D.rotation(r.double(-7...7))
            .concatenating(.scale(r.bool(0.05) ? 0 : r.double(-3...3), r.double(0.01...4)))
            .concatenating(.translation(r.double(-200...1500), r.double(-200...900)))
        if r.bool(0.25) {
            m = Transform3D.rotation(r.double(-1.6...1.6), r.double(-1...1), r.double(-1...1), 0)
                .concatenating(.perspective(r.double(100...2000))).concatenating(.translation(r.double(0...1280), r.double(0...720)))
        }
        if r.bool(0.03) { m.m44 = r.double(0.2...3) }
        if r.bool(0.01) { m.m11 = .nan }
        let bounds = Rect(value(-50...50), value(-50...50), r.bool(0.05) ? 0 : value(-80...120), value(-80...120))
        let radii = r.bool(0.4) ? .zero
            : CornerRadii(minXMinY: value(-5...60), maxXMinY: value(-5...60), minXMaxY: value(-5...60), maxXMaxY: value(-5...60))
        let kind: DrawItem.Kind
        switch r.int(0..<12) {
        case 0..<4: kind = .rect
        case 4..<6: kind = .shadow(sigma: value(0...12))
        case 6..<9:
            let n = r.bool(0.05) ? 0 : r.int(1..<11)
            let locations: [Double]? = r.bool(0.4) ? nil
                : (0..<(r.bool(0.1) ? n + 1 : n)).map { _ in value(-0.2...1.2) }.sorted(by: { r.bool(0.8) ? $0 < $1 : $0 > $1 })
            let type: GradientFill.GradientType = [.axial, .radial, .conic][r.int(0..<3)]
            kind = .gradient(GradientFill(type: type, start: Point(value(-50...50), value(-50...50)),
                                          end: Point(value(-50...50), value(-50...50)),
                                          colors: (0..<n).map { _ in color() }, locations: locations))
        case 9..<11:
            let trims = (value(0...1), value(0...1))
            kind = .mesh(MeshDraw(id: .unique(),
                                  mesh: r.bool(0.05) ? .empty : mesh, color: color(),
                                  trimStart: r.bool(0.5) ? 0 : trims.0, trimEnd: r.bool(0.5) ? 1 : trims.1))
        default:
            kind = r.bool(0.5) ? .group(opacity: 0.5, count: 2) : .shadowGroup(color: color(), sigma: 3, count: 1)
        }
        return DrawItem(transform: m, bounds: bounds, backgroundColor: color(),
                        opacity: r.bool(0.05) ? 0 : value(0...1), cornerRadii: radii,
                        borderWidth: r.bool(0.5) ? 0 : value(-2...10), borderColor: color(), kind: kind,
                        clip: r.int(-2..<4))
    }
}

/// The array path `OffscreenRenderer` used before instances were written in place (commit
/// fdd5aee's `RectInstance.append` and the initializers it called), the oracle for `write`.
private enum Reference {
    static func instance(_ item: DrawItem, width: Int, height: Int) -> RectInstance? {
        let b = item.bounds.standardized
        guard b.width > 0, b.height > 0, item.opacity > 0,
              b.origin.x.isFinite, b.origin.y.isFinite, b.width.isFinite, b.height.isFinite
        else { return nil }
        let borderWidth = item.borderWidth.isFinite ? max(item.borderWidth, 0) : 0
        let fill = mapPremultiplied(item.backgroundColor, opacity: item.opacity)
        let border = borderWidth > 0 ? mapPremultiplied(item.borderColor, opacity: item.opacity) : .zero
        guard fill.w > 0 || border.w > 0 else { return nil }
        guard var instance = geometry(transform: item.transform, bounds: b, cover: b, width: width, height: height)
        else { return nil }
        instance.radii = RectInstance.clampedRadii(item.cornerRadii, b)
        instance.fillColor = fill
        // Since issue 11 (after fdd5aee): a rect without radii or border under an affine
        // transform is kind `sharp`, no border color.
        if borderWidth == 0, sharpen(&instance, item.transform) {
            instance.params = SIMD4(0, RectInstance.Kind.sharp.rawValue, 0, 0)
            return instance
        }
        instance.borderColor = border
        instance.params = SIMD4(Float(borderWidth), RectInstance.Kind.rect.rawValue, 0, 0)
        return instance
    }

    /// Since issue 11: a rect (or gradient) without radii under an affine transform is sharp:
    /// its radii the inverse local-units-per-pixel margins (in Float, from the quad) of its
    /// pairs of edges, its quad grown by half a pixel (and a little), not a whole one.
    static func sharpen(_ instance: inout RectInstance, _ m: Transform3D) -> Bool {
        let perPixel = (instance.bounds - instance.cover) / Float(RectInstance.antialiasMargin)
        guard instance.radii == .zero, m.m14 == 0, m.m24 == 0, perPixel.x > 0, perPixel.y > 0 else { return false }
        instance.radii = SIMD4(1 / perPixel.x, 1 / perPixel.y, 0, 0)
        let half = perPixel * 0.5 * 1.0001
        instance.cover = SIMD4(instance.bounds.x - half.x, instance.bounds.y - half.y,
                              instance.bounds.z + half.x, instance.bounds.w + half.y)
        return true
    }

    static func geometry(transform m: Transform3D, bounds b: Rect, cover c: Rect, width: Int, height: Int) -> RectInstance? {
        var instance = RectInstance()
        let w = Double(width), h = Double(height)
        instance.clipX = SIMD4(Float(2 * m.m11 / w - m.m14), Float(2 * m.m21 / w - m.m24), Float(2 * m.m41 / w - m.m44), 0)
        instance.clipY = SIMD4(Float(2 * m.m12 / h - m.m14), Float(2 * m.m22 / h - m.m24), Float(2 * m.m42 / h - m.m44), 0)
        instance.clipW = SIMD4(Float(m.m14), Float(m.m24), Float(m.m44), 0)
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
            corner(c.minX, c.minY)
        } else {
            corner(c.minX, c.minY); corner(c.maxX, c.minY); corner(c.minX, c.maxY); corner(c.maxX, c.maxY)
        }
        guard visible, marginX > 0, marginY > 0 else { return nil }
        marginX *= RectInstance.antialiasMargin
        marginY *= RectInstance.antialiasMargin
        if m.m14 != 0 || m.m24 != 0 {
            marginX = min(marginX, max(c.width, c.height))
            marginY = min(marginY, max(c.width, c.height))
        }
        instance.bounds = SIMD4(Float(b.minX), Float(b.minY), Float(b.maxX), Float(b.maxY))
        instance.cover = SIMD4(Float(c.minX - marginX), Float(c.minY - marginY), Float(c.maxX + marginX), Float(c.maxY + marginY))
        return instance
    }

    static func setClips(_ instance: inout RectInstance, _ index: Int, _ clips: [Clip]) {
        instance.params.w = index >= 0 && index < clips.count ? Float(index + 1) : 0
    }

    /// (Since session 5, a color's alpha above 1 counts as 1 before the opacity, which the vertex
    /// shader now multiplies in; colors are straight with alpha in 0…1.)
    static func mapPremultiplied(_ color: Color, opacity: Double) -> SIMD4<Float> {
        var color = color
        color.alpha = min(color.alpha, 1)
        return LaminaFrame.mapPremultiplied(color, opacity: opacity)
    }

    static func append(_ item: DrawItem, clips: [Clip], width: Int, height: Int, to out: inout [RectInstance]) -> Int {
        guard item.opacity > 0 else { return 0 }
        var item = item
        item.opacity = min(item.opacity, 1)  // (since session 5: an opacity above 1 counts as 1)
        switch item.kind {
        case .rect:
            guard var instance = instance(item, width: width, height: height) else { return 0 }
            setClips(&instance, item.clip, clips)
            out.append(instance)
            return 1
        case .shadow(let sigmaValue):
            let b = item.bounds.standardized
            let sigma = sigmaValue.isFinite ? max(sigmaValue, 0) : 0
            let color = mapPremultiplied(item.backgroundColor, opacity: item.opacity)
            guard b.width > 0, b.height > 0, color.w > 0 else { return 0 }
            let cover = Rect(b.minX - 3 * sigma, b.minY - 3 * sigma, b.width + 6 * sigma, b.height + 6 * sigma)
            guard var instance = geometry(transform: item.transform, bounds: b, cover: cover, width: width, height: height)
            else { return 0 }
            instance.radii = RectInstance.clampedRadii(item.cornerRadii, b)
            instance.fillColor = color
            instance.params = SIMD4(0, RectInstance.Kind.shadow.rawValue, Float(sigma), 0)
            setClips(&instance, item.clip, clips)
            out.append(instance)
            return 1
        case .image:
            return 0  // not among the generated items (ImageInstanceTests writes images)
        case .gradient(let gradient):
            let b = item.bounds.standardized
            guard b.width > 0, b.height > 0, !gradient.colors.isEmpty,
                  var base = geometry(transform: item.transform, bounds: b, cover: b, width: width, height: height)
            else { return 0 }
            base.radii = RectInstance.clampedRadii(item.cornerRadii, b)
            var kind: RectInstance.Kind = switch gradient.type { case .axial: .axial; case .radial: .radial; case .conic: .conic }
            if sharpen(&base, item.transform) {
                kind = switch gradient.type { case .axial: .axialSharp; case .radial: .radialSharp; case .conic: .conicSharp }
            }
            base.params = SIMD4(0, kind.rawValue, 0, 0)
            base.gradientPoints = SIMD4(Float(gradient.start.x), Float(gradient.start.y),
                                        Float(gradient.end.x), Float(gradient.end.y))
            setClips(&base, item.clip, clips)
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
        case .group, .shadowGroup, .mask, .blend, .filter, .raster, .backdrop:
            return 0
        case .mesh(let draw):
            let mb = draw.mesh.bounds.standardized
            let color = mapPremultiplied(draw.color, opacity: item.opacity)
            guard !draw.mesh.isEmpty, color.w > 0,
                  var instance = geometry(transform: item.transform, bounds: mb, cover: mb, width: width, height: height)
            else { return 0 }
            instance.fillColor = color
            instance.params = SIMD4(0, RectInstance.Kind.mesh.rawValue, 0, 0)
            let total = Float(draw.mesh.totalLength)
            instance.gradientRange = SIMD4(Float(draw.trimStart) * total, Float(draw.trimEnd) * total,
                                           draw.trimStart > 0 || draw.trimEnd < 1 ? 1 : 0, 0)
            setClips(&instance, item.clip, clips)
            out.append(instance)
            return 1
        }
    }
}
