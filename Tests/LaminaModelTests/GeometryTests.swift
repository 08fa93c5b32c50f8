import LaminaGeometry
import LaminaModel
import Testing
import TestSupport

/// CALayer geometry. Expected values are worked out by hand from CALayer's definition:
/// the anchor point (in unit coordinates of bounds) sits at `position` in the superlayer;
/// the transform applies about it; bounds.origin is the local coordinate of the top-left.
@Suite struct CALayerGeometryTests {
    func layer(bounds: Rect, position: Point, anchor: Point = Point(0.5, 0.5)) -> LayerProperties {
        var p = LayerProperties()
        p.bounds = bounds; p.position = position; p.anchorPoint = anchor
        return p
    }

    @Test func transformToSuperlayerIsTheProductOfItsThreeParts() {
        // The closed form equals translation(−anchor) × transform × translation(position)
        // computed with general 4×4 products, for random geometry and 3D transforms.
        var random = SeededRandom(seed: 11)
        for _ in 0..<500 {
            var p = LayerProperties()
            p.bounds = Rect(random.uniform(-50, 50), random.uniform(-50, 50), random.uniform(0, 200), random.uniform(0, 200))
            p.anchorPoint = Point(random.uniform(-1, 2), random.uniform(-1, 2))
            p.anchorPointZ = random.uniform(-10, 10)
            p.position = Point(random.uniform(-500, 500), random.uniform(-500, 500))
            p.zPosition = random.uniform(-10, 10)
            var m = Transform3D.identity
            if random.below(4) > 0 {
                m = Transform3D.rotation(random.uniform(-4, 4), 0.2, 0.3, 1)
                    .concatenating(.scale(random.uniform(0.1, 3), random.uniform(0.1, 3), 1))
                    .concatenating(.translation(random.uniform(-9, 9), random.uniform(-9, 9), random.uniform(-9, 9)))
                m.m34 = random.uniform(-0.01, 0.01)
            }
            p.transform = m
            let a = Point(p.bounds.minX + p.anchorPoint.x * p.bounds.width, p.bounds.minY + p.anchorPoint.y * p.bounds.height)
            let expected = Transform3D.translation(-a.x, -a.y, -p.anchorPointZ).concatenating(m)
                .concatenating(.translation(p.position.x, p.position.y, p.zPosition))
            #expect(p.transformToSuperlayer == expected)
        }
    }

    @Test func centeredAnchorPutsTheCenterAtPosition() {
        let p = layer(bounds: Rect(0, 0, 100, 50), position: Point(200, 150))
        // frame.origin = position − anchor·size = (200 − 50, 150 − 25).
        #expect(p.frame == Rect(150, 125, 100, 50))
        #expect(p.transformToSuperlayer.apply(Point(0, 0)) == Point(150, 125))
        #expect(p.transformToSuperlayer.apply(Point(100, 50)) == Point(250, 175))
    }

    @Test func anchorPointCornersMoveTheFrame() {
        // anchor (0,0): the top-left corner sits at position.
        #expect(layer(bounds: Rect(0, 0, 100, 50), position: Point(200, 150), anchor: .zero).frame
                == Rect(200, 150, 100, 50))
        // anchor (1,1): the bottom-right corner sits at position: origin (200−100, 150−50).
        #expect(layer(bounds: Rect(0, 0, 100, 50), position: Point(200, 150), anchor: Point(1, 1)).frame
                == Rect(100, 100, 100, 50))
    }

    @Test func boundsOriginOffsetsTheLocalSpace() {
        let p = layer(bounds: Rect(10, 20, 100, 50), position: Point(200, 150))
        // Local (10, 20) is the top-left corner, which is at (150, 125); local (0,0) is 10 left, 20 up.
        #expect(p.transformToSuperlayer.apply(Point(10, 20)) == Point(150, 125))
        #expect(p.transformToSuperlayer.apply(Point(0, 0)) == Point(140, 105))
        #expect(p.frame == Rect(150, 125, 100, 50))   // bounds.origin does not move the frame
    }

    @Test func rotationAppliesAboutTheAnchorPoint() {
        var p = layer(bounds: Rect(0, 0, 100, 50), position: Point(200, 150))
        p.transform = .rotation(.pi / 2)
        // Right-middle (100, 25) is (+50, 0) from the anchor; +90° on a y-down screen turns
        // +x into +y: (0, +50) from position → (200, 200).
        let q = p.transformToSuperlayer.apply(Point(100, 25))
        #expect(abs(q.x - 200) < 1e-9 && abs(q.y - 200) < 1e-9)
        // The frame is the bounding box of the turned rect: 50 wide, 100 tall, centered at position.
        let f = p.frame
        #expect(abs(f.origin.x - 175) < 1e-9 && abs(f.origin.y - 100) < 1e-9)
        #expect(abs(f.size.width - 50) < 1e-9 && abs(f.size.height - 100) < 1e-9)
    }

    @Test func nestedTransformsCompose() {
        var parent = layer(bounds: Rect(0, 0, 200, 200), position: Point(100, 100), anchor: .zero)
        parent.transform = .scale(2, 2)
        let child = layer(bounds: Rect(0, 0, 20, 20), position: Point(50, 50))
        // Child local (0,0) → parent local (40,40) → scaled about the parent's anchor (0,0):
        // (80,80) → placed at the parent's position: (180,180).
        let m = child.transformToSuperlayer.concatenating(parent.transformToSuperlayer)
        #expect(m.apply(Point(0, 0)) == Point(180, 180))
        #expect(m.apply(Point(20, 20)) == Point(220, 220))
    }

    @Test func sublayerTransformAppliesAboutTheAnchor() {
        var parent = layer(bounds: Rect(0, 0, 100, 100), position: Point(50, 50))
        parent.sublayerTransform = .scale(2, 2)
        // A sublayer point at parent-local (75, 50) is (25, 0) from the anchor (50, 50): ×2 → (100, 50).
        let q = parent.sublayerTransformAboutAnchor.concatenating(parent.transformToSuperlayer).apply(Point(75, 50))
        #expect(q == Point(100, 50))
    }

    @Test func settingFrameSetsBoundsSizeAndPosition() throws {
        var p = layer(bounds: Rect(5, 5, 10, 10), position: .zero, anchor: Point(0.25, 0.5))
        try p.setValue(.rect(Rect(100, 200, 40, 60)), forKeyPath: "frame")
        #expect(p.bounds == Rect(5, 5, 40, 60))
        // position = origin + anchor·size = (100 + 10, 200 + 30).
        #expect(p.position == Point(110, 230))
        #expect(p.frame == Rect(100, 200, 40, 60))
    }
}
