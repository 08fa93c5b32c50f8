// Over ~500 lines, on purpose: the recursive walk and the per-layer emitters it inlines are the
// frame's hottest CPU path and are kept together so the optimizer sees them as one unit;
// contents and text live in DrawListBuilder+Contents.swift and +Text.swift.
#if canImport(Glibc)
import Glibc
#endif
import LaminaGeometry
import LaminaImage
import LaminaTree
import LaminaModel

/// Turns a layer tree (the presentation tree at a frame time) into a `DrawList`.
///
/// CALayer geometry: a layer's bounds coordinates map into its superlayer's by moving the
/// anchor point to the origin, applying `transform` about it and placing it at `position`;
/// then the superlayer's `sublayerTransform` (about its anchor point) applies. Canvas points
/// become device pixels by `scale`. Opacity multiplies down the tree; hidden layers and
/// their sublayers draw nothing. Siblings draw in order of `zPosition`, a stable sort (equal
/// zPositions keep their order), as Core Animation does.
///
/// A translucent layer with sublayers is a group (Core Animation's allowsGroupOpacity, true by
/// default): it and its sublayers draw offscreen at full opacity and the result is composited
/// with its opacity (`DrawItem.Kind.group`), so overlapping sublayers do not show through each
/// other. With `allowsGroupOpacity` false its opacity multiplies into each sublayer apart. A
/// group whose items, once built, draw apart (`drawsApart`: no two touch a common pixel, none
/// reads what lies beneath) is elided: its opacity multiplies into its items (the same pixels).
///
/// Per layer, back to front: its shadow, background, content (gradient, or the shape's fill
/// then stroke), its sublayers, then its border ("composited above the receiver's contents
/// and sublayers", CALayer.borderWidth). `masksToBounds` clips the content and the
/// sublayers to the bounds with the rounded corners (nested clips intersect), and, as in
/// Core Animation, hides the layer's own shadow (which lies outside the bounds). A shadow is
/// the blur of the shadowPath's fill or of the layer's composited alpha (sublayers included),
/// analytic where the closed form is exact, else a `.shadowGroup` (see `appendShadow`).
///
/// Shape meshes come from `meshCache` (an unchanged path and style at the same scale bucket
/// is not tessellated again); the time spent tessellating is `lastTessellateSeconds`.
///
/// Render thread only (it reuses its buffers and owns the mesh cache).
public struct DrawListBuilder {
    public var widthPoints: Double
    public var heightPoints: Double
    public var scale: Double
    public var background: Color
    /// Tessellated shapes, render thread only.
    public var meshCache = MeshCache()
    /// The images `contents` may name (a scene's `images`, a client's uploads), by name. A
    /// layer whose `contents` names no entry here shows none.
    public var images: [String: Image] = [:] { didSet { imagesVersion &+= 1 } }
    /// Changes with every change of `images` (a retained list is patched only under the same images).
    var imagesVersion: UInt64 = 0
    /// The compositor time of the tree being built (set by `FrameDriver`): where a layer's
    /// contents cross-fade is (`LayerNode.contentsFade`).
    public var time = 0.0
    /// The model tree of the presentation being built (set by `FrameDriver` for the build, then
    /// cleared so the model is not kept shared): a replicator's delayed instances evaluate their
    /// sublayers' animations from it at shifted times (`instanceDelay`). Without it every
    /// instance shows the presentation at `time`.
    public var model: LayerTree?
    /// Whether the last build drew a delayed replicator instance whose animations had not ended
    /// (the frame driver keeps making frames while it is true: the model's animations may have
    /// ended for instance 0 while later instances still move).
    public internal(set) var delayedInstancesMoving = false
    /// Replicators inside a delayed instance, by slot: their local time in that instance
    /// (`visitReplicatorInstances`), so nested delays add up.
    var delayedReplicatorTimes: [Int: Double] = [:]
    /// Tiled layers' tiles (DrawListBuilder+Tiled.swift): made off this thread, taken only when
    /// ready. Shared by reference (the daemon's config sets its budget).
    public var tileStore = TileStore()
    /// File-backed tile sources tiled layers' `contents` may name (a scene's images read
    /// region by region), by name; a name not here falls back to `images`.
    public var tileSources: [String: TileSource] = [:]
    /// Tile sources made over decoded images of `images`, by image id.
    var imageTileSources: [UInt64: TileSource] = [:]
    /// Whether the last build drew a tiled layer with a tile not ready or still fading in: the
    /// frame driver keeps making frames while it is true.
    public internal(set) var tilesPending = false
    /// Whether tiles fade in (`fadeDuration`); false draws a ready tile at full strength at once
    /// (a still render once its tiles are ready).
    public var fadesTiles = true
    /// Whether the last full build drew a tiled layer: its list is not patched.
    var drewTiled = false
    /// Seconds the last `build` spent tessellating (mesh cache misses).
    public private(set) var lastTessellateSeconds = 0.0
    /// Text layers' layouts and the glyph atlas (made when the first text layer draws).
    var textDrawing: TextDrawing?
    var items: [DrawItem] = []  // internal: the +Text extension appends
    /// The previous list's items and clips: the buffers alternate, so that the list a caller
    /// keeps for one frame (the frame driver, to compare with the next) is not written over
    /// and the buffer written is not shared (no copy).
    var spareItems: [DrawItem] = []
    var spareClips: [Clip] = []
    /// Serial of the last list made (`DrawList.serial`).
    public internal(set) var lastSerial: UInt64 = 0
    /// How many blurred shadows' sources the walk is inside: from `maxShadowSourceNesting`
    /// on, sublayers' shadows are left out (each would draw its subtree again, so nested
    /// shadowed layers would cost 2^depth items).
    var shadowSourceDepth = 0
    /// While a mask layer's subtree is visited (`visitMasked`): the device box of the masked
    /// layer's clips (`clipArea`), outside which the mask multiplies nothing that shows.
    var maskArea: Rect? = nil
    /// Items drawn this frame as shadow sources; past `maxShadowSourceItems` further blurred
    /// shadows are left out (a bound on the work a hostile tree can ask for).
    var shadowSourceItems = 0
    /// Whether the last full build drew a replicator's instances (DrawListBuilder+Replicator.swift):
    /// its list is not patched (each of its frames is a full build).
    var drewReplicator = false
    /// Whether the last full build drew an emitter layer (DrawListBuilder+Emitter.swift): its
    /// list is not patched (particles move every frame).
    var drewEmitter = false
    /// Whether an emitter drawn by the last full build changes with time (a particle lives or
    /// a cell may still emit, and its layer time runs): the frame driver keeps drawing.
    public internal(set) var emittersChange = false
    /// The compositor time from which emitters spawn no new particle (Reduce Motion on since
    /// then: the particles born before finish their lives); nil: no such time.
    public var emitterBirthsEnd: Double?
    /// Particles drawn this frame per client (`EmitterSimulation.maxParticlesPerClient`).
    var particlesPerClient: [UInt32: Int] = [:]
    /// The particles of the emitter being drawn (a buffer reused by every emitter).
    var particles: [Particle] = []
    /// Offscreen groups (group opacity, blurred shadows) open at once, at most: each holds
    /// an offscreen image while its items draw (the renderer has `OffscreenRenderer.maxGroups`).
    public static let maxNestedGroups = 32
    var openGroups = 0
    /// Masks drawn inside masks, at most (`visitMasked`): a mask's subtree may hold a masked
    /// layer whose mask is drawn too, this many levels deep; deeper masks are left out (the
    /// layer is drawn unmasked), so the walk's recursion stays bounded.
    public static let maxMaskNesting = 4
    var maskDepth = 0
    /// Whether the last full build met a layer with a mask or a compositingFilter: its list is
    /// not patched (a mask's visits lie outside the tree the patcher walks; a blend group's
    /// marker is none the patcher knows), every frame is a full build.
    var sawEffects = false
    /// The raster cache (CALayer.shouldRasterize; DrawListBuilder+Raster.swift) and how many
    /// rasterized layers the walk is inside (a rasterized layer inside one is drawn in it).
    var rasterCache = RasterCache()
    var rasterDepth = 0
    /// The automatic raster cache (DrawListBuilder+Raster.swift, `autoRaster`): layers that
    /// stay the same while only their position, transform or opacity move, costly to draw,
    /// are drawn from the raster cache without `shouldRasterize`. Off by default here; the
    /// frame driver turns it on (`FrameDriver.rasterizesAutomatically`).
    public var rasterizesAutomatically = false {
        didSet { if rasterizesAutomatically != oldValue { patcher.key = nil } }  // the next build is full
    }
    /// The automatic raster cache for layers whose subtree makes offscreen passes (a mask, a
    /// filter: `autoRaster`), without the rest of `rasterizesAutomatically`'s layers: a masked
    /// or filtered subtree that stays the same while it moves or fades is one textured quad
    /// instead of its passes. Off by default here; the render loop turns it on
    /// (`FrameDriver.rasterizesEffects`, the daemon's `effectRasterCache` setting).
    public var rasterizesEffects = false {
        didSet { if rasterizesEffects != oldValue { patcher.key = nil } }  // the next build is full
    }
    /// The CATransitions of the tree being built (`LayerTree.contentTransitions`).
    var contentTransitions: [LayerID: ContentTransitionState] = [:]
    /// At most this many items a frame go into blurred shadows' sources.
    public static let maxShadowSourceItems = 100_000
    /// Blurred shadows' sources hold their sublayers' shadows (as Core Animation, whose shadow
    /// is the blur of the layer's composited alpha, sublayers' shadows included) this many
    /// sources deep: a layer's source holds its sublayers' shadows, and those shadows' own
    /// sources hold none. Drawn without end, a chain of n nested shadowed layers would make 2^n
    /// items; at this depth, about n³/6 (`maxShadowSourceItems` bounds the rest).
    public static let maxShadowSourceNesting = 2
    /// Largest blur (σ in device pixels) of a blurred shadow: its cost grows with σ on every
    /// pixel, so a larger shadowRadius is drawn with this σ.
    public static let maxShadowSigma = 64.0
    /// The walk's stack of sibling slots in drawing order (see `visitChildren`).
    private var order: [(slot: Int, index: Int)] = []
    var clips: [Clip] = []
    /// The frame's passes, made from the items at the end of `build`.
    var planner = FramePlanner()
    /// Whether background filters copy their backdrop out of the pass (`FramePlanner.copiesBackdrops`,
    /// on by default; off: the steps so far drawn again, for comparisons).
    public var copiesBackdrops: Bool {
        get { planner.copiesBackdrops }
        set { planner.copiesBackdrops = newValue }
    }
    /// Whether the planner batches sibling offscreen groups into shared images
    /// (`FramePlanner.batches`, on by default; off: a pass per group, for comparisons).
    public var batchesGroups: Bool {
        get { planner.batches }
        set { planner.batches = newValue }
    }
    /// Whether a mask that is one opaque rounded rect is drawn as a clip (`shapeMaskClip`, on
    /// by default; off: every mask an offscreen group, for comparisons).
    public var clipsShapeMasks = true
    /// Whether a layer that draws one gradient or background, masked by one shape layer drawn
    /// from coverage, is one item (`visitCoverageMasked`, on unless `LAMINA_MASK_COVERAGE=0`;
    /// off: such a mask is an offscreen group, for comparisons).
    public var drawsMasksFromCoverage = DrawListBuilder.masksFromCoverageByDefault
    static let masksFromCoverageByDefault = getenv("LAMINA_MASK_COVERAGE").map { String(cString: $0) } != "0"
    /// Whether a group opacity group whose items draw apart is drawn without its offscreen
    /// image, its opacity multiplied into its items (`visitAsGroup`, `drawsApart`; on unless
    /// `LAMINA_GROUP_ELISION=0`; off: every such group offscreen, for comparisons).
    public var elidesGroups = DrawListBuilder.elidesGroupsByDefault {
        didSet { if elidesGroups != oldValue { patcher.key = nil } }  // the next build is full
    }
    static let elidesGroupsByDefault = getenv("LAMINA_GROUP_ELISION").map { String(cString: $0) } != "0"
    /// The device boxes of a group's drawn items (`drawsApart`'s scratch).
    var groupBoxes: [PixelRect] = []
    /// The last full build's group opacity groups, elided or not: the marker's index and the
    /// end of its items (a patch keeps both; `DrawListPatcher.checkGroupElision`).
    var opacityGroups: [(marker: Int, end: Int)] = []
    /// Whether a filter group that is one blurred rounded rect of one color under a similarity
    /// is drawn by its closed form (`analyticBlurItem`, on by default; off: every filter group
    /// offscreen with its blur passes, for comparisons).
    public var drawsAnalyticBlurs = true
    /// Each visit of the walk in painter's order (`VisitRecords`): a full build's go to the
    /// patcher; a re-emission for a patch records into this scratch and is checked against them.
    var records = VisitRecords()
    /// Patches the last full build's list for later frames of the same model (DrawListPatcher.swift).
    var patcher = DrawListPatcher()
    /// A build for a patch (`DrawListPatcher` re-emitting a visit): it appends as every build
    /// does, but changes nothing the last full build left for the frames patched from it — no
    /// glyph, no new mesh, no shape atlas entry or candidate, no pending shape — and gives up
    /// (`refusal`) where a full build would.
    var forPatch = false
    var refusal: DrawListPatcher.Failure?
    /// Re-emitting a layer's own items alone (`reemitOwnItems`): a blurred shadow, whose source
    /// is the subtree, sets `needsSubtree` instead of drawing.
    var ownItemsOnly = false
    var needsSubtree = false
    /// Clips below `clipOffset` are `clipBase`'s, `clips` holds those from `clipOffset` on: a
    /// patch re-emitting a visit whose clips start at `clipOffset` (0 and empty otherwise).
    var clipBase: [Clip] = []
    var clipOffset = 0
    /// The mesh each layer drew last frame for each of its paths (shape fill, stroke, the
    /// shadowPath's fill): when its path is the same storage (an unchanged property) and its
    /// style and scale bucket are equal, the mesh is reused without hashing the path for the
    /// cache. Holding the path keeps its storage alive, so an identical address means the
    /// identical path.
    struct ShapeMemo {
        var path: Path
        var style: MeshKey.Style
        var bucket: Int
        /// The visible window it was cut to (`visibleWindow`), nil when whole.
        var window: Rect? = nil
        /// The mesh and its id, as the items hold them.
        var box: DrawItem.MeshBox
    }
    enum MeshPart: Hashable { case fill, stroke, shadowPath }
    struct MemoKey: Hashable { var layer: LayerID; var part: MeshPart }
    private var memo: [MemoKey: ShapeMemo] = [:]
    var nextMemo: [MemoKey: ShapeMemo] = [:]
    /// Shapes unchanged since the last frame drawn from a texture (`ShapeAtlas`); false: always
    /// their meshes (tests compare the two; `lamina-bench frames` with LAMINA_SHAPE_ATLAS=0).
    public var usesShapeAtlas = true {
        didSet { if usesShapeAtlas != oldValue { patcher.key = nil } }  // the next build is full
    }
    /// Whether a shape the atlas does not draw this frame (new meshes, first seen at its scale,
    /// no similarity, cut to a window, the atlas full) is drawn from a device-space coverage
    /// image made now (`ShapeAtlas.frameItem`) instead of its meshes — with `usesShapeAtlas` only. On for a CPU rasterizer (LaminaRender's
    /// `DriverProfile.usesShapeAtlas`, through `FrameDriver.rasterizesNewShapes`), where a
    /// textured quad costs far less than the mesh shader's per-pixel integral.
    public var rasterizesNewShapes = false
    /// Whether replaying moves prefetches the nodes and items of the moves ahead
    /// (`runMoves`): on for a CPU driver, whose rasterizer leaves nothing of the last frame in
    /// cache; the driver profile decides (LaminaRender's `DriverProfile.prefetches`, through
    /// `FrameDriver.prefetches`). Changes nothing drawn.
    public var prefetches = true
    /// Shared by copies of the builder (a class; tests give a reference build its own `copy()`).
    var shapeAtlas = ShapeAtlas()

