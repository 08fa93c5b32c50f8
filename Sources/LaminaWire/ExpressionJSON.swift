import LaminaAnimation
import LaminaModel

/// The expression animation form of docs/scene-format.md's ANIMATION:
/// `{"type": "expression", "keyPath": K, "expression": "…", "layers": {"NAME": ID, …}}`.
/// On the wire it travels as an `addAnimation` request's JSON like every other animation;
/// `layers` names the client's layers the expression reads (`NAME.KEYPATH` → local id ID).
/// Scene files leave `layers` out: the loader fills it from the scene's layer names.
public enum ExpressionJSON {
    /// Whether `j` is an object whose `type` is `"expression"`.
    public static func isExpression(_ j: JSON) -> Bool {
        guard case .object(let m) = j, let t = m.first(where: { $0.key == "type" }), case .string("expression") = t.value
        else { return false }
        return true
    }

    /// Decodes an expression animation at JSON path `path`.
    public static func decode(_ j: JSON, _ path: String) throws(SceneError) -> ExpressionAnimation {
        let f = try SceneValues.Fields(j, path, allowed: ["type", "keyPath", "expression", "layers"])
        guard let t = f["type"], case .string("expression") = t else { throw SceneError(path: f.at("type"), "must be \"expression\"") }
        guard let k = f["keyPath"] else { throw SceneError(path: f.at("keyPath"), "is required") }
        guard let e = f["expression"] else { throw SceneError(path: f.at("expression"), "is required") }
        let keyPath = try SceneValues.string(k, f.at("keyPath"))
        guard PropertySlot(keyPath: keyPath) != nil else {
            throw SceneError(path: f.at("keyPath"), "unknown or non-animatable key path '\(keyPath)'")
        }
        var layers: [String: UInt32] = [:]
        if let l = f["layers"] {
            guard case .object(let members) = l else { throw SceneError(path: f.at("layers"), "must be an object of NAME: layer id") }
            for m in members {
                // A name is read by the expression as an identifier: a letter or `_`, then
                // letters, digits and `_` (ASCII).
                guard Self.isName(m.key) else {
                    throw SceneError(path: f.at("layers"), "'\(m.key)' is not a layer name (a letter or _, then letters, digits and _)")
                }
                // `self.KEYPATH` always reads the animated layer.
                guard m.key != "self" else { throw SceneError(path: f.at("layers"), "'self' is reserved (the animated layer)") }
                let v = try SceneValues.number(m.value, f.at("layers") + "." + m.key)
                guard v >= 1, v <= Double(UInt32.max), v.rounded() == v else {
                    throw SceneError(path: f.at("layers") + "." + m.key, "must be a layer id (an integer ≥ 1)")
                }
                layers[m.key] = UInt32(v)
            }
        }
        return ExpressionAnimation(keyPath: keyPath, expression: try SceneValues.string(e, f.at("expression")), layers: layers)
    }

    /// Whether `name` can name a layer in `layers`: `[A-Za-z_][A-Za-z0-9_]*`.
    public static func isName(_ name: String) -> Bool {
        let u = Array(name.utf8)
        func letter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || c == 0x5F }
        guard let first = u.first, letter(first) else { return false }
        return u.allSatisfy { letter($0) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// The animation as JSON (names in `layers` sorted, for a stable text).
    public static func encode(_ e: ExpressionAnimation) -> JSON {
        var members = [JSON.Member(key: "type", value: .string("expression")),
                       JSON.Member(key: "keyPath", value: .string(e.keyPath)),
                       JSON.Member(key: "expression", value: .string(e.expression))]
        if !e.layers.isEmpty {
            members.append(JSON.Member(key: "layers", value: .object(e.layers.sorted { $0.key < $1.key }.map {
                JSON.Member(key: $0.key, value: .number(Double($0.value)))
            })))
        }
        return .object(members)
    }
}

extension AnimationJSON {
    /// The layer operation an `addAnimation` request's JSON stands for: an explicit animation,
    /// or (`"type": "expression"`) an expression animation.
    public static func operation(layer id: UInt32, key: String, text: String) throws(SceneError) -> LayerChange {
        let j = try JSON.parse(text)
        if ExpressionJSON.isExpression(j) {
            return .addExpression(id, key: key, expression: try ExpressionJSON.decode(j, "animation"))
        }
        let animation = try decode(j, "animation")
        try checkAlone(animation)
        return .addAnimation(id, key: key, animation: animation)
    }

    /// Checks what can be checked of an animation without its layer, as the commit checks it
    /// (`Animation.compile`, each key path's value kind as every layer has it): timing and
    /// spring ranges, key times, values against their key paths. What needs the layer — its
    /// kind having the property, a `custom.NAME` property's value (which decides the type an
    /// animation of it must have) — is left to the commit. Any animation that reads a
    /// `custom.NAME` key path is left to the commit whole once a check fails.
    public static func checkAlone(_ animation: Animation) throws(SceneError) {
        var readsCustom = false
        do {
            _ = try animation.compile { keyPath in
                if keyPath.hasPrefix("custom.") { readsCustom = true; return nil }
                return PropertySlot(keyPath: keyPath)?.kind(in: LayerProperties())
            }
        } catch {
            if readsCustom { return }
            throw SceneError(path: "animation", error.description)
        }
    }
}
