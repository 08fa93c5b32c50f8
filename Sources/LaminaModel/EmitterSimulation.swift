#if canImport(Glibc)
import Glibc
#endif
import LaminaGeometry

/// One particle of an emitter layer at one time, in the layer's coordinates.
public struct Particle: Equatable, Sendable {
    /// The particle's cell: an index into `EmitterSimulation.flatten(cells)` (depth first).
    public var cell: Int
    /// Where its centre is now.
    public var x: Double, y: Double, z: Double
    /// Where it started (the emitter shape's point, or its parent particle's position).
    public var startX: Double, startY: Double, startZ: Double
    /// Its velocity at birth (points per second), and its speed (that vector's length).
    public var vx: Double, vy: Double, vz: Double
    public var speed: Double
    /// Its rotation now (radians, spin × age) and its scale now.
    public var angle: Double
    public var scale: Double
    /// Its color now (each channel clamped to 0…1).
    public var color: Color
    /// Seconds since its birth, and its lifetime (both in its cell's time).
    public var age: Double
    public var lifetime: Double
    /// Its birth in the layer's local time (the draw order of `oldestFirst` / `oldestLast`).
    public var birth: Double
}

/// The particles of an emitter layer (`CAEmitterLayer`), in closed form: each particle is a
/// function of the layer's `seed`, its cell and its birth index, so any time is evaluated
/// directly — the same seed and time give the same particles however many frames were drawn
/// before, and no state lives between frames.
///
/// A cell's time is the layer's local time through the cell's timing (`EmitterCell.beginTime`,
/// `speed`, `timeOffset`); it emits while that time u is in 0…`duration` (0: without end).
/// With R = cell.birthRate × layer.birthRate, particle k (k = 0, 1, …) is born at cell time
/// k / R. Its random numbers come from SplitMix64 seeded by (seed, cell, k), 13 draws in a
/// fixed order, each uniform in [−1, 1): lifetime, velocity, longitude, latitude, spin, scale,
/// red, green, blue, alpha and three for its place on the emitter shape. Then, for a particle
/// of age a (< its lifetime L = max(0, lifetime + lifetimeRange·u) × layer.lifetime):
///
/// - speed v = (velocity + velocityRange·u) × layer.velocity, along a direction uniform in
///   the cone of half-angle emissionRange / 2 about (cos lat cos lon, cos lat sin lon, sin lat)
///   (longitude in the xy plane from +x towards +y, latitude out of it; the longitude and
///   latitude draws pick the point of the cone: `emissionDirection`); drawn, the motion is
///   projected onto the layer's plane unless the layer has `preservesDepth` (z is kept for
///   `backToFront` and for `preservesDepth`, `EmitterDrawing`);
/// - position = start + v·a + ½·(x, y, zAcceleration)·a²;
/// - angle = (spin + spinRange·u) × layer.spin × a; scale = (scale + scaleRange·u) ×
///   layer.scale + scaleSpeed·a;
/// - each color channel = clamp(clamp(color + range·u) + speed·a), clamp to 0…1.
///
/// A nested cell is emitted by each particle of its parent from where that particle is, in
/// the parent particle's age as its parent time, while the parent lives; its particles then
/// live their own lifetimes.
public enum EmitterSimulation {
    /// At most this many particles of one emitter are drawn in a frame (the newest are kept).
    public static let maxParticles = 10_000
    /// At most this many particles (live or not) of one emitter are evaluated in a frame: a
    /// bound on the render thread's work for any birth rates and lifetimes.
    public static let maxEvaluated = 40_000
    /// At most this many particles of one client are drawn in a frame (all its emitters).
    public static let maxParticlesPerClient = 40_000

    /// The cells and their nested cells, depth first (`Particle.cell` indexes it).
    public static func flatten(_ cells: [EmitterCell]) -> [EmitterCell] {
        var out: [EmitterCell] = []
        func walk(_ list: [EmitterCell]) { for c in list { out.append(c); walk(c.emitterCells) } }
        walk(cells)
        return out
    }

