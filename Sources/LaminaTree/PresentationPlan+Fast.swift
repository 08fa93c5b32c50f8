import LaminaAnimation
import LaminaGeometry
import LaminaModel

// The presentation plan's fast path: the bindings that are common on screen — one plain
// basic animation (`PlainBasicCurve`) that is the only writer, on its layer, of the stored
// property it writes — kept as plain records in contiguous arrays, one run per channel, and
// evaluated in a tight loop: time → fraction (`PreparedTiming.fractions`, two bindings at a
// time, the scalar `fraction`'s bits) → eased progress
// (`Easing.progress(in:at:_:)`, a table read for Béziers) → from + delta · progress → one
// write. Being the only writer, such a binding needs no reset pass: a frame writes either
// its value or, when it has no effect then, the model value. No reference counting, no
// allocation, no enum switch per binding that varies inside a run.
//
// The answers are the general path's bit for bit: the same functions compute each step
// (`PresentationFastRunTests` and `PresentationPlanFastPathTests` compare them with the
// reference evaluation; the former also with values worked out by hand).

extension PresentationPlan {
    /// One fast binding: its begin, time offset and timing shape, its ends as lanes (`V` is
    /// `Double` for one lane, `Lanes4` for points, sizes, rects and colors). Plain data,
    /// 56 or 104 bytes: a frame reads every record once.
    struct Fast<V: FastLanes>: Sendable {
        /// The animation's begin in compositor time (a frame's local time is t − begin).
        var begin: Double
        /// The timing's `timeOffset` (the shape has 0).
        var offset: Double
        var from: V
        /// to − from (what the general path computes each frame; the same bits).
        var delta: V
        /// The layer's storage index.
        var node: Int32
        /// Into `easings`; -1 for linear.
        var easing: Int32
        /// Into `prepared` (a transform component's run), else -1.
        var prepared: Int32
        /// Into `fastSources` (the binding, for writing the model value back).
        var source: Int32
        /// Into `shapes`.
        var shape: Int32
    }

    /// What fast bindings share: the timing without its offset, and `cutoff` — `endTime`
    /// when the animation is removed on completion (from then on it has no effect), else
    /// +infinity. Implicit animations share one; repeating ones one per duration and mode.
    struct Shape: Hashable, Sendable {
        var timing: PreparedTiming
        var cutoff: Double

        /// `shape.pointee.timing` in place (`PreparedTiming.fractions` reads two timings
        /// through pointers: passed by value, they were copied to the stack per pair).
        @inline(__always)
        static func timing(_ shape: UnsafePointer<Shape>) -> UnsafePointer<PreparedTiming> {
            (UnsafeRawPointer(shape) + MemoryLayout<Shape>.offset(of: \.timing)!).assumingMemoryBound(to: PreparedTiming.self)
        }
    }

    /// Consecutive fast bindings of one channel, in storage order of their layers.
    struct Run: Sendable {
        enum Lanes: Sendable { case one, four, transform(TransformComponent), rotation2D }
        var channel: PresentationChannel
        var lanes: Lanes
        var start: Int
        var end: Int
    }

    /// Whether binding `b` of a layer takes the fast path: a plain basic binding whose
    /// stored property no other binding of the layer (`slots`, this one's at `i`) touches,
    /// written whole — a whole property (`position`, not `position.x`), or a transform
    /// component recomposed from the prepared model transform.
    static func isFast(_ b: Binding, at i: Int, among slots: [PropertySlot]) -> Bool {
        guard b.plain >= 0, let stored = slots[i].implicitKeyPath else { return false }
        for (j, other) in slots.enumerated() where j != i && other.implicitKeyPath == stored { return false }
        if case .transformComponent = b.channel { return b.prepared >= 0 }
        return PropertySlot(keyPath: stored) == slots[i]
    }

