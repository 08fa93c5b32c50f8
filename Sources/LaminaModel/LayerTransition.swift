import LaminaGeometry

/// How a layer looks while it is inserted or removed (SwiftUI's `AnyTransition`): the state it
/// comes in from (insertion) or goes out to (removal), animated with the transaction's
/// duration and timing on the render thread.
public indirect enum LayerTransition: Hashable, Sendable {
    /// No change: an insertion shows at once, a removal goes at once.
    case identity
    /// Opacity 0.
    case opacity
    /// Scaled by the factor about the anchor point.
    case scale(Double)
    /// Moved by (dx, dy) points in the superlayer.
    case offset(Double, Double)
    /// Moved out of the superlayer's bounds across that edge (by the layer's own size when the
    /// superlayer has no bounds, as a client's top level).
    case move(Edge)
    /// In from the leading edge, out to the trailing edge.
    case slide
    /// Every one at once (opacities and scales multiply, offsets add).
    case combined([LayerTransition])

    public enum Edge: String, Hashable, Sendable, CaseIterable {
        case leading, trailing, top, bottom
    }

    /// The state the transition stands for, for a layer with these model values inside a
    /// superlayer with these bounds; `insertion` picks the side of `slide`.
    public func state(of layer: LayerProperties, superlayerBounds: Rect, insertion: Bool) -> TransitionState {
        switch self {
        case .identity: return TransitionState()
        case .opacity: return TransitionState(opacity: 0)
        case .scale(let s): return TransitionState(scale: s)
        case .offset(let dx, let dy): return TransitionState(dx: dx, dy: dy)
        case .slide:
            return LayerTransition.move(insertion ? .leading : .trailing)
                .state(of: layer, superlayerBounds: superlayerBounds, insertion: insertion)
        case .move(let edge):
            let w = layer.bounds.size.width, h = layer.bounds.size.height
            let minX = layer.position.x - layer.anchorPoint.x * w, minY = layer.position.y - layer.anchorPoint.y * h
            let b = superlayerBounds
            let hasBounds = b.size.width > 0 && b.size.height > 0
            switch edge {
            case .leading: return TransitionState(dx: hasBounds ? b.origin.x - (minX + w) : -w)
            case .trailing: return TransitionState(dx: hasBounds ? b.origin.x + b.size.width - minX : w)
            case .top: return TransitionState(dy: hasBounds ? b.origin.y - (minY + h) : -h)
            case .bottom: return TransitionState(dy: hasBounds ? b.origin.y + b.size.height - minY : h)
            }
        case .combined(let list):
            var s = TransitionState()
            for t in list {
                let o = t.state(of: layer, superlayerBounds: superlayerBounds, insertion: insertion)
                s.opacity *= o.opacity; s.scale *= o.scale; s.dx += o.dx; s.dy += o.dy
            }
            return s
        }
    }

    /// Whether the transition only fades (Reduce Motion keeps these as they are).
    public var isFadeOnly: Bool {
        switch self {
        case .identity, .opacity: true
        case .combined(let list): list.allSatisfy(\.isFadeOnly)
        default: false
        }
    }

    /// Under Reduce Motion: movements (offset, move, slide, scale) become a cross-fade.
    public var reducingMotion: LayerTransition { isFadeOnly ? self : .opacity }

    /// How deeply `combined` may nest, and how many transitions one may hold in all.
    public static let maxDepth = 8
    public static let maxCount = 64
}

/// What a transition does to a layer: its opacity multiplied, its scale multiplied about the
/// anchor point, its position moved.
public struct TransitionState: Hashable, Sendable {
    public var opacity = 1.0
    public var scale = 1.0
    public var dx = 0.0
    public var dy = 0.0
    public init(opacity: Double = 1, scale: Double = 1, dx: Double = 0, dy: Double = 0) {
        self.opacity = opacity; self.scale = scale; self.dx = dx; self.dy = dy
    }
    public var isIdentity: Bool { self == TransitionState() }
}

/// A layer's insertion and removal transitions (SwiftUI's `.transition(.asymmetric(…))`).
public struct LayerTransitions: Hashable, Sendable {
    public var insertion: LayerTransition
    public var removal: LayerTransition
    public init(insertion: LayerTransition = .identity, removal: LayerTransition = .identity) {
        self.insertion = insertion; self.removal = removal
    }
    /// The same transition both ways (`slide` still comes in from leading, out to trailing).
    public init(_ both: LayerTransition) { self.init(insertion: both, removal: both) }
}

extension LayerTransition {
    /// Why the transition cannot run (a scale or offset not finite, a scale < 0, nesting or a
    /// count past the limits), or nil.
    public var problem: String? {
        var count = 0
        func check(_ t: LayerTransition, _ depth: Int) -> String? {
            count += 1
            guard count <= LayerTransition.maxCount else { return "at most \(LayerTransition.maxCount) transitions in one" }
            switch t {
            case .scale(let s):
                guard s.isFinite, s >= 0 else { return "a scale must be finite and ≥ 0" }
            case .offset(let dx, let dy):
                guard dx.isFinite, dy.isFinite else { return "an offset must be finite" }
            case .combined(let list):
                guard depth < LayerTransition.maxDepth else { return "combined nests at most \(LayerTransition.maxDepth) deep" }
                for e in list { if let p = check(e, depth + 1) { return p } }
            default: break
            }
            return nil
        }
        return check(self, 0)
    }
}

extension LayerTransitions {
    /// The first problem of either transition (`LayerTransition.problem`), or nil.
    public var problem: String? {
        insertion.problem.map { "insertion: " + $0 } ?? removal.problem.map { "removal: " + $0 }
    }
}
