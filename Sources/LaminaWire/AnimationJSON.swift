import LaminaAnimation
import LaminaGeometry
import LaminaModel

/// docs/scene-format.md's ANIMATION form, decoded into an `Animation` description. Used by the
/// scene loader and by the protocol's `addAnimation` request (whose body carries it as JSON).
public enum AnimationJSON {
    static let timingFields: Set<String> = [
        "type", "duration", "beginTime", "timingFunction", "repeatCount", "repeatDuration", "autoreverses",
        "fillMode", "removedOnCompletion", "speed", "timeOffset", "additive", "cumulative", "essential",
    ]

    /// The kind of a key path's values for decoding (`custom.NAME`: inferred from the JSON).
    public static func kind(of keyPath: String, _ path: String) throws(SceneError) -> AnimatableValue.Kind? {
        guard let slot = PropertySlot(keyPath: keyPath) else {
            throw SceneError(path: path, "unknown or non-animatable key path '\(keyPath)'")
        }
        if case .custom = slot { return nil }
        return slot.kind(in: LayerProperties())
    }

    /// Parses JSON text holding one ANIMATION.
    public static func decode(text: String, path: String = "") throws(SceneError) -> Animation {
        try decode(JSON.parse(text), path)
    }

    /// Decodes one ANIMATION at JSON path `path`.
    public static func decode(_ j: JSON, _ path: String) throws(SceneError) -> Animation {
        guard case .object = j else { throw SceneError(path: path, "must be an object (got \(j.typeName))") }
        let probe = try SceneValues.Fields(j, path, allowed: Set((j.objectKeys)))
        guard let typeJSON = probe["type"] else { throw SceneError(path: probe.at("type"), "is required") }
        let type = try SceneValues.string(typeJSON, probe.at("type"))
        let extra: Set<String>
        switch type {
        case "basic": extra = ["keyPath", "from", "to", "by"]
        case "keyframe": extra = ["keyPath", "values", "keyTimes", "timingFunctions", "calculationMode", "path"]
        case "spring": extra = ["keyPath", "from", "to", "by", "mass", "stiffness", "damping", "initialVelocity",
                                "perceptualDuration", "bounce"]
        case "group": extra = ["animations"]
        case "keyframes": extra = ["tracks"]
        case "phases": extra = ["phases", "repeat"]
        default:
            throw SceneError(path: probe.at("type"), "must be \"basic\", \"keyframe\", \"spring\", \"group\", \"keyframes\" or \"phases\"")
        }
        let f = try SceneValues.Fields(j, path, allowed: timingFields.union(extra))
        let timing = try self.timing(f)
        switch type {
        case "basic":
            let (keyPath, kind) = try self.keyPath(f)
            let from = try f["from"].map { v throws(SceneError) in try SceneValues.animatable(kind, v, f.at("from")) }
            let to = try f["to"].map { v throws(SceneError) in try SceneValues.animatable(kind, v, f.at("to")) }
            let by = try f["by"].map { v throws(SceneError) in try SceneValues.animatable(kind, v, f.at("by")) }
            return .basic(BasicAnimation(keyPath: keyPath, from: from, to: to, by: by, timing: timing))
        case "keyframe":
            let (keyPath, kind) = try self.keyPath(f)
            var values: [AnimatableValue] = []
            if let v = f["values"] {
                guard case .array(let a) = v else { throw SceneError(path: f.at("values"), "must be a list of values") }
                for (i, e) in a.enumerated() { values.append(try SceneValues.animatable(kind, e, SceneValues.index(f.at("values"), i))) }
            }
            var path: Path? = nil
            if let p = f["path"] {
                guard kind == .point else { throw SceneError(path: f.at("path"), "is only for point key paths") }
                guard f["values"] == nil else { throw SceneError(path: f.at("path"), "cannot be given with values") }
                path = try SceneValues.path(p, f.at("path"))
            }
            let keyTimes = try f["keyTimes"].map { v throws(SceneError) in try SceneValues.numbers(v, f.at("keyTimes")) }
            var functions: [TimingFunction]? = nil
            if let tf = f["timingFunctions"] {
                guard case .array(let a) = tf else { throw SceneError(path: f.at("timingFunctions"), "must be a list of timing functions") }
                var out: [TimingFunction] = []
                for (i, e) in a.enumerated() { out.append(try SceneValues.timing(e, SceneValues.index(f.at("timingFunctions"), i))) }
                functions = out
            }
            let mode = try f["calculationMode"].map { v throws(SceneError) in
                try SceneValues.named(v, f.at("calculationMode"), CalculationMode.self)
            } ?? .linear
            return .keyframe(KeyframeAnimation(keyPath: keyPath, values: values, path: path, keyTimes: keyTimes,
                                               timingFunctions: functions, calculationMode: mode, timing: timing))
        case "spring":
            let (keyPath, kind) = try self.keyPath(f)
            let from = try f["from"].map { v throws(SceneError) in try SceneValues.animatable(kind, v, f.at("from")) }
            let to = try f["to"].map { v throws(SceneError) in try SceneValues.animatable(kind, v, f.at("to")) }
            let by = try f["by"].map { v throws(SceneError) in try SceneValues.animatable(kind, v, f.at("by")) }
            let spring = try SceneValues.spring(f)
            return .spring(SpringAnimation(keyPath: keyPath, from: from, to: to, by: by, spring: spring, timing: timing))
        case "group":
            guard let a = f["animations"] else { throw SceneError(path: f.at("animations"), "is required") }
            guard case .array(let list) = a else { throw SceneError(path: f.at("animations"), "must be a list of animations") }
            var children: [Animation] = []
            for (i, e) in list.enumerated() { children.append(try decode(e, SceneValues.index(f.at("animations"), i))) }
            return .group(AnimationGroup(animations: children, timing: timing))
        case "keyframes":
            guard let t = f["tracks"] else { throw SceneError(path: f.at("tracks"), "is required") }
            guard case .object(let members) = t else { throw SceneError(path: f.at("tracks"), "must be an object of key paths") }
            var tracks: [KeyframeTrack] = []
            for m in members {
                let tp = SceneValues.join(f.at("tracks"), m.key)
                let kind = try self.kind(of: m.key, tp)
                guard case .array(let frames) = m.value else { throw SceneError(path: tp, "must be a list of keyframes") }
                var keyframes: [Keyframe] = []
                for (i, e) in frames.enumerated() { keyframes.append(try keyframe(e, SceneValues.index(tp, i), kind)) }
                tracks.append(KeyframeTrack(keyPath: m.key, keyframes: keyframes))
            }
            return .keyframeTracks(KeyframeTracksAnimation(tracks: tracks, timing: timing))
        default: // phases
            guard let p = f["phases"] else { throw SceneError(path: f.at("phases"), "is required") }
            guard case .array(let list) = p else { throw SceneError(path: f.at("phases"), "must be a list of phases") }
            var phases: [Phase] = []
            for (i, e) in list.enumerated() {
                let pp = SceneValues.index(f.at("phases"), i)
                let pf = try SceneValues.Fields(e, pp, allowed: ["values", "animation", "duration"])
                guard let v = pf["values"], case .object(let vm) = v else { throw SceneError(path: pf.at("values"), "must be an object of key paths") }
                var values: [String: AnimatableValue] = [:]
                for m in vm {
                    let vp = SceneValues.join(pf.at("values"), m.key)
                    values[m.key] = try SceneValues.animatable(try kind(of: m.key, vp), m.value, vp)
                }
                var curve = TimingFunction.easeInEaseOut
                if let a = pf["animation"] { curve = try SceneValues.timing(a, pf.at("animation")) }
                let duration = try pf["duration"].map { v throws(SceneError) in try SceneValues.nonNegative(v, pf.at("duration")) }
                phases.append(Phase(values: values, curve: curve, duration: duration))
            }
            let repeats = try f["repeat"].map { v throws(SceneError) in try SceneValues.bool(v, f.at("repeat")) } ?? true
            return .phases(PhaseAnimation(phases: phases, repeats: repeats, timing: timing))
        }
    }