    /// The emitter's layer-wide values (the multipliers and the shape).
    public struct Emitter: Sendable {
        public var position = Point.zero, zPosition = 0.0, size = Size.zero, depth = 0.0
        public var shape = EmitterShape.point, mode = EmitterMode.volume
        public var birthRate = 1.0, lifetime = 1.0, velocity = 1.0, scale = 1.0, spin = 1.0
        public var seed: UInt64 = 0
        /// The multipliers over the layer's local time when they vary (animated, or changed
        /// since the emitter began): births follow the birth rate's integral, and each particle
        /// takes the other multipliers at its birth. Nil: the values above at every time.
        public var timeline: Timeline?
        public init() {}
        public init(_ p: LayerProperties) {
            position = p.emitterPosition; zPosition = p.emitterZPosition; size = p.emitterSize; depth = p.emitterDepth
            shape = p.emitterShape; mode = p.emitterMode
            birthRate = p.birthRate; lifetime = p.lifetime; velocity = p.velocity; scale = p.scale; spin = p.spin
            seed = p.seed.isFinite && p.seed >= 0 ? UInt64(min(p.seed, 1.8e19)) : 0
        }
        /// The multipliers at every time when `timeline` is nil.
        public var multipliers: Multipliers {
            Multipliers(birthRate: birthRate, lifetime: lifetime, velocity: velocity, scale: scale, spin: spin)
        }
    }

    /// What `particles` found besides the particles.
    public struct Outcome: Sendable {
        /// Particles evaluated (born, live or not).
        public var evaluated = 0
        /// Whether the emitter may change after this time: a particle lives or a cell may
        /// still emit (so the compositor keeps drawing frames).
        public var changes = false
        /// Whether a limit left particles out.
        public var capped = false
    }

