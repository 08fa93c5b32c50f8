import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

/// Hit testing against the presentation tree. Expected hits are worked out from CALayer's
/// geometry: a layer's local point is the canvas point mapped back through position, the
/// transform about the anchor point, and the superlayers' sublayerTransforms.
@Suite struct HitTestTests {
    static func id(_ n: UInt32) -> LayerID { LayerID(client: 1, local: n) }

    /// Builds layers (local ids 1…) from (parent, settings) pairs, parent 0 = the client root.
    func tree(_ layers: [(parent: UInt32, kind: LayerKind, props: [(String, PropertyValue)])]) throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = []
        for (i, l) in layers.enumerated() {
            let n = UInt32(i + 1)
            ops.append(.create(n, l.kind))
            for (k, v) in l.props { ops.append(.set(n, keyPath: k, value: v)) }
            ops.append(.addSublayer(parent: l.parent, child: n))
        }
        try t.apply(Commit(client: 1, content: .operations(ops)))
        return t
    }

    static let square: [(String, PropertyValue)] = [("bounds", .rect(Rect(0, 0, 100, 100))), ("position", .point(Point(200, 200)))]

    @Test func rotatedLayer() throws {
        // 100×100 centred at (200, 200), rotated 45°: its corners reach 70.7 from the centre
        // along the axes, its edge midpoints lie on the diagonals at 50.
        let t = try tree([(0, .layer, Self.square + [("transform", .transform(.rotation(.pi / 4)))])])
        #expect(t.hitTest(Point(200, 135)) == Self.id(1))        // 65 up: inside the diamond (|x|+|y| ≤ 70.7)
        #expect(t.hitTest(Point(155, 155)) == nil)                // on the diagonal, 63.6 out: beyond the edge at 50
        #expect(t.hitTest(Point(170, 170)) == Self.id(1))         // 42.4 out along the diagonal: inside
    }

    @Test func perspectiveRotatedLayer() throws {
        // Rotated 60° about y, then perspective d = 500 (m34 = −1/500). A local offset u from
        // the anchor lands at X = u·cos60° / (1 + u·sin60°/500): u = 50 → 23.0, u = −50 → −27.4
        // (the edge that turns towards the eye looks wider), so the layer spans 172.6…223.0.
        var m = Transform3D.rotation(.pi / 3, 0, 1, 0)
        m = m.concatenating(.perspective(500))
        let t = try tree([(0, .layer, Self.square + [("transform", .transform(m))])])
        #expect(t.hitTest(Point(200, 200)) == Self.id(1))
        #expect(t.hitTest(Point(221, 200)) == Self.id(1))         // u = 45.3
        #expect(t.hitTest(Point(176, 200)) == Self.id(1))         // u = −44.3
        #expect(t.hitTest(Point(225, 200)) == nil)
        #expect(t.hitTest(Point(171, 200)) == nil)
    }

    /// A pointer event's path (`convertFromCanvasAlongSuperlayers`): each layer up the chain
    /// with the point as `convertFromCanvas` gives it alone, bit for bit, and by hand for the
    /// affine part: 1 at (50, 60) anchor (0, 0) with sublayerTransform ×2 (about its anchor);
    /// 2 in it at (10, 10) anchor (0, 0), so 2's (u, v) is 1's (2·(10 + u), 2·(10 + v)), and
    /// canvas (70, 90), 1's (20, 30), is 2's (0, 5); 3 in 2, rotated about y under perspective
    /// (its point from `convertFromCanvas`).
    @Test func aPathConvertsThePointForEveryLayerUpTheChain() throws {
        var tilt = Transform3D.rotation(.pi / 5, 0, 1, 0)
        tilt = tilt.concatenating(.perspective(400))
        let t = try tree([
            (0, .layer, [("bounds", .rect(Rect(0, 0, 100, 100))), ("anchorPoint", .point(Point(0, 0))),
                         ("position", .point(Point(50, 60))), ("sublayerTransform", .transform(.scale(2, 2)))]),
            (1, .layer, [("bounds", .rect(Rect(0, 0, 40, 40))), ("anchorPoint", .point(Point(0, 0))),
                         ("position", .point(Point(10, 10)))]),
            (2, .layer, [("bounds", .rect(Rect(0, 0, 20, 20))), ("position", .point(Point(10, 10))),
                         ("transform", .transform(tilt))]),
        ])
        let p = Point(70, 90)
        let path = t.convertFromCanvasAlongSuperlayers(p, of: Self.id(3))
        #expect(path.map(\.id) == [Self.id(3), Self.id(2), Self.id(1), LayerID(client: 1, local: 0), .root])
        for hop in path { #expect(hop.point == t.convertFromCanvas(p, to: hop.id)) }
        #expect(path[1].point == Point(0, 5) && path[2].point == Point(20, 30) && path[3].point == p)
        #expect(t.convertFromCanvasAlongSuperlayers(p, of: Self.id(99)).isEmpty)
    }

    @Test func sublayersAreFlattenedIntoTheirSuperlayersPlane() throws {
        // The parent of perspectiveRotatedLayer; a 20×20 child centred at the parent's local
        // (90, 50) and raised by zPosition 100. Core Animation flattens it into the parent's
        // plane (z dropped), so it spans u = 30…50 from the parent's anchor: X = 200 +
        // u·cos60° / (1 + u·sin60°/500) = 214.3…223.0. Unflattened, z = 100 would carry it
        // through the parent's rotation to X ≈ 310, outside the parent.
        var m = Transform3D.rotation(.pi / 3, 0, 1, 0)
        m = m.concatenating(.perspective(500))
        let child: [(String, PropertyValue)] = [("bounds", .rect(Rect(0, 0, 20, 20))), ("position", .point(Point(90, 50))),
                                                ("zPosition", .number(100))]
        let t = try tree([(0, .layer, Self.square + [("transform", .transform(m))]), (1, .layer, child)])
        #expect(t.hitTest(Point(218, 200)) == Self.id(2))
        #expect(t.hitTest(Point(212, 200)) == Self.id(1))
        #expect(t.hitTest(Point(310, 200)) == nil)
    }

    @Test func masksToBoundsClipsSublayers() throws {
        // Parent 100×100 at (200, 200) (covers 150…250); child 50×50 centred at the
        // parent's local (120, 50), i.e. canvas 270 → 245…295 on x.
        let parent = Self.square + [("masksToBounds", .bool(true))]
        let child: [(String, PropertyValue)] = [("bounds", .rect(Rect(0, 0, 50, 50))), ("position", .point(Point(120, 50)))]
        let t = try tree([(0, .layer, parent), (1, .layer, child)])
        #expect(t.hitTest(Point(247, 200)) == Self.id(2))         // inside both
        #expect(t.hitTest(Point(260, 200)) == nil)                // inside the child, clipped by the parent
        let unclipped = try tree([(0, .layer, Self.square), (1, .layer, child)])
        #expect(unclipped.hitTest(Point(260, 200)) == Self.id(2))
    }

    @Test func hiddenAndTransparentLayersAreSkipped() throws {
        let front: [(String, PropertyValue)] = Self.square
        let t = try tree([(0, .layer, Self.square), (0, .layer, front + [("hidden", .bool(true))])])
        #expect(t.hitTest(Point(200, 200)) == Self.id(1))
        let u = try tree([(0, .layer, Self.square), (0, .layer, front + [("opacity", .number(0))])])
        #expect(u.hitTest(Point(200, 200)) == Self.id(1))
        let v = try tree([(0, .layer, Self.square), (0, .layer, front)])
        #expect(v.hitTest(Point(200, 200)) == Self.id(2))         // later sibling is in front
    }

    @Test func zPositionOrdersSiblings() throws {
        let t = try tree([(0, .layer, Self.square + [("zPosition", .number(1))]), (0, .layer, Self.square)])
        #expect(t.hitTest(Point(200, 200)) == Self.id(1))
    }

    @Test func shapeLayersHitTheirPathWithTheFillRule() throws {
        // Two nested squares in the same direction: nonZero fills the hole, evenOdd leaves it.
        let path = try Path(svg: "M0 0 H100 V100 H0 Z M25 25 H75 V75 H25 Z")
        let base: [(String, PropertyValue)] = Self.square + [("path", .path(path))]
        let nonZero = try tree([(0, .shape, base)])
        let evenOdd = try tree([(0, .shape, base + [("fillRule", .string("evenOdd"))])])
        #expect(nonZero.hitTest(Point(200, 200)) == Self.id(1))   // the centre, in the hole
        #expect(evenOdd.hitTest(Point(200, 200)) == nil)
        #expect(evenOdd.hitTest(Point(160, 160)) == Self.id(1))   // in the ring
    }

    @Test func hitsUseThePresentationValues() throws {
        var t = try tree([(0, .layer, Self.square)])
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
            .set(1, keyPath: "position", value: .point(Point(400, 200))),
        ])), at: 0)
        #expect(t.hitTest(Point(200, 200)) == nil)                     // the model has moved
        #expect(t.presentation(at: 0).hitTest(Point(200, 200)) == Self.id(1))
        #expect(t.presentation(at: 0.5).hitTest(Point(300, 200)) == Self.id(1))
    }
}
