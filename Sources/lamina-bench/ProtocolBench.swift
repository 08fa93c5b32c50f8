import Foundation
import Lamina
import LaminaServer
import Synchronization

/// `lamina-bench protocol [--seconds S] [--layers N] [--batch B] [--updates-only] [--reconnect]`: the protocol through a
/// real Unix socket and the client library, against a daemon in this process (headless,
/// realtime clock, 60 fps, lavapipe without a GPU).
///
/// - `updatesPerSecond`: property updates through the socket in batched commits — B
///   `position` sets over N layers staged through the typed accessors, one commit, waiting
///   for `committed`; client staging, encoding, the socket, decoding and validation included.
/// - `smallCommitsPerSecond`: one property set and a commit, waited for, back to back.
/// - `pingMs`, `presentationMs`: round trips p50/p99 (`getPresentation` is answered from a
///   frame that covers the client's commits and the clock's time when it arrived).
/// - `commitToFrameMs`: from writing a commit that adds an explicit animation to its
///   `animationStarted` event (sent by the frame that applies the commit) reaching the
///   client's callback, p50/p99; with the daemon's frame interval and frame time p99 from
///   `stats` (the goal: p99 ≤ one frame interval + that frame's render time); at least 300
///   samples (about 5 s at a random phase each).
///
/// `--reconnect`: the connection keeps what it commits to survive a daemon restart
/// (`reconnect: .standard`, its `ModelJournal`), to measure what that bookkeeping costs.
func runProtocolBench(_ arguments: [String]) {
    let options = benchOptions("protocol", arguments, numbers: ["--seconds", "--layers", "--batch"], switches: ["--updates-only", "--reconnect"])
    let seconds = options.numbers["--seconds"] ?? 2, layers = Int(options.numbers["--layers"] ?? 1000)
    let batch = Int(options.numbers["--batch"] ?? 50_000)
    let updatesOnly = options.switches.contains("--updates-only")   // for profiling
    let daemon = startBenchDaemon("protocol", fps: 60)
    let config = daemon.config
    defer { daemon.stop() }

    do {
        let reconnect = options.switches.contains("--reconnect")
        let c = try Connection(socketPath: daemon.socketPath, name: "lamina-bench",
                               reconnect: reconnect ? .standard : .disabled)
        var grid: [Layer] = []
        for i in 0..<layers {
            let l = c.makeLayer()
            l.bounds = Rect(0, 0, 8, 8)
            l.position = Point(Double(i % 40) * 16 + 8, Double(i / 40 % 30) * 16 + 8)
            l.backgroundColor = Color(Double(i % 7) / 7, 0.5, 1)
            c.root.addSublayer(l)
            grid.append(l)
        }
        try c.commit()

        // Batched updates (actions disabled: a client driving its own motion).
        var updates = 0
        var k = 0
        let t0 = benchNow()
        while benchNow() - t0 < seconds {
            c.setDisableActions(true)
            for j in 0..<batch {
                let l = grid[j % layers]
                l.position = Point(Double(k % 600), Double(j % 400))
            }
            try c.commit()
            updates += batch
            k += 1
        }
        let updatesPerSecond = Double(updates) / (benchNow() - t0)
        if updatesOnly {
            print("{\"updatesPerSecond\": \(updatesPerSecond.rounded()), \"reconnect\": \(reconnect)}")
            return
        }

        // Small commits.
        var small = 0
        let t1 = benchNow()
        while benchNow() - t1 < seconds {
            grid[small % layers].opacity = small % 2 == 0 ? 0.5 : 1
            try c.commit()
            small += 1
        }
        let smallPerSecond = Double(small) / (benchNow() - t1)

        // Round trips.
        var pings: [Double] = []
        let t2 = benchNow()
        while benchNow() - t2 < seconds / 2 || pings.count < 100 { pings.append(try c.ping() * 1000) }
        var queries: [Double] = []
        let t3 = benchNow()
        while benchNow() - t3 < seconds / 2 || queries.count < 100 {
            let s = benchNow()
            _ = try c.presentationValue(ofLayer: grid[0].id, forKeyPath: "position")
            queries.append((benchNow() - s) * 1000)
        }

        // Commit to frame: the started event of an explicit animation added by each commit.
        let probe = CommitToFrameProbe(c, layer: grid[1], bench: "protocol")
        var latencies: [Double] = []
        let t4 = benchNow()
        // At least 300 samples: a p99 of fewer is one or two of the slowest.
        while benchNow() - t4 < seconds || latencies.count < 300 {
            latencies.append(try probe.measure())
            // The next commit at a random phase of the frame.
            usleep(UInt32.random(in: 0...16_000))
        }
        let stats = (try? JSONSerialization.jsonObject(with: Data(c.statsJSON().utf8))) as? [String: Any] ?? [:]
        let result: [String: Any] = [
            "bench": "protocol",
            "layers": layers, "batch": batch, "reconnect": reconnect,
            "updatesPerSecond": updatesPerSecond.rounded(),
            "smallCommitsPerSecond": smallPerSecond.rounded(),
            "pingMs": percentiles(pings), "presentationMs": percentiles(queries),
            "commitToFrameMs": percentiles(latencies),
            "frameIntervalMs": 1000 / config.fps,
            "daemonFrameP99Ms": stats["p99ms"] ?? NSNull(),
            "daemonFps": stats["fps"] ?? NSNull(),
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted])
        print(String(decoding: data, as: UTF8.self))
        c.close()
    } catch {
        benchFail("protocol: \(error)")
    }
}