    public init(widthPoints: Double, heightPoints: Double, scale: Double, background: Color) {
        self.widthPoints = widthPoints; self.heightPoints = heightPoints
        self.scale = scale; self.background = background
    }

    /// Pixel size of the target.
    public var pixelWidth: Int { Int((widthPoints * scale).rounded()) }
    public var pixelHeight: Int { Int((heightPoints * scale).rounded()) }

    /// Builds the frame's draw list from `tree`: the previous list patched in place when
    /// `tree` holds the same model as the last full build and only animated values changed
    /// (`DrawListPatcher`), else a full build. Both give the same list.
    public mutating func build(_ tree: LayerTree) -> DrawList {
        swap(&items, &spareItems)
        swap(&clips, &spareClips)
        patcher.swapBuffers()
        lastTessellateSeconds = 0
        delayedInstancesMoving = false
        tilesPending = false
        // The patcher is moved out while it works on the builder (no copy of its arrays).
        var patcher = DrawListPatcher.placeholder
        swap(&patcher, &self.patcher)
        defer { swap(&patcher, &self.patcher) }
        if let list = patcher.patch(tree, &self) {
            // (A patched frame draws no tiled layer: a client-drawn image's wishes are withdrawn.)
            if tileStore.hasClientWishes { tileStore.endFrame() }
            return list
        }
        let list = fullBuild(tree, visits: patcher.records.count)
        if drewTiled || tileStore.hasClientWishes {
            tileStore.endFrame()
            if imageTileSources.count > 64 { imageTileSources.removeAll() }  // (made again as drawn)
        }
        patcher.adopt(&records, key: patchKey(tree), items: items, plan: list.plan, atlas: list.textAtlas,
                      capped: shadowSourceItems > Self.maxShadowSourceItems || sawEffects || drewReplicator || drewEmitter || drewTiled
                          || rasterCache.watching)
        return list
    }

    /// The list made by walking the whole tree (the reference path); records what it visited.
    /// `visits`: about how many the last full build recorded (their buffer is sized once).
    mutating func fullBuild(_ tree: LayerTree, visits: Int = 0) -> DrawList {
        items.removeAll(keepingCapacity: true)
        shadowSourceItems = 0
        drewReplicator = false
        drewEmitter = false
        emittersChange = false
        particlesPerClient.removeAll(keepingCapacity: true)
        drewTiled = false
        openGroups = 0
        shadowSourceDepth = 0
        maskDepth = 0
        sawEffects = false
        opacityGroups.removeAll(keepingCapacity: true)
        clips.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        records.begin()
        records.list.reserveCapacity(visits)
        forPatch = false
        ownItemsOnly = false
        clipBase = []
        clipOffset = 0
        nextMemo.removeAll(keepingCapacity: true)
        textDrawing?.beginFrame()
        shapeAtlas.beginFrame(lastSerial + 1)
        shapeAtlas.beginPage()
        rasterCache.beginFrame(lastSerial + 1, width: pixelWidth, height: pixelHeight)
        rasterDepth = 0
        contentTransitions = tree.contentTransitions
        if let root = tree.nodes.slot(of: .root) {
            // The nodes are borrowed in place for the whole walk: no node is copied.
            tree.nodes.withUnsafeNodes { nodes in
                let toPixels = Transform3D.scale(scale, scale, 1)
                visitChildren(nodes[root].sublayers, tree.nodes, nodes, parentToPixels: toPixels, parentOpacity: 1, clip: -1)
            }
        }
        swap(&memo, &nextMemo)
        let atlas = endText()
        let plan = planner.plan(items, width: pixelWidth, height: pixelHeight)
        lastSerial += 1
        var list = DrawList(width: pixelWidth, height: pixelHeight, clearColor: background, items: items, clips: clips,
                            plan: plan)
        list.serial = lastSerial
        list.textAtlas = atlas
        list.shapeAtlas = shapeAtlas.endFrame()
        list.framePage = shapeAtlas.framePage
        list.rasterAtlas = rasterCache.endFrame()
        list.rasterStats = rasterCache.stats
        return list
    }

