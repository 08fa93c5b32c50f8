import LaminaAnimation
import LaminaGeometry

/// Where an animation binding reads and writes in `LayerProperties`, resolved from its
/// `PropertySlot` once (a trivial enum: no string, no reference counting per frame).
/// `generic` covers the kinds without a typed entry point (paths, lists, custom numbers),
/// which go through `AnimatableValue` and the binding's slot.
enum PresentationChannel: Sendable {
    case bounds, boundsOrigin, boundsOriginX, boundsOriginY, boundsSize, boundsWidth, boundsHeight
    case position, positionX, positionY, zPosition, anchorPoint, anchorPointX, anchorPointY, anchorPointZ
    case transform, sublayerTransform
    case transformComponent(TransformComponent), sublayerTransformComponent(TransformComponent)
    case opacity, cornerRadius, borderWidth, borderColor, backgroundColor
    case shadowColor, shadowOpacity, shadowOffset, shadowOffsetWidth, shadowOffsetHeight, shadowRadius
    case fillColor, strokeColor, lineWidth, miterLimit, lineDashPhase, strokeStart, strokeEnd
    case startPoint, endPoint
    case generic

    init(_ slot: PropertySlot) {
        switch slot {
        case .bounds: self = .bounds
        case .boundsOrigin: self = .boundsOrigin
        case .boundsOriginX: self = .boundsOriginX
        case .boundsOriginY: self = .boundsOriginY
        case .boundsSize: self = .boundsSize
        case .boundsWidth: self = .boundsWidth
        case .boundsHeight: self = .boundsHeight
        case .position: self = .position
        case .positionX: self = .positionX
        case .positionY: self = .positionY
        case .zPosition: self = .zPosition
        case .anchorPoint: self = .anchorPoint
        case .anchorPointX: self = .anchorPointX
        case .anchorPointY: self = .anchorPointY
        case .anchorPointZ: self = .anchorPointZ
        case .transform: self = .transform
        case .sublayerTransform: self = .sublayerTransform
        case .transformComponent(let c): self = .transformComponent(c)
        case .sublayerTransformComponent(let c): self = .sublayerTransformComponent(c)
        case .opacity: self = .opacity
        case .cornerRadius: self = .cornerRadius
        case .borderWidth: self = .borderWidth
        case .borderColor: self = .borderColor
        case .backgroundColor: self = .backgroundColor
        case .shadowColor: self = .shadowColor
        case .shadowOpacity: self = .shadowOpacity
        case .shadowOffset: self = .shadowOffset
        case .shadowOffsetWidth: self = .shadowOffsetWidth
        case .shadowOffsetHeight: self = .shadowOffsetHeight
        case .shadowRadius: self = .shadowRadius
        case .fillColor: self = .fillColor
        case .strokeColor: self = .strokeColor
        case .lineWidth: self = .lineWidth
        case .miterLimit: self = .miterLimit
        case .lineDashPhase: self = .lineDashPhase
        case .strokeStart: self = .strokeStart
        case .strokeEnd: self = .strokeEnd
        case .startPoint: self = .startPoint
        case .endPoint: self = .endPoint
        case .shadowPath, .path, .lineDashPattern, .colors, .locations, .custom: self = .generic
        }
    }

    /// The value kind a plain binding of this channel must have to take the fast path
    /// (`PresentationPlan.Plain`); nil for channels that always take the general one.
    /// A transform component qualifies only as its layer's first `transform` writer.
    var plainKind: AnimatableValue.Kind? {
        switch self {
        case .boundsOriginX, .boundsOriginY, .boundsWidth, .boundsHeight, .positionX, .positionY, .zPosition,
             .anchorPointX, .anchorPointY, .anchorPointZ, .opacity, .cornerRadius, .borderWidth, .shadowOpacity,
             .shadowOffsetWidth, .shadowOffsetHeight, .shadowRadius, .lineWidth, .miterLimit, .lineDashPhase,
             .strokeStart, .strokeEnd, .transformComponent:
            return .double
        case .boundsOrigin, .position, .anchorPoint, .startPoint, .endPoint: return .point
        case .boundsSize, .shadowOffset: return .size
        case .bounds: return .rect
        case .borderColor, .backgroundColor, .shadowColor, .fillColor, .strokeColor: return .color
        case .transform, .sublayerTransform, .sublayerTransformComponent, .generic: return nil
        }
    }
}