/// p50 and p99 of samples, rounded to microseconds.
func percentiles(_ samples: [Double]) -> [String: Double] {
    let s = samples.sorted()
    func at(_ q: Double) -> Double { s.isEmpty ? 0 : (s[min(s.count - 1, Int(q * Double(s.count)))] * 1000).rounded() / 1000 }
    return ["p50": at(0.5), "p99": at(0.99), "n": Double(s.count)]
}

/// Commit to frame: each `measure` adds an explicit animation to `layer`, commits, and
/// waits for its `animationStarted` event (sent by the frame that applies the commit) to reach
/// the client's callback; returns the milliseconds from the commit's write.
final class CommitToFrameProbe {
    let connection: Connection
    let layer: Layer
    let bench: String
    /// When the started event reached the callback, and its signal.
    private final class Arrival: Sendable {
        let started = DispatchSemaphore(value: 0)
        let stamp = Mutex(0.0)
    }
    private let arrival = Arrival()
    private var timing = AnimationTiming()

    init(_ connection: Connection, layer: Layer, bench: String) {
        self.connection = connection; self.layer = layer; self.bench = bench
        timing.duration = 10
        let arrival = self.arrival
        connection.onAnimationEvent = { e in
            if case .animationStarted = e { arrival.stamp.withLock { $0 = benchNow() }; arrival.started.signal() }
        }
    }

    func measure() throws -> Double {
        layer.add(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: timing)), forKey: "probe")
        let s = benchNow()
        try connection.commit()
        guard arrival.started.wait(timeout: .now() + 5) == .success else { benchFail("\(bench): no animationStarted") }
        return (arrival.stamp.withLock { $0 } - s) * 1000
    }
}

/// A bench's options: flags that take a number, and flags alone; anything else fails.
func benchOptions(_ bench: String, _ arguments: [String], numbers: Set<String>, switches: Set<String> = [])
    -> (numbers: [String: Double], switches: Set<String>) {
    var values: [String: Double] = [:]
    var on: Set<String> = []
    var args = arguments[...]
    while let flag = args.popFirst() {
        if switches.contains(flag) { on.insert(flag); continue }
        guard numbers.contains(flag) else { benchFail("\(bench): unknown option \(flag)") }
        guard let v = args.popFirst(), let n = Double(v) else { benchFail("\(bench): \(flag) needs a number") }
        values[flag] = n
    }
    return (values, on)
}

/// A headless daemon in this process for the socket benches: 640 × 480 at `fps`, realtime
/// clock, 1 MiB messages, on a socket of its own.
func startBenchDaemon(_ bench: String, fps: Double, size: (Int, Int) = (640, 480),
                      configure: (inout DaemonConfig) -> Void = { _ in }) -> Daemon {
    var config = DaemonConfig()
    config.socket = NSTemporaryDirectory() + "lamina-\(bench)-\(getpid()).sock"
    config.headless = true
    config.width = size.0; config.height = size.1; config.fps = fps
    config.clock = "realtime"
    config.maxMessageSize = 1 << 20
    configure(&config)
    let daemon = Daemon(config: config)
    do { try daemon.start() } catch { benchFail("\(bench): daemon: \(error)") }
    return daemon
}

func benchNow() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func benchFail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("lamina-bench: \(message)\n".utf8))
    exit(1)
}
