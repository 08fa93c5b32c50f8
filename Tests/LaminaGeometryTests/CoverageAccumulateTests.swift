import Foundation
import Testing
@testable import LaminaGeometry

/// `CoverageMesh.accumulate` (signed area per half-pixel cell, 2 × 2 boxes; and its affine form,
/// one cell a device pixel) against coverage worked out by hand — a rect's overlap with each
/// box, a disc's area, the fill rules on two squares and a star, a rect under unequal scales, a
/// mirror, a quarter turn, a skew and a rotation — and against the meshes' own per-box integral
/// (`CoverageMesh.coverage`, the shader's computation) on the same grid.
@Suite struct CoverageAccumulateTests {
    /// The bytes `accumulate` writes for `mesh` on the sample grid covering its bounds (samples
    /// every half pixel, from `x0`, `y0`), one byte a sample.
    static func grid(_ mesh: Mesh, scale: Double) -> (x0: Int, y0: Int, width: Int, height: Int, bytes: [UInt8]) {
        let b = mesh.bounds
        let x0 = Int((b.minX * 2 * scale).rounded(.down)), y0 = Int((b.minY * 2 * scale).rounded(.down))
        let width = Int((b.maxX * 2 * scale).rounded(.up)) - x0 + 1, height = Int((b.maxY * 2 * scale).rounded(.up)) - y0 + 1
        var bytes = [UInt8](repeating: 7, count: width * height)
        let drawn = bytes.withUnsafeMutableBufferPointer { p in
            CoverageMesh.accumulate(mesh, scale: scale, x0: x0, y0: y0, width: width, height: height,
                                    into: p.baseAddress!, rowStride: width, pixelStride: 1)
        }
        #expect(drawn)
        return (x0, y0, width, height, bytes)
    }

    /// Every sample within half a level of 8 bits (plus rounding) of `expected` at the sample's
    /// centre (local units); the worst miss.
    static func worst(_ mesh: Mesh, scale: Double, _ expected: (Double, Double) -> Double) -> Double {
        let g = grid(mesh, scale: scale)
        var worst = 0.0
        for j in 0 ..< g.height {
            for i in 0 ..< g.width {
                let x = Double(g.x0 + i) * 0.5 / scale, y = Double(g.y0 + j) * 0.5 / scale
                worst = max(worst, abs(Double(g.bytes[j * g.width + i]) / 255 - expected(x, y)))
            }
        }
        return worst
    }

    /// A rect at a fractional offset: each one-pixel box's coverage is the product of its
    /// overlaps with the rect along x and y.
    @Test(arguments: [1.0, 2.0, 0.75])
    func rectAtAFractionalOffset(_ scale: Double) throws {
        let r = Rect(3.3, 2.71, 7.45, 4.2)
        let mesh = try FillTessellator.coverageMesh(.rect(r), rule: .nonZero, scale: scale)
        let px = 1 / scale
        func overlap(_ c: Double, _ lo: Double, _ hi: Double) -> Double {
            max(0, min(c + px / 2, hi) - max(c - px / 2, lo)) / px
        }
        let miss = Self.worst(mesh, scale: scale) { x, y in overlap(x, r.minX, r.maxX) * overlap(y, r.minY, r.maxY) }
        #expect(miss <= 0.5 / 255 + 1e-6, "scale \(scale): \(miss)")
    }

