import LaminaExpression
import LaminaModel

/// Where commits are validated: expression animations compiled, resolved and ordered
/// (path templates compile in `LayerProperties.setTemplate`).
extension ModelTree {
    /// Compiles an expression animation for layer `id` and resolves its target and references
    /// against the client's layers.
    /// - Throws: `CommitError` (`invalidAnimation`) naming the layer, the key, and for a
    ///   source error or a bad reference the position in the expression.
    func resolveExpression(_ e: ExpressionAnimation, key: String, on id: LayerID,
                           index: Int) throws(CommitError) -> LayerExpression {
        let node = nodes[existing: id]
        let prefix = "layer \(id.local) expression '\(key)'"
        func fail(_ message: String) -> CommitError {
            CommitError(code: .invalidAnimation, index: index, message: prefix + ": " + message)
        }
        guard let slot = Self.numberSlot(e.keyPath, of: node) else {
            throw fail("\(e.keyPath) is not a number property of a layer of type \(node.kind.name)")
        }
        let compiled: AnimationExpression
        do { compiled = try AnimationExpression(e.expression, limits: expressionLimits) } catch {
            throw fail(error.description)
        }
        var references: [LayerExpression.Reference] = []
        references.reserveCapacity(compiled.references.count)
        for (r, position) in zip(compiled.references, compiled.referencePositions) {
            let layer: LayerID
            switch r.layer {
            case .current: layer = id
            case .named(let name):
                guard let local = e.layers[name], local != 0, nodes.contains(LayerID(client: id.client, local: local)) else {
                    throw fail("\(position): unknown layer '\(name)'")
                }
                layer = LayerID(client: id.client, local: local)
            }
            guard let refSlot = Self.numberSlot(r.keyPath, of: nodes[existing: layer]) else {
                throw fail("\(position): \(r.keyPath) is not a number property of layer \(layer.local)")
            }
            references.append(LayerExpression.Reference(layer: layer, keyPath: r.keyPath, slot: refSlot))
        }
        return LayerExpression(key: key, animation: e, slot: slot, references: references,
                               compiled: LayerExpression.Compiled(compiled))
    }

    /// The slot of a number-valued key path the layer's kind has, or nil. A `custom.NAME` the
    /// layer has not set counts as a number: an expression may drive it (it then exists in the
    /// presentation only, so expressions can chain values through layers) and reads it as 0
    /// while nothing drives it (docs/protocol.md, "Expression animations").
    static func numberSlot(_ keyPath: String, of node: LayerNode) -> PropertySlot? {
        guard let slot = PropertySlot(keyPath: keyPath), slot.kind(in: node.properties) == .double,
              (try? PropertyTable.check(keyPath: keyPath, kind: node.kind)) != nil else { return nil }
        return slot
    }

    /// Rejects `added` on layer `id` (replacing the layer's expression with the same key)
    /// when the client's expressions would then form a dependency cycle.
    ///
    /// A new cycle has to pass through `added`, so only the expressions `added` reaches are
    /// ordered: those on the layers it reads, those on the layers they read, and so on. The
    /// work is proportional to them, not to the client's layers or other expressions.
    /// - Throws: `CommitError` naming the cycle (`layer 2 expression 'k': expression
    ///   dependency cycle: #2.opacity → #3.opacity → #2.opacity`; `#N` is local layer N), with
    ///   `dependencyCycle` set (layers as "N").
    func checkExpressionOrder(adding added: LayerExpression, on id: LayerID, index: Int) throws(CommitError) {
        var list: [(LayerID, LayerExpression)] = []
        var visited: Set<LayerID> = []
        var pending = added.references.map(\.layer)
        while let layer = pending.popLast() {
            guard visited.insert(layer).inserted, let node = nodes[layer] else { continue }
            for e in node.expressions where !(layer == id && !added.key.isEmpty && e.key == added.key) {
                list.append((layer, e))
                for r in e.references where !visited.contains(r.layer) { pending.append(r.layer) }
            }
        }
        guard !list.isEmpty || added.references.contains(where: { $0.layer == id }) else { return }
        list.append((id, added))
        do { _ = try LayerExpression.order(list) } catch {
            // Keys name layers by qualified id ("client:local"); messages use "#local".
            let locals = error.keys.map { k in
                ExpressionKey(layer: k.layer.split(separator: ":").last.map(String.init) ?? k.layer, keyPath: k.keyPath)
            }
            var e = CommitError(code: .invalidAnimation, index: index, message: "layer \(id.local) expression '\(added.key)': "
                                + DependencyCycle(keys: locals.map { ExpressionKey(layer: "#" + $0.layer, keyPath: $0.keyPath) }).description)
            e.dependencyCycle = DependencyCycle(keys: locals)
            throw e
        }
    }
}