/// The render thread's flat list of what to evaluate per frame, built once per model version
/// (kept in the presentation tree): per animated layer its node's storage index, and per
/// (animation, key path) a binding with the compiled animation and the resolved channel.
/// A frame walks the bindings and writes the results in place into the presentation
/// properties: no dictionary lookup by id, no copy of `LayerProperties` or `AnimatableValue`.
struct PresentationPlan: Sendable {
    typealias NodeIndex = Int

    struct Group: Sendable {
        /// The layer's index in the model tree's (and so the presentation tree's) storage.
        var index: NodeIndex
        var start: Int
        var end: Int
    }

    /// A compiled animation behind a reference, so that a frame reaches it through an
    /// unretained pointer without copying the struct (and retaining its arrays).
    final class Box: Sendable {
        let animation: CompiledAnimation
        init(_ animation: CompiledAnimation) { self.animation = animation }
    }

    struct Binding: @unchecked Sendable {
        var animation: Unmanaged<Box>   // kept alive by `compiled`
        var keyPath: Int            // key path number in the compiled animation
        var channel: PresentationChannel
        var slot: Int               // into `slots` (generic channels), else -1
        /// Into `prepared`: a transform component that is the first writer of its layer's
        /// `transform` reads and recomposes the model transform, whose decomposition is kept.
        var prepared: Int = -1
        /// Into `plain`: the binding is a plain basic animation (fast path), else -1.
        var plain: Int = -1
        var beginTime: Double
        var endTime: Double
        var removedOnCompletion: Bool
    }

    /// A binding that is one plain basic animation (`CompiledAnimation.plainBasic`): its
    /// timing constants, ends and easing (an index into `easings`, -1 for linear), so that a
    /// frame evaluates it without reaching into the compiled animation. Plain data.
    struct Plain: Sendable {
        var timing: PreparedTiming
        var from: SIMD4<Double>
        var to: SIMD4<Double>
        var easing: Int
    }

    var version: UInt64
    var count: Int
    var groups: [Group] = []
    var bindings: [Binding] = []
    var compiled: [Box] = []
    var slots: [PropertySlot] = []
    var prepared: [TransformComponent.Prepared] = []
    var plain: [Plain] = []
    /// The distinct non-linear easings of `plain` (most animations share a few).
    var easings: [Easing] = []

