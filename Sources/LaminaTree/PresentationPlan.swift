import LaminaAnimation
import LaminaGeometry
import LaminaModel

/// The render thread's flat list of what to evaluate per frame, built once per model version
/// (kept in the presentation tree): per animated layer its node's storage index, and per
/// (animation, key path) a binding with the compiled animation and the resolved channel.
/// A frame walks the bindings and writes the results in place into the presentation
/// properties: no dictionary lookup by id, no copy of `LayerProperties` or `AnimatableValue`.
struct PresentationPlan: Sendable {
    typealias NodeIndex = Int

    struct Group: Sendable {
        /// The layer's index in the model tree's (and so the presentation tree's) storage.
        var index: NodeIndex
        var start: Int
        var end: Int
        /// Layer time (`LayerTime`): a layer whose local time runs forward has its bindings'
        /// begins and ends in compositor time, and `rescale` its speed — what turns a general
        /// binding's time since its begin back into local seconds (1 for most layers). A layer
        /// whose time stands still or runs backwards is evaluated at `scale · t + shift`.
        var rescale: Double = 1
        var scale: Double = 1
        var shift: Double = 0
    }

    /// A compiled animation behind a reference, so that a frame reaches it through an
    /// unretained pointer without copying the struct (and retaining its arrays).
    final class Box: Sendable {
        let animation: CompiledAnimation
        init(_ animation: CompiledAnimation) { self.animation = animation }
    }

    struct Binding: @unchecked Sendable {
        var animation: Unmanaged<Box>   // kept alive by `compiled`
        var keyPath: Int            // key path number in the compiled animation
        var channel: PresentationChannel
        var slot: Int               // into `slots` (generic channels), else -1
        /// Into `prepared`: a transform component that is the first writer of its layer's
        /// `transform` reads and recomposes the model transform, whose decomposition is kept.
        var prepared: Int = -1
        /// Into `plain`: the binding is a plain basic animation (fast path), else -1.
        var plain: Int = -1
        var beginTime: Double
        var endTime: Double
        var removedOnCompletion: Bool
    }

    /// A binding that is one plain basic animation (`CompiledAnimation.plainBasic`): its
    /// timing constants, ends and easing (an index into `easings`, -1 for linear), so that a
    /// frame evaluates it without reaching into the compiled animation. Plain data.
    struct Plain: Sendable {
        var timing: PreparedTiming
        var from: SIMD4<Double>
        var to: SIMD4<Double>
        var easing: Int
    }

    var version: UInt64
    var count: Int
    var groups: [Group] = []
    /// The storage index of each group's layer, in order (what a frame may change).
    var animatedSlots: [Int] = []
    var bindings: [Binding] = []
    var compiled: [Box] = []
    var slots: [PropertySlot] = []
    var prepared: [TransformComponent.Prepared] = []
    var plain: [Plain] = []
    /// The distinct non-linear easings of `plain` (most animations share a few).
    var easings: [Easing] = []
    /// Expression animations and path templates, when the tree has any (LayerTree+Programs.swift).
    var programs: ProgramPlan? = nil
    /// The fast path (PresentationPlan+Fast.swift): bindings that are the only writer of
    /// their stored property on their layer, not in `bindings` nor in any group.
    var fastScalars: [Fast<Double>] = []
    var fastVectors: [Fast<Lanes4>] = []
    var shapes: [Shape] = []
    var fastRuns: [Run] = []
    /// The constants of the `.rotation2D` runs' records (their `prepared`).
    var rotations: [Rotation2D] = []
    /// The fast bindings as bindings (what writing the model value back reads).
    var fastSources: [Binding] = []

