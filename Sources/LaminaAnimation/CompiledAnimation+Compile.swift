import LaminaGeometry

extension Animation {
    /// Validates the animation once and compiles it into its flat, evaluable form.
    ///
    /// - Parameter kindOf: the value kind of a key path, or nil for a key path that does not
    ///   exist (rejected). Used to reject from/to/values of the wrong type.
    /// - Throws: `AnimationError` naming the field (`duration: must be ≥ 0`).
    /// - Any thread may call this (it is pure); the tree calls it when validating a commit.
    public func compile(kindOf: (String) -> AnimatableValue.Kind?) throws(AnimationError) -> CompiledAnimation {
        // The compiler must not outlive the closure: only its results leave this block.
        return try withoutActuallyEscaping(kindOf) { (lookup) throws(AnimationError) -> CompiledAnimation in
            var c = Compiler(kindOf: lookup)
            try c.add(self, parent: -1)
            return CompiledAnimation(keyPaths: c.keyPaths, kinds: c.kinds, endTime: c.nodes[0].timing.endTime,
                                     removedOnCompletion: timing.removedOnCompletion, isEssential: timing.essential,
                                     nodes: c.nodes, typedDrivers: c.typedDrivers())
        }
    }
}

/// A node's curve as the compiler builds it, with `AnimatableValue`s; `typedDrivers()`
/// splits it per key path and converts it to the key path's representation.
private enum Payload {
    case group
    case basic(EndsRule<AnimatableValue>)
    case keyframes(KeyframeCurve<AnimatableValue>)
    case spring(SpringCurve<AnimatableValue>)
    case tracks([TrackCurve<AnimatableValue>])
    /// values[phase][slot].
    case phases(values: [[AnimatableValue?]], transitions: [PhaseTransition], duration: Double)
}

/// A leaf's curve for one key path, with `AnimatableValue`s.
private enum Leaf {
    case basic(EndsRule<AnimatableValue>)
    case spring(SpringCurve<AnimatableValue>)
    case keyframes(KeyframeCurve<AnimatableValue>)
    case track(TrackCurve<AnimatableValue>)
    case phase(PhaseCurve<AnimatableValue>)
}

/// The drivers of a compiled animation, each converted to its key path's representation,
/// and the curve objects they reference.
private struct TypedDrivers {
    var plans: [CompiledAnimation.Plan] = []
    var vector: [CompiledAnimation.Driver<VectorValue>] = []
    var transform: [CompiledAnimation.Driver<TransformValue>] = []
    var generic: [CompiledAnimation.Driver<AnimatableValue>] = []
    var curves: [AnyObject & Sendable] = []

    /// Converts the leaf and keeps its curve object alive.
    mutating func driver<V: CurveValue>(_ node: Int, _ leaf: Leaf) -> CompiledAnimation.Driver<V> {
        func keep<T: AnyObject & Sendable>(_ object: T) -> UncountedRef<T> { curves.append(object); return UncountedRef(object) }
        let curve: LeafCurve<V>
        switch leaf {
        case .basic(let r): curve = .basic(keep(r.converted(to: V.self)))
        case .spring(let s): curve = .spring(keep(s.converted(to: V.self)))
        case .keyframes(let k): curve = .keyframes(keep(k.converted(to: V.self)))
        case .track(let t): curve = .track(keep(t.converted(to: V.self)))
        case .phase(let p): curve = .phase(keep(p.converted(to: V.self)))
        }
        return CompiledAnimation.Driver(node: node, curve: curve)
    }
}

extension CompiledAnimation {
    fileprivate init(keyPaths: [String], kinds: [AnimatableValue.Kind], endTime: Double, removedOnCompletion: Bool,
                     isEssential: Bool, nodes: [Node], typedDrivers d: TypedDrivers) {
        self.init(keyPaths: keyPaths, kinds: kinds, endTime: endTime, removedOnCompletion: removedOnCompletion,
                  isEssential: isEssential, nodes: nodes, plans: d.plans, vectorDrivers: d.vector,
                  transformDrivers: d.transform, genericDrivers: d.generic, curves: d.curves)
    }
}

