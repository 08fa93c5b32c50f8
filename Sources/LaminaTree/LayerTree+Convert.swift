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
}
