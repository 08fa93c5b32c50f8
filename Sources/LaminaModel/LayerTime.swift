/// A layer's local time as a function of compositor time: `scale · t + shift` (CAMediaTiming
/// on layers). Each layer maps its superlayer's local time `s` to
/// `(s − beginTime) × speed + timeOffset`; composed from the root down, the maps stay affine,
/// so one scale and one shift say a layer's local time at any compositor time while the
/// model does not change. The root and every layer under default timing have the identity.
public struct LayerTime: Equatable, Sendable {
    public var scale: Double
    public var shift: Double

    public init(scale: Double, shift: Double) { self.scale = scale; self.shift = shift }

    public static let identity = LayerTime(scale: 1, shift: 0)

    @inlinable public var isIdentity: Bool { scale == 1 && shift == 0 }

    /// The local time at compositor time `t`.
    @inlinable public func local(_ t: Double) -> Double { scale == 1 ? t + shift : scale * t + shift }

    /// The compositor time at which the local time is `local` (not finite when the time is
    /// frozen: scale 0).
    @inlinable public func compositorTime(_ local: Double) -> Double { (local - shift) / scale }

    /// This map (a superlayer's) followed by a layer's own `speed`, `timeOffset` and
    /// `beginTime`. A map that overflows (nested speeds past the doubles' range) freezes at 0.
    @inlinable public func then(speed: Double, timeOffset: Double, beginTime: Double) -> LayerTime {
        let m = LayerTime(scale: scale * speed, shift: (shift - beginTime) * speed + timeOffset)
        return m.scale.isFinite && m.shift.isFinite ? m : LayerTime(scale: 0, shift: 0)
    }

    /// This map followed by the timing of a layer with properties `p`.
    @inlinable public func then(_ p: LayerProperties) -> LayerTime {
        p.hasLayerTime ? then(speed: p.speed, timeOffset: p.timeOffset, beginTime: p.beginTime) : self
    }

    /// The earliest compositor time, not before `now`, at which the local time is at least
    /// `local`: `now` when it already is, +∞ when it never will be (speed 0 or negative).
    @inlinable public func time(reaching local: Double, now: Double) -> Double {
        if self.local(now) >= local { return now }
        guard scale > 0 else { return .infinity }
        return Swift.max(now, (local - shift) / scale)
    }
}

extension LayerProperties {
    /// Whether the layer's `speed`, `timeOffset` or `beginTime` differ from the defaults
    /// (1, 0, 0): only such a layer changes its sublayers' time. A nil check for most layers.
    @inlinable public var hasLayerTime: Bool {
        hasRareValues && (speed != 1 || timeOffset != 0 || beginTime != 0)
    }
}