private struct Compiler {
    let kindOf: (String) -> AnimatableValue.Kind?
    var nodes: [CompiledAnimation.Node] = []
    var payloads: [Payload] = []
    var keyPaths: [String] = []
    var kinds: [AnimatableValue.Kind] = []
    /// drivers[keyPathIndex] = (node, slot) of each leaf driving it, in order.
    var drivers: [[(node: Int, slot: Int)]] = []

    init(kindOf: @escaping (String) -> AnimatableValue.Kind?) { self.kindOf = kindOf }

    /// The key path's index, adding it on first use.
    mutating func keyPathIndex(_ keyPath: String, field: String) throws(AnimationError) -> (Int, AnimatableValue.Kind) {
        if let i = keyPaths.firstIndex(of: keyPath) { return (i, kinds[i]) }
        guard let kind = kindOf(keyPath) else { throw AnimationError(field: field, "unknown key path '\(keyPath)'") }
        keyPaths.append(keyPath); kinds.append(kind); drivers.append([])
        return (keyPaths.count - 1, kind)
    }

    mutating func drive(_ keyPathIndex: Int, node: Int, slot: Int) {
        drivers[keyPathIndex].append((node, slot))
    }

    /// The drivers of every key path, converted to the representation of its kind.
    func typedDrivers() -> TypedDrivers {
        var out = TypedDrivers()
        for k in drivers.indices {
            let plan: CompiledAnimation.Plan
            switch kinds[k] {
            case .double, .point, .size, .rect, .color:
                plan = .init(representation: .vector, start: out.vector.count, count: drivers[k].count,
                             usesUnderlying: usesUnderlying(k))
                for d in drivers[k] { out.vector.append(out.driver(d.node, leaf(d.node, slot: d.slot))) }
            case .transform:
                plan = .init(representation: .transform, start: out.transform.count, count: drivers[k].count,
                             usesUnderlying: usesUnderlying(k))
                for d in drivers[k] { out.transform.append(out.driver(d.node, leaf(d.node, slot: d.slot))) }
            case .doubles, .colors, .path:
                plan = .init(representation: .generic, start: out.generic.count, count: drivers[k].count,
                             usesUnderlying: usesUnderlying(k))
                for d in drivers[k] { out.generic.append(out.driver(d.node, leaf(d.node, slot: d.slot))) }
            }
            out.plans.append(plan)
        }
        return out
    }

    /// Whether any driver of key path `k` reads the underlying value.
    func usesUnderlying(_ k: Int) -> Bool {
        drivers[k].contains { d in
            if nodes[d.node].additive { return true }
            switch payloads[d.node] {
            case .basic(let rule): return rule.mode != .fixed
            case .spring(let s): return s.ends.mode != .fixed
            case .keyframes, .group: return false
            case .tracks, .phases: return true
            }
        }
    }

    /// The curve of a leaf node for its key path number `slot`.
    func leaf(_ node: Int, slot: Int) -> Leaf {
        switch payloads[node] {
        case .group: preconditionFailure("a group drives no key path")
        case .basic(let rule): return .basic(rule)
        case .keyframes(let k): return .keyframes(k)
        case .spring(let s): return .spring(s)
        case .tracks(let tracks): return .track(tracks[slot])
        case let .phases(values, transitions, duration):
            return .phase(PhaseCurve(values: values.map { $0[slot] }, transitions: transitions, duration: duration))
        }
    }

