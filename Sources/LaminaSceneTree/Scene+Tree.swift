import Foundation
import LaminaGeometry
import LaminaModel
import LaminaTree
import LaminaWire
import Lamina
import LaminaExpression

// A scene file evaluated on a render tree, without a daemon (laminactl's `query`, `hit` and
// `render`; tests): the server side's trees applied to the client library's `Scene`.

extension Scene {
    /// The render-thread tree (model values and running animations) at scene time `t`: the
    /// scene built at 0 and every transaction with `at ≤ t` applied at its time, animations
    /// that ended by `t` removed. Its `presentation(at: t)` is what a compositor shows.
    public func tree(at t: Double) throws -> LayerTree {
        var tree = LayerTree()
        do {
            try tree.apply(Commit(client: Self.client, content: .connect))
            try tree.apply(Commit(client: Self.client, content: .operations(initialOperations)), at: 0)
            for tx in transactions where tx.at <= t {
                tree.advance(to: tx.at)
                try tree.apply(Commit(client: Self.client, content: .operations(tx.operations)), at: tx.at)
            }
        } catch {
            throw namingLayers(error)
        }
        tree.advance(to: t)
        return tree
    }

    /// `error` with an expression dependency cycle said in the scene's layer names
    /// (`layer "b" expression 'k': expression dependency cycle: b.opacity → a.opacity →
    /// b.opacity`) rather than local ids.
    public func namingLayers(_ error: CommitError) -> CommitError {
        guard let cycle = error.dependencyCycle else { return error }
        func name(_ local: String) -> String {
            UInt32(local).flatMap { layerNames[$0] } ?? "#" + local
        }
        var named = error
        let prefixEnd = error.message.range(of: ": expression dependency cycle")?.lowerBound
        var prefix = prefixEnd.map { String(error.message[..<$0]) } ?? ""
        // "layer N expression 'k'" → "layer "name" expression 'k'".
        if let r = prefix.range(of: #"^layer [0-9]+"#, options: .regularExpression),
           let local = prefix[r].split(separator: " ").last, let n = UInt32(local), let nm = layerNames[n] {
            prefix.replaceSubrange(r, with: "layer \"\(nm)\"")
        }
        let keys = cycle.keys.map { ExpressionKey(layer: name($0.layer), keyPath: $0.keyPath) }
        named.message = (prefix.isEmpty ? "" : prefix + ": ") + DependencyCycle(keys: keys).description
        return named
    }

    /// Presentation values at scene time `t` for `NAME.KEYPATH` arguments, as JSON values
    /// (numbers; lists for points, sizes, rects and colors [r, g, b, a]; 16 numbers for
    /// transforms; null for no color).
    public func query(_ arguments: [String], at t: Double) throws -> JSON {
        let presentation = try tree(at: t).presentation(at: t)
        var members: [JSON.Member] = []
        for arg in arguments {
            guard let dot = arg.firstIndex(of: "."), let id = layerID(named: String(arg[..<dot])) else {
                throw SceneError(path: arg, "must be NAME.KEYPATH with a layer name of the scene")
            }
            let keyPath = String(arg[arg.index(after: dot)...])
            guard let v = presentation[id]?.properties.value(forKeyPath: keyPath) else {
                throw SceneError(path: arg, "unknown key path '\(keyPath)'")
            }
            members.append(JSON.Member(key: arg, value: v.json))
        }
        return .object(members)
    }

    /// The name of the topmost layer under canvas point `p` at scene time `t` in the
    /// presentation tree (nil when no layer, or an unnamed one, is hit).
    public func hitTest(_ p: Point, at t: Double) throws -> String? {
        let presentation = try tree(at: t).presentation(at: t)
        guard let id = presentation.hitTest(p) else { return nil }
        return layerNames[id.local]
    }
}
