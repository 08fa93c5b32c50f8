import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing

/// Layer time (CALayer's CAMediaTiming: `speed`, `timeOffset`, `beginTime`). Every expected
/// value is worked out by hand from Core Animation's formula — a layer's local time is
/// (superlayer's local time − beginTime) × speed + timeOffset; an animation added at
/// compositor time T begins at its layer's local time at T — and a linear basic animation's
/// value from + (to − from) · (local − begin) / duration.
@Suite struct LayerTimeTests {
    static func id(_ local: UInt32) -> LayerID { LayerID(client: 1, local: local) }

    /// Client 1 with layers `locals`, each a sublayer of the one before (the first of the
    /// client's root), bounds 10×10, made at t = 0.
    func chain(_ locals: [UInt32]) throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = []
        var parent: UInt32 = 0
        for l in locals {
            ops += [.create(l, .layer), .addSublayer(parent: parent, child: l),
                    .set(l, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10)))]
            parent = l
        }
        try t.apply(Commit(client: 1, content: .operations(ops)), at: 0)
        return t
    }

    func commit(_ t: inout LayerTree, at time: Double, _ ops: [LayerChange]) throws {
        try t.apply(Commit(client: 1, content: .operations(ops)), at: time)
    }

    static func move(_ to: Double, over duration: Double) -> Animation {
        .basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(to),
                              timing: AnimationTiming(duration: duration)))
    }

    static func number(_ v: Double) -> PropertyValue { .number(v) }

    /// position.x of layer `local` at `time`, asserting that the query path
    /// (`presentationValue`) and the render thread's patched presentation agree.
    func x(_ t: LayerTree, _ local: UInt32, at time: Double) -> Double {
        let p = t.presentation(at: time)[Self.id(local)]?.properties.position.x ?? .nan
        guard case .number(let q)? = t.presentationValue(of: Self.id(local), keyPath: "position.x", at: time) else { return .nan }
        #expect(abs(p - q) < 1e-9, "the presentation tree and the query agree at \(time)")
        return q
    }

    func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }

    @Test func nestedSpeedsCompose() throws {
        var t = try chain([1, 2, 3])
        // P: beginTime 0.5, speed 2 → 2t − 1. C: speed 0.5, timeOffset 1 → (2t − 1)/2 + 1 = t + 0.5.
        // G: speed 3 → 3t + 1.5.
        try commit(&t, at: 0, [
            .set(1, keyPath: "beginTime", value: Self.number(0.5)), .set(1, keyPath: "speed", value: Self.number(2)),
            .set(2, keyPath: "speed", value: Self.number(0.5)), .set(2, keyPath: "timeOffset", value: Self.number(1)),
            .set(3, keyPath: "speed", value: Self.number(3)),
        ])
        #expect(close(t.convertTime(2, to: Self.id(1)), 3))
        #expect(close(t.convertTime(2, to: Self.id(2)), 2.5))
        #expect(close(t.convertTime(2, to: Self.id(3)), 7.5))
        // Added at t = 1: C's begins at its local 1.5 (4 s, 0 → 100), G's at 4.5 (6 s, 0 → 60).
        try commit(&t, at: 1, [.addAnimation(2, key: "m", animation: Self.move(100, over: 4)),
                               .addAnimation(3, key: "m", animation: Self.move(60, over: 6))])
        #expect(close(x(t, 2, at: 3), 50))        // local 3.5: 2 s of 4
        #expect(close(x(t, 3, at: 2), 30))        // local 7.5: 3 s of 6
        #expect(close(x(t, 3, at: 1.5), 15))      // local 6: 1.5 s of 6
        // G ends when 3t + 1.5 = 10.5, t = 3; C when t + 0.5 = 5.5, t = 5.
        _ = t.takeEvents()
        t.advance(to: 2.999)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 3)
        #expect(t.takeEvents() == [.animationStopped(Self.id(3), key: "m", finished: true)])
        t.advance(to: 4.999)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 5)
        #expect(t.takeEvents() == [.animationStopped(Self.id(2), key: "m", finished: true)])
    }

    /// Technical Q&A QA1673, "How to pause the animation of a layer tree": pause with
    /// `timeOffset = convertTime(CACurrentMediaTime(), from: nil)` and `speed = 0`; resume
    /// with `speed = 1`, `timeOffset = 0`, `beginTime = 0`, then `beginTime =
    /// convertTime(CACurrentMediaTime(), from: nil) − pausedTime`.
    @Test func theQA1673PauseAndResumeRecipeKeepsAnimationsContinuous() throws {
        var t = try chain([1, 2])
        try commit(&t, at: 0, [.setTransaction(TransactionSettings(completionIDs: [7])),
                               .addAnimation(2, key: "m", animation: Self.move(100, over: 2)), .completion(7)])
        #expect(close(x(t, 2, at: 1), 50))
        // Pause layer 1 at t = 1.
        let paused = t.convertTime(1, to: Self.id(1))
        #expect(paused == 1)
        try commit(&t, at: 1, [.set(1, keyPath: "speed", value: Self.number(0)),
                               .set(1, keyPath: "timeOffset", value: Self.number(paused))])
        for time in [1.0, 3, 50] { #expect(close(x(t, 2, at: time), 50)) }
        _ = t.takeEvents()
        t.advance(to: 100)
        #expect(t.takeEvents().isEmpty, "a frozen animation never ends")
        #expect(t[Self.id(2)]?.animations.count == 1)
        // Resume at t = 10: with speed 1, timeOffset 0, beginTime 0 the local time is 10, so
        // beginTime = 10 − 1 = 9 and the local time is t − 9.
        try commit(&t, at: 10, [.set(1, keyPath: "speed", value: Self.number(1)),
                                .set(1, keyPath: "timeOffset", value: Self.number(0)),
                                .set(1, keyPath: "beginTime", value: Self.number(10 - paused))])
        #expect(close(x(t, 2, at: 10), 50), "no jump on resume")
        #expect(close(x(t, 2, at: 10.5), 75))
        t.advance(to: 10.999)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 11)
        #expect(t.takeEvents() == [.animationStopped(Self.id(2), key: "m", finished: true),
                                   .transactionCompleted(client: 1, id: 7)])
    }

    @Test func aLayerMadeFrozenHoldsItsAnimationsAtTheirStartAndTimeOffsetScrubs() throws {
        var t = try chain([1])
        // The animation is added before the timing in the same commit: it begins at the
        // layer's local time as the commit ends, timeOffset 0.3.
        try commit(&t, at: 2, [.create(2, .layer), .addSublayer(parent: 1, child: 2),
                               .addAnimation(2, key: "m", animation: Self.move(100, over: 1)),
                               .set(2, keyPath: "speed", value: Self.number(0)),
                               .set(2, keyPath: "timeOffset", value: Self.number(0.3))])
        #expect(t[Self.id(2)]?.animations.first?.beginTime == 0.3)
        #expect(close(x(t, 2, at: 5), 0))
        // Not implicitly animated: the scrub shows at once.
        try commit(&t, at: 6, [.set(2, keyPath: "timeOffset", value: Self.number(0.55))])
        #expect(t[Self.id(2)]?.animations.map(\.key) == ["m"])
        #expect(close(x(t, 2, at: 6), 25))
        #expect(close(x(t, 2, at: 60), 25))
        // Scrubbed past its end, it ends at the next frame.
        try commit(&t, at: 7, [.set(2, keyPath: "timeOffset", value: Self.number(1.5))])
        _ = t.takeEvents()
        t.advance(to: 7)
        #expect(t.takeEvents() == [.animationStopped(Self.id(2), key: "m", finished: true)])
        #expect(t[Self.id(2)]?.animations.isEmpty == true)
    }

    @Test func changingATimingMovesRunningAnimationsAsCoreAnimationDoes() throws {
        var t = try chain([1, 2])
        try commit(&t, at: 0, [.addAnimation(2, key: "m", animation: Self.move(100, over: 4))])
        #expect(close(x(t, 2, at: 2), 50))
        // beginTime 1 on the superlayer at t = 3 (no timeOffset compensation): local t − 1.
        try commit(&t, at: 3, [.set(1, keyPath: "beginTime", value: Self.number(1))])
        #expect(close(x(t, 2, at: 3.5), 62.5))       // 2.5 s of 4, not 3.5
        // It ends at local 4: t = 5.
        _ = t.takeEvents()
        t.advance(to: 4.999)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 5)
        #expect(t.takeEvents() == [.animationStopped(Self.id(2), key: "m", finished: true)])
    }

    @Test func underSpeedTwoACompletionComesInHalfTheTime() throws {
        var t = try chain([1])
        try commit(&t, at: 0, [.set(1, keyPath: "speed", value: Self.number(2))])
        // Added at t = 1: local 2t, begins at 2, ends at local 4, t = 2.
        try commit(&t, at: 1, [.setTransaction(TransactionSettings(completionIDs: [3])),
                               .addAnimation(1, key: "m", animation: Self.move(100, over: 2)), .completion(3)])
        #expect(close(x(t, 1, at: 1.5), 50))
        _ = t.takeEvents()
        t.advance(to: 1.999)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 2)
        #expect(t.takeEvents() == [.animationStopped(Self.id(1), key: "m", finished: true),
                                   .transactionCompleted(client: 1, id: 3)])
    }

    @Test func theModelTreesLedgerCountsInLayerTime() throws {
        // One animation per layer: under speed 4 a 1 s animation added at 0 is removed at 0.25.
        var m = ModelTree(maxAnimationsPerLayer: 1)
        _ = try m.validate(Commit(client: 1, content: .connect))
        _ = try m.validate(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1), .set(1, keyPath: "speed", value: Self.number(4)),
            .create(2, .layer), .addSublayer(parent: 1, child: 2)])))
        func add(at time: Double) throws {
            _ = try m.validate(Commit(client: 1, content: .operations([
                .addAnimation(2, key: "", animation: Self.move(1, over: 1))])), at: time)
        }
        try add(at: 0)
        #expect(throws: CommitError.self) { try add(at: 0.2) }
        try add(at: 0.25)
    }

    @Test func aFrozenMovingLayerIsHitWhereItIsShown() throws {
        var t = try chain([1])
        // Position x 0 → 100 over 1 s (y 0; bounds 10×10 about the position), frozen at its
        // start (it begins at local 0.5), then scrubbed half-way (timeOffset 1).
        try commit(&t, at: 0, [.addAnimation(1, key: "m", animation: Self.move(100, over: 1)),
                               .set(1, keyPath: "speed", value: Self.number(0)),
                               .set(1, keyPath: "timeOffset", value: Self.number(0.5))])
        #expect(t.presentation(at: 0.5).hitTest(Point(2, 2)) == Self.id(1))
        try commit(&t, at: 0.5, [.set(1, keyPath: "timeOffset", value: Self.number(1))])
        for time in [0.5, 0.9, 30] {
            let p = t.presentation(at: time)
            #expect(close(x(t, 1, at: time), 50))
            #expect(p.hitTest(Point(52, 2)) == Self.id(1))
            #expect(p.hitTest(Point(40, 2)) == nil)
            #expect(p.hitTest(Point(98, 2)) == nil)
        }
    }

    @Test func expressionsReadTheirLayersLocalTime() throws {
        var t = try chain([1, 2])
        // Layer 1: speed 0.5, timeOffset 3 → local t/2 + 3; layer 2 inherits it.
        try commit(&t, at: 0, [.set(1, keyPath: "speed", value: Self.number(0.5)),
                               .set(1, keyPath: "timeOffset", value: Self.number(3)),
                               .addExpression(2, key: "e", expression: ExpressionAnimation(keyPath: "position.x", expression: "t * 10", layers: [:]))])
        #expect(close(t.presentation(at: 4)[Self.id(2)]?.properties.position.x ?? .nan, 50))
    }

    @Test func implicitAnimationsStartFromThePresentationValueInLayerTime() throws {
        var t = try chain([1])
        try commit(&t, at: 0, [.set(1, keyPath: "speed", value: Self.number(0.5))])
        // At t = 1 (local 0.5) an implicit move 0 → 100 of 0.25 s (easeInEaseOut, symmetric:
        // half-way at half its duration) runs at half speed: half-way at t = 1.25.
        try commit(&t, at: 1, [.set(1, keyPath: "position.x", value: Self.number(100))])
        #expect(close(x(t, 1, at: 1.25), 50))
        // Set back at t = 1.25: from the presentation value 50.
        try commit(&t, at: 1.25, [.set(1, keyPath: "position.x", value: Self.number(0))])
        #expect(close(x(t, 1, at: 1.25), 50))
        #expect(close(x(t, 1, at: 1.5), 25))
    }

    @Test func speedsPastTheDoublesRangeFreezeAtZeroAndNegativeSpeedsRunBackwards() throws {
        var t = try chain([1, 2, 3])
        // 1e200 × 1e200 overflows: the map freezes at local time 0 (documented in LayerTime).
        try commit(&t, at: 0, [.set(1, keyPath: "speed", value: Self.number(1e200)),
                               .set(2, keyPath: "speed", value: Self.number(1e200))])
        #expect(t.layerTime(of: Self.id(2)) == LayerTime(scale: 0, shift: 0))
        try commit(&t, at: 1, [.addAnimation(2, key: "m", animation: Self.move(100, over: 1))])
        #expect(x(t, 2, at: 5) == 0)
        t.advance(to: 5)
        #expect(t[Self.id(2)]?.animations.count == 1)
        // Speed −1 with timeOffset 10 on layer 3 alone: local 10 − t. An animation with its
        // own beginTime −4 added at t = 0 begins at local 6 and is 4 − t seconds in at t.
        var u = try chain([1])
        try commit(&u, at: 0, [.set(1, keyPath: "speed", value: Self.number(-1)),
                               .set(1, keyPath: "timeOffset", value: Self.number(10))])
        var timing = AnimationTiming(duration: 4)
        timing.beginTime = -4
        try commit(&u, at: 0.5, [.addAnimation(1, key: "m", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(0), to: .double(100), timing: timing)))])
        // Added at 0.5: begins at local 9.5 − 4 = 5.5; at t it is (10 − t) − 5.5 = 4.5 − t in.
        #expect(close(x(u, 1, at: 1.5), 75))
        #expect(close(x(u, 1, at: 3.5), 25))
        u.advance(to: 3.5)
        #expect(u[Self.id(1)]?.animations.count == 1, "time running backwards never reaches the end")
    }

    /// At a speed other than 1 the presentation plan reads a layer's bindings in compositor
    /// time (plain basic ones through scaled timings, on the fast path; the others by
    /// multiplying their time back): speed 2, added at 0, so each is 2t seconds in at t.
    @Test func aFastLayerMixesPlainAndGeneralBindings() throws {
        var t = try chain([1])
        try commit(&t, at: 0, [.set(1, keyPath: "speed", value: Self.number(2))])
        let linear = AnimationTiming(duration: 2)
        try commit(&t, at: 0, [
            // Keyframes 0 → 100 → 0 over 2 s (linear): 100 at 1 s, 50 at 0.5 s and 1.5 s.
            .addAnimation(1, key: "k", animation: .keyframe(KeyframeAnimation(
                keyPath: "position.x", values: [.double(0), .double(100), .double(0)], timing: linear))),
            // Plain basic opacity 0 → 1 over 1 s: 2t.
            .addAnimation(1, key: "o", animation: .basic(BasicAnimation(
                keyPath: "opacity", from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1)))),
            // A transform component by keyframes (the first writer of transform): 0 → 1 rad over 1 s.
            .addAnimation(1, key: "r", animation: .keyframe(KeyframeAnimation(
                keyPath: "transform.rotation.z", values: [.double(0), .double(1)], timing: AnimationTiming(duration: 1)))),
        ])
        for (time, px, o) in [(0.25, 50.0, 0.5), (0.5, 100, 1), (0.75, 50, 1)] {
            let p = t.presentation(at: time)[Self.id(1)]!.properties
            #expect(close(p.position.x, px))
            #expect(close(x(t, 1, at: time), px))
            if time < 0.5 { #expect(close(p.opacity, o)) } else { #expect(p.opacity == 1) }   // removed: the model value
            guard case .number(let r)? = p.value(forKeyPath: "transform.rotation.z") else { Issue.record("no rotation"); continue }
            #expect(close(r, min(2 * time, 1) < 1 ? 2 * time : 0))   // removed at 1 s: the model's 0
        }
    }

    @Test func defaultTimingLeavesTheMapTheIdentity() throws {
        var t = try chain([1, 2])
        #expect(t.layerTime(of: Self.id(2)).isIdentity)
        try commit(&t, at: 0, [.set(1, keyPath: "speed", value: Self.number(2))])
        #expect(t.timedLayers == [Self.id(1)])
        #expect(t.layerTime(of: Self.id(2)) == LayerTime(scale: 2, shift: 0))
        try commit(&t, at: 1, [.set(1, keyPath: "speed", value: Self.number(1))])
        #expect(t.timedLayers.isEmpty)
        #expect(t.layerTime(of: Self.id(2)).isIdentity)
    }
}
