import LaminaAnimation
import LaminaExpression
import LaminaGeometry
import Synchronization
import LaminaModel

// Path templates and expression animations on the render side (issue 15).
//
// Per frame, after the ordinary animations: every expression animation in dependency order
// (each reads presentation values, writes one number), then the path templates whose inputs
// may have changed — all of them in a frame whose presentation tree was rebuilt (a commit, an
// animation ended), otherwise only those of layers with animations or driven by an
// expression. A template runs again only when a custom property or bounds field it reads
// differs bit for bit from its last run (`PathTemplateEvaluator`), otherwise its last path
// (the same storage) is written back, which the draw-list builder's mesh memo recognises
// without hashing the path.

/// The render tree's index of layers with templates or expressions, and the template
/// outputs it keeps between frames (shared by the tree's presentation copies).
extension LayerTree {
    /// True while any layer has an expression animation: expressions may read the compositor
    /// time `t` (and follow other layers), so a tree holding one needs a frame every tick even
    /// when no ordinary animation runs (the render thread's idle rule asks this beside
    /// `runningAnimations`).
    public var hasExpressions: Bool { !programs.expressionLayers.isEmpty }

    /// True while templates that the frame's step budget left at their previous output have
    /// not yet reached every presentation tree: the next frames carry on with them (two
    /// after the last one left out), so they are needed.
    public var hasDeferredPrograms: Bool {
        programs.isActive && programs.cache.state.withLock { $0.catchUp > 0 }
    }
}

struct ProgramIndex: Sendable {
    var templateLayers: Set<LayerID> = []
    var expressionLayers: Set<LayerID> = []
    let cache = TemplateCache()

    var isActive: Bool { !templateLayers.isEmpty || !expressionLayers.isEmpty }

    mutating func note(_ id: LayerID, _ templates: LayerTemplates) {
        if !templates.isEmpty { templateLayers.insert(id) } else if !templateLayers.isEmpty { templateLayers.remove(id) }
    }

    mutating func remove(_ id: LayerID) {
        if !templateLayers.isEmpty { templateLayers.remove(id) }
        if !expressionLayers.isEmpty { expressionLayers.remove(id) }
    }

    mutating func removeClient(_ client: UInt32) {
        templateLayers = templateLayers.filter { $0.client != client }
        expressionLayers = expressionLayers.filter { $0.client != client }
    }
}

/// Each template's last inputs and output, by layer and key path. Evaluation happens under
/// its lock (one lock per frame), so trees that share it may be evaluated on any thread.
final class TemplateCache: Sendable {
    struct Key: Hashable { var layer: LayerID; var shadow: Bool }

    /// One template's evaluator and the buffer its inputs are gathered in.
    final class Entry: @unchecked Sendable {
        // @unchecked: mutated only while `TemplateCache.state` is locked.
        let template: LayerTemplate
        var evaluator: PathTemplateEvaluator
        var inputs: [Double]
        init(_ template: LayerTemplate) {
            self.template = template
            evaluator = PathTemplateEvaluator(template.template)
            inputs = Array(repeating: 0, count: template.inputNames.count)
        }
    }

    struct State {
        var entries: [Key: Entry] = [:]
        /// Template runs so far (statistics, tests).
        var evaluations = 0
        /// Reference values of the expression being evaluated.
        var values: [Double] = []
        /// Steps all templates and expressions together may spend in one frame (config
        /// `maxProgramStepsPerFrame`).
        var frameBudget = LayerTree.defaultProgramStepsPerFrame
        /// Steps spent by the last evaluation, and how many programs it left at their
        /// previous output for want of budget (statistics, tests).
        var lastSteps = 0
        var lastDeferred = 0
        /// Where the next frame starts among the templates that may run: after one that the
        /// budget could not pay for, so a long template cannot starve those after it.
        var nextTemplate = 0
        /// Evaluations still to consider every template, as a fresh frame does: set when one
        /// is left at its previous output, and kept for two evaluations after the last such,
        /// so that both presentation trees the render side alternates between
        /// (`SnapshotMaker`) receive the outputs of the templates that ran late.
        var catchUp = 0
        /// Each expression's last result, by `ProgramPlan.expressions` index, with the keys
        /// that carry them over when the plan is rebuilt (`ProgramPlan.init`).
        var expressionKeys: [ExpressionOutputKey] = []
        var expressionValues: [Double] = []
    }

    /// An expression by its layer and its place among the layer's expressions.
    struct ExpressionOutputKey: Hashable { var layer: LayerID; var ordinal: Int }

    let state = Mutex(State())

    /// The entries for `wanted`, reusing those whose template is unchanged; entries of layers
    /// no longer listed are dropped.
    func entries(for wanted: [(Key, LayerTemplate)]) -> [Entry] {
        state.withLock { s in
            var kept: [Key: Entry] = [:]
            kept.reserveCapacity(wanted.count)
            let out = wanted.map { key, template in
                let e = s.entries[key].flatMap { $0.template == template ? $0 : nil } ?? Entry(template)
                kept[key] = e
                return e
            }
            s.entries = kept
            return out
        }
    }
}

