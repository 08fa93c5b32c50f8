import Testing
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaFrame

/// A text layer's glyphs as one item (`GlyphRun`, issue 30 item 3): the encoder writes, per
/// quad, exactly the instance that the same glyph drawn as its own one-piece coverage image
/// item writes (what the builder made before runs), so the pixels cannot differ; the blend
/// count counts a run once per pixel.
@Suite struct GlyphRunTests {
    /// An A8 atlas of 64 × 32 pixels (its pixels do not matter to the instances).
    static let atlas = Image(width: 64, height: 32, format: .a8, pixels: [UInt8](repeating: 0, count: 64 * 32))

    /// Three glyphs: two overlapping (as kerned or joined glyphs do), one apart, in two colors.
    static let run = GlyphRun(quads: [
        GlyphRun.Quad(rect: Rect(10, 12, 6, 9), atlasX: 0, atlasY: 0, atlasWidth: 6, atlasHeight: 9, color: Color(1, 0, 0)),
        GlyphRun.Quad(rect: Rect(14, 10, 7, 11), atlasX: 7, atlasY: 0, atlasWidth: 7, atlasHeight: 11,
                      color: Color(0.2, 0.4, 0.6, 0.5)),
        GlyphRun.Quad(rect: Rect(40.5, 11.25, 5, 8), atlasX: 15, atlasY: 13, atlasWidth: 5, atlasHeight: 8,
                      color: Color(0, 0, 0)),
    ], scale: 1)

