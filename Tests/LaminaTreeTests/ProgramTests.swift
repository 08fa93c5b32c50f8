import Foundation
import LaminaAnimation
import LaminaExpression
import LaminaGeometry
@testable import LaminaTree
import Testing
import TestSupport
import LaminaModel

/// Path templates and expression animations through the trees: compiled where commits are
/// validated, evaluated into the presentation tree after the ordinary animations.
@Suite struct ProgramTests {
    /// The issue's polygon, from its words (TestSupport's `SeedPolygon`).
    static func polygonPath(_ b: Rect, sides: Double, scale: Double, rotation: Double) -> Path {
        .polygon(SeedPolygon.vertices(in: b, sides: sides, scale: scale, rotation: rotation))
    }

    static func expectClose(_ a: Path?, _ b: Path, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let a else { Issue.record("no path", sourceLocation: sourceLocation); return }
        #expect(a.elements.count == b.elements.count, sourceLocation: sourceLocation)
        func points(_ e: Path.Element) -> [Point] {
            switch e {
            case .move(let p), .line(let p): [p]
            case .quad(let c, let p): [c, p]
            case .cubic(let c1, let c2, let p): [c1, c2, p]
            case .close: []
            }
        }
        for (x, y) in zip(a.elements, b.elements) {
            let px = points(x), py = points(y)
            #expect(px.count == py.count, "\(x) vs \(y)", sourceLocation: sourceLocation)
            for (p, q) in zip(px, py) {
                #expect(abs(p.x - q.x) < 1e-9 && abs(p.y - q.y) < 1e-9, "\(x) vs \(y)", sourceLocation: sourceLocation)
            }
        }
    }

    func polygonLayer(_ local: UInt32, sides: Double = 5) -> [LayerChange] {
        [.create(local, .shape), .addSublayer(parent: 0, child: local),
         .set(local, keyPath: "bounds", value: .rect(Rect(0, 0, 100, 80))),
         .set(local, keyPath: "custom.sides", value: .number(sides)),
         .set(local, keyPath: "custom.scale", value: .number(0.9)),
         .set(local, keyPath: "custom.rotation", value: .number(0.25)),
         .set(local, keyPath: "path", value: .template(SeedPolygon.template))]
    }

    func id(_ local: UInt32) -> LayerID { LayerID(client: 1, local: local) }

    func linear(_ keyPath: String, _ from: Double, _ to: Double, duration: Double = 1) -> Animation {
        .basic(BasicAnimation(keyPath: keyPath, from: .double(from), to: .double(to),
                              timing: AnimationTiming(duration: duration, timingFunction: .linear, fillMode: .both,
                                                      removedOnCompletion: false)))
    }

    // MARK: Templates

    @Test func templateOutputIsThePresentationPath() throws {
        let t = try TestScene.tree(polygonLayer(1))
        let p = t.presentation(at: 0)
        Self.expectClose(p[id(1)]?.properties.path, Self.polygonPath(Rect(0, 0, 100, 80), sides: 5, scale: 0.9, rotation: 0.25))
        // The model keeps the template, not a path.
        #expect(t[id(1)]?.properties.path == nil)
        #expect(t[id(1)]?.properties.templates.path?.inputNames == ["rotation", "scale", "sides"])
    }