    init(_ tree: LayerTree) {
        version = tree.version
        count = tree.count
        groups.reserveCapacity(tree.animatedLayers.count)
        bindings.reserveCapacity(tree.animatedLayers.count)
        compiled.reserveCapacity(tree.animatedLayers.count)
        var easingIndex: [Easing: Int] = [:]
        // In storage order, so that a frame walks the nodes forward (the set's order is its
        // hash order: a cache miss per layer on a large tree).
        let indices = tree.animatedLayers.compactMap { tree.nodes.slot(of: $0) }.sorted()
        for index in indices {
            let start = bindings.count
            var transformWritten = false
            for a in tree.nodes.storage[index].animations {
                let box = Box(a.compiled)
                compiled.append(box)
                let k = Unmanaged.passUnretained(box)
                for (i, slot) in a.slots.enumerated() {
                    let channel = PresentationChannel(slot)
                    var s = -1
                    if case .generic = channel { s = slots.count; slots.append(slot) }
                    var b = Binding(animation: k, keyPath: i, channel: channel, slot: s,
                                    beginTime: a.beginTime, endTime: a.compiled.endTime,
                                    removedOnCompletion: a.compiled.removedOnCompletion)
                    var transformFirst = false
                    switch channel {
                    case .transformComponent(let c):
                        if !transformWritten && !c.isSize {
                            b.prepared = prepared.count
                            prepared.append(.init(c, tree.nodes.storage[index].properties.transform, number: true))
                            transformFirst = true
                        }
                        transformWritten = true
                    case .transform: transformWritten = true
                    default: break
                    }
                    var eligible = true
                    if case .transformComponent = channel { eligible = transformFirst }
                    if eligible, let kind = channel.plainKind,
                       let curve = a.compiled.plainBasic(forKeyPathAt: i), curve.kind == kind {
                        var e = -1
                        if !curve.easing.isLinear {
                            if let known = easingIndex[curve.easing] { e = known } else {
                                e = easings.count; easingIndex[curve.easing] = e; easings.append(curve.easing)
                            }
                        }
                        b.plain = plain.count
                        plain.append(Plain(timing: curve.timing, from: curve.from, to: curve.to, easing: e))
                    }
                    bindings.append(b)
                }
            }
            if bindings.count > start { groups.append(Group(index: index, start: start, end: bindings.count)) }
        }
    }
}

extension LayerTree {
    /// Patches the presentation properties of one animated layer in place: the stored
    /// properties its animations touch go back to the model values, then each binding applies
    /// in the order added (each reading what the previous wrote).
    @inline(__always)
    func evaluate(_ g: PresentationPlan.Group, into p: inout LayerProperties,
                  _ bindings: UnsafeBufferPointer<PresentationPlan.Binding>, _ slots: [PropertySlot],
                  _ prepared: UnsafeBufferPointer<TransformComponent.Prepared>,
                  _ plain: UnsafeBufferPointer<PresentationPlan.Plain>, _ easings: UnsafeBufferPointer<Easing>,
                  at t: Double) {
        for j in g.start..<g.end { resetStored(bindings[j], g.index, into: &p, slots) }
        for j in g.start..<g.end {
            let b = bindings[j]
            let local = t - b.beginTime
            if b.removedOnCompletion && local >= b.endTime { continue }
            if b.plain >= 0 {
                // One plain basic animation: what its typed entry point answers (see
                // `PlainBasicCurve`), from the plan's copy of its constants.
                let c = plain.baseAddress! + b.plain
                guard !local.isNaN, let f = c.pointee.timing.fraction(at: local) else { continue }
                let e = c.pointee.easing
                let progress = e < 0 ? f : Easing.progress(in: easings, at: e, f)
                let v = PlainBasicCurve.value(from: c.pointee.from, to: c.pointee.to, progress: progress)
                if b.prepared >= 0, case .transformComponent(let tc) = b.channel {
                    p.transform = tc.setting(v.x, in: (prepared.baseAddress! + b.prepared).pointee)
                } else {
                    Self.write(v, b.channel, to: &p)
                }
                continue
            }
            if b.prepared >= 0, case .transformComponent(let tc) = b.channel {
                // The first writer of `transform`: it holds the model value (reset above).
                let base = prepared.baseAddress! + b.prepared
                if let v = b.animation._withUnsafeGuaranteedRef({
                    $0.animation.doubleValue(forKeyPathAt: b.keyPath, at: local, underlying: base.pointee.number)
                }) {
                    p.transform = tc.setting(v, in: base.pointee)
                }
                continue
            }
            b.animation._withUnsafeGuaranteedRef { Self.apply(b, $0, at: local, to: &p, slots) }
        }
    }