    /// Adds a fast binding (`isFast`) of the layer at `index` to the list of its slot
    /// (`pending`, slots in the order first seen in `order`).
    mutating func addFast(_ b: Binding, slot: PropertySlot, index: Int, pending: inout [PropertySlot: [Int]],
                          order: inout [PropertySlot], shapeIndex: inout [Shape: Int32]) {
        let c = plain[b.plain]
        let source = Int32(fastSources.count)
        fastSources.append(b)
        let shape = Shape(timing: c.timing.withoutTimeOffset, cutoff: b.removedOnCompletion ? b.endTime : .infinity)
        let s: Int32
        if let known = shapeIndex[shape] { s = known } else {
            s = Int32(shapes.count); shapeIndex[shape] = s; shapes.append(shape)
        }
        let offset = c.timing.timeOffset
        if pending[slot] == nil { order.append(slot) }
        if b.channel.plainKind == .double {
            pending[slot, default: []].append(fastScalars.count)
            fastScalars.append(Fast(begin: b.beginTime, offset: offset, from: c.from.x, delta: c.to.x - c.from.x,
                                    node: Int32(index), easing: Int32(c.easing), prepared: Int32(b.prepared),
                                    source: source, shape: s))
        } else {
            pending[slot, default: []].append(fastVectors.count)
            fastVectors.append(Fast(begin: b.beginTime, offset: offset, from: Lanes4(c.from), delta: Lanes4(c.to - c.from),
                                    node: Int32(index), easing: Int32(c.easing), prepared: -1, source: source, shape: s))
        }
    }

    /// Turns the per-slot lists of `addFast` into runs, one per slot in the order first
    /// seen, reordering the records so that each run is contiguous (and in storage order).
    mutating func finishFast(_ pending: [PropertySlot: [Int]], order: [PropertySlot]) {
        let scalars = fastScalars, vectors = fastVectors
        var unitRotation: Int32? = nil   // the entry in `rotations` of the unit one, once made
        fastScalars.removeAll(keepingCapacity: true)
        fastVectors.removeAll(keepingCapacity: true)
        for slot in order {
            let channel = PresentationChannel(slot)
            let records = pending[slot] ?? []
            if case .transformComponent(let tc) = channel {
                // Two runs: the rotations that `Rotation2D` writes directly, and the rest.
                var general: [Int] = []
                let start = fastScalars.count
                for r in records {
                    var f = scalars[r]
                    if let rotation = Rotation2D(tc, prepared[Int(f.prepared)]) {
                        if rotation.isUnit, let unit = unitRotation {
                            // The same constants, bit for bit: one record serves them all (a
                            // frame reads 48 bytes per layer less).
                            f.prepared = unit
                        } else {
                            f.prepared = Int32(rotations.count)
                            if rotation.isUnit { unitRotation = f.prepared }
                            rotations.append(rotation)
                        }
                        fastScalars.append(f)
                    } else {
                        general.append(r)
                    }
                }
                if fastScalars.count > start {
                    fastRuns.append(Run(channel: channel, lanes: .rotation2D, start: start, end: fastScalars.count))
                }
                if !general.isEmpty {
                    let start = fastScalars.count
                    for r in general { fastScalars.append(scalars[r]) }
                    fastRuns.append(Run(channel: channel, lanes: .transform(tc), start: start, end: fastScalars.count))
                }
            } else if channel.plainKind == .double {
                let start = fastScalars.count
                for r in records { fastScalars.append(scalars[r]) }
                fastRuns.append(Run(channel: channel, lanes: .one, start: start, end: fastScalars.count))
            } else {
                let start = fastVectors.count
                for r in records { fastVectors.append(vectors[r]) }
                fastRuns.append(Run(channel: channel, lanes: .four, start: start, end: fastVectors.count))
            }
        }
    }
}

/// A z rotation (`rotation.z` or `rotation`) of a model transform whose decomposition is a
/// 2D one — x and y angles 0, no skew, no perspective — as the constants its matrix needs:
/// the scales and the translation. `transform(angle:)` is `TransformComponent.setting` for
/// it written out: with those parts 0, `recomposed`'s sums reduce to the products below
/// (the same values; at most a zero's sign differs), so no 4×4 is recomposed.
struct Rotation2D: Sendable {
    var scale: SIMD3<Double>
    var translation: SIMD3<Double>

    init?(_ c: TransformComponent, _ p: TransformComponent.Prepared) {
        guard c == .rotationZ || c == .rotation else { return nil }
        let d = p.decomposition
        guard p.euler.x == 0, p.euler.y == 0, d.skew == .zero, d.perspective == Vector4(0, 0, 0, 1),
              d.translation.x.isFinite, d.translation.y.isFinite, d.translation.z.isFinite else { return nil }
        scale = SIMD3(d.scale.x, d.scale.y, d.scale.z)
        translation = SIMD3(d.translation.x, d.translation.y, d.translation.z)
    }

