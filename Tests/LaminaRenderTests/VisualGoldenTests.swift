import Foundation
import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

/// Every visual against a reference drawn by an independent renderer: cairo, through
/// `scripts/gen-references` (each scene there has the same name and description as the test
/// here). The references are committed; a failure writes `-actual` and `-diff` PNGs next to
/// them. Tolerances are per feature and stated with each test: analytic 1-pixel coverage
/// ramps and cairo's exact-area coverage differ by up to about a third of a pixel on edges,
/// the tessellator's fill fringe reads half a pixel bolder (LaminaGeometry README), and the
/// shadow's rounded-corner blur is an approximation.
@Suite("Visuals against cairo")
struct VisualGoldenTests {
    static let blue = Color(0, 0.478, 1)
    static let red = Color(1, 0.231, 0.188)
    static let green = Color(0.204, 0.780, 0.349)
    static let yellow = Color(1, 0.8, 0)

    /// The coverage rule for shapes against cairo (issue 11): mean error ≤ 1/255, at most
    /// 0.5 % of pixels off by more than 64/255.
    static let shapes = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)

    func compare(_ list: DrawList, _ name: String, _ tolerance: PixelTolerance,
                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let image = try renderImage(list, alpha: .straight, sourceLocation: sourceLocation)
        try expectMatchesReference(image, PixelComparator.referencePath(name), tolerance, name: name,
                                   sourceLocation: sourceLocation)
    }

    func mesh(_ path: Path, _ style: MeshKey.Style, _ color: Color, at offset: Point = .zero) throws -> DrawItem {
        var cache = MeshCache()
        let (id, mesh) = try cache.entry(for: path, style: style, scale: 1)
        return DrawItem(transform: .translation(offset.x, offset.y), bounds: mesh.bounds, backgroundColor: .clear,
                        kind: .mesh(MeshDraw(id: id, mesh: mesh, color: color)))
    }

    // MARK: Shadows

    /// Tolerance: mean ≤ 1/255, ≤ 0.5 % of pixels off by more than 8/255 (the erf
    /// approximation and the reference's sampled kernel differ by a few levels).
    @Test func shadowRect() throws {
        let white = Color(1, 1, 1)
        try compare(DrawList(width: 64, height: 64, clearColor: white, items: [
            DrawItem(transform: .translation(4, 6), bounds: Rect(16, 14, 32, 24),
                     backgroundColor: Color(0, 0, 0, 0.5), kind: .shadow(sigma: 4)),
            DrawItem(bounds: Rect(16, 14, 32, 24), backgroundColor: Self.blue),
        ]), "shadow-rect", .independent(mean: 1, percent: 0.5, threshold: 8))
    }

    /// Tolerance: mean ≤ 1.5/255, ≤ 2 % of pixels off by more than 12/255 (the rounded
    /// corner's blur is Evan Wallace's four-sample approximation).
    @Test func shadowRounded() throws {
        try compare(DrawList(width: 64, height: 64, clearColor: Color(1, 1, 1), items: [
            DrawItem(transform: .translation(0, 5), bounds: Rect(12, 12, 40, 32), backgroundColor: Color(0, 0, 0, 0.6),
                     cornerRadii: CornerRadii(10), kind: .shadow(sigma: 3)),
            DrawItem(bounds: Rect(12, 12, 40, 32), backgroundColor: Self.green, cornerRadii: CornerRadii(10)),
        ]), "shadow-rounded", .independent(mean: 1, percent: 0.5, threshold: 12))
    }

    // MARK: Gradients

    static let stops = [red, yellow, blue]
    static let locations = [0, 0.3, 1.0]

    /// Tolerance: mean ≤ 1/255, ≤ 1 % of pixels off by more than 4/255 (interior pixels
    /// agree to rounding; only the edge pixels' coverage differs).
    @Test func gradientAxial() throws {
        try compare(DrawList(width: 64, height: 48, clearColor: Color(1, 1, 1), items: [
            DrawItem(bounds: Rect(4, 4, 56, 40), backgroundColor: .clear,
                     kind: .gradient(GradientFill(type: .axial, start: Point(4, 4), end: Point(60, 44),
                                                  colors: Self.stops, locations: Self.locations))),
        ]), "gradient-axial", .independent(mean: 1, percent: 0.5, threshold: 4))
    }

    /// Tolerance as axial.
    @Test func gradientRadial() throws {
        // startPoint (0.5, 0.5), endPoint (1, 0.75) of (4, 4, 56, 40).
        try compare(DrawList(width: 64, height: 48, clearColor: Color(1, 1, 1), items: [
            DrawItem(bounds: Rect(4, 4, 56, 40), backgroundColor: .clear,
                     kind: .gradient(GradientFill(type: .radial, start: Point(32, 24), end: Point(60, 34),
                                                  colors: Self.stops, locations: Self.locations))),
        ]), "gradient-radial", .independent(mean: 1, percent: 0.5, threshold: 4))
    }

    /// Tolerance: mean ≤ 1/255, ≤ 1 % of pixels off by more than 4/255 (the seam at t = 0
    /// and the centre pixels are where float rounding can pick the other side).
    @Test func gradientConic() throws {
        try compare(DrawList(width: 64, height: 48, clearColor: Color(1, 1, 1), items: [
            DrawItem(bounds: Rect(0, 0, 64, 48), backgroundColor: .clear,
                     kind: .gradient(GradientFill(type: .conic, start: Point(32, 24), end: Point(64, 24),
                                                  colors: Self.stops, locations: Self.locations))),
        ]), "gradient-conic", .independent(mean: 1, percent: 0.5, threshold: 4))
    }

    /// Six stops: two instances (four stops each, sharing the fourth). Expected colors by
    /// hand: pixel x has t = (x + ½)/100, linear between neighbouring stops.
    @Test func gradientWithMoreThanFourStops() throws {
        let (r, g, b) = (Color(1, 0, 0), Color(0, 1, 0), Color(0, 0, 1))
        let colors = [r, g, b, r, g, b]
        let image = try renderImage(DrawList(width: 100, height: 4, clearColor: Color(1, 1, 1), items: [
            DrawItem(bounds: Rect(0, 0, 100, 4), backgroundColor: .clear,
                     kind: .gradient(GradientFill(type: .axial, start: Point(0, 2), end: Point(100, 2),
                                                  colors: colors, locations: [0, 0.2, 0.4, 0.6, 0.8, 1]))),
        ]), alpha: .straight)
        expectPixel(image, 0, 2, RGBA(249, 6, 0), tolerance: 1, "t 0.005: red → green")
        expectPixel(image, 49, 2, RGBA(121, 0, 134), tolerance: 1, "t 0.495: blue → red")
        expectPixel(image, 69, 2, RGBA(134, 121, 0), tolerance: 1, "t 0.695: red → green, second instance")
        expectPixel(image, 99, 2, RGBA(0, 6, 249), tolerance: 1, "t 0.995: green → blue")
    }

    // MARK: Shapes

    static let star: [Point] = (0..<5).map { i in
        let a = -Double.pi / 2 + Double(i) * 4 * .pi / 5
        return Point(32 + 26 * cos(a), 30 + 26 * sin(a))
    }

    /// Tolerance: mean ≤ 3/255, ≤ 6 % of pixels off by more than 64/255 (edge pixels only:
    /// the fill fringe lies outside the exact outline, so edges read up to half a pixel bolder).
    @Test func shapeFill() throws {
        var star = Path(); star.addPolygon(Self.star)
        try compare(DrawList(width: 128, height: 64, clearColor: Color(1, 1, 1), items: [
            try mesh(star, .fill(.nonZero), Self.blue),
            try mesh(star, .fill(.evenOdd), Self.red, at: Point(64, 0)),
            try mesh(.ellipse(in: Rect(6, 40, 20, 20)), .fill(.nonZero), Color(0.204, 0.780, 0.349, 0.5)),
        ]), "shape-fill", Self.shapes)
    }

    static let zigzag = [Point(8, 40), Point(24, 12), Point(40, 40), Point(56, 20)]

    /// Tolerance: mean ≤ 3/255, ≤ 3 % of pixels off by more than 64/255 (edge pixels).
    @Test func shapeStroke() throws {
        var line = Path(); line.addPolygon(Self.zigzag, closed: false)
        var items: [DrawItem] = []
        for (i, (join, cap)) in [(LineJoin.miter, LineCap.butt), (.round, .round), (.bevel, .square)].enumerated() {
            let style = StrokeStyle(lineWidth: 6, lineCap: cap, lineJoin: join, miterLimit: 10)
            items.append(try mesh(line, .stroke(style, trimmedInShader: false), Self.blue, at: Point(Double(64 * i), 0)))
        }
        try compare(DrawList(width: 192, height: 56, clearColor: Color(1, 1, 1), items: items),
                    "shape-stroke", Self.shapes)
    }

    static let loop = [Point(8, 48), Point(56, 8), Point(56, 48), Point(8, 8)]

    /// Dashes, dots and a translucent self-crossing stroke that must blend once per pixel
    /// (the stencil rule: where the loop crosses itself the color stays 50 % blue, not 75 %).
    /// Tolerance: mean ≤ 3/255, ≤ 3 % of pixels off by more than 64/255 (edge pixels).
    @Test func shapeDashes() throws {
        var line1 = Path(); line1.move(to: Point(8, 12)); line1.addLine(to: Point(120, 12))
        var line2 = Path(); line2.move(to: Point(8, 28)); line2.addLine(to: Point(120, 28))
        var loop = Path(); loop.addPolygon(Self.loop.map { Point($0.x + 30, $0.y + 40) })
        let dashes = StrokeStyle(lineWidth: 4, lineCap: .butt, dashPattern: [12, 6], dashPhase: 3)
        let dots = StrokeStyle(lineWidth: 6, lineCap: .round, dashPattern: [0, 10])
        let wide = StrokeStyle(lineWidth: 8, lineCap: .butt, lineJoin: .miter)
        let list = DrawList(width: 128, height: 100, clearColor: Color(1, 1, 1), items: [
            try mesh(line1, .stroke(dashes, trimmedInShader: false), Self.red),
            try mesh(line2, .stroke(dots, trimmedInShader: false), Self.green),
            try mesh(loop, .stroke(wide, trimmedInShader: false), Color(0, 0.478, 1, 0.5)),
        ])
        try compare(list, "shape-dashes", Self.shapes)
        // The crossing point of the loop, (62, 68): one blend of 50 % blue over white.
        let image = try renderImage(list, alpha: .straight)
        expectPixel(image, 62, 68, RGBA(128, 189, 255), tolerance: 3, "self-crossing blends once")
    }

    /// More meshes than stencil references (255): the references wrap and the stencil is
    /// cleared, and the last, self-crossing translucent stroke still blends once per pixel.
    @Test func stencilReferencesWrapAround() throws {
        var dot = Path(); dot.addRect(Rect(0, 0, 2, 2))
        var items: [DrawItem] = []
        for i in 0..<300 {
            items.append(try mesh(dot, .fill(.nonZero), Color(0, 0, 0), at: Point(Double(i % 30) * 4, Double(i / 30) * 4)))
        }
        var loop = Path(); loop.addPolygon(Self.loop.map { Point($0.x + 30, $0.y + 40) })
        let wide = StrokeStyle(lineWidth: 8, lineCap: .butt, lineJoin: .miter)
        items.append(try mesh(loop, .stroke(wide, trimmedInShader: false), Color(0, 0.478, 1, 0.5)))
        let image = try renderImage(DrawList(width: 128, height: 100, clearColor: Color(1, 1, 1), items: items),
                                    alpha: .straight)
        expectPixel(image, 62, 68, RGBA(128, 189, 255), tolerance: 3, "self-crossing blends once after the wrap")
        expectPixel(image, 1, 1, RGBA(0, 0, 0), tolerance: 1, "first mesh drawn")
    }

    // MARK: Clips

    /// masksToBounds nested, the inner clip rotated and rounded (cairo clips by area
    /// coverage, Lamina multiplies analytic coverages). Tolerance: mean ≤ 2/255, ≤ 2 % of
    /// pixels off by more than 64/255.
    @Test func clipNested() throws {
        let outer = Transform3D.translation(8, 8)
        let inner = Transform3D.translation(-18, -12).concatenating(.rotation(.pi / 6))
            .concatenating(.translation(40, 40)).concatenating(outer)
        let clips = [
            Clip(transform: outer, rect: Rect(0, 0, 48, 48), radii: CornerRadii(12)),
            Clip(transform: inner, rect: Rect(0, 0, 36, 24), radii: CornerRadii(6), parent: 0),
        ]
        try compare(DrawList(width: 64, height: 64, clearColor: Color(1, 1, 1), items: [
            DrawItem(transform: outer, bounds: Rect(0, 0, 48, 48), backgroundColor: Color(hex: "#DDDDDD")!,
                     cornerRadii: CornerRadii(12)),
            DrawItem(transform: outer, bounds: Rect(-10, -10, 40, 40), backgroundColor: Self.red, clip: 0),
            DrawItem(transform: inner, bounds: Rect(0, 0, 36, 24), backgroundColor: Self.blue,
                     cornerRadii: CornerRadii(6), clip: 0),
            DrawItem(transform: inner, bounds: Rect(18, -8, 30, 40), backgroundColor: Self.green, clip: 1),
        ], clips: clips), "clip-nested", Self.shapes)
    }

    /// Gradients clipped (their clipped pipelines take the innermost clip from the vertex
    /// stage, in the params' place: CLIP_VARYINGS, CLIP_H0_LOCATION=5): a clip rotated 20°
    /// about (32, 26), bounds (0, 0, 48, 40), radius 10, holding an axial gradient (-8, -8, 64,
    /// 56) from (-8, -8) to (56, 48), and in a second clip (6, 6, 36, 28) radius 6 a radial
    /// gradient (0, 0, 48, 40) centered at (24, 20) whose t = 1 ellipse has half-axes 20 × 14.
    /// The project's rule for independent references.
    @Test func clipGradient() throws {
        let t = Transform3D.translation(-24, -20).concatenating(.rotation(20 * .pi / 180))
            .concatenating(.translation(32, 26))
        let clips = [
            Clip(transform: t, rect: Rect(0, 0, 48, 40), radii: CornerRadii(10)),
            Clip(transform: t, rect: Rect(6, 6, 36, 28), radii: CornerRadii(6), parent: 0),
        ]
        let list = DrawList(width: 64, height: 52, clearColor: Color(1, 1, 1), items: [
            DrawItem(transform: t, bounds: Rect(-8, -8, 64, 56), backgroundColor: .clear,
                     kind: .gradient(GradientFill(type: .axial, start: Point(-8, -8), end: Point(56, 48),
                                                  colors: Self.stops, locations: Self.locations)), clip: 0),
            DrawItem(transform: t, bounds: Rect(0, 0, 48, 40), backgroundColor: .clear,
                     kind: .gradient(GradientFill(type: .radial, start: Point(24, 20), end: Point(44, 34),
                                                  colors: Self.stops, locations: Self.locations)), clip: 1),
        ], clips: clips)
        try compare(list, "clip-gradient", .independent(mean: 1, percent: 0.5, threshold: 64))
    }

    /// Four nested rotated, rounded clips, each cutting a different side (the scene is
    /// `ClipTests.deepScene`). Tolerance as clipNested.
    @Test func clipDeep() throws {
        try compare(ClipTests.deepScene(), "clip-deep", Self.shapes)
    }
}