    /// The SplitMix64 finalizer.
    @inlinable static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    public static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The key of particle `k` of the cell at flattened index `cell` under `parent` (the
    /// emitter's key, or the parent particle's).
    @inlinable public static func key(parent: UInt64, cell: Int, index k: Int) -> UInt64 {
        mix(mix(parent &+ golden &* UInt64(cell + 1)) &+ UInt64(k))
    }

    /// The emitter's key: `mix(seed)`.
    @inlinable public static func rootKey(seed: UInt64) -> UInt64 { mix(seed &+ golden) }

    /// SplitMix64 from a particle's key: `next()` is uniform in [−1, 1).
    public struct Draws {
        var state: UInt64
        public init(key: UInt64) { state = key }
        public mutating func next() -> Double {
            state &+= EmitterSimulation.golden
            return Double(EmitterSimulation.mix(state) >> 11) * 0x1p-52 - 1
        }
    }

    /// Layer seconds per unit of a cell's time (1 / its speed; the cell's time runs
    /// backwards or stops for speed ≤ 0: no particles).
    struct Context {
        var key: UInt64
        /// The time the cells are emitted in (the layer's local time, or a parent particle's
        /// age), and the end of emission in it (a parent particle's lifetime; ∞ at the top).
        var time: Double
        var stop: Double
        /// The layer time at which this context's time was 0, and layer seconds per unit.
        var layerOrigin: Double
        var layerScale: Double
        /// A parent particle's motion (nil at the top: the emitter shape).
        var parent: (p0: (Double, Double, Double), v: (Double, Double, Double), a: (Double, Double, Double))?
    }

    /// The particles of the emitter at local time `time` (the layer's local time), appended
    /// to `out` in the order `renderMode` draws them; at most `limit` of them
    /// (`maxParticles` at most). No top-level cell emits after local time `birthsUntil` (Reduce
    /// Motion: the particles born before live on; nested cells' particles still follow theirs).
    @discardableResult
    public static func particles(_ emitter: Emitter, cells: [EmitterCell], renderMode: EmitterRenderMode = .unordered,
                                 at time: Double, limit: Int = maxParticles, birthsUntil: Double = .infinity,
                                 into out: inout [Particle]) -> Outcome {
        var outcome = Outcome()
        let start = out.count
        let limit = max(0, min(limit, maxParticles))
        guard !cells.isEmpty, time.isFinite else { return outcome }
        var index = 0
        let context = Context(key: rootKey(seed: emitter.seed), time: time, stop: birthsUntil.isNaN ? .infinity : birthsUntil,
                              layerOrigin: 0,
                              layerScale: 1, parent: nil)
        emit(cells, emitter, context, flatIndex: &index, limit: start + limit, into: &out, &outcome)
        switch renderMode {
        case .unordered, .additive, .oldestFirst:
            out[start...].sort { $0.birth < $1.birth || ($0.birth == $1.birth && $0.cell < $1.cell) }
        case .oldestLast:
            out[start...].sort { $0.birth > $1.birth || ($0.birth == $1.birth && $0.cell < $1.cell) }
        case .backToFront:
            out[start...].sort { $0.z < $1.z || ($0.z == $1.z && $0.birth < $1.birth) }
        }
        return outcome
    }

    /// How long after its last birth a cell's particles (and theirs) can live, in the
    /// cell's time.
    static func horizon(_ c: EmitterCell, _ e: Emitter) -> Double {
        let own = max(0, (c.lifetime + abs(c.lifetimeRange)) * (e.timeline?.maxLifetime ?? e.lifetime))
        let sub = c.emitterCells.map { s in s.speed > 0 ? horizon(s, e) / s.speed : 0 }.max() ?? 0
        return own + sub
    }

    /// A cell under a varying birth rate (`Emitter.timeline`): with L(x) = the layer time of
    /// cell time x (L(x) = layerOrigin + layerScale·x) and I(t) = ∫₀ᵗ B the integral of the
    /// layer's birth rate B, the births by cell time x number
    /// N(x) = cell.birthRate / layerScale × (I(L(x)) − I(L(0))) (so cell.birthRate × B × x
    /// when B is constant, as `emit`'s k / R), and particle k is born at the first cell time
    /// where N reaches k; it takes the other multipliers at its birth.
    private static func emitVarying(_ c: EmitterCell, cellIndex: Int, _ e: Emitter, _ timeline: Timeline,
                                    _ ctx: Context, limit: Int, into out: inout [Particle], _ outcome: inout Outcome) {
        guard c.enabled, c.birthRate > 0, c.birthRate.isFinite, c.speed > 0,
              let (u, uEnd, horizon) = cellTimes(c, e, ctx, &outcome) else { return }
        let layerScale = ctx.layerScale / c.speed
        let layerOrigin = ctx.layerOrigin + ctx.layerScale * (c.beginTime - c.timeOffset / c.speed)
        let perUnit = c.birthRate / layerScale
        let i0 = timeline.integral(to: layerOrigin)
        func births(_ x: Double) -> Double { perUnit * (timeline.integral(to: layerOrigin + layerScale * x) - i0) }
        let nEnd = births(uEnd), nFirst = births(u - horizon)
        guard nEnd.isFinite, nFirst.isFinite else { return }
        let hi = Int(min(nEnd.rounded(.down), 9e15))
        let lo = max(0, Int(min(max(nFirst.rounded(.up), 0), 9e15)) - 1)
        guard hi >= lo else { return }
        var k = hi
        while k >= lo {
            if outcome.evaluated >= maxEvaluated || out.count >= limit { outcome.capped = true; return }
            outcome.evaluated += 1
            let t = max(layerOrigin, timeline.time(reaching: i0 + Double(k) / perUnit))
            let born = min((t - layerOrigin) / layerScale, uEnd)
            particle(c, cellIndex: cellIndex, index: k, born: born, now: u, timeline.multipliers(at: t), e, ctx,
                     layerOrigin: layerOrigin, layerScale: layerScale, limit: limit, into: &out, &outcome)
            if outcome.capped { return }
            k -= 1
        }
    }

    /// A cell's time now (`u`), the last cell time of a birth so far (`uEnd`) and how long its
    /// particles may live (`horizon`); nil before its first birth. A top-level cell marks the
    /// emitter as changing while it may emit or a particle of it may live.
    private static func cellTimes(_ c: EmitterCell, _ e: Emitter, _ ctx: Context, _ outcome: inout Outcome)
        -> (u: Double, uEnd: Double, horizon: Double)? {
        let u = (ctx.time - c.beginTime) * c.speed + c.timeOffset
        let uStop = (ctx.stop - c.beginTime) * c.speed + c.timeOffset
        var uEnd = min(u, uStop)
        if c.duration > 0 { uEnd = min(uEnd, c.duration) }
        let horizon = horizon(c, e)
        if ctx.parent == nil {
            let lastBirth = c.duration > 0 ? c.duration : .infinity
            if u < lastBirth + horizon { outcome.changes = true }
        }
        guard uEnd >= 0 else { return nil }
        return (u, uEnd, horizon)
    }

    private static func emit(_ cells: [EmitterCell], _ e: Emitter, _ ctx: Context, flatIndex: inout Int, limit: Int,
                             into out: inout [Particle], _ outcome: inout Outcome) {
        for c in cells {
            let cellIndex = flatIndex
            flatIndex += 1
            defer { flatIndex += flatten(c.emitterCells).count }
            if let timeline = e.timeline {
                emitVarying(c, cellIndex: cellIndex, e, timeline, ctx, limit: limit, into: &out, &outcome)
                if outcome.capped { return }
                continue
            }
            let rate = c.birthRate * e.birthRate
            guard c.enabled, rate > 0, c.speed > 0, rate.isFinite else { continue }
            guard let (u, uEnd, horizon) = cellTimes(c, e, ctx, &outcome) else { continue }
            let hi = Int(min((uEnd * rate).rounded(.down), 9e15))
            let loTime = u - horizon
            // (One more than the bound: rounding must not drop a particle about to die.)
            let lo = max(0, Int(min(max((loTime * rate).rounded(.up), 0), 9e15)) - 1)
            guard hi >= lo else { continue }
            let layerScale = ctx.layerScale / c.speed
            // Layer time of cell time 0.
            let layerOrigin = ctx.layerOrigin + ctx.layerScale * (c.beginTime - c.timeOffset / c.speed)
            var k = hi
            // Newest first, so that a limit keeps the newest.
            while k >= lo {
                if outcome.evaluated >= maxEvaluated || out.count >= limit { outcome.capped = true; return }
                outcome.evaluated += 1
                particle(c, cellIndex: cellIndex, index: k, born: Double(k) / rate, now: u, e.multipliers, e, ctx,
                         layerOrigin: layerOrigin, layerScale: layerScale, limit: limit, into: &out, &outcome)
                if outcome.capped { return }
                k -= 1
            }
        }
    }

    /// Particle `k` of cell `c`, born at cell time `born` (cell time now: `now`) with the
    /// layer's multipliers `m`: appended while it lives, and its nested cells' particles.
    private static func particle(_ c: EmitterCell, cellIndex: Int, index k: Int, born: Double, now u: Double,
                                 _ m: Multipliers, _ e: Emitter, _ ctx: Context, layerOrigin: Double, layerScale: Double,
                                 limit: Int, into out: inout [Particle], _ outcome: inout Outcome) {
                let age = u - born
                var d = Draws(key: key(parent: ctx.key, cell: cellIndex, index: k))
                let life = max(0, (c.lifetime + c.lifetimeRange * d.next()) * m.lifetime)
                let speed = (c.velocity + c.velocityRange * d.next()) * m.velocity
                let direction = emissionDirection(c, d.next(), d.next())
                let spin = (c.spin + c.spinRange * d.next()) * m.spin
                let scale0 = (c.scale + c.scaleRange * d.next()) * m.scale
                func clamp(_ v: Double) -> Double { min(max(v, 0), 1) }
                let r0 = clamp(c.color.red + c.redRange * d.next()), g0 = clamp(c.color.green + c.greenRange * d.next())
                let b0 = clamp(c.color.blue + c.blueRange * d.next()), a0 = clamp(c.color.alpha + c.alphaRange * d.next())
                let s1 = (d.next() + 1) / 2, s2 = (d.next() + 1) / 2, s3 = (d.next() + 1) / 2
                let p0: (Double, Double, Double)
                if let parent = ctx.parent {
                    // The parent particle's position when it emitted this one (its age `x`).
                    let x = (born - c.timeOffset) / c.speed + c.beginTime
                    p0 = (parent.p0.0 + parent.v.0 * x + 0.5 * parent.a.0 * x * x,
                          parent.p0.1 + parent.v.1 * x + 0.5 * parent.a.1 * x * x,
                          parent.p0.2 + parent.v.2 * x + 0.5 * parent.a.2 * x * x)
                } else {
                    p0 = shapePoint(e, s1, s2, s3)
                }
                let v = (speed * direction.0, speed * direction.1, speed * direction.2)
                let acc = (c.xAcceleration, c.yAcceleration, c.zAcceleration)
                if !c.emitterCells.isEmpty {
                    var sub = Context(key: key(parent: ctx.key, cell: cellIndex, index: k), time: age, stop: life,
                                      layerOrigin: layerOrigin + layerScale * born, layerScale: layerScale,
                                      parent: (p0, v, acc))
                    sub.key = mix(sub.key ^ 0x5EED)
                    var nested = cellIndex + 1
                    emit(c.emitterCells, e, sub, flatIndex: &nested, limit: limit, into: &out, &outcome)
                }
                if age < life {
                    guard out.count < limit else { outcome.capped = true; return }
                    let x = p0.0 + v.0 * age + 0.5 * acc.0 * age * age
                    let y = p0.1 + v.1 * age + 0.5 * acc.1 * age * age
                    let z = p0.2 + v.2 * age + 0.5 * acc.2 * age * age
                    let color = Color(clamp(r0 + c.redSpeed * age), clamp(g0 + c.greenSpeed * age),
                                      clamp(b0 + c.blueSpeed * age), clamp(a0 + c.alphaSpeed * age))
                    out.append(Particle(cell: cellIndex, x: x, y: y, z: z, startX: p0.0, startY: p0.1, startZ: p0.2,
                                        vx: v.0, vy: v.1, vz: v.2, speed: abs(speed), angle: spin * age,
                                        scale: scale0 + c.scaleSpeed * age, color: color, age: age, lifetime: life,
                                        birth: layerOrigin + layerScale * born))
                    if ctx.parent == nil { outcome.changes = true }
                }
    }

    /// The unit direction of a particle of cell `c` from two uniform numbers in [−1, 1):
    /// uniform over the cone (the spherical cap) of half-angle h = min(|emissionRange| / 2, π)
    /// about the axis a = (cos lat cos lon, cos lat sin lon, sin lat) of `emissionLongitude`
    /// (in the xy plane, from +x towards +y) and `emissionLatitude` (out of it):
    /// cos θ = 1 − (1 − cos h)·(u₁ + 1)/2 (uniform in cos h … 1: equal area), φ = π·u₂, and
    /// d = cos θ·a + sin θ·(cos φ·e₁ + sin φ·e₂) with e₁ = (−sin lon, cos lon, 0) and
    /// e₂ = (−sin lat cos lon, −sin lat sin lon, cos lat). Range 0 gives a exactly.
    public static func emissionDirection(_ c: EmitterCell, _ u1: Double, _ u2: Double) -> (Double, Double, Double) {
        let lon = c.emissionLongitude, lat = c.emissionLatitude
        let (cosLon, sinLon, cosLat, sinLat) = (cos(lon), sin(lon), cos(lat), sin(lat))
        let axis = (cosLat * cosLon, cosLat * sinLon, sinLat)
        let h = min(abs(c.emissionRange) / 2, .pi)
        guard h > 0 else { return axis }
        let cosT = 1 - (1 - cos(h)) * (u1 + 1) / 2
        let sinT = max(0, 1 - cosT * cosT).squareRoot()
        let phi = Double.pi * u2
        let a = sinT * cos(phi), b = sinT * sin(phi)
        return (cosT * axis.0 - a * sinLon - b * sinLat * cosLon,
                cosT * axis.1 + a * cosLon - b * sinLat * sinLon,
                cosT * axis.2 + b * cosLat)
    }

    /// A point of the emitter shape for `emitterMode`, from three uniform numbers in [0, 1).
    public static func shapePoint(_ e: Emitter, _ s1: Double, _ s2: Double, _ s3: Double) -> (Double, Double, Double) {
        let (cx, cy, cz) = (e.position.x, e.position.y, e.zPosition)
        let (w, h, dz) = (e.size.width, e.size.height, e.depth)
        func corner(_ i: Int, _ n: Int) -> Double { (i >> n) & 1 == 0 ? -0.5 : 0.5 }
        switch e.shape {
        case .point:
            return (cx, cy, cz)
        case .line:
            if e.mode == .points { return (cx + (s1 < 0.5 ? -w / 2 : w / 2), cy, cz) }
            return (cx + (s1 - 0.5) * w, cy, cz)
        case .rectangle:
            switch e.mode {
            case .points:
                let i = min(Int(s1 * 4), 3)
                return (cx + corner(i, 0) * w, cy + corner(i, 1) * h, cz)
            case .outline:
                var t = s1 * 2 * (w + h)
                if t < w { return (cx - w / 2 + t, cy - h / 2, cz) }
                t -= w
                if t < h { return (cx + w / 2, cy - h / 2 + t, cz) }
                t -= h
                if t < w { return (cx + w / 2 - t, cy + h / 2, cz) }
                t -= w
                return (cx - w / 2, cy + h / 2 - min(t, h), cz)
            case .surface, .volume:
                return (cx + (s1 - 0.5) * w, cy + (s2 - 0.5) * h, cz)
            }
        case .circle:
            let r = w / 2, angle = 2 * Double.pi * s1
            switch e.mode {
            case .points: return (cx, cy, cz)
            case .outline: return (cx + r * cos(angle), cy + r * sin(angle), cz)
            case .surface, .volume:
                let rr = r * s2.squareRoot()
                return (cx + rr * cos(angle), cy + rr * sin(angle), cz)
            }
        case .cuboid:
            switch e.mode {
            case .points:
                let i = min(Int(s1 * 8), 7)
                return (cx + corner(i, 0) * w, cy + corner(i, 1) * h, cz + corner(i, 2) * dz)
            case .outline:
                // The 12 edges, chosen by length: 4 along each axis.
                let total = 4 * (w + h + dz)
                guard total > 0 else { return (cx, cy, cz) }
                var t = s1 * total
                let axes = [w, h, dz]
                var axis = 0
                while axis < 2, t >= 4 * axes[axis] { t -= 4 * axes[axis]; axis += 1 }
                let edge = min(Int(t / max(axes[axis], .leastNormalMagnitude)), 3)
                let along = s2 - 0.5
                let a = edge & 1 == 0 ? -0.5 : 0.5, b = edge & 2 == 0 ? -0.5 : 0.5
                switch axis {
                case 0: return (cx + along * w, cy + a * h, cz + b * dz)
                case 1: return (cx + a * w, cy + along * h, cz + b * dz)
                default: return (cx + a * w, cy + b * h, cz + along * dz)
                }
            case .surface:
                // The 6 faces, chosen by area.
                let areas = [w * h, w * dz, h * dz]
                let total = 2 * (areas[0] + areas[1] + areas[2])
                guard total > 0 else { return (cx, cy, cz) }
                var t = s1 * total
                var face = 0
                while face < 2, t >= 2 * areas[face] { t -= 2 * areas[face]; face += 1 }
                let side = t < areas[face] ? -0.5 : 0.5
                let (p, q) = (s2 - 0.5, s3 - 0.5)
                switch face {
                case 0: return (cx + p * w, cy + q * h, cz + side * dz)
                case 1: return (cx + p * w, cy + side * h, cz + q * dz)
                default: return (cx + side * w, cy + p * h, cz + q * dz)
                }
            case .volume:
                return (cx + (s1 - 0.5) * w, cy + (s2 - 0.5) * h, cz + (s3 - 0.5) * dz)
            }
        case .sphere:
            let r = w / 2
            guard e.mode != .points else { return (cx, cy, cz) }
            let zz = 1 - 2 * s1, phi = 2 * Double.pi * s2, ring = (max(0, 1 - zz * zz)).squareRoot()
            let rr = e.mode == .volume ? r * cbrt(s3) : r
            return (cx + rr * ring * cos(phi), cy + rr * ring * sin(phi), cz + rr * zz)
        }
    }
}

extension EmitterSimulation {
    /// The emitter layer's multipliers of its cells' values.
    public struct Multipliers: Equatable, Sendable {
        public var birthRate: Double, lifetime: Double, velocity: Double, scale: Double, spin: Double
        public init(birthRate: Double = 1, lifetime: Double = 1, velocity: Double = 1, scale: Double = 1, spin: Double = 1) {
            self.birthRate = birthRate; self.lifetime = lifetime; self.velocity = velocity; self.scale = scale; self.spin = spin
        }
        public init(_ p: LayerProperties) {
            self.init(birthRate: p.birthRate, lifetime: p.lifetime, velocity: p.velocity, scale: p.scale, spin: p.spin)
        }
        func lerp(_ o: Multipliers, _ f: Double) -> Multipliers {
            func l(_ a: Double, _ b: Double) -> Double { a + (b - a) * f }
            return Multipliers(birthRate: l(birthRate, o.birthRate), lifetime: l(lifetime, o.lifetime),
                               velocity: l(velocity, o.velocity), scale: l(scale, o.scale), spin: l(spin, o.spin))
        }
    }