    init(_ tree: LayerTree) {
        version = tree.version
        count = tree.count
        groups.reserveCapacity(tree.animatedLayers.count)
        bindings.reserveCapacity(tree.animatedLayers.count)
        compiled.reserveCapacity(tree.animatedLayers.count)
        var easingIndex: [Easing: Int] = [:]
        var pending: [PropertySlot: [Int]] = [:], order: [PropertySlot] = []
        var shapeIndex: [Shape: Int32] = [:]
        var layer: [Binding] = [], layerSlots: [PropertySlot] = []
        // In storage order, so that a frame walks the nodes forward (the set's order is its
        // hash order: a cache miss per layer on a large tree).
        let indices = tree.animatedLayers.compactMap { tree.nodes.slot(of: $0) }.sorted()
        for index in indices {
            let start = bindings.count
            var transformWritten = false
            // Layer time (`scale · t + shift`): at any positive speed the bindings are read in
            // compositor time — begins moved by the shift and, like ends, divided by the
            // scale; plain ones' timings through `timeScaled`, the others' local time
            // multiplied back (`Group.rescale`) — so the fast path is kept. At speed 0 or
            // below the layer's group is evaluated at its own time (`Group.scale`, `shift`).
            let time = tree.layerTime(of: tree.nodes.storage[index].id)
            let animations = tree.nodes.storage[index].animations
            let scale = time.scale > 0 ? time.scale : 1
            let offset = time.scale > 0 ? time.shift : 0
            layer.removeAll(keepingCapacity: true)
            layerSlots.removeAll(keepingCapacity: true)
            for a in animations {
                let box = Box(a.compiled)
                compiled.append(box)
                let k = Unmanaged.passUnretained(box)
                for (i, slot) in a.slots.enumerated() {
                    let channel = PresentationChannel(slot)
                    var s = -1
                    if case .generic = channel { s = slots.count; slots.append(slot) }
                    var b = Binding(animation: k, keyPath: i, channel: channel, slot: s,
                                    beginTime: (a.beginTime - offset) / scale, endTime: a.compiled.endTime / scale,
                                    removedOnCompletion: a.compiled.removedOnCompletion)
                    var transformFirst = false
                    switch channel {
                    case .transformComponent(let c):
                        if !transformWritten && !c.isSize {
                            b.prepared = prepared.count
                            prepared.append(.init(c, tree.nodes.storage[index].properties.transform, number: true))
                            transformFirst = true
                        }
                        transformWritten = true
                    case .transform: transformWritten = true
                    default: break
                    }
                    var eligible = true
                    if case .transformComponent = channel { eligible = transformFirst }
                    if eligible, let kind = channel.plainKind,
                       let curve = a.compiled.plainBasic(forKeyPathAt: i), curve.kind == kind {
                        var e = -1
                        if !curve.easing.isLinear {
                            if let known = easingIndex[curve.easing] { e = known } else {
                                e = easings.count; easingIndex[curve.easing] = e; easings.append(curve.easing)
                            }
                        }
                        b.plain = plain.count
                        plain.append(Plain(timing: scale == 1 ? curve.timing : curve.timing.timeScaled(scale),
                                           from: curve.from, to: curve.to, easing: e))
                    }
                    layer.append(b)
                    layerSlots.append(slot)
                }
            }
            for (i, b) in layer.enumerated() {
                if time.scale > 0 && Self.isFast(b, at: i, among: layerSlots) {
                    addFast(b, slot: layerSlots[i], index: index, pending: &pending, order: &order, shapeIndex: &shapeIndex)
                } else {
                    bindings.append(b)
                }
            }
            if bindings.count > start {
                groups.append(time.scale > 0
                    ? Group(index: index, start: start, end: bindings.count, rescale: scale)
                    : Group(index: index, start: start, end: bindings.count, scale: time.scale, shift: time.shift))
            }
            if !layer.isEmpty { animatedSlots.append(index) }
        }
        finishFast(pending, order: order)
        if tree.programs.isActive { programs = ProgramPlan(tree) }
    }
}

extension LayerTree {
    /// The storage slots whose presentation values may differ from this tree's model values
    /// (the layers its presentation plan evaluates), in storage order; nil when that is not
    /// known: a tree with animations that no `updatePresentation` evaluated (its values may
    /// be either), path templates or expression animations (they may change any layer), or a
    /// contents cross-fade (it changes with the time). The draw-list builder patches the
    /// items of these layers only when the previous list was built from the same model
    /// (`lineage`, `version`).
    public var presentationChangedSlots: [Int]? {
        guard !programs.isActive, fadingLayers.isEmpty else { return nil }
        if animatedLayers.isEmpty { return [] }
        guard let plan = presentationPlan, plan.version == version, plan.count == count else { return nil }
        return plan.animatedSlots
    }

    /// Patches the presentation properties of one animated layer in place: the stored
    /// properties its animations touch go back to the model values, then each binding applies
    /// in the order added (each reading what the previous wrote).
    @inline(__always)
    func evaluate(_ g: PresentationPlan.Group, into p: inout LayerProperties,
                  _ bindings: UnsafeBufferPointer<PresentationPlan.Binding>, _ slots: [PropertySlot],
                  _ prepared: UnsafeBufferPointer<TransformComponent.Prepared>,
                  _ plain: UnsafeBufferPointer<PresentationPlan.Plain>, _ easings: UnsafeBufferPointer<Easing>,
                  at t: Double) {
        for j in g.start..<g.end { resetStored(bindings[j], g.index, into: &p, slots) }
        let t = g.scale == 1 ? t : g.scale * t + g.shift
        for j in g.start..<g.end {
            let b = bindings[j]
            let local = t - b.beginTime
            if b.removedOnCompletion && local >= b.endTime { continue }
            if b.plain >= 0 {
                // One plain basic animation: what its typed entry point answers (see
                // `PlainBasicCurve`), from the plan's copy of its constants.
                let c = plain.baseAddress! + b.plain
                guard !local.isNaN, let f = c.pointee.timing.fraction(at: local) else { continue }
                let e = c.pointee.easing
                let progress = e < 0 ? f : Easing.progress(in: easings, at: e, f)
                let v = PlainBasicCurve.value(from: c.pointee.from, to: c.pointee.to, progress: progress)
                if b.prepared >= 0, case .transformComponent(let tc) = b.channel {
                    p.transform = tc.setting(v.x, in: (prepared.baseAddress! + b.prepared).pointee)
                } else {
                    Self.write(v, b.channel, to: &p)
                }
                continue
            }
            // The compiled animation reads its layer's local seconds (× 1 for most layers: exact).
            let own = local * g.rescale
            if b.prepared >= 0, case .transformComponent(let tc) = b.channel {
                // The first writer of `transform`: it holds the model value (reset above).
                let base = prepared.baseAddress! + b.prepared
                if let v = b.animation._withUnsafeGuaranteedRef({
                    $0.animation.doubleValue(forKeyPathAt: b.keyPath, at: own, underlying: base.pointee.number)
                }) {
                    p.transform = tc.setting(v, in: base.pointee)
                }
                continue
            }
            b.animation._withUnsafeGuaranteedRef { Self.apply(b, $0, at: own, to: &p, slots) }
        }
    }
}
