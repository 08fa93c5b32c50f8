import LaminaAnimation
import Synchronization
import LaminaGeometry
import LaminaModel

/// One layer in a `LayerTree`.
public struct LayerNode: Equatable, Sendable {
    // Stored in an order without padding; each tree holds one node per layer. The properties
    // come first: Swift places the next fields in their tail padding (`LayerProperties` is
    // 125 bytes, its stride 128), so the kind and the fade flag take no room of their own,
    // and the superlayer is an 8-byte id (an optional would take 9, and a word with padding).
    /// Model values in the model tree; presentation values in a presentation tree.
    public var properties = LayerProperties()
    public var kind: LayerKind
    /// Whether `contentsFade` is set, kept in the node (a byte of the properties' padding):
    /// the draw-list builder asks for every layer, and an animated layer's lists box is
    /// elsewhere in memory.
    @usableFromInline var isFading = false
    public var id: LayerID
    public var sublayers: [LayerID] = []
    /// The rarely non-empty per-layer lists (animations, expressions, fade): nil
    /// while all are empty.
    @usableFromInline var extras = Extras.Storage()
    /// `superlayer`, `LayerNode.noSuperlayer` for none.
    @usableFromInline var superlayerID = LayerNode.noSuperlayer

    /// The stored `superlayerID` of a layer without a superlayer: a client id the server
    /// never gives (clients are numbered from 1 up).
    @usableFromInline static let noSuperlayer = LayerID(client: .max, local: .max)

    public var superlayer: LayerID? {
        @inlinable get { superlayerID == LayerNode.noSuperlayer ? nil : superlayerID }
        set {
            precondition(newValue != LayerNode.noSuperlayer, "no layer has the id \(LayerNode.noSuperlayer)")
            superlayerID = newValue ?? LayerNode.noSuperlayer
        }
    }

    /// The layer's animations in the order added (keys unique except the empty key).
    public var animations: [LayerAnimation] {
        get { extras.box?.values.animations ?? [] }
        _modify { yield &extras.values.animations }
    }
    /// Expression animations driving this layer's properties (LayerExpression.swift).
    public var expressions: [LayerExpression] {
        get { extras.box?.values.expressions ?? [] }
        _modify { yield &extras.values.expressions }
    }
    /// In the render tree: the running cross-fade of `contents` (ContentsFade.swift), if any.
    public var contentsFade: ContentsFade? {
        get { isFading ? extras.box?.values.contentsFade : nil }
        set { extras.values.contentsFade = newValue; isFading = newValue != nil }
    }
    /// Whether `contentsFade` is set (no copy of the node or the fade, no load from the box).
    @inlinable @inline(__always) public var hasContentsFade: Bool { isFading }

    public init(id: LayerID, kind: LayerKind) { self.id = id; self.kind = kind }

    /// The per-layer lists that are empty for most layers, held out of line in one box (one
    /// word in the node, no allocation while all are empty): the node stays small, and the
    /// draw-list builder walks compact nodes.
    @usableFromInline struct Extras: Equatable, Sendable {
        var animations: [LayerAnimation] = []
        var expressions: [LayerExpression] = []
        @usableFromInline var contentsFade: ContentsFade?

        var isEmpty: Bool {
            animations.isEmpty && expressions.isEmpty && contentsFade == nil
        }

        /// Changed only while uniquely referenced.
        @usableFromInline final class Box: @unchecked Sendable {
            @exclusivity(unchecked) var values: Extras
            init(_ values: Extras) { self.values = values }
        }

        @usableFromInline struct Storage: Equatable, Sendable {
            @usableFromInline var box: Box?

            init() {}

            /// The lists; a change makes the box or copies a shared one, and drops it when
            /// every list is empty again.
            var values: Extras {
                get { box?.values ?? Extras() }
                _modify {
                    if !isKnownUniquelyReferenced(&box) { box = Box(box?.values ?? Extras()) }
                    yield &box!.values
                    if box!.values.isEmpty { box = nil }
                }
            }

            @usableFromInline static func == (a: Storage, b: Storage) -> Bool {
                a.box === b.box || a.values == b.values
            }
        }
    }
}

/// An animation as the model tree counts it: its key and the compositor time at which the
/// render thread removes it (+∞ when it never ends or stays after its end).
public struct AnimationLedgerEntry: Equatable, Sendable {
    public var key: String
    public var removedAt: Double
}

