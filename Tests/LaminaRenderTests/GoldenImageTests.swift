import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

/// Small scenes compared with committed references in `References/` that are Lamina's own
/// output (`lamina` in References/manifest.txt: regenerate with `LAMINA_REGENERATE_REFERENCES=1`,
/// then look at the PNG before committing it).
@Suite("Golden images")
struct GoldenImageTests {
    /// Anti-aliasing may round differently on other devices; layout may not.
    static let tolerance = PixelTolerance(maxChannelError: 32, maxPercentOff: 2)

    @Test func cardsScene() throws {
        let list = DrawList(width: 96, height: 64, clearColor: Color(hex: "#F2F2F7")!, items: [
            // A card with rounded corners and a border.
            DrawItem(bounds: Rect(6, 6, 52, 36), backgroundColor: Color(hex: "#FFFFFF")!,
                     cornerRadii: CornerRadii(8), borderWidth: 2, borderColor: Color(hex: "#007AFF")!),
            // A translucent badge turned 30° about its center, overlapping the card.
            DrawItem(transform: Transform3D.translation(-12, -8).concatenating(.rotation(.pi / 6))
                        .concatenating(.translation(56, 40)),
                     bounds: Rect(0, 0, 24, 16), backgroundColor: Color(hex: "#FF3B30")!, opacity: 0.75,
                     cornerRadii: CornerRadii(minXMinY: 8, maxXMinY: 2, minXMaxY: 2, maxXMaxY: 8)),
            // A panel tilted away in perspective.
            DrawItem(transform: Transform3D.translation(-14, -20)
                        .concatenating(.rotation(.pi / 4, 0, 1, 0))
                        .concatenating(.perspective(60))
                        .concatenating(.translation(78, 30)),
                     bounds: Rect(0, 0, 28, 40), backgroundColor: Color(hex: "#34C759")!,
                     cornerRadii: CornerRadii(6), borderWidth: 3, borderColor: Color(0, 0, 0, 0.5)),
        ])
        let image = try renderImage(list, alpha: .straight)
        let result = try PixelComparator.compare(
            image, referencePath: PixelComparator.referencePath("cards"), tolerance: Self.tolerance)
        #expect(result.passed, "\(result)")
    }
}