    /// A disc: the boxes centred on whole pixels tile the plane, so their coverages sum to the
    /// area — the flattened polygon's (shoelace) within 0.1 %, πr² within 1 % (the chords) —
    /// and every sample equals the mesh's own integral of that box.
    @Test func discArea() throws {
        let radius = 13.7, centre = Point(20.35, 18.6)
        let disc = Path.ellipse(in: Rect(centre.x - radius, centre.y - radius, 2 * radius, 2 * radius))
        let mesh = try FillTessellator.coverageMesh(disc, rule: .nonZero)
        let polygon = try Flattener.flatten(disc, scale: 1, tolerance: CoverageMesh.tolerance).map(\.points)
        #expect(polygon.count == 1)
        let flattened = CoverageMeshTests.shoelace(polygon[0])
        let g = Self.grid(mesh, scale: 1)
        var sum = 0.0
        for j in 0 ..< g.height where (g.y0 + j) % 2 == 0 {
            for i in 0 ..< g.width where (g.x0 + i) % 2 == 0 { sum += Double(g.bytes[j * g.width + i]) / 255 }
        }
        let area = Double.pi * radius * radius
        #expect(abs(sum - flattened) / flattened < 0.001, "\(sum) against \(flattened)")
        #expect(abs(sum - area) / area < 0.01, "\(sum) against \(area)")
        let miss = Self.worst(mesh, scale: 1) { x, y in CoverageMesh.coverage(of: mesh, x: x, y: y, width: 1, height: 1) }
        #expect(miss <= 0.5 / 255 + 1e-5, "\(miss)")
    }

    /// Two overlapping squares wound the same way: nonzero fills their union, even-odd leaves
    /// their overlap empty — boxes wholly in the overlap 1 and 0, boxes wholly in one square 1.
    @Test(arguments: FillRule.allCases)
    func evenOddAgainstNonZero(_ rule: FillRule) throws {
        let a = Rect(2, 2, 12, 12), b = Rect(8, 8, 12, 12)
        var path = Path(); path.addRect(a); path.addRect(b)
        let mesh = try FillTessellator.coverageMesh(path, rule: rule)
        func inside(_ r: Rect, _ x: Double, _ y: Double) -> Double {
            (max(0, min(x + 0.5, r.maxX) - max(x - 0.5, r.minX))) * (max(0, min(y + 0.5, r.maxY) - max(y - 0.5, r.minY)))
        }
        let miss = Self.worst(mesh, scale: 1) { x, y in
            let both = inside(Rect(8, 8, 6, 6), x, y)
            let union = inside(a, x, y) + inside(b, x, y) - both
            return rule == .nonZero ? union : union - both
        }
        #expect(miss <= 0.5 / 255 + 1e-6, "\(rule): \(miss)")
    }

    /// A self-intersecting star at a fractional centre, both rules, several scales: every
    /// sample equals the mesh's own integral of its box, and the centre (in the inner
    /// pentagon) is 1 for nonzero and 0 for even-odd.
    @Test(arguments: FillRule.allCases)
    func selfIntersectingStar(_ rule: FillRule) throws {
        let c = Point(30.3, 28.6)
        let star = CoverageMeshTests.pentagram(26, center: c)
        for scale in [1.0, 0.4, 2.5] {
            let mesh = try FillTessellator.coverageMesh(CoverageMeshTests.polygonPath([star]), rule: rule, scale: scale)
            let miss = Self.worst(mesh, scale: scale) { x, y in
                CoverageMesh.coverage(of: mesh, x: x, y: y, width: 1 / scale, height: 1 / scale)
            }
            #expect(miss <= 0.5 / 255 + 1e-5, "\(rule) at \(scale): \(miss)")
        }
        let g = Self.grid(try FillTessellator.coverageMesh(CoverageMeshTests.polygonPath([star]), rule: rule), scale: 1)
        let i = Int((c.x * 2).rounded()) - g.x0, j = Int((c.y * 2).rounded()) - g.y0
        #expect(g.bytes[j * g.width + i] == (rule == .nonZero ? 255 : 0))
    }

    /// Strokes (a thin one, a dashed self-crossing one, caps and joins) as their meshes' integral.
    @Test func strokesAsTheirMeshes() throws {
        var path = Path()
        path.move(to: Point(4.2, 5.1)); path.addCurve(to: Point(40.7, 30.2), control1: Point(60, 0), control2: Point(-10, 40))
        path.addLine(to: Point(12.5, 2.25))
        for (width, dash) in [(0.6, [Double]()), (3.5, []), (2.2, [5.0, 3.0])] {
            var style = StrokeStyle(lineWidth: width)
            style.lineJoin = .round; style.lineCap = .square; style.dashPattern = dash
            let mesh = try StrokeTessellator.coverageMesh(path, style: style, scale: 1.5)
            let miss = Self.worst(mesh, scale: 1.5) { x, y in
                CoverageMesh.coverage(of: mesh, x: x, y: y, width: 1 / 1.5, height: 1 / 1.5)
            }
            #expect(miss <= 0.5 / 255 + 1e-5, "width \(width) dashes \(dash): \(miss)")
        }
    }