/// The render tree, and the presentation trees made from it: layers stored flat by id, with
/// their model values and running animations.
///
/// The render thread's tree applies `CommitPacket`s that the model tree (`ModelTree`, server
/// thread) validated: `apply(_:at:)` cannot fail and parses nothing. It keeps animations,
/// makes implicit animations, reports `TreeEvent`s (`takeEvents()`), and evaluates
/// presentation trees (`updatePresentation(_:at:)`), which are `LayerTree`s too.
///
/// Tools and tests that keep one tree apply `Commit`s directly (`apply(_ commit:at:)`,
/// LayerTree+Commits.swift): the tree then validates them against a model tree of its own,
/// kept alongside — a role of its own, apart from the render thread's.
///
/// The root layer (`LayerID.root`) holds one container per connected client, in connection
/// order; each client's top-level layers hang under its container (`LayerID.clientRoot`).
/// Not thread-safe: each thread owns its own value.
public struct LayerTree: Sendable {
    /// The layers, flat by slot (see `NodeStore`).
    public internal(set) var nodes: NodeStore

    /// Layers with at least one animation.
    public internal(set) var animatedLayers: Set<LayerID> = []
    /// Changes whenever model values, structure or the animation lists change (presentation
    /// trees made from an older version are rebuilt). Each new version is unique in the
    /// process, so two copies of a tree changed apart never share one.
    public internal(set) var version: UInt64 = 0
    private static let versionCounter = Atomic<UInt64>(0)

    /// Gives the tree a new `version` (after any change of the model).
    mutating func bumpVersion() { version = LayerTree.versionCounter.add(1, ordering: .relaxed).newValue }
    /// Distinct for every tree made by `init` (process-wide), shared by its copies (the
    /// presentation trees made from it): with `version`, it says that two trees hold the same
    /// model (the draw-list builder patches its last list only for the same model).
    public let lineage: UInt64 = LayerTree.lineageCounter.add(1, ordering: .relaxed).newValue
    private static let lineageCounter = Atomic<UInt64>(0)
    /// The `sequence` of the newest packet applied (0: none).
    public internal(set) var sequence: UInt64 = 0
    /// Animations not yet ended (including those whose begin time is still ahead): while
    /// there is one, the presentation tree changes with time and every frame must be made;
    /// with none, a frame changes only when a packet arrives.
    public internal(set) var runningAnimations = 0
    /// Of `runningAnimations`, those whose layer's local time stands still (speed 0 on it or
    /// above): they do not change the presentation with time (LayerTree+Time.swift).
    public internal(set) var frozenAnimations = 0
    /// Whether some running animation changes the presentation as time passes: one that is
    /// not frozen by layer time.
    public var hasMovingAnimations: Bool { runningAnimations > frozenAnimations }
    /// Layers whose `speed`, `timeOffset` or `beginTime` is not the default: while there is
    /// none, every layer's local time is compositor time (LayerTree+Time.swift).
    public internal(set) var timedLayers: Set<LayerID> = []
    /// Layers whose `contents` is cross-fading (`LayerNode.contentsFade`): while there is
    /// one, every frame must be made too.
    public internal(set) var fadingLayers: Set<LayerID> = []
    /// Earliest compositor time at which a running animation ends.
    var nextEndTime = Double.infinity
    /// Animations still running per (client, completion id).
    var completionCounts: [CompletionKey: Int] = [:]
    /// Declared completions not yet fired, in declaration order.
    var declaredCompletions: [CompletionKey] = []
    /// Events not yet taken by `takeEvents()`.
    public internal(set) var events: [TreeEvent] = []
    /// In a presentation tree: the flat list of animation bindings it is patched from each
    /// frame (built by `updatePresentation` for the model version it was made from).
    var presentationPlan: PresentationPlan? = nil
    /// The layers with path templates or expression animations, and the render thread's
    /// template outputs (LayerTree+Programs.swift).
    var programs = ProgramIndex()
    /// Whether evaluating presentation trees from this tree prefetches the nodes and transform
    /// boxes its fast runs write (`prefetch`, PresentationPlan+Fast.swift): on for a CPU
    /// driver, whose rasterizer leaves nothing of the last frame in cache; the driver profile
    /// decides (LaminaRender's `DriverProfile.prefetches`, through `FrameDriver.prefetches`).
    /// Changes no value.
    public var prefetches = true
    /// The model tree that validates `apply(_ commit:at:)` (a tree that takes commits);
    /// nil in a tree fed packets (LayerTree+Commits.swift).
    var validator: Validator?
    /// Layers removed from the model that stay, not hit, until their removal transition ends
    /// (LayerTree+Transitions.swift) → that end's compositor time.
    var departing: [LayerID: Double] = [:]
    /// Running CATransitions by layer, and frozen ones by ghost (LayerTree+ContentTransition.swift).
    public internal(set) var contentTransitions: [LayerID: ContentTransitionState] = [:]
    /// The next ghost node's local id.
    var nextGhost: UInt32 = 1
    /// Emitters' past multipliers (LayerTree+EmitterHistory.swift), and the compositor time
    /// of the packet being applied (when an animation removed by it left).
    var emitterHistory: [LayerID: EmitterHistory] = [:]
    var applyTime = 0.0

