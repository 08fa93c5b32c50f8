import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaPNG
import Testing
import TestSupport
@testable import LaminaRender

/// What background filters read inside an offscreen group (issue 25 item 3). Core Animation's
/// documentation says only that they filter "the content immediately behind the layer", which
/// "typically belongs to the superlayer" (CALayer.backgroundFilters; the Core Animation
/// Programming Guide, "Layer Style Property Animations": "primarily consists of the parent
/// layer's content"); CSS Filter Effects Level 2 defines it: a backdrop filter reads up to its
/// Backdrop Root, and an element with a filter, opacity below 1, a mask, a clip-path or a blend
/// mode is one. Lamina does as CSS: a layer with background filters inside a group drawn
/// offscreen (group opacity, a filter group, a mask drawn as a group, a blend) reads what lies
/// beneath it within that group only. These scenes pin it: an invert over a red left half
/// reads the whole scene (cyan) without a group, and nothing (the red shows through) from
/// inside one.
@Suite struct BackdropRootTests {
    /// Layer 1: the left half red over the white background; then `rest`.
    static func image(_ rest: [LayerChange]) throws -> RGBAImage {
        let list = TestScene.list(try TestScene.tree(
            TestScene.layer(1, frame: Rect(0, 0, 32, 64), [("backgroundColor", .color(Color(1, 0, 0)))]) + rest))
        return try renderImage(list)
    }

    static let invert: PropertyValue = .filters([LayerFilter(kind: .invert, amount: 1)])

    @Test func withoutAGroupTheBackdropIsTheWholeSceneBeneath() throws {
        let image = try Self.image(TestScene.layer(2, frame: Rect(0, 0, 64, 64), [("backgroundFilters", Self.invert)]))
        expectPixel(image, 10, 32, RGBA(0, 255, 255), tolerance: 2, "red inverted")
        expectPixel(image, 50, 32, RGBA(0, 0, 0), tolerance: 2, "white inverted")
    }

    @Test func insideAnOpacityGroupTheBackdropIsTheGroupsContentOnly() throws {
        // Group 3 (opacity 0.5): layer 4 blue over the right half, then the panel. Within the
        // group the panel reads blue (→ yellow) on the right and nothing on the left; the group
        // at 0.5 leaves the red as it is and turns the white right half to (1, 1, 0.5).
        let image = try Self.image(
            TestScene.layer(3, frame: Rect(0, 0, 64, 64), [("opacity", .number(0.5))])
            + TestScene.layer(4, parent: 3, frame: Rect(32, 0, 32, 64), [("backgroundColor", .color(Color(0, 0, 1)))])
            + TestScene.layer(5, parent: 3, frame: Rect(0, 0, 64, 64), [("backgroundFilters", Self.invert)]))
        expectPixel(image, 10, 32, RGBA(255, 0, 0), tolerance: 2, "red, not read from inside the group")
        expectPixel(image, 50, 32, RGBA(255, 255, 128), tolerance: 2, "blue inverted within the group, at 0.5 over white")
    }

    @Test func insideAFilterGroupTheBackdropIsTheGroupsContentOnly() throws {
        // Group 3 with filters [grayscale 1]: the same content; yellow's luminance (0.2126 +
        // 0.7152 → 237) on the right, the red left half untouched.
        let image = try Self.image(
            TestScene.layer(3, frame: Rect(0, 0, 64, 64), [("filters", .filters([LayerFilter(kind: .grayscale, amount: 1)]))])
            + TestScene.layer(4, parent: 3, frame: Rect(32, 0, 64, 64), [("backgroundColor", .color(Color(0, 0, 1)))])
            + TestScene.layer(5, parent: 3, frame: Rect(0, 0, 64, 64), [("backgroundFilters", Self.invert)]))
        expectPixel(image, 10, 32, RGBA(255, 0, 0), tolerance: 2, "red, not read from inside the filter group")
        expectPixel(image, 50, 32, RGBA(237, 237, 237), tolerance: 2, "blue inverted within the group, then gray")
    }
}