    /// Visits `children` in zPosition order (stable). Their slots go on `order`, a stack shared
    /// by the whole walk (this call's range is popped before it returns); sorting happens only
    /// when some sibling is out of order.
    mutating func visitChildren(_ children: [LayerID], _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                        parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        let start = order.count
        var needsSort = false
        var previous = -Double.infinity
        for child in children {
            guard let slot = store.slot(of: child) else { continue }
            let z = nodes[slot].properties.zPosition
            if z < previous { needsSort = true }
            previous = z
            order.append((slot, order.count - start))
        }
        let end = order.count
        if needsSort {
            // Stable: equal zPositions keep their order (the slots' positions in `children`).
            let sorted = order[start..<end]
                .sorted { a, b in
                    let za = nodes[a.slot].properties.zPosition, zb = nodes[b.slot].properties.zPosition
                    return za != zb ? za < zb : a.index < b.index
                }
            for (k, e) in sorted.enumerated() { order[start + k] = e }
        }
        for k in start..<end {
            let record = records.open(slot: order[k].slot, childIndex: order[k].index, item: items.count,
                                      clip: clipOffset + clips.count)
            let first = items.count
            visit(order[k].slot, record, store, nodes, parentToPixels: parentToPixels, parentOpacity: parentOpacity, clip: clip)
            records.close(record, item: items.count, clip: clipOffset + clips.count)
            // The automatic cache for effects takes layers whose drawing makes offscreen passes.
            if rasterCache.watchesLayers { rasterCache.noteDrawn(nodes[order[k].slot].id, items[first...]) }
        }
        order.removeSubrange(start...)
    }

    /// Visits one layer (record `record`: its item and clip ranges, and whether it passed the
    /// culling, are recorded).
    mutating func visit(_ slot: Int, _ record: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                        parentToPixels: Transform3D, parentOpacity: Double, clip: Int) {
        // The node, borrowed in place (a local computed variable yielding it borrowed: each
        // use reads only the fields it needs, with no copy of the node or retain of its arrays;
        // a plain getter let the optimizer copy the properties where it calls a getter of theirs).
        let address = nodes.baseAddress! + slot
        var node: LayerNode { _read { yield address.pointee } }
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let id = node.id
        guard !p.isHidden else { return }
        let opacity = parentOpacity * min(max(p.opacity, 0), 1)
        // A client's container is an identity layer that only groups its top-level layers.
        if id.isClientRoot {
            guard opacity > 0 else { return }
            records.markDrawn(record)
            visitChildren(node.sublayers, store, nodes, parentToPixels: parentToPixels, parentOpacity: opacity, clip: clip)
            return
        }
        let toPixels = p.transformToSuperlayer.concatenating(parentToPixels)
        guard opacity > 0, p.isDoubleSided || !Self.facesAway(toPixels) else { return }
        records.markDrawn(record)
        // Background filters (CALayer.backgroundFilters): what lies beneath, within the rounded
        // bounds cut by the ancestors' clips, filtered — below everything the layer draws, its
        // shadow included, and outside any group it makes (which would hide what lies beneath).
        // Not in a blurred shadow's source or a mask (drawn only for their alpha).
        if !p.backgroundFilters.isEmpty, shadowSourceDepth == 0, maskDepth == 0 {
            appendBackdrop(p.backgroundFilters, bounds: p.bounds, radii: Self.radii(p.cornerRadius, p.maskedCorners),
                           toPixels: toPixels, opacity: opacity, clip: clip)
        }
        let mode = p.compositingFilter
        let filters = p.filters
        // A rasterized layer (not inside another, nor blended with what lies beneath: a blend
        // reads the backdrop, which no cached image holds).
        if p.shouldRasterize, rasterDepth == 0, mode == .normalBlendMode, !forPatch {
            sawEffects = true
            let maskSlot = p.mask == 0 ? nil : store.slot(of: LayerID(client: id.client, local: p.mask))
            if visitRasterized(slot, record, maskSlot, filters, store, nodes, toPixels: toPixels, opacity: opacity,
                               clip: clip) { return }
        } else if rasterizesAutomatically || rasterizesEffects, rasterDepth == 0, mode == .normalBlendMode, !forPatch,
                  shadowSourceDepth == 0, maskDepth == 0,
                  let parts = autoRaster(slot, store, nodes, toPixels: toPixels, opacity: opacity) {
            sawEffects = true
            let maskSlot = p.mask == 0 ? nil : store.slot(of: LayerID(client: id.client, local: p.mask))
            if visitRasterized(slot, record, maskSlot, filters, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip,
                               automatic: true, parts: parts) { return }
        }
        if p.mask != 0 || mode != .normalBlendMode || !filters.isEmpty {
            sawEffects = true
            let maskSlot = p.mask == 0 ? nil : store.slot(of: LayerID(client: id.client, local: p.mask))
            if mode != .normalBlendMode, openGroups < Self.maxNestedGroups {
                // A blend group (CALayer.compositingFilter): the layer (filtered, masked or not)
                // at full opacity, blended as one image with its opacity over what lies beneath.
                let marker = items.count
                emit(Self.groupMarker(opacity: opacity, count: 0))
                openGroups += 1
                visitFiltered(slot, record, maskSlot, filters, store, nodes, toPixels: toPixels, opacity: 1, clip: clip)
                openGroups -= 1
                setKind(.blend(mode: mode, opacity: opacity, count: items.count - marker - 1), at: marker)
                return
            }
            if (!filters.isEmpty && openGroups < Self.maxNestedGroups)
                || (maskSlot != nil && openGroups + 2 <= Self.maxNestedGroups && maskDepth < Self.maxMaskNesting) {
                visitFiltered(slot, record, maskSlot, filters, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip)
                return
            }
        }
        // Group opacity (CALayer.allowsGroupOpacity): a translucent layer with sublayers is
        // drawn offscreen with its sublayers at full opacity, then composited with its opacity.
        // Nested deeper than `maxNestedGroups`, a translucent layer's opacity multiplies into
        // its items instead (overlapping sublayers then show through each other).
        if Self.isOpacityGroup(p, hasSublayers: !node.sublayers.isEmpty, openGroups: openGroups) {
            visitAsGroup(slot, record, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip)
            return
        }
        visitLayer(slot, record, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip)
    }

    /// A layer with filters (CALayer.filters): a `.filter` group of the layer — masked when it
    /// has a mask — at full opacity, whose image the renderer filters and composites at
    /// `opacity` (Core Animation's order: filters, then the mask, then the compositing filter;
    /// the mask here is inside the filter group, applied before the filters). With
    /// `masksToBounds` and a blur, the filter group is masked by the layer's rounded bounds
    /// (the blur does not spread beyond them). Without filters (or nested too deep), the
    /// masked layer or the layer itself at `opacity`.
    @inline(never)
    mutating func visitFiltered(_ slot: Int, _ record: Int, _ maskSlot: Int?, _ filters: [LayerFilter], _ store: NodeStore,
                                _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double, clip: Int,
                                clipsToBounds: Bool = true) {
        let address = nodes.baseAddress! + slot
        if clipsToBounds, !filters.isEmpty, address.pointee.properties.masksToBounds, FramePlanner.reach(filters) > 0,
           openGroups + 3 <= Self.maxNestedGroups {
            // A blur under the layer's own masksToBounds stays inside its rounded bounds: the
            // filter group at full opacity, masked by the rounded bounds, in a group at `opacity`.
            let p = address.pointee.properties
            let marker = items.count
            emit(Self.groupMarker(opacity: opacity, count: 0))
            openGroups += 1
            visitFiltered(slot, record, maskSlot, filters, store, nodes, toPixels: toPixels, opacity: 1, clip: clip,
                          clipsToBounds: false)
            let maskMarker = items.count
            emit(DrawItem(bounds: .zero, backgroundColor: .clear, kind: .mask(count: 0)))
            emit(DrawItem(transform: toPixels, bounds: p.bounds, backgroundColor: Color(0, 0, 0),
                          cornerRadii: Self.radii(p.cornerRadius, p.maskedCorners)))
            setKind(.mask(count: items.count - maskMarker - 1), at: maskMarker)
            openGroups -= 1
            setKind(.group(opacity: opacity, count: items.count - marker - 1), at: marker)
            return
        }
        if !filters.isEmpty, openGroups < Self.maxNestedGroups {
            // One blurred rounded rect: its closed form, no group (DrawListBuilder+AnalyticBlur.swift).
            if let blurred = analyticBlurItem(slot, maskSlot, filters, nodes, toPixels: toPixels, opacity: opacity,
                                              clip: clip) {
                emit(blurred)
                records.markRealChildren(record)
                return
            }
            let marker = items.count
            emit(Self.groupMarker(opacity: opacity, count: 0))
            openGroups += 1
            visitFiltered(slot, record, maskSlot, [], store, nodes, toPixels: toPixels, opacity: 1, clip: clip)
            openGroups -= 1
            setKind(.filter(filters: Self.deviceFilters(filters, toPixels), opacity: opacity, count: items.count - marker - 1),
                    at: marker)
            return
        }
        if let maskSlot, openGroups + 2 <= Self.maxNestedGroups, maskDepth < Self.maxMaskNesting {
            if let shape = shapeMaskClip(maskSlot, nodes, toPixels: toPixels, parent: clip) {
                visitShapeMasked(slot, record, maskSlot, shape, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip)
            } else if visitCoverageMasked(slot, record, maskSlot, nodes, toPixels: toPixels, opacity: opacity, clip: clip) {
                // (One item: the mask's coverage colored by the masked layer.)
            } else {
                visitMasked(slot, record, maskSlot, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip)
            }
        } else {
            visitLayer(slot, record, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip)
        }
    }

    /// `filters` with blur radii in device pixels: points times the transform's area scale.
    static func deviceFilters(_ filters: [LayerFilter], _ toPixels: Transform3D) -> [LayerFilter] {
        let m = toPixels
        let scale = (abs(m.m11 * m.m22 - m.m12 * m.m21)).squareRoot()
        return filters.map { f -> LayerFilter in
            var f = f
            if f.kind == .gaussianBlur { f.radius = min(f.radius * (scale.isFinite ? scale : 0), 100_000) }
            return f
        }
    }

