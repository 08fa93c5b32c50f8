import LaminaAnimation
import LaminaModel

/// docs/scene-format.md's transitions, `{"insertion": T, "removal": T}` with T one of
/// `"identity"`, `"opacity"`, `"slide"`, `{"scale": s}`, `{"offset": [dx, dy]}`,
/// `{"move": EDGE}`, `{"combined": [T, …]}`. Used by the scene loader and by the protocol's
/// `setTransitions` request (whose body carries it as JSON text).
public enum TransitionJSON {
    /// Decodes `{"insertion": T, "removal": T}` (either may be left out: identity).
    public static func decode(_ j: JSON, _ path: String) throws(SceneError) -> LayerTransitions {
        let f = try SceneValues.Fields(j, path, allowed: ["insertion", "removal"])
        var t = LayerTransitions()
        if let v = f["insertion"] { t.insertion = try transition(v, f.at("insertion"), depth: 0) }
        if let v = f["removal"] { t.removal = try transition(v, f.at("removal"), depth: 0) }
        return t
    }

    public static func decode(text: String, path: String = "") throws(SceneError) -> LayerTransitions {
        try decode(JSON.parse(text), path)
    }

    /// Decodes a transaction's CATransition, `{"layer": NAME, "type": …, "subtype": …,
    /// "duration": s, "timingFunction": TIMING}` (subtype `fromLeft`, duration and timing the
    /// transaction's when left out): the layer's name and the transition.
    public static func contentTransition(_ j: JSON, _ path: String,
                                         settings: TransactionSettings) throws(SceneError) -> (layer: String, ContentTransition) {
        let f = try SceneValues.Fields(j, path, allowed: ["layer", "type", "subtype", "duration", "timingFunction"])
        guard let l = f["layer"] else { throw SceneError(path: f.at("layer"), "is required") }
        let layer = try SceneValues.string(l, f.at("layer"))
        guard let tv = f["type"] else { throw SceneError(path: f.at("type"), "is required") }
        let typeName = try SceneValues.string(tv, f.at("type"))
        guard let type = ContentTransition.Kind(rawValue: typeName) else {
            throw SceneError(path: f.at("type"), "unknown transition type \"\(typeName)\" (fade, moveIn, push, reveal)")
        }
        var subtype = ContentTransition.Subtype.fromLeft
        if let sv = f["subtype"] {
            let name = try SceneValues.string(sv, f.at("subtype"))
            guard let s = ContentTransition.Subtype(rawValue: name) else {
                throw SceneError(path: f.at("subtype"), "unknown transition subtype \"\(name)\" (fromLeft, fromRight, fromTop, fromBottom)")
            }
            subtype = s
        }
        var t = ContentTransition(type: type, subtype: subtype, duration: settings.duration, timingFunction: settings.timingFunction)
        if let d = f["duration"] { t.duration = try SceneValues.nonNegative(d, f.at("duration")) }
        if let tf = f["timingFunction"] { t.timingFunction = try SceneValues.timing(tf, f.at("timingFunction")) }
        if let problem = t.problem { throw SceneError(path: f.at("duration"), problem) }
        return (layer, t)
    }

    /// Decodes one T.
    public static func transition(_ j: JSON, _ path: String, depth: Int) throws(SceneError) -> LayerTransition {
        let forms = "must be \"identity\", \"opacity\", \"slide\", {\"scale\": s}, {\"offset\": [dx, dy]}, {\"move\": EDGE} or {\"combined\": [T, …]}"
        if case .string(let s) = j {
            switch s {
            case "identity": return .identity
            case "opacity": return .opacity
            case "slide": return .slide
            default: throw SceneError(path: path, forms)
            }
        }
        guard case .object(let members) = j, members.count == 1, let m = members.first else { throw SceneError(path: path, forms) }
        let mp = SceneValues.join(path, m.key)
        switch m.key {
        case "scale":
            let s = try SceneValues.number(m.value, mp)
            guard s.isFinite, s >= 0 else { throw SceneError(path: mp, "must be ≥ 0") }
            return .scale(s)
        case "offset":
            let d = try SceneValues.numbers(m.value, mp, count: 2)
            guard d.allSatisfy(\.isFinite) else { throw SceneError(path: mp, "must be finite") }
            return .offset(d[0], d[1])
        case "move":
            let s = try SceneValues.string(m.value, mp)
            guard let edge = LayerTransition.Edge(rawValue: s) else {
                throw SceneError(path: mp, "must be \"leading\", \"trailing\", \"top\" or \"bottom\"")
            }
            return .move(edge)
        case "combined":
            guard depth < LayerTransition.maxDepth else { throw SceneError(path: mp, "combined nests at most \(LayerTransition.maxDepth) deep") }
            guard case .array(let list) = m.value, list.count <= LayerTransition.maxCount else {
                throw SceneError(path: mp, "must be a list of at most \(LayerTransition.maxCount) transitions")
            }
            var out: [LayerTransition] = []
            for (i, e) in list.enumerated() { out.append(try transition(e, "\(mp)[\(i)]", depth: depth + 1)) }
            let t = LayerTransition.combined(out)
            if let problem = t.problem { throw SceneError(path: mp, problem) }
            return t
        default: throw SceneError(path: path, forms)
        }
    }

    /// One T as JSON.
    public static func encode(_ t: LayerTransition) -> JSON {
        func one(_ key: String, _ v: JSON) -> JSON { .object([JSON.Member(key: key, value: v)]) }
        switch t {
        case .identity: return .string("identity")
        case .opacity: return .string("opacity")
        case .slide: return .string("slide")
        case .scale(let s): return one("scale", .number(s))
        case .offset(let dx, let dy): return one("offset", .array([.number(dx), .number(dy)]))
        case .move(let e): return one("move", .string(e.rawValue))
        case .combined(let list): return one("combined", .array(list.map(encode)))
        }
    }

    /// `{"insertion": T, "removal": T}` as JSON.
    public static func encode(_ t: LayerTransitions) -> JSON {
        .object([JSON.Member(key: "insertion", value: encode(t.insertion)),
                 JSON.Member(key: "removal", value: encode(t.removal))])
    }
}