    /// The device-space form (`accumulate(_:a:b:c:d:tx:ty:box:…)` with `box` 1): a rect under
    /// unequal scales, a mirror and a quarter turn is still an axis-aligned rect, so each
    /// pixel's coverage is the product of its overlaps with the mapped rect; a skewed and a
    /// rotated one keep their area (|det| × the rect's) summed over the pixels.
    @Test func affineMapsAsTheirDevicePixels() throws {
        let r = Rect(3.3, 2.71, 7.45, 4.2)
        let mesh = try FillTessellator.coverageMesh(.rect(r), rule: .nonZero)
        let size = 48
        func pixels(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ tx: Double, _ ty: Double) -> [UInt8] {
            var bytes = [UInt8](repeating: 7, count: size * size)
            let drawn = bytes.withUnsafeMutableBufferPointer { p in
                CoverageMesh.accumulate(mesh, a: a, b: b, c: c, d: d, tx: tx, ty: ty, box: 1, width: size, height: size,
                                        into: p.baseAddress!, rowStride: size, pixelStride: 1)
            }
            #expect(drawn)
            return bytes
        }
        func overlap(_ k: Int, _ lo: Double, _ hi: Double) -> Double { max(0, min(Double(k + 1), hi) - max(Double(k), lo)) }
        for (a, b, c, d, tx, ty) in [(1.7, 0.0, 0.0, 0.6, 0.3, 0.45), (-1.3, 0.0, 0.0, 1.1, 40.2, 5.5), (0.0, 1.0, -1.0, 0.0, 30.6, 1.25)] {
            let bytes = pixels(a, b, c, d, tx, ty)
            let x0 = a * r.minX + c * r.minY + tx, x1 = a * r.maxX + c * r.maxY + tx
            let y0 = b * r.minX + d * r.minY + ty, y1 = b * r.maxX + d * r.maxY + ty
            var worst = 0.0
            for j in 0 ..< size {
                for i in 0 ..< size {
                    let expected = overlap(i, min(x0, x1), max(x0, x1)) * overlap(j, min(y0, y1), max(y0, y1))
                    worst = max(worst, abs(Double(bytes[j * size + i]) / 255 - expected))
                }
            }
            #expect(worst <= 0.5 / 255 + 1e-6, "map \((a, b, c, d)): \(worst)")
        }
        for (a, b, c, d) in [(1.0, 0.0, 0.8, 1.2), (cos(0.7) * 1.5, sin(0.7) * 1.5, -sin(0.7) * 1.5, cos(0.7) * 1.5)] {
            let bytes = pixels(a, b, c, d, 20.5, 10.25)
            let sum = bytes.reduce(0.0) { $0 + Double($1) / 255 }
            let area = abs(a * d - b * c) * r.width * r.height
            #expect(abs(sum - area) / area < 0.002, "map \((a, b, c, d)): \(sum) against \(area)")
        }
    }

    /// A mesh made by hand has no boundary: nothing is written.
    @Test func aMeshWithoutBoundaryIsLeftAlone() {
        var byte: UInt8 = 9
        let mesh = Mesh(vertices: [MeshVertex(x: 0, y: 0)], indices: [0, 0, 0], interiorIndexCount: 3,
                        bounds: Rect(0, 0, 1, 1))
        #expect(!CoverageMesh.accumulate(mesh, scale: 1, x0: 0, y0: 0, width: 1, height: 1, into: &byte, rowStride: 1,
                                         pixelStride: 1))
        #expect(byte == 9)
    }
}
