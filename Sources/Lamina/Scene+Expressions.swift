import LaminaExpression
import LaminaModel
import LaminaWire

extension Scene.Builder {
    /// Stages an expression animation (`{"type": "expression", …}`): its source is compiled
    /// here to report syntax errors with the scene path, and the layer names it reads are
    /// given their scene ids (`ExpressionAnimation.layers`). Everything else (key paths,
    /// cycles) is checked where the commit is validated.
    mutating func addExpression(_ e: ExpressionAnimation, key: String, _ id: UInt32, _ path: String) throws(SceneError) {
        guard e.layers.isEmpty else {
            throw SceneError(path: path + ".layers", "is filled from the scene's layer names; leave it out")
        }
        if deferExpressions {
            deferred.append((id, key, e, path))
        } else {
            operations.append(.addExpression(id, key: key, expression: try resolved(e, path)))
        }
    }

    /// The deferred expression animations of the initial layers, now that every name is known.
    mutating func addDeferredExpressions() throws(SceneError) {
        deferExpressions = false
        for d in deferred { operations.append(.addExpression(d.id, key: d.key, expression: try resolved(d.expression, d.path))) }
        deferred = []
    }

    /// `e` with `layers` naming the scene layers its source reads.
    func resolved(_ e: ExpressionAnimation, _ path: String) throws(SceneError) -> ExpressionAnimation {
        let compiled: AnimationExpression
        do { compiled = try AnimationExpression(e.expression) } catch {
            throw SceneError(path: path + ".expression", error.description)
        }
        var out = e
        for (r, position) in zip(compiled.references, compiled.referencePositions) {
            guard case .named(let name) = r.layer else { continue }
            guard let id = names[name] else {
                throw SceneError(path: path + ".expression", "\(position): no layer is named \"\(name)\"")
            }
            out.layers[name] = id
        }
        return out
    }
}
