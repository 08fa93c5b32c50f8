import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaTree

/// What the viewer's inspector (its I key) says about one layer of a frame, as plain text and
/// geometry: the model its overlay items are drawn from (`ViewerOverlay` in LaminaRender), so
/// tests can read what the panel says without reading pixels.
public struct InspectorReport: Sendable, Equatable {
    public var layer: LayerID
    /// The layer's `name` quoted when it has one (its first line, at most 40 characters), then
    /// its kind and id: "“knob” shape 1:3", or "shape 1:3" for a layer without a name.
    public var title: String
    /// Its owning client: "client 1" and the client's description (`Inspector.describe`: the
    /// name it gave in `hello`, its process), e.g. "client 1 “demo” python3 pid 4242".
    public var owner: String
    /// The on-screen quad of the layer's bounds in device pixels — the corners (minX, minY),
    /// (maxX, minY), (maxX, maxY), (minX, maxY) through the layer's full transform to the
    /// canvas, times the scale — or nil when a corner lies behind the eye.
    public var quad: [Point]?
    /// "key  value" lines of its presentation values this frame (empty unless details were
    /// asked for): geometry, transform and opacity always, then every other property of its
    /// kind whose value is not the default.
    public var properties: [String]
    /// One line per running animation (empty unless details were asked for): key, key paths,
    /// value kind, implicit or explicit, phase, iteration, progress and time.
    public var animations: [String]
}

/// Builds `InspectorReport`s from a frame's presentation tree (pure; any thread).
public enum Inspector {
    /// A client as the label describes it after "client N": its `hello` name quoted (none when
    /// empty), then its process ("python3 pid 4242") when known.
    public static func describe(name: String, process: String?) -> String {
        [name.isEmpty ? nil : "“" + name + "”", process].compactMap { $0 }.joined(separator: " ")
    }

    /// The properties every report lists, in this order.
    public static let alwaysListed = ["position", "bounds", "anchorPoint", "zPosition", "transform", "opacity"]

    /// The report of layer `id` of the presentation tree `tree` (nil when it is not there, or
    /// is a client's container). Its running animations come from `render` (the render tree,
    /// which holds them) evaluated at compositor time `time`; `names` describe the clients
    /// (`describe(name:process:)`).
    public static func report(_ id: LayerID, in tree: LayerTree, render: LayerTree? = nil, at time: Double,
                              scale: Double, names: [UInt32: String] = [:], details: Bool) -> InspectorReport? {
        guard !id.isClientRoot, let node = tree[id] else { return nil }
        let name = names[id.client] ?? ""
        var report = InspectorReport(layer: id, title: title(node),
                                     owner: name.isEmpty ? "client \(id.client)" : "client \(id.client) " + name,
                                     quad: nil, properties: [], animations: [])
        if let m = canvasTransform(of: id, in: tree) {
            let device = m.concatenating(.scale(scale, scale, 1))
            let b = node.properties.bounds.standardized
            let corners = [Point(b.minX, b.minY), Point(b.maxX, b.minY), Point(b.maxX, b.maxY), Point(b.minX, b.maxY)]
            var quad: [Point] = []
            for c in corners {
                let w = c.x * device.m14 + c.y * device.m24 + device.m44
                guard w > 1e-6 else { break }
                quad.append(Point((c.x * device.m11 + c.y * device.m21 + device.m41) / w,
                                  (c.x * device.m12 + c.y * device.m22 + device.m42) / w))
            }
            if quad.count == 4 && quad.allSatisfy(\.isFinite) { report.quad = quad }
        }
        guard details else { return report }
        report.properties = propertyLines(node)
        let local = (render ?? tree).layerTime(of: id).local(time)
        report.animations = (render?[id]?.animations ?? node.animations).filter { !$0.hasEnded }.map { line($0, at: local) }
        return report
    }

    /// A layer's title: its name quoted when it has one, then its kind and id.
    public static func title(_ node: LayerNode) -> String {
        let name = node.properties.name
        return (name.isEmpty ? "" : quoted(name) + " ") + "\(node.kind.name) \(node.id)"
    }

    /// The map from layer `id`'s bounds coordinates to canvas points, as hit testing composes
    /// it (each layer's transform to its superlayer, each superlayer's sublayer space; client
    /// containers add nothing); nil when `id` is not in the tree.
    public static func canvasTransform(of id: LayerID, in tree: LayerTree) -> Transform3D? {
        var chain: [LayerID] = []
        var at: LayerID? = id
        while let current = at {
            guard let node = tree[current], chain.count <= tree.count else { return nil }
            chain.append(current)
            at = node.superlayer
        }
        var base = Transform3D.identity   // the space of the next layer's superlayer
        var m = Transform3D.identity
        for layer in chain.reversed() {
            let p = tree[layer]!.properties
            if layer.isClientRoot {
                m = base
            } else {
                m = p.transformToSuperlayer.concatenating(base)
                base = p.sublayerSpace.concatenating(m)
            }
        }
        return m
    }

