import LaminaGeometry
import LaminaImage
import LaminaTree

/// The render loop's per-frame logic with no thread and no GPU: applies the queued commit
/// packets, evaluates the presentation tree at the frame's time, publishes it as an immutable
/// snapshot, builds the draw list, and collects the tree's events and the frame statistics.
///
/// `LaminaRender.RenderLoop` is a thread and a Vulkan backend around one; tests drive one
/// directly (the embedded daemon) with a manual clock. Owned by one thread (the render
/// thread): not thread-safe.
public struct FrameDriver {
    /// The render tree: model values and running animations.
    public private(set) var tree = LayerTree()
    /// The draw-list builder (its mesh cache persists across frames).
    public private(set) var builder: DrawListBuilder
    /// Whether shapes are drawn from the shape atlas as asked (the viewer's wireframe asks not:
    /// it shows shapes' meshes). The builder uses the atlas when it is asked for and the
    /// device allows it (`allowsShapeAtlas`); this reads what was asked.
    public var usesShapeAtlas: Bool {
        get { wantsShapeAtlas }
        set { wantsShapeAtlas = newValue; builder.usesShapeAtlas = newValue && allowsShapeAtlas }
    }
    private var wantsShapeAtlas = true
    /// Whether the device's driver profile lets shapes be drawn from the atlas
    /// (LaminaRender's `DriverProfile.usesShapeAtlas`, set with `FrameDriver.adopt(_:)` when
    /// the renderer opens its device); false: shapes are always drawn from their meshes.
    public var allowsShapeAtlas = true {
        didSet { builder.usesShapeAtlas = wantsShapeAtlas && allowsShapeAtlas }
    }
    /// Whether shapes the shape atlas does not draw this frame are drawn from coverage
    /// rasterized in the frame (`DrawListBuilder.rasterizesNewShapes`; with the atlas only):
    /// set with `FrameDriver.adopt(_:)` for a CPU rasterizer.
    public var rasterizesNewShapes: Bool {
        get { builder.rasterizesNewShapes }
        set { builder.rasterizesNewShapes = newValue }
    }
    /// Whether the frame's loops prefetch what they are about to touch (the tree's fast
    /// evaluation, the builder's moves): LaminaRender's `DriverProfile.prefetches`, set with
    /// `FrameDriver.adopt(_:)`. Changes nothing drawn.
    public var prefetches: Bool {
        get { builder.prefetches }
        set { builder.prefetches = newValue; tree.prefetches = newValue }
    }
    private var snapshots = SnapshotMaker()
    private var collector = FrameStatsCollector()
    /// The last frame's draw list (what the backend holds as drawn), compared with the next.
    private var previous: DrawList?
    private var damageTracker = DamageTracker()
    /// Whether frames carry their damage (`DrawList.damage`); false: every frame redraws
    /// everything (benchmarks' full-frame figures, tests' reference sequences).
    public var tracksDamage = true
    /// Target frames per second (statistics).
    public let targetFPS: Double

    /// One frame's output.
    public struct Frame {
        /// The presentation tree at the frame's time, published for queries.
        public var snapshot: PresentationSnapshot
        /// What to draw (borrowed from the builder until the next frame).
        public var drawList: DrawList
        /// The tree's events of this frame (animations started and stopped, completions).
        public var events: [TreeEvent]
        /// CPU phases measured here (apply, evaluate, tessellate); the backend adds its own.
        public var phases: FramePhases
    }

    public init(widthPoints: Double, heightPoints: Double, scale: Double, background: Color, targetFPS: Double) {
        builder = DrawListBuilder(widthPoints: widthPoints, heightPoints: heightPoints, scale: scale, background: background)
        self.targetFPS = targetFPS
    }

    /// The automatic raster cache (`DrawListBuilder.rasterizesAutomatically`): off by default
    /// (the daemon's `automaticRasterCache` setting turns it on). Measured on lavapipe it saved
    /// no GPU time, and a list with a `.raster` marker is never patched, so every frame is a
    /// full build (docs/performance.md, "The automatic raster cache").
    public var rasterizesAutomatically: Bool {
        get { builder.rasterizesAutomatically }
        set { builder.rasterizesAutomatically = newValue }
    }