    struct CompletionKey: Hashable, Sendable { var client: UInt32; var id: UInt32 }

    /// The nesting limit of a tree made without one (and of the daemon's default config).
    public static let defaultMaxDepth = 512

    /// A tree with the root layer only. The limits apply to the commits it validates itself
    /// (`apply(_ commit:at:)`); packets carry none.
    public init(maxLayersPerClient: Int = 1_000_000, maxAnimationsPerLayer: Int = 1024, maxDepth: Int = defaultMaxDepth) {
        nodes = NodeStore()
        nodes[.root] = LayerNode(id: .root, kind: .layer)
        validator = Validator(ModelTree(maxLayersPerClient: maxLayersPerClient,
                                        maxAnimationsPerLayer: maxAnimationsPerLayer, maxDepth: maxDepth))
    }

    /// Takes the events reported since the last call.
    public mutating func takeEvents() -> [TreeEvent] {
        defer { events = [] }
        return events
    }

    public subscript(id: LayerID) -> LayerNode? { nodes[id] }

    /// Number of layers, the root and client containers included.
    public var count: Int { nodes.count }

    /// Whether this tree's presentation is its model as it stands: no animation (running or
    /// held), cross-fade, path template or expression — so a presentation tree made from it
    /// shares its nodes unchanged, and they hold exactly what the packets carried.
    public var presentsModelValues: Bool { animatedLayers.isEmpty && fadingLayers.isEmpty && !programs.isActive }

    // MARK: Packets (the render thread)

    /// Applies a validated packet at compositor time `time` (the time 0 of the animations it
    /// adds; pass `packet.time ?? frameTime`). Cannot fail: the model tree checked everything.
    /// A tree that takes packets no longer validates commits itself.
    public mutating func apply(_ packet: CommitPacket, at time: Double) {
        validator = nil
        applyPacket(packet, at: time)
    }

    mutating func applyPacket(_ packet: CommitPacket, at time: Double) {
        bumpVersion()
        sequence = max(sequence, packet.sequence)
        let client = packet.client
        switch packet.content {
        case .connect:
            let container = LayerID.clientRoot(client)
            var node = LayerNode(id: container, kind: .layer)
            node.superlayer = .root
            nodes[container] = node
            nodes[existing: .root].sublayers.append(container)
        case .disconnect:
            removeClient(client)
        case .changes(let changes):
            var context = ApplyContext(time: time, stamp: version)
            context.reducedMotion = packet.reducedMotion
            applyTime = time
            for change in changes { apply(change, client: client, context: &context) }
            finishCommit(client: client, &context)
        }
        recountFrozenAnimations()
    }

    /// Per-packet state while applying.
    struct ApplyContext {
        var time: Double
        /// Unique to this packet (the tree's version as it began): marks the animations it adds.
        var stamp: UInt64
        /// Layers that got animations (their begin times become local at the end).
        var animated: [LayerID] = []
        /// Whether some layer's local time changed (a timing or, with timed layers, the hierarchy).
        var timeChanged = false
        var settings = TransactionSettings.default
        var created: Set<LayerID> = []
        var declared: [UInt32] = []
        /// The commit's `transitions` by layer, and the insertions to animate at its end.
        var transitions: [LayerID: LayerTransitions] = [:]
        var insertions: [(LayerID, LayerTransition)] = []
        /// The commit's matched-geometry pairs, run at its end (cross-fades only when
        /// `reducedMotion`: the packet's `reducedMotion`).
        var matches: [(from: LayerID, to: LayerID)] = []
        var reducedMotion = false
        /// Layers the commit put in a CATransition.
        var contentTransitions: [LayerID] = []
    }

