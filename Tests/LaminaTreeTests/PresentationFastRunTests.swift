import Foundation
import LaminaAnimation
import LaminaGeometry
@testable import LaminaTree
import Testing
import TestSupport
import LaminaModel

/// The plan's fast runs (PresentationPlan+Fast.swift): plain basic bindings that are their
/// layer's only writer of a stored property. Their values must be the general path's —
/// `presentationProperties(of:at:)`, which evaluates every animation through the enum API
/// from the model — exactly, on random plain animations over many frames; and at a few
/// times they must be what Core Animation's definitions give, worked out by hand.
@Suite struct PresentationFastRunTests {
    func timing(_ r: inout SeededRandom) -> AnimationTiming {
        var t = AnimationTiming()
        t.beginTime = [0, 0, 0.3, -0.5][r.below(4)]
        t.duration = [0.25, 1, 1.6][r.below(3)]
        t.repeatCount = [0, .infinity, 2.5][r.below(3)]
        t.autoreverses = r.below(2) == 0
        t.fillMode = FillMode.allCases[r.below(4)]
        t.removedOnCompletion = r.below(3) != 0
        t.speed = [1, 1, 0.5, -1, 0][r.below(5)]
        t.timeOffset = r.below(2) == 0 ? 0 : r.uniform(0, 2)
        t.timingFunction = [.linear, .easeInEaseOut, .easeIn, .easeOut, .default, .cubicBezier(0.3, 1.4, 0.6, -0.3),
                            .steps(4, .start), .spring(.bouncy)][r.below(8)]
        return t
    }

    @Test func fastRunsMatchTheGeneralPathOnRandomPlainAnimations() throws {
        var r = SeededRandom(seed: 0x5EED_FA57)
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        let n: UInt32 = 80
        var setup: [LayerChange] = [.setTransaction(TransactionSettings(duration: 0))]
        for i in 1...n {
            let transform: Transform3D = i % 4 == 0 ? .identity : i % 4 == 1 ? .rotation(r.uniform(-3, 3))
                : i % 4 == 2 ? Transform3D.scale(2, 0.5, 1).concatenating(.translation(3, 4, 0))
                : Transform3D.rotation(0.4, 1, 0, 0).concatenating(.perspective(400))
            setup += [.create(i, i % 3 == 0 ? .shape : .layer), .addSublayer(parent: 0, child: i),
                      .set(i, keyPath: "transform", value: .transform(transform)),
                      .set(i, keyPath: "opacity", value: .number(r.uniform(0, 1))),
                      .set(i, keyPath: "position", value: .point(Point(r.uniform(0, 99), r.uniform(0, 99))))]
        }
        try t.apply(Commit(client: 1, content: .operations(setup)), at: 0)
        // Whole stored properties, one animation each per layer (so every one is fast), of
        // every lane count; every fifth layer gets two position animations instead (neither of
        // them is fast: they share the stored property).
        let keyPaths: [(String, (inout SeededRandom) -> AnimatableValue)] = [
            ("opacity", { .double($0.uniform(0, 1)) }),
            ("position", { .point(Point($0.uniform(-50, 50), $0.uniform(-50, 50))) }),
            ("bounds", { .rect(Rect($0.uniform(-5, 5), 0, $0.uniform(1, 99), $0.uniform(1, 99))) }),
            ("backgroundColor", { .color(Color($0.uniform(0, 1), $0.uniform(0, 1), $0.uniform(0, 1), $0.uniform(0, 1))) }),
            ("cornerRadius", { .double($0.uniform(0, 9)) }),
            ("transform.rotation.z", { .double($0.uniform(-7, 7)) }),
            ("transform.scale.x", { .double($0.uniform(0.2, 3)) }),
            ("transform.translation.y", { .double($0.uniform(-9, 9)) }),
        ]
        var animations: [LayerChange] = []
        for i in 1...n {
            var used: Set<Int> = i % 5 == 0 ? [1] : []   // position: the two below
            for k in 0..<(1 + r.below(3)) {
                var which = r.below(keyPaths.count)
                // One transform component per layer at most (each is its transform's writer).
                while used.contains(which) || (which >= 5 && used.contains { $0 >= 5 }) { which = (which + 1) % keyPaths.count }
                used.insert(which)
                let (keyPath, value) = keyPaths[which]
                animations.append(.addAnimation(i, key: "a\(k)", animation: .basic(BasicAnimation(
                    keyPath: keyPath, from: value(&r), to: value(&r), timing: timing(&r)))))
            }
            if i % 5 == 0 {
                for key in ["first", "second"] {
                    animations.append(.addAnimation(i, key: key, animation: .basic(BasicAnimation(
                        keyPath: "position", from: .point(.zero), to: .point(Point(9, 9)), timing: timing(&r)))))
                }
            }
        }
        try t.apply(Commit(client: 1, content: .operations(animations)), at: 0)
        var presentation = LayerTree()
        let ids = (1...n).map { LayerID(client: 1, local: $0) }
        var time = -0.2
        for frame in 0..<120 {
            time += r.uniform(0, 0.1)
            if frame % 9 == 4 { t.advance(to: time) }
            t.updatePresentation(&presentation, at: time)
            for id in ids {
                #expect(presentation[id]?.properties == t.presentationProperties(of: id, at: time), "layer \(id.local) at \(time)")
            }
            if frame == 0 {
                // Before any animation ended: the scene does take both paths.
                let plan = try #require(presentation.presentationPlan)
                let fast = plan.fastScalars.count + plan.fastVectors.count
                #expect(fast > 60, "fast bindings: \(fast)")
                #expect(plan.fastRuns.contains { if case .transform = $0.lanes { true } else { false } })
                #expect(plan.fastRuns.contains { if case .rotation2D = $0.lanes { true } else { false } })
                #expect(plan.fastRuns.contains { if case .four = $0.lanes { true } else { false } })
                // The layers with two position animations keep them on the general path.
                #expect(plan.bindings.count == 2 * Int(n / 5))
            }
        }
    }

