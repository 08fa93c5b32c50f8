import Foundation
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing
import TestSupport

/// Replicator layers in the draw list (DrawListBuilder+Replicator.swift): the model holds the
/// sublayers once and the list holds one copy per instance, placed and tinted as worked out
/// here by hand from CAReplicatorLayer's documentation.
@Suite("Replicator layers (lists)")
struct ReplicatorListTests {
    func list(_ changes: [LayerChange], at time: Double = 0) throws -> DrawList {
        let t = try TestScene.tree(changes)
        var presentation = LayerTree()
        t.updatePresentation(&presentation, at: time)
        var builder = DrawListBuilder(widthPoints: 200, heightPoints: 200, scale: 1, background: .white)
        return builder.build(presentation)
    }

    /// The device point of a rect item's bounds centre.
    func centre(_ item: DrawItem) -> Point {
        let b = item.bounds, m = item.transform
        let x = b.midX, y = b.midY
        return Point(x * m.m11 + y * m.m21 + m.m41, x * m.m12 + y * m.m22 + m.m42)
    }

    @Test func twelveDotsAreTwelveItemsRotatedAboutTheCentreWithAlphaOffsets() throws {
        // Replicator 100 × 100 with its top-left at (50, 50): centre (100, 100). The dot's
        // centre is at (100, 60), 40 above the centre; instance k is turned k × 30° about the
        // centre (clockwise on screen, y down): (100 + 40 sin θ, 100 − 40 cos θ), θ = k·π/6.
        let ops = TestScene.layer(1, .replicator, frame: Rect(50, 50, 100, 100), [
            ("instanceCount", .number(12)), ("instanceTransform", .transform(.rotation(.pi / 6))),
            ("instanceAlphaOffset", .number(-1.0 / 12)),
        ]) + TestScene.layer(2, parent: 1, frame: Rect(45, 0, 10, 20), [("backgroundColor", .color(Color(0, 0, 1)))])
        let items = try list(ops).items
        #expect(items.count == 12, "twelve draws from one model layer")
        for (k, item) in items.enumerated() {
            let theta = Double(k) * .pi / 6
            let c = centre(item)
            #expect(abs(c.x - (100 + 40 * sin(theta))) < 1e-6 && abs(c.y - (100 - 40 * cos(theta))) < 1e-6, "instance \(k): \(c)")
            // Tint (1, 1, 1, 1 − k/12) × blue: the item's color in Float.
            let bg = item.backgroundColor
            #expect(bg.red == 0 && abs(bg.blue - 1) < 1e-6 && abs(bg.alpha - (1 - Double(k) / 12)) < 1e-6, "instance \(k): \(bg)")
        }
    }