    /// "key  value" lines of `node`'s presentation values.
    static func propertyLines(_ node: LayerNode) -> [String] {
        let defaults = LayerProperties()
        var lines: [String] = []
        func add(_ keyPath: String) {
            guard let v = node.properties.value(forKeyPath: keyPath) else { return }
            lines.append(keyPath + "  " + text(v))
        }
        for k in alwaysListed { add(k) }
        for row in PropertyTable.rows where row.layers.contains(node.kind) && !alwaysListed.contains(row.keyPath) {
            let v = node.properties.value(forKeyPath: row.keyPath)
            if v != defaults.value(forKeyPath: row.keyPath) { add(row.keyPath) }
        }
        return lines
    }

    /// One animation's line at its layer's local time `time`.
    static func line(_ a: LayerAnimation, at time: Double) -> String {
        let local = time - a.beginTime
        let state = a.compiled.state(at: local)
        let kinds = Set(a.compiled.kinds.map(\.rawValue)).sorted().joined(separator: "/")
        let duration = a.compiled.timing.duration
        var s = "“\(a.key)” " + a.compiled.keyPaths.joined(separator: ", ") + " (\(kinds), "
        s += a.isImplicit ? "implicit)" : "explicit)"
        s += " \(state.phase)"
        if state.iteration > 0 { s += " #\(state.iteration + 1)" }
        s += " " + fixed(state.fraction * 100, 0) + " %"
        s += " " + fixed(state.iterationTime, 2) + "/" + fixed(duration, 2) + " s"
        return s
    }

    /// A value as the panel shows it.
    public static func text(_ v: PropertyValue) -> String {
        func n(_ x: Double) -> String { number(x) }
        switch v {
        case .number(let x): return n(x)
        case .point(let p): return "(\(n(p.x)), \(n(p.y)))"
        case .size(let s): return "\(n(s.width)) × \(n(s.height))"
        case .rect(let r): return "(\(n(r.origin.x)), \(n(r.origin.y)), \(n(r.size.width)), \(n(r.size.height)))"
        case .color(let c): return c.map(color) ?? "nil"
        case .transform(let t):
            if t.isIdentity { return "identity" }
            if t.m13 == 0 && t.m14 == 0 && t.m23 == 0 && t.m24 == 0 && t.m31 == 0 && t.m32 == 0 && t.m33 == 1
                && t.m34 == 0 && t.m43 == 0 && t.m44 == 1 {
                return "[\(n(t.m11)) \(n(t.m12)) \(n(t.m21)) \(n(t.m22)) \(n(t.m41)) \(n(t.m42))]"
            }
            return "[" + t.rowMajor.map(n).joined(separator: " ") + "]"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return quoted(s)
        case .numbers(let xs): return "[" + xs.prefix(8).map(n).joined(separator: ", ") + (xs.count > 8 ? ", …]" : "]")
        case .path(let p): return p.map { "path, \($0.elements.count) elements" } ?? "nil"
        case .colors(let cs): return "[" + cs.prefix(4).map(color).joined(separator: ", ") + (cs.count > 4 ? ", …]" : "]")
        case .template(let t): return "template " + quoted(t)
        case .text(let t): return quoted(t.string)
        case .filters(let f): return "[" + f.map(\.kind.rawValue).joined(separator: ", ") + "]"
        case .emitterCells(let c): return "[" + c.map { $0.name.isEmpty ? "cell" : $0.name }.joined(separator: ", ") + "]"
        }
    }

    static func color(_ c: Color) -> String {
        "rgba(\(number(c.red)), \(number(c.green)), \(number(c.blue)), \(number(c.alpha)))"
    }

    static func quoted(_ s: String) -> String {
        let line = s.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return "“" + (line.count > 40 ? String(line.prefix(40)) + "…" : line) + "”" + (line.count < s.count && line.count <= 40 ? "…" : "")
    }

    /// `x` with at most two decimals, trailing zeros dropped ("12", "0.5", "-3.25").
    public static func number(_ x: Double) -> String {
        var s = fixed(x, 2)
        if s.contains(".") {
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
        }
        return s == "-0" ? "0" : s
    }

    /// `value` with `digits` decimals, rounded half away from zero (no Foundation formatting:
    /// the render thread makes these); "–" when not finite.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "–" }
        var p = 1.0
        for _ in 0..<digits { p *= 10 }
        guard abs(value) * p < 9e15 else { return value < 0 ? "-∞" : "∞" }
        let n = Int((abs(value) * p).rounded())
        let whole = n / Int(p), frac = n % Int(p)
        var f = String(frac)
        while f.count < digits { f = "0" + f }
        return (value < 0 && n > 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + f : "")
    }
}