    /// Whether the scales are 1 and the translation +0, bit for bit (most layers: their model
    /// transform is the identity).
    var isUnit: Bool {
        scale.x.bitPattern == (1.0).bitPattern && scale.y.bitPattern == (1.0).bitPattern
            && scale.z.bitPattern == (1.0).bitPattern && translation.x.bitPattern == 0
            && translation.y.bitPattern == 0 && translation.z.bitPattern == 0
    }

    @inline(__always)
    func transform(angle: Double) -> Transform3D {
        let (s, c) = SinCos.sinCos(angle)
        return Transform3D(m11: c * scale.x, m12: s * scale.x, m13: 0, m14: 0,
                           m21: -s * scale.y, m22: c * scale.y, m23: 0, m24: 0,
                           m31: 0, m32: 0, m33: scale.z, m34: 0,
                           m41: translation.x, m42: translation.y, m43: translation.z, m44: 1)
    }
}

/// A fast binding's value: one lane (`Double`) or four (`SIMD4<Double>`).
protocol FastLanes: Sendable {
    /// from + delta · p, lane by lane (`PlainBasicCurve.value`'s arithmetic).
    static func lerp(_ from: Self, _ delta: Self, _ p: Double) -> Self
    var lanes: SIMD4<Double> { get }
}

extension Double: FastLanes {
    @inline(__always) static func lerp(_ from: Double, _ delta: Double, _ p: Double) -> Double { from + delta * p }
    @inline(__always) var lanes: SIMD4<Double> { SIMD4(self, 0, 0, 0) }
}

/// Four lanes without `SIMD4`'s 32-byte alignment (which would pad a record to 128 bytes).
struct Lanes4: FastLanes {
    var x, y, z, w: Double
    init(_ v: SIMD4<Double>) { x = v.x; y = v.y; z = v.z; w = v.w }
    init(x: Double, y: Double, z: Double, w: Double) { self.x = x; self.y = y; self.z = z; self.w = w }
    /// Lane by lane, as `SIMD4`'s operators compute it.
    @inline(__always) static func lerp(_ from: Lanes4, _ delta: Lanes4, _ p: Double) -> Lanes4 {
        Lanes4(x: from.x + delta.x * p, y: from.y + delta.y * p, z: from.z + delta.z * p, w: from.w + delta.w * p)
    }
    @inline(__always) var lanes: SIMD4<Double> { SIMD4(x, y, z, w) }
}

extension PresentationPlan {
    /// How many records ahead `evaluateRun` prefetches a record's transform box (its node's
    /// line holding the box's address was prefetched by the chunk's fractions pass): each
    /// frame follows the rasterizer's, so nodes and boxes come from memory (~100 ns), and a
    /// record takes a few nanoseconds.
    static let prefetchDistance = 16
    /// Where a node holds the values the common runs write (prefetched for them).
    static let positionOffset = MemoryLayout<LayerNode>.offset(of: \LayerNode.properties)!
        + MemoryLayout<LayerProperties>.offset(of: \LayerProperties.position)!
    static let opacityOffset = MemoryLayout<LayerNode>.offset(of: \LayerNode.properties)!
        + MemoryLayout<LayerProperties>.offset(of: \LayerProperties.opacity)!
    /// Where a node holds its transform box's reference (`LayerProperties.TransformStorage`,
    /// one stored reference, nil for the identity).
    static let transformBoxOffset = MemoryLayout<LayerNode>.offset(of: \LayerNode.properties)!
        + MemoryLayout<LayerProperties>.offset(of: \LayerProperties.transformStorage)!
        + MemoryLayout<LayerProperties.TransformStorage>.offset(of: \LayerProperties.TransformStorage.box)!
}

