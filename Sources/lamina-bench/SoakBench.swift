import Foundation
import Lamina
import Synchronization

/// `lamina-bench soak --socket PATH --pid PID [--seconds S] [--clients N]`: N clients (50)
/// against a running daemon (`scripts/soak` starts a headless one on a temporary socket),
/// each on its own thread connecting, building 20 layers, animating them (implicit and
/// explicit animations, a completion block), querying and disconnecting, over and over for
/// S seconds. The daemon's resident memory (VmRSS of PID) is sampled each second; growth is
/// measured from the end of a warm-up (a fifth of the run, at least 5 s) to the end.
///
/// Prints JSON: cycles, commits, errors (with the first few), RSS at start, after warm-up and
/// at the end (KiB), growth in percent, and the daemon's fps and frame p99 from `stats`.
func runSoakBench(_ arguments: [String]) {
    var seconds = 60.0, clients = 50, socket = "", pid: Int32 = 0
    var args = arguments[...]
    while let flag = args.popFirst() {
        guard let v = args.popFirst() else { benchFail("soak: \(flag) needs a value") }
        switch flag {
        case "--seconds": seconds = Double(v) ?? seconds
        case "--clients": clients = Int(v) ?? clients
        case "--socket": socket = v
        case "--pid": pid = Int32(v) ?? 0
        default: benchFail("soak: unknown option \(flag)")
        }
    }
    guard !socket.isEmpty, pid > 0 else { benchFail("soak: --socket and --pid are required") }

    struct Counts { var cycles = 0, commits = 0, errors = 0, completions = 0, firstErrors: [String] = [] }
    let counts = Mutex(Counts())
    let path = socket
    let deadline = benchNow() + seconds
    let done = DispatchGroup()
    for n in 0..<clients {
        done.enter()
        let thread = Thread {
            defer { done.leave() }
            var cycle = 0
            while benchNow() < deadline {
                do {
                    let commits = try soakCycle(socket: path, client: n, cycle: cycle) {
                        counts.withLock { $0.completions += 1 }
                    }
                    counts.withLock { $0.cycles += 1; $0.commits += commits }
                } catch {
                    counts.withLock { c in
                        c.errors += 1
                        if c.firstErrors.count < 5 { c.firstErrors.append("\(error)") }
                    }
                    usleep(50_000)
                }
                cycle += 1
            }
        }
        thread.start()
    }

    var samples: [(t: Double, kib: Int)] = []
    let start = benchNow()
    while benchNow() < deadline {
        if let kib = residentKiB(pid) { samples.append((benchNow() - start, kib)) }
        usleep(1_000_000)
    }
    done.wait()
    if let kib = residentKiB(pid) { samples.append((benchNow() - start, kib)) }

    let warmup = max(5, seconds / 5)
    let base = samples.first { $0.t >= warmup }?.kib ?? samples.first?.kib ?? 0
    let end = samples.last?.kib ?? 0
    var stats: [String: Any] = [:]
    if let c = try? Connection(socketPath: socket, name: "soak-stats"), let json = try? c.statsJSON() {
        stats = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }
    let totals = counts.withLock { $0 }
    let result: [String: Any] = [
        "bench": "soak", "seconds": seconds, "clients": clients,
        "cycles": totals.cycles, "commits": totals.commits, "completions": totals.completions,
        "errors": totals.errors, "firstErrors": totals.firstErrors,
        "rssStartKiB": samples.first?.kib ?? 0, "rssAfterWarmupKiB": base, "rssEndKiB": end,
        "rssMaxKiB": samples.map(\.kib).max() ?? 0,
        "rssGrowthPercent": base > 0 ? (Double(end - base) / Double(base) * 10000).rounded() / 100 : 0,
        "daemonFps": stats["fps"] ?? NSNull(), "daemonFrameP99Ms": stats["p99ms"] ?? NSNull(),
        "daemonClients": stats["clients"] ?? NSNull(), "daemonLayers": stats["layers"] ?? NSNull(),
    ]
    guard let data = try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted]) else { exit(1) }
    print(String(decoding: data, as: UTF8.self))
    exit(totals.errors == 0 ? 0 : 1)
}

/// One client's life: connect, build, animate, query, disconnect. Returns its commits.
func soakCycle(socket: String, client: Int, cycle: Int, completed: @escaping @Sendable () -> Void) throws -> Int {
    let c = try Connection(socketPath: socket, name: "soak-\(client)")
    defer { c.close() }
    var layers: [Layer] = []
    let shape = c.makeShapeLayer()
    shape.path = Path([.move(Point(0, 0)), .line(Point(20, 0)), .line(Point(10, 20)), .close])
    shape.fillColor = Color(0, 1, 0)
    c.root.addSublayer(shape)
    for i in 0..<19 {
        let l = c.makeLayer()
        l.bounds = Rect(0, 0, 10, 10)
        l.position = Point(Double((client * 13 + i * 7) % 600), Double((client * 5 + i * 11) % 440))
        l.backgroundColor = Color(Double(i) / 19, 0, 1)
        c.root.addSublayer(l)
        layers.append(l)
    }
    try c.commit()
    var commits = 1
    var timing = AnimationTiming()
    timing.duration = 0.3
    for round in 0..<3 {
        try c.transaction(duration: 0.2, completion: { completed() }) {
            for (i, l) in layers.enumerated() where i % 3 == round { l.opacity = Double(round) / 3 }
        }
        layers[round].add(.basic(BasicAnimation(keyPath: "position.x", by: .double(10), timing: timing)),
                          forKey: "nudge")
        try c.commit()
        commits += 2
        _ = try c.presentationValue(ofLayer: layers[round].id, forKeyPath: "opacity")
        usleep(UInt32(20_000 + (client * 1_000 + cycle * 300) % 30_000))
    }
    if cycle % 2 == 0 { layers[0].delete(); try c.commit(); commits += 1 }
    return commits
}

/// VmRSS of a process in KiB, from /proc.
func residentKiB(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}