    /// Writes a plain binding's value (lanes, see `PlainBasicCurve.value`) to its channel,
    /// converting as the typed entry points do. Only channels with a `plainKind`.
    @inline(__always)
    static func write(_ v: SIMD4<Double>, _ channel: PresentationChannel, to p: inout LayerProperties) {
        switch channel {
        case .bounds: p.bounds = Rect(v.x, v.y, v.z, v.w)
        case .boundsOrigin: p.bounds.origin = Point(v.x, v.y)
        case .boundsOriginX: p.bounds.origin.x = v.x
        case .boundsOriginY: p.bounds.origin.y = v.x
        case .boundsSize: p.bounds.size = Size(v.x, v.y)
        case .boundsWidth: p.bounds.size.width = v.x
        case .boundsHeight: p.bounds.size.height = v.x
        case .position: p.position = Point(v.x, v.y)
        case .positionX: p.position.x = v.x
        case .positionY: p.position.y = v.x
        case .zPosition: p.zPosition = v.x
        case .anchorPoint: p.anchorPoint = Point(v.x, v.y)
        case .anchorPointX: p.anchorPoint.x = v.x
        case .anchorPointY: p.anchorPoint.y = v.x
        case .anchorPointZ: p.anchorPointZ = v.x
        case .opacity: p.opacity = v.x
        case .cornerRadius: p.cornerRadius = v.x
        case .borderWidth: p.borderWidth = v.x
        case .borderColor: p.borderColor = Color.fromPremultiplied(v.x, v.y, v.z, v.w)
        case .backgroundColor: p.backgroundColor = Color.fromPremultiplied(v.x, v.y, v.z, v.w)
        case .shadowColor: p.shadowColor = Color.fromPremultiplied(v.x, v.y, v.z, v.w)
        case .shadowOpacity: p.shadowOpacity = v.x
        case .shadowOffset: p.shadowOffset = Size(v.x, v.y)
        case .shadowOffsetWidth: p.shadowOffset.width = v.x
        case .shadowOffsetHeight: p.shadowOffset.height = v.x
        case .shadowRadius: p.shadowRadius = v.x
        case .fillColor: p.fillColor = Color.fromPremultiplied(v.x, v.y, v.z, v.w)
        case .strokeColor: p.strokeColor = Color.fromPremultiplied(v.x, v.y, v.z, v.w)
        case .lineWidth: p.lineWidth = v.x
        case .miterLimit: p.miterLimit = v.x
        case .lineDashPhase: p.lineDashPhase = v.x
        case .strokeStart: p.strokeStart = v.x
        case .strokeEnd: p.strokeEnd = v.x
        case .startPoint: p.startPoint = Point(v.x, v.y)
        case .endPoint: p.endPoint = Point(v.x, v.y)
        case .transform, .sublayerTransform, .transformComponent, .sublayerTransformComponent, .generic:
            preconditionFailure("channel \(channel) has no plain kind")
        }
    }

