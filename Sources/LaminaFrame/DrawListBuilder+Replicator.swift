import LaminaGeometry
import LaminaModel
import LaminaTree

/// Replicator layers (`CAReplicatorLayer`), expanded when the draw list is built: the model
/// holds the sublayers once, and the walk visits them once per instance.
///
/// Instance k (0 ≤ k < `instanceCount`, rounded down) draws the sublayers with the
/// replicator's sublayer → bounds map followed by `instanceTransform` applied k times about
/// the centre of the replicator's bounds (Core Animation: "applied to instance k−1 to produce
/// instance k … relative to the center of this layer"), and multiplies the colors of its items
/// by the tint `instanceColor` + k × (red, green, blue, alpha offsets), each channel clamped to
/// 0…1. Nested replicators multiply: an inner replicator's items are tinted by its own tint,
/// then by the outer instance's.
public enum ReplicatorDrawing {
    /// At most this many instances of one replicator are drawn.
    public static let maxInstanceCount = 10_000
    /// A frame stops adding replicator instances once its list holds this many items (a bound
    /// on the work nested replicators can ask for: n levels of m instances make mⁿ copies).
    public static let maxReplicatedItems = 200_000

    /// The number of instances drawn for `instanceCount`: rounded down, 0…`maxInstanceCount`.
    @inlinable public static func instanceCount(_ value: Double) -> Int {
        guard value.isFinite, value >= 1 else { return 0 }
        return Int(min(value, Double(maxInstanceCount)))
    }

    /// The tint of instance `k`: `color` (nil: white) + k × `offsets`, each channel clamped to 0…1.
    public static func tint(_ color: Color?, offsets: Color, instance k: Int) -> Color {
        let c = color ?? .white
        let f = Double(k)
        func clamp(_ v: Double) -> Double { min(max(v, 0), 1) }
        return Color(clamp(c.red + f * offsets.red), clamp(c.green + f * offsets.green),
                     clamp(c.blue + f * offsets.blue), clamp(c.alpha + f * offsets.alpha))
    }

    /// The map of instance `k` in the replicator's bounds space: `instanceTransform`ᵏ about
    /// the bounds' centre (row vectors: a point × the result).
    public static func instanceMap(_ transform: Transform3D, bounds: Rect, instance k: Int) -> Transform3D {
        guard k > 0 else { return .identity }
        var power = Transform3D.identity
        for _ in 0..<k { power = power.concatenating(transform) }
        let cx = bounds.origin.x + bounds.size.width / 2, cy = bounds.origin.y + bounds.size.height / 2
        return Transform3D.translation(-cx, -cy).concatenating(power).concatenating(.translation(cx, cy))
    }

    /// `item` with its colors multiplied by `tint` (sRGB-encoded channels, straight alpha).
    /// A layer's image contents and text glyphs keep their colors and take the tint's alpha in
    /// their opacity.
    static func tinted(_ item: DrawItem, by tint: Color) -> DrawItem {
        func times(_ c: Color) -> Color {
            Color(c.red * tint.red, c.green * tint.green, c.blue * tint.blue, c.alpha * tint.alpha)
        }
        var item = item
        switch item.kind {
        case .rect:
            item.backgroundColor = times(item.backgroundColor)
            item.borderColor = times(item.borderColor)
        case .shadow, .mesh:
            item.backgroundColor = times(item.backgroundColor)
        case .gradient(var g):
            g.colors = g.colors.map(times)
            item.kind = .gradient(g)
        case .image(var d):
            switch d.mode {
            case .coverage(let c):
                d.mode = .coverage(times(c)); item.kind = .image(d)
            case .shape(let fill, let stroke):
                d.mode = .shape(fill: times(fill), stroke: times(stroke)); item.kind = .image(d)
            case .maskedGradient(var g):
                g.colors = g.colors.map(times); d.mode = .maskedGradient(g); item.kind = .image(d)
            case .color, .glyphs:
                item.opacity *= tint.alpha
            }
        case .shadowGroup(let color, let sigma, let count):
            item.kind = .shadowGroup(color: times(color), sigma: sigma, count: count)
        case .group, .mask, .blend, .filter, .raster, .backdrop:
            break  // markers: their items are tinted themselves (a mask's too: its alpha, as CA tints it)
        }
        return item
    }
}

