import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing
import TestSupport
import LaminaModel

/// A commit is validated once, by the model tree, into a packet the render tree applies
/// without checks. Random commits (seeded) go through both trees; after each the render tree
/// must hold exactly the model's structure and values, a rejected commit must change neither,
/// and the render tree's explicit animations must be the ones the model's ledger counts.
@Suite struct CommitPacketTests {
    nonisolated(unsafe) static let keyPaths: [(String, (inout SeededRandom) -> PropertyValue)] = [
        ("opacity", { .number($0.uniform(-0.2, 1.2)) }),              // out of [0, 1] is rejected
        ("position", { .point(Point($0.uniform(-50, 50), $0.uniform(-50, 50))) }),
        ("position.x", { .number($0.uniform(-50, 50)) }),
        ("bounds", { .rect(Rect(0, 0, $0.uniform(-5, 80), $0.uniform(0, 80))) }),   // negative size rejected
        ("frame", { .rect(Rect($0.uniform(0, 20), $0.uniform(0, 20), $0.uniform(1, 40), $0.uniform(1, 40))) }),
        ("transform.rotation.z", { .number($0.uniform(-3, 3)) }),
        ("transform.scale", { .number($0.uniform(0.5, 2)) }),
        ("backgroundColor", { .color(Color($0.uniform(0, 1), 0.5, 0.25, 1)) }),
        ("cornerRadius", { .number($0.uniform(0, 10)) }),
        ("hidden", { .bool($0.below(2) == 0) }),
        ("custom.weight", { .number($0.uniform(0, 3)) }),
        ("opacity", { _ in .point(.zero) }),                                 // wrong type
        ("noSuchProperty", { _ in .number(1) }),                             // unknown key path
        ("path", { _ in .path(Path.rect(Rect(0, 0, 10, 10))) }),
    ]

    static func operation(_ rng: inout SeededRandom, layers: UInt32) -> LayerChange {
        // Mostly existing layers; now and then the client's root (0) or a missing one.
        let a = rng.below(12) == 0 ? 0 : UInt32(1 + rng.below(Int(layers))), b = UInt32(rng.below(Int(layers) + 1))
        switch rng.below(13) {
        case 0, 12: return .create(a, rng.below(2) == 0 ? .layer : .shape)
        case 1: return .delete(a)
        case 2, 3, 4:
            let (k, v) = keyPaths[rng.below(keyPaths.count)]
            return .set(a, keyPath: k, value: v(&rng))
        case 5: return .addSublayer(parent: a, child: b)
        case 6: return .insertSublayer(parent: a, child: b, index: UInt32(rng.below(4)))
        case 7: return .removeFromSuperlayer(a)
        case 8:
            let keys = ["", "fade", "move"]
            let duration = [0.5, 2, 10][rng.below(3)]
            let path = ["opacity", "position.y", "transform.rotation.z", "noSuch"][rng.below(4)]
            return .addAnimation(a, key: keys[rng.below(3)], animation: .basic(BasicAnimation(
                keyPath: path, from: .double(0), to: .double(1), timing: AnimationTiming(duration: duration))))
        case 9: return .removeAnimation(a, key: ["fade", "move", ""][rng.below(3)])
        case 10:
            return .setTransaction(TransactionSettings(duration: [0, 0.25, 1, -1][rng.below(4)],
                                                       disableActions: rng.below(4) == 0, completionIDs: [UInt32(rng.below(3))]))
        default: return .completion(UInt32(rng.below(3)))
        }
    }

    /// The render tree's nodes agree with the model's: same ids, kinds, values and structure.
    /// The model's ledger counts, at `time`, exactly the explicit animations the render tree
    /// still holds, layer by layer, in order.
    static func expectLedgerCounts(_ render: LayerTree, _ model: ModelTree, at time: Double, _ note: String) {
        for node in model.nodes.nodes {
            let explicit = render[node.id]?.animations.filter { !$0.isImplicit }.map(\.key) ?? []
            let counted = model.animationLedger(of: node.id).filter { $0.removedAt > time }.map(\.key)
            #expect(explicit == counted, "\(note): animations of \(node.id)")
        }
    }

