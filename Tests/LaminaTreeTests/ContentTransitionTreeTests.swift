import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing

/// CATransition in the render tree: the snapshot of the old rendering (ghost nodes), the
/// transaction's changes inside the layer showing through it (no implicit animation),
/// interruption from what is on screen, the end, and bad input rejected whole.
@Suite struct ContentTransitionTreeTests {
    static let panel = LayerID(client: 1, local: 1), dot = LayerID(client: 1, local: 2), other = LayerID(client: 1, local: 3)

    /// A panel (1) with a dot (2), and another layer (3) beside it.
    func tree() throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .create(2, .layer), .create(3, .layer),
            .addSublayer(parent: 0, child: 1), .addSublayer(parent: 1, child: 2), .addSublayer(parent: 0, child: 3),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 50))),
            .set(2, keyPath: "opacity", value: .number(0.5)),
        ])), at: 0)
        return t
    }

    static let push = ContentTransition(type: .push, subtype: .fromRight, duration: 1, timingFunction: .linear)

    func commit(_ t: inout LayerTree, at time: Double, _ ops: [LayerChange]) throws {
        try t.apply(Commit(client: 1, content: .operations([.setTransaction(TransactionSettings(duration: 0.5))] + ops)), at: time)
    }

    @Test func snapshotsTheSubtreeAsPresentedBeforeTheCommit() throws {
        var t = try tree()
        try commit(&t, at: 1, [.set(2, keyPath: "opacity", value: .number(1)), .transition(1, Self.push),
                               .set(3, keyPath: "opacity", value: .number(0.2))])
        let state = try #require(t.contentTransitions[Self.panel])
        #expect(state.beginTime == 1 && state.transition == Self.push)
        let ghost = try #require(state.ghost.flatMap { t[$0] })
        #expect(ghost.id.client == LayerTree.ghostClient && ghost.superlayer == nil)
        #expect(ghost.properties.bounds == Rect(0, 0, 100, 50))
        let ghostDot = try #require(ghost.sublayers.first.flatMap { t[$0] })
        // The dot as it was before the commit (the set came before the transition in the
        // commit, yet the snapshot is taken first).
        #expect(ghostDot.properties.opacity == 0.5 && ghostDot.superlayer == ghost.id)
        // Inside the panel the change shows through the transition (no implicit animation);
        // outside it, it animates as usual.
        #expect(t[Self.dot]!.animations.isEmpty)
        #expect(t.presentation(at: 1.25)[Self.dot]!.properties.opacity == 1)
        #expect(t[Self.other]!.animations.count == 1)
        // Progress (linear) and the end.
        #expect(state.progress(at: 1.25) == 0.25)
        t.advance(to: 1.99)
        #expect(t.hasContentTransitions)
        t.advance(to: 2)
        #expect(!t.hasContentTransitions && t[ghost.id] == nil && t[ghostDot.id] == nil)
    }

    /// A transition runs in its layer's local time: the panel at speed 2 has local time 2t, so
    /// a 1 s transition begun at t = 1 (local 2) is halfway at t = 1.25 and over at t = 1.5.
    @Test func aTransitionRunsInItsLayersTime() throws {
        var t = try tree()
        try commit(&t, at: 0.5, [.setTransaction(TransactionSettings(disableActions: true)),
                                 .set(1, keyPath: "speed", value: .number(2))])
        try commit(&t, at: 1, [.transition(1, Self.push), .set(2, keyPath: "opacity", value: .number(1))])
        let state = try #require(t.contentTransitions[Self.panel])
        #expect(state.beginTime == 2 && state.endTime == 3)
        #expect(state.progress(at: t.layerTime(of: Self.panel).local(1.25)) == 0.5)
        t.advance(to: 1.49)
        #expect(t.hasContentTransitions)
        t.advance(to: 1.5)
        #expect(!t.hasContentTransitions)
    }

    /// A sublayer in a transition of its own is snapshotted with that transition frozen where
    /// it is and its old rendering copied: the panel's old rendering shows what was on screen,
    /// and keeps it after the sublayer's transition has ended.
    @Test func aSublayersRunningTransitionIsFrozenInTheSnapshot() throws {
        var t = try tree()
        try commit(&t, at: 1, [.transition(2, Self.push), .set(2, keyPath: "opacity", value: .number(1))])
        try commit(&t, at: 1.5, [.transition(1, ContentTransition(type: .fade, duration: 2))])
        let panel = try #require(t.contentTransitions[Self.panel])
        let ghostPanel = try #require(panel.ghost.flatMap { t[$0] })
        let ghostDot = try #require(ghostPanel.sublayers.first)
        let frozen = try #require(t.contentTransitions[ghostDot])
        #expect(frozen.frozenProgress == 0.5 && frozen.transition == Self.push)
        let oldDot = try #require(frozen.ghost.flatMap { t[$0] })
        #expect(oldDot.properties.opacity == 0.5 && oldDot.id.client == LayerTree.ghostClient)
        t.advance(to: 2.2)
        #expect(t.contentTransitions[Self.dot] == nil)
        #expect(t[oldDot.id] != nil && t.contentTransitions[ghostDot] != nil)
        t.advance(to: 3.5)
        #expect(!t.hasContentTransitions && t[ghostDot] == nil && t[oldDot.id] == nil)
    }

    /// The transaction's completion waits for its transition, and fires once when it ends.
    @Test func theTransactionsCompletionWaitsForTheTransition() throws {
        var t = try tree()
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true, completionIDs: [7])), .transition(1, Self.push),
            .set(2, keyPath: "opacity", value: .number(1)), .completion(7)])), at: 1)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 1.5)
        #expect(t.takeEvents().isEmpty)
        t.advance(to: 2)
        #expect(t.takeEvents() == [.transactionCompleted(client: 1, id: 7)])
        t.advance(to: 3)
        #expect(t.takeEvents().isEmpty)
    }

    /// A transition replaced mid-flight by another releases its transaction's completion then.
    @Test func aReplacedTransitionReleasesItsCompletion() throws {
        var t = try tree()
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true, completionIDs: [7])), .transition(1, Self.push),
            .completion(7)])), at: 1)
        #expect(t.takeEvents().isEmpty)
        try commit(&t, at: 1.4, [.transition(1, ContentTransition(type: .fade, duration: 1))])
        #expect(t.takeEvents() == [.transactionCompleted(client: 1, id: 7)])
        #expect(t.hasContentTransitions)
    }

    /// A second transition mid-flight starts from what is on screen: its snapshot holds the
    /// first one frozen at its progress, with that one's own old rendering under it.
    @Test func interruptingStartsFromWhatIsOnScreen() throws {
        var t = try tree()
        try commit(&t, at: 1, [.transition(1, Self.push)])
        let first = try #require(t.contentTransitions[Self.panel]?.ghost)
        let fade = ContentTransition(type: .fade, duration: 2)
        try commit(&t, at: 1.4, [.transition(1, fade)])
        let second = try #require(t.contentTransitions[Self.panel])
        #expect(second.transition == fade && second.beginTime == 1.4)
        let frozen = try #require(second.ghost.flatMap { t.contentTransitions[$0] })
        #expect(abs(frozen.frozenProgress! - 0.4) < 1e-12 && frozen.ghost == first && frozen.transition == Self.push)
        #expect(t[first] != nil)
        // The frozen one does not end on its own; both go when the second ends.
        t.advance(to: 2.5)
        #expect(t[first] != nil)
        t.advance(to: 3.4)
        #expect(t.contentTransitions.isEmpty && t[first] == nil)
        #expect(!t.nodes.nodes.contains { $0.id.client == LayerTree.ghostClient })
    }

    /// Interruptions keep at most three frozen transitions under one another.
    @Test func interruptionChainsAreBounded() throws {
        var t = try tree()
        for k in 0..<10 { try commit(&t, at: 1 + 0.1 * Double(k), [.transition(1, Self.push)]) }
        var depth = 0
        var cursor = t.contentTransitions[Self.panel]?.ghost
        while let g = cursor, let s = t.contentTransitions[g] { depth += 1; cursor = s.ghost }
        #expect(depth == 3)
        // Each ghost level copies the panel and its dot: 2 per level, 4 levels.
        #expect(t.nodes.nodes.filter { $0.id.client == LayerTree.ghostClient }.count == 8)
    }

    @Test func deletingTheLayerOrDisconnectingDropsTheGhosts() throws {
        var t = try tree()
        try commit(&t, at: 1, [.transition(1, Self.push)])
        try commit(&t, at: 1.2, [.removeFromSuperlayer(1), .delete(1)])
        #expect(t.contentTransitions.isEmpty)
        #expect(!t.nodes.nodes.contains { $0.id.client == LayerTree.ghostClient })
        var u = try tree()
        try commit(&u, at: 1, [.transition(1, Self.push)])
        try u.apply(Commit(client: 1, content: .disconnect))
        #expect(u.contentTransitions.isEmpty)
        #expect(!u.nodes.nodes.contains { $0.id.client == LayerTree.ghostClient })
    }

    /// Bad input is a clear error and nothing of the commit applies.
    @Test func badInputRejectsTheWholeCommit() throws {
        var t = try tree()
        func rejected(_ ops: [LayerChange]) -> CommitError? {
            do { try commit(&t, at: 1, [.set(3, keyPath: "opacity", value: .number(0.1))] + ops) } catch let e as CommitError {
                return e
            } catch { return nil }
            return nil
        }
        let unknown = rejected([.transition(9, Self.push)])
        #expect(unknown?.code == .unknownLayer && unknown?.index == 2)
        let negative = rejected([.transition(1, ContentTransition(type: .fade, duration: -1))])
        #expect(negative?.code == .invalidValue && negative?.message.contains("duration must be finite and ≥ 0") == true)
        let infinite = rejected([.transition(1, ContentTransition(type: .fade, duration: .infinity))])
        #expect(infinite?.code == .invalidValue)
        let root = rejected([.transition(0, Self.push)])
        #expect(root?.code == .invalidHierarchy)
        #expect(t.contentTransitions.isEmpty && t[Self.other]!.properties.opacity == 1 && t[Self.other]!.animations.isEmpty)
    }

    /// The contract's motion for each type and subtype (docs/scene-format.md).
    @Test(arguments: ContentTransition.Kind.allCases)
    func looks(_ type: ContentTransition.Kind) {
        let w = 100.0, h = 50.0, p = 0.3
        for subtype in ContentTransition.Subtype.allCases {
            let (dx, dy): (Double, Double) = switch subtype {
            case .fromLeft: (1, 0)
            case .fromRight: (-1, 0)
            case .fromTop: (0, 1)
            case .fromBottom: (0, -1)
            }
            let look = ContentTransition(type: type, subtype: subtype).look(progress: p, width: w, height: h)
            switch type {
            case .fade:
                #expect(look.old == .init(dx: 0, dy: 0, opacity: 0.7, adds: false))
                #expect(look.new == .init(dx: 0, dy: 0, opacity: 0.3, adds: true))
            case .moveIn:
                #expect(look.old == .init() && !look.oldOnTop)
                #expect(look.new.dx == -dx * w * 0.7 && look.new.dy == -dy * h * 0.7)
            case .push:
                #expect(look.old.dx == dx * w * 0.3 && look.old.dy == dy * h * 0.3)
                #expect(look.new.dx == -dx * w * 0.7 && look.new.dy == -dy * h * 0.7)
            case .reveal:
                #expect(look.new == .init() && look.oldOnTop)
                #expect(look.old.dx == dx * w * 0.3 && look.old.dy == dy * h * 0.3)
            }
        }
    }
}