extension DrawListBuilder {
    /// Visits a replicator's sublayers once per instance (see `ReplicatorDrawing`). With an
    /// `instanceDelay` d, instance k shows its sublayers' animations at the replicator's local
    /// time minus k × d (`DelayedInstances`).
    mutating func visitReplicatorInstances(_ address: UnsafePointer<LayerNode>, _ store: NodeStore,
                                           _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D,
                                           opacity: Double, clip: Int) {
        let p = address.pointee.properties
        let count = ReplicatorDrawing.instanceCount(p.instanceCount)
        let offsets = Color(p.instanceRedOffset, p.instanceGreenOffset, p.instanceBlueOffset, p.instanceAlphaOffset)
        drewReplicator = true
        if p.preservesDepth {
            visitReplicatorInDepth(address, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip, count: count,
                                   offsets: offsets)
            return
        }
        let space = p.sublayerSpace
        var delayed = count > 1 ? DelayedInstances(address.pointee, store, nodes, self) : nil
        // Instances are tinted after they are drawn, so a rasterized layer inside one is drawn
        // directly (its cached image would not see the tint).
        rasterDepth += 1
        defer { rasterDepth -= 1 }
        for k in 0..<count {
            if k > 0, items.count >= ReplicatorDrawing.maxReplicatedItems { break }
            let tint = ReplicatorDrawing.tint(p.instanceColor, offsets: offsets, instance: k)
            guard tint.alpha > 0 else { continue }
            let map = ReplicatorDrawing.instanceMap(p.instanceTransform, bounds: p.bounds, instance: k)
            let first = items.count
            let parentToPixels = space.concatenating(map).concatenating(toPixels)
            if k > 0, delayed != nil {
                delayed!.shift(to: k, &self)
                delayed!.nodes.withUnsafeBufferPointer { shifted in
                    visitChildren(address.pointee.sublayers, store, shifted, parentToPixels: parentToPixels,
                                  parentOpacity: opacity, clip: clip)
                }
                delayed!.restore(&self)
            } else {
                visitChildren(address.pointee.sublayers, store, nodes, parentToPixels: parentToPixels,
                              parentOpacity: opacity, clip: clip)
            }
            if tint != .white {
                for i in first..<items.count { items[i] = ReplicatorDrawing.tinted(items[i], by: tint) }
            }
        }
    }
}

extension DrawListBuilder {
    /// A replicator with `preservesDepth` (Core Animation: it then acts as a CATransformLayer):
    /// its instances are not flattened into its plane. Each instance's sublayers keep their z
    /// through `instanceTransform`ᵏ and the replicator's own transform (the sublayerTransform
    /// about the anchor point without `sublayerSpace`'s z drop), so the superlayer flattens
    /// them with its own sublayerTransform's perspective; and every (instance, sublayer) pair is
    /// drawn in the order of its depth in the superlayer's space — the z of the sublayer's
    /// position (at its zPosition) through instance k's map and the replicator's
    /// transformToSuperlayer, back (smaller z) to front, equal depths in instance then
    /// sublayer order. Each pair is sorted whole (its own sublayers draw as usual inside it):
    /// painter's order by the anchor, not a split of intersecting planes.
    mutating func visitReplicatorInDepth(_ address: UnsafePointer<LayerNode>, _ store: NodeStore,
                                         _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                                         clip: Int, count: Int, offsets: Color) {
        let p = address.pointee.properties
        let space = p.sublayerTransformAboutAnchor
        let toSuperlayer = p.transformToSuperlayer
        var delayed = count > 1 ? DelayedInstances(address.pointee, store, nodes, self) : nil
        // Reordered below: never patched.
        sawEffects = true
        rasterDepth += 1
        defer { rasterDepth -= 1 }
        let start = items.count
        var pieces: [(z: Double, range: Range<Int>)] = []
        func instance(_ k: Int, _ tint: Color, _ map: Transform3D, _ shifted: UnsafeBufferPointer<LayerNode>,
                      _ builder: inout DrawListBuilder) {
            let toSuperlayerK = space.concatenating(map).concatenating(toSuperlayer)
            let parentToPixels = space.concatenating(map).concatenating(toPixels)
            for child in address.pointee.sublayers {
                guard let slot = store.slot(of: child), slot < shifted.count else { continue }
                let c = shifted[slot].properties
                let v = toSuperlayerK.apply(Vector4(c.position.x, c.position.y, c.zPosition, 1))
                let z = v.w != 0 ? v.z / v.w : v.z
                let first = builder.items.count
                builder.visitChildren([child], store, shifted, parentToPixels: parentToPixels, parentOpacity: opacity,
                                      clip: clip)
                if tint != .white {
                    for i in first..<builder.items.count { builder.items[i] = ReplicatorDrawing.tinted(builder.items[i], by: tint) }
                }
                pieces.append((z.isFinite ? z : 0, first..<builder.items.count))
            }
        }
        for k in 0..<count {
            if k > 0, items.count >= ReplicatorDrawing.maxReplicatedItems { break }
            let tint = ReplicatorDrawing.tint(p.instanceColor, offsets: offsets, instance: k)
            guard tint.alpha > 0 else { continue }
            let map = ReplicatorDrawing.instanceMap(p.instanceTransform, bounds: p.bounds, instance: k)
            if k > 0, delayed != nil {
                delayed!.shift(to: k, &self)
                delayed!.nodes.withUnsafeBufferPointer { shifted in instance(k, tint, map, shifted, &self) }
                delayed!.restore(&self)
            } else {
                instance(k, tint, map, nodes, &self)
            }
        }
        // Back to front (stable: equal depths keep instance and sublayer order).
        let order = pieces.indices.sorted { a, b in
            pieces[a].z != pieces[b].z ? pieces[a].z < pieces[b].z : a < b
        }
        guard order != Array(pieces.indices) else { return }
        var sorted: [DrawItem] = []
        sorted.reserveCapacity(items.count - start)
        for i in order { sorted.append(contentsOf: items[pieces[i].range]) }
        items.replaceSubrange(start..<items.count, with: sorted)
    }
}

