import Testing
import LaminaAnimation
@testable import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import TestSupport
@testable import LaminaRender

/// CATransition (docs/scene-format.md, "transition"): the old rendering of a layer, snapshotted
/// by the render tree before the commit, and the new one composited as the contract says,
/// against cairo drawings made from the contract by `scripts/gen-references` (the
/// `transition_*` scenes: a panel that is blue with a red sublayer before the commit, green
/// with the red one moved and a yellow one added after it).
@Suite("CATransition")
struct ContentTransitionTests {
    static let rule = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)
    static let blue = Color(0.2, 0.4, 0.9), green = Color(0.2, 0.8, 0.3)
    static let red = Color(0.9, 0.2, 0.2), yellow = Color(1, 0.85, 0.1)

    /// The panel (1) and its red sublayer (2) at time 0; at time 1 a transaction with the
    /// transition (easeInEaseOut actions of 0.5 s, which the transition suppresses inside the
    /// panel) turns the panel green, moves the red layer and adds a yellow one (3).
    static func tree(_ transition: ContentTransition?, more: [LayerChange] = [], radius: Double = 0) throws -> LayerTree {
        var t = try TestScene.tree(
            TestScene.layer(1, frame: Rect(20, 20, 120, 80), [("backgroundColor", .color(blue)),
                                                              ("cornerRadius", .number(radius))])
                + TestScene.layer(2, parent: 1, frame: Rect(10, 10, 40, 30), [("backgroundColor", .color(red))]))
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(duration: 0.5))]
        if let transition { ops.append(.transition(1, transition)) }
        ops += [.set(1, keyPath: "backgroundColor", value: .color(green)),
                .set(2, keyPath: "position", value: .point(Point(80, 55)))]
        ops += TestScene.layer(3, parent: 1, frame: Rect(70, 5, 30, 20), [("backgroundColor", .color(yellow))])
        try t.apply(Commit(client: 1, content: .operations(ops + more)), at: 1)
        return t
    }

    static func list(_ tree: LayerTree, at time: Double) -> DrawList {
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 120, scale: 1, background: Color(1, 1, 1))
        builder.time = time
        var t = tree
        t.advance(to: time)
        return builder.build(t.presentation(at: time))
    }

    func check(_ transition: ContentTransition, at time: Double, _ name: String, radius: Double = 0,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let image = try renderImage(Self.list(try Self.tree(transition, radius: radius), at: time), alpha: .straight,
                                    sourceLocation: sourceLocation)
        try expectMatchesReference(image, PixelComparator.referencePath(name), Self.rule, name: name,
                                   sourceLocation: sourceLocation)
    }

    @Test func pushFromLeftHalfway() throws {
        try check(ContentTransition(type: .push, subtype: .fromLeft, duration: 1), at: 1.5, "transition-push-fromLeft")
    }

    @Test func moveInFromTopHalfway() throws {
        try check(ContentTransition(type: .moveIn, subtype: .fromTop, duration: 1), at: 1.5, "transition-moveIn-fromTop")
    }

    @Test func revealFromRightHalfway() throws {
        try check(ContentTransition(type: .reveal, subtype: .fromRight, duration: 1), at: 1.5, "transition-reveal-fromRight")
    }

    @Test func fadeAtAQuarter() throws {
        try check(ContentTransition(type: .fade, duration: 1), at: 1.25, "transition-fade")
    }

    @Test func pushFromBottomEasedAtAQuarter() throws {
        try check(ContentTransition(type: .push, subtype: .fromBottom, duration: 2, timingFunction: .easeInEaseOut), at: 1.5,
                  "transition-push-fromBottom-eased")
    }

    /// A panel with a corner radius: the moving renderings are clipped to its rounded bounds.
    @Test func pushIsClippedToTheRoundedBounds() throws {
        try check(ContentTransition(type: .push, subtype: .fromLeft, duration: 1), at: 1.5, "transition-push-rounded", radius: 16)
    }

    /// A commit that changes the bounds leaves the old rendering where it was: the panel
    /// (frame 20, 20, 120 × 80, its anchor at the centre 80, 60) shrinks to 60 × 40 under a
    /// fade; the old background still covers 20…140 × 20…100, the new one 50…110 × 40…80.
    @Test func changedBoundsLeaveTheOldRenderingWhereItWas() throws {
        var t = try TestScene.tree(TestScene.layer(1, frame: Rect(20, 20, 120, 80), [("backgroundColor", .color(Self.blue))]))
        try t.apply(Commit(client: 1, content: .operations([
            .transition(1, ContentTransition(type: .fade, duration: 1)),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 60, 40))),
            .set(1, keyPath: "backgroundColor", value: .color(Self.green))])), at: 1)
        let list = Self.list(t, at: 1.25)
        // The device rectangle of the (one) rect item nearest `color`.
        func rect(_ color: Color) -> Rect? {
            for item in list.items {
                guard case .rect = item.kind else { continue }
                let c = item.backgroundColor
                guard abs(c.red - color.red) < 1e-3, abs(c.green - color.green) < 1e-3, abs(c.blue - color.blue) < 1e-3 else { continue }
                let b = item.bounds, m = item.transform
                return Rect(b.minX * m.m11 + b.minY * m.m21 + m.m41, b.minX * m.m12 + b.minY * m.m22 + m.m42,
                            b.width * m.m11, b.height * m.m22)
            }
            return nil
        }
        func near(_ r: Rect?, _ e: Rect) -> Bool {
            guard let r else { return false }
            return abs(r.minX - e.minX) < 1e-4 && abs(r.minY - e.minY) < 1e-4 && abs(r.width - e.width) < 1e-4
                && abs(r.height - e.height) < 1e-4
        }
        #expect(near(rect(Self.blue), Rect(20, 20, 120, 80)), "\(String(describing: rect(Self.blue)))")
        #expect(near(rect(Self.green), Rect(50, 40, 60, 40)), "\(String(describing: rect(Self.green)))")
    }

    /// Once over, the layer draws as it would have without the transition; the ghosts are gone.
    @Test func endsAsTheNewRendering() throws {
        var tree = try Self.tree(ContentTransition(type: .push, subtype: .fromLeft, duration: 1))
        let layers = tree.count
        tree.advance(to: 2)
        #expect(tree.contentTransitions.isEmpty)
        #expect(tree.count == layers - 2)  // the ghosts of the panel and its red sublayer, gone
        let after = Self.list(tree, at: 2)
        var plain = try Self.tree(nil)
        plain.advance(to: 2)
        let reference = Self.list(plain, at: 2)
        #expect(after.items.count == reference.items.count)
        for (a, b) in zip(after.items, reference.items) { #expect(a.drawsSame(as: b)) }
    }

    /// Damage stays exact: frames redrawn only where damaged equal full redraws, byte for byte,
    /// through a push from the top and an interrupting fade. While they run the damage keeps to
    /// the panel (within the 2-pixel edge margin): the moving renderings are bounded by the
    /// transition's clip, not by where they reach.
    @Test func damageLimitedFramesEqualFullRedraws() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 160, heightPoints: 160, scale: 1, background: Color(1, 1, 1), targetFPS: 60)
        func packet(_ ops: [LayerChange]) throws -> CommitPacket { try model.validate(Commit(client: 1, content: .operations(ops)), at: 0) }
        let scene = TestScene.layer(1, frame: Rect(20, 20, 120, 80), [("backgroundColor", .color(Self.blue))])
            + TestScene.layer(2, parent: 1, frame: Rect(10, 10, 40, 30), [("backgroundColor", .color(Self.red))])
            + TestScene.layer(9, frame: Rect(10, 120, 30, 30), [("backgroundColor", .color(Self.yellow))])
        let initial = [try model.validate(Commit(client: 1, content: .connect), at: 0), try packet(scene)]
        var running = false
        try expectDamageLimitedFramesEqualFullRedraws(&driver, size: 160, frames: 14, initial: initial, label: "transition",
                                                      check: { list in
            guard running, let d = list.damage, !d.rect.isEmpty else { return }
            #expect(d.rect.minX >= 17 && d.rect.maxX <= 143 && d.rect.minY >= 17 && d.rect.maxY <= 103, "\(d.rect)")
        }, after: { frame in
            switch frame {
            case 3:
                running = true
                return [try packet([.transition(1, ContentTransition(type: .push, subtype: .fromTop, duration: 0.5)),
                                    .set(1, keyPath: "backgroundColor", value: .color(Self.green)),
                                    .set(2, keyPath: "position", value: .point(Point(80, 55)))])]
            case 6:
                return [try packet([.transition(1, ContentTransition(type: .fade, duration: 0.3)),
                                    .set(2, keyPath: "backgroundColor", value: .color(Self.yellow))])]
            default: return []
            }
        })
    }
}
