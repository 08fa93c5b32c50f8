import LaminaAnimation
import LaminaGeometry
import LaminaModel
import LaminaWire

/// A layer owned by this client, with `CALayer`'s properties. Setting a property stages the
/// change; `Connection.commit()` sends the transaction. Reading a property returns the model
/// value this client last set (or CA's default). The typed accessors (`bounds`, `opacity`, …)
/// are generated from `Properties.table` (`Layer+Generated.swift`); shape and gradient layers
/// are `ShapeLayer` and `GradientLayer`, with their own.
///
/// Not `Sendable`: use it where its connection is used (see `Connection`). Events name
/// layers by `id`; `Connection.layer(withID:)` finds the object.
public class Layer {
    public unowned let connection: Connection
    /// The client's id for this layer (0 is the client's root container).
    public let id: UInt32
    public let kind: LayerKind
    /// The model values as this client set them.
    public private(set) var properties = LayerProperties()
    public private(set) weak var superlayer: Layer?
    public private(set) var sublayers: [Layer] = []
    /// How the layer comes in and goes out (Layer+Transition.swift); nil: as `.identity`.
    public var transition: LayerTransitions?

    init(connection: Connection, id: UInt32, kind: LayerKind) {
        self.connection = connection
        self.id = id
        self.kind = kind
    }

    /// Sets any property by its Core Animation key path (`position.x`, `custom.phase`, …).
    /// Checked here as the daemon will check it (a property this layer's kind lacks included).
    public func setValue(_ value: PropertyValue, forKeyPath keyPath: String) throws(PropertyError) {
        try PropertyTable.check(keyPath: keyPath, kind: kind)
        try properties.setValue(value, forKeyPath: keyPath)
        connection.stage(.setProperty(id: id, keyPath: keyPath, value: value))
    }

    /// A typed accessor's setter: the value is of the property's type, so only a range
    /// rule (a negative `cornerRadius`, a `frame` of negative size, a non-finite number) can
    /// fail. Such a value is staged all the same and answered as the protocol answers it: the
    /// next commit throws `requestFailed` with `invalidValue` naming this set, nothing of that
    /// transaction applies, and this layer's local values keep what they were. The kind
    /// check of `setValue` is left out: a kind's accessors exist only on its class
    /// (`ShapeLayer`, …), which `Layer.make` gives every layer of that kind.
    func set(_ value: PropertyValue, _ keyPath: String) {
        var updated = properties
        if (try? updated.setValue(value, forKeyPath: keyPath)) != nil { properties = updated }
        connection.stage(.setProperty(id: id, keyPath: keyPath, value: value))
    }

    /// `CALayer.mask`: a layer of this connection whose composited alpha multiplies this layer
    /// and its sublayers (nil: none). It lies in this layer's coordinate space and is drawn
    /// only as the mask: it must have no superlayer and mask no other layer, and must not
    /// contain this layer (the daemon refuses the commit otherwise, `invalidHierarchy`). It
    /// animates like any layer. Sent as the mask's id (`mask`, 0 for none).
    public var mask: Layer? {
        get { properties.mask == 0 ? nil : connection.layer(withID: properties.mask) }
        set {
            precondition(newValue.map { $0.connection === connection && $0 !== self } ?? true,
                         "a mask is another layer of the same connection")
            set(.number(Double(newValue?.id ?? 0)), "mask")
        }
    }

    /// `CALayer.frame`: derived from bounds, position, anchorPoint and transform; setting it
    /// sets bounds.size and position.
    public var frame: Rect { get { properties.frame } set { set(.rect(newValue), "frame") } }

    // MARK: Layer time

    /// The map from compositor time to this layer's local time (its animations' time), from
    /// the `speed`, `timeOffset` and `beginTime` this client set on it and its superlayers.
    public var layerTime: LayerTime { (superlayer?.layerTime ?? .identity).then(properties) }

    /// `CALayer.convertTime(_:from:)`: time `t` of `layer`'s local time (compositor time, as
    /// `Connection.currentTime()` answers it, for nil) in this layer's local time. From a
    /// layer whose time is frozen (speed 0 on it or above) there is no way back: not finite.
    public func convertTime(_ t: Double, from layer: Layer?) -> Double {
        layerTime.local(layer?.layerTime.compositorTime(t) ?? t)
    }

    /// `CALayer.convertTime(_:to:)`: time `t` of this layer's local time in `layer`'s
    /// (compositor time for nil).
    public func convertTime(_ t: Double, to layer: Layer?) -> Double {
        let c = layerTime.compositorTime(t)
        return layer?.layerTime.local(c) ?? c
    }

    // MARK: Animations

