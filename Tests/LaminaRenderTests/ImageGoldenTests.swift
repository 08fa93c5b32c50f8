import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import Testing
import TestSupport
@testable import LaminaRender
import LaminaModel

/// Layer contents through the whole path (layer tree → builder → GPU) against cairo drawing
/// the same source images with the same gravity, contentsRect, contentsCenter, scale and filter
/// (`scripts/gen-references`, `image_*` scenes in scripts/gen_references_images.py: same names
/// and descriptions). The source images are the references folder's `image-source-*.png`.
/// Every tolerance is the project's rule for independent references: mean ≤ 1/255, ≤ 0.5 % of
/// pixels off by more than 64/255 (bilinear weights differ in the last bits: pixman's are 7-bit).
@Suite("Image contents against cairo")
struct ImageGoldenTests {
    static let gray = Color(0.85, 0.85, 0.85)
    static let tolerance = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)

    static func source(_ name: String) throws -> Image {
        try ImageDecoder.read(path: PixelComparator.referencePath(name))
    }

    func layer(_ id: UInt32, frame: Rect, _ properties: [(String, PropertyValue)]) -> [LayerChange] {
        TestScene.layer(id, frame: frame, properties)
    }

    func compare(_ operations: [LayerChange], width: Double, height: Double, _ name: String,
                 images: [String: Image], sourceLocation: SourceLocation = #_sourceLocation) throws -> DrawList {
        let tree = try TestScene.tree(operations)
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: Color(1, 1, 1))
        builder.images = images
        let list = builder.build(tree)
        try VisualGoldenTests().compare(list, name, Self.tolerance, sourceLocation: sourceLocation)
        return list
    }

    /// 12 layers in 4 columns × 3 rows, layer k at (2 + 44 (k % 4), 2 + 24 (k / 4), 40, 20), gray
    /// background, contents the 8 × 6 grid with the k-th gravity (linear); the resizeAspectFill
    /// layer has masksToBounds (its 40 × 30 contents clipped to its bounds).
    @Test func imageGravity() throws {
        let gravities: [ContentsGravity] = [.center, .top, .bottom, .left, .right, .topLeft, .topRight, .bottomLeft,
                                            .bottomRight, .resize, .resizeAspect, .resizeAspectFill]
        var ops: [LayerChange] = []
        for (k, gravity) in gravities.enumerated() {
            var properties: [(String, PropertyValue)] = [
                ("backgroundColor", .color(Self.gray)), ("contents", .string("grid")),
                ("contentsGravity", .string(gravity.rawValue)),
            ]
            if gravity == .resizeAspectFill { properties.append(("masksToBounds", .bool(true))) }
            ops += layer(UInt32(k + 1), frame: Rect(Double(2 + 44 * (k % 4)), Double(2 + 24 * (k / 4)), 40, 20), properties)
        }
        let list = try compare(ops, width: 176, height: 72, "image-gravity", images: ["grid": try Self.source("image-source-grid")])
        #expect(list.items.filter { if case .image = $0.kind { true } else { false } }.count == 12)
    }

    /// Layer A (4, 4, 64, 48): contentsRect (0.25, 0, 0.5, 0.5) of the grid (4 × 3 pixels)
    /// stretched (resize), magnificationFilter nearest. Layer B (72, 4, 60, 48): the whole grid
    /// stretched, linear, opacity 0.5, cornerRadius 8 with masksToBounds (the contents clipped to
    /// the rounded bounds).
    @Test func imageRectFilter() throws {
        let ops = layer(1, frame: Rect(4, 4, 64, 48), [
            ("contents", .string("grid")), ("contentsRect", .rect(Rect(0.25, 0, 0.5, 0.5))),
            ("magnificationFilter", .string("nearest")),
        ]) + layer(2, frame: Rect(72, 4, 60, 48), [
            ("contents", .string("grid")), ("opacity", .number(0.5)), ("cornerRadius", .number(8)),
            ("masksToBounds", .bool(true)),
        ])
        _ = try compare(ops, width: 136, height: 56, "image-rect-filter", images: ["grid": try Self.source("image-source-grid")])
    }

    /// The 12 × 12 frame image, contentsCenter (0.25, 0.25, 0.5, 0.5). Layer A (4, 4, 64, 40),
    /// nearest: 3 × 3 corners. Layer B (76, 4, 40, 56), contentsScale 2 (1.5-point corners), linear.
    @Test func imageNineSlice() throws {
        let center: PropertyValue = .rect(Rect(0.25, 0.25, 0.5, 0.5))
        let ops = layer(1, frame: Rect(4, 4, 64, 40), [
            ("contents", .string("frame")), ("contentsCenter", center), ("magnificationFilter", .string("nearest")),
        ]) + layer(2, frame: Rect(76, 4, 40, 56), [
            ("contents", .string("frame")), ("contentsCenter", center), ("contentsScale", .number(2)),
        ])
        _ = try compare(ops, width: 120, height: 64, "image-nine-slice", images: ["frame": try Self.source("image-source-frame")])
    }

    /// Contents cut by a square masksToBounds, rotated (`image_cropped` in
    /// scripts/gen_references_images.py): A (8, 12, 48, 32) rotated 20°, the grid aspect-filled;
    /// B (68, 12, 40, 40) rotated -15°, the frame as a nine-slice (center (0.25, 0.25, 0.5, 0.5),
    /// contentsScale 0.25, topLeft: 48 × 48, its right and bottom corners cut); C (116, 4, 40, 52),
    /// the grid's contentsRect (0.25, 0, 0.5, 1) at contentsScale 0.1, bottomRight (40 × 60),
    /// nearest. The contents are cut to the bounds (`ContentsGeometry.cropped(to:)`) and draw
    /// with no clip; the layers' clips stay for sublayers.
    @Test func imageCropped() throws {
        func rotated(_ degrees: Double) -> (String, PropertyValue) {
            ("transform", .transform(.rotation(degrees * .pi / 180)))
        }
        let gray: (String, PropertyValue) = ("backgroundColor", .color(Self.gray))
        let clips: (String, PropertyValue) = ("masksToBounds", .bool(true))
        let ops = layer(1, frame: Rect(8, 12, 48, 32), [
            gray, clips, rotated(20), ("contents", .string("grid")), ("contentsGravity", .string("resizeAspectFill")),
        ]) + layer(2, frame: Rect(68, 12, 40, 40), [
            gray, clips, rotated(-15), ("contents", .string("frame")), ("contentsGravity", .string("topLeft")),
            ("contentsCenter", .rect(Rect(0.25, 0.25, 0.5, 0.5))), ("contentsScale", .number(0.25)),
        ]) + layer(3, frame: Rect(116, 4, 40, 52), [
            gray, clips, ("contents", .string("grid")), ("contentsGravity", .string("bottomRight")),
            ("contentsRect", .rect(Rect(0.25, 0, 0.5, 1))), ("contentsScale", .number(0.1)),
            ("magnificationFilter", .string("nearest")),
        ])
        let list = try compare(ops, width: 160, height: 64, "image-cropped",
                               images: ["grid": try Self.source("image-source-grid"),
                                        "frame": try Self.source("image-source-frame")])
        let images = list.items.filter { if case .image = $0.kind { true } else { false } }
        #expect(images.count == 3)
        #expect(images.allSatisfy { $0.clip < 0 }, "cut contents draw without a clip")
        #expect(list.clips.count == 3)
    }

    /// Two small images that the renderer packs side by side in its small-image atlas (warm
    /// first, cool to its right), drawn so that filtering reaches their edge texels (`image_atlas`
    /// in scripts/gen_references_images.py): 1 warm magnified 6× (linear), 2 cool magnified
    /// (nearest both ways), 3 warm minified 10 → 6, 4 warm's contentsRect (0.6, 0.2, 0.4, 0.6)
    /// (its right edge the image's), 5 cool centred at contentsScale 0.5, 6 warm rotated 20°,
    /// 7 cool resizeAspect rotated -15° (nearest). A neighbour's texel read at an edge would
    /// show at once: warm's red is 255, cool's 0.
    @Test func imageAtlas() throws {
        func rotated(_ degrees: Double) -> (String, PropertyValue) {
            ("transform", .transform(.rotation(degrees * .pi / 180)))
        }
        let nearest: [(String, PropertyValue)] = [("minificationFilter", .string("nearest")),
                                                  ("magnificationFilter", .string("nearest"))]
        let ops = layer(1, frame: Rect(4, 4, 60, 60), [("contents", .string("warm"))])
            + layer(2, frame: Rect(68, 4, 60, 60), [("contents", .string("cool"))] + nearest)
            + layer(3, frame: Rect(132, 4, 6, 6), [("contents", .string("warm"))])
            + layer(4, frame: Rect(132, 14, 30, 30), [("contents", .string("warm")),
                                                        ("contentsRect", .rect(Rect(0.6, 0.2, 0.4, 0.6)))])
            + layer(5, frame: Rect(166, 14, 30, 30), [("contents", .string("cool")),
                                                        ("contentsGravity", .string("center")),
                                                        ("contentsScale", .number(0.5))])
            + layer(6, frame: Rect(8, 74, 48, 32), [("contents", .string("warm")), rotated(20)])
            + layer(7, frame: Rect(80, 74, 40, 30), [("contents", .string("cool")), rotated(-15),
                                                       ("contentsGravity", .string("resizeAspect"))] + nearest)
        let list = try compare(ops, width: 208, height: 112, "image-atlas",
                               images: ["warm": try Self.source("image-source-warm"),
                                        "cool": try Self.source("image-source-cool")])
        #expect(list.items.filter { if case .image = $0.kind { true } else { false } }.count == 7)
        // Drawn from the atlas, side by side.
        let renderer = try makeRenderer(width: 208, height: 112)
        try renderer.render(list)
        #expect(renderer.imageAtlasEntries == 2)
        let entries = renderer.textures.atlas.entries.values.sorted { $0.x < $1.x }
        #expect(entries.map { [$0.x, $0.y, $0.width, $0.height] } == [[0, 0, 10, 10], [10, 0, 10, 10]])
    }
}