    static func keyPath(_ f: SceneValues.Fields) throws(SceneError) -> (String, AnimatableValue.Kind?) {
        guard let k = f["keyPath"] else { throw SceneError(path: f.at("keyPath"), "is required") }
        let s = try SceneValues.string(k, f.at("keyPath"))
        return (s, try kind(of: s, f.at("keyPath")))
    }

    static func keyframe(_ j: JSON, _ path: String, _ kind: AnimatableValue.Kind?) throws(SceneError) -> Keyframe {
        guard case .object(let m) = j, let first = m.first(where: { ["linear", "cubic", "spring", "move"].contains($0.key) }) else {
            throw SceneError(path: path, "must be {\"linear\"|\"cubic\"|\"spring\": V, \"duration\": s} or {\"move\": V}")
        }
        let allowed: Set<String> = first.key == "move" ? ["move"] : first.key == "spring" ? ["spring", "duration", "bounce"] : [first.key, "duration"]
        let f = try SceneValues.Fields(j, path, allowed: allowed)
        let v = try SceneValues.animatable(kind, first.value, f.at(first.key))
        if first.key == "move" { return .move(v) }
        guard let dj = f["duration"] else { throw SceneError(path: f.at("duration"), "is required") }
        let d = try SceneValues.nonNegative(dj, f.at("duration"))
        switch first.key {
        case "linear": return .linear(v, duration: d)
        case "cubic": return .cubic(v, duration: d)
        default:
            let b = try f["bounce"].map { x throws(SceneError) in try SceneValues.number(x, f.at("bounce")) } ?? 0
            return .spring(v, duration: d, bounce: b)
        }
    }

