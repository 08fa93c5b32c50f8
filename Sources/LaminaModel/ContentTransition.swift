import LaminaAnimation

/// Core Animation's `CATransition`: everything a transaction changes inside a layer (its own
/// properties, its sublayers added, removed or changed, contents, text) shown passing from the
/// layer's old rendering to its new one. The render tree keeps a frozen copy of the layer's
/// subtree as it was presented before the commit and draws the two, clipped to the layer's
/// bounds, as `look(progress:width:height:)` says.
public struct ContentTransition: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The old rendering cross-fades to the new one.
        case fade
        /// The new rendering slides in over the old one from the subtype's side.
        case moveIn
        /// The new rendering pushes the old one out, the two moving together.
        case push
        /// The old rendering slides away towards the side opposite the subtype's, revealing the new.
        case reveal
    }

    /// The side the motion comes from (y grows downwards: `fromTop` moves down).
    public enum Subtype: String, Hashable, Sendable, CaseIterable {
        case fromLeft, fromRight, fromTop, fromBottom

        /// The direction of motion (unit vector).
        public var direction: (x: Double, y: Double) {
            switch self {
            case .fromLeft: (1, 0)
            case .fromRight: (-1, 0)
            case .fromTop: (0, 1)
            case .fromBottom: (0, -1)
            }
        }
    }

    public var type: Kind
    public var subtype: Subtype
    /// Seconds (≥ 0; 0 shows the new rendering at once).
    public var duration: Double
    public var timingFunction: TimingFunction

    public init(type: Kind, subtype: Subtype = .fromLeft, duration: Double = 0.25,
                timingFunction: TimingFunction = .linear) {
        self.type = type; self.subtype = subtype; self.duration = duration; self.timingFunction = timingFunction
    }

    /// Why the transition cannot run (a duration negative or not finite), or nil.
    public var problem: String? {
        guard duration.isFinite, duration >= 0 else { return "the duration must be finite and ≥ 0" }
        guard duration <= Self.maxDuration else { return "the duration must be at most \(Int(Self.maxDuration)) s" }
        return nil
    }

    /// The longest transition (a day): the old rendering is held that long at most.
    public static let maxDuration = 86_400.0

    /// Under Reduce Motion: every type becomes a cross-fade.
    public var reducingMotion: ContentTransition {
        var t = self
        t.type = .fade
        return t
    }

    /// How far the transition is at `elapsed` seconds since it began: the timing function of
    /// the elapsed fraction, 0 before, 1 from the end on.
    public func progress(elapsed: Double) -> Double {
        guard duration > 0 else { return 1 }
        let x = elapsed / duration
        if !(x > 0) { return 0 }
        if x >= 1 { return 1 }
        return timingFunction.progress(x)
    }

    /// One of the two renderings as drawn at a progress: moved by (dx, dy) in the layer's bounds
    /// space, at `opacity` (its own drawing composited as one group); `adds`: blended with
    /// plusLighter over the other (the cross-fade's exact mix, old·(1 − p) + new·p).
    public struct Part: Hashable, Sendable {
        public var dx = 0.0
        public var dy = 0.0
        public var opacity = 1.0
        public var adds = false
        public init(dx: Double = 0, dy: Double = 0, opacity: Double = 1, adds: Bool = false) {
            self.dx = dx; self.dy = dy; self.opacity = opacity; self.adds = adds
        }
    }

    /// The old and new renderings at `progress` p for a layer of `width` × `height` points, and
    /// whether the old one is drawn above the new. With d the subtype's direction and size the
    /// layer's width (horizontal) or height (vertical):
    /// - fade: old at opacity 1 − p, new at p added to it; no motion;
    /// - moveIn: old still, new at −d·size·(1 − p) above it;
    /// - push: old at d·size·p, new at −d·size·(1 − p);
    /// - reveal: new still, old at d·size·p above it.
    public func look(progress p: Double, width: Double, height: Double) -> (old: Part, new: Part, oldOnTop: Bool) {
        let d = subtype.direction
        let away = (x: d.x * width * p, y: d.y * height * p)
        let coming = (x: -d.x * width * (1 - p), y: -d.y * height * (1 - p))
        switch type {
        case .fade:
            return (Part(opacity: 1 - p), Part(opacity: p, adds: true), false)
        case .moveIn:
            return (Part(), Part(dx: coming.x, dy: coming.y), false)
        case .push:
            return (Part(dx: away.x, dy: away.y), Part(dx: coming.x, dy: coming.y), false)
        case .reveal:
            return (Part(dx: away.x, dy: away.y), Part(), true)
        }
    }
}
