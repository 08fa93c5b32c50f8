import LaminaAnimation
import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

/// Animated filter fields (`filters.NAME.radius`, `filters.NAME.amount`,
/// `backgroundFilters.NAME.radius`): explicit animations evaluated on the render thread's tree
/// at manual-clock times, against values computed from the timing formulas — a basic
/// animation's from + (to − from)·f(x), x = (t − begin)/duration; a linear keyframe
/// animation's interpolation between the values around x on keyTimes.
@Suite struct FilterAnimationTests {
    static let box = LayerID(client: 1, local: 1)

    /// Layer 1 with `filters` [blur σ 2 "blur", saturate 1 "sat"] and `backgroundFilters`
    /// [blur σ 4 "frost"], made at t = 0.
    func scene() throws -> LayerTree {
        try AnimationTreeTests.scene(with: [
            .set(1, keyPath: "filters", value: .filters([.gaussianBlur(2, name: "blur"),
                                                          LayerFilter(name: "sat", kind: .saturate, amount: 1)])),
            .set(1, keyPath: "backgroundFilters", value: .filters([.gaussianBlur(4, name: "frost")])),
        ])
    }

    /// easeInEaseOut = Bézier (0.42, 0, 0.58, 1) at x: x(u) = x solved by bisection, then y(u)
    /// (computed here, not by Lamina).
    static func easeInEaseOut(_ x: Double) -> Double {
        func bezier(_ p1: Double, _ p2: Double, _ u: Double) -> Double {
            3 * (1 - u) * (1 - u) * u * p1 + 3 * (1 - u) * u * u * p2 + u * u * u
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 { let m = (lo + hi) / 2; if bezier(0.42, 0.58, m) < x { lo = m } else { hi = m } }
        return bezier(0, 1, (lo + hi) / 2)
    }

    func number(_ t: LayerTree, _ keyPath: String, _ time: Double) -> Double {
        guard case .number(let v)? = t.presentationValue(of: Self.box, keyPath: keyPath, at: time) else { return .nan }
        return v
    }

    @Test func aBasicAnimationOfABlurRadiusFollowsItsTiming() throws {
        var t = try scene()
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "r", animation: .basic(BasicAnimation(
                keyPath: "filters.blur.radius", from: .double(2), to: .double(10),
                timing: AnimationTiming(duration: 2)))),
        ])), at: 1)
        // Linear: x = (t − 1)/2.
        for (time, want) in [(1.0, 2.0), (1.5, 4.0), (2.0, 6.0), (2.75, 9.0)] {
            #expect(abs(number(t, "filters.blur.radius", time) - want) < 1e-9, "t = \(time)")
        }
        // After the end (removed on completion): the model value.
        #expect(number(t, "filters.blur.radius", 3.5) == 2)
        // The list as a whole reports the animated radius; the other filter is untouched.
        guard case .filters(let list)? = t.presentationValue(of: Self.box, keyPath: "filters", at: 1.5) else {
            Issue.record("no filters"); return
        }
        #expect(abs(list[0].radius - 4) < 1e-9 && list[1].amount == 1 && list.count == 2)
        // The model is unchanged.
        #expect(t[Self.box]?.properties.filters[0].radius == 2)
    }

    @Test func anEasedAmountAndAKeyframedBackgroundRadiusRunTogether() throws {
        var t = try scene()
        var eased = AnimationTiming(duration: 1)
        eased.timingFunction = .easeInEaseOut
        try t.apply(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "s", animation: .basic(BasicAnimation(
                keyPath: "filters.sat.amount", from: .double(0), to: .double(2), timing: eased))),
            .addAnimation(1, key: "f", animation: .keyframe(KeyframeAnimation(
                keyPath: "backgroundFilters.frost.radius", values: [.double(0), .double(8), .double(4)],
                keyTimes: [0, 0.5, 1], timing: AnimationTiming(duration: 2)))),
        ])), at: 0)
        // easeInEaseOut = Bézier (0.42, 0, 0.58, 1) is symmetric: f(½) = ½.
        #expect(abs(number(t, "filters.sat.amount", 0.5) - 1) < 1e-6)
        #expect(abs(number(t, "filters.sat.amount", 0.25) - 2 * Self.easeInEaseOut(0.25)) < 1e-4)
        // Keyframes: x = t/2 on keyTimes [0, ½, 1] → 0 … 8 … 4.
        for (time, want) in [(0.5, 4.0), (1.0, 8.0), (1.5, 6.0)] {
            #expect(abs(number(t, "backgroundFilters.frost.radius", time) - want) < 1e-9, "t = \(time)")
        }
        guard case .filters(let back)? = t.presentationValue(of: Self.box, keyPath: "backgroundFilters", at: 1.5) else {
            Issue.record("no backgroundFilters"); return
        }
        #expect(abs(back[0].radius - 6) < 1e-9)
    }

    /// Setting a named filter's number in an animated transaction animates it implicitly,
    /// as CALayer's default action for `filters.NAME.radius`: a basic animation keyed by the
    /// key path, from the presentation value to the new model value, with the transaction's
    /// duration and timing function.
    @Test func settingAFieldAnimatesImplicitlyFromThePresentationValue() throws {
        var t = try scene()
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(duration: 2, timingFunction: .linear)),
            .set(1, keyPath: "filters.blur.radius", value: .number(10)),
            .set(1, keyPath: "backgroundFilters.frost.radius", value: .number(0)),
        ])), at: 1)
        // The model holds the new values at once.
        #expect(t[Self.box]?.properties.filters[0].radius == 10)
        #expect(t[Self.box]?.properties.backgroundFilters[0].radius == 0)
        #expect(Set(t[Self.box]?.animations.map(\.key) ?? []) == ["filters.blur.radius", "backgroundFilters.frost.radius"])
        // Linear over 2 s from t = 1: 2 → 10 and 4 → 0.
        for (time, want) in [(1.0, 2.0), (1.5, 4.0), (2.0, 6.0), (2.5, 8.0)] {
            #expect(abs(number(t, "filters.blur.radius", time) - want) < 1e-9, "t = \(time)")
        }
        #expect(abs(number(t, "backgroundFilters.frost.radius", 1.5) - 3) < 1e-9)
        #expect(number(t, "filters.blur.radius", 3.5) == 10)
        #expect(number(t, "backgroundFilters.frost.radius", 3.5) == 0)

        // Interrupted at t = 2 (presented 6): the default action (0.25 s, easeInEaseOut)
        // from 6 to 0, replacing the running one under the same key.
        try t.apply(Commit(client: 1, content: .operations([
            .set(1, keyPath: "filters.blur.radius", value: .number(0)),
            .set(1, keyPath: "filters.sat.amount", value: .number(3)),
        ])), at: 2)
        for x in [0.0, 0.2, 0.5, 0.8] {
            let f = Self.easeInEaseOut(x)
            #expect(abs(number(t, "filters.blur.radius", 2 + 0.25 * x) - 6 * (1 - f)) < 1e-4, "x = \(x)")
            #expect(abs(number(t, "filters.sat.amount", 2 + 0.25 * x) - (1 + 2 * f)) < 1e-4, "x = \(x)")
        }
        #expect(number(t, "filters.blur.radius", 2.3) == 0 && number(t, "filters.sat.amount", 2.3) == 3)
        // The background radius's animation (ended at 3) was not touched by the new key.
        #expect(abs(number(t, "backgroundFilters.frost.radius", 2.5) - 1) < 1e-9)

        // disableActions: no animation.
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(disableActions: true)),
            .set(1, keyPath: "filters.blur.radius", value: .number(5)),
        ])), at: 4)
        #expect(number(t, "filters.blur.radius", 4) == 5)
    }

    @Test func settingAFieldChecksTheFilterAndTheValue() throws {
        var t = ModelTree()
        _ = try t.validate(Commit(client: 1, content: .connect))
        _ = try t.validate(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "filters", value: .filters([.gaussianBlur(2, name: "blur"),
                                                          LayerFilter(name: "m", kind: .colorMatrix, matrix: Array(repeating: 0, count: 20))])),
        ])))
        let bad: [(String, PropertyValue)] = [
            ("filters.nope.radius", .number(1)), ("filters.blur.amount", .number(1)), ("filters.m.amount", .number(1)),
            ("backgroundFilters.blur.radius", .number(1)), ("filters.blur.radius", .number(-1)),
            ("filters.blur.radius", .number(.nan)), ("filters.blur.radius", .string("4")),
        ]
        for (keyPath, value) in bad {
            #expect(throws: CommitError.self, "\(keyPath) = \(value)") {
                _ = try t.validate(Commit(client: 1, content: .operations([.set(1, keyPath: keyPath, value: value)])))
            }
        }
        _ = try t.validate(Commit(client: 1, content: .operations([.set(1, keyPath: "filters.blur.radius", value: .number(7))])))
        #expect(t[LayerID(client: 1, local: 1)]?.properties.filters[0].radius == 7)
        // The model set keeps what it is given (the 100 000 clamp is only for animated values).
        var p = LayerProperties()
        p.filters = [.gaussianBlur(0, name: "b")]
        try p.setValue(.number(250_000), forKeyPath: "filters.b.radius")
        #expect(p.value(forKeyPath: "filters.b.radius") == .number(250_000))
    }

    @Test func fieldsOfMissingFiltersOrOfTheWrongKindAreRefused() throws {
        var t = ModelTree()
        _ = try t.validate(Commit(client: 1, content: .connect))
        _ = try t.validate(Commit(client: 1, content: .operations([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "filters", value: .filters([.gaussianBlur(2, name: "blur")])),
        ])))
        for keyPath in ["filters.nope.radius", "filters.blur.amount", "backgroundFilters.blur.radius", "filters.blur.size"] {
            #expect(throws: CommitError.self, "\(keyPath)") {
                _ = try t.validate(Commit(client: 1, content: .operations([
                    .addAnimation(1, key: "a", animation: .basic(BasicAnimation(
                        keyPath: keyPath, from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1))))])))
            }
        }
        _ = try t.validate(Commit(client: 1, content: .operations([
            .addAnimation(1, key: "a", animation: .basic(BasicAnimation(
                keyPath: "filters.blur.radius", from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1))))])))
    }

    @Test func keyPathsParse() {
        #expect(FilterField(keyPath: "filters.b.radius") == FilterField(background: false, name: "b", isAmount: false))
        #expect(FilterField(keyPath: "backgroundFilters.x.amount") == FilterField(background: true, name: "x", isAmount: true))
        for bad in ["filters..radius", "filters.b", "filters.b.radius.x", "shadow.b.radius", "filters.b.matrix"] {
            #expect(FilterField(keyPath: bad) == nil, "\(bad)")
        }
        #expect(FilterField(keyPath: "backgroundFilters.x.amount")?.keyPath == "backgroundFilters.x.amount")
    }
}
