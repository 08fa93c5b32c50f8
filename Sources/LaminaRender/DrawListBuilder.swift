import LaminaGeometry
import LaminaTree

/// Turns a layer tree (the presentation tree at a frame time) into a `DrawList`.
///
/// CALayer geometry: a layer's bounds coordinates map into its superlayer's by moving the
/// anchor point to the origin, applying `transform` about it and placing it at `position`;
/// then the superlayer's `sublayerTransform` (about its anchor point) applies. Canvas points
/// become device pixels by `scale`. Opacity multiplies down the tree; hidden layers and
/// their sublayers draw nothing. Render thread only (it reuses its buffers).
public struct DrawListBuilder {
    public var widthPoints: Double
    public var heightPoints: Double
    public var scale: Double
    public var background: Color
    private var items: [DrawItem] = []

    public init(widthPoints: Double, heightPoints: Double, scale: Double, background: Color) {
        self.widthPoints = widthPoints; self.heightPoints = heightPoints
        self.scale = scale; self.background = background
    }

    /// Pixel size of the target.
    public var pixelWidth: Int { Int((widthPoints * scale).rounded()) }
    public var pixelHeight: Int { Int((heightPoints * scale).rounded()) }

    /// Builds the frame's draw list from `tree`.
    public mutating func build(_ tree: LayerTree) -> DrawList {
        items.removeAll(keepingCapacity: true)
        if let root = tree[.root] {
            let toPixels = Transform3D.scale(scale, scale, 1)
            for child in root.sublayers {
                visit(child, tree, parentToPixels: toPixels, parentOpacity: 1)
            }
        }
        return DrawList(width: pixelWidth, height: pixelHeight, clearColor: background, items: items)
    }

    private mutating func visit(_ id: LayerID, _ tree: LayerTree, parentToPixels: Transform3D, parentOpacity: Double) {
        guard let node = tree[id] else { return }
        let p = node.properties
        guard !p.isHidden else { return }
        let opacity = parentOpacity * min(max(p.opacity, 0), 1)
        // A client's container is an identity layer that only groups its top-level layers.
        let toPixels = id.isClientRoot ? parentToPixels : p.transformToSuperlayer.concatenating(parentToPixels)
        if !id.isClientRoot && opacity > 0 {
            let background = p.backgroundColor ?? .clear
            let border = p.borderWidth > 0 ? (p.borderColor ?? .clear) : .clear
            if background.alpha > 0 || border.alpha > 0 {
                let r = p.cornerRadius, m = p.maskedCorners
                items.append(DrawItem(
                    transform: toPixels, bounds: p.bounds, backgroundColor: background, opacity: opacity,
                    cornerRadii: CornerRadii(minXMinY: m.contains(.minXMinY) ? r : 0,
                                             maxXMinY: m.contains(.maxXMinY) ? r : 0,
                                             minXMaxY: m.contains(.minXMaxY) ? r : 0,
                                             maxXMaxY: m.contains(.maxXMaxY) ? r : 0),
                    borderWidth: p.borderWidth, borderColor: border))
            }
        }
        guard !node.sublayers.isEmpty, opacity > 0 else { return }
        let childBase = id.isClientRoot ? toPixels : p.sublayerTransformAboutAnchor.concatenating(toPixels)
        for child in node.sublayers {
            visit(child, tree, parentToPixels: childBase, parentOpacity: opacity)
        }
    }
}