    mutating func add(_ animation: Animation, parent: Int) throws(AnimationError) {
        let t = animation.timing
        try validate(t)
        let index = nodes.count
        // Placeholder; payload and duration filled in below.
        nodes.append(CompiledAnimation.Node(
            timing: MediaTiming(duration: 0), curve: TimingCurve(t.timingFunction), parent: parent,
            additive: t.additive, cumulative: t.cumulative))
        payloads.append(.group)
        var duration = t.duration ?? 0.25
        var repeatCount = t.repeatCount
        let payload: Payload
        switch animation {
        case .basic(let a):
            let (k, kind) = try keyPathIndex(a.keyPath, field: "keyPath")
            payload = .basic(try endsRule(from: a.from, to: a.to, by: a.by, kind: kind))
            drive(k, node: index, slot: 0)
        case .spring(let a):
            let (k, kind) = try keyPathIndex(a.keyPath, field: "keyPath")
            try validate(a.spring)
            let rule = try endsRule(from: a.from, to: a.to, by: a.by, kind: kind)
            if let v = a.velocity { try check(v, kind: kind, field: "velocity") }
            payload = .spring(SpringCurve(ends: rule, spring: a.spring, velocity: a.velocity))
            duration = t.duration ?? a.spring.settlingDuration
            drive(k, node: index, slot: 0)
        case .keyframe(let a):
            let (k, kind) = try keyPathIndex(a.keyPath, field: "keyPath")
            payload = .keyframes(try keyframeCurve(a, kind: kind))
            drive(k, node: index, slot: 0)
        case .group(let g):
            payload = .group
            for (i, child) in g.animations.enumerated() {
                do { try add(child, parent: index) } catch { throw error.prefixed("animations[\(i)]") }
            }
        case .keyframeTracks(let a):
            guard !a.tracks.isEmpty else { throw AnimationError(field: "tracks", "must not be empty") }
            var tracks: [TrackCurve<AnimatableValue>] = []
            var longest = 0.0
            for (slot, track) in a.tracks.enumerated() {
                let field = "tracks.\(track.keyPath)"
                if a.tracks[..<slot].contains(where: { $0.keyPath == track.keyPath }) {
                    throw AnimationError(field: field, "key path appears in more than one track")
                }
                let (k, kind) = try keyPathIndex(track.keyPath, field: field)
                let curve = try trackCurve(track, kind: kind, field: field)
                longest = max(longest, curve.duration)
                tracks.append(curve)
                drive(k, node: index, slot: slot)
            }
            payload = .tracks(tracks)
            duration = t.duration ?? longest
        case .phases(let a):
            let (values, transitions, cycle, slots) = try phaseCurve(a)
            payload = .phases(values: values, transitions: transitions, duration: cycle)
            for (slot, k) in slots.enumerated() { drive(k, node: index, slot: slot) }
            duration = t.duration ?? cycle
            if a.repeats && t.repeatCount == 0 && t.repeatDuration == 0 { repeatCount = .infinity }
        }
        payloads[index] = payload
        nodes[index].timing = MediaTiming(
            beginTime: t.beginTime, duration: duration, speed: t.speed, timeOffset: t.timeOffset,
            repeatCount: repeatCount, repeatDuration: t.repeatDuration, autoreverses: t.autoreverses,
            fillMode: t.fillMode)
    }

    // MARK: Validation

    func validate(_ t: AnimationTiming) throws(AnimationError) {
        guard t.beginTime.isFinite else { throw AnimationError(field: "beginTime", "must be finite") }
        if let d = t.duration {
            guard !d.isNaN, d >= 0 else { throw AnimationError(field: "duration", "must be ≥ 0") }
            guard d.isFinite else { throw AnimationError(field: "duration", "must be finite") }
        }
        guard t.speed.isFinite else { throw AnimationError(field: "speed", "must be finite") }
        guard t.timeOffset.isFinite else { throw AnimationError(field: "timeOffset", "must be finite") }
        guard !t.repeatCount.isNaN, t.repeatCount >= 0 else { throw AnimationError(field: "repeatCount", "must be ≥ 0") }
        guard !t.repeatDuration.isNaN, t.repeatDuration >= 0 else {
            throw AnimationError(field: "repeatDuration", "must be ≥ 0")
        }
        if t.repeatCount > 0 && t.repeatDuration > 0 {
            throw AnimationError(field: "repeatDuration", "cannot be combined with repeatCount")
        }
        if let problem = t.timingFunction.validationError() { throw AnimationError(field: "timingFunction", problem) }
    }