    /// The multipliers as a function of the layer's local time: samples at `times`
    /// (nondecreasing; two samples at one time are a jump), linear between them, constant
    /// before the first and after the last. The birth rate is taken as max(0, value), and
    /// `integral(to:)` is I(t) = ∫₀ᵗ B exactly for that piecewise-linear B (trapezoids; a
    /// quadratic within a sample's interval), which `time(reaching:)` inverts.
    public struct Timeline: Equatable, Sendable {
        public let times: [Double]
        public let values: [Multipliers]
        /// I(times[i]).
        let cumulative: [Double]
        /// The largest lifetime multiplier (≥ 0): how long after a birth a particle can live.
        public let maxLifetime: Double

        /// Nil when there are no samples, the counts differ, a time is not finite or they
        /// go backwards.
        public init?(times: [Double], values: [Multipliers]) {
            guard !times.isEmpty, times.count == values.count, times.allSatisfy(\.isFinite),
                  zip(times, times.dropFirst()).allSatisfy({ $0 <= $1 }) else { return nil }
            var v = values
            for i in v.indices { v[i].birthRate = v[i].birthRate.isFinite ? max(0, v[i].birthRate) : 0 }
            self.times = times
            self.values = v
            var c = [v[0].birthRate * times[0]]
            c.reserveCapacity(times.count)
            for i in 1..<max(1, times.count) {
                c.append(c[i - 1] + (times[i] - times[i - 1]) * (v[i - 1].birthRate + v[i].birthRate) / 2)
            }
            cumulative = c
            maxLifetime = max(0, v.map(\.lifetime).filter(\.isFinite).max() ?? 0)
        }

