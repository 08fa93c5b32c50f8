import Foundation
import Synchronization

/// The compositor's one monotonic clock, in seconds (`Double`).
///
/// `realtime` follows the system's monotonic clock from the moment the clock was made;
/// `manual` moves only when `advance(by:)` is called (every animation test uses it, so no
/// test sleeps or depends on machine speed). Any thread may call any method.
public final class CompositorClock: Sendable {
    public enum Mode: String, Sendable { case realtime, manual }

    public let mode: Mode
    private let origin: UInt64
    private let manualTime = Mutex<Double>(0)   // protected by its own lock; manual mode only

    public init(mode: Mode) {
        self.mode = mode
        origin = DispatchTime.now().uptimeNanoseconds
    }

    /// The current compositor time in seconds.
    public var now: Double {
        switch mode {
        case .realtime: Double(DispatchTime.now().uptimeNanoseconds - origin) / 1e9
        case .manual: manualTime.withLock { $0 }
        }
    }

    /// Moves a manual clock forward by `seconds` (≥ 0) and returns the new time.
    /// - Precondition: the clock is manual and `seconds` is finite and ≥ 0.
    @discardableResult
    public func advance(by seconds: Double) -> Double {
        precondition(mode == .manual, "only a manual clock can be advanced")
        precondition(seconds.isFinite && seconds >= 0, "a clock advance must be finite and ≥ 0")
        return manualTime.withLock { $0 += seconds; return $0 }
    }
}