    /// A layer with a mask (CALayer.mask): a group (composited at `opacity`) of the layer —
    /// its shadow, own items and sublayers, at full opacity — whose last items are the mask
    /// (`.mask`): the mask layer visited in the masked layer's own space (as a sublayer is,
    /// without the sublayerTransform), at full opacity and unclipped. The renderer multiplies
    /// the group by the mask's composited alpha. The mask's visit is recorded as a child of
    /// the masked layer's (lists with masks are not patched: `sawEffects`).
    @inline(never)
    mutating func visitMasked(_ slot: Int, _ record: Int, _ maskSlot: Int, _ store: NodeStore,
                              _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double, clip: Int) {
        let marker = items.count
        emit(Self.groupMarker(opacity: opacity, count: 0))
        openGroups += 1
        visitLayer(slot, record, store, nodes, toPixels: toPixels, opacity: 1, clip: clip)
        let maskMarker = items.count
        emit(DrawItem(bounds: .zero, backgroundColor: .clear, kind: .mask(count: 0)))
        openGroups += 1
        maskDepth += 1
        let maskRecord = records.open(slot: maskSlot, childIndex: 0, item: items.count, clip: clipOffset + clips.count)
        // The mask counts only where the masked layer draws, inside its clips: its shapes are
        // meshed no further than those (`maskArea`; device space, so not in a raster space).
        let outerMaskArea = maskArea
        if rasterDepth == 0, shadowSourceDepth == 0, let area = clipArea(clip) {
            maskArea = outerMaskArea.map { $0.intersection(area) ?? Rect(area.minX, area.minY, 0, 0) } ?? area
        }
        visit(maskSlot, maskRecord, store, nodes, parentToPixels: toPixels, parentOpacity: 1, clip: -1)
        maskArea = outerMaskArea
        records.close(maskRecord, item: items.count, clip: clipOffset + clips.count)
        maskDepth -= 1
        openGroups -= 2
        setKind(.mask(count: items.count - maskMarker - 1), at: maskMarker)
        setKind(.group(opacity: opacity, count: items.count - marker - 1), at: marker)
    }

    /// A mask (CALayer.mask) that is one rounded rect as a clip, or nil: a mask layer of kind
    /// `.layer` that is shown at full opacity, faces the viewer, has an opaque background (any
    /// color: a mask counts only alpha) and draws nothing else — no sublayers, contents, border,
    /// shadow, mask of its own, filters, background filters, compositing filter, rasterization or
    /// content transition — has as its composited alpha the coverage of its rounded bounds, which
    /// is what a clip of those bounds (as `masksToBounds` makes) multiplies each item by. So the
    /// masked layer is drawn through that clip, with no offscreen group and mask pass (a mask
    /// that is a rect, rounded rect, capsule or circle). Not inside a replicator's instances or a
    /// rasterized layer (`rasterDepth`: an instance's tint reaches the mask's own items).
    func shapeMaskClip(_ maskSlot: Int, _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D,
                       parent clip: Int) -> Clip? {
        guard clipsShapeMasks, rasterDepth == 0 else { return nil }
        let address = nodes.baseAddress! + maskSlot
        // Borrowed in place, as in `visit`.
        var node: LayerNode { _read { yield address.pointee } }
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard node.kind == .layer, node.sublayers.isEmpty, !node.hasContentsFade, !p.isHidden, p.opacity >= 1,
              (p.backgroundColor?.alpha ?? 0) >= 1, p.contents == nil, p.mask == 0, p.filters.isEmpty,
              p.backgroundFilters.isEmpty, p.compositingFilter == .normalBlendMode, !p.shouldRasterize,
              !(p.borderWidth > 0 && (p.borderColor?.alpha ?? 0) > 0),
              !(p.shadowOpacity > 0 && (p.shadowColor?.alpha ?? 0) > 0),
              contentTransitions.isEmpty || contentTransitions[node.id] == nil
        else { return nil }
        let maskToPixels = p.transformToSuperlayer.concatenating(toPixels)
        guard p.isDoubleSided || !Self.facesAway(maskToPixels) else { return nil }
        return ownClip(p.bounds, Self.radii(p.cornerRadius, p.maskedCorners), toPixels: maskToPixels, parent: clip)
    }

    /// A layer masked by a plain shape (`shapeMaskClip`): drawn through the mask's clip, with
    /// no group and no mask pass — in a group at `opacity` when it is translucent and draws
    /// more than its background (its own items and sublayers could overlap, which the masked
    /// group composites as one image), else at `opacity`, as the same layer unmasked draws.
    /// The mask's visit is recorded, with no items, where `visitMasked` records it.
    @inline(never)
    mutating func visitShapeMasked(_ slot: Int, _ record: Int, _ maskSlot: Int, _ shape: Clip, _ store: NodeStore,
                                   _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                                   clip: Int) {
        let maskClip = emitClip(shape)
        let address = nodes.baseAddress! + slot
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let backgroundOnly = address.pointee.kind == .layer && address.pointee.sublayers.isEmpty && p.contents == nil
            && !address.pointee.hasContentsFade && !(p.borderWidth > 0 && (p.borderColor?.alpha ?? 0) > 0)
            && !(p.shadowOpacity > 0 && (p.shadowColor?.alpha ?? 0) > 0)
        if opacity < 1, !backgroundOnly {
            visitAsGroup(slot, record, store, nodes, toPixels: toPixels, opacity: opacity, clip: maskClip)
        } else {
            visitLayer(slot, record, store, nodes, toPixels: toPixels, opacity: opacity, clip: maskClip)
        }
        let maskRecord = records.open(slot: maskSlot, childIndex: 0, item: items.count, clip: clipOffset + clips.count)
        records.markDrawn(maskRecord)
        records.close(maskRecord, item: items.count, clip: clipOffset + clips.count)
    }

    /// A layer masked by one shape layer (CALayer.mask) drawn as one item, with no group and no
    /// mask pass, when that is exact; false (nothing drawn) otherwise. The masked layer draws
    /// one thing — a gradient layer its axial or radial gradient (no background), a plain layer
    /// its background — and nothing else (no sublayers, contents, border, shadow or content
    /// transition), through an affine transform; the mask is a shape layer shown at full
    /// opacity that draws only its path (no background, sublayers, contents, border, shadow,
    /// mask, filters, background filters, compositing filter, rasterization, masksToBounds or
    /// content transition) and that the shape atlas or coverage made in the frame draws as one
    /// `.shape` item (`appendShape`; not inside a rasterized layer, a replicator's instances or a
    /// shadow's source). Its composited alpha is then that item's: the stroke's coverage × the
    /// stroke color's alpha over the fill's × the fill color's. That item is kept, colored by
    /// the masked layer instead (a `.maskedGradient` image whose gradient is mapped into the
    /// mask's plane, or the background's color in the `.shape` mode), clipped by the masked
    /// layer's rounded bounds (where its gradient or background draws: its own clip, as
    /// `masksToBounds` makes), at the masked layer's `opacity` × the one alpha a mask of only a
    /// fill or only a stroke has (both: each alpha must be 1, as is a translucent background's
    /// with both, since the `.shape` mode draws the stroke over the fill in its own color).
    /// The masked group multiplies the same gradient or color by the same alpha, so the pixels
    /// are the group's up to its two 8-bit roundings. The mask's visit is recorded, with no
    /// items, where `visitMasked` records it.
    @inline(never)
    mutating func visitCoverageMasked(_ slot: Int, _ record: Int, _ maskSlot: Int, _ nodes: UnsafeBufferPointer<LayerNode>,
                                      toPixels: Transform3D, opacity: Double, clip: Int) -> Bool {
        guard drawsMasksFromCoverage, usesShapeAtlas, rasterDepth == 0, shadowSourceDepth == 0, !forPatch,
              toPixels.m14 == 0, toPixels.m24 == 0, toPixels.m44 > 0 else { return false }
        // Borrowed in place, as in `visit`.
        let address = nodes.baseAddress! + slot
        var node: LayerNode { _read { yield address.pointee } }
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard node.sublayers.isEmpty, !node.hasContentsFade, p.contents == nil,
              !(p.borderWidth > 0 && (p.borderColor?.alpha ?? 0) > 0),
              !(p.shadowOpacity > 0 && (p.shadowColor?.alpha ?? 0) > 0),
              contentTransitions.isEmpty || contentTransitions[node.id] == nil else { return false }
        let background = p.backgroundColor ?? .clear
        let isGradient = node.kind == .gradient
        if isGradient {
            guard background.alpha <= 0, !p.colors.isEmpty, p.gradientType != .conic else { return false }
        } else {
            guard node.kind == .layer, background.alpha > 0 else { return false }
        }
        let maskAddress = nodes.baseAddress! + maskSlot
        var mask: LayerNode { _read { yield maskAddress.pointee } }
        var m: LayerProperties { _read { yield maskAddress.pointee.properties } }
        guard mask.kind == .shape, mask.sublayers.isEmpty, !mask.hasContentsFade, !m.isHidden, m.opacity >= 1,
              (m.backgroundColor?.alpha ?? 0) <= 0, m.contents == nil, m.mask == 0, m.filters.isEmpty,
              m.backgroundFilters.isEmpty, m.compositingFilter == .normalBlendMode, !m.shouldRasterize, !m.masksToBounds,
              !(m.borderWidth > 0 && (m.borderColor?.alpha ?? 0) > 0),
              !(m.shadowOpacity > 0 && (m.shadowColor?.alpha ?? 0) > 0),
              contentTransitions.isEmpty || contentTransitions[mask.id] == nil, let path = m.path else { return false }
        let maskToPixels = m.transformToSuperlayer.concatenating(toPixels)
        guard m.isDoubleSided || !Self.facesAway(maskToPixels) else { return false }
        // A fill and a stroke both: each opaque (and so the background), else no shape is made for nothing.
        let fillAlpha = m.fillColor?.alpha ?? 0, strokeAlpha = m.strokeColor?.alpha ?? 0
        guard fillAlpha <= 0 || strokeAlpha <= 0 || (fillAlpha >= 1 && strokeAlpha >= 1 && (isGradient || background.alpha >= 1))
        else { return false }
        // The masked layer's rounded bounds: a gradient's square bounds unless its own masksToBounds rounds them.
        let radii = isGradient && !p.masksToBounds ? CornerRadii.zero : Self.radii(p.cornerRadius, p.maskedCorners)
        let start = items.count, clipStart = clips.count
        let boundsClip = emitClip(ownClip(p.bounds, radii, toPixels: toPixels, parent: clip))
        // The mask's shape as `visitMasked` draws it (meshed no further than the masked layer's clips).
        let outerMaskArea = maskArea
        if let area = clipArea(clip) {
            maskArea = outerMaskArea.map { $0.intersection(area) ?? Rect(area.minX, area.minY, 0, 0) } ?? area
        }
        appendShape(mask.id, path, maskAddress, toPixels: maskToPixels, opacity: 1, clip: boundsClip)
        maskArea = outerMaskArea
        /// What `appendShape` made taken back (meshes, or nothing drawn: the masked group draws it).
        func undo() -> Bool {
            items.removeSubrange(start...)
            clips.removeSubrange(clipStart...)
            return false
        }
        guard items.count == start + 1, case .image(let box) = items[start].payload, box.mode == 2 else { return undo() }
        // (The stroke's alpha as drawn: dashes finer than a pixel scale it.)
        let drawnFill = items[start].fill.color.alpha, drawnStroke = items[start].aux.float4.color.alpha
        let both = drawnFill > 0 && drawnStroke > 0
        guard !both || (drawnFill >= 1 && drawnStroke >= 1) else { return undo() }
        let alpha = both ? 1 : max(drawnFill, drawnStroke)
        if isGradient {
            guard let map = Self.maskedGradientMap(p, from: items[start].transform, to: toPixels) else { return undo() }
            let gradient = MaskedGradient(type: p.gradientType == .axial ? .axial : .radial, map: map, colors: p.colors,
                                          locations: p.locations)
            let masked = DrawItem.ImageBox(image: box.image, geometry: box.geometry, minification: .linear,
                                           magnification: .linear, mode: 4, gradient: gradient)
            items[start] = DrawItem(transform: items[start].transform, bounds: items[start].bounds, fill: .zero,
                                    opacity: opacity * alpha, payload: .image(masked), clip: boundsClip)
        } else {
            guard !both || background.alpha >= 1 else { return undo() }
            items[start].fill = DrawItem.Float4(drawnFill > 0 ? background : .clear)
            items[start].aux = DrawItem.Aux(DrawItem.Float4(drawnStroke > 0 ? background : .clear))
            items[start].opacity = opacity * alpha
        }
        records.markRealChildren(record)
        let maskRecord = records.open(slot: maskSlot, childIndex: 0, item: items.count, clip: clipOffset + clips.count)
        records.markDrawn(maskRecord)
        records.close(maskRecord, item: items.count, clip: clipOffset + clips.count)
        return true
    }

