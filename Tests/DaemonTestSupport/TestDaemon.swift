import Foundation
import Lamina
import LaminaServer
import Synchronization

/// A real laminad for tests: a temporary socket, the manual clock, a black 200×200 canvas by
/// default and a small message limit. Used by the client library's tests (LaminaTests) and
/// the daemon's (LaminaServerTests) alike.
public enum TestDaemon {
    public static func make(size: (Int, Int) = (200, 200), maxDepth: Int = DaemonConfig().maxDepth,
                            configure: (inout DaemonConfig) -> Void = { _ in }) throws -> Daemon {
        var config = DaemonConfig()
        config.maxDepth = maxDepth
        config.socket = NSTemporaryDirectory() + "lamina-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        config.width = size.0; config.height = size.1
        config.clock = "manual"
        config.background = .black
        config.maxMessageSize = 4096
        configure(&config)
        let daemon = Daemon(config: config)
        try daemon.start()
        return daemon
    }

    /// A daemon (`make()`) and one client connected to it.
    public static func withClient(name: String = "client-tests") throws -> (Daemon, Connection) {
        let daemon = try make()
        let c = try Connection(socketPath: daemon.socketPath, name: name)
        return (daemon, c)
    }
}

/// What callbacks saw, from whatever thread they ran on.
public final class Recorder: Sendable {
    private let items = Mutex<[String]>([])
    public init() {}
    public func add(_ s: String) { items.withLock { $0.append(s) } }
    public var all: [String] { items.withLock { $0 } }

    /// Waits (without pumping anything) until `count` items came, or `seconds` passed.
    public func wait(for count: Int, seconds: Double = 5) -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while all.count < count && Date() < deadline { usleep(2000) }
        return all
    }
}