    func validate(_ s: Spring) throws(AnimationError) {
        guard s.mass.isFinite, s.mass > 0 else { throw AnimationError(field: "mass", "must be > 0") }
        guard s.stiffness.isFinite, s.stiffness > 0 else { throw AnimationError(field: "stiffness", "must be > 0") }
        guard s.damping.isFinite, s.damping >= 0 else { throw AnimationError(field: "damping", "must be ≥ 0") }
        if s.damping == 0 { throw AnimationError(field: "damping", "must be > 0 (an undamped spring never settles)") }
        guard s.initialVelocity.isFinite else { throw AnimationError(field: "initialVelocity", "must be finite") }
    }

    func check(_ v: AnimatableValue, kind: AnimatableValue.Kind, field: String) throws(AnimationError) {
        guard v.kind == kind else { throw AnimationError(field: field, "must be \(Self.phrase(kind)) (got \(Self.phrase(v.kind)))") }
        guard v.isFinite else { throw AnimationError(field: field, "must be finite") }
    }

    /// A kind as an error message names it: "a number", "a number list", "a color list".
    static func phrase(_ kind: AnimatableValue.Kind) -> String {
        let names: [AnimatableValue.Kind: String] = [.double: "a number", .doubles: "a number list", .colors: "a color list",
                                                     .rect: "a rect", .transform: "a transform"]
        return names[kind] ?? "a \(kind.rawValue)"
    }

    func checkCompatible(_ a: AnimatableValue, _ b: AnimatableValue, field: String, other: String) throws(AnimationError) {
        guard a.isCompatible(with: b) else {
            switch a.kind {
            case .path: throw AnimationError(field: field, "path must have the same elements as \(other)")
            default: throw AnimationError(field: field, "must have as many entries as \(other)")
            }
        }
    }

    /// CABasicAnimation's combinations (see `BasicAnimation`).
    func endsRule(from: AnimatableValue?, to: AnimatableValue?, by: AnimatableValue?,
                  kind: AnimatableValue.Kind) throws(AnimationError) -> EndsRule<AnimatableValue> {
        if let from { try check(from, kind: kind, field: "from") }
        if let to { try check(to, kind: kind, field: "to") }
        if let by { try check(by, kind: kind, field: "by") }
        switch (from, to, by) {
        case let (f?, t?, nil):
            try checkCompatible(t, f, field: "to", other: "from")
            return .fixed(f, t)
        case let (f?, nil, b?):
            try checkCompatible(b, f, field: "by", other: "from")
            return .fixed(f, f.adding(b))
        case let (nil, t?, b?):
            try checkCompatible(b, t, field: "by", other: "to")
            guard let f = t.subtracting(b) else { throw AnimationError(field: "by", "must be invertible") }
            return .fixed(f, t)
        case let (f?, nil, nil): return EndsRule(.fromOnly, f)
        case let (nil, t?, nil): return EndsRule(.toOnly, t)
        case let (nil, nil, b?): return EndsRule(.byOnly, b)
        case (nil, nil, nil): throw AnimationError(field: "from", "one of from, to or by is required")
        case (.some, .some, .some): throw AnimationError(field: "by", "cannot be combined with both from and to")
        }
    }