    private mutating func apply(_ change: CommitPacket.Change, client: UInt32, context: inout ApplyContext) {
        switch change {
        case .create(let id, let kind):
            nodes[id] = LayerNode(id: id, kind: kind)
            context.created.insert(id)
        case .delete(let id):
            departing[id] = nil
            if !contentTransitions.isEmpty { endContentTransition(of: id) }
            detach(id)
            if !timedLayers.isEmpty { context.timeChanged = true; timedLayers.remove(id) }
            for child in nodes[existing: id].sublayers { nodes[existing: child].superlayer = nil }
            removeAnimations(of: id, where: { _ in true })
            fadingLayers.remove(id)
            programs.remove(id)
            nodes[id] = nil
            emitterHistory[id] = nil
        case .set(let id, let properties, let actions):
            let before = nodes[existing: id].properties
            nodes[existing: id].properties = properties
            programs.note(id, properties.templates)
            if (before.hasRareValues || properties.hasRareValues) && noteTiming(id, before: before, after: properties) {
                context.timeChanged = true
            }
            if nodes[existing: id].kind == .emitter { noteEmitterModel(id, before: before, after: properties, context: context) }
            if before.contents != properties.contents { addContentsFade(id, from: before.contents, context: context) }
            if let slot = actions.first {
                addImplicitAnimation(id, slot: slot, before: before, context: &context)
                if let second = actions.second { addImplicitAnimation(id, slot: second, before: before, context: &context) }
            }
        case .properties(let id, let properties):
            let emitterBefore = nodes[existing: id].kind == .emitter ? nodes[existing: id].properties : nil
            if properties.hasRareValues || !timedLayers.isEmpty {
                let before = nodes[existing: id].properties
                if noteTiming(id, before: before, after: properties) { context.timeChanged = true }
            }
            nodes[existing: id].properties = properties
            programs.note(id, properties.templates)
            if let emitterBefore { noteEmitterModel(id, before: emitterBefore, after: properties, context: context) }
        case .insert(let child, let parent, let index):
            noteInsertion(child, context: &context)
            endDeparturesMakingACycle(inserting: child, into: parent)
            detach(child)
            nodes[existing: parent].sublayers.insert(child, at: renderIndex(index, in: parent))
            nodes[existing: child].superlayer = parent
            if !timedLayers.isEmpty { context.timeChanged = true }
        case .detach(let id):
            if !startRemoval(id, context: &context) { detach(id) }
            if !timedLayers.isEmpty { context.timeChanged = true }
        case .transitions(let id, let transitions):
            context.transitions[id] = transitions
        case .match(let from, let to):
            context.matches.append((from, to))
        case .contentTransition(let id, let transition):
            startContentTransition(id, transition, context: &context)
        case .transaction(let settings):
            context.settings = settings
        case .addAnimation(let id, let key, let compiled, let slots):
            if !key.isEmpty { removeExpressions(of: id) { $0.key == key } }
            insert(LayerAnimation(key: key, compiled: compiled, slots: slots, beginTime: context.time,
                                  isImplicit: false, completionIDs: context.settings.completionIDs), into: id,
                   context: &context)
        case .removeAnimation(let id, let key):
            removeAnimations(of: id) { $0.key == key }
            removeExpressions(of: id) { $0.key == key }
        case .removeAllAnimations(let id):
            removeAnimations(of: id) { _ in true }
            removeExpressions(of: id) { _ in true }
        case .addExpression(let id, let expression):
            addExpression(expression, to: id)
        case .completion(let id):
            context.declared.append(id)
        }
    }

    private mutating func detach(_ id: LayerID) {
        guard let parent = nodes[existing: id].superlayer else { return }
        nodes[existing: parent].sublayers.removeAll { $0 == id }
        nodes[existing: id].superlayer = nil
    }

    private mutating func removeClient(_ client: UInt32) {
        let container = LayerID.clientRoot(client)
        nodes[existing: .root].sublayers.removeAll { $0 == container }
        nodes.removeAll { $0.id.client == client }
        animatedLayers = animatedLayers.filter { $0.client != client }
        fadingLayers = fadingLayers.filter { $0.client != client }
        timedLayers = timedLayers.filter { $0.client != client }
        departing = departing.filter { $0.key.client != client }
        emitterHistory = emitterHistory.filter { $0.key.client != client }
        for id in contentTransitions.keys.sorted() where id.client == client { endContentTransition(of: id) }
        programs.removeClient(client)
        runningAnimations = 0
        for id in animatedLayers {
            for a in nodes[existing: id].animations where !a.hasEnded { runningAnimations += 1 }
        }
        completionCounts = completionCounts.filter { $0.key.client != client }
        declaredCompletions.removeAll { $0.client == client }
    }

    /// Visits layers depth first in painter's order (a layer before its sublayers, sublayers
    /// back to front), from `start`.
    public func visit(from start: LayerID = .root, _ body: (LayerNode, Int) -> Bool) {
        nodes.visit(from: start, body)
    }
}
