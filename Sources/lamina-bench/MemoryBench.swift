import Foundation
import Lamina
import LaminaRender
import LaminaServer

/// `lamina-bench memory [--layers N]`: the daemon's resident memory per plain layer, as issue 11
/// measures it — a headless daemon in a child process (this binary, `daemon-child`), one client
/// connected with no layers, then N (50,000) plain layers (8 × 8 points, a background color, on
/// screen, so they are drawn), each state after its frames were made (a presentation query
/// that must see the commit, then a pause); the difference of the child's RSS (VmRSS of
/// /proc/PID/status) over N. Everything the daemon keeps per layer counts: the model tree,
/// the render tree, the presentation snapshots, the session's maps, the draw lists, the
/// builder's records, the renderer's instance buffers (lavapipe's memory is the process's).
/// Also the marginal figure: the growth from N/2 layers to N over N/2, without what the first
/// drawn layers bring once (lavapipe compiles a shader variant on its first use).
/// `--hidden`: the layers are hidden (not drawn): the trees and the server's share alone.
/// `--trim`: the child hands freed heap back to the system each second (`malloc_trim`), so
/// the figure is what the daemon keeps rather than what the commits' transient buffers left.
func runMemoryBench(_ arguments: [String]) {
    var layers = 50_000
    var trim = false
    var hidden = false
    var args = arguments[...]
    while let flag = args.popFirst() {
        if flag == "--trim" { trim = true; continue }
        if flag == "--hidden" { hidden = true; continue }
        guard let v = args.popFirst(), let n = Int(v), n > 0 else { benchFail("memory: \(flag) needs a count") }
        switch flag {
        case "--layers": layers = n
        default: benchFail("memory: unknown option \(flag)")
        }
    }
    let socket = NSTemporaryDirectory() + "lamina-bench-memory-\(getpid()).sock"
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["daemon-child", socket] + (trim ? ["--trim"] : [])
    do { try child.run() } catch { benchFail("memory: cannot start the daemon: \(error)") }
    let pid = child.processIdentifier
    func fail(_ message: String) -> Never {
        child.terminate(); child.waitUntilExit()
        benchFail("memory: \(message)")
    }
    defer { child.terminate(); child.waitUntilExit(); unlink(socket + ".heap"); unlink(socket) }

    func rss() -> Int { (residentKiB(pid) ?? 0) * 1024 }
    // The child's live heap (`heapInUse`), which it writes to `socket.heap` each second.
    func heap() -> Int {
        usleep(1_100_000)
        return (try? String(contentsOfFile: socket + ".heap", encoding: .utf8)).flatMap { Int($0) } ?? 0
    }
    var connection: Connection?
    for _ in 0..<200 where connection == nil {
        connection = try? Connection(socketPath: socket, name: "lamina-bench")
        if connection == nil { usleep(50_000) }
    }
    guard let c = connection else { fail("the daemon did not come up") }
    do {
        // Settled: the client connected, a frame made, the first allocations done.
        let probe = c.makeLayer()
        c.root.addSublayer(probe)
        try c.commit()
        _ = try probe.presentationValue(forKeyPath: "opacity")
        usleep(500_000)
        let before = rss()
        let heapBefore = heap()
        c.setDisableActions(true)
        func add(_ range: Range<Int>) throws {
            for i in range {
                let l = c.makeLayer()
                l.bounds = Rect(0, 0, 8, 8)
                l.position = Point(Double(i % 160) * 8 + 4, Double(i / 160 % 90) * 8 + 4)
                l.backgroundColor = Color(Double(i % 7) / 7, 0.5, 1)
                if hidden { l.isHidden = true }
                c.root.addSublayer(l)
                if i % 10_000 == 9_999 { try c.commit() }   // a transaction stages at most 100,000 requests
            }
            try c.commit()
            _ = try probe.presentationValue(forKeyPath: "opacity")   // answered by a snapshot with them
            usleep(1_000_000)   // the frames after it drawn
            _ = try c.ping()
            if trim { usleep(1_500_000) }   // the child's next trim
        }
        // Half the layers, then the rest: the second half's growth is the cost of a layer
        // without what the first drawn layers bring once (shader variants lavapipe compiles
        // on first use, the renderer's first buffers).
        let half = layers / 2
        try add(0..<half)
        let (middle, heapMiddle) = (rss(), heap())
        try add(half..<layers)
        let trimmed = rss()
        let heapAfter = heap()
        let marginal = layers > half ? Double(trimmed - middle) / Double(layers - half) : 0
        let heapMarginal = layers > half ? Double(heapAfter - heapMiddle) / Double(layers - half) : 0
        print("""
        {"bench": "memory", "layers": \(layers), "trimmed": \(trim), "hidden": \(hidden), "daemonRSSBeforeKiB": \(before / 1024), \
        "daemonRSSAfterKiB": \(trimmed / 1024), \
        "bytesPerLayer": \(String(format: "%.1f", Double(trimmed - before) / Double(layers))), \
        "heapBytesPerLayer": \(String(format: "%.1f", Double(heapAfter - heapBefore) / Double(layers))), \
        "marginalBytesPerLayer": \(String(format: "%.1f", marginal)), \
        "marginalHeapBytesPerLayer": \(String(format: "%.1f", heapMarginal)), \
        "note": "daemon child process, plain 8x8 layers with a background (\(hidden ? "hidden" : "drawn")), RSS after minus before over layers; marginal: the second half's growth over its layers; heap: allocated chunks (mallinfo2), capacity included"}
        """)
        // LAMINA_BENCH_HOLD=1: keep the connection (and the daemon's state) until killed, for
        // a heap profiler attached to the child (docs/performance.md, "Where the memory is").
        if getenv("LAMINA_BENCH_HOLD") != nil { fflush(nil); withExtendedLifetime(c) { while true { pause() } } }
    } catch {
        fail("\(error)")
    }
}

/// `lamina-bench daemon-child SOCKET` (for `memory`): a headless daemon on SOCKET until killed
/// or orphaned.
func runDaemonChild(_ arguments: [String]) -> Never {
    guard let socket = arguments.first else { benchFail("daemon-child: SOCKET") }
    var config = DaemonConfig()
    config.socket = socket
    config.headless = true
    config.width = 1280; config.height = 720; config.fps = 60
    config.clock = "realtime"
    config.maxMessageSize = 64 << 20   // one commit of all the layers
    let parent = getppid()
    let daemon = Daemon(config: config)
    do { try daemon.start() } catch { benchFail("daemon-child: \(error)") }
    // Until killed, or until the bench that started it is gone.
    while getppid() == parent {
        sleep(1)
        // `--trim`: freed heap handed back each second (what stays is what the daemon keeps).
        if arguments.dropFirst().first == "--trim" { HeapTrim.trim() }
        try? String(HeapTrim.bytesInUse()).write(toFile: socket + ".heap", atomically: true, encoding: .utf8)
        // LAMINA_BENCH_HOLD: `touch SOCKET.exit` ends the process as it stands (no teardown),
        // so that a heap profiler reports what was live then.
        if getenv("LAMINA_BENCH_HOLD") != nil, access(socket + ".exit", F_OK) == 0 { unlink(socket + ".exit"); exit(0) }
    }
    daemon.stop()
    exit(0)
}