    /// The automatic raster cache for masked and filtered subtrees
    /// (`DrawListBuilder.rasterizesEffects`): the render loop turns it on (the daemon's
    /// `effectRasterCache` setting, on by default; docs/performance.md, "Masked subtrees from
    /// the raster cache").
    public var rasterizesEffects: Bool {
        get { builder.rasterizesEffects }
        set { builder.rasterizesEffects = newValue }
    }

    /// Changes the screen's size in points and its pixel scale (a window resized, or moved to
    /// a display of another content scale); the next frame is built at the new size.
    public mutating func setViewport(widthPoints: Double, heightPoints: Double, scale: Double) {
        builder.widthPoints = widthPoints
        builder.heightPoints = heightPoints
        builder.scale = scale
    }

    /// Puts an image in the image map `contents` names (nil removes it): a client's upload
    /// under its qualified name (LaminaServer's ServerCore+Images).
    /// A removal takes effect at the next frame, after its packets are applied, and only once
    /// no contents cross-fade draws the image as its old one: the server releases an image in
    /// the same batch as the commit that stops showing it, which may start such a fade.
    public mutating func setImage(_ name: String, _ image: Image?) {
        if image == nil {
            if let gone = surfaces.removeValue(forKey: name) { surfaceUploader?.dropped(gone) }
            if builder.images[name] != nil || builder.tileSources[name] != nil { deferredReleases.insert(name) }
            return
        }
        deferredReleases.remove(name)
        builder.images[name] = image
    }

    /// Puts a file-backed tile source (a client's `openImageFile`) where `contents` names it:
    /// only tiled layers show it. `setImage(name, nil)` removes it as it removes an image.
    public mutating func setTileSource(_ name: String, _ source: TileSource) {
        deferredReleases.remove(name)
        builder.tileSources[name] = source
    }

    /// Images removed by `setImage`, taken out of the map when no cross-fade uses them.
    private var deferredReleases: Set<String> = []
    /// Surface layers' pixels, by image name (FrameDriver+Surfaces.swift).
    var surfaces: [String: SurfaceStorage] = [:]
    /// Copies pool buffers into surfaces' GPU copies without a CPU copy, where the renderer
    /// can (FrameDriver+Surfaces.swift); nil: every surface is copied on the CPU.
    public var surfaceUploader: (any SurfaceDirectUploader)?

    private mutating func releaseDeferredImages() {
        guard !deferredReleases.isEmpty else { return }
        for name in deferredReleases where !tree.fadeUses(name) {
            deferredReleases.remove(name)
            builder.images[name] = nil
            builder.tileSources[name] = nil
        }
    }

    /// Steps path templates and expression animations together may spend in one frame
    /// (config `maxProgramStepsPerFrame`); once spent, the rest keep their previous output.
    public var programStepsPerFrame: Int {
        get { tree.programStepsPerFrame }
        set { tree.programStepsPerFrame = newValue }
    }

    /// The tiles tiled layers draw (its budget from the daemon's `tileCacheBytes`).
    public var tileStore: TileStore {
        get { builder.tileStore }
        set { builder.tileStore = newValue }
    }

    /// Reduce Motion for emitters: from compositor time `time` on (nil: off) no emitter spawns
    /// a new particle; those born before live on (`DrawListBuilder.emitterBirthsEnd`).
    public var emitterBirthsEnd: Double? {
        get { builder.emitterBirthsEnd }
        set { builder.emitterBirthsEnd = newValue }
    }

    /// The snapshot of the last frame, if any.
    public var snapshot: PresentationSnapshot? { snapshots.latest }

