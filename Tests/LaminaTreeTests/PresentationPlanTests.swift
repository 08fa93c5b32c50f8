import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing

/// `updatePresentation` patches the presentation tree in place from a flat plan of bindings
/// (typed entry points); `presentationProperties(of:at:)` evaluates through the enum API from
/// the model. Frame after frame, on one reused presentation value, they must agree exactly.
@Suite struct PresentationPlanTests {
    func basic(_ keyPath: String, _ from: AnimatableValue, _ to: AnimatableValue, duration: Double = 1,
               additive: Bool = false, repeats: Bool = true) -> Animation {
        .basic(BasicAnimation(keyPath: keyPath, from: from, to: to,
                              timing: AnimationTiming(duration: duration, repeatCount: repeats ? .infinity : 0, additive: additive)))
    }

    @Test func patchedPresentationMatchesTheReferenceEvaluation() throws {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 0)),
            .create(1, .layer), .create(2, .layer), .create(3, .shape), .create(4, .layer),
            .addSublayer(parent: 0, child: 1), .addSublayer(parent: 0, child: 2),
            .addSublayer(parent: 0, child: 3), .addSublayer(parent: 0, child: 4),
            .set(1, keyPath: "transform", value: .transform(.rotation(0.4, 0, 0, 1))),
            .set(2, keyPath: "position", value: .point(Point(5, 7))),
            .set(3, keyPath: "lineDashPattern", value: .numbers([1, 2])),
        ])), at: 0)
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "fade", animation: basic("opacity", .double(0), .double(1))),
            .addAnimation(1, key: "spin", animation: basic("transform.rotation.z", .double(0), .double(3))),
            .addAnimation(1, key: "grow", animation: basic("transform.scale", .double(1), .double(2))),
            .addAnimation(2, key: "move", animation: basic("position", .point(.zero), .point(Point(100, 50)))),
            .addAnimation(2, key: "nudge", animation: basic("position.x", .double(0), .double(10), additive: true)),
            .addAnimation(2, key: "tint", animation: basic("backgroundColor", .color(Color(1, 0, 0, 1)), .color(Color(0, 0, 1, 1)))),
            .addAnimation(3, key: "dash", animation: basic("lineDashPattern", .doubles([1, 2]), .doubles([3, 4]))),
            .addAnimation(3, key: "once", animation: basic("strokeEnd", .double(0), .double(1), duration: 0.5, repeats: false)),
            .addAnimation(4, key: "slide", animation: basic("transform.translation", .size(Size(0, 0)), .size(Size(4, 8)))),
        ])), at: 0)
        var presentation = LayerTree()
        let ids = (1...4).map { LayerID(client: 1, local: $0) }
        // 0.7 s without `advance`: the ended strokeEnd animation must already have no effect.
        for (i, time) in [0.1, 0.3, 0.45, 0.7, 0.9, 1.25].enumerated() {
            if i % 2 == 0 { t.advance(to: time) }
            t.updatePresentation(&presentation, at: time)
            for id in ids {
                #expect(presentation[id]?.properties == t.presentationProperties(of: id, at: time), "layer \(id.local) at \(time)")
            }
        }
        // A commit (new model version) rebuilds the plan; the new model value shows through.
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 0)),
            .set(2, keyPath: "position", value: .point(Point(50, 60))),
            .removeAnimation(1, key: "spin"),
        ])), at: 1.3)
        for time in [1.4, 1.5] {
            t.updatePresentation(&presentation, at: time)
            for id in ids {
                #expect(presentation[id]?.properties == t.presentationProperties(of: id, at: time), "layer \(id.local) at \(time)")
            }
        }
    }
}
