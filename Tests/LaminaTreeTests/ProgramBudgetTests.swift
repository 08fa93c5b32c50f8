import Foundation
import LaminaAnimation
import LaminaExpression
import LaminaGeometry
@testable import LaminaTree
import Testing
import LaminaModel
import TestSupport

/// The frame's step budget shared by all templates and expressions, presentation queries that
/// see them, and the dependency check's reach and names.
@Suite struct ProgramBudgetTests {
    func id(_ local: UInt32) -> LayerID { LayerID(client: 1, local: local) }

    func expression(_ local: UInt32, _ keyPath: String, _ source: String, key: String = "e",
                    layers: [String: UInt32] = [:]) -> LayerChange {
        .addExpression(local, key: key, expression: ExpressionAnimation(keyPath: keyPath, expression: source, layers: layers))
    }

    /// A loop whose bound is an input (so it passes the compile-time check) and that the
    /// iteration cap ends: `iterations` iterations of one `line` each.
    static let hostile = "for i in 0 ..< n * 1e12 { line(i, 1) }"

    /// `count` shape layers with the hostile template, each its own `custom.n`.
    func hostileLayers(_ count: Int) -> [LayerChange] {
        (1 ... UInt32(count)).flatMap { l -> [LayerChange] in
            [.create(l, .shape), .addSublayer(parent: 0, child: l),
             .set(l, keyPath: "custom.n", value: .number(1)),
             .set(l, keyPath: "path", value: .template(Self.hostile))]
        }
    }

    /// One run of the hostile template in steps: its code's length plus the loop steps it
    /// spends (the iteration cap ends it).
    static func hostileRunCost() throws -> Int {
        let template = try PathTemplate(hostile, inputs: ["n"])
        return template.baseCost + template.evaluate(in: .zero, inputs: [1], maxLoopSteps: .max).loopSteps
    }

    @Test func manyHostileTemplatesStayWithinTheFrameBudget() throws {
        let layers = 100
        let t = try TestScene.tree(hostileLayers(layers))
        let each = ExpressionLimits.default.maxLoopIterations   // iterations, and path elements, of a run
        let one = try Self.hostileRunCost()
        #expect(one >= each)   // at least a step per iteration
        // A budget of 25 runs: each frame runs 25 templates, the rest keep their (no) path.
        let budget = 25 * one
        t.programStepsPerFrame = budget
        var p = LayerTree()
        var done = 0
        var frames = 0
        while done < layers && frames <= layers {
            frames += 1
            let before = t.templateEvaluations
            t.updatePresentation(&p, at: Double(frames))
            let ran = t.templateEvaluations - before
            let (steps, deferred) = t.lastProgramEvaluation
            #expect(steps <= budget)
            #expect(ran == min(25, layers - done))
            #expect(steps == ran * one)
            #expect(deferred == layers - done - ran)
            #expect(t.hasDeferredPrograms)   // left out now, or just caught up (two frames more)
            // Those that ran have their path (one element per iteration), the rest none yet.
            var withPath = 0
            for l in 1 ... UInt32(layers) {
                if let path = p[id(l)]?.properties.path {
                    #expect(path.elements.count == each)
                    withPath += 1
                }
            }
            #expect(withPath == done + ran)
            done += ran
        }
        #expect(frames == 4)
        // Every template has run once: the next frames run none and spend nothing; two frames
        // after the last one left out, no more frames are asked for.
        let before = t.templateEvaluations
        #expect(t.hasDeferredPrograms)
        t.updatePresentation(&p, at: 10)
        #expect(t.templateEvaluations == before)
        #expect(t.lastProgramEvaluation.steps == 0)
        #expect(!t.hasDeferredPrograms)
    }

    @Test func lateTemplatesReachBothAlternatingSnapshots() throws {
        // The render side patches two presentation trees in turn: each must end up with
        // every template's path, also those that ran a frame late.
        let t = try TestScene.tree(hostileLayers(4))
        t.programStepsPerFrame = try Self.hostileRunCost()   // one run per frame
        var maker = SnapshotMaker()
        var frame = 0
        while (t.hasDeferredPrograms || frame == 0) && frame <= 20 {
            _ = maker.make(from: t, at: Double(frame))   // released at once: patched in place next time
            frame += 1
        }
        // Four frames of one run each; the frame after the last late run catches the other tree up.
        #expect(frame == 5)
        for k in 0 ..< 2 {
            let s = maker.make(from: t, at: Double(frame + k))
            for l in UInt32(1) ... 4 {
                #expect(s.tree[id(l)]?.properties.path?.elements.count == ExpressionLimits.default.maxLoopIterations)
            }
        }
    }