        /// The last sample at or before `t` (nil: `t` is before the first).
        func segment(_ t: Double) -> Int? {
            guard t >= times[0] else { return nil }
            var lo = 0, hi = times.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if times[mid] <= t { lo = mid } else { hi = mid - 1 }
            }
            return lo
        }

        /// The multipliers at layer time `t`.
        public func multipliers(at t: Double) -> Multipliers {
            guard let i = segment(t) else { return values[0] }
            guard i + 1 < times.count else { return values[i] }
            return values[i].lerp(values[i + 1], (t - times[i]) / (times[i + 1] - times[i]))
        }

        /// I(t) = ∫₀ᵗ B(s) ds.
        public func integral(to t: Double) -> Double {
            guard let i = segment(t) else { return values[0].birthRate * t }
            let x = t - times[i], a = values[i].birthRate
            guard i + 1 < times.count else { return cumulative[i] + a * x }
            let w = times[i + 1] - times[i], b = values[i + 1].birthRate
            return cumulative[i] + a * x + (b - a) * x * x / (2 * w)
        }

        /// The first time at which I reaches `n` (−∞ when I is already there before every
        /// sample at a zero rate; +∞ when it never does).
        public func time(reaching n: Double) -> Double {
            if n <= cumulative[0] {
                let b = values[0].birthRate
                return b > 0 ? n / b : -.infinity
            }
            let last = times.count - 1
            if n > cumulative[last] {
                let b = values[last].birthRate
                return b > 0 ? times[last] + (n - cumulative[last]) / b : .infinity
            }
            // The first sample with I ≥ n (i ≥ 1); n lies in (times[i − 1], times[i]].
            var lo = 1, hi = last
            while lo < hi {
                let mid = (lo + hi) / 2
                if cumulative[mid] >= n { hi = mid } else { lo = mid + 1 }
            }
            let i = lo - 1
            let w = times[i + 1] - times[i], a = values[i].birthRate, b = values[i + 1].birthRate
            let r = n - cumulative[i]
            guard w > 0 else { return times[i + 1] }
            // a·x + q·x² = r with q = (b − a) / 2w: x = 2r / (a + √(a² + 4qr)).
            let q = (b - a) / (2 * w)
            let root = max(0, a * a + 4 * q * r).squareRoot()
            let x = a + root > 0 ? 2 * r / (a + root) : w
            return times[i] + min(max(x, 0), w)
        }
    }
}
