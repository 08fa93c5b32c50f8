import LaminaAnimation
import LaminaGeometry
@testable import LaminaTree
import Testing
import TestSupport
import LaminaModel

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

/// The plan's fast paths — plain basic bindings (`PresentationPlan.Plain`) and rotations
/// recomposed from a direct Euler matrix — against the reference evaluation, over random
/// layers, model transforms, animations and times. Plain and general bindings are mixed on
/// the same layers and key paths, so the order of application is exercised too.
@Suite struct PresentationPlanFastPathTests {
    static let easings: [TimingFunction] = [.linear, .easeInEaseOut, .easeIn, .default, .steps(3, .end), .spring(.snappy)]

    func randomTiming(_ r: inout SeededRandom) -> AnimationTiming {
        var t = AnimationTiming()
        t.beginTime = [0, 0, 0.2, -0.4][r.below(4)]
        t.duration = [0.3, 1, 1.7][r.below(3)]
        t.repeatCount = [0, .infinity, 1.5][r.below(3)]
        t.autoreverses = r.below(2) == 0
        t.fillMode = FillMode.allCases[r.below(4)]
        t.removedOnCompletion = r.below(3) != 0
        t.speed = [1, 1, 2, -1][r.below(4)]
        t.timeOffset = r.below(2) == 0 ? 0 : r.uniform(0, 2)
        t.timingFunction = Self.easings[r.below(Self.easings.count)]
        t.additive = r.below(6) == 0
        return t
    }

    func randomTransform(_ r: inout SeededRandom) -> Transform3D {
        switch r.below(5) {
        case 0: return .identity
        case 1: return .rotation(r.uniform(-3, 3))
        case 2: return Transform3D.scale(r.uniform(0.5, 2), r.uniform(0.5, 2), 1).concatenating(.rotation(r.uniform(-3, 3)))
            .concatenating(.translation(r.uniform(-9, 9), r.uniform(-9, 9), 0))
        case 3: return Transform3D.rotation(r.uniform(-1, 1), 1, 0, 0).concatenating(.rotation(r.uniform(-1, 1), 0, 1, 0))
            .concatenating(.rotation(r.uniform(-3, 3)))
        default: return Transform3D.skewX(r.uniform(-0.5, 0.5)).concatenating(.perspective(500))
            .concatenating(.rotation(r.uniform(-3, 3), 0.2, 1, 0.3))
        }
    }

    @Test func fastPathsMatchTheReferenceEvaluation() throws {
        var r = SeededRandom(seed: 0xFA57)
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        let n: UInt32 = 60
        var setup: [LayerChange] = [.setTransaction(TransactionSettings(duration: 0))]
        for i in 1...n {
            setup += [.create(i, i % 3 == 0 ? .shape : .layer), .addSublayer(parent: 0, child: i),
                      .set(i, keyPath: "transform", value: .transform(randomTransform(&r))),
                      .set(i, keyPath: "position", value: .point(Point(r.uniform(0, 99), r.uniform(0, 99))))]
        }
        try t.apply(Commit(client: 1, content: .operations(setup)), at: 0)
        let keyPaths: [(String, () -> AnimatableValue)] = [
            ("opacity", { .double(r.uniform(0, 1)) }),
            ("position", { .point(Point(r.uniform(-50, 50), r.uniform(-50, 50))) }),
            ("position.x", { .double(r.uniform(-50, 50)) }),
            ("bounds", { .rect(Rect(0, 0, r.uniform(1, 99), r.uniform(1, 99))) }),
            ("bounds.size", { .size(Size(r.uniform(1, 99), r.uniform(1, 99))) }),
            ("backgroundColor", { .color(Color(r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1), r.uniform(0, 1))) }),
            ("cornerRadius", { .double(r.uniform(0, 9)) }),
            ("shadowOffset", { .size(Size(r.uniform(-5, 5), r.uniform(-5, 5))) }),
            ("transform.rotation.z", { .double(r.uniform(-7, 7)) }),
            ("transform.rotation", { .double(r.uniform(-7, 7)) }),
            ("transform.rotation.x", { .double(r.uniform(-2, 2)) }),
            ("transform.rotation.y", { .double(r.uniform(-2, 2)) }),
            ("transform.scale", { .double(r.uniform(0.2, 3)) }),
            ("transform.translation.x", { .double(r.uniform(-9, 9)) }),
            ("transform.translation", { .size(Size(r.uniform(-9, 9), r.uniform(-9, 9))) }),
            ("sublayerTransform.rotation.z", { .double(r.uniform(-7, 7)) }),
        ]
        var animations: [LayerChange] = []
        for i in 1...n {
            for k in 0..<(1 + r.below(4)) {
                let (keyPath, value) = keyPaths[r.below(keyPaths.count)]
                let timing = randomTiming(&r)
                let from: AnimatableValue? = r.below(8) == 0 ? nil : value()
                let animation: Animation = r.below(8) == 0
                    ? .keyframe(KeyframeAnimation(keyPath: keyPath, values: [value(), value(), value()], timing: timing))
                    : .basic(BasicAnimation(keyPath: keyPath, from: from, to: value(), timing: timing))
                animations.append(.addAnimation(i, key: "a\(k)", animation: animation))
            }
        }
        try t.apply(Commit(client: 1, content: .operations(animations)), at: 0)
        var presentation = LayerTree()
        let ids = (1...n).map { LayerID(client: 1, local: $0) }
        var time = 0.0
        for frame in 0..<60 {
            time += r.uniform(0, 0.15)
            if frame % 7 == 3 { t.advance(to: time) }
            t.updatePresentation(&presentation, at: time)
            for id in ids {
                #expect(presentation[id]?.properties == t.presentationProperties(of: id, at: time), "layer \(id.local) at \(time)")
            }
        }
        // The scene did exercise the fast path.
        let plan = try #require(presentation.presentationPlan)
        #expect(plan.plain.count > 20)
        #expect(plan.bindings.contains { $0.plain < 0 })
    }

    /// The direct rotation matrix against the quaternion route it replaced: equal within
    /// 1e-12 relative to the matrix's largest entry. Both are a product of exactly rounded
    /// sines and cosines; the quaternion route adds a square root, divisions and the products
    /// of the quaternion's matrix (a few ulps each), so they differ by rounding only —
    /// about 1e-15 here; 1e-12 leaves room without hiding a wrong sign or axis order
    /// (those differ by O(1)).
    @Test func directRotationMatchesTheQuaternionRoute() {
        var r = SeededRandom(seed: 0x0207)
        var worst = 0.0
        for _ in 0..<3000 {
            let m = randomTransform(&r)
            let c: TransformComponent = [.rotationZ, .rotation, .rotationX, .rotationY][r.below(4)]
            let prepared = TransformComponent.Prepared(c, m)
            let v = r.uniform(-10, 10)
            let fast = c.setting(v, in: prepared), reference = c.settingByQuaternion(v, in: prepared)
            let a = entries(fast), b = entries(reference)
            let scale = max(1, b.map(abs).max()!)
            let error = zip(a, b).map { abs($0 - $1) }.max()! / scale
            worst = max(worst, error)
            #expect(error <= 1e-12, "\(c) \(v) \(m)")
        }
        print("direct rotation vs quaternion route: worst relative difference \(worst)")
    }

    func entries(_ m: Transform3D) -> [Double] {
        [m.m11, m.m12, m.m13, m.m14, m.m21, m.m22, m.m23, m.m24, m.m31, m.m32, m.m33, m.m34, m.m41, m.m42, m.m43, m.m44]
    }
}
