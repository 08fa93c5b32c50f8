import Foundation
import LaminaGeometry
@testable import LaminaModel
import Testing

/// Emitter particles (EmitterSimulation.swift) against values worked out from the documented
/// model: births at k / R, lifetimes, ranges ± uniform, the shapes' geometry, and the
/// generator's statistics (tolerances from the variance of uniform draws).
@Suite("Emitter simulation")
struct EmitterSimulationTests {
    func particles(_ e: EmitterSimulation.Emitter, _ cells: [EmitterCell], at t: Double,
                   mode: EmitterRenderMode = .unordered) -> [Particle] {
        var out: [Particle] = []
        EmitterSimulation.particles(e, cells: cells, renderMode: mode, at: t, into: &out)
        return out
    }

    func particles(_ cells: [EmitterCell], at t: Double, mode: EmitterRenderMode = .unordered) -> [Particle] {
        particles(EmitterSimulation.Emitter(), cells, at: t, mode: mode)
    }

    func cell(_ configure: (inout EmitterCell) -> Void) -> EmitterCell {
        var c = EmitterCell()
        configure(&c)
        return c
    }

    /// Reduce Motion (`birthsUntil`): no particle is born after that time; those born before
    /// are the same particles and live out their lifetimes.
    @Test func birthsStopAtBirthsUntilAndTheLivingFinish() {
        let c = cell { $0.birthRate = 50; $0.lifetime = 2; $0.velocity = 10; $0.velocityRange = 5 }
        func stopped(at t: Double) -> [Particle] {
            var out: [Particle] = []
            EmitterSimulation.particles(EmitterSimulation.Emitter(), cells: [c], at: t, birthsUntil: 1, into: &out)
            return out
        }
        // At 1.5: births k/50 ≤ 1 (k = 0 … 50) all alive, none after.
        let half = stopped(at: 1.5)
        #expect(half.count == 51 && half.allSatisfy { $0.birth <= 1 })
        let free = particles([c], at: 1.5).filter { $0.birth <= 1 }
        #expect(half.map(\.x) == free.map(\.x) && half.map(\.y) == free.map(\.y))
        // At 2.5: those 2 s old or older have died (births ≤ 0.5): k = 26 … 50 remain; at 3.01 none.
        #expect(stopped(at: 2.5).count == 25)
        #expect(stopped(at: 3.01).isEmpty)
    }

    @Test func aliveCountIsBirthRateTimesMinOfTimeAndLifetime() {
        // Births at k/R, k = 0, 1, …: at time t, ⌊R·t⌋ + 1 are born; those with age < L live.
        let c = cell { $0.birthRate = 50; $0.lifetime = 2 }
        #expect(particles([c], at: 1).count == 51)           // k = 0 … 50, all younger than 2 s
        #expect(particles([c], at: 5).count == 100)          // ages < 2: k/50 > 3, k = 151 … 250
        #expect(particles([c], at: 5.001).count == 100)
        #expect(particles([c], at: -1).isEmpty)
        // The layer's multipliers: birthRate × 2 doubles the rate, lifetime × 0.5 halves the life.
        var e = EmitterSimulation.Emitter()
        e.birthRate = 2
        #expect(particles(e, [c], at: 5).count == 200)
        e.lifetime = 0.5
        #expect(particles(e, [c], at: 5).count == 100)       // 100/s × 1 s
        // A disabled cell, a zero rate: nothing.
        #expect(particles([cell { $0.birthRate = 50; $0.lifetime = 2; $0.enabled = false }], at: 5).isEmpty)
        #expect(particles([cell { $0.lifetime = 2 }], at: 5).isEmpty)
    }