    func keyframeCurve(_ a: KeyframeAnimation, kind: AnimatableValue.Kind) throws(AnimationError) -> KeyframeCurve<AnimatableValue> {
        var segments: [PathSegment] = []
        var vertices: [Point] = []
        let count: Int
        if let path = a.path {
            guard a.values.isEmpty else { throw AnimationError(field: "path", "cannot be combined with values") }
            guard kind == .point else { throw AnimationError(field: "path", "only animates point properties") }
            guard path.elements.allSatisfy({ $0.isFinite }) else { throw AnimationError(field: "path", "must be finite") }
            (segments, vertices) = PathSegment.segments(of: path)
            guard !vertices.isEmpty else { throw AnimationError(field: "path", "must not be empty") }
            count = vertices.count
        } else {
            guard !a.values.isEmpty else { throw AnimationError(field: "values", "must not be empty") }
            for (i, v) in a.values.enumerated() {
                try check(v, kind: kind, field: "values[\(i)]")
                if i > 0 { try checkCompatible(v, a.values[0], field: "values[\(i)]", other: "values[0]") }
            }
            count = a.values.count
        }
        let discrete = a.calculationMode == .discrete
        var keyTimes: [Double]
        if let kt = a.keyTimes {
            guard kt.count == count || (discrete && kt.count == count + 1) else {
                throw AnimationError(field: "keyTimes", discrete
                    ? "must have as many entries as values (\(count)) or one more"
                    : "must have as many entries as values (\(count))")
            }
            for (i, x) in kt.enumerated() {
                guard x.isFinite, x >= 0, x <= 1 else { throw AnimationError(field: "keyTimes[\(i)]", "must be in 0…1") }
                if i > 0 && x < kt[i - 1] { throw AnimationError(field: "keyTimes", "must be ascending") }
            }
            keyTimes = kt
        } else if discrete {
            keyTimes = (0..<count).map { Double($0) / Double(count) }
        } else {
            keyTimes = count > 1 ? (0..<count).map { Double($0) / Double(count - 1) } : [0]
        }
        var curves: [TimingCurve] = []
        if let tfs = a.timingFunctions {
            let segs = max(count - 1, 0)
            guard tfs.count == segs else {
                throw AnimationError(field: "timingFunctions", "must have one entry per segment (\(segs))")
            }
            for (i, f) in tfs.enumerated() {
                if let problem = f.validationError() { throw AnimationError(field: "timingFunctions[\(i)]", problem) }
            }
            if !tfs.allSatisfy({ $0 == .linear }) { curves = tfs.map(TimingCurve.init) }
        }
        let paced = a.calculationMode == .paced || a.calculationMode == .cubicPaced
        // CA ignores keyTimes and timing functions in the paced modes.
        if paced { curves = [] }
        let draft = KeyframeCurve(mode: a.calculationMode, values: a.path == nil ? a.values : [],
                                  segments: segments, vertices: vertices, keyTimes: keyTimes,
                                  segmentCurves: curves, arcTable: [])
        guard paced else { return draft }
        let arcTable = a.path != nil || a.calculationMode == .cubicPaced ? draft.computedArcTable() : []
        if arcTable.isEmpty && count > 1 {
            // Paced values: each segment's share of time is its share of the distance.
            var cumulative = [0.0]
            for i in 1..<count {
                let d = a.path == nil ? a.values[i - 1].distance(to: a.values[i]) : vertices[i - 1].distance(to: vertices[i])
                cumulative.append(cumulative[i - 1] + d)
            }
            let total = cumulative[count - 1]
            keyTimes = total > 0 ? cumulative.map { $0 / total } : (0..<count).map { Double($0) / Double(count - 1) }
        }
        return KeyframeCurve(mode: a.calculationMode, values: draft.values, segments: segments, vertices: vertices,
                             keyTimes: keyTimes, segmentCurves: [], arcTable: arcTable)
    }

