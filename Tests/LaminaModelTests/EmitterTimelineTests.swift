import Foundation
@testable import LaminaModel
import Testing

/// Varying emitter multipliers (`EmitterSimulation.Timeline`): births follow the integral
/// I(t) = ∫₀ᵗ B of the layer's birth rate B — particle k of a cell of rate c is born at the
/// first time with c·I(t) = k — and every other multiplier is taken at the particle's birth.
/// Expected birth times are solved by hand from the piecewise-linear B of each test.
@Suite("Emitter timeline")
struct EmitterTimelineTests {
    typealias M = EmitterSimulation.Multipliers

    func cell(rate: Double, velocity: Double = 0) -> EmitterCell {
        var c = EmitterCell()
        c.birthRate = rate; c.lifetime = 100; c.velocity = velocity
        return c
    }

    func births(_ timeline: EmitterSimulation.Timeline?, _ c: EmitterCell, at t: Double) -> [Particle] {
        var e = EmitterSimulation.Emitter()
        e.timeline = timeline
        var out: [Particle] = []
        EmitterSimulation.particles(e, cells: [c], at: t, into: &out)
        return out.sorted { $0.birth < $1.birth }
    }

    func expectBirths(_ got: [Particle], _ expected: [Double], _ note: String) {
        #expect(got.count == expected.count, "\(note): \(got.map(\.birth))")
        for (p, e) in zip(got, expected) { #expect(abs(p.birth - e) < 1e-9, "\(note): \(p.birth) ≠ \(e)") }
    }

    @Test func aConstantTimelineGivesTheConstantBirths() throws {
        let timeline = try #require(EmitterSimulation.Timeline(times: [0], values: [M(birthRate: 2, velocity: 3)]))
        var c = cell(rate: 5, velocity: 10)
        c.velocityRange = 4; c.emissionRange = 1
        var e = EmitterSimulation.Emitter()
        e.birthRate = 2; e.velocity = 3
        var plain: [Particle] = []
        EmitterSimulation.particles(e, cells: [c], at: 3.33, into: &plain)
        e.timeline = timeline
        var varying: [Particle] = []
        EmitterSimulation.particles(e, cells: [c], at: 3.33, into: &varying)
        // k / (5 · 2) for k = 0 … 33 (33.3 births).
        #expect(plain.count == 34 && varying.count == 34)
        for (a, b) in zip(plain, varying) {
            #expect(abs(a.birth - b.birth) < 1e-12 && abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 && a.speed == b.speed)
        }
    }

    /// B = 1 on [0, 1), a ramp 0 → 2 on [1, 3), 1 after: I(t) = t, then 1 + (t − 1)²/2, then t.
    @Test func birthsFollowTheIntegralOfARampedRate() throws {
        let timeline = try #require(EmitterSimulation.Timeline(
            times: [0, 1, 1, 3, 3], values: [M(), M(), M(birthRate: 0), M(birthRate: 2), M()]))
        #expect(abs(timeline.integral(to: 2.2) - (1 + 1.2 * 1.2 / 2)) < 1e-12)
        #expect(abs(timeline.integral(to: 4.1) - 4.1) < 1e-12)
        // c = 4: at 2.2, 4 · 1.72 = 6.88 → k = 0 … 6; k ≤ 4 at k / 4, k = 5 at 1 + √0.5, k = 6 at 2.
        expectBirths(births(timeline, cell(rate: 4), at: 2.2), [0, 0.25, 0.5, 0.75, 1, 1 + 0.5.squareRoot(), 2], "t 2.2")
        // At 4.1: 16.4 → k = 0 … 16; k = 7 at 1 + √1.5, 8 at 1 + √2, 12 at 3, 16 at 4.
        let late = births(timeline, cell(rate: 4), at: 4.1)
        #expect(late.count == 17)
        if late.count == 17 {
            for (k, t) in [(7, 1 + 1.5.squareRoot()), (8, 1 + 2.0.squareRoot()), (12, 3.0), (13, 3.25), (16, 4.0)] {
                #expect(abs(late[k].birth - t) < 1e-9, "k \(k): \(late[k].birth) ≠ \(t)")
            }
        }
    }

    /// B = 1, 0 on [1, 2), 1 after: births wait through the pause.
    @Test func aPauseInTheRateDelaysTheNextBirth() throws {
        let timeline = try #require(EmitterSimulation.Timeline(
            times: [0, 1, 1, 2, 2], values: [M(), M(), M(birthRate: 0), M(birthRate: 0), M()]))
        // c = 2: k = 2 when I = 1 (t = 1), k = 3 when I = 1.5 (t = 2.5).
        expectBirths(births(timeline, cell(rate: 2), at: 2.4), [0, 0.5, 1], "t 2.4")
        expectBirths(births(timeline, cell(rate: 2), at: 2.6), [0, 0.5, 1, 2.5], "t 2.6")
        #expect(timeline.time(reaching: 1) == 1)
    }

    /// The other multipliers are the ones at each particle's birth: velocity 1 until 1, 3 after.
    @Test func otherMultipliersAreTakenAtBirth() throws {
        let timeline = try #require(EmitterSimulation.Timeline(
            times: [0, 1, 1], values: [M(), M(), M(velocity: 3, scale: 2)]))
        let ps = births(timeline, cell(rate: 2, velocity: 10), at: 2)
        #expect(ps.count == 5)
        for p in ps {
            let after = p.birth >= 1
            #expect(p.speed == (after ? 30 : 10) && p.scale == (after ? 2 : 1), "born \(p.birth)")
            #expect(abs(p.x - p.speed * (2 - p.birth)) < 1e-9)
        }
    }

    @Test func badSamplesAreRefused() {
        #expect(EmitterSimulation.Timeline(times: [], values: []) == nil)
        #expect(EmitterSimulation.Timeline(times: [1, 0], values: [M(), M()]) == nil)
        #expect(EmitterSimulation.Timeline(times: [0, .nan], values: [M(), M()]) == nil)
        #expect(EmitterSimulation.Timeline(times: [0], values: [M(), M()]) == nil)
        // A negative rate counts as 0 (a spring may overshoot below).
        let t = EmitterSimulation.Timeline(times: [0, 1], values: [M(birthRate: -1), M(birthRate: -1)])
        #expect(t?.integral(to: 5) == 0 && t?.time(reaching: 1) == .infinity)
    }
}