    /// Values from Core Animation's definitions: linear progress is t / duration; the
    /// easeInEaseOut curve (0.42, 0, 0.58, 1) is point-symmetric about (½, ½), so at half
    /// its duration the value is halfway; a z rotation by θ has m11 = cos θ, m12 = sin θ.
    @Test func fastRunsGiveCoreAnimationsValues() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 0)),
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "position", value: .point(Point(7, 7))),
        ])), at: 0)
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "fade", animation: .basic(BasicAnimation(
                keyPath: "opacity", from: .double(0.2), to: .double(1),
                timing: AnimationTiming(duration: 2, timingFunction: .easeInEaseOut)))),
            .addAnimation(1, key: "move", animation: .basic(BasicAnimation(
                keyPath: "position", from: .point(.zero), to: .point(Point(100, 50)),
                timing: AnimationTiming(duration: 4)))),
            .addAnimation(1, key: "spin", animation: .basic(BasicAnimation(
                keyPath: "transform.rotation.z", from: .double(0), to: .double(.pi),
                timing: AnimationTiming(duration: 2, repeatCount: .infinity)))),
        ])), at: 10)
        var presentation = LayerTree()
        let id = LayerID(client: 1, local: 1)
        t.updatePresentation(&presentation, at: 11)
        #expect(presentation.presentationPlan.map { $0.fastScalars.count + $0.fastVectors.count } == 3)
        var p = try #require(presentation[id]?.properties)
        #expect(abs(p.opacity - 0.6) < 1e-9)                      // 0.2 + 0.8 · ½
        #expect(abs(p.position.x - 25) < 1e-12 && abs(p.position.y - 12.5) < 1e-12)   // ¼ of the way
        #expect(abs(p.transform.m11 - cos(Double.pi / 2)) < 1e-12 && abs(p.transform.m12 - 1) < 1e-12)
        t.updatePresentation(&presentation, at: 12.5)
        p = try #require(presentation[id]?.properties)
        // Opacity ended (removed on completion): the model value, 1. Position at 5/8.
        #expect(p.opacity == 1)
        #expect(abs(p.position.x - 62.5) < 1e-12 && abs(p.position.y - 31.25) < 1e-12)
        // Rotation: 2.5 s into a 2 s repeating turn by π = π/4.
        #expect(abs(p.transform.m11 - cos(Double.pi / 4)) < 1e-12 && abs(p.transform.m12 - sin(Double.pi / 4)) < 1e-12)
        // Before the animations were added: the model values.
        t.updatePresentation(&presentation, at: 9)
        p = try #require(presentation[id]?.properties)
        #expect(p.opacity == 1 && p.position == Point(7, 7) && p.transform == .identity)
    }

    /// Frame after frame on one model version, the presentation's nodes are patched where
    /// they are: the same storage (no copy-on-write copy of every node per frame); a new
    /// model version starts from a fresh copy of the model.
    @Test func framesPatchTheNodesInPlace() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(duration: 0))]
        for i: UInt32 in 1...20 {
            ops += [.create(i, .layer), .addSublayer(parent: 0, child: i),
                    .addAnimation(i, key: "fade", animation: .basic(BasicAnimation(
                        keyPath: "opacity", from: .double(0), to: .double(1),
                        timing: AnimationTiming(duration: 1, timingFunction: .easeInEaseOut, repeatCount: .infinity))))]
        }
        try t.apply(Commit(client: 1, content: .operations(ops)), at: 0)
        var presentation = LayerTree()
        func storage() -> UnsafeRawPointer? {
            presentation.nodes.storage.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
        }
        t.updatePresentation(&presentation, at: 0.1)
        let first = storage()
        for frame in 2...30 {
            t.updatePresentation(&presentation, at: Double(frame) / 10)
            #expect(storage() == first, "frame \(frame)")
        }
        let model = t.nodes.storage.withUnsafeBufferPointer { $0.baseAddress.map(UnsafeRawPointer.init) }
        #expect(first != model)
        // easeInEaseOut at half its duration (3.5 s: half into the fourth turn): halfway.
        t.updatePresentation(&presentation, at: 3.5)
        #expect(storage() == first)
        #expect(abs((presentation[LayerID(client: 1, local: 7)]?.properties.opacity ?? 0) - 0.5) < 1e-9)
    }
}