    /// A masked gradient's coordinate map (`MaskedGradient.map`) for the gradient layer's
    /// properties `p` drawn through `gradientToPixels`, seen from an item drawn through
    /// `itemToPixels` (both affine): the item's local point to the gradient layer's plane
    /// (`gradientToPixels` inverted after `itemToPixels`), then to the gradient's coordinate as
    /// rect.frag computes t — axial: the projection on start → end over its squared length;
    /// radial: the offset from start over the half-axes |end − start|. Nil when not invertible.
    static func maskedGradientMap(_ p: borrowing LayerProperties, from itemToPixels: Transform3D,
                                  to gradientToPixels: Transform3D) -> [Double]? {
        let i = itemToPixels, g = gradientToPixels
        guard i.m14 == 0, i.m24 == 0, i.m44 > 0, g.m14 == 0, g.m24 == 0, g.m44 > 0 else { return nil }
        // Device x = (x m11 + y m21 + m41) / m44, y = (x m12 + y m22 + m42) / m44.
        let ia = i.m11 / i.m44, ib = i.m12 / i.m44, ic = i.m21 / i.m44, id = i.m22 / i.m44
        let itx = i.m41 / i.m44, ity = i.m42 / i.m44
        let ga = g.m11 / g.m44, gb = g.m12 / g.m44, gc = g.m21 / g.m44, gd = g.m22 / g.m44
        let gtx = g.m41 / g.m44, gty = g.m42 / g.m44
        let det = ga * gd - gb * gc
        guard det.isFinite, abs(det) > 1e-12 else { return nil }
        // The gradient plane's point of device (X, Y): x = ((X − gtx) gd − (Y − gty) gc) / det,
        // y = ((Y − gty) ga − (X − gtx) gb) / det; with X, Y the item's affine map of (x', y').
        let xa = (ia * gd - ib * gc) / det, xb = (ic * gd - id * gc) / det
        let xc = ((itx - gtx) * gd - (ity - gty) * gc) / det
        let ya = (ib * ga - ia * gb) / det, yb = (id * ga - ic * gb) / det
        let yc = ((ity - gty) * ga - (itx - gtx) * gb) / det
        let b = p.bounds
        let s = Point(b.minX + p.startPoint.x * b.width, b.minY + p.startPoint.y * b.height)
        let e = Point(b.minX + p.endPoint.x * b.width, b.minY + p.endPoint.y * b.height)
        let map: [Double]
        if p.gradientType == .axial {
            let dx = e.x - s.x, dy = e.y - s.y
            let dd = max(dx * dx + dy * dy, 1e-12)
            map = [(dx * xa + dy * ya) / dd, (dx * xb + dy * yb) / dd, (dx * (xc - s.x) + dy * (yc - s.y)) / dd, 0, 0, 0]
        } else {
            let rx = max(abs(e.x - s.x), 1e-6), ry = max(abs(e.y - s.y), 1e-6)
            map = [xa / rx, xb / rx, (xc - s.x) / rx, ya / ry, yb / ry, (yc - s.y) / ry]
        }
        return map.allSatisfy(\.isFinite) ? map : nil
    }

    /// Draws the layer as one offscreen group composited at `opacity`: a group marker, the
    /// layer's visit at full opacity, then the marker's item count. (visitLayer draws at the
    /// opacity it is given and never reads the layer's own opacity property, so the node need
    /// not be copied with its opacity set to 1.)
    ///
    /// When the items the visit made draw apart (`drawsApart`: no two touch a common pixel and
    /// none reads what lies beneath) the group is elided: the offscreen image would hold each
    /// item alone, so each item drawn with `opacity` multiplied into its own gives the same
    /// pixels (premultiplied source-over onto transparent, then scaled, is the item scaled; up
    /// to one 8-bit rounding). The marker stays in place as `elidedGroupMarker`, which draws
    /// nothing (the visits' records keep their item indices).
    mutating func visitAsGroup(_ slot: Int, _ record: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                               toPixels: Transform3D, opacity: Double, clip: Int) {
        let marker = items.count
        emit(Self.groupMarker(opacity: opacity, count: 0))
        openGroups += 1
        visitLayer(slot, record, store, nodes, toPixels: toPixels, opacity: 1, clip: clip)
        openGroups -= 1
        if elidesGroups, !forPatch { opacityGroups.append((marker, items.count)) }
        if elidesGroups, drawsApart(marker + 1..<items.count) {
            items[marker] = Self.elidedGroupMarker
            for k in marker + 1..<items.count { items[k].opacity *= opacity }
            return
        }
        setKind(.group(opacity: opacity, count: items.count - marker - 1), at: marker)
    }

    /// Whether the items in `range` (a group's) draw apart, so the group needs no offscreen
    /// image (`visitAsGroup`): each is a plain drawn item that paints each pixel once — a rect
    /// (not a background with a border over it), gradient, analytic shadow, mesh (drawn through
    /// the stencil, each pixel once) or image (not a shape atlas entry with both a fill and a
    /// stroke over it, nor glyphs, whose quads may overlap), and not a group, mask, blend,
    /// filter, shadow group, raster composite or backdrop (which read or combine what was drawn
    /// before them) — and either at most one of them draws anything, or at most
    /// `maxElidedGroupItems` do, all through affine transforms,
    /// and their device boxes (`FramePlanner.deviceBounds`: the anti-aliased fringe included,
    /// rounded out to whole pixels; clips only take away, so they are left out) are pairwise
    /// disjoint. Decided from the items alone, so the patcher asks it of a patched group's
    /// items and gets the full build's answer.
    mutating func drawsApart(_ range: Range<Int>) -> Bool {
        groupBoxes.removeAll(keepingCapacity: true)
        var affine = true
        let apart = items.withUnsafeBufferPointer { items -> Bool in
            for k in range {
                switch items[k].kind {
                case .rect:
                    // A background with a border over it: two paints where they meet.
                    let item = items[k]
                    if item.borderWidth > 0, item.borderColor.alpha > 0, item.backgroundColor.alpha > 0 { return false }
                case .image(let draw):
                    switch draw.mode {
                    case .color, .coverage: break
                    case .shape(let fill, let stroke): if fill.alpha > 0 && stroke.alpha > 0 { return false }
                    case .glyphs: return false   // a quad per glyph: neighbours may overlap
                    case .maskedGradient: break
                    }
                case .gradient, .shadow, .mesh: break
                case .group, .mask, .blend, .filter, .shadowGroup, .raster, .backdrop: return false
                }
                guard let b = FramePlanner.deviceBounds(items, k..<k + 1, width: 0, height: 0) else { continue }
                guard groupBoxes.count < Self.maxElidedGroupItems else { return false }
                let m = items[k].transform
                if !(m.m14 == 0 && m.m24 == 0 && m.m44 > 0) { affine = false }
                groupBoxes.append(PixelRect(minX: FramePlanner.pixel(b.minX, .down, within: Self.elisionLimit),
                                            minY: FramePlanner.pixel(b.minY, .down, within: Self.elisionLimit),
                                            maxX: FramePlanner.pixel(b.maxX, .up, within: Self.elisionLimit),
                                            maxY: FramePlanner.pixel(b.maxY, .up, within: Self.elisionLimit)))
            }
            return true
        }
        guard apart else { return false }
        if groupBoxes.count <= 1 { return true }
        guard affine else { return false }
        for i in groupBoxes.indices {
            for j in groupBoxes.index(after: i)..<groupBoxes.count
            where !groupBoxes[i].intersection(groupBoxes[j]).isEmpty { return false }
        }
        return true
    }