    /// Makes the frame at compositor time `t`: applies `packets` in order (each at its commit
    /// time, or `t`), ends finished animations, evaluates and publishes the presentation tree,
    /// builds the draw list.
    public mutating func frame(applying packets: [CommitPacket], at t: Double) -> Frame {
        var phases = FramePhases()
        let clock = ContinuousClock()
        let t0 = clock.now
        for packet in packets {
            tree.apply(packet, at: packet.time ?? t)
            if !packet.surfaces.isEmpty { applySurfaces(packet.surfaces) }
        }
        let t1 = clock.now
        tree.advance(to: t)
        releaseDeferredImages()
        let snapshot = snapshots.make(from: tree, at: t)
        let events = tree.takeEvents()
        let tList = clock.now
        builder.time = t
        builder.model = tree
        var list = builder.build(snapshot.tree)
        builder.model = nil  // the model is not kept shared: the next commit would copy it
        if tracksDamage, let previous {
            list.damage = Damage(rect: damageTracker.damage(from: previous, to: list), since: previous.serial)
        }
        previous = list
        let t2 = clock.now
        phases.apply = Self.seconds(t1 - t0)
        phases.damaged = list.damage?.fraction(width: list.width, height: list.height) ?? 1
        // The builder times its mesh-cache misses; they are their own phase.
        phases.tessellate = builder.lastTessellateSeconds
        phases.evaluate = max(Self.seconds(t2 - t1) - phases.tessellate, 0)
        phases.drawList = min(max(Self.seconds(t2 - tList) - phases.tessellate, 0), phases.evaluate)
        phases.patched = builder.lastBuildPatched
        return Frame(snapshot: snapshot, drawList: list, events: events, phases: phases)
    }

    /// The draw list of the presentation tree at another time (a capture of that time),
    /// leaving the render tree and the published snapshots as they are.
    public mutating func drawList(at t: Double) -> DrawList {
        // Drawn over the frame's image: the next frame compares with this one.
        builder.time = t
        // Whether emitters or delayed replicator instances keep the loop awake is the frames'
        // business, not a capture's.
        let (emittersChange, delayedMoving) = (builder.emittersChange, builder.delayedInstancesMoving)
        builder.model = tree
        let list = builder.build(tree.presentation(at: t))
        builder.model = nil
        builder.emittersChange = emittersChange
        builder.delayedInstancesMoving = delayedMoving
        previous = list
        return list
    }

    /// Records a finished frame's phases (the backend's included) for the statistics.
    public mutating func record(start: Double, phases: FramePhases) {
        collector.record(start: start, phases: phases)
    }

    /// Counts frames missed by the pacing (realtime clock).
    public mutating func recordDropped(_ n: Int) { collector.dropped += n }

    /// Lets go of what only the next frame would reuse (the builder's buffers of the list before
    /// last, and the retained list's records: a frame after sleeping follows a commit, which
    /// builds in full anyway): the render thread calls it before it sleeps. An idle scene then
    /// keeps one list's items and no per-layer state of the builder but its shapes' memo.
    public mutating func willSleep() {
        builder.releaseSpareBuffers()
        builder.releaseRetainedRecords()
    }

    /// Counts seconds the render thread slept with nothing to draw (`isIdle`).
    public mutating func recordIdle(_ seconds: Double) { collector.idle += max(seconds, 0) }

    /// Counts seconds the render thread waited for a frame's deadline while animating.
    public mutating func recordPaced(_ seconds: Double) { collector.paced += max(seconds, 0) }

    /// Whether the presentation tree changes with time on its own (a running animation not
    /// frozen by layer time), so that the next frame must be made even with nothing queued.
    /// Expression animations count: they may read the time.
    /// An emitter whose particles live or may still be born counts (`DrawListBuilder.emittersChange`),
    /// a replicator's delayed instances while their animations have not ended, a tiled
    /// layer while a tile it shows is not ready or fades in, and a running CATransition.
    public var isAnimating: Bool {
        tree.hasMovingAnimations || !tree.fadingLayers.isEmpty || tree.hasExpressions || tree.hasDeferredPrograms
            || builder.emittersChange || builder.delayedInstancesMoving || builder.tilesPending || tree.hasContentTransitions
    }

    /// Whether a frame must be made now: something is queued (`pending`: packets, captures, a
    /// frame request), something animates, or no frame was made yet. When false the render
    /// thread sleeps until woken: the last frame is still exact.
    public func needsFrame(pending: Bool) -> Bool {
        pending || isAnimating || snapshots.latest == nil
    }

    /// The statistics so far, as of compositor time `time`.
    public func stats(at time: Double) -> FrameStats {
        collector.summary(targetFPS: targetFPS, time: time, layers: tree.count)
    }

    static func seconds(_ d: Duration) -> Double {
        let c = d.components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