    @Test func aliveCountWithLifetimeRangeIsRateTimesMeanLifetime() {
        // L = 1 + 0.5u, u uniform: E[alive] = R·E[L] = 200. Each of the ≤ R·Lmax = 300 candidates
        // lives independently, so the count's standard deviation is ≤ √300 / 2 ≈ 8.7; 5σ = 43.
        let c = cell { $0.birthRate = 200; $0.lifetime = 1; $0.lifetimeRange = 0.5 }
        var counts: [Int] = []
        for seed in 0..<8 {
            var e = EmitterSimulation.Emitter()
            e.seed = UInt64(seed)
            let n = particles(e, [c], at: 10).count
            #expect(abs(n - 200) <= 43, "seed \(seed): \(n) alive")
            counts.append(n)
        }
        // The mean of 8 runs: σ ≤ 8.7 / √8 ≈ 3.1; 5σ ≈ 16.
        let mean = Double(counts.reduce(0, +)) / Double(counts.count)
        #expect(abs(mean - 200) <= 16, "mean \(mean)")
        // Every particle's lifetime in 1 ± 0.5 and its age below it.
        for p in particles([c], at: 10) {
            #expect(p.lifetime >= 0.5 && p.lifetime < 1.5 && p.age < p.lifetime && p.age >= 0)
        }
    }

    @Test func velocitiesAnglesColorsAndScalesStayInTheirRanges() {
        let c = cell {
            $0.birthRate = 400; $0.lifetime = 1; $0.velocity = 100; $0.velocityRange = 20
            $0.emissionLongitude = .pi / 2; $0.emissionRange = 0.25; $0.spin = 1; $0.spinRange = 0.5
            $0.scale = 2; $0.scaleRange = 0.5; $0.scaleSpeed = 1
            $0.color = Color(0.5, 0.9, 0.1, 1); $0.redRange = 0.2; $0.greenRange = 0.3; $0.blueRange = 0.05
            $0.alphaSpeed = -0.4
        }
        var e = EmitterSimulation.Emitter()
        e.velocity = 1.5
        e.seed = 99
        let ps = particles(e, [c], at: 3)
        #expect(ps.count == 400)
        var speedSum = 0.0
        for p in ps {
            // speed (100 ± 20) × 1.5; within 0.25 / 2 of the axis (0, 1, 0) (longitude π/2).
            #expect(p.speed >= 120 - 1e-9 && p.speed < 180, "speed \(p.speed)")
            #expect(acos(min(1, p.vy / p.speed)) <= 0.125 + 1e-9)
            // Position: start + v·a (no acceleration).
            let ex: Double = p.startX + p.vx * p.age, ey: Double = p.startY + p.vy * p.age
            #expect(abs(p.x - ex) < 1e-9 && abs(p.y - ey) < 1e-9)
            // angle = (1 ± 0.5) × age; scale = (2 ± 0.5) + age.
            #expect(p.angle >= 0.5 * p.age - 1e-12 && p.angle <= 1.5 * p.age + 1e-12)
            #expect(p.scale >= 1.5 + p.age - 1e-12 && p.scale <= 2.5 + p.age + 1e-12)
            // red 0.5 ± 0.2, green 0.9 ± 0.3 clamped at 1, blue 0.1 ± 0.05; alpha 1 − 0.4·age.
            #expect(p.color.red >= 0.3 - 1e-9 && p.color.red <= 0.7 + 1e-9)
            #expect(p.color.green >= 0.6 - 1e-9 && p.color.green <= 1)
            #expect(p.color.blue >= 0.05 - 1e-9 && p.color.blue <= 0.15 + 1e-9)
            #expect(abs(p.color.alpha - (1 - 0.4 * p.age)) < 1e-9)
            speedSum += p.speed
        }
        // The mean speed: 150, σ of one draw 30/√3 ≈ 17.3, of the mean of 400 ≈ 0.87; 5σ ≈ 4.3.
        #expect(abs(speedSum / Double(ps.count) - 150) < 4.3)
        // Green is clamped: about a third of the draws (0.9 + 0.3u ≥ 1 for u ≥ 1/3) read exactly 1.
        let clamped = Double(ps.filter { $0.color.green == 1 }.count) / Double(ps.count)
        #expect(abs(clamped - 1.0 / 3) < 0.12, "\(clamped)")
    }