extension LayerTree {
    /// Evaluates the plan's fast runs at compositor time `t` into the presentation nodes.
    @inline(__always)
    func evaluateFast(_ plan: PresentationPlan, _ nodes: UnsafeMutableBufferPointer<LayerNode>,
                      _ prepared: UnsafeBufferPointer<TransformComponent.Prepared>,
                      _ easings: UnsafeBufferPointer<Easing>, at t: Double) {
        plan.shapes.withUnsafeBufferPointer { shapes in
        plan.fastScalars.withUnsafeBufferPointer { scalars in
            plan.fastVectors.withUnsafeBufferPointer { vectors in
                plan.fastSources.withUnsafeBufferPointer { sources in
                    for run in plan.fastRuns {
                        let channel = run.channel
                        // The write is the run's (inlined into its loop): the common
                        // channels each get their own loop; the rest share one that
                        // switches on the run's channel (the same branch every time).
                        @inline(__always) func one(line: Int? = nil, _ write: (Double, inout LayerProperties) -> Void) {
                            evaluateRun(scalars, shapes, run, nodes, sources, plan.slots, easings, at: t, line: line) { v, p, _ in
                                write(v, &p)
                            }
                        }
                        @inline(__always) func four(line: Int? = nil, _ write: (Lanes4, inout LayerProperties) -> Void) {
                            evaluateRun(vectors, shapes, run, nodes, sources, plan.slots, easings, at: t, line: line) { v, p, _ in
                                write(v, &p)
                            }
                        }
                        switch run.lanes {
                        case .one:
                            switch channel {
                            case .opacity: one(line: PresentationPlan.opacityOffset) { v, p in p.opacity = v }
                            case .zPosition: one { v, p in p.zPosition = v }
                            case .cornerRadius: one { v, p in p.cornerRadius = v }
                            case .borderWidth: one { v, p in p.borderWidth = v }
                            case .lineWidth: one { v, p in p.lineWidth = v }
                            case .strokeEnd: one { v, p in p.strokeEnd = v }
                            default: one { v, p in Self.write(SIMD4(v, 0, 0, 0), channel, to: &p) }
                            }
                        case .four:
                            switch channel {
                            case .position: four(line: PresentationPlan.positionOffset) { v, p in p.position = Point(v.x, v.y) }
                            case .bounds: four { v, p in p.bounds = Rect(v.x, v.y, v.z, v.w) }
                            case .backgroundColor: four { v, p in p.backgroundColor = Color.fromPremultiplied(v.x, v.y, v.z, v.w) }
                            default: four { v, p in Self.write(v.lanes, channel, to: &p) }
                            }
                        case .rotation2D:
                            // A z rotation of a model transform that is a 2D scale, z
                            // rotation and translation (`Rotation2D`).
                            plan.rotations.withUnsafeBufferPointer { rotations in
                                evaluateRun(scalars, shapes, run, nodes, sources, plan.slots, easings, at: t,
                                            line: PresentationPlan.transformBoxOffset, writesTransform: true) { v, p, f in
                                    p.transform = rotations[Int(f.prepared)].transform(angle: v)
                                }
                            }
                        case .transform(let tc):
                            // The first (only) transform writer: recomposed from the model
                            // transform's prepared decomposition.
                            let base = prepared.baseAddress!
                            evaluateRun(scalars, shapes, run, nodes, sources, plan.slots, easings, at: t,
                                        line: PresentationPlan.transformBoxOffset, writesTransform: true) { v, p, f in
                                p.transform = tc.setting(v, in: (base + Int(f.prepared)).pointee)
                            }
                        }
                    }
                }
            }
        }
        }
    }

    /// The run's fractions at `t` for records `range` into `fractions` (from index 0): two
    /// bindings at a time (`PreparedTiming.fractions`), −1 for "no effect" — past the
    /// shape's cutoff (also for a NaN local time), or the timing's nil. A fraction is in
    /// 0…1 or NaN otherwise.
    @inline(__always)
    func fastFractions<V>(_ records: UnsafePointer<PresentationPlan.Fast<V>>,
                          _ shapes: UnsafePointer<PresentationPlan.Shape>, _ range: Range<Int>, at t: Double,
                          into fractions: UnsafeMutablePointer<Double>,
                          prefetching nodes: UnsafeMutableRawPointer? = nil, line: Int = 0) {
        var k = range.lowerBound
        while k + 1 < range.upperBound {
            let f = records + k, g = records + k + 1
            if let nodes {
                // The line each record's write touches, for the pass after this one.
                let stride = MemoryLayout<LayerNode>.stride
                prefetchForWriting(nodes + Int(f.pointee.node) * stride + line)
                prefetchForWriting(nodes + Int(g.pointee.node) * stride + line)
            }
            let a = shapes + Int(f.pointee.shape), b = shapes + Int(g.pointee.shape)
            let local = SIMD2(repeating: t) - SIMD2(f.pointee.begin, g.pointee.begin)
            var x = PreparedTiming.fractions(PresentationPlan.Shape.timing(a), PresentationPlan.Shape.timing(b), at: local,
                                             timeOffset: SIMD2(f.pointee.offset, g.pointee.offset))
            x.replace(with: -1, where: .!(local .< SIMD2(a.pointee.cutoff, b.pointee.cutoff)))
            fractions[k - range.lowerBound] = x.x
            fractions[k + 1 - range.lowerBound] = x.y
            k += 2
        }
        if k < range.upperBound {
            let f = records + k
            let local = t - f.pointee.begin
            let shape = shapes + Int(f.pointee.shape)
            var fraction = -1.0
            if local < shape.pointee.cutoff,
               let x = shape.pointee.timing.fraction(at: local, timeOffset: f.pointee.offset) { fraction = x }
            fractions[k - range.lowerBound] = fraction
        }
    }