/// A presentation plan's part for templates and expressions, built per model version.
struct ProgramPlan: Sendable {
    struct Template: Sendable {
        var index: PresentationPlan.NodeIndex
        var shadow: Bool
        /// Whether its inputs may change between commits (the layer has animations or an
        /// expression writes to it).
        var dynamic: Bool
        var entry: TemplateCache.Entry
    }

    struct Expression: Sendable {
        var index: PresentationPlan.NodeIndex
        var slot: PropertySlot
        var compiled: LayerExpression.Compiled
        var references: Range<Int>
        /// Its layer's local time (`t` reads it).
        var time: LayerTime
        /// On a non-finite result, put the model value back (no animation of the layer
        /// writes the slot each frame).
        var resetOnNaN: Bool
    }

    /// A reference resolved to a storage index (-1: the layer is gone, it reads NaN).
    struct Reference: Sendable { var index: Int; var slot: PropertySlot }

    var cache: TemplateCache
    var templates: [Template] = []
    var expressions: [Expression] = []
    var references: [Reference] = []
    var maxReferences = 0

    init(_ tree: LayerTree) {
        cache = tree.programs.cache
        // Expressions, all clients together, in dependency order (checked at commit, so a
        // cycle cannot happen here; should one, the order given is kept).
        var list: [(LayerID, LayerExpression, Int)] = []
        for id in tree.programs.expressionLayers.sorted() {
            for (k, e) in tree.nodes[existing: id].expressions.enumerated() { list.append((id, e, k)) }
        }
        let order = (try? LayerExpression.order(list.map { ($0.0, $0.1) })) ?? Array(list.indices)
        var driven: Set<LayerID> = []
        var outputKeys: [TemplateCache.ExpressionOutputKey] = []
        for i in order {
            let (id, e, ordinal) = list[i]
            guard let index = tree.nodes.slot(of: id) else { continue }
            driven.insert(id)
            outputKeys.append(.init(layer: id, ordinal: ordinal))
            let start = references.count
            for r in e.references {
                references.append(Reference(index: tree.nodes.slot(of: r.layer) ?? -1, slot: r.slot))
            }
            maxReferences = max(maxReferences, e.references.count)
            let animated = tree.nodes.storage[index].animations.contains { a in
                a.slots.contains { $0 == e.slot || LayerTree.overlaps($0, e.slot) }
            }
            expressions.append(Expression(index: index, slot: e.slot, compiled: e.compiled,
                                          references: start ..< references.count, time: tree.layerTime(of: id),
                                          resetOnNaN: !animated))
        }
        // Templates, in storage order.
        var wanted: [(TemplateCache.Key, LayerTemplate)] = []
        var placed: [(PresentationPlan.NodeIndex, Bool, Bool)] = []
        let indices = tree.programs.templateLayers.compactMap { tree.nodes.slot(of: $0) }.sorted()
        for index in indices {
            let node = tree.nodes.storage[index]
            let dynamic = !node.animations.isEmpty || driven.contains(node.id)
            if let t = node.properties.templates.path {
                wanted.append((.init(layer: node.id, shadow: false), t)); placed.append((index, false, dynamic))
            }
            if let t = node.properties.templates.shadowPath {
                wanted.append((.init(layer: node.id, shadow: true), t)); placed.append((index, true, dynamic))
            }
        }
        let entries = cache.entries(for: wanted)
        templates = zip(placed, entries).map { Template(index: $0.0, shadow: $0.1, dynamic: $0.2, entry: $1) }
        // Carry the expressions' last results over to the new order.
        cache.state.withLock { s in
            guard s.expressionKeys != outputKeys else { return }
            var old: [TemplateCache.ExpressionOutputKey: Double] = [:]
            for (k, v) in zip(s.expressionKeys, s.expressionValues) { old[k] = v }
            s.expressionKeys = outputKeys
            s.expressionValues = outputKeys.map { old[$0] ?? .nan }
        }
    }
}

extension LayerTree {
    /// The default of config `maxProgramStepsPerFrame`: 4,000,000 steps, four runs of a
    /// template at its own cap (`ExpressionLimits.maxSteps`).
    public static let defaultProgramStepsPerFrame = 4_000_000

