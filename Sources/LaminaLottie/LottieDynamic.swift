import LaminaWire

/// A named scene layer that Lottie key paths reach: a Lottie layer (its transform layer) or a
/// fill or stroke (its shape layer) or a gradient fill or stroke (its gradient layer), with its key path — the names (`nm`) of the enclosing
/// precomp layers, the layer, its shape groups and the style.
public struct LottieTarget: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case layer, fill, stroke, gradient }
    public var keyPath: [String]
    public var layer: String
    public var kind: Kind
}

/// One layer's part of a dynamic property change: model values to set and, when the
/// property was animated, the layer's `lottie` group again without that property's
/// animations (begun so that its phase is unchanged).
public struct LottieChange: Sendable, Equatable {
    public var layer: String
    public var set: [String: JSON]
    public var animation: JSON?
}

extension LottieImport {
    /// lottie-ios' key path matching: components split at ".", `*` matches one component,
    /// `**` any number (none included).
    public static func matches(_ pattern: [String], _ path: [String]) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == "**" {
            for skip in 0...path.count where matches(Array(pattern.dropFirst()), Array(path.dropFirst(skip))) { return true }
            return false
        }
        guard let head = path.first, first == "*" || first == head else { return false }
        return matches(Array(pattern.dropFirst()), Array(path.dropFirst()))
    }

    /// A dynamic property (lottie-ios' `setValueProvider`): `keyPath` is a Lottie key path whose
    /// last component is the property — `Color` (r, g, b in 0…1) and `Opacity` (percent) of
    /// fills and strokes (an opacity keeps the colour the file starts with, a colour the
    /// opacity), `Stroke Width` of strokes, `Opacity` of gradient fills and strokes, `Opacity`, `Position` (x, y), `Scale`
    /// (percent, x and y) and `Rotation` (degrees) of layers. The value replaces the
    /// property's animation from now on; `rangeTime` is the playback clock's time into the
    /// range now (`LottieClock.localTime(at:)`), so that the animations the layer keeps go on
    /// in step. An error names a key path that reaches nothing or a value of the wrong size.
    public func dynamicChanges(_ keyPath: String, _ value: [Double], rangeTime: Double) throws(SceneError) -> [LottieChange] {
        var parts = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 2, let property = parts.popLast() else {
            throw SceneError(path: keyPath, "a key path is names then a property (\"**.Fill 1.Color\")")
        }
        let hits = targets.filter { Self.matches(parts, $0.keyPath) }
        var out: [LottieChange] = []
        for t in hits {
            let layerJSON = Self.layer(named: t.layer, in: scene)
            func member(_ k: String) -> JSON? {
                if case .object(let m)? = layerJSON { return m.first(where: { $0.key == k })?.value }
                return nil
            }
            func need(_ n: Int) throws(SceneError) {
                guard value.count >= n, value.prefix(n).allSatisfy(\.isFinite) else {
                    throw SceneError(path: keyPath, "needs \(n) finite number\(n == 1 ? "" : "s")")
                }
            }
            var set: [String: JSON] = [:]
            var removed: Set<String> = []
            switch (t.kind, property) {
            case (.fill, "Color"), (.stroke, "Color"):
                try need(3)
                let k = t.kind == .fill ? "fillColor" : "strokeColor"
                let alpha = member(k)?.numbers.last ?? 1
                set[k] = colorJSON(Array(value.prefix(3)), alpha: alpha); removed.insert(k)
            case (.fill, "Opacity"), (.stroke, "Opacity"):
                try need(1)
                let k = t.kind == .fill ? "fillColor" : "strokeColor"
                let rgb = Array((member(k)?.numbers ?? [0, 0, 0, 1]).prefix(3))
                set[k] = colorJSON(rgb, alpha: value[0] / 100); removed.insert(k)
            case (.stroke, "Stroke Width"):
                try need(1)
                set["lineWidth"] = num(max(value[0], 0)); removed.insert("lineWidth")
            case (.layer, "Opacity"), (.gradient, "Opacity"):
                try need(1)
                set["opacity"] = num(min(max(value[0] / 100, 0), 1)); removed.insert("opacity")
            case (.layer, "Position"):
                try need(2)
                set["position"] = nums([value[0], value[1]]); removed.formUnion(["position", "position.x", "position.y"])
            case (.layer, "Rotation"):
                try need(1)
                set["transform.rotation.z"] = num(value[0] * .pi / 180); removed.insert("transform.rotation.z")
            case (.layer, "Scale"):
                try need(1)
                set["transform.scale.x"] = num(value[0] / 100)
                set["transform.scale.y"] = num((value.count > 1 ? value[1] : value[0]) / 100)
                removed.formUnion(["transform.scale.x", "transform.scale.y"])
            default: continue
            }
            var animation: JSON? = nil
            if case .object(let anims)? = member("animations"), let g = anims.first(where: { $0.key == "lottie" })?.value,
               Self.drives(g, removed) {
                animation = Self.shifted(Self.without(g, removed), by: -rangeTime)
            }
            out.append(LottieChange(layer: t.layer, set: set, animation: animation))
        }
        guard !out.isEmpty else { throw SceneError(path: keyPath, "reaches no \(property) of any layer, fill or stroke") }
        return out
    }

    /// The scene layer object of a name (a depth-first walk).
    static func layer(named name: String, in json: JSON) -> JSON? {
        guard case .object(let m) = json else { return nil }
        if m.contains(where: { $0.key == "name" && $0.value == .string(name) }) { return json }
        for member in m where member.key == "layers" || member.key == "sublayers" || member.key == "mask" {
            if case .array(let list) = member.value {
                for l in list { if let hit = layer(named: name, in: l) { return hit } }
            } else if let hit = layer(named: name, in: member.value) { return hit }
        }
        return nil
    }

    static func keyPath(of animation: JSON) -> String? {
        if case .object(let m) = animation, case .string(let k)? = m.first(where: { $0.key == "keyPath" })?.value { return k }
        return nil
    }

    static func children(of animation: JSON) -> [JSON] {
        if case .object(let m) = animation, case .array(let a)? = m.first(where: { $0.key == "animations" })?.value { return a }
        return []
    }

    /// Whether an animation (a group's leaves) drives one of the key paths.
    static func drives(_ animation: JSON, _ keyPaths: Set<String>) -> Bool {
        if let k = keyPath(of: animation) { return keyPaths.contains(k) }
        return children(of: animation).contains { drives($0, keyPaths) }
    }

    /// A group without the leaves that drive the key paths.
    static func without(_ animation: JSON, _ keyPaths: Set<String>) -> JSON {
        guard case .object(let m) = animation else { return animation }
        return .object(m.map { member in
            guard member.key == "animations", case .array(let a) = member.value else { return member }
            return JSON.Member(key: "animations", value: .array(a.filter { !drives($0, keyPaths) || keyPath(of: $0) == nil }
                .map { without($0, keyPaths) }))
        })
    }

    /// The group with its `beginTime` moved by `delta` seconds.
    static func shifted(_ animation: JSON, by delta: Double) -> JSON {
        guard case .object(var m) = animation else { return animation }
        if let i = m.firstIndex(where: { $0.key == "beginTime" }), case .number(let b) = m[i].value {
            m[i] = JSON.Member(key: "beginTime", value: .number(b + delta))
        } else {
            m.insert(JSON.Member(key: "beginTime", value: .number(delta)), at: 1)
        }
        return .object(m)
    }
}