    @Test func animatedCustomPropertiesFeedTheTemplate() throws {
        var t = try TestScene.tree(polygonLayer(1))
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "morph", animation: linear("custom.sides", 3, 9, duration: 2)),
        ])), at: 0)
        var presentation = LayerTree()
        for time in [0.0, 0.4, 1.0, 1.3, 2.0, 2.5] {
            t.updatePresentation(&presentation, at: time)
            let sides = min(3 + 6 * time / 2, 9)
            Self.expectClose(presentation[id(1)]?.properties.path,
                             Self.polygonPath(Rect(0, 0, 100, 80), sides: sides, scale: 0.9, rotation: 0.25))
        }
    }

    @Test func implicitAnimationOfACustomPropertyFeedsTheTemplate() throws {
        var t = try TestScene.tree(polygonLayer(1))
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 1, timingFunction: .linear)),
            .set(1, keyPath: "custom.rotation", value: .number(1.25)),
        ])), at: 1)
        Self.expectClose(t.presentation(at: 1.5)[id(1)]?.properties.path,
                         Self.polygonPath(Rect(0, 0, 100, 80), sides: 5, scale: 0.9, rotation: 0.75))
        Self.expectClose(t.presentation(at: 3)[id(1)]?.properties.path,
                         Self.polygonPath(Rect(0, 0, 100, 80), sides: 5, scale: 0.9, rotation: 1.25))
    }

    @Test func templatesRunOnlyWhenWhatTheyReadChanged() throws {
        // 1: sides animates (runs every frame its value changes); 2: static; 3: animated
        // opacity only (visited each frame, never re-run); 4: reads no bounds field.
        var ops = polygonLayer(1) + polygonLayer(2) + polygonLayer(3)
        ops += [.create(4, .shape), .addSublayer(parent: 0, child: 4),
                .set(4, keyPath: "path", value: .template("move(0, 0); line(10, 0); line(0, 10); close()"))]
        var t = try TestScene.tree(ops)
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "morph", animation: linear("custom.sides", 3, 9)),
            .addAnimation(3, key: "fade", animation: linear("opacity", 1, 0)),
        ])), at: 0)
        var presentation = LayerTree()
        t.updatePresentation(&presentation, at: 0)
        #expect(t.templateEvaluations == 4)
        let staticPath = presentation[id(2)]!.properties.path!
        for k in 1 ... 10 { t.updatePresentation(&presentation, at: Double(k) * 0.05) }
        #expect(t.templateEvaluations == 4 + 10)
        // The same time again: nothing changed, nothing runs.
        t.updatePresentation(&presentation, at: 0.5)
        #expect(t.templateEvaluations == 14)
        #expect(presentation[id(2)]!.properties.path!.elements == staticPath.elements)
        // A commit rebuilds the presentation tree: every template is visited, none re-runs
        // (layer 1 at the same time), except those reading the bounds that changed.
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 60, 60))),
            .set(4, keyPath: "bounds", value: .rect(Rect(0, 0, 60, 60))),
        ])), at: 0.5)
        t.updatePresentation(&presentation, at: 0.5)
        #expect(t.templateEvaluations == 15)
        Self.expectClose(presentation[id(2)]?.properties.path, Self.polygonPath(Rect(0, 0, 60, 60), sides: 5, scale: 0.9, rotation: 0.25))
    }

    @Test func templateErrorsNameTheLayerThePositionAndTheReason() throws {
        var t = try TestScene.tree([.create(7, .shape), .addSublayer(parent: 0, child: 7),
                          .set(7, keyPath: "custom.k", value: .number(1))])
        let cases: [(String, String)] = [
            ("move(0, 0)\nline(k, bar)", "layer 7 path: template line 2, column 9 (offset 19): unknown name 'bar'"),
            ("move(0)", "layer 7 path: template line 1, column 1 (offset 0): move takes 2 arguments, not 1"),
            ("for i in 0 ..< 1e9 { line(i, 0) }", "line 1"),
        ]
        for (source, expected) in cases {
            #expect {
                try t.apply(Commit(client: 1, content: .operations([.set(7, keyPath: "path", value: .template(source))])))
            } throws: { error in
                guard let e = error as? CommitError else { return false }
                return e.code == .invalidValue && e.index == 0 && e.message.contains(expected)
            }
        }
        // A custom property set after the template is not one it can read.
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([
                .set(7, keyPath: "path", value: .template("move(later, 0)")),
                .set(7, keyPath: "custom.later", value: .number(1)),
            ])))
        }
        // Templates are for paths; on a plain layer `path` is not a property.
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([.set(7, keyPath: "opacity", value: .template("close()"))])))
        }
    }

    @Test func aPlainPathReplacesTheTemplate() throws {
        var t = try TestScene.tree(polygonLayer(1))
        let square = Path.rect(Rect(0, 0, 5, 5))
        try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "path", value: .path(square))])))
        #expect(t[id(1)]?.properties.templates.path == nil)
        #expect(t.presentation(at: 0)[id(1)]?.properties.path == square)
    }

    @Test func hostileTemplatesAreBoundedPerFrame() throws {
        // Loops whose bounds are inputs pass the compile-time check; at run time the
        // iteration budget ends them (10,000 by default, all loops together).
        let source = "for i in 0 ..< n * 1e12 { for j in 0 ..< n * 1e12 { line(i, j) } }"
        var t = try TestScene.tree([.create(1, .shape), .addSublayer(parent: 0, child: 1),
                          .set(1, keyPath: "custom.n", value: .number(1)),
                          .set(1, keyPath: "path", value: .template(source))])
        let start = Date()
        let p = t.presentation(at: 0)
        #expect(Date().timeIntervalSince(start) < 2)
        #expect((p[id(1)]?.properties.path?.elements.count ?? 0) <= ExpressionLimits.default.maxLoopIterations)
        // A deep nesting or an enormous literal is rejected at commit.
        for bad in [String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000),
                    "move(1e999, 0)", String(repeating: "close()\n", count: 5_000)] {
            #expect(throws: CommitError.self) {
                try t.apply(Commit(client: 1, content: .operations([.set(1, keyPath: "path", value: .template("move(0, \(bad))"))])))
            }
        }
    }

    // MARK: Expressions

    func expression(_ local: UInt32, _ keyPath: String, _ source: String, key: String = "e",
                    layers: [String: UInt32] = [:]) -> LayerChange {
        .addExpression(local, key: key, expression: ExpressionAnimation(keyPath: keyPath, expression: source, layers: layers))
    }

    func layers(_ locals: UInt32...) -> [LayerChange] {
        locals.flatMap { [.create($0, .layer), .addSublayer(parent: 0, child: $0)] as [LayerChange] }
    }

    @Test func anExpressionFollowsAnotherLayersPresentation() throws {
        var t = try TestScene.tree(layers(1, 2))
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "move", animation: linear("position.x", 0, 100)),
            expression(2, "position.x", "lead.position.x * 0.5 + 10", layers: ["lead": 1]),
            expression(2, "opacity", "clamp(t / 4, 0, 1)", key: "fade"),
        ])), at: 0)
        var presentation = LayerTree()
        for time in [0.0, 0.25, 0.6, 1.0, 2.0] {
            t.updatePresentation(&presentation, at: time)
            #expect(presentation[id(2)]?.properties.position.x == min(time, 1) * 100 * 0.5 + 10)
            #expect(presentation[id(2)]?.properties.opacity == min(time / 4, 1))
        }
        // The model is untouched.
        #expect(t[id(2)]?.properties.position.x == 0)
    }

    @Test func expressionsRunInDependencyOrder() throws {
        // Added last-first: c reads b, b reads a, a reads t.
        var t = try TestScene.tree(layers(1, 2, 3))
        try t.apply(Commit(client: 1, content: .operations([
            expression(3, "custom.v", "b.custom.v + 1", layers: ["b": 2]),
            expression(2, "custom.v", "a.custom.v * 2", layers: ["a": 1]),
            expression(1, "custom.v", "t", layers: [:]),
            expression(1, "transform.translation.x", "self.custom.v * 10", key: "x"),
        ])), at: 0)
        let p = t.presentation(at: 3)
        #expect(p[id(1)]?.properties.custom["v"] == [3])
        #expect(p[id(2)]?.properties.custom["v"] == [6])
        #expect(p[id(3)]?.properties.custom["v"] == [7])
        #expect(p[id(1)]?.properties.transform.m41 == 30)
    }

    @Test func cyclesAreRejectedAtCommitWithTheCycleNamed() throws {
        var t = try TestScene.tree(layers(1, 2))
        try t.apply(Commit(client: 1, content: .operations([expression(1, "opacity", "b.opacity", layers: ["b": 2])])))
        #expect {
            try t.apply(Commit(client: 1, content: .operations([expression(2, "opacity", "1 - a.opacity", layers: ["a": 1])])))
        } throws: { error in
            // Either rotation names the same cycle.
            let m = (error as? CommitError)?.message ?? ""
            return m.hasPrefix("layer 2 expression 'e': expression dependency cycle: ")
                && (m.hasSuffix("#1.opacity → #2.opacity → #1.opacity") || m.hasSuffix("#2.opacity → #1.opacity → #2.opacity"))
        }
        // Reading what it writes is a cycle of one (`position` contains `position.x`).
        #expect(throws: CommitError.self) {
            try t.apply(Commit(client: 1, content: .operations([expression(2, "position.x", "self.position + 1")])))
        }
        // The rejected commits changed nothing; a non-cyclic one still goes in.
        try t.apply(Commit(client: 1, content: .operations([expression(2, "opacity", "0.25")])))
        #expect(t.presentation(at: 0)[id(1)]?.properties.opacity == 0.25)
    }

    @Test func expressionErrorsNameTheLayerAndPosition() throws {
        var t = try TestScene.tree(layers(1, 2))
        let cases: [(LayerChange, String)] = [
            (expression(1, "opacity", "ghost.opacity"), "layer 1 expression 'e': line 1, column 1 (offset 0): unknown layer 'ghost'"),
            (expression(1, "opacity", "1 + (2"), "layer 1 expression 'e': line 1"),
            (expression(1, "position", "1"), "position is not a number property"),
            (expression(1, "opacity", "b.fillColor", layers: ["b": 2]), "fillColor is not a number property of layer 2"),
        ]
        for (op, expected) in cases {
            #expect {
                try t.apply(Commit(client: 1, content: .operations([op])))
            } throws: { error in
                guard let e = error as? CommitError else { return false }
                return e.code == .invalidAnimation && e.message.contains(expected)
            }
        }
    }

    @Test func aDeletedReferenceReadsNaNAndTheModelValueShows() throws {
        var t = try TestScene.tree(layers(1, 2))
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "opacity", value: .number(0.3)),
            .set(2, keyPath: "opacity", value: .number(0.8)),
            expression(1, "opacity", "b.opacity / 2", layers: ["b": 2]),
        ])))
        #expect(t.presentation(at: 0)[id(1)]?.properties.opacity == 0.4)
        try t.apply(Commit(client: 1, content: .operations([.delete(2)])))
        #expect(t.presentation(at: 0)[id(1)]?.properties.opacity == 0.3)
    }

    @Test func expressionsShareTheAnimationKeys() throws {
        var t = try TestScene.tree(layers(1))
        try t.apply(Commit(client: 1, content: .operations([expression(1, "opacity", "0.5", key: "k")])))
        #expect(t.presentation(at: 0)[id(1)]?.properties.opacity == 0.5)
        try t.apply(Commit(client: 1, content: .operations([.addAnimation(1, key: "k", animation: linear("opacity", 0, 0))])))
        #expect(t[id(1)]?.expressions.isEmpty == true)
        try t.apply(Commit(client: 1, content: .operations([expression(1, "opacity", "0.75", key: "k")])))
        #expect(t[id(1)]?.animations.isEmpty == true)
        #expect(t.presentation(at: 0)[id(1)]?.properties.opacity == 0.75)
        try t.apply(Commit(client: 1, content: .operations([.removeAnimation(1, key: "k")])))
        #expect(t.presentation(at: 0)[id(1)]?.properties.opacity == 1)
    }

    @Test func theShakeSettles() throws {
        let shake = "sin(self.custom.progress * 6 * pi) * self.custom.intensity * (1 - self.custom.progress)"
        var t = try TestScene.tree(layers(1) + [.set(1, keyPath: "custom.progress", value: .number(0)),
                                      .set(1, keyPath: "custom.intensity", value: .number(40)),
                                      expression(1, "transform.translation.x", shake, key: "shake")])
        for progress in [0.0, 0.1, 0.37, 0.5, 1.0] {
            try t.apply(Commit(client: 1, content: .operations([
                .setTransaction(TransactionSettings(disableActions: true)),
                .set(1, keyPath: "custom.progress", value: .number(progress)),
            ])))
            let x = t.presentation(at: 0)[id(1)]!.properties.transform.m41
            #expect(abs(x - Foundation.sin(progress * 6 * Double.pi) * 40 * (1 - progress)) < 1e-12)
        }
    }
}