    @Test func tintIsInstanceColorPlusOffsetsClampedTimesTheItemsColors() throws {
        let t = ReplicatorDrawing.tint(Color(0.5, 1, 0.2, 1), offsets: Color(0.3, -0.4, 0.1, -0.25), instance: 2)
        // 0.5 + 0.6 clamps to 1; 1 − 0.8; 0.2 + 0.2; 1 − 0.5.
        #expect(t.red == 1 && abs(t.green - 0.2) < 1e-12 && abs(t.blue - 0.4) < 1e-12 && t.alpha == 0.5)
        #expect(ReplicatorDrawing.tint(nil, offsets: Color(-0.6, 0, 0, 0), instance: 2).red == 0)  // white − 1.2 → 0
        let ops = TestScene.layer(1, .replicator, frame: Rect(0, 0, 100, 20), [
            ("instanceCount", .number(3)), ("instanceTransform", .transform(.translation(30, 0))),
            ("instanceColor", .color(Color(0.5, 1, 1, 1))), ("instanceGreenOffset", .number(-0.5)),
        ]) + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 20, 20), [
            ("backgroundColor", .color(Color(0.8, 0.6, 0.4, 1))), ("borderWidth", .number(2)),
            ("borderColor", .color(Color(1, 1, 1, 0.5))),
        ])
        let items = try list(ops).items
        #expect(items.count == 3)
        // Instance k: tint (0.5, 1 − 0.5k, 1, 1) → background (0.4, 0.6(1 − 0.5k), 0.4), border (0.5, 1 − 0.5k, 1, 0.5).
        for (k, item) in items.enumerated() {
            let g = max(1 - 0.5 * Double(k), 0)
            let bg = item.backgroundColor, border = item.borderColor
            #expect(abs(bg.red - 0.4) < 1e-6 && abs(bg.green - 0.6 * g) < 1e-6 && abs(bg.blue - 0.4) < 1e-6, "\(k) \(bg)")
            #expect(abs(border.red - 0.5) < 1e-6 && abs(border.green - g) < 1e-6 && abs(border.alpha - 0.5) < 1e-6, "\(k) \(border)")
            #expect(abs(centre(item).x - (10 + 30 * Double(k))) < 1e-6)
        }
    }

    @Test func nestedReplicatorsMultiplyCountsTransformsAndTints() throws {
        // Outer: 3 rows 25 apart, red −0.25 a row; inner: 4 columns 25 apart, blue −0.2 a column.
        let ops = TestScene.layer(1, .replicator, frame: Rect(0, 0, 100, 100), [
            ("instanceCount", .number(3)), ("instanceTransform", .transform(.translation(0, 25))),
            ("instanceRedOffset", .number(-0.25)),
        ]) + TestScene.layer(2, .replicator, parent: 1, frame: Rect(0, 0, 100, 20), [
            ("instanceCount", .number(4)), ("instanceTransform", .transform(.translation(25, 0))),
            ("instanceBlueOffset", .number(-0.2)),
        ]) + TestScene.layer(3, parent: 2, frame: Rect(0, 0, 20, 20), [("backgroundColor", .color(.white))])
        let items = try list(ops).items
        #expect(items.count == 12)
        for row in 0..<3 {
            for column in 0..<4 {
                let item = items[row * 4 + column]
                let c = centre(item)
                #expect(abs(c.x - (10 + 25 * Double(column))) < 1e-6 && abs(c.y - (10 + 25 * Double(row))) < 1e-6)
                let bg = item.backgroundColor
                #expect(abs(bg.red - (1 - 0.25 * Double(row))) < 1e-6 && abs(bg.blue - (1 - 0.2 * Double(column))) < 1e-6
                        && abs(bg.green - 1) < 1e-6)
            }
        }
    }

    @Test func countsAreRoundedDownBoundedAndZeroDrawsNoSublayers() throws {
        func count(_ n: Double) throws -> Int {
            try list(TestScene.layer(1, .replicator, frame: Rect(0, 0, 10, 10), [("instanceCount", .number(n))])
                     + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 1, 1), [("backgroundColor", .color(.black))])).items.count
        }
        #expect(try count(0) == 0)
        #expect(try count(0.9) == 0)
        #expect(try count(3.7) == 3)
        #expect(try count(1e12) == ReplicatorDrawing.maxInstanceCount)
        #expect(ReplicatorDrawing.instanceCount(.infinity) == 0)
    }

    @Test func instanceTransformAnimatesAndTheListIsRebuiltEachFrame() throws {
        let ops = TestScene.layer(1, .replicator, frame: Rect(0, 0, 100, 20), [
            ("instanceCount", .number(2)),
        ]) + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 20, 20), [("backgroundColor", .color(.black))])
        var t = try TestScene.tree(ops)
        var timing = AnimationTiming(duration: 1); timing.timingFunction = .linear
        try t.apply(Commit(client: 1, content: .operations([.addAnimation(1, key: "spread", animation: .basic(BasicAnimation(
            keyPath: "instanceTransform.translation.x", from: .double(0), to: .double(40), timing: timing)))])), at: 0)
        var builder = DrawListBuilder(widthPoints: 200, heightPoints: 200, scale: 1, background: .white)
        var presentation = LayerTree()
        for time in [0.25, 0.5, 0.75] {
            t.updatePresentation(&presentation, at: time)
            let items = builder.build(presentation).items
            #expect(items.count == 2)
            #expect(abs(centre(items[1]).x - (10 + 40 * time)) < 1e-6, "time \(time)")
        }
    }
}

/// Hit testing a replicator: only the model's sublayers (instance 0) are layers, so a point on
/// another instance hits the replicator (inside its bounds) or nothing (outside) — as Core
/// Animation's `hitTest(_:)`, which returns layers and so never a copy.
@Suite("Replicator layers (hit testing)")
struct ReplicatorHitTestTests {
    @Test func instancesAfterTheFirstAreNotHitTestable() throws {
        // Instances at x 0…20, 50…70 and 100…120; the replicator's bounds are 0…80.
        let ops = TestScene.layer(1, .replicator, frame: Rect(0, 0, 80, 20), [
            ("instanceCount", .number(3)), ("instanceTransform", .transform(.translation(50, 0))),
        ]) + TestScene.layer(2, parent: 1, frame: Rect(0, 0, 20, 20), [("backgroundColor", .color(.black))])
        let t = try TestScene.tree(ops)
        #expect(t.hitTest(Point(10, 10)) == TestScene.id(2))   // instance 0: the dot itself
        #expect(t.hitTest(Point(60, 10)) == TestScene.id(1))   // instance 1, inside the replicator's bounds
        #expect(t.hitTest(Point(110, 10)) == nil)              // instance 2, outside the bounds
    }
}