    func trackCurve(_ track: KeyframeTrack, kind: AnimatableValue.Kind, field: String) throws(AnimationError) -> TrackCurve<AnimatableValue> {
        var out: [TrackKeyframe<AnimatableValue>] = []
        var time = 0.0
        for (i, kf) in track.keyframes.enumerated() {
            let f = "\(field)[\(i)]"
            do { try check(kf.value, kind: kind, field: "value") } catch { throw error.prefixed(f) }
            if let first = track.keyframes.first, i > 0 {
                do { try checkCompatible(kf.value, first.value, field: "value", other: "the track's first value") }
                catch { throw error.prefixed(f) }
            }
            let d = kf.duration
            guard !d.isNaN, d >= 0 else { throw AnimationError(field: f + ".duration", "must be ≥ 0") }
            guard d.isFinite else { throw AnimationError(field: f + ".duration", "must be finite") }
            let shape: TrackKeyframeShape
            switch kf {
            case .linear(_, _, let tf):
                if let problem = tf.validationError() { throw AnimationError(field: f + ".timingFunction", problem) }
                shape = .linear(TimingCurve(tf))
            case .cubic: shape = .cubic
            case .spring(_, _, let bounce):
                guard bounce.isFinite, bounce > -1, bounce < 1 else {
                    throw AnimationError(field: f + ".bounce", "must be > −1 and < 1")
                }
                shape = d > 0 ? .spring(TimingCurve(.spring(Spring(perceptualDuration: d, bounce: bounce)))) : .move
            case .move: shape = .move
            }
            out.append(TrackKeyframe(shape: shape, value: kf.value, start: time, duration: d))
            time += d
        }
        return TrackCurve(keyframes: out, duration: time)
    }

    /// A phase sequence's values (values[phase][slot]), its transitions, the cycle's
    /// duration, and the key path index of each slot.
    mutating func phaseCurve(_ a: PhaseAnimation) throws(AnimationError)
        -> ([[AnimatableValue?]], [PhaseTransition], Double, [Int]) {
        guard !a.phases.isEmpty else { throw AnimationError(field: "phases", "must not be empty") }
        // Key paths in a stable order: first appearance, names sorted within a phase.
        var slotKeyPaths: [String] = []
        var slots: [Int] = []
        for (i, phase) in a.phases.enumerated() {
            for key in phase.values.keys.sorted() where !slotKeyPaths.contains(key) {
                let (k, _) = try keyPathIndex(key, field: "phases[\(i)].values.\(key)")
                slotKeyPaths.append(key); slots.append(k)
            }
        }
        var values: [[AnimatableValue?]] = []
        var durations: [Double] = []
        var curves: [TimingCurve] = []
        for (i, phase) in a.phases.enumerated() {
            var row: [AnimatableValue?] = []
            for (s, key) in slotKeyPaths.enumerated() {
                if let v = phase.values[key] {
                    let field = "phases[\(i)].values.\(key)"
                    try check(v, kind: kinds[slots[s]], field: field)
                    if let first = values.lazy.compactMap({ $0[s] }).first {
                        try checkCompatible(v, first, field: field, other: "the other phases")
                    }
                    row.append(v)
                } else {
                    row.append(nil)
                }
            }
            values.append(row)
            if let problem = phase.curve.validationError() { throw AnimationError(field: "phases[\(i)].animation", problem) }
            var d = 0.25
            if let given = phase.duration {
                guard !given.isNaN, given >= 0 else { throw AnimationError(field: "phases[\(i)].duration", "must be ≥ 0") }
                guard given.isFinite else { throw AnimationError(field: "phases[\(i)].duration", "must be finite") }
                d = given
            } else if case .spring(let s) = phase.curve {
                d = s.settlingDuration
            }
            durations.append(d)
            curves.append(TimingCurve(phase.curve))
        }
        var transitions: [PhaseTransition] = []
        var time = 0.0
        let n = a.phases.count
        if n > 1 {
            for k in 1...n {
                let to = k % n
                transitions.append(.init(from: k - 1, to: to, curve: curves[to], start: time, duration: durations[to]))
                time += durations[to]
            }
        }
        return (values, transitions, time, slots)
    }
}
