import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing

/// The emitter layer's multipliers varying over time, through commits applied by a frame
/// driver (the model tree's history, LayerTree+EmitterHistory.swift, and the simulation's
/// timeline): the particle count is 1 + ⌊c · I(t)⌋ (births k = 0 … ⌊c · I(t)⌋ at the first
/// time with c · I = k) with I(t) = ∫₀ᵗ B the layer birth rate's integral, worked out by hand
/// for each test. The cell sends particles along +x at 20 points per second from x = 0 of a
/// layer at the canvas origin (scale 1): particle k is drawn at device x = 20 · (t − birth),
/// so the list gives the birth times back.
@Suite("Emitter multipliers over time")
struct EmitterRateTests {
    static func cell(rate: Double) -> EmitterCell {
        var c = EmitterCell()
        c.birthRate = rate; c.lifetime = 5; c.velocity = 20
        return c
    }

    static func driver(rate: Double, _ extra: [LayerChange] = []) throws -> (FrameDriver, ModelTree, [CommitPacket]) {
        var model = ModelTree()
        let driver = FrameDriver(widthPoints: 300, heightPoints: 200, scale: 1, background: .black, targetFPS: 60)
        var setup = Commit(client: 1, content: .operations([
            .create(1, .emitter), .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 300, 200))),
            .set(1, keyPath: "position", value: .point(Point(150, 100))),
            .set(1, keyPath: "emitterCells", value: .emitterCells([cell(rate: rate)])),
            .addSublayer(parent: 0, child: 1)] + extra))
        setup.time = 0
        let packets = [try model.validate(Commit(client: 1, content: .connect)), try model.validate(setup)]
        return (driver, model, packets)
    }

    static func commit(_ model: inout ModelTree, at t: Double, _ ops: [LayerChange]) throws -> CommitPacket {
        var c = Commit(client: 1, content: .operations(ops))
        c.time = t
        return try model.validate(c)
    }

    /// The birth times the list shows, oldest first.
    static func births(_ list: DrawList, at t: Double) -> [Double] {
        list.items.map { t - $0.transform.m41 / 20 }.sorted()
    }

    static func expectBirths(_ list: DrawList, at t: Double, _ expected: [Double], _ note: String) {
        let got = births(list, at: t)
        #expect(got.count == expected.count, "\(note): \(got)")
        for (g, e) in zip(got, expected) { #expect(abs(g - e) < 1e-6, "\(note): born \(g) ≠ \(e)") }
    }

    @Test func settingTheBirthRateToZeroStopsBirthsAndTheBornLiveOn() throws {
        var (driver, model, packets) = try Self.driver(rate: 10)
        _ = driver.frame(applying: packets, at: 0)
        packets = [try Self.commit(&model, at: 1.05, [.setTransaction(TransactionSettings(disableActions: true)),
                                                      .set(1, keyPath: "birthRate", value: .number(0))])]
        // I(t) = min(t, 1.05): k = 0 … 10 born at k / 10, alive (lifetime 5) after the change.
        let expected = (0...10).map { Double($0) / 10 }
        Self.expectBirths(driver.frame(applying: packets, at: 2).drawList, at: 2, expected, "t 2")
        Self.expectBirths(driver.frame(applying: [], at: 4.5).drawList, at: 4.5, expected, "t 4.5")
        #expect(driver.frame(applying: [], at: 6).drawList.items.isEmpty, "all have died")
    }

    /// A layer created with its birthRate has no past: created at 0 in the commit that makes
    /// it, it emits nothing ever (the default 1 it replaced never held).
    @Test func anEmitterCreatedWithARateHasNoEarlierRate() throws {
        var (driver, _, packets) = try Self.driver(rate: 10, [.set(1, keyPath: "birthRate", value: .number(0))])
        #expect(driver.frame(applying: packets, at: 0.5).drawList.items.isEmpty)
        packets = []
        #expect(driver.frame(applying: [], at: 2).drawList.items.isEmpty)
    }

    /// An explicit linear animation of birthRate 0 → 2 over [1, 3] (model value 1, removed at
    /// its end): I(t) = t to 1, 1 + (t − 1)²/2 to 3, then t.
    @Test func anExplicitBirthRateAnimationIsIntegratedAndRemembered() throws {
        var (driver, model, packets) = try Self.driver(rate: 4)
        _ = driver.frame(applying: packets, at: 0)
        packets = [try Self.commit(&model, at: 1, [.addAnimation(1, key: "rate", animation: .basic(BasicAnimation(
            keyPath: "birthRate", from: .double(0), to: .double(2), timing: AnimationTiming(duration: 2))))])]
        // t 2.2: 4 · 1.72 = 6.88 → k = 0 … 6: k / 4 for k ≤ 4, then 1 + √0.5 and 2.
        Self.expectBirths(driver.frame(applying: packets, at: 2.2).drawList, at: 2.2,
                          [0, 0.25, 0.5, 0.75, 1, 1 + 0.5.squareRoot(), 2], "t 2.2")
        // t 4.1, the animation gone: 16.4 → k = 0 … 16, the last born at I = 4: t = 4.
        let late = Self.births(driver.frame(applying: [], at: 4.1).drawList, at: 4.1)
        #expect(late.count == 17)
        if late.count == 17 {
            for (k, t) in [(7, 1 + 1.5.squareRoot()), (8, 1 + 2.0.squareRoot()), (12, 3.0), (16, 4.0)] {
                #expect(abs(late[k] - t) < 1e-6, "k \(k): \(late[k]) ≠ \(t)")
            }
        }
    }

    /// birthRate 1 → 3 implicitly at t = 1 (0.25 s, easeInEaseOut: symmetric about its middle,
    /// so its integral is 0.25 · (1 + 3) / 2): I(2) = 1 + 0.5 + 0.75 · 3 = 3.75.
    @Test func anImplicitBirthRateChangeIsIntegrated() throws {
        var (driver, model, packets) = try Self.driver(rate: 5)
        _ = driver.frame(applying: packets, at: 0)
        packets = [try Self.commit(&model, at: 1, [.set(1, keyPath: "birthRate", value: .number(3))])]
        _ = driver.frame(applying: packets, at: 1.1)
        // 5 · 3.75 = 18.75 → 19 particles; the last (k = 18) at I = 3.6: 1.25 + (3.6 − 1.5) / 3 = 1.95.
        let got = Self.births(driver.frame(applying: [], at: 2).drawList, at: 2)
        #expect(got.count == 19, "\(got)")
        #expect(abs((got.last ?? 0) - 1.95) < 1e-4)
    }

    /// velocity 1 → 2 without animation at t = 1: particles born before fly at 20, after at 40.
    @Test func velocityIsTakenAtEachParticlesBirth() throws {
        var (driver, model, packets) = try Self.driver(rate: 2)
        _ = driver.frame(applying: packets, at: 0)
        packets = [try Self.commit(&model, at: 1, [.setTransaction(TransactionSettings(disableActions: true)),
                                                   .set(1, keyPath: "velocity", value: .number(2))])]
        let list = driver.frame(applying: packets, at: 2).drawList
        // Births 0, 0.5, 1, 1.5, 2: x = 20 · 2, 20 · 1.5, then 40 · 1, 40 · 0.5, 40 · 0.
        let xs = list.items.map(\.transform.m41).sorted()
        let expected = [0.0, 20, 30, 40, 40]
        #expect(xs.count == 5 && zip(xs, expected).allSatisfy { abs($0 - $1) < 1e-6 }, "\(xs)")
    }
}