    /// A group of more drawn items than this is drawn offscreen without comparing their boxes
    /// (`drawsApart`; the pairs compared grow as the square).
    static let maxElidedGroupItems = 16
    /// Box edges beyond ±this many device pixels are clamped (`drawsApart`; an item so far out
    /// shows nothing, two so far out compare as overlapping).
    static let elisionLimit = 1 << 24

    /// What an elided group's marker becomes (`visitAsGroup`): an item that draws nothing.
    static let elidedGroupMarker = DrawItem(bounds: .zero, backgroundColor: .clear, opacity: 0)

    /// Draws one layer (not a client root) and its sublayers at `opacity` (accumulated);
    /// its own shadow first unless `drawShadow` is false (drawing the layer as its shadow's source).
    ///
    /// This function recurses once per nesting level, so it keeps only a few small values on
    /// the stack; the layer's own items are made by non-inlined helpers that return before
    /// the recursion (an unoptimized build otherwise spends ~40 KB of stack a level).
    mutating func visitLayer(_ slot: Int, _ record: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                     toPixels: Transform3D, opacity: Double, clip: Int, drawShadow: Bool = true,
                                     inTransition: Bool = false) {
        // A layer in a CATransition (DrawListBuilder+ContentTransition.swift) draws its old and
        // new renderings; each draws the layer through here again (`inTransition`).
        if !contentTransitions.isEmpty, !inTransition, !ownItemsOnly,
           let state = contentTransitions[nodes[slot].id],
           visitContentTransition(slot, record, state, store, nodes, toPixels: toPixels, opacity: opacity, clip: clip,
                                  drawShadow: drawShadow) { return }
        let (innerClip, borderLast) = appendOwnItems(slot, record, store, nodes, toPixels: toPixels, opacity: opacity,
                                                     clip: clip, drawShadow: drawShadow && shadowSourceDepth < Self.maxShadowSourceNesting)
        let address = nodes.baseAddress! + slot
        // The sublayers of a blurred shadow's source are the record's first batch of children;
        // those visited for real start here.
        if drawShadow { records.markRealChildren(record) }
        if address.pointee.kind == .emitter {
            appendParticles(address, store, toPixels: toPixels, opacity: opacity, clip: innerClip)
        }
        if address.pointee.kind == .replicator, !address.pointee.sublayers.isEmpty {
            visitReplicatorInstances(address, store, nodes, toPixels: toPixels, opacity: opacity, clip: innerClip)
        } else if !address.pointee.sublayers.isEmpty {
            visitChildren(address.pointee.sublayers, store, nodes,
                          parentToPixels: address.pointee.properties.sublayerSpace.concatenating(toPixels),
                          parentOpacity: opacity, clip: innerClip)
        }
        if borderLast { appendBorder(slot, nodes, toPixels: toPixels, opacity: opacity, clip: clip) }
    }

    /// The layer's clip for its content and sublayers, its shadow, background and content
    /// (not its border when that goes above content or sublayers). Returns the clip index
    /// for the content and sublayers, and whether the border is still to be drawn, last.
    @inline(never)
    mutating func appendOwnItems(_ slot: Int, _ record: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                         toPixels: Transform3D, opacity: Double, clip: Int,
                                         drawShadow: Bool) -> (innerClip: Int, borderLast: Bool) {
        // Borrowed in place, as in `visit`.
        let address = nodes.baseAddress! + slot
        var node: LayerNode { _read { yield address.pointee } }
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let radii = Self.radii(p.cornerRadius, p.maskedCorners)
        // This layer's clip for its content and sublayers.
        var innerClip = clip
        if p.masksToBounds { innerClip = emitClip(ownClip(p.bounds, radii, toPixels: toPixels, parent: clip)) }

        // Shadow (hidden by the layer's own masksToBounds, as in Core Animation).
        if drawShadow, p.shadowOpacity > 0, !p.masksToBounds, let shadowColor = p.shadowColor, shadowColor.alpha > 0 {
            appendShadow(slot, record, store, nodes, color: shadowColor, toPixels: toPixels, opacity: opacity, radii: radii,
                         clip: clip)
        }

        let background = p.backgroundColor ?? .clear
        let border = p.borderWidth > 0 ? (p.borderColor ?? .clear) : .clear
        let hasContentsFade = node.hasContentsFade
        let hasContent = node.kind == .gradient || node.kind == .shape || node.kind == .text || p.contents != nil
            || hasContentsFade
        // The border is composited above the content and the sublayers (CALayer.borderWidth):
        // with neither, background and border are one item; otherwise the border comes last.
        let borderLast = hasContent || !node.sublayers.isEmpty
        if background.alpha > 0 || (!borderLast && border.alpha > 0) {
            emit(DrawItem(transform: toPixels, bounds: p.bounds, backgroundColor: background, opacity: opacity,
                                  cornerRadii: radii, borderWidth: borderLast ? 0 : p.borderWidth,
                                  borderColor: borderLast ? .clear : border, clip: clip))
        }
        // Contents under the layer's own square clip are cut to its bounds instead: the cut
        // pieces' anti-aliased edges are the clip's, and their pixels pay for no clip (about
        // a third of a clipped image layer's GPU time on llvmpipe, docs/performance.md).
        let cropsContents = p.masksToBounds && radii == .zero
        let contentsClip = cropsContents ? clip : innerClip
        let crop = cropsContents ? p.bounds : nil
        if node.kind == .tiled {
            appendTiled(address, toPixels: toPixels, opacity: opacity, clip: contentsClip, crop: crop)
        } else if hasContentsFade, let fade = address.pointee.contentsFade {
            appendFadingContents(address, fade, toPixels: toPixels, opacity: opacity, clip: contentsClip, crop: crop)
        } else if p.contents != nil,
                  let item = contentsItem(address, name: p.contents, toPixels: toPixels, opacity: opacity,
                                          clip: contentsClip, crop: crop) {
            emit(item)
        }
        if node.kind == .gradient, !p.colors.isEmpty {
            let b = p.bounds
            func unit(_ u: Point) -> Point { Point(b.minX + u.x * b.width, b.minY + u.y * b.height) }
            let type: GradientFill.GradientType = switch p.gradientType { case .axial: .axial; case .radial: .radial; case .conic: .conic }
            emit(DrawItem(transform: toPixels, bounds: b, backgroundColor: .clear, opacity: opacity,
                                  cornerRadii: p.masksToBounds ? radii : .zero,
                                  kind: .gradient(GradientFill(type: type, start: unit(p.startPoint), end: unit(p.endPoint),
                                                               colors: p.colors, locations: p.locations)),
                                  clip: innerClip))
        }
        if node.kind == .shape, let path = p.path {
            appendShape(node.id, path, address, toPixels: toPixels, opacity: opacity, clip: innerClip)
        }
        if node.kind == .text { appendText(address, toPixels: toPixels, opacity: opacity, clip: innerClip) }
        return (innerClip, borderLast && border.alpha > 0)
    }

    /// A `.backdrop` item for `filters` over `bounds` (rounded by `radii`) at `toPixels`, clipped
    /// by the layer's own rounded bounds within `clip`.
    @inline(never)
    mutating func appendBackdrop(_ filters: [LayerFilter], bounds: Rect, radii: CornerRadii, toPixels: Transform3D,
                                 opacity: Double, clip: Int) {
        sawEffects = true
        let own = emitClip(ownClip(bounds, radii, toPixels: toPixels, parent: clip))
        emit(DrawItem(transform: toPixels, bounds: bounds, backgroundColor: .clear, opacity: opacity,
                      kind: .backdrop(filters: Self.deviceFilters(filters, toPixels)), clip: own))
    }

    /// The border alone, drawn after the content and the sublayers.
    @inline(never)
    mutating func appendBorder(_ slot: Int, _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D,
                                       opacity: Double, clip: Int) {
        let address = nodes.baseAddress! + slot
        var p: LayerProperties { _read { yield address.pointee.properties } }
        emit(DrawItem(transform: toPixels, bounds: p.bounds, backgroundColor: .clear, opacity: opacity,
                              cornerRadii: Self.radii(p.cornerRadius, p.maskedCorners), borderWidth: p.borderWidth, borderColor: p.borderColor ?? .clear,
                              clip: clip))
    }

    /// A masksToBounds layer's clip for its content and sublayers: its bounds with its corner
    /// radii, under the nearest ancestor clip that can cut it.
    @inline(__always)
    func ownClip(_ bounds: Rect, _ radii: CornerRadii, toPixels: Transform3D, parent: Int) -> Clip {
        var newClip = Clip(transform: toPixels, rect: bounds, radii: radii, parent: parent)
        newClip.parent = firstCuttingAncestor(of: newClip)
        return newClip
    }

    /// The nearest ancestor of `clip` (from its `parent`) that can cut anything inside it, or
    /// -1: an ancestor that contains the clip's whole rect with a pixel to spare (its coverage
    /// is 1 wherever the clip's is above 0) is skipped. Nested scroll views and cards are
    /// mostly like that, and the fragment shader walks every clip of the chain on every pixel,
    /// so a deep chain of such clips would cost each pixel of its items as much as the chain is
    /// long. Affine clips only (perspective ones are kept).
    func firstCuttingAncestor(of clip: Clip) -> Int {
        let m = clip.transform
        guard m.m14 == 0, m.m24 == 0, m.m44 == 1 else { return clip.parent }
        let r = clip.rect.standardized
        let corners = [Point(r.minX, r.minY), Point(r.maxX, r.minY), Point(r.minX, r.maxY), Point(r.maxX, r.maxY)]
            .map { Point($0.x * m.m11 + $0.y * m.m21 + m.m41, $0.x * m.m12 + $0.y * m.m22 + m.m42) }
        var ancestor = clip.parent
        while ancestor >= 0, let a = self.clip(at: ancestor) {
            guard let inside = Self.containsWithPixelMargin(a, corners) else { return ancestor }
            if !inside { return ancestor }
            ancestor = a.parent
        }
        return -1
    }

