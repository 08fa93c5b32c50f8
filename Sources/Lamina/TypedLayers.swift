import LaminaModel

/// `CAShapeLayer`: a layer that draws `path`, filled and stroked. Its accessors (`path`,
/// `fillColor`, `strokeEnd`, …) are generated from `Properties.table`.
public final class ShapeLayer: Layer {}

/// `CAGradientLayer`: a layer that draws a gradient of `colors` over its bounds. Its
/// accessors (`colors`, `locations`, `startPoint`, …) are generated from `Properties.table`.
public final class GradientLayer: Layer {}

/// `CATextLayer`: a layer that draws `string` (plain or styled runs) in its bounds. Its
/// accessors (`string`, `font`, `fontSize`, `foregroundColor`, …) are generated from
/// `Properties.table`.
public final class TextLayer: Layer {
    /// `string` as plain text: setting it sets one run in the layer's own font, size and
    /// color (`layer.text = title`, no `StyledText` to build); reading it joins the runs' text.
    public var text: String {
        get { string.runs.map(\.text).joined() }
        set { string = StyledText(newValue) }
    }
}

extension Layer {
    /// The client object for a new layer of `kind`: a `ShapeLayer`, a `GradientLayer` or a `Layer`.
    static func make(connection: Connection, id: UInt32, kind: LayerKind) -> Layer {
        switch kind {
        case .layer: Layer(connection: connection, id: id, kind: kind)
        case .shape: ShapeLayer(connection: connection, id: id, kind: kind)
        case .gradient: GradientLayer(connection: connection, id: id, kind: kind)
        case .text: TextLayer(connection: connection, id: id, kind: kind)
        }
    }
}

extension Connection {
    /// Makes a new shape layer (`makeLayer(.shape)`, typed).
    public func makeShapeLayer() -> ShapeLayer {
        // `makeLayer` makes a `ShapeLayer` for `.shape` (`Layer.make`).
        makeLayer(.shape) as! ShapeLayer
    }

    /// Makes a new gradient layer (`makeLayer(.gradient)`, typed).
    public func makeGradientLayer() -> GradientLayer {
        makeLayer(.gradient) as! GradientLayer
    }

    /// Makes a new text layer (`makeLayer(.text)`, typed).
    public func makeTextLayer() -> TextLayer {
        makeLayer(.text) as! TextLayer
    }
}
