/// Whether and how a connection reconnects when the daemon goes away (a crash, an upgrade,
/// `systemctl restart`) and comes back on the same socket (`Connection(socketPath:name:reconnect:)`).
///
/// When on, the connection keeps what it committed (`ModelJournal`: layers, properties,
/// hierarchy, uploaded images' bytes, PNG files' descriptors, client-drawn tiled images,
/// surface layers' pools and last attached buffers, running explicit animations with their
/// start time, pending completion blocks). When the socket ends it announces
/// `ConnectionEvent.connectionLost`, waits `initialDelay`, then tries the socket again,
/// doubling the wait after each failed try up to `maxDelay`, until a daemon welcomes it — then
/// replays the model in one transaction and announces `reconnected` — or `giveUpAfter` seconds
/// have passed since the loss (then `disconnected`, as without reconnection).
///
/// Off by default (`disabled`): a connection that does not ask for it keeps the protocol's
/// plain semantics (the daemon's end is the connection's end, at once: tools such as
/// `laminactl` exit when the daemon does) and keeps nothing — the journal holds the bytes of
/// every image uploaded and not released, which an application asks for knowingly.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Whether the connection reconnects (and keeps its model to replay).
    public var isEnabled: Bool
    /// Seconds before the first try (and the first wait between tries); at least 1 ms (the
    /// waits double from it: 0 would try without pause for ever).
    public var initialDelay: Double
    /// The longest wait between tries (the wait doubles up to it).
    public var maxDelay: Double
    /// Seconds after the loss after which a failed try is the last (nil: try for ever).
    public var giveUpAfter: Double?

    public init(isEnabled: Bool = true, initialDelay: Double = 0.05, maxDelay: Double = 2, giveUpAfter: Double? = nil) {
        self.isEnabled = isEnabled
        self.initialDelay = max(0.001, initialDelay)
        self.maxDelay = max(self.initialDelay, maxDelay)
        self.giveUpAfter = giveUpAfter
    }

    /// No reconnection: the connection ends with the daemon (the default).
    public static let disabled = ReconnectPolicy(isEnabled: false)
    /// Reconnects for ever: 50 ms, doubling to 2 s between tries.
    public static let standard = ReconnectPolicy()

    /// The waits before the first `count` tries (for tests and documentation).
    public func delays(_ count: Int) -> [Double] {
        var out: [Double] = []
        var d = initialDelay
        for _ in 0..<max(0, count) {
            out.append(d)
            d = nextDelay(after: d)
        }
        return out
    }

    /// The wait after a failed try that followed a wait of `delay`.
    func nextDelay(after delay: Double) -> Double { min(delay * 2, maxDelay) }
}

extension Connection {
    /// The reconnection policy this connection was made with.
    public var reconnectPolicy: ReconnectPolicy { link.policy }

    /// Whether the daemon went away and the connection is reconnecting (between
    /// `ConnectionEvent.connectionLost` and `reconnected`).
    public var isReconnecting: Bool { link.state.withLock { $0.isReconnecting } }

    /// Called with `connectionLost`, `reconnected` and the final `disconnected` (see the
    /// type's notes on where callbacks run).
    public var onConnectionChange: EventCallback<ConnectionEvent>? {
        get { link.state.withLock { $0.onConnectionChange } }
        set { link.state.withLock { $0.onConnectionChange = newValue } }
    }
}
