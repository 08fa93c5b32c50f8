import LaminaGeometry
import LaminaTree
import Testing
import TestSupport
import LaminaPNG
@testable import LaminaFrame
@testable import LaminaRender
import LaminaModel

/// `doubleSided` (CALayer.isDoubleSided): a layer turned to show its back is drawn mirrored when
/// true (the default) and not at all, with its sublayers, when false.
///
/// The scene: on a white 64×64 canvas, a blue 32×32 card centred at (32, 32) whose left half
/// (local x 0…16) is covered by a red sublayer. Turned by π about y (about its centre), local x
/// maps to device x = 48 − x, so the red half lands on device x 32…48.
@Suite("doubleSided")
struct DoubleSidedTests {
    func render(cardTurned: Bool, card cardDoubleSided: Bool = true, half halfDoubleSided: Bool = true) throws -> RGBAImage {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 32, 32))),
            .set(1, keyPath: "position", value: .point(Point(32, 32))),
            .set(1, keyPath: "backgroundColor", value: .color(blue)),
            .set(1, keyPath: "transform", value: .transform(cardTurned ? .rotation(.pi, 0, 1, 0) : .identity)),
            .set(1, keyPath: "doubleSided", value: .bool(cardDoubleSided)),
            .create(2, .layer), .addSublayer(parent: 1, child: 2),
            .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 16, 32))),
            .set(2, keyPath: "position", value: .point(Point(8, 16))),
            .set(2, keyPath: "backgroundColor", value: .color(red)),
            .set(2, keyPath: "doubleSided", value: .bool(halfDoubleSided)),
        ])))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        return try renderImage(builder.build(t), alpha: .straight)
    }

    @Test func aTurnedDoubleSidedLayerDrawsMirrored() throws {
        let image = try render(cardTurned: true)
        expectPixel(image, 40, 32, RGBA(255, 0, 0), "the red half, mirrored to the right")
        expectPixel(image, 24, 32, RGBA(0, 0, 255), "the blue half, mirrored to the left")
    }

    @Test func aTurnedSingleSidedLayerDrawsNothing() throws {
        let image = try render(cardTurned: true, card: false)
        expectPixel(image, 40, 32, RGBA(255, 255, 255), "no sublayer")
        expectPixel(image, 24, 32, RGBA(255, 255, 255), "no card")
    }

    @Test func aSublayerFacesAwayWithItsTurnedSuperlayer() throws {
        let image = try render(cardTurned: true, half: false)
        expectPixel(image, 40, 32, RGBA(0, 0, 255), "the red half is culled, the card shows")
        expectPixel(image, 24, 32, RGBA(0, 0, 255), "the card")
    }

    @Test func aFrontFacingSingleSidedLayerDraws() throws {
        let image = try render(cardTurned: false, card: false, half: false)
        expectPixel(image, 24, 32, RGBA(255, 0, 0), "the red half on the left")
        expectPixel(image, 40, 32, RGBA(0, 0, 255), "the card on the right")
    }

    @Test func facingFollowsTheProjectedPlane() {
        // Turned about y by less than a quarter turn under perspective: still the front.
        let toPixels = Transform3D.rotation(1.2, 0, 1, 0).concatenating(.perspective(500))
        #expect(!DrawListBuilder.facesAway(toPixels))
        #expect(DrawListBuilder.facesAway(Transform3D.rotation(2, 0, 1, 0).concatenating(.perspective(500))))
        #expect(DrawListBuilder.facesAway(.rotation(.pi, 1, 0, 0)))      // turned about x
        #expect(!DrawListBuilder.facesAway(.rotation(.pi, 0, 0, 1)))     // turned in the plane
        #expect(DrawListBuilder.facesAway(.scale(-1, 1, 1)))             // mirrored
    }
}
