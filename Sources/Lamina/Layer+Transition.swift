import LaminaAnimation
import LaminaModel
import LaminaWire

// SwiftUI's `.transition(…)` for layers: a layer's `transition` says how it looks when it is
// added to a superlayer and when it is removed, animated by the daemon's render thread with
// the transaction's duration and timing (none when actions are disabled or the duration is 0).
//
//     row.transition = .asymmetric(insertion: .move(.leading), removal: .opacity)
//     Transaction.perform(on: c, duration: 0.3) { list.addSublayer(row) }

extension LayerTransitions {
    /// Different transitions in and out (SwiftUI's `AnyTransition.asymmetric`).
    public static func asymmetric(insertion: LayerTransition, removal: LayerTransition) -> LayerTransitions {
        LayerTransitions(insertion: insertion, removal: removal)
    }
    public static let identity = LayerTransitions(.identity)
    public static let opacity = LayerTransitions(.opacity)
    public static let slide = LayerTransitions(.slide)
    public static func scale(_ s: Double) -> LayerTransitions { LayerTransitions(.scale(s)) }
    public static func offset(x: Double = 0, y: Double = 0) -> LayerTransitions { LayerTransitions(.offset(x, y)) }
    public static func move(_ edge: LayerTransition.Edge) -> LayerTransitions { LayerTransitions(.move(edge)) }

    /// Under Reduce Motion, movements become cross-fades.
    public var reducingMotion: LayerTransitions {
        LayerTransitions(insertion: insertion.reducingMotion, removal: removal.reducingMotion)
    }
}

extension LayerTransition {
    /// Both at once (SwiftUI's `AnyTransition.combined(with:)`).
    public func combined(with other: LayerTransition) -> LayerTransition { .combined([self, other]) }
}

extension Layer {
    /// Stages the layer's transitions before its insertion or removal (Reduce Motion on: as
    /// cross-fades).
    func stageTransition() {
        guard let t = transition, t != .identity else { return }
        connection.stageOperation(.setTransitions(id, connection.reduceMotion ? t.reducingMotion : t))
    }
}

extension Connection {
    /// CATransition in this transaction: everything it changes inside `layer` (its properties,
    /// sublayers added or removed, contents, text) is shown passing from the layer's old
    /// rendering to the new one — `type` from the `subtype`'s side, over `duration` seconds with
    /// `timingFunction` (nil: the transaction's). The daemon snapshots the old rendering and
    /// composites the two, clipped to the layer's bounds; under Reduce Motion it cross-fades.
    public func addTransition(to layer: Layer, type: ContentTransition.Kind,
                              subtype: ContentTransition.Subtype = .fromLeft, duration: Double? = nil,
                              timingFunction: TimingFunction? = nil) {
        precondition(layer.connection === self, "a transition names a layer of this connection")
        let s = transactions.current
        stageOperation(.transition(layer.id, ContentTransition(type: type, subtype: subtype, duration: duration ?? s.duration,
                                                               timingFunction: timingFunction ?? s.timingFunction)))
    }

    /// Matched geometry (SwiftUI's matchedGeometryEffect): when this transaction applies, `to`
    /// starts at `from`'s frame on screen (position and size in the canvas, and corner radius)
    /// and animates to its own, while `from` animates to `to`'s frame; the two cross-fade. With
    /// the transaction's duration and timing.
    /// Stage it after the transaction's other changes of the two layers.
    public func match(from: Layer, to: Layer) {
        precondition(from.connection === self && to.connection === self, "a match joins layers of this connection")
        stageOperation(.match(from: from.id, to: to.id))
    }
}