    /// Puts back the model value of the stored property a binding writes.
    @inline(__always)
    func resetStored(_ b: PresentationPlan.Binding, _ i: PresentationPlan.NodeIndex, into p: inout LayerProperties,
                     _ slots: [PropertySlot]) {
        switch b.channel {
        case .bounds, .boundsOrigin, .boundsOriginX, .boundsOriginY, .boundsSize, .boundsWidth, .boundsHeight:
            p.bounds = nodes.storage[i].properties.bounds
        case .position, .positionX, .positionY: p.position = nodes.storage[i].properties.position
        case .zPosition: p.zPosition = nodes.storage[i].properties.zPosition
        case .anchorPoint, .anchorPointX, .anchorPointY: p.anchorPoint = nodes.storage[i].properties.anchorPoint
        case .anchorPointZ: p.anchorPointZ = nodes.storage[i].properties.anchorPointZ
        case .transform, .transformComponent: p.transform = nodes.storage[i].properties.transform
        case .sublayerTransform, .sublayerTransformComponent:
            p.sublayerTransform = nodes.storage[i].properties.sublayerTransform
        case .opacity: p.opacity = nodes.storage[i].properties.opacity
        case .cornerRadius: p.cornerRadius = nodes.storage[i].properties.cornerRadius
        case .borderWidth: p.borderWidth = nodes.storage[i].properties.borderWidth
        case .borderColor: p.borderColor = nodes.storage[i].properties.borderColor
        case .backgroundColor: p.backgroundColor = nodes.storage[i].properties.backgroundColor
        case .shadowColor: p.shadowColor = nodes.storage[i].properties.shadowColor
        case .shadowOpacity: p.shadowOpacity = nodes.storage[i].properties.shadowOpacity
        case .shadowOffset, .shadowOffsetWidth, .shadowOffsetHeight: p.shadowOffset = nodes.storage[i].properties.shadowOffset
        case .shadowRadius: p.shadowRadius = nodes.storage[i].properties.shadowRadius
        case .fillColor: p.fillColor = nodes.storage[i].properties.fillColor
        case .strokeColor: p.strokeColor = nodes.storage[i].properties.strokeColor
        case .lineWidth: p.lineWidth = nodes.storage[i].properties.lineWidth
        case .miterLimit: p.miterLimit = nodes.storage[i].properties.miterLimit
        case .lineDashPhase: p.lineDashPhase = nodes.storage[i].properties.lineDashPhase
        case .strokeStart: p.strokeStart = nodes.storage[i].properties.strokeStart
        case .strokeEnd: p.strokeEnd = nodes.storage[i].properties.strokeEnd
        case .startPoint: p.startPoint = nodes.storage[i].properties.startPoint
        case .endPoint: p.endPoint = nodes.storage[i].properties.endPoint
        case .generic:
            switch slots[b.slot] {
            case .shadowPath: p.shadowPath = nodes.storage[i].properties.shadowPath
            case .path: p.path = nodes.storage[i].properties.path
            case .lineDashPattern: p.lineDashPattern = nodes.storage[i].properties.lineDashPattern
            case .colors: p.colors = nodes.storage[i].properties.colors
            case .locations: p.locations = nodes.storage[i].properties.locations
            case .custom(let name): p.custom[name] = nodes.storage[i].properties.custom[name]
            default: break
            }
        }
    }