    /// The timing fields every kind has.
    static func timing(_ f: SceneValues.Fields) throws(SceneError) -> AnimationTiming {
        var t = AnimationTiming()
        if let v = f["duration"] { t.duration = try SceneValues.nonNegative(v, f.at("duration")) }
        if let v = f["beginTime"] { t.beginTime = try SceneValues.number(v, f.at("beginTime")) }
        if let v = f["timingFunction"] { t.timingFunction = try SceneValues.timing(v, f.at("timingFunction")) }
        if let v = f["repeatCount"] {
            if case .string(let s) = v {
                guard s == "infinity" else { throw SceneError(path: f.at("repeatCount"), "must be a number ≥ 0 or \"infinity\"") }
                t.repeatCount = .infinity
            } else {
                t.repeatCount = try SceneValues.nonNegative(v, f.at("repeatCount"))
            }
        }
        if let v = f["repeatDuration"] { t.repeatDuration = try SceneValues.nonNegative(v, f.at("repeatDuration")) }
        if let v = f["autoreverses"] { t.autoreverses = try SceneValues.bool(v, f.at("autoreverses")) }
        if let v = f["fillMode"] { t.fillMode = try SceneValues.named(v, f.at("fillMode"), FillMode.self) }
        if let v = f["removedOnCompletion"] { t.removedOnCompletion = try SceneValues.bool(v, f.at("removedOnCompletion")) }
        if let v = f["speed"] { t.speed = try SceneValues.number(v, f.at("speed")) }
        if let v = f["timeOffset"] { t.timeOffset = try SceneValues.number(v, f.at("timeOffset")) }
        if let v = f["additive"] { t.additive = try SceneValues.bool(v, f.at("additive")) }
        if let v = f["cumulative"] { t.cumulative = try SceneValues.bool(v, f.at("cumulative")) }
        if let v = f["essential"] { t.essential = try SceneValues.bool(v, f.at("essential")) }
        return t
    }
}

extension JSON {
    var objectKeys: [String] {
        if case .object(let m) = self { return m.map(\.key) }
        return []
    }
}
