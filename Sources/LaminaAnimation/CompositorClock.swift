import Foundation
import Synchronization

/// The compositor's one monotonic clock, in seconds (`Double`).
///
/// `realtime` follows the system's monotonic clock from the moment the clock was made;
/// `manual` moves only when `advance(by:)` is called (every animation test uses it, so no
/// test sleeps or depends on machine speed). Any thread may call any method.
///
/// Its `rate` (1 unless set) scales how fast compositor time runs against real time: 0
/// pauses every animation, 0.1 slows them tenfold (the viewer's Space and S keys). A rate
/// change keeps the time continuous: time runs on from where it is at the new rate.
/// `realSeconds` is the unscaled monotonic time, for pacing frames.
public final class CompositorClock: Sendable {
    public enum Mode: String, Sendable { case realtime, manual }

    public let mode: Mode
    private let origin: UInt64
    private let manualTime = Mutex<Double>(0)   // protected by its own lock; manual mode only
    /// Compositor time at the real time `anchor` (seconds since `origin`), and the rate since.
    private struct Scale { var anchor = 0.0; var time = 0.0; var rate = 1.0 }
    private let scale = Mutex(Scale())           // protected by its own lock; realtime mode only
    private let source: @Sendable () -> UInt64

    public init(mode: Mode) {
        self.mode = mode
        source = { DispatchTime.now().uptimeNanoseconds }
        origin = source()
    }

    /// A realtime clock reading `nanoseconds` (monotonic) instead of the system's clock (tests).
    package init(nanoseconds: @escaping @Sendable () -> UInt64) {
        mode = .realtime
        source = nanoseconds
        origin = nanoseconds()
    }

    /// The current compositor time in seconds.
    public var now: Double {
        switch mode {
        case .realtime:
            scale.withLock { s in
                let real = realSeconds
                return s.time + (real - s.anchor) * s.rate
            }
        case .manual: manualTime.withLock { $0 }
        }
    }

    /// Seconds of real (unscaled) monotonic time since the clock was made; a manual clock's
    /// `now`. Pacing and frame statistics use it.
    public var realSeconds: Double {
        switch mode {
        case .realtime: Double(source() &- origin) / 1e9
        case .manual: manualTime.withLock { $0 }
        }
    }

    /// How fast compositor time runs against real time: 1 normally, 0 paused, 0.1 slow.
    public var rate: Double { scale.withLock { $0.rate } }

    /// Sets the rate (finite, ≥ 0) from now on; time stays continuous. A manual clock's
    /// advances are scaled by it.
    public func setRate(_ rate: Double) {
        precondition(rate.isFinite && rate >= 0, "a clock rate must be finite and ≥ 0")
        scale.withLock { s in
            let real = realSeconds
            s.time += (real - s.anchor) * s.rate
            s.anchor = real
            s.rate = rate
        }
    }

    /// Moves a manual clock forward by `seconds` (≥ 0) and returns the new time.
    /// - Precondition: the clock is manual and `seconds` is finite and ≥ 0.
    @discardableResult
    public func advance(by seconds: Double) -> Double {
        precondition(mode == .manual, "only a manual clock can be advanced")
        precondition(seconds.isFinite && seconds >= 0, "a clock advance must be finite and ≥ 0")
        let rate = self.rate
        return manualTime.withLock { $0 += seconds * rate; return $0 }
    }
}