    /// One binding through the typed entry points (the same answers as
    /// `value(forKeyPathAt:at:underlying:)` followed by `setAnimatableValue`).
    @inline(__always)
    static func apply(_ b: PresentationPlan.Binding, _ box: PresentationPlan.Box, at t: Double,
                      to p: inout LayerProperties, _ slots: [PropertySlot]) {
        let i = b.keyPath
        switch b.channel {
        case .bounds: if let v = box.animation.rectValue(forKeyPathAt: i, at: t, underlying: p.bounds) { p.bounds = v }
        case .boundsOrigin: if let v = box.animation.pointValue(forKeyPathAt: i, at: t, underlying: p.bounds.origin) { p.bounds.origin = v }
        case .boundsOriginX: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.bounds.origin.x) { p.bounds.origin.x = v }
        case .boundsOriginY: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.bounds.origin.y) { p.bounds.origin.y = v }
        case .boundsSize: if let v = box.animation.sizeValue(forKeyPathAt: i, at: t, underlying: p.bounds.size) { p.bounds.size = v }
        case .boundsWidth: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.bounds.size.width) { p.bounds.size.width = v }
        case .boundsHeight: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.bounds.size.height) { p.bounds.size.height = v }
        case .position: if let v = box.animation.pointValue(forKeyPathAt: i, at: t, underlying: p.position) { p.position = v }
        case .positionX: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.position.x) { p.position.x = v }
        case .positionY: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.position.y) { p.position.y = v }
        case .zPosition: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.zPosition) { p.zPosition = v }
        case .anchorPoint: if let v = box.animation.pointValue(forKeyPathAt: i, at: t, underlying: p.anchorPoint) { p.anchorPoint = v }
        case .anchorPointX: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.anchorPoint.x) { p.anchorPoint.x = v }
        case .anchorPointY: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.anchorPoint.y) { p.anchorPoint.y = v }
        case .anchorPointZ: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.anchorPointZ) { p.anchorPointZ = v }
        case .transform: if let v = box.animation.transformValue(forKeyPathAt: i, at: t, underlying: p.transform) { p.transform = v }
        case .sublayerTransform:
            if let v = box.animation.transformValue(forKeyPathAt: i, at: t, underlying: p.sublayerTransform) { p.sublayerTransform = v }
        case .transformComponent(let tc):
            if tc.isSize {
                if let v = box.animation.sizeValue(forKeyPathAt: i, at: t, underlying: tc.size(of: p.transform)) { p.transform = tc.setting(v, in: p.transform) }
            } else {
                if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: tc.number(of: p.transform)) { p.transform = tc.setting(v, in: p.transform) }
            }
        case .sublayerTransformComponent(let tc):
            if tc.isSize {
                if let v = box.animation.sizeValue(forKeyPathAt: i, at: t, underlying: tc.size(of: p.sublayerTransform)) {
                    p.sublayerTransform = tc.setting(v, in: p.sublayerTransform)
                }
            } else {
                if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: tc.number(of: p.sublayerTransform)) {
                    p.sublayerTransform = tc.setting(v, in: p.sublayerTransform)
                }
            }
        case .opacity: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.opacity) { p.opacity = v }
        case .cornerRadius: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.cornerRadius) { p.cornerRadius = v }
        case .borderWidth: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.borderWidth) { p.borderWidth = v }
        case .borderColor: if let v = box.animation.colorValue(forKeyPathAt: i, at: t, underlying: p.borderColor ?? .clear) { p.borderColor = v }
        case .backgroundColor:
            if let v = box.animation.colorValue(forKeyPathAt: i, at: t, underlying: p.backgroundColor ?? .clear) { p.backgroundColor = v }
        case .shadowColor: if let v = box.animation.colorValue(forKeyPathAt: i, at: t, underlying: p.shadowColor ?? .clear) { p.shadowColor = v }
        case .shadowOpacity: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.shadowOpacity) { p.shadowOpacity = v }
        case .shadowOffset: if let v = box.animation.sizeValue(forKeyPathAt: i, at: t, underlying: p.shadowOffset) { p.shadowOffset = v }
        case .shadowOffsetWidth:
            if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.shadowOffset.width) { p.shadowOffset.width = v }
        case .shadowOffsetHeight:
            if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.shadowOffset.height) { p.shadowOffset.height = v }
        case .shadowRadius: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.shadowRadius) { p.shadowRadius = v }
        case .fillColor: if let v = box.animation.colorValue(forKeyPathAt: i, at: t, underlying: p.fillColor ?? .clear) { p.fillColor = v }
        case .strokeColor: if let v = box.animation.colorValue(forKeyPathAt: i, at: t, underlying: p.strokeColor ?? .clear) { p.strokeColor = v }
        case .lineWidth: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.lineWidth) { p.lineWidth = v }
        case .miterLimit: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.miterLimit) { p.miterLimit = v }
        case .lineDashPhase: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.lineDashPhase) { p.lineDashPhase = v }
        case .strokeStart: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.strokeStart) { p.strokeStart = v }
        case .strokeEnd: if let v = box.animation.doubleValue(forKeyPathAt: i, at: t, underlying: p.strokeEnd) { p.strokeEnd = v }
        case .startPoint: if let v = box.animation.pointValue(forKeyPathAt: i, at: t, underlying: p.startPoint) { p.startPoint = v }
        case .endPoint: if let v = box.animation.pointValue(forKeyPathAt: i, at: t, underlying: p.endPoint) { p.endPoint = v }
        case .generic:
            let slot = slots[b.slot]
            var u = p.animatableValue(at: slot)
            if box.animation.apply(forKeyPathAt: i, at: t, to: &u) { p.setAnimatableValue(u, at: slot) }
        }
    }
}