/// A replicator's `instanceDelay` (`CAReplicatorLayer`: "the delay, in seconds, between
/// replicated copies"): instance k's sublayers live at the replicator's local time minus
/// k × delay, so their animations run that much later (before an animation begins an instance
/// shows the model value, as any layer does). The builder draws instance k from a copy of the
/// presentation nodes in which each animated sublayer's properties are its model values with
/// its animations applied at its local time under the shifted replicator time (each layer's own
/// `speed`, `timeOffset` and `beginTime` on the way down apply as usual). Expression animations
/// and path templates keep their values at the frame's time. An animation removed on
/// completion leaves every instance when it ends for instance 0 (the model's layer), as the
/// model has no copies to keep it for the others.
struct DelayedInstances {
    /// The animated sublayers (any depth): slot, and the map from the replicator's local time
    /// to the layer's.
    var animated: [(slot: Int, time: LayerTime)] = []
    /// Replicators below (any depth), whose own instances are shifted from their time.
    var replicators: [(slot: Int, time: LayerTime)] = []
    /// The presentation nodes with instance k's values in the animated slots.
    var nodes: [LayerNode]
    let model: LayerTree
    let delay: Double
    /// The replicator's local time at the frame's time, and whether it moves with it.
    let local: Double
    let moves: Bool

    /// Nil when every instance shows the same (no delay, no model, nothing animated below).
    init?(_ replicator: LayerNode, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
          _ builder: DrawListBuilder) {
        let delay = replicator.properties.instanceDelay
        guard delay != 0, delay.isFinite, let model = builder.model else { return nil }
        self.delay = delay
        self.model = model
        self.nodes = []
        var found: [(Int, LayerTime)] = [], below: [(Int, LayerTime)] = []
        // Only what the model holds is evaluated again (a presentation of the same version).
        func walk(_ ids: [LayerID], _ time: LayerTime, depth: Int) {
            guard depth < 256 else { return }
            for id in ids {
                guard let slot = store.slot(of: id), slot < nodes.count, model.nodes.slot(of: id) == slot else { continue }
                let time = time.then(model.nodes[slot: slot].properties)
                if model.hasAnimations(inSlot: slot) { found.append((slot, time)) }
                if nodes[slot].kind == .replicator { below.append((slot, time)) }
                walk(nodes[slot].sublayers, time, depth: depth + 1)
            }
        }
        walk(replicator.sublayers, .identity, depth: 0)
        guard !found.isEmpty || !below.isEmpty else { return nil }
        animated = found.map { (slot: $0.0, time: $0.1) }
        replicators = below.map { (slot: $0.0, time: $0.1) }
        let own = model.layerTime(of: replicator.id)
        if let slot = store.slot(of: replicator.id), let shifted = builder.delayedReplicatorTimes[slot] {
            local = shifted
        } else {
            local = own.local(builder.time)
        }
        moves = own.scale != 0
        self.nodes = Array(nodes)
    }

    /// Writes instance k's values into `nodes` (and its replicators' shifted times into the builder).
    mutating func shift(to k: Int, _ builder: inout DrawListBuilder) {
        let t = local - Double(k) * delay
        for (slot, time) in animated {
            let (p, running) = model.delayedProperties(ofSlot: slot, atLocalTime: time.local(t))
            nodes[slot].properties = p
            if running, moves, time.scale != 0 { builder.delayedInstancesMoving = true }
        }
        for (slot, time) in replicators { builder.delayedReplicatorTimes[slot] = time.local(t) }
    }

    /// Forgets the shifted replicator times after an instance.
    func restore(_ builder: inout DrawListBuilder) {
        for (slot, _) in replicators { builder.delayedReplicatorTimes[slot] = nil }
    }
}
