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

/// `CAReplicatorLayer`: draws its sublayers `instanceCount` times, instance k moved by
/// `instanceTransform` applied k times (about the centre of its bounds) and tinted by
/// `instanceColor` plus k times each of `instanceRedOffset`, … (clamped to 0…1). The copies
/// are made by the compositor when it draws (the model holds the sublayers once); only the
/// sublayers themselves (instance 0) are hit-testable, as in Core Animation. Its accessors
/// are generated from `Properties.table`.
public final class ReplicatorLayer: Layer {}

/// `CAEmitterLayer`: particles of its `emitterCells` (`EmitterCell`, CAEmitterCell's fields),
/// simulated by the compositor when it draws each frame from a seeded generator — the same
/// `seed` and time give the same particles. Its accessors are generated from `Properties.table`.
public final class EmitterLayer: Layer {}

/// `CATiledLayer`: shows its `contents` image — of any size the daemon can read — through
/// tiles the daemon makes off its render thread, only where and at the level of detail they
/// are seen (`tileSize`, `levelsOfDetail`, `levelsOfDetailBias`); a tile not ready yet shows
/// the nearest coarser level, and a tile fades in over `fadeDuration` once ready. Its
/// accessors are generated from `Properties.table`.
public final class TiledLayer: Layer {}

extension Layer {
    /// The client object for a new layer of `kind`: a `ShapeLayer`, a `GradientLayer`, a
    /// `TextLayer`, a `ReplicatorLayer` or a `Layer`.
    static func make(connection: Connection, id: UInt32, kind: LayerKind) -> Layer {
        switch kind {
        case .layer: Layer(connection: connection, id: id, kind: kind)
        case .shape: ShapeLayer(connection: connection, id: id, kind: kind)
        case .gradient: GradientLayer(connection: connection, id: id, kind: kind)
        case .text: TextLayer(connection: connection, id: id, kind: kind)
        case .surface: SurfaceLayer(connection: connection, id: id, kind: kind)
        case .replicator: ReplicatorLayer(connection: connection, id: id, kind: kind)
        case .emitter: EmitterLayer(connection: connection, id: id, kind: kind)
        case .tiled: TiledLayer(connection: connection, id: id, kind: kind)
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

    /// Makes a new tiled layer (`makeLayer(.tiled)`, typed).
    public func makeTiledLayer() -> TiledLayer {
        makeLayer(.tiled) as! TiledLayer
    }

    /// Makes a new replicator layer (`makeLayer(.replicator)`, typed).
    public func makeReplicatorLayer() -> ReplicatorLayer {
        makeLayer(.replicator) as! ReplicatorLayer
    }

    /// Makes a new emitter layer (`makeLayer(.emitter)`, typed).
    public func makeEmitterLayer() -> EmitterLayer {
        makeLayer(.emitter) as! EmitterLayer
    }
}

/// The client's root container (layer 0, `Connection.root`): the daemon makes it when the
/// client connects, at the canvas origin, and stacks it with the other clients' containers.
/// It holds this client's top-level layers and takes no properties — the daemon refuses any
/// (docs/protocol.md "Layers and the root container") —, so it offers only what it accepts:
/// sublayers, hit testing and a pointer handler. For a background, add a layer the size of
/// the canvas (`connection.canvasSize`) as its first sublayer.
public final class RootLayer {
    /// The container as a `Layer`: the `superlayer` of the top-level layers.
    let layer: Layer

    init(connection: Connection) { layer = Layer(connection: connection, id: 0, kind: .layer) }

    public var connection: Connection { layer.connection }
    /// 0.
    public var id: UInt32 { layer.id }
    /// The top-level layers, in order (the last draws on top).
    public var sublayers: [Layer] { layer.sublayers }

    /// Appends `layer` to the top-level layers (moving it from its current superlayer).
    public func addSublayer(_ sublayer: Layer) { layer.addSublayer(sublayer) }

    /// Inserts `layer` at `index` among the top-level layers (clamped to the count).
    public func insertSublayer(_ sublayer: Layer, at index: Int) { layer.insertSublayer(sublayer, at: index) }

    /// This client's topmost layer under a canvas point, or nil (`Layer.hitTest`).
    nonisolated(nonsending) public func hitTest(_ point: Point) async throws -> Layer? {
        try await layer.hitTest(point)
    }

    /// Handles the pointer events of every layer of this client that no handler nearer the
    /// hit layer returned `.handled` for (`Layer.onPointer`; the container is the last layer
    /// an event bubbles through).
    public func onPointer(_ handler: PointerHandler?) { layer.onPointer(handler) }

    /// The container has no background: the daemon refuses properties on it.
    @available(*, unavailable, message: "the root container takes no properties (the daemon refuses them at commit): add a layer of the canvas's size as its first sublayer and colour that")
    public var backgroundColor: Color? { get { nil } set {} }
}