    /// Runs the expressions, then the templates, into the presentation nodes (see the top of
    /// this file). `fresh`: the presentation tree was rebuilt from the model this frame.
    ///
    /// All of them share one step budget per call (`programStepsPerFrame`): an expression
    /// costs its code's length, a template its code's length plus the loop steps it spends.
    /// Once the budget cannot pay for the next one, it and every later one keep their
    /// previous output (an expression its last result, or the value already in the node if
    /// it never ran; a template its last path, or none), and the next frame's templates start
    /// with the first one left out.
    func evaluate(_ plan: ProgramPlan, _ nodes: UnsafeMutableBufferPointer<LayerNode>, fresh: Bool, at t: Double) {
        plan.cache.state.withLock { s in
            var budget = s.frameBudget
            var deferred = 0
            if !plan.expressions.isEmpty {
                if s.values.count < plan.maxReferences { s.values = Array(repeating: 0, count: plan.maxReferences) }
                let outputs = s.expressionValues.count == plan.expressions.count
                for (i, e) in plan.expressions.enumerated() {
                    let cost = e.compiled.expression.cost
                    guard budget >= cost else {
                        budget = 0
                        deferred += 1
                        if outputs, !s.expressionValues[i].isNaN { nodes[e.index].properties.setNumber(s.expressionValues[i], at: e.slot) }
                        continue
                    }
                    budget -= cost
                    var k = 0
                    for r in plan.references[e.references] {
                        s.values[k] = r.index < 0 ? .nan : nodes[r.index].properties.number(at: r.slot)
                        k += 1
                    }
                    let v = e.compiled.expression.evaluate(time: e.time.local(t), values: s.values)
                    if v.isFinite {
                        nodes[e.index].properties.setNumber(v, at: e.slot)
                        if outputs { s.expressionValues[i] = v }
                    } else if e.resetOnNaN {
                        nodes[e.index].properties.setNumber(self.nodes.storage[e.index].properties.number(at: e.slot), at: e.slot)
                    }
                }
            }
            let n = plan.templates.count
            let first = s.nextTemplate < n ? s.nextTemplate : 0
            var templateDeferred = false
            let all = fresh || s.catchUp > 0
            s.nextTemplate = 0
            for j in 0 ..< n {
                let b = plan.templates[(first + j) % n]
                guard all || b.dynamic else { continue }
                let entry = b.entry
                let names = entry.template.inputNames
                for k in names.indices { entry.inputs[k] = nodes[b.index].properties.customNumber(names[k]) }
                let before = entry.evaluator.evaluations
                let out = entry.evaluator.output(in: nodes[b.index].properties.bounds, inputs: entry.inputs, budget: &budget)
                s.evaluations += entry.evaluator.evaluations - before
                let path: Path?
                if let out {
                    path = out.path
                } else {
                    // Out of budget: the previous output (on a fresh node the plain path is nil).
                    if !templateDeferred { s.nextTemplate = (first + j) % n; templateDeferred = true }
                    deferred += 1
                    path = entry.evaluator.lastPath
                }
                if b.shadow { nodes[b.index].properties.shadowPath = path } else { nodes[b.index].properties.path = path }
            }
            s.catchUp = templateDeferred ? 2 : max(s.catchUp - 1, 0)
            s.lastSteps = s.frameBudget - budget
            s.lastDeferred = deferred
        }
    }

    /// Steps that templates and expressions together may spend in one frame (config
    /// `maxProgramStepsPerFrame`); shared by this tree's presentation copies.
    public var programStepsPerFrame: Int {
        get { programs.cache.state.withLock { $0.frameBudget } }
        nonmutating set { programs.cache.state.withLock { $0.frameBudget = max(newValue, 0) } }
    }

    /// The steps the last evaluation of templates and expressions spent, and how many of them
    /// it left at their previous output because the frame's budget ran out.
    public var lastProgramEvaluation: (steps: Int, deferred: Int) {
        programs.cache.state.withLock { ($0.lastSteps, $0.lastDeferred) }
    }

    /// How many times this tree's path templates have run (a template runs only in frames
    /// where something it reads changed).
    public var templateEvaluations: Int { programs.cache.state.withLock { $0.evaluations } }

    /// Adds an expression animation (replacing the layer's animation or expression with its key).
    mutating func addExpression(_ e: LayerExpression, to id: LayerID) {
        if !e.key.isEmpty {
            removeAnimations(of: id) { $0.key == e.key }
            removeExpressions(of: id) { $0.key == e.key }
        }
        nodes[existing: id].expressions.append(e)
        programs.expressionLayers.insert(id)
        bumpVersion()
        events.append(.animationStarted(id, key: e.key))
    }

    /// Removes a layer's expressions that match, reporting each stopped (unfinished).
    mutating func removeExpressions(of id: LayerID, where match: (LayerExpression) -> Bool) {
        guard let node = nodes[id], node.expressions.contains(where: match) else { return }
        for e in node.expressions where match(e) { events.append(.animationStopped(id, key: e.key, finished: false)) }
        nodes[existing: id].expressions.removeAll(where: match)
        if nodes[existing: id].expressions.isEmpty { programs.expressionLayers.remove(id) }
        bumpVersion()
    }
}

extension LayerProperties {
    /// The number at a number-valued slot (NaN if the slot holds something else).
    @inline(__always)
    func number(at slot: PropertySlot) -> Double {
        if case .double(let v) = animatableValue(at: slot) { return v }
        return .nan
    }

    /// Writes a number at a number-valued slot (a one-number custom property in place).
    @inline(__always)
    mutating func setNumber(_ v: Double, at slot: PropertySlot) {
        if case .custom(let name) = slot, custom[name]?.count == 1 {
            custom[name]![0] = v
            return
        }
        setAnimatableValue(.double(v), at: slot)
    }
}
