import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

/// Core Animation's transaction and action semantics on the render thread's tree.
/// Expected values come from the formulas: a basic animation's value is
/// from + (to − from)·f(x), x = (t − added − beginTime)/duration, with f the timing function;
/// easeInEaseOut = cubic Bézier (0.42, 0, 0.58, 1) is symmetric, so f(0.5) = 0.5.
@Suite struct AnimationTreeTests {
    static let box = LayerID(client: 1, local: 1)

    /// Client 1 with layer 1 (opacity 1, position (0, 0), bounds 100×100) made at t = 0.
    func scene() throws -> LayerTree { try Self.scene(with: []) }

    /// That scene with `extra` changes to layer 1 in the same commit.
    static func scene(with extra: [LayerChange]) throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 100))),
        ] + extra)), at: 0)
        return t
    }

    func commit(_ t: inout LayerTree, at time: Double, _ ops: [LayerChange]) throws {
        try t.apply(Commit(client: 1, content: .operations(ops)), at: time)
    }

    func opacity(_ t: LayerTree, _ time: Double) -> Double {
        guard case .number(let v)? = t.presentationValue(of: Self.box, keyPath: "opacity", at: time) else { return .nan }
        return v
    }

    static func linear(_ keyPath: String, from: Double, to: Double, duration: Double) -> Animation {
        .basic(BasicAnimation(keyPath: keyPath, from: .double(from), to: .double(to),
                              timing: AnimationTiming(duration: duration)))
    }

    @Test func theModelTreeEnforcesThePerLayerAnimationLimit() throws {
        // The server's model tree keeps no animations, but counts what the render tree holds:
        // at most 3 here, a key replacing its namesake, removed ones and ones past their end
        // (removed on completion) not counting, and a failed commit changing nothing.
        var t = ModelTree(maxAnimationsPerLayer: 3)
        _ = try t.validate(Commit(client: 1, content: .connect))
        _ = try t.validate(Commit(client: 1, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)])))
        func add(_ key: String, duration: Double, at time: Double) throws {
            _ = try t.validate(Commit(client: 1, content: .operations([
                .addAnimation(1, key: key, animation: Self.linear("opacity", from: 0, to: 1, duration: duration))])), at: time)
        }
        try add("a", duration: 1, at: 0)
        try add("b", duration: 10, at: 0)
        try add("", duration: 10, at: 0)
        try add("b", duration: 10, at: 0)                     // replaces b
        #expect(throws: CommitError.self) { try add("c", duration: 10, at: 0.5) }   // a still runs
        let before = t.nodes
        #expect(throws: CommitError.self) {
            _ = try t.validate(Commit(client: 1, content: .operations([
                .removeAnimation(1, key: "b"),
                .addAnimation(1, key: "c", animation: Self.linear("opacity", from: 0, to: 1, duration: 1)),
                .addAnimation(1, key: "d", animation: Self.linear("opacity", from: 0, to: 1, duration: 1)),
            ])), at: 0.5)
        }
        #expect(t.nodes == before, "the failed commit left the ledger as it was")
        try add("c", duration: 10, at: 1.5)                   // a ended at 1 and was removed
        #expect(throws: CommitError.self) { try add("d", duration: 10, at: 1.5) }
        _ = try t.validate(Commit(client: 1, content: .operations([.removeAnimation(1, key: "c")])), at: 2)
        try add("d", duration: 10, at: 2)
        _ = try t.validate(Commit(client: 1, content: .operations([.removeAllAnimations(1)])), at: 3)
        try add("e", duration: 10, at: 3); try add("f", duration: 10, at: 3); try add("g", duration: 10, at: 3)
    }

    @Test func implicitAnimationStartsFromThePresentationValue() throws {
        var t = try scene()
        try commit(&t, at: 1, [.set(1, keyPath: "opacity", value: .number(0))])
        #expect(t[Self.box]?.properties.opacity == 0)                  // the model changes at once
        #expect(t[Self.box]?.animations.map(\.key) == ["opacity"])      // CA keys the action by property
        #expect(abs(opacity(t, 1) - 1) < 1e-12)                         // x = 0
        #expect(abs(opacity(t, 1.125) - 0.5) < 1e-9)                   // x = ½, f(½) = ½
        // Changing it back mid-flight starts from the presentation value 0.5 (not the model 0).
        try commit(&t, at: 1.125, [.set(1, keyPath: "opacity", value: .number(1))])
        #expect(abs(opacity(t, 1.25) - 0.75) < 1e-9)                   // 0.5 + (1 − 0.5)·½
        t.advance(to: 1.375)
        #expect(t[Self.box]?.animations.isEmpty == true)
        #expect(opacity(t, 1.375) == 1)
    }

    @Test func explicitAnimationLeavesTheModelAlone() throws {
        var t = try scene()
        try commit(&t, at: 0, [.addAnimation(1, key: "fade", animation: Self.linear("opacity", from: 0, to: 1, duration: 2))])
        #expect(t[Self.box]?.properties.opacity == 1)
        #expect(abs(opacity(t, 0.5) - 0.25) < 1e-12)                   // 0 + 1·(0.5/2)
        #expect(t.takeEvents() == [.animationStarted(Self.box, key: "fade")])
        t.advance(to: 2)
        #expect(t.takeEvents() == [.animationStopped(Self.box, key: "fade", finished: true)])
        #expect(opacity(t, 2) == 1)
    }

    @Test func disableActionsChangesWithoutAnimation() throws {
        var t = try scene()
        try commit(&t, at: 1, [.setTransaction(TransactionSettings(disableActions: true)),
                               .set(1, keyPath: "opacity", value: .number(0.25))])
        #expect(t[Self.box]?.animations.isEmpty == true)
        #expect(opacity(t, 1) == 0.25)
    }

    @Test func transactionDurationAndTimingApply() throws {
        var t = try scene()
        try commit(&t, at: 0, [.setTransaction(TransactionSettings(duration: 2, timingFunction: .linear)),
                               .set(1, keyPath: "position.x", value: .number(100))])
        // position.x changes `position`: the action animates the whole point.
        #expect(t[Self.box]?.animations.map(\.key) == ["position"])
        #expect(t.presentationValue(of: Self.box, keyPath: "position", at: 0.5) == .point(Point(25, 0)))
    }

    @Test func completionsFireOnceInnerFirst() throws {
        var s = TransactionStack()
        var ops: [LayerChange] = []
        s.begin()
        let outer = s.setCompletion()
        if let o = s.settingsChange() { ops.append(o) }
        ops.append(.set(1, keyPath: "opacity", value: .number(0)))                   // implicit, 0.25 s
        s.begin()
        let inner = s.setCompletion()
        if let o = s.settingsChange() { ops.append(o) }
        ops.append(.addAnimation(1, key: "move", animation: Self.linear("position.x", from: 0, to: 1, duration: 1)))
        for case .stage(let op) in s.commit() { ops.append(op) }
        let last = s.commit()
        for case .stage(let op) in last { ops.append(op) }
        #expect(last.last == .sendCommit)
        var t = try scene()
        try commit(&t, at: 0, ops)
        _ = t.takeEvents()
        t.advance(to: 0.5)                                    // the implicit one ended; "move" has not
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 1)
        #expect(t.takeEvents() == [.animationStopped(Self.box, key: "move", finished: true),
                                   .transactionCompleted(client: 1, id: inner),
                                   .transactionCompleted(client: 1, id: outer)])
        t.advance(to: 5)
        #expect(t.takeEvents().isEmpty)                       // exactly once
    }

    @Test func completionWithoutAnimationsFiresAtOnce() throws {
        var t = try scene()
        try commit(&t, at: 0, [.setTransaction(TransactionSettings(disableActions: true, completionIDs: [7])),
                               .set(1, keyPath: "opacity", value: .number(0)), .completion(7)])
        #expect(t.takeEvents() == [.transactionCompleted(client: 1, id: 7)])
    }

    @Test func settingTheSameValueMakesNoAnimation() throws {
        var t = try scene()
        try commit(&t, at: 0, [.set(1, keyPath: "opacity", value: .number(1)),
                               .set(1, keyPath: "position", value: .point(.zero))])
        #expect(t[Self.box]?.animations.isEmpty == true)
    }

    @Test func addingUnderAKeyReplaces() throws {
        var t = try scene()
        try commit(&t, at: 0, [.addAnimation(1, key: "a", animation: Self.linear("opacity", from: 0, to: 1, duration: 1))])
        try commit(&t, at: 0.5, [.addAnimation(1, key: "a", animation: Self.linear("opacity", from: 1, to: 0.5, duration: 1))])
        #expect(t[Self.box]?.animations.count == 1)
        #expect(abs(opacity(t, 1) - 0.75) < 1e-12)                    // the new one, half way: 1 − 0.5·½
        #expect(t.takeEvents() == [.animationStarted(Self.box, key: "a"),
                                   .animationStopped(Self.box, key: "a", finished: false),
                                   .animationStarted(Self.box, key: "a")])
    }

    @Test func removingAnAnimationRestoresTheModelAndCompletes() throws {
        var t = try scene()
        try commit(&t, at: 0, [.setTransaction(TransactionSettings(completionIDs: [3])),
                               .addAnimation(1, key: "a", animation: Self.linear("opacity", from: 0, to: 1, duration: 10)),
                               .completion(3)])
        _ = t.takeEvents()
        try commit(&t, at: 1, [.removeAnimation(1, key: "a")])
        #expect(opacity(t, 1) == 1)
        #expect(t.takeEvents() == [.animationStopped(Self.box, key: "a", finished: false),
                                   .transactionCompleted(client: 1, id: 3)])
    }

    @Test func aLayerCreatedInTheTransactionDoesNotAnimate() throws {
        var t = try scene()
        try commit(&t, at: 0, [.create(2, .layer), .set(2, keyPath: "opacity", value: .number(0.5)),
                               .set(2, keyPath: "position", value: .point(Point(5, 5)))])
        #expect(t[LayerID(client: 1, local: 2)]?.animations.isEmpty == true)
    }

    @Test func pathIsNotImplicitlyAnimated() throws {
        var t = try scene()
        // `path` is a shape layer's (a plain layer rejects it): a shape layer made before the change.
        let shape = LayerID(client: 1, local: 2)
        try commit(&t, at: 0, [.create(2, .shape), .addSublayer(parent: 0, child: 2)])
        try commit(&t, at: 0, [.set(2, keyPath: "path", value: .path(.rect(Rect(0, 0, 1, 1))))])
        #expect(t[shape]?.animations.isEmpty == true)
    }

    @Test func aFailedCommitAddsNoAnimationsOrEvents() throws {
        var t = try scene()
        #expect(throws: CommitError.self) {
            try commit(&t, at: 0, [.set(1, keyPath: "opacity", value: .number(0)),
                                   .addAnimation(1, key: "x", animation: Self.linear("nonsense", from: 0, to: 1, duration: 1))])
        }
        #expect(t[Self.box]?.animations.isEmpty == true)
        #expect(t.events.isEmpty)
    }

    @Test func animationsApplyInOrderAdditiveOnesAdded() throws {
        var t = try scene()
        try commit(&t, at: 0, [
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "position.x", value: .number(100)),
            .addAnimation(1, key: "base", animation: Self.linear("position.x", from: 0, to: 200, duration: 2)),
            .addAnimation(1, key: "wiggle", animation: .basic(BasicAnimation(
                keyPath: "position.x", from: .double(0), to: .double(10),
                timing: AnimationTiming(duration: 1, additive: true)))),
        ])
        // t = 0.5: base 0 + 200·0.25 = 50; additive adds 0 + 10·0.5 = 5.
        #expect(t.presentationValue(of: Self.box, keyPath: "position.x", at: 0.5) == .number(55))
        // t = 1.5: the additive one has ended (removed): base 150.
        #expect(t.presentationValue(of: Self.box, keyPath: "position.x", at: 1.5) == .number(150))
    }

    @Test func beginTimeAndFillModes() throws {
        var t = try scene()
        var timing = AnimationTiming(beginTime: 1, duration: 2, fillMode: .both, removedOnCompletion: false)
        timing.timingFunction = .easeIn
        try commit(&t, at: 10, [.addAnimation(1, key: "f", animation: .basic(BasicAnimation(
            keyPath: "opacity", from: .double(0.2), to: .double(0.6), timing: timing)))])
        #expect(opacity(t, 10.5) == 0.2)                              // backwards fill: from
        t.advance(to: 20)
        #expect(abs(opacity(t, 20) - 0.6) < 1e-12)                    // forwards fill, kept
        #expect(t[Self.box]?.animations.count == 1)
    }

    @Test func transformSubKeyPathsComposeAndDecompose() throws {
        var t = try scene()
        try commit(&t, at: 0, [
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "transform.scale", value: .number(2)),
            .addAnimation(1, key: "spin", animation: Self.linear("transform.rotation.z", from: 0, to: .pi, duration: 1)),
        ])
        // Half way: rotation π/2 composed with the model's scale 2: row 1 = 2·(cos, sin).
        guard case .transform(let m)? = t.presentationValue(of: Self.box, keyPath: "transform", at: 0.5) else {
            Issue.record("no transform"); return
        }
        #expect(abs(m.m11) < 1e-9 && abs(m.m12 - 2) < 1e-9 && abs(m.m21 + 2) < 1e-9)
        guard case .number(let r)? = t.presentationValue(of: Self.box, keyPath: "transform.rotation.z", at: 0.25) else {
            Issue.record("no rotation"); return
        }
        #expect(abs(r - .pi / 4) < 1e-9)
        #expect(t.presentationValue(of: Self.box, keyPath: "transform.scale.x", at: 0.25) == .number(2))
    }

    @Test func translationAndShadowSubPaths() throws {
        var p = LayerProperties()
        try p.setValue(.number(7), forKeyPath: "transform.translation.x")
        #expect(p.transform.m41 == 7)
        #expect(p.value(forKeyPath: "transform.translation") == .size(Size(7, 0)))
        try p.setValue(.number(-5), forKeyPath: "shadowOffset.height")
        #expect(p.shadowOffset == Size(0, -5))
    }

    @Test func presentationTreeIsPatchedAndRebuilt() throws {
        var t = try scene()
        try commit(&t, at: 0, [.addAnimation(1, key: "a", animation: Self.linear("opacity", from: 0, to: 1, duration: 1))])
        var p = LayerTree()
        t.updatePresentation(&p, at: 0.25)
        #expect(p[Self.box]?.properties.opacity == 0.25)
        t.updatePresentation(&p, at: 0.5)
        #expect(p[Self.box]?.properties.opacity == 0.5)
        t.advance(to: 1)
        t.updatePresentation(&p, at: 1)
        #expect(p[Self.box]?.properties.opacity == 1)
    }
}