    /// `CALayer.add(_:forKey:)`: adds an explicit animation, replacing the one with the same
    /// key (an empty key adds an anonymous one). The daemon checks it as docs/protocol.md
    /// says: what the animation alone decides (timing and spring ranges, key times, key paths
    /// and their values' types) when the request arrives — a `ConnectionEvent.requestFailed`
    /// with `invalidAnimation`, then the commit throws `transactionFailed` —, and what needs
    /// the layer (its kind having the key path, a `custom.NAME` it has set) at commit, which
    /// throws `invalidAnimation`. Either way nothing of the transaction applies.
    /// - Parameter delegate: told when it starts and stops (`CAAnimation.delegate`), once the
    ///   commit is accepted; with several anonymous animations in flight, in the order added.
    public func add(_ animation: Animation, forKey key: String, delegate: (any AnimationDelegate)? = nil) {
        connection.stageOperation(.addAnimation(id, key: key, animation: animation))
        if let delegate { connection.addDelegate(delegate, layer: id, key: key) }
    }

    /// `CALayer.removeAnimation(forKey:)`.
    public func removeAnimation(forKey key: String) { connection.stageOperation(.removeAnimation(id, key: key)) }

    /// `CALayer.removeAllAnimations()`.
    public func removeAllAnimations() { connection.stageOperation(.removeAllAnimations(id)) }

    /// The presentation value at a key path (`presentation()?.value(forKeyPath:)` in CA),
    /// asked of the daemon's render thread (blocking).
    public func presentationValue(forKeyPath keyPath: String) throws -> PropertyValue {
        try connection.presentationValue(ofLayer: id, forKeyPath: keyPath)
    }

    /// `presentationValue(forKeyPath:)`, suspending instead of blocking.
    nonisolated(nonsending) public func presentationValue(forKeyPath keyPath: String) async throws -> PropertyValue {
        try await connection.presentationValue(ofLayer: id, forKeyPath: keyPath)
    }

    /// `CALayer.presentation()`: every property of this layer's kind as the daemon presents
    /// it now (model values with the running animations), asked in one write and answered
    /// from one frame that includes this client's commits.
    nonisolated(nonsending) public func presentation() async throws -> Presentation {
        let rows = PropertyTable.rows.filter { $0.layers.contains(kind) }
        let values = try await connection.presentationValues(ofLayer: id, keyPaths: rows.map(\.keyPath))
        var p = LayerProperties()
        for (row, value) in zip(rows, values) { try? p.setValue(value, forKeyPath: row.keyPath) }
        return Presentation(layerID: id, kind: kind, properties: p)
    }

    /// `CALayer.hitTest(_:)` over the whole canvas: this client's topmost layer under a canvas
    /// point in the presentation tree, or nil (nothing there, or another client's layer).
    nonisolated(nonsending) public func hitTest(_ point: Point) async throws -> Layer? {
        let (result, layer) = try await connection.hitTest(point)
        return result == .ownLayer ? connection.layer(withID: layer) : nil
    }

    /// Appends `layer` to the sublayers (moving it from its current superlayer).
    public func addSublayer(_ layer: Layer) {
        precondition(layer.connection === connection, "a layer can only hold layers of its own connection")
        layer.detachLocally()
        sublayers.append(layer)
        layer.superlayer = self
        layer.stageTransition()
        connection.stage(.addSublayer(parent: id, child: layer.id))
    }

    /// Inserts `layer` at `index` in the sublayers (clamped to the count, as CALayer).
    public func insertSublayer(_ layer: Layer, at index: Int) {
        precondition(layer.connection === connection, "a layer can only hold layers of its own connection")
        layer.detachLocally()
        let at = min(max(index, 0), sublayers.count)
        sublayers.insert(layer, at: at)
        layer.superlayer = self
        layer.stageTransition()
        connection.stage(.insertSublayer(parent: id, child: layer.id, index: UInt32(at)))
    }

    /// Removes the layer from its superlayer.
    public func removeFromSuperlayer() {
        detachLocally()
        stageTransition()
        connection.stage(.removeFromSuperlayer(id: id))
    }

    /// Destroys the layer in the daemon (its sublayers stay alive, detached).
    public func delete() {
        detachLocally()
        for s in sublayers { s.superlayer = nil }
        sublayers = []
        connection.stage(.deleteLayer(id: id))
    }

    private func detachLocally() {
        superlayer?.sublayers.removeAll { $0 === self }
        superlayer = nil
    }
}

/// A layer's presentation values (`Layer.presentation()`): read them with `properties`'
/// accessors (`properties.opacity`, …) or by key path.
public struct Presentation: Sendable {
    public let layerID: UInt32
    public let kind: LayerKind
    public let properties: LayerProperties

    /// The presentation value at a key path (sub-key-paths such as `position.x` included).
    public func value(forKeyPath keyPath: String) -> PropertyValue? { properties.value(forKeyPath: keyPath) }
}
