import LaminaAnimation
import LaminaGeometry
import LaminaModel

// Matched geometry (SwiftUI's matchedGeometryEffect), run on the render thread when a packet
// has applied, from presentation values:
// - `to` starts at `from`'s presentation frame — its bounds' centre and size in the canvas,
//   through every superlayer's transform, brought into `to`'s superlayer — and its corner
//   radius, and animates to its own model values; its opacity goes 0 → its own.
// - `from` animates to `to`'s model frame (brought into `from`'s superlayer) and to opacity 0,
//   and holds there until a later match names it.
// A layer that is mid-match starts from its own presentation values instead (a match back
// retargets without a jump). The animations are implicit ones under the keys `match.*`.
// Under Reduce Motion (a packet's `reducedMotion`) the match is a cross-fade: `to` stays at its
// own frame (opacity 0 → its own; mid-match it still goes on from where it is), `from` stays
// where it is now, its opacity going to 0.

extension LayerTree {
    static let matchKeyPrefix = "match."

    private static let matchSlots: [(key: String, keyPath: String, slot: PropertySlot)] =
        ["position", "bounds.size", "cornerRadius", "opacity"].map { keyPath in
            (key: "match." + keyPath, keyPath: keyPath, slot: PropertySlot(keyPath: keyPath)!)
        }

    /// The transform from a layer's superlayer's space to the canvas, with the presentation
    /// values at `t` of every superlayer above it (a client's container adds nothing).
    func superlayerToCanvas(_ id: LayerID, at t: Double) -> Transform3D {
        var m = Transform3D.identity
        var cur = nodes[id]?.superlayer
        while let s = cur, !s.isClientRoot, s != .root {
            var p = nodes[existing: s].properties
            Self.applyAnimations(nodes[existing: s].animations, to: &p, at: t)
            m = m.concatenating(p.transformToSuperlayer)
            cur = nodes[existing: s].superlayer
        }
        return m
    }

    /// How much `m` scales lengths along x and y (in the plane).
    private static func scales(_ m: Transform3D) -> (Double, Double) {
        let o = m.apply(Point(0, 0)), x = m.apply(Point(1, 0)), y = m.apply(Point(0, 1))
        return ((x.x - o.x).magnitude2D(x.y - o.y), (y.x - o.x).magnitude2D(y.y - o.y))
    }

    /// A layer's frame in the canvas: its bounds' centre, its size and corner radius as the
    /// canvas sees them (through its own transform and its superlayers').
    private func canvasFrame(_ p: LayerProperties, superToCanvas: Transform3D) -> (centre: Point, size: Size, radius: Double) {
        let toCanvas = p.transformToSuperlayer.concatenating(superToCanvas)
        let b = p.bounds
        let centre = toCanvas.apply(Point(b.origin.x + b.size.width / 2, b.origin.y + b.size.height / 2))
        let (sx, sy) = Self.scales(toCanvas)
        return (centre, Size(b.size.width * sx, b.size.height * sy), p.cornerRadius * min(sx, sy))
    }

    /// `p` moved and sized so that its frame is `frame` (a canvas frame), in a superlayer whose
    /// space goes to the canvas by `superToCanvas`; its own transform is kept as it is.
    private static func placing(_ p: LayerProperties, at frame: (centre: Point, size: Size, radius: Double),
                                superToCanvas: Transform3D) -> LayerProperties {
        var q = p
        let (sx, sy) = scales(superToCanvas)
        let (ox, oy) = scales(p.transform)
        let inv = superToCanvas.inverted ?? .identity
        let c = inv.apply(frame.centre)
        let w = sx * ox > 0 ? frame.size.width / (sx * ox) : 0
        let h = sy * oy > 0 ? frame.size.height / (sy * oy) : 0
        q.bounds.size = Size(w, h)
        // The position is the anchor point's: the centre moved by the anchor's offset.
        q.position = Point(c.x + (p.anchorPoint.x - 0.5) * w * ox, c.y + (p.anchorPoint.y - 0.5) * h * oy)
        let k = min(sx * ox, sy * oy)
        q.cornerRadius = k > 0 ? frame.radius / k : 0
        return q
    }

    private mutating func addMatchAnimations(_ id: LayerID, from: LayerProperties, to: LayerProperties,
                                             holds: Bool, context: inout ApplyContext) {
        addPresentationAnimations(id, prefix: Self.matchKeyPrefix, slots: Self.matchSlots, from: from, to: to,
                                  holds: holds, context: &context)
    }

    mutating func startMatch(from: LayerID, to: LayerID, context: inout ApplyContext) {
        guard context.settings.runsActions, nodes[from] != nil, nodes[to] != nil else { return }
        let t = context.time
        func presented(_ id: LayerID) -> LayerProperties {
            var p = nodes[existing: id].properties
            Self.applyAnimations(nodes[existing: id].animations, to: &p, at: t)
            return p
        }
        func inMatch(_ id: LayerID) -> Bool { nodes[existing: id].animations.contains { $0.key.hasPrefix(Self.matchKeyPrefix) } }
        let fromSuper = superlayerToCanvas(from, at: t), toSuper = superlayerToCanvas(to, at: t)
        let fromNow = presented(from), toNow = presented(to)
        let fromModel = nodes[existing: from].properties, toModel = nodes[existing: to].properties
        // `to`: from `from`'s presentation frame (or its own, mid-match) to its model values.
        // Under Reduce Motion: from its own model frame.
        var toStart = inMatch(to) ? toNow
            : context.reducedMotion ? toModel
            : Self.placing(toModel, at: canvasFrame(fromNow, superToCanvas: fromSuper), superToCanvas: toSuper)
        if !inMatch(to) { toStart.opacity = 0 }
        // `from`: to `to`'s model frame, transparent (under Reduce Motion: where it is now).
        var fromEnd = context.reducedMotion ? fromNow
            : Self.placing(fromModel, at: canvasFrame(toModel, superToCanvas: toSuper), superToCanvas: fromSuper)
        fromEnd.opacity = 0
        addMatchAnimations(to, from: toStart, to: toModel, holds: false, context: &context)
        addMatchAnimations(from, from: fromNow, to: fromEnd, holds: true, context: &context)
    }
}

private extension Double {
    func magnitude2D(_ y: Double) -> Double { (self * self + y * y).squareRoot() }
}