    /// emissionRange R, emissionLongitude lon, emissionLatitude lat: directions uniform over
    /// the cap of half-angle h = min(|R| / 2, π) about a = (cos lat cos lon, cos lat sin lon,
    /// sin lat). For that distribution (cos θ uniform in cos h … 1, azimuth uniform): every
    /// direction within h of a; E[d] = a·(1 + cos h)/2; P(cos θ < cos h + q(1 − cos h)) = q;
    /// along either perpendicular e, E[d·e] = 0 and E[(d·e)²] = (2 − c − c²)/6 with c = cos h.
    /// n ≈ 10,000 directions each: a component's σ ≤ 1, so the mean's 5σ ≤ 0.05; a fraction's
    /// 5σ ≤ 5·0.5/√n = 0.025; (d·e)² ≤ 1 has σ ≤ 0.5, its mean's 5σ ≤ 0.025.
    @Test(arguments: [(0.0, 0.0, Double.pi / 2), (Double.pi / 2 + 0.3, 0.4, 1.0), (-2.0, -1.2, -2.5),
                      (1.0, 0.3, 0.2), (0.5, 0.0, 2 * Double.pi), (0.5, 0.7, 9.0)])
    func directionsAreUniformInTheEmissionCone(lon: Double, lat: Double, range: Double) {
        let c = cell {
            $0.birthRate = 1000; $0.lifetime = 10; $0.velocity = 3
            $0.emissionLongitude = lon; $0.emissionLatitude = lat; $0.emissionRange = range
        }
        var e = EmitterSimulation.Emitter()
        e.seed = 7
        let ps = particles(e, [c], at: 9.99)
        #expect(ps.count == 9_991)
        let n = Double(ps.count)
        let h = min(abs(range) / 2, Double.pi), cosH = cos(h)
        let a = (cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
        let e1 = (-sin(lon), cos(lon), 0.0), e2 = (-sin(lat) * cos(lon), -sin(lat) * sin(lon), cos(lat))
        func dot(_ u: (Double, Double, Double), _ v: (Double, Double, Double)) -> Double { u.0 * v.0 + u.1 * v.1 + u.2 * v.2 }
        var mean = (0.0, 0.0, 0.0), quartiles = [0.0, 0.0, 0.0], along = [0.0, 0.0], squares = [0.0, 0.0]
        for p in ps {
            let d = (p.vx / 3, p.vy / 3, p.vz / 3)
            #expect(abs(dot(d, d) - 1) < 1e-9)
            let cosT = dot(d, a)
            #expect(cosT >= cosH - 1e-9, "\(acos(min(1, cosT))) beyond \(h)")
            mean = (mean.0 + d.0 / n, mean.1 + d.1 / n, mean.2 + d.2 / n)
            for (i, q) in [0.25, 0.5, 0.75].enumerated() where cosT < cosH + q * (1 - cosH) { quartiles[i] += 1 / n }
            along[0] += dot(d, e1) / n; along[1] += dot(d, e2) / n
            squares[0] += dot(d, e1) * dot(d, e1) / n; squares[1] += dot(d, e2) * dot(d, e2) / n
            // Drawn in the layer's plane: the position moves by (vx, vy)·age.
            #expect(abs(p.x - (p.startX + p.vx * p.age)) < 1e-9 && abs(p.y - (p.startY + p.vy * p.age)) < 1e-9)
        }
        let m = (1 + cosH) / 2
        #expect(abs(mean.0 - a.0 * m) < 0.05 && abs(mean.1 - a.1 * m) < 0.05 && abs(mean.2 - a.2 * m) < 0.05,
                "mean \(mean), expected \(m) × \(a)")
        if h > 0 {
            for (i, q) in [0.25, 0.5, 0.75].enumerated() { #expect(abs(quartiles[i] - q) < 0.025, "\(q): \(quartiles[i])") }
        }
        let square = (2 - cosH - cosH * cosH) / 6
        for i in 0..<2 {
            #expect(abs(along[i]) < 0.05, "\(along)")
            #expect(abs(squares[i] - square) < 0.025, "\(squares) vs \(square)")
        }
    }

    /// No range: every particle leaves along the axis exactly (latitude π/2: straight out of
    /// the plane, so nothing moves in it).
    @Test func noRangeEmitsAlongTheAxis() {
        let c = cell { $0.birthRate = 50; $0.lifetime = 2; $0.velocity = 10; $0.emissionLongitude = 0.7; $0.emissionLatitude = 0.2 }
        for p in particles([c], at: 1.5) {
            #expect(abs(p.vx - 10 * cos(0.2) * cos(0.7)) < 1e-12 && abs(p.vy - 10 * cos(0.2) * sin(0.7)) < 1e-12)
            #expect(abs(p.vz - 10 * sin(0.2)) < 1e-12)
        }
        let up = cell { $0.birthRate = 50; $0.lifetime = 2; $0.velocity = 10; $0.emissionLatitude = .pi / 2 }
        for p in particles([up], at: 1.5) {
            #expect(abs(p.x - p.startX) < 1e-9 && abs(p.y - p.startY) < 1e-9 && abs(p.z - 10 * p.age) < 1e-9)
        }
    }

    @Test func accelerationGivesTheParabola() {
        let c = cell { $0.birthRate = 10; $0.lifetime = 5; $0.velocity = 30; $0.yAcceleration = 98; $0.xAcceleration = -4 }
        for p in particles([c], at: 2) {
            // Longitude 0: velocity (30, 0, 0).
            #expect(abs(p.x - (p.startX + 30 * p.age - 2 * p.age * p.age)) < 1e-9)
            #expect(abs(p.y - (p.startY + 49 * p.age * p.age)) < 1e-9)
        }
    }

    @Test func startPositionsLieOnTheEmitterShape() {
        let c = cell { $0.birthRate = 500; $0.lifetime = 1 }
        func starts(_ shape: EmitterShape, _ mode: EmitterMode) -> [(Double, Double, Double)] {
            var e = EmitterSimulation.Emitter()
            e.position = Point(100, 50); e.zPosition = 5; e.size = Size(80, 40); e.depth = 20
            e.shape = shape; e.mode = mode
            return particles(e, [c], at: 0.99).map { ($0.startX - 100, $0.startY - 50, $0.startZ - 5) }
        }
        let eps = 1e-9
        for (x, y, z) in starts(.point, .volume) { #expect(x == 0 && y == 0 && z == 0) }
        for (x, y, z) in starts(.line, .outline) { #expect(abs(x) <= 40 && y == 0 && z == 0) }
        for (x, _, _) in starts(.line, .points) { #expect(abs(abs(x) - 40) < eps) }
        for (x, y, z) in starts(.rectangle, .surface) { #expect(abs(x) <= 40 && abs(y) <= 20 && z == 0) }
        for (x, y, _) in starts(.rectangle, .points) { #expect(abs(abs(x) - 40) < eps && abs(abs(y) - 20) < eps) }
        for (x, y, _) in starts(.rectangle, .outline) {
            #expect(abs(x) <= 40 + eps && abs(y) <= 20 + eps && (abs(abs(x) - 40) < eps || abs(abs(y) - 20) < eps))
        }
        for (x, y, _) in starts(.circle, .outline) { #expect(abs((x * x + y * y).squareRoot() - 40) < eps) }
        let disc = starts(.circle, .surface)
        for (x, y, _) in disc { #expect((x * x + y * y).squareRoot() <= 40 + eps) }
        // Uniform over the disc: a quarter of the area lies within half the radius.
        let inner = Double(disc.filter { ($0.0 * $0.0 + $0.1 * $0.1).squareRoot() < 20 }.count) / Double(disc.count)
        #expect(abs(inner - 0.25) < 0.1, "\(inner)")
        for (x, y, z) in starts(.sphere, .surface) { #expect(abs((x * x + y * y + z * z).squareRoot() - 40) < eps) }
        for (x, y, z) in starts(.sphere, .volume) { #expect((x * x + y * y + z * z).squareRoot() <= 40 + eps) }
        for (x, y, z) in starts(.cuboid, .volume) { #expect(abs(x) <= 40 && abs(y) <= 20 && abs(z) <= 10) }
        for (x, y, z) in starts(.cuboid, .points) {
            #expect(abs(abs(x) - 40) < eps && abs(abs(y) - 20) < eps && abs(abs(z) - 10) < eps)
        }
        for (x, y, z) in starts(.cuboid, .surface) {
            let faces = [abs(abs(x) - 40) < eps, abs(abs(y) - 20) < eps, abs(abs(z) - 10) < eps].filter { $0 }.count
            #expect(faces >= 1 && abs(x) <= 40 + eps && abs(y) <= 20 + eps && abs(z) <= 10 + eps)
        }
        for (x, y, z) in starts(.cuboid, .outline) {
            let faces = [abs(abs(x) - 40) < eps, abs(abs(y) - 20) < eps, abs(abs(z) - 10) < eps].filter { $0 }.count
            #expect(faces >= 2, "(\(x), \(y), \(z)) is on an edge")
        }
    }

    @Test func theSameSeedAndTimeGiveTheSameParticlesWhateverCameBefore() {
        let c = cell { $0.birthRate = 60; $0.lifetime = 3; $0.lifetimeRange = 1; $0.velocity = 50; $0.velocityRange = 40
            $0.emissionRange = .pi; $0.spinRange = 3; $0.redRange = 0.5 }
        var e = EmitterSimulation.Emitter()
        e.seed = 1234
        let first = particles(e, [c], at: 7.25)
        for t in stride(from: 0.0, to: 7.0, by: 0.37) { _ = particles(e, [c], at: t) }
        #expect(particles(e, [c], at: 7.25) == first)
        e.seed = 1235
        let other = particles(e, [c], at: 7.25)
        #expect(other != first, "another seed, other particles")
    }

    @Test func cellTimingLimitsEmission() {
        // duration 0.5 from beginTime 1: births at cell times 0, 0.1, …, 0.5 (6 particles),
        // cell time = layer time − 1. At 2.2 (cell 1.2) the lifetime 1 has ended for those born
        // before 0.2: 0.3, 0.4, 0.5 live (ages 0.9, 0.8, 0.7), 0.2 just died (age 1.0).
        let c = cell { $0.birthRate = 10; $0.lifetime = 1; $0.beginTime = 1; $0.duration = 0.5 }
        #expect(particles([c], at: 0.5).isEmpty)
        #expect(particles([c], at: 1.5).count == 6)
        #expect(particles([c], at: 2.2).count == 3)
        // Births in layer time: 1.3, 1.4, 1.5.
        let births = particles([c], at: 2.2).map(\.birth).sorted()
        #expect(zip(births, [1.3, 1.4, 1.5]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(particles([c], at: 3).isEmpty)
    }

    @Test func nestedCellsStartWhereTheirParentIs() {
        let child = cell { $0.name = "spark"; $0.birthRate = 4; $0.lifetime = 0.4 }
        let parent = cell { $0.birthRate = 1; $0.lifetime = 1; $0.velocity = 100; $0.emitterCells = [child] }
        let ps = particles([parent], at: 2.5)
        // Parents born at 0, 1, 2: only the one born at 2 lives (age 0.5), at x = 50.
        let parents = ps.filter { $0.cell == 0 }, sparks = ps.filter { $0.cell == 1 }
        #expect(parents.count == 1 && abs(parents[0].x - 50) < 1e-9)
        // Sparks: born at parent ages j/4 while the parent lives, each lives 0.4 s. Parent 2
        // (age 0.5): born at ages 0, 0.25, 0.5 → sparks aged 0.5 (dead), 0.25 and 0 (alive).
        // Parent 1 (age 1.5, died at 1): sparks born at ages 0 … 0.75 → aged 1.5 … 0.75, dead.
        let byAge = sparks.sorted { $0.age > $1.age }
        #expect(byAge.count == 2)
        if byAge.count == 2 {
            // Born at parent age 0.25: where the parent was then, x = 25 (and not moving).
            let s = byAge[0]
            #expect(abs(s.startX - 25) < 1e-9 && abs(s.x - 25) < 1e-9 && abs(s.age - 0.25) < 1e-9)
            #expect(abs(s.birth - 2.25) < 1e-9)
            #expect(abs(byAge[1].x - 50) < 1e-9 && byAge[1].age == 0)
        }
        #expect(EmitterSimulation.flatten([parent]).map(\.name) == ["", "spark"])
    }

    @Test func renderModesOrderTheParticles() {
        let a = cell { $0.birthRate = 20; $0.lifetime = 2; $0.velocity = 10; $0.emissionRange = .pi }
        let oldestFirst = particles([a], at: 1, mode: .oldestFirst).map(\.birth)
        #expect(oldestFirst == oldestFirst.sorted())
        let oldestLast = particles([a], at: 1, mode: .oldestLast).map(\.birth)
        #expect(oldestLast == oldestLast.sorted(by: >))
        let z = particles([a], at: 1, mode: .backToFront).map(\.z)
        #expect(z == z.sorted())
    }

    @Test func limitsBoundTheWork() {
        // 100 000 per second living 3 600 s: 3.6e8 candidates; one frame draws 10 000.
        let c = cell { $0.birthRate = 100_000; $0.lifetime = 3_600 }
        var out: [Particle] = []
        let outcome = EmitterSimulation.particles(.init(), cells: [c], at: 100, into: &out)
        #expect(out.count == EmitterSimulation.maxParticles && outcome.capped)
        // The newest are kept: births in the last 0.1 s.
        #expect(out.allSatisfy { $0.age <= 0.1 + 1e-9 })
        // Nested cells cannot multiply past the evaluation bound.
        let grand = cell { $0.birthRate = 100_000; $0.lifetime = 3_600 }
        let kid = cell { $0.birthRate = 100_000; $0.lifetime = 3_600; $0.emitterCells = [grand] }
        let top = cell { $0.birthRate = 100_000; $0.lifetime = 3_600; $0.emitterCells = [kid] }
        out.removeAll()
        let nested = EmitterSimulation.particles(.init(), cells: [top], at: 100, into: &out)
        #expect(nested.evaluated <= EmitterSimulation.maxEvaluated && out.count <= EmitterSimulation.maxParticles)
    }

    @Test func invalidCellsAreRefusedWithTheirPath() {
        #expect(EmitterCell.problem([cell { $0.birthRate = -1 }]) == "emitterCells[0].birthRate must be ≥ 0")
        #expect(EmitterCell.problem([cell { $0.velocity = .nan }]) == "emitterCells[0].velocity must be finite")
        #expect(EmitterCell.problem([cell { $0.birthRate = 1e6 }])?.contains("at most 100000") == true)
        #expect(EmitterCell.problem([cell { $0.lifetime = 4000 }])?.contains("3600 seconds") == true)
        let deep = cell { $0.emitterCells = [cell { $0.emitterCells = [cell { $0.emitterCells = [EmitterCell()] }] }] }
        #expect(EmitterCell.problem([deep]) == "emitterCells[0].emitterCells[0].emitterCells[0].emitterCells: cells nest at most 3 levels deep")
        #expect(EmitterCell.problem(Array(repeating: EmitterCell(), count: 65))?.contains("at most 64 cells") == true)
        #expect(EmitterCell.problem(Array(repeating: EmitterCell(), count: 64)) == nil)
        #expect(EmitterCell.problem([cell { $0.emitterCells = [cell { $0.duration = -1 }] }])
                == "emitterCells[0].emitterCells[0].duration must be ≥ 0")
    }

    @Test func emitterChangesWhileParticlesLiveOrCellsMayEmit() {
        let c = cell { $0.birthRate = 10; $0.lifetime = 1; $0.duration = 2 }
        func changes(_ t: Double) -> Bool {
            var out: [Particle] = []
            return EmitterSimulation.particles(.init(), cells: [c], at: t, into: &out).changes
        }
        #expect(changes(0.5) && changes(2.5))
        #expect(!changes(3.01), "the last particle (born at 2) died at 3")
        #expect(!changes(10))
    }
}
