import LaminaAnimation
import LaminaGeometry

extension AnimationJSON {
    /// The ANIMATION JSON of an animation description (what `addAnimation` sends);
    /// `decode(encode(a))` gives back `a`.
    public static func encode(_ a: Animation) -> JSON {
        var m: [JSON.Member] = []
        func add(_ k: String, _ v: JSON) { m.append(JSON.Member(key: k, value: v)) }
        switch a {
        case .basic(let b):
            add("type", .string("basic")); add("keyPath", .string(b.keyPath))
            if let v = b.from { add("from", value(v)) }
            if let v = b.to { add("to", value(v)) }
            if let v = b.by { add("by", value(v)) }
        case .keyframe(let k):
            add("type", .string("keyframe")); add("keyPath", .string(k.keyPath))
            if let p = k.path { add("path", .string(p.svgData)) } else { add("values", .array(k.values.map(value))) }
            if let t = k.keyTimes { add("keyTimes", .array(t.map { .number($0) })) }
            if let f = k.timingFunctions { add("timingFunctions", .array(f.map(timing))) }
            add("calculationMode", .string(k.calculationMode.rawValue))
        case .spring(let s):
            add("type", .string("spring")); add("keyPath", .string(s.keyPath))
            if let v = s.from { add("from", value(v)) }
            if let v = s.to { add("to", value(v)) }
            if let v = s.by { add("by", value(v)) }
            add("mass", .number(s.spring.mass)); add("stiffness", .number(s.spring.stiffness))
            add("damping", .number(s.spring.damping)); add("initialVelocity", .number(s.spring.initialVelocity))
        case .group(let g):
            add("type", .string("group")); add("animations", .array(g.animations.map(encode)))
        case .keyframeTracks(let t):
            add("type", .string("keyframes"))
            add("tracks", .object(t.tracks.map { track in
                JSON.Member(key: track.keyPath, value: .array(track.keyframes.map { k in
                    switch k {
                    case .linear(let v, let d, _): .object([.init(key: "linear", value: value(v)), .init(key: "duration", value: .number(d))])
                    case .cubic(let v, let d): .object([.init(key: "cubic", value: value(v)), .init(key: "duration", value: .number(d))])
                    case .spring(let v, let d, let b):
                        .object([.init(key: "spring", value: value(v)), .init(key: "duration", value: .number(d)),
                                 .init(key: "bounce", value: .number(b))])
                    case .move(let v): .object([.init(key: "move", value: value(v))])
                    }
                }))
            }))
        case .phases(let p):
            add("type", .string("phases"))
            add("phases", .array(p.phases.map { ph in
                var pm: [JSON.Member] = [.init(key: "values", value: .object(ph.values.sorted { $0.key < $1.key }.map {
                    JSON.Member(key: $0.key, value: value($0.value))
                })), .init(key: "animation", value: timing(ph.curve))]
                if let d = ph.duration { pm.append(.init(key: "duration", value: .number(d))) }
                return .object(pm)
            }))
            add("repeat", .bool(p.repeats))
        }
        let t = a.timing, d = AnimationTiming()
        if let v = t.duration { add("duration", .number(v)) }
        if t.beginTime != d.beginTime { add("beginTime", .number(t.beginTime)) }
        if t.timingFunction != d.timingFunction { add("timingFunction", timing(t.timingFunction)) }
        if t.repeatCount != d.repeatCount { add("repeatCount", t.repeatCount.isInfinite ? .string("infinity") : .number(t.repeatCount)) }
        if t.repeatDuration != d.repeatDuration { add("repeatDuration", .number(t.repeatDuration)) }
        if t.autoreverses { add("autoreverses", .bool(true)) }
        if t.fillMode != d.fillMode { add("fillMode", .string(t.fillMode.rawValue)) }
        if !t.removedOnCompletion { add("removedOnCompletion", .bool(false)) }
        if t.speed != d.speed { add("speed", .number(t.speed)) }
        if t.timeOffset != d.timeOffset { add("timeOffset", .number(t.timeOffset)) }
        if t.additive { add("additive", .bool(true)) }
        if t.cumulative { add("cumulative", .bool(true)) }
        if !t.essential { add("essential", .bool(false)) }
        return .object(m)
    }

    /// A `TIMING` (springs as {"spring": {"mass", "stiffness", "damping", "initialVelocity"}}).
    public static func timing(_ f: TimingFunction) -> JSON {
        switch f {
        case .linear: return .string("linear")
        case let .cubicBezier(a, b, c, d): return .array([.number(a), .number(b), .number(c), .number(d)])
        case let .steps(n, p): return .object([.init(key: "steps", value: .number(Double(n))), .init(key: "position", value: .string(p.rawValue))])
        case .spring(let s):
            return .object([.init(key: "spring", value: .object([
                .init(key: "mass", value: .number(s.mass)), .init(key: "stiffness", value: .number(s.stiffness)),
                .init(key: "damping", value: .number(s.damping)), .init(key: "initialVelocity", value: .number(s.initialVelocity)),
            ]))])
        }
    }

    /// A value as scene JSON (colors as [r, g, b, a], transforms as 16 numbers, paths as SVG).
    public static func value(_ v: AnimatableValue) -> JSON {
        func nums(_ a: [Double]) -> JSON { .array(a.map { .number($0) }) }
        switch v {
        case .double(let x): return .number(x)
        case .point(let p): return nums([p.x, p.y])
        case .size(let s): return nums([s.width, s.height])
        case .rect(let r): return nums([r.origin.x, r.origin.y, r.size.width, r.size.height])
        case .color(let c): return nums([c.red, c.green, c.blue, c.alpha])
        case .transform(let t): return nums(t.rowMajor)
        case .doubles(let a): return nums(a)
        case .colors(let cs): return .array(cs.map { nums([$0.red, $0.green, $0.blue, $0.alpha]) })
        case .path(let p): return .string(p.svgData)
        }
    }
}

extension Path {
    /// SVG path data (absolute commands), exact for the element list.
    public var svgData: String {
        func n(_ v: Double) -> String { JSON.format(v) }
        return elements.map { e in
            switch e {
            case .move(let p): "M\(n(p.x)) \(n(p.y))"
            case .line(let p): "L\(n(p.x)) \(n(p.y))"
            case .quad(let c, let p): "Q\(n(c.x)) \(n(c.y)) \(n(p.x)) \(n(p.y))"
            case .cubic(let a, let b, let p): "C\(n(a.x)) \(n(a.y)) \(n(b.x)) \(n(b.y)) \(n(p.x)) \(n(p.y))"
            case .close: "Z"
            }
        }.joined(separator: " ")
    }
}