    /// Clip `index` of the list being made (`clipBase`'s below `clipOffset`).
    func clip(at index: Int) -> Clip? {
        if index >= clipOffset { return index - clipOffset < clips.count ? clips[index - clipOffset] : nil }
        return index < clipBase.count ? clipBase[index] : nil
    }

    /// Whether device points all lie inside `clip`'s rect inset by its largest corner radius
    /// and by a device pixel (where its coverage is exactly 1); nil when the clip is not
    /// affine or is degenerate.
    private static func containsWithPixelMargin(_ clip: Clip, _ points: [Point]) -> Bool? {
        let m = clip.transform
        guard m.m14 == 0, m.m24 == 0, m.m44 == 1 else { return nil }
        let det = m.m11 * m.m22 - m.m12 * m.m21
        guard abs(det) > 1e-12, det.isFinite else { return nil }
        // Local units per device pixel, at most: the inverse's largest singular value,
        // σmax/|det| ≤ (Frobenius norm)/|det|.
        let frobenius = (m.m11 * m.m11 + m.m12 * m.m12 + m.m21 * m.m21 + m.m22 * m.m22).squareRoot()
        let perPixel = frobenius / abs(det)
        let r = clip.rect.standardized
        let radius = max(clip.radii.minXMinY, clip.radii.maxXMinY, clip.radii.minXMaxY, clip.radii.maxXMaxY, 0)
        let inset = min(radius, min(r.width, r.height) / 2) + perPixel
        for q in points {
            // Device → local: the inverse of x' = x m11 + y m21 + m41, y' = x m12 + y m22 + m42.
            let dx = q.x - m.m41, dy = q.y - m.m42
            let x = (dx * m.m22 - dy * m.m21) / det
            let y = (dy * m.m11 - dx * m.m12) / det
            guard x >= r.minX + inset, x <= r.maxX - inset, y >= r.minY + inset, y <= r.maxY - inset else { return false }
        }
        return true
    }

    /// cornerRadius on the corners named by maskedCorners. (It takes the two fields: a
    /// `borrowing LayerProperties` parameter was still given a copy of the whole properties.)
    static func radii(_ r: Double, _ m: CornerMask) -> CornerRadii {
        return CornerRadii(minXMinY: m.contains(.minXMinY) ? r : 0, maxXMinY: m.contains(.maxXMinY) ? r : 0,
                           minXMaxY: m.contains(.minXMaxY) ? r : 0, maxXMaxY: m.contains(.maxXMaxY) ? r : 0)
    }

    /// The layer's shadow, as Core Animation draws it: the Gaussian blur (σ = shadowRadius) of
    /// the shadowPath's filled shape (nonZero), or without a shadowPath of the layer's
    /// composited alpha (background, border, content and sublayers), moved by shadowOffset, in
    /// shadowColor × shadowOpacity. Analytic (`.shadow`, closed form) where that is exact: a
    /// shadowPath that is a rect, a one-radius rounded rect or a circle; no shadowPath and a
    /// layer without sublayers whose alpha is one rounded rect (its background, with no border
    /// or an opaque background; a gradient of opaque colors: its square bounds), the shadow's
    /// alpha scaled by the background's. Otherwise a `.shadowGroup` blurred on the GPU.
    mutating func appendShadow(_ slot: Int, _ record: Int, _ store: NodeStore, _ nodes: UnsafeBufferPointer<LayerNode>,
                                       color shadowColor: Color, toPixels: Transform3D, opacity: Double,
                                       radii: CornerRadii, clip: Int) {
        // Borrowed in place, as in `visit`.
        let address = nodes.baseAddress! + slot
        var node: LayerNode { _read { yield address.pointee } }
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let (color, sigma, blurSigma) = Self.shadowStyle(address, shadowColor, toPixels: toPixels)
        let offsetToPixels = Transform3D.translation(p.shadowOffset.width, p.shadowOffset.height).concatenating(toPixels)
        func analytic(_ rect: Rect, _ shapeRadii: CornerRadii, alpha: Double) {
            var c = color
            c.alpha *= alpha
            emit(DrawItem(transform: offsetToPixels, bounds: rect, backgroundColor: c, opacity: opacity,
                                  cornerRadii: shapeRadii, kind: .shadow(sigma: sigma), clip: clip))
        }
        let pixelScale = Self.pixelScale(toPixels)
        let marker = items.count
        if let path = p.shadowPath {
            if let (rect, shapeRadii) = Self.analyticShape(path) {
                analytic(rect, shapeRadii, alpha: 1)
                return
            }
            guard let box = shapeMesh(node.id, path, .fill(.nonZero), bucket: MeshCache.bucket(forScale: pixelScale),
                                       scale: pixelScale, part: .shadowPath) else { return }
            emit(DrawItem(bounds: .zero, backgroundColor: .clear, opacity: opacity,
                                  kind: .shadowGroup(color: color, sigma: blurSigma, count: 1), clip: clip))
            emit(DrawItem(transform: offsetToPixels, bounds: box.mesh.bounds, fill: DrawItem.Float4(Color(0, 0, 0)), opacity: 1,
                          aux: DrawItem.Aux(0, 1), payload: .mesh(box), clip: -1))
            return
        }
        if node.sublayers.isEmpty, p.contents == nil {  // contents add their own alpha
            let background = p.backgroundColor?.alpha ?? 0
            let border = p.borderWidth > 0 ? (p.borderColor?.alpha ?? 0) : 0
            let colors = node.kind == .gradient ? p.colors : []
            switch node.kind {
            case .gradient where !colors.isEmpty:
                // The gradient fills the square bounds (no masksToBounds here), over the background.
                if colors.allSatisfy({ $0.alpha >= 1 }) {
                    analytic(p.bounds, .zero, alpha: 1)
                    return
                }
            case .layer, .gradient, .surface, .replicator, .emitter, .tiled:   // a replicator without sublayers draws as a layer
                if background <= 0 && border <= 0 { return }  // draws nothing: no shadow
                if background > 0 && (border <= 0 || background >= 1) {
                    analytic(p.bounds, radii, alpha: background)
                    return
                }
            case .shape, .text:   // a shadow of their drawn content
                break
            }
        }
        // The layer as drawn (its content and sublayers, without this shadow; with the
        // sublayers' shadows up to `maxShadowSourceNesting` sources deep), offscreen.
        guard shadowSourceItems < Self.maxShadowSourceItems, openGroups < Self.maxNestedGroups else { return }
        // (A leaf's source is its own items again: no visit to record.)
        if ownItemsOnly && !node.sublayers.isEmpty { needsSubtree = true; return }
        emit(Self.shadowGroupMarker(color: color, sigma: blurSigma, opacity: opacity, clip: clip, count: 0))
        shadowSourceDepth += 1
        openGroups += 1
        visitLayer(slot, record, store, nodes, toPixels: offsetToPixels, opacity: 1, clip: -1, drawShadow: false)
        openGroups -= 1
        shadowSourceDepth -= 1
        let count = items.count - marker - 1
        shadowSourceItems += count
        if count == 0 {
            items.removeSubrange(marker...)
        } else if shadowSourceItems > Self.maxShadowSourceItems {
            items.removeSubrange(marker...)
            if forPatch { refuse(.shadowCap) }
        } else {
            setKind(.shadowGroup(color: color, sigma: blurSigma, count: count), at: marker)
        }
    }

    /// A blurred shadow's marker: the next `count` items are its source.
    static func shadowGroupMarker(color: Color, sigma: Double, opacity: Double, clip: Int, count: Int) -> DrawItem {
        DrawItem(bounds: .zero, backgroundColor: .clear, opacity: opacity,
                 kind: .shadowGroup(color: color, sigma: sigma, count: count), clip: clip)
    }

    /// The marker of the layer's blurred shadow as `appendShadow` makes it (nil when it draws no shadow).
    static func shadowGroupMarker(_ address: UnsafePointer<LayerNode>, toPixels: Transform3D, opacity: Double, clip: Int,
                                  count: Int) -> DrawItem? {
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard p.shadowOpacity > 0, !p.masksToBounds, let shadowColor = p.shadowColor, shadowColor.alpha > 0 else { return nil }
        let (color, _, blurSigma) = shadowStyle(address, shadowColor, toPixels: toPixels)
        return shadowGroupMarker(color: color, sigma: blurSigma, opacity: opacity, clip: clip, count: count)
    }

    /// A shadow's color (× shadowOpacity), σ in points and blur σ in device pixels.
    @inline(__always)
    static func shadowStyle(_ address: UnsafePointer<LayerNode>, _ shadowColor: Color, toPixels: Transform3D)
        -> (color: Color, sigma: Double, blurSigma: Double) {
        var p: LayerProperties { _read { yield address.pointee.properties } }
        var color = shadowColor
        color.alpha *= min(p.shadowOpacity, 1)
        let sigma = p.shadowRadius.isFinite ? max(p.shadowRadius, 0) : 0
        return (color, sigma, min(sigma * pixelScale(toPixels), maxShadowSigma))
    }

    /// The rounded rect that `path` is exactly — a rect, a rounded rect with one radius or a
    /// circle, as `Path` builds them — or nil.
    static func analyticShape(_ path: Path) -> (Rect, CornerRadii)? {
        let b = controlBounds(path)
        guard b.width > 0, b.height > 0 else { return nil }
        if path == Path.rect(b) { return (b, .zero) }
        if abs(b.width - b.height) < 1e-9, path == Path.ellipse(in: b) { return (b, CornerRadii(b.width / 2)) }
        // Path.roundedRect starts at (minX + r, minY).
        if case .move(let first)? = path.elements.first {
            let r = first.x - b.minX
            if r > 0, path == Path.roundedRect(b, radius: r) { return (b, CornerRadii(r)) }
        }
        return nil
    }

    /// Whether a layer's plane shows its back: the projected plane's orientation (the sign of
    /// the determinant of `toPixels`'s x, y, w rows and columns) is mirrored.
    static func facesAway(_ m: Transform3D) -> Bool {
        m.m11 * (m.m22 * m.m44 - m.m24 * m.m42) - m.m12 * (m.m21 * m.m44 - m.m24 * m.m41)
            + m.m14 * (m.m21 * m.m42 - m.m22 * m.m41) < 0
    }

