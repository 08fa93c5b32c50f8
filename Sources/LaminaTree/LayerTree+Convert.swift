import LaminaGeometry
import LaminaModel

extension LayerTree {
    /// The transform from a layer's bounds coordinates to the canvas, composed as hit testing
    /// and drawing compose it (each layer's `transformToSuperlayer`, each superlayer's
    /// `sublayerSpace`; client containers and the root add nothing). Nil for an unknown layer.
    public func transformToCanvas(of id: LayerID) -> Transform3D? {
        guard let node = nodes[id] else { return nil }
        let parentBase = node.superlayer.flatMap { sublayerBase(of: $0) } ?? .identity
        return id.isClientRoot ? parentBase : node.properties.transformToSuperlayer.concatenating(parentBase)
    }

    /// The map from a layer's sublayers' superlayer space to the canvas.
    private func sublayerBase(of id: LayerID) -> Transform3D? {
        guard let node = nodes[id], let toCanvas = transformToCanvas(of: id) else { return nil }
        return id.isClientRoot ? toCanvas : node.properties.sublayerSpace.concatenating(toCanvas)
    }

    /// A canvas point in a layer's bounds coordinates (`CALayer.convert(_:from: nil)`): the
    /// point of the layer's plane that lands on it, as hit testing finds it. Nil for an unknown
    /// layer, or when no point of the plane lands there in front of the eye.
    public func convertFromCanvas(_ point: Point, to id: LayerID) -> Point? {
        guard let m = transformToCanvas(of: id) else { return nil }
        return id.isClientRoot ? point : Self.unproject(point, m)
    }

    /// `convertFromCanvas(point, to:)` for `id` and each of its superlayers, innermost first, up
    /// to the compositor's root, in one walk from the root down (O(depth), where asking each
    /// layer alone would compose its chain again: O(depth²)). The same values, composed in the
    /// same order. Empty for an unknown layer.
    public func convertFromCanvasAlongSuperlayers(_ point: Point, of id: LayerID) -> [(id: LayerID, point: Point?)] {
        var chain: [LayerID] = []
        var next: LayerID? = id
        while let cur = next, let node = nodes[cur] {
            chain.append(cur)
            next = node.superlayer
        }
        var result = [(id: LayerID, point: Point?)](repeating: (id, nil), count: chain.count)
        var parentBase = Transform3D.identity
        for i in chain.indices.reversed() {
            let cur = chain[i]
            let properties = nodes[cur]!.properties
            let toCanvas = cur.isClientRoot ? parentBase : properties.transformToSuperlayer.concatenating(parentBase)
            result[i] = (cur, cur.isClientRoot ? point : Self.unproject(point, toCanvas))
            parentBase = cur.isClientRoot ? toCanvas : properties.sublayerSpace.concatenating(toCanvas)
        }
        return result
    }
}