    @inline(__always)
    func evaluateRun<V: FastLanes>(_ records: UnsafeBufferPointer<PresentationPlan.Fast<V>>,
                                   _ shapes: UnsafeBufferPointer<PresentationPlan.Shape>, _ run: PresentationPlan.Run,
                                   _ nodes: UnsafeMutableBufferPointer<LayerNode>,
                                   _ sources: UnsafeBufferPointer<PresentationPlan.Binding>, _ slots: [PropertySlot],
                                   _ easings: UnsafeBufferPointer<Easing>, at t: Double,
                                   line: Int? = nil, writesTransform: Bool = false,
                                   _ write: (V, inout LayerProperties, PresentationPlan.Fast<V>) -> Void) {
        let base = records.baseAddress!
        let distance = PresentationPlan.prefetchDistance
        // The node line the write touches (`line`: its offset; nil: not prefetched) is
        // prefetched by the fractions pass, a chunk ahead of the writes; a transform box
        // (whose address is in that line) `distance` records ahead of its write.
        // (Neither while the tree does not prefetch: `prefetches`.)
        let prefetched = line == nil || !prefetches ? nil : UnsafeMutableRawPointer(nodes.baseAddress!)
        let prefetchesBoxes = writesTransform && prefetches
        // In chunks, two passes each: the fractions, then progress, value and write. Each
        // pass's loop body is short and its iterations independent, so the processor
        // overlaps many of them (one pass of everything is a ~130-cycle dependency chain per
        // binding, with few bindings in flight at once).
        let chunk = 64
        withUnsafeTemporaryAllocation(of: Double.self, capacity: chunk) { fractions in
            let fractions = fractions.baseAddress!
            var start = run.start
            while start < run.end {
                let end = min(start + chunk, run.end)
                fastFractions(base, shapes.baseAddress!, start..<end, at: t, into: fractions,
                              prefetching: prefetched, line: line ?? 0)
                for k in start..<end {
                    if prefetchesBoxes && k + distance < run.end {
                        Self.prefetchTransformBox(nodes.baseAddress! + Int(base[k + distance].node))
                    }
                    let f = base + k
                    let n = Int(f.pointee.node)
                    let fraction = fractions[k - start]
                    if fraction >= 0 || fraction.isNaN {
                        let e = Int(f.pointee.easing)
                        let progress = e < 0 ? fraction : Easing.progress(in: easings, at: e, fraction)
                        write(V.lerp(f.pointee.from, f.pointee.delta, progress), &nodes[n].properties, f.pointee)
                    } else {
                        resetStored(sources[Int(f.pointee.source)], n, into: &nodes[n].properties, slots)
                    }
                }
                start = end
            }
        }
    }

    /// Prefetches for writing the transform box of `node` (when it has one): its reference
    /// read raw (no retain), then the box's 16-byte header and 128-byte value.
    @inline(__always)
    static func prefetchTransformBox(_ node: UnsafeMutablePointer<LayerNode>) {
        let bits = UnsafeRawPointer(node).load(fromByteOffset: PresentationPlan.transformBoxOffset, as: UInt.self)
        guard let box = UnsafeRawPointer(bitPattern: bits) else { return }
        prefetchForWriting(box)
        prefetchForWriting(box + 72)
        prefetchForWriting(box + 143)
    }
}