    /// Device pixels per point of `toPixels`: the larger axis scale of its affine part.
    static func pixelScale(_ toPixels: Transform3D) -> Double {
        let sx = (toPixels.m11 * toPixels.m11 + toPixels.m12 * toPixels.m12).squareRoot()
        let sy = (toPixels.m21 * toPixels.m21 + toPixels.m22 * toPixels.m22).squareRoot()
        return max(sx, sy, 1e-3)
    }

    /// The shape layer's fill and stroke meshes.
    private mutating func appendShape(_ id: LayerID, _ path: Path, _ address: UnsafePointer<LayerNode>,
                                      toPixels: Transform3D, opacity: Double, clip: Int) {
        // Borrowed in place, as in `visit` (a `LayerProperties` parameter was a copy per shape).
        var p: LayerProperties { _read { yield address.pointee.properties } }
        let pixelScale = Self.pixelScale(toPixels)
        let bucket = MeshCache.bucket(forScale: pixelScale)
        // A shape far larger than the target is meshed only where it can be seen.
        let bounds = Self.controlBounds(path), reach = p.strokeColor == nil ? 0 : Self.strokeReach(p.strokeStyle)
        let grow = shadowSourceDepth > 0 ? 3 * Self.maxShadowSigma : 0
        var visible = Self.visibleRegion(bounds, reach: reach, toPixels: toPixels, width: Double(pixelWidth),
                                         height: Double(pixelHeight), grow: grow, footprint: 4 / pixelScale)
        if visible.window != nil {
            // Cut already: no further than its clips, nor, in a mask, the masked layer's —
            // nothing of it shows outside them. (Only a window made smaller: what is drawn
            // whole, culled or from the shape atlas stays as it was.)
            var area = clipArea(clip)
            if let m = maskArea, rasterDepth == 0, shadowSourceDepth == 0 {
                area = area.map { $0.intersection(m) ?? Rect(m.minX, m.minY, 0, 0) } ?? m
            }
            if let area, case .window(let r) = Self.visibleRegion(bounds, reach: reach, toPixels: toPixels,
                                                                   width: Double(pixelWidth), height: Double(pixelHeight),
                                                                   grow: grow, footprint: 4 / pixelScale, area: area) {
                visible = .window(r)
            }
        }
        if visible == .nothing { return }
        let window = visible.window
        var fillPart: (box: DrawItem.MeshBox, color: Color)? = nil, strokePart: (box: DrawItem.MeshBox, color: Color)? = nil
        if let fill = p.fillColor, fill.alpha > 0 {
            let style = MeshKey.Style.fill(p.fillRule)
            if let box = shapeMesh(id, path, style, bucket: bucket, scale: pixelScale, part: .fill, window: window) {
                fillPart = (box, fill)
            }
        }
        if let strokeColor = p.strokeColor, strokeColor.alpha > 0, p.lineWidth >= 0 {
            let stroke = p.strokeStyle
            // Trimmed on the CPU: a coverage mesh is the outline of the trimmed stroke (an
            // animated strokeStart/strokeEnd tessellates each new value).
            let style = MeshKey.Style.stroke(stroke, trimmedInShader: false)
            if stroke.strokeEnd > stroke.strokeStart,
               let box = shapeMesh(id, path, style, bucket: bucket, scale: pixelScale, part: .stroke, window: window) {
                var color = strokeColor
                color.alpha *= box.mesh.coverageScale   // dashes finer than a pixel drawn solid (LaminaGeometry)
                strokePart = (box, color)
            }
        }
        // Unchanged since the last frame: one item from the shape atlas (ShapeAtlas); not a
        // mesh cut to the window (moved in place, it would show the cut), nor in a raster page
        // (its items are compared frame to frame: a shape drawn from meshes one frame and from
        // the atlas the next, or back when the atlas is full, would draw the page again).
        let drawsNow = rasterizesNewShapes && usesShapeAtlas && rasterDepth == 0 && shadowSourceDepth == 0
        if usesShapeAtlas && window == nil && rasterDepth == 0 {
            switch shapeAtlas.item(fill: fillPart.map { ($0.box.id, $0.box.mesh, $0.color) },
                                   stroke: strokePart.map { ($0.box.id, $0.box.mesh, $0.color) }, toPixels: toPixels,
                                   scale: pixelScale, opacity: opacity, clip: clip, lookingUp: forPatch) {
            case .item(let item):
                // (For a patch, where the last full build drew meshes instead, the patcher gives
                // way: `DrawListPatcher.splice`.)
                emit(item)
                return
            case .meshes: break
            case .meshesPending: if !forPatch { records.notePendingShape() }
            case .needsFullBuild: refuse(.shapeAtlas); return
            }
        }
        // Not from the atlas this frame: on a CPU rasterizer, from coverage made now (not in a
        // raster page or a shadow's source: their pixels are not the target's).
        if drawsNow,
           let item = shapeAtlas.frameItem(fill: fillPart.map { ($0.box.id, $0.box.mesh, $0.color) },
                                           stroke: strokePart.map { ($0.box.id, $0.box.mesh, $0.color) }, toPixels: toPixels,
                                           width: pixelWidth, height: pixelHeight, opacity: opacity, clip: clip) {
            emit(item)
            return
        }
        if let f = fillPart {
            emit(DrawItem(transform: toPixels, bounds: f.box.mesh.bounds, fill: DrawItem.Float4(f.color), opacity: opacity,
                          aux: DrawItem.Aux(0, 1), payload: .mesh(f.box), clip: clip))
        }
        if let s = strokePart {
            emit(DrawItem(transform: toPixels, bounds: s.box.mesh.bounds, fill: DrawItem.Float4(s.color), opacity: opacity,
                          aux: DrawItem.Aux(0, 1), payload: .mesh(s.box), clip: clip))
        }
    }

    /// The layer's mesh for `path` and `style`: last frame's when nothing changed, else from
    /// the cache (tessellated on a miss).
    private mutating func shapeMesh(_ id: LayerID, _ path: Path, _ style: MeshKey.Style, bucket: Int, scale: Double,
                                    part: MeshPart, window: Rect? = nil) -> DrawItem.MeshBox? {
        let memoKey = MemoKey(layer: id, part: part)
        if let last = memo[memoKey], last.bucket == bucket, last.style == style, last.window == window,
           Self.sameStorage(last.path, path) {
            // For a patch, the memo is the last full build's and stays as it is.
            if !forPatch { nextMemo[memoKey] = last }
            return last.box
        }
        // A patch does not tessellate: a new path, style or scale bucket needs a full build.
        if forPatch { refuse(.newMesh); return nil }
        guard let (meshID, mesh) = tessellate(path, style, scale: scale, window: window) else { return nil }
        let box = DrawItem.MeshBox(id: meshID, mesh: mesh)
        nextMemo[memoKey] = ShapeMemo(path: path, style: style, bucket: bucket, window: window, box: box)
        return box
    }

    /// Whether two paths share their element storage (so are the same path).
    private static func sameStorage(_ a: Path, _ b: Path) -> Bool {
        guard a.elements.count == b.elements.count else { return false }
        let pa = a.elements.withUnsafeBufferPointer { $0.baseAddress }
        let pb = b.elements.withUnsafeBufferPointer { $0.baseAddress }
        return pa != nil && pa == pb
    }

    /// The bounding box of a path's points and control points (contains the path).
    static func controlBounds(_ path: Path) -> Rect {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        func add(_ q: Point) { minX = min(minX, q.x); minY = min(minY, q.y); maxX = max(maxX, q.x); maxY = max(maxY, q.y) }
        for element in path.elements {
            switch element {
            case .move(let a), .line(let a): add(a)
            case .quad(let a, let b): add(a); add(b)
            case .cubic(let a, let b, let c): add(a); add(b); add(c)
            case .close: break
            }
        }
        return minX <= maxX ? Rect(minX, minY, maxX - minX, maxY - minY) : .zero
    }

    /// The cached mesh and its id, timing misses; nil when it is empty or tessellation fails.
    private mutating func tessellate(_ path: Path, _ style: MeshKey.Style, scale: Double, window: Rect?) -> (MeshID, Mesh)? {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let start = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        let entry = try? meshCache.entry(for: path, style: style, scale: scale, window: window)
        clock_gettime(CLOCK_MONOTONIC, &ts)
        lastTessellateSeconds += Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 - start
        guard let entry, !entry.mesh.isEmpty else { return nil }
        return entry
    }

    // MARK: Emitting (every build appends)

    @inline(__always)
    mutating func emit(_ item: consuming DrawItem) { items.append(item) }

    /// Sets a group marker's kind (its count once its items are made).
    @inline(__always)
    mutating func setKind(_ kind: DrawItem.Kind, at marker: Int) { items[marker].kind = kind }

    /// Appends a clip; its index in the list.
    @inline(__always)
    mutating func emitClip(_ clip: Clip) -> Int {
        clips.append(clip)
        return clipOffset + clips.count - 1
    }

    /// Whether a layer is drawn as a group opacity group (`visit`; the patcher asks the same):
    /// translucent, with sublayers, `allowsGroupOpacity` (CA's default) and fewer than
    /// `maxNestedGroups` groups open around it. Otherwise its opacity multiplies into its
    /// items and each sublayer's apart.
    @inline(__always)
    static func isOpacityGroup(_ p: borrowing LayerProperties, hasSublayers: Bool, openGroups: Int) -> Bool {
        p.opacity < 1 && hasSublayers && openGroups < maxNestedGroups && p.allowsGroupOpacity
    }

    /// A group opacity marker (`visit`): the next `count` items draw offscreen, composited with `opacity`.
    static func groupMarker(opacity: Double, count: Int, clip: Int = -1) -> DrawItem {
        DrawItem(bounds: .zero, backgroundColor: .clear, kind: .group(opacity: opacity, count: count), clip: clip)
    }

    /// A build for a patch gives up (the first reason is kept).
    mutating func refuse(_ reason: DrawListPatcher.Failure) {
        if refusal == nil { refusal = reason }
    }
}
