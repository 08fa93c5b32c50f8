import LaminaAnimation
import Synchronization

/// A compositor clock in realtime mode on a fake monotonic source that moves only when the
/// test says (`advance`): for tests of the clock's own arithmetic (rates, pauses) without
/// sleeping. (A daemon's `--clock manual` is `CompositorClock(mode: .manual)`.)
public final class ManualClock: Sendable {
    public let clock: CompositorClock

    /// The source starts at `start` nanoseconds (the clock's time 0).
    public init(start: UInt64 = 1_000_000_000) {
        let source = Source(start)
        clock = CompositorClock(nanoseconds: { source.now })
        self.source = source
    }

    private final class Source: Sendable {
        let ns: Mutex<UInt64>
        init(_ start: UInt64) { ns = Mutex(start) }
        var now: UInt64 { ns.withLock { $0 } }
    }
    private let source: Source

    /// Moves the source on by `seconds` of real time.
    public func advance(_ seconds: Double) { source.ns.withLock { $0 += UInt64(seconds * 1e9) } }
}