    @Test func deferredTemplatesKeepTheirPreviousPath() throws {
        // Two layers whose `n` animates: with a budget for one run per frame, the second
        // keeps the path of its previous run while the first runs.
        let t = try TestScene.tree(hostileLayers(2) + [
            .addAnimation(1, key: "a", animation: .basic(BasicAnimation(keyPath: "custom.n", from: .double(1), to: .double(2),
                timing: AnimationTiming(duration: 10, timingFunction: .linear, fillMode: .both, removedOnCompletion: false)))),
            .addAnimation(2, key: "a", animation: .basic(BasicAnimation(keyPath: "custom.n", from: .double(1), to: .double(2),
                timing: AnimationTiming(duration: 10, timingFunction: .linear, fillMode: .both, removedOnCompletion: false)))),
        ])
        let each = ExpressionLimits.default.maxLoopIterations
        t.programStepsPerFrame = try Self.hostileRunCost() * 3 / 2   // one run fits, two do not
        var p = LayerTree()
        t.updatePresentation(&p, at: 0)
        #expect(t.lastProgramEvaluation.deferred == 1)
        let first = [p[id(1)]?.properties.path, p[id(2)]?.properties.path]
        #expect(first.compactMap { $0 }.count == 1)
        // Next frame: the one left out runs first; the other keeps its previous path.
        t.updatePresentation(&p, at: 1)
        #expect(t.lastProgramEvaluation.deferred == 1)
        let ranFirst = first[0] != nil ? 1 : 2, other = 3 - ranFirst
        #expect(p[id(UInt32(other))]?.properties.path?.elements.count == each)
        #expect(p[id(UInt32(ranFirst))]?.properties.path == first[ranFirst - 1])
    }

    @Test func expressionsBeyondTheBudgetKeepTheirLastValue() throws {
        let t = try TestScene.tree([.create(1, .layer), .addSublayer(parent: 0, child: 1),
                          .create(2, .layer), .addSublayer(parent: 0, child: 2),
                          expression(1, "position.x", "t * 10"), expression(2, "position.y", "t * 20")])
        var p = LayerTree()
        t.updatePresentation(&p, at: 1)
        #expect(p[id(1)]?.properties.position.x == 10 && p[id(2)]?.properties.position.y == 20)
        // Room for one expression (each costs its code's length, a handful of steps): the
        // first in order runs, the second keeps its value of the previous frame.
        let cost = try AnimationExpression("t * 10").cost
        t.programStepsPerFrame = cost
        t.updatePresentation(&p, at: 2)
        #expect(t.lastProgramEvaluation == (steps: cost, deferred: 1))
        let xs = [p[id(1)]!.properties.position.x, p[id(2)]!.properties.position.y]
        #expect(xs == [20, 20] || xs == [10, 40])
        t.programStepsPerFrame = LayerTree.defaultProgramStepsPerFrame
        t.updatePresentation(&p, at: 3)
        #expect(p[id(1)]?.properties.position.x == 30 && p[id(2)]?.properties.position.y == 60)
    }

    @Test func presentationQueriesSeeExpressionsAndTemplates() throws {
        let t = try TestScene.tree([.create(1, .layer), .addSublayer(parent: 0, child: 1),
                          .create(2, .shape), .addSublayer(parent: 0, child: 2),
                          .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 40, 20))),
                          .set(2, keyPath: "custom.w", value: .number(3)),
                          .set(2, keyPath: "path", value: .template("rect(0, 0, w, rect.height)")),
                          .addAnimation(2, key: "w", animation: .basic(BasicAnimation(keyPath: "custom.w", from: .double(0),
                              to: .double(10), timing: AnimationTiming(duration: 1, timingFunction: .linear)))),
                          expression(1, "opacity", "0.5 * a.custom.w / 10", layers: ["a": 2])])
        // At 0.5 s: w = 5 (linear), the opacity 0.5·5/10, the path a 5 × 20 rectangle.
        #expect(t.presentationValue(of: id(1), keyPath: "opacity", at: 0.5) == .number(0.25))
        var rect = Path()
        rect.addRect(Rect(0, 0, 5, 20))
        #expect(t.presentationProperties(of: id(2), at: 0.5)?.path == rect)
        // The same as the whole presentation tree holds.
        #expect(t.presentationProperties(of: id(1), at: 0.5) == t.presentation(at: 0.5)[id(1)]?.properties)
    }

    @Test func aCycleAcrossALongChainIsFoundFromTheLayersItReaches() throws {
        // 1 ← 2 ← … ← 50 (each reads the next), plus 200 unrelated layers with expressions.
        var ops: [LayerChange] = []
        for l in UInt32(1) ... 250 { ops += [.create(l, .layer), .addSublayer(parent: 0, child: l)] }
        for l in UInt32(1) ..< 50 { ops.append(expression(l, "opacity", "n.opacity", layers: ["n": l + 1])) }
        for l in UInt32(51) ... 250 { ops.append(expression(l, "opacity", "t")) }
        var t = try TestScene.tree(ops)
        // Closing the chain is a cycle through all 50.
        #expect {
            try t.apply(Commit(client: 1, content: .operations([expression(50, "opacity", "f.opacity", layers: ["f": 1])])))
        } throws: { error in
            guard let e = error as? CommitError, let cycle = e.dependencyCycle else { return false }
            return cycle.keys.count == 50 && Set(cycle.keys.map(\.layer)) == Set((1 ... 50).map(String.init))
                && e.message.hasPrefix("layer 50 expression 'e': expression dependency cycle: #")
        }
        // Reading an unrelated layer is fine, and so is reading along the chain's direction.
        try t.apply(Commit(client: 1, content: .operations([expression(50, "opacity", "u.opacity", layers: ["u": 51])])))
        try t.apply(Commit(client: 1, content: .operations([expression(51, "position.x", "c.opacity", key: "x", layers: ["c": 1])])))
        #expect(t.presentation(at: 0.5)[id(51)]?.properties.position.x == 0.5)
    }
}