    static func expectSameModel(_ render: LayerTree, _ model: ModelTree, _ note: String) {
        #expect(render.count == model.count, "\(note): layer count")
        for node in model.nodes.nodes {
            guard let r = render[node.id] else { Issue.record("\(note): \(node.id) missing"); continue }
            #expect(r.kind == node.kind && r.superlayer == node.superlayer && r.sublayers == node.sublayers,
                    "\(note): structure of \(node.id)")
            #expect(r.properties == node.properties, "\(note): values of \(node.id)")
        }
    }

    @Test func randomCommitsGiveTheModelsValuesAndNothingOfRejectedOnes() {
        var rng = SeededRandom(seed: 0xC0FFEE)
        var model = ModelTree(maxLayersPerClient: 12, maxAnimationsPerLayer: 3, maxDepth: 4)
        var render = LayerTree()
        for client: UInt32 in [1, 2] {
            render.apply(try! model.validate(Commit(client: client, content: .connect)), at: 0)
        }
        var accepted = 0, rejected = 0
        for step in 0..<600 {
            let time = Double(step) * 0.25
            let client = UInt32(1 + rng.below(2))
            let ops = (0..<(1 + rng.below(3))).map { _ in Self.operation(&rng, layers: 6) }
            var commit = Commit(client: client, content: .operations(ops))
            commit.time = time
            render.advance(to: time)
            let (modelBefore, renderBefore, sequenceBefore) = (model.nodes, render.nodes, model.sequence)
            do {
                let packet = try model.validate(commit, at: time)
                #expect(packet.sequence == sequenceBefore + 1)
                render.apply(packet, at: packet.time ?? time)
                #expect(render.sequence == packet.sequence)
                accepted += 1
            } catch {
                #expect(model.nodes == modelBefore && model.sequence == sequenceBefore, "step \(step): rejected commit changed the model")
                #expect(render.nodes == renderBefore, "step \(step): rejected commit reached the render tree")
                rejected += 1
            }
            Self.expectSameModel(render, model, "step \(step)")
            Self.expectLedgerCounts(render, model, at: time, "step \(step)")
        }
        // Both outcomes are exercised.
        #expect(accepted > 100 && rejected > 100, "accepted \(accepted), rejected \(rejected)")
        // A disconnect leaves both trees with the other client only.
        render.apply(try! model.validate(Commit(client: 1, content: .disconnect)), at: 200)
        Self.expectSameModel(render, model, "after disconnect")
        #expect(render.nodes.nodes.allSatisfy { $0.id.client != 1 })
    }

    /// A set that may start an implicit animation carries the layer's values after it and its
    /// action keys, in place; sets that start nothing (a layer made in this commit, actions
    /// disabled, a property without an action) are one `properties` change per layer with its
    /// final values, at the end.
    @Test func aSetCarriesTheResolvedValuesAndItsActionKeys() throws {
        var model = ModelTree()
        _ = try model.validate(Commit(client: 1, content: .connect))
        let id = LayerID(client: 1, local: 1)
        let made = try model.validate(Commit(client: 1, content: .operations([
            .create(1, .layer), .set(1, keyPath: "frame", value: .rect(Rect(10, 20, 30, 40))),
            .set(1, keyPath: "position.x", value: .number(5)), .set(1, keyPath: "hidden", value: .bool(true)),
        ])))
        guard case .changes(let first) = made.content, first.count == 2, case .create(id, .layer) = first[0],
              case .properties(id, let values) = first[1] else {
            Issue.record("expected the creation and one properties change"); return
        }
        // frame (10, 20, 30, 40), anchor ½: bounds (0, 0, 30, 40), position (25, 40); then x = 5.
        #expect(values.bounds == Rect(0, 0, 30, 40) && values.position == Point(5, 40) && values.isHidden)

        let packet = try model.validate(Commit(client: 1, content: .operations([
            .set(1, keyPath: "frame", value: .rect(Rect(10, 20, 30, 40))),
            .set(1, keyPath: "position.x", value: .number(6)), .set(1, keyPath: "hidden", value: .bool(false)),
        ])))
        guard case .changes(let changes) = packet.content, changes.count == 3,
              case .set(let a, let frameSet, let frameActions) = changes[0],
              case .set(_, let xSet, let xActions) = changes[1], case .properties(id, let last) = changes[2] else {
            Issue.record("expected two sets and one properties change"); return
        }
        #expect(a == id)
        #expect(frameSet.bounds == Rect(0, 0, 30, 40) && frameSet.position == Point(25, 40))
        #expect(frameActions == CommitPacket.ImplicitActions(.bounds, .position))
        #expect(xSet.position == Point(6, 40) && xActions == CommitPacket.ImplicitActions(.position))
        #expect(!last.isHidden && last.position == Point(6, 40))
    }

    /// Sets that start nothing reach the render tree before a later set of the same layer that
    /// animates: its implicit animation starts from their value, not the one before the commit.
    /// Linear timing over 1 s: halfway is the mean of the two ends.
    @Test func anAnimatedSetStartsFromTheQuietSetsBeforeIt() throws {
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect), at: 0)
        try tree.apply(Commit(client: 1, content: .operations([
            .create(1, .layer), .set(1, keyPath: "position", value: .point(Point(0, 0))),
        ])), at: 0)
        let quiet = TransactionSettings(disableActions: true)
        let animated = TransactionSettings(duration: 1, timingFunction: .linear)
        try tree.apply(Commit(client: 1, content: .operations([
            .setTransaction(quiet), .set(1, keyPath: "position", value: .point(Point(100, 0))),
            .set(1, keyPath: "opacity", value: .number(0.5)),
            .setTransaction(animated), .set(1, keyPath: "position.x", value: .number(200)),
            .setTransaction(quiet), .set(1, keyPath: "position.y", value: .number(40)),
            .set(1, keyPath: "opacity", value: .number(0.25)),
        ])), at: 10)
        let id = LayerID(client: 1, local: 1)
        #expect(tree[id]?.properties.position == Point(200, 40))
        #expect(tree[id]?.properties.opacity == 0.25)
        // position's implicit animation (from only, CA's rule) runs from (100, 0), the value
        // before its set, to the model's (200, 40) over [10, 11]; opacity never animates.
        let p = try #require(tree.presentationProperties(of: id, at: 10.5))
        #expect(abs(p.position.x - 150) < 1e-9 && abs(p.position.y - 20) < 1e-9)
        #expect(p.opacity == 0.25)
        let end = try #require(tree.presentationProperties(of: id, at: 11.5))
        #expect(end.position == Point(200, 40))
    }
}