    static func runItem(_ m: Transform3D, opacity: Double = 0.75, clip: Int = -1) throws -> DrawItem {
        let geometry = try #require(ContentsGeometry(bounds: run.frame, imageWidth: 64, imageHeight: 32, gravity: .resize,
                                                     contentsRect: Rect(0, 0, 1, 1), contentsCenter: Rect(0, 0, 1, 1),
                                                     contentsScale: 1))
        return DrawItem(transform: m, bounds: run.frame, backgroundColor: .clear, opacity: opacity,
                        kind: .image(ImageDraw(image: atlas, geometry: geometry, mode: .glyphs(run))), clip: clip)
    }

    /// Quad `q` as the builder drew a glyph before runs: a coverage image of the atlas whose
    /// contents rect is the glyph's atlas rectangle over the unit square, placed on the quad.
    static func glyphItem(_ q: GlyphRun.Quad, _ m: Transform3D, opacity: Double = 0.75, clip: Int = -1) throws -> DrawItem {
        let source = Rect(Double(q.atlasX) / 64, Double(q.atlasY) / 32, Double(q.atlasWidth) / 64, Double(q.atlasHeight) / 32)
        let geometry = try #require(ContentsGeometry(bounds: q.rect, imageWidth: 64, imageHeight: 32, gravity: .resize,
                                                     contentsRect: source, contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1))
        return DrawItem(transform: m, bounds: q.rect, backgroundColor: .clear, opacity: opacity,
                        kind: .image(ImageDraw(image: atlas, geometry: geometry, mode: .coverage(q.color))), clip: clip)
    }

    /// Perspective with the eye 300 units away (m34 = −1/300).
    static var perspective: Transform3D {
        var m = Transform3D.identity
        m.m34 = -1.0 / 300
        return m
    }

    static func write(_ items: [DrawItem], clipCount: Int = 0) -> ([RectInstance], [RectInstance.Written]) {
        let buffer = UnsafeMutablePointer<RectInstance>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        var span = RectInstance.Span(base: buffer, capacity: 64)
        var written: [RectInstance.Written] = []
        for var item in items {
            written.append(RectInstance.write(&item, clipCount: clipCount, width: 100, height: 60, to: &span))
        }
        return (Array(UnsafeBufferPointer(start: buffer, count: span.count)), written)
    }

    /// At the identity, rotated and scaled (affine), and under perspective (each quad's own
    /// margins), clipped and not: the run's instances are the glyph items' instances, in order.
    @Test(arguments: [0, 1, 2])
    func aRunWritesTheGlyphItemsInstances(transform: Int) throws {
        let m: Transform3D = switch transform {
        case 0: .identity
        case 1: Transform3D.rotation(0.3).concatenating(.scale(1.5, 1.5)).concatenating(.translation(20, 5))
        default: Transform3D.rotation(0.4, 0, 1, 0).concatenating(Self.perspective).concatenating(.translation(30, 10))
        }
        for clip in [-1, 0] {
            let (runInstances, runWritten) = Self.write([try Self.runItem(m, clip: clip)], clipCount: 1)
            let (glyphInstances, glyphWritten) = Self.write(try Self.run.quads.map { try Self.glyphItem($0, m, clip: clip) },
                                                            clipCount: 1)
            // Affine: the lean image pipeline; under perspective the general one.
            let kind: RectInstance.Kind = transform == 2 ? .image : .imageSharp
            #expect(runWritten == [.drawn(count: 3, variant: PipelineVariant(kind: kind, clipped: clip >= 0))])
            #expect(glyphWritten.allSatisfy { $0 == .drawn(count: 1, variant: PipelineVariant(kind: kind, clipped: clip >= 0)) })
            #expect(runInstances == glyphInstances, "transform \(transform), clip \(clip)")
        }
    }

    /// A run with no room says how many instances it needs and writes none; one at opacity 0
    /// draws nothing.
    @Test func roomAndOpacity() throws {
        var item = try Self.runItem(.identity)
        let buffer = UnsafeMutablePointer<RectInstance>.allocate(capacity: 2)
        defer { buffer.deallocate() }
        var span = RectInstance.Span(base: buffer, capacity: 2)
        #expect(RectInstance.write(&item, clipCount: 0, width: 100, height: 60, to: &span) == .needsRoom(3))
        #expect(span.count == 0)
        #expect(Self.write([try Self.runItem(.identity, opacity: 0)]).1 == [.nothing])
    }

    /// The frame is the union of the quads; two runs with equal quads compare equal (damage
    /// sees an unchanged text layer as unchanged), a changed color or scale does not.
    @Test func frameAndEquality() throws {
        #expect(Self.run.frame == Rect(10, 10, 35.5, 11))
        let same = GlyphRun(quads: Self.run.quads, scale: 1)
        #expect(same == Self.run)
        #expect(try Self.runItem(.identity).drawsSame(as: try Self.runItem(.identity)))
        var quads = Self.run.quads
        quads[2].color = Color(0, 0, 0.01)
        #expect(GlyphRun(quads: quads, scale: 1) != Self.run)
        #expect(GlyphRun(quads: Self.run.quads, scale: 2) != Self.run)
    }

    /// The blended-layer count: a text layer's run counts once at each pixel a glyph quad
    /// covers — once where two of its quads overlap — and nothing between its glyphs.
    @Test func aRunCountsOncePerPixel() throws {
        let list = DrawList(width: 100, height: 60, items: [try Self.runItem(.identity)])
        let counts = BlendCount(list)
        #expect(counts[11, 13] == 1)   // first glyph only
        #expect(counts[15, 15] == 1)   // where the first two overlap
        #expect(counts[18, 11] == 1)   // second only
        #expect(counts[30, 15] == 0)   // between the glyphs, inside the run's frame
        #expect(counts[42, 15] == 1)   // third
        #expect(counts[5, 5] == 0)
    }

    /// Full builds of an unchanged text layer reuse its run (the same object: no glyph looked
    /// up), also when it moves; a new color or a new scale make a new run, the one a fresh
    /// builder makes.
    @Test func fullBuildsReuseAnUnchangedLayersRun() throws {
        func tree(color: Color, x: Double, scale: Double) throws -> LayerTree {
            let b = TestScene.self
            return try b.tree(b.layer(1, .text, frame: Rect(x, 10, 150, 30), [
                ("string", .string("Kept glyphs")), ("fontSize", .number(16)), ("foregroundColor", .color(color)),
                ("transform", .transform(.scale(scale, scale))),
            ]))
        }
        func run(_ list: DrawList) -> GlyphRun? {
            for item in list.items { if case .image(let d) = item.kind, case .glyphs(let r) = d.mode { return r } }
            return nil
        }
        var builder = DrawListBuilder(widthPoints: 300, heightPoints: 100, scale: 1, background: .white)
        builder.patchesInPlace = false
        let first = try #require(run(builder.build(try tree(color: Color(0, 0, 0), x: 10, scale: 1))))
        let again = try #require(run(builder.build(try tree(color: Color(0, 0, 0), x: 10, scale: 1))))
        #expect(again === first)
        #expect(builder.textDrawing?.runsReused == 1)
        let moved = try #require(run(builder.build(try tree(color: Color(0, 0, 0), x: 60, scale: 1))))
        #expect(moved === first, "a new position is the transform's: the run stays")
        for (color, scale) in [(Color(1, 0, 0), 1.0), (Color(1, 0, 0), 1.5)] {
            let changed = try #require(run(builder.build(try tree(color: color, x: 10, scale: scale))))
            #expect(changed !== first)
            let fresh = try #require(run(TestScene.list(try tree(color: color, x: 10, scale: scale), width: 300,
                                                         height: 100)))
            // (Atlas places differ between the two atlases; rects, sizes and colors do not.)
            #expect(changed.quads.map(\.rect) == fresh.quads.map(\.rect) && changed.scale == fresh.scale)
            #expect(changed.quads.map { [$0.atlasWidth, $0.atlasHeight] } == fresh.quads.map { [$0.atlasWidth, $0.atlasHeight] })
            #expect(changed.quads.allSatisfy { $0.color == color } && changed.scale == scale)
        }
    }
}
