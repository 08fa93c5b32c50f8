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
        // f(0.25): solve x(u) = 0.25 for the Bézier, then y(u) (computed here, not by Lamina).
        func bezier(_ p1: Double, _ p2: Double, _ u: Double) -> Double {
            3 * (1 - u) * (1 - u) * u * p1 + 3 * (1 - u) * u * u * p2 + u * u * u
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 { let m = (lo + hi) / 2; if bezier(0.42, 0.58, m) < 0.25 { lo = m } else { hi = m } }
        let y = bezier(0, 1, (lo + hi) / 2)
        #expect(abs(number(t, "filters.sat.amount", 0.25) - 2 * y) < 1e-4)
        // Keyframes: x = t/2 on keyTimes [0, ½, 1] → 0 … 8 … 4.
        for (time, want) in [(0.5, 4.0), (1.0, 8.0), (1.5, 6.0)] {
            #expect(abs(number(t, "backgroundFilters.frost.radius", time) - want) < 1e-9, "t = \(time)")
        }
        guard case .filters(let back)? = t.presentationValue(of: Self.box, keyPath: "backgroundFilters", at: 1.5) else {
            Issue.record("no backgroundFilters"); return
        }
        #expect(abs(back[0].radius - 6) < 1e-9)
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
