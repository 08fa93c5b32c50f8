#if canImport(Glibc)
import Glibc
#endif
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree

/// Emitter layers (`CAEmitterLayer`), simulated when the draw list is built: the layer's
/// particles at the frame's time come from `EmitterSimulation` (closed form: nothing is kept
/// between frames; when the layer's multipliers animate or changed, the model tree's
/// `emitterTimeline` gives them over the layer's past), and each becomes one item above the layer's own content and below its
/// sublayers — its cell's `contents` (an image item, as layer contents) or, without contents,
/// a 1-point square in its color (a rect item). Consecutive items of one kind are one
/// instanced draw, so thousands of particles cost one draw call and 160 bytes each.
///
/// A particle of scale s and angle θ at (x, y) is drawn with the map scale(s) · rotation(θ) ·
/// translation(x, y) in the layer's bounds space, its image centred on it at the image's size
/// in pixels (× the cell's contentsRect) as points. An image is tinted by the particle's color:
/// drawn as is with the color's alpha when the color is white, else its first channel is the
/// coverage of the color (exact for white images on clear, the usual particle sprite).
/// `renderMode` `additive` composites each particle with plusLighter (premultiplied source
/// plus destination, clamped) over the particles before it and what is beneath them
/// (`DrawItem.additive`: the renderer's ONE/ONE pipeline variants).
///
/// `preservesDepth` false: z is dropped (particles are flattened into the layer's plane).
/// `preservesDepth` true (CAEmitterLayer: the particles "directly inhabit the
/// three-dimensional coordinate space of the layer's superlayer"): a particle keeps its z —
/// its map is scale · rotation · translation(x, y, z), its square parallel to the layer's plane
/// at depth z — so the layer's own 3D transform and the superlayer's sublayerTransform
/// (perspective) show it nearer or farther, as a sublayer of a CATransformLayer; and with
/// `renderMode` `backToFront` or `unordered` the particles are drawn back to front by their
/// depth in the superlayer's space (`EmitterDrawing.depthOrder`).
public enum EmitterDrawing {
    /// The layer's local time at compositor time `t` (its superlayers' timing and its own).
    static func localTime(_ tree: NodeStore, _ id: LayerID, at t: Double) -> Double { tree.layerTime(of: id).local(t) }

    /// The particles of an emitter with `preservesDepth` in draw order, back to front: by the
    /// depth of each one's centre in the superlayer's space (z/w of (x, y, z, 1) ×
    /// `toSuperlayer`, the layer's transformToSuperlayer; before the superlayer's
    /// sublayerTransform, as replicator instances are sorted), smaller first; equal depths by
    /// birth, then cell.
    public static func depthOrder(_ particles: inout [Particle], toSuperlayer m: Transform3D) {
        guard particles.count > 1 else { return }
        let depths = particles.map { q -> Double in
            let v = m.apply(Vector4(q.x, q.y, q.z, 1))
            let z = v.w != 0 ? v.z / v.w : v.z
            return z.isFinite ? z : 0
        }
        let order = particles.indices.sorted { a, b in
            if depths[a] != depths[b] { return depths[a] < depths[b] }
            if particles[a].birth != particles[b].birth { return particles[a].birth < particles[b].birth }
            return particles[a].cell != particles[b].cell ? particles[a].cell < particles[b].cell : a < b
        }
        particles = order.map { particles[$0] }
    }
}

extension DrawListBuilder {
    /// Appends the emitter layer's particles at this build's `time`.
    @inline(never)
    mutating func appendParticles(_ address: UnsafePointer<LayerNode>, _ store: NodeStore, toPixels: Transform3D,
                                  opacity: Double, clip: Int) {
        drewEmitter = true
        let p = address.pointee.properties
        let cells = p.emitterCells
        guard !cells.isEmpty else { return }
        let client = address.pointee.id.client
        let used = particlesPerClient[client] ?? 0
        let budget = EmitterSimulation.maxParticlesPerClient - used
        guard budget > 0 else { return }
        let local = EmitterDrawing.localTime(store, address.pointee.id, at: time)
        particles.removeAll(keepingCapacity: true)
        let birthsUntil = emitterBirthsEnd.map { EmitterDrawing.localTime(store, address.pointee.id, at: $0) } ?? .infinity
        var emitter = EmitterSimulation.Emitter(p)
        emitter.timeline = model?.emitterTimeline(of: address.pointee.id, at: local)
        let outcome = EmitterSimulation.particles(emitter, cells: cells, renderMode: p.renderMode,
                                                  at: local, limit: budget, birthsUntil: birthsUntil, into: &particles)
        if outcome.changes && store.layerTime(of: address.pointee.id).scale > 0 { emittersChange = true }
        particlesPerClient[client] = used + particles.count
        guard !particles.isEmpty, opacity > 0 else { return }
        let depth = p.preservesDepth
        if depth, p.renderMode == .backToFront || p.renderMode == .unordered {
            EmitterDrawing.depthOrder(&particles, toSuperlayer: p.transformToSuperlayer)
        }
        let flat = EmitterSimulation.flatten(cells)
        // Per cell: its image and geometry (centred, natural size), or nil for a square.
        let looks: [(Image, ContentsGeometry, ImageDraw.Filter, ImageDraw.Filter)?] = flat.map { c in
            guard let name = c.contents, let image = images[name] else { return nil }
            let r = c.contentsRect.standardized
            let w = Double(image.width) * r.width, h = Double(image.height) * r.height
            guard let g = ContentsGeometry(bounds: Rect(-w / 2, -h / 2, w, h), imageWidth: image.width,
                                           imageHeight: image.height, gravity: .resize, contentsRect: c.contentsRect,
                                           contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1) else { return nil }
            return (image, g, ImageDraw.Filter(c.minificationFilter), ImageDraw.Filter(c.magnificationFilter))
        }
        // Additive: each particle adds (plusLighter) to the others and what lies beneath
        // (`DrawItem.additive`: the ONE/ONE pipeline variants).
        let additive = p.renderMode == .additive
        let square = Rect(-0.5, -0.5, 1, 1)
        for q in particles where q.color.alpha > 0 && q.scale != 0 {
            let c = cos(q.angle) * q.scale, s = sin(q.angle) * q.scale
            let local = Transform3D(m11: c, m12: s, m13: 0, m14: 0, m21: -s, m22: c, m23: 0, m24: 0,
                                    m31: 0, m32: 0, m33: 1, m34: 0, m41: q.x, m42: q.y, m43: depth ? q.z : 0, m44: 1)
            let map = local.concatenating(toPixels)
            if let (image, geometry, minification, magnification) = looks[q.cell] {
                let white = q.color.red == 1 && q.color.green == 1 && q.color.blue == 1
                let mode: ImageDraw.Mode = white ? .color : .coverage(q.color)
                var item = DrawItem(transform: map, bounds: geometry.frame, backgroundColor: .clear,
                                    opacity: white ? opacity * q.color.alpha : opacity,
                                    kind: .image(ImageDraw(image: image, geometry: geometry, minification: minification,
                                                           magnification: magnification, mode: mode)),
                                    clip: clip)
                item.additive = additive
                emit(item)
            } else {
                var item = DrawItem(transform: map, bounds: square, backgroundColor: q.color, opacity: opacity, clip: clip)
                item.additive = additive
                emit(item)
            }
        }
    }
}
