import Foundation
import Lamina
import LaminaAnimation
import LaminaFrame
import LaminaServer
import LaminaWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `lamina-bench flood [--seconds S] [--layers N] [--rounds R]`: what a client that floods
/// `getTree` and never reads its replies costs a well-behaved client (docs/protocol.md,
/// "Limits": such a client is cut off and never slows the others).
///
/// A daemon in this process (headless, realtime clock, 120 fps). The good client, 120 times a
/// second, pings (round trip) and commits an explicit animation, timing the commit to its
/// `animationStarted` event (sent by the frame that applies it). Phases of S seconds alternate,
/// R rounds: without a flooder, then with one — a raw socket client that says hello
/// and writes `getTree` requests without reading (the tree: N hidden layers of a third client,
/// about 140 B each in the reply);
/// each time it is cut off it connects again and goes on. Prints p50/p99 of both figures in
/// each condition, the flooder's cut-offs, the daemon's frame p99, and a getTree round trip of a client that
/// reads, and what one reply costs the server thread (`getTreeServerMs`) and its build off the
/// server thread (`getTreeBuildMs`).
func runFloodBench(_ arguments: [String]) {
    let options = benchOptions("flood", arguments, numbers: ["--seconds", "--layers", "--rounds"])
    let seconds = options.numbers["--seconds"] ?? 3, layers = Int(options.numbers["--layers"] ?? 10_000)
    let rounds = Int(options.numbers["--rounds"] ?? 2)
    let daemon = startBenchDaemon("flood", fps: 120)
    let config = daemon.config
    defer { daemon.stop() }

    let flooding = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
    let cutOffs = Atomic<Int>(0)
    let path = daemon.socketPath
    // The flooder: hello, then getTree requests in 60 kB writes.
    let hello = MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0,
                                             clientName: "flooder"), requestID: 1)
    let trees: [UInt8] = (0..<5000).flatMap { MessageEncoder.encode(.getTree, requestID: UInt32(10 + $0)) }
    let flooder = Thread {
        while !stop.load(ordering: .relaxed) {
            guard flooding.load(ordering: .relaxed) else { usleep(10_000); continue }
            guard let fd = try? UnixSocket.connect(path: path) else { usleep(10_000); continue }
            // Blocking writes: they stop when the daemon stops reading and fail when it cuts
            // the flooder off.
            var ok = (try? UnixSocket.writeAll(fd, hello)) != nil
            while ok && flooding.load(ordering: .relaxed) { ok = (try? UnixSocket.writeAll(fd, trees)) != nil }
            if !ok { cutOffs.add(1, ordering: .relaxed) }
            close(fd)
        }
    }
    flooder.start()

    do {
        // The tree every getTree reply lists: N layers of a third client, under a hidden
        // container (they cost the frames nothing).
        let scene = try Connection(socketPath: daemon.socketPath, name: "scene")
        let container = scene.makeLayer()
        container.isHidden = true
        scene.root.addSublayer(container)
        for i in 0..<layers {
            let l = scene.makeLayer()
            l.frame = Rect(Double(i % 100), Double(i / 100), 4, 4)
            container.addSublayer(l)
        }
        try scene.commit()
        // What one tree reply costs: round trips of a client that reads it.
        var treeTrips: [Double] = []
        var treeBytes = 0
        for _ in 0..<20 {
            let s = benchNow()
            treeBytes = try scene.treeJSON().utf8.count
            treeTrips.append((benchNow() - s) * 1000)
        }
        // What one tree reply costs the server thread alone: a ServerCore in this thread with
        // the same tree, answering getTree (the reply built and encoded).
        var core = ServerCore(config: daemon.config, clock: CompositorClock(mode: .manual), stats: { FrameStats() })
        guard case .accepted(let coreClient, _) = core.connect() else { benchFail("flood: core refused") }
        var coreScene = MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0,
                                                     clientName: "scene"), requestID: 1)
        coreScene += MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 2)
        coreScene += MessageEncoder.encode(.addSublayer(parent: 0, child: 1), requestID: 2)
        for i in 2...layers + 1 {
            coreScene += MessageEncoder.encode(.createLayer(id: UInt32(i), kind: .layer), requestID: 2)
            coreScene += MessageEncoder.encode(.addSublayer(parent: 1, child: UInt32(i)), requestID: 2)
        }
        coreScene += MessageEncoder.encode(.commit, requestID: 3)
        _ = core.receive(coreScene, from: coreClient)
        // The server thread's part (the request handled, the model copied by reference) and the
        // build's (made off the server thread), each reply in turn.
        var treeServer: [Double] = [], treeBuild: [Double] = []
        for _ in 0..<20 {
            let s = benchNow()
            let effects = core.receive(MessageEncoder.encode(.getTree, requestID: 4), from: coreClient)
            treeServer.append((benchNow() - s) * 1000)
            for case .build(_, let tag, let make) in effects {
                let b = benchNow()
                let reply = make()
                treeBuild.append((benchNow() - b) * 1000)
                _ = core.captureFinished(tag: tag, reply)
            }
        }
        let c = try Connection(socketPath: daemon.socketPath, name: "good")
        let probe = c.makeLayer()
        probe.bounds = Rect(0, 0, 8, 8)
        c.root.addSublayer(probe)
        try c.commit()
        let commitProbe = CommitToFrameProbe(c, layer: probe, bench: "flood")
        var pings: [Bool: [Double]] = [false: [], true: []]
        var commits: [Bool: [Double]] = [false: [], true: []]
        var frameP99: [Bool: [Double]] = [false: [], true: []]
        for _ in 0..<rounds {
            for flood in [false, true] {
                flooding.store(flood, ordering: .relaxed)
                if flood { usleep(200_000) }   // the flooder's tree is built and its flood under way
                let t0 = benchNow()
                var next = t0
                while benchNow() - t0 < seconds {
                    pings[flood]!.append(try c.ping() * 1000)
                    commits[flood]!.append(try commitProbe.measure())
                    next += 1.0 / 120
                    let wait = next - benchNow()
                    if wait > 0 { usleep(UInt32(wait * 1e6)) } else { next = benchNow() }
                }
                let stats = (try? JSONSerialization.jsonObject(with: Data(c.statsJSON().utf8))) as? [String: Any] ?? [:]
                if let p = (stats["p99ms"] as? NSNumber)?.doubleValue { frameP99[flood]!.append(p) }
            }
        }
        flooding.store(false, ordering: .relaxed)
        stop.store(true, ordering: .relaxed)
        func figures(_ flood: Bool) -> [String: Any] {
            ["pingMs": percentiles(pings[flood]!), "commitToFrameMs": percentiles(commits[flood]!),
             "daemonFrameP99Ms": frameP99[flood]!]
        }
        let result: [String: Any] = [
            "bench": "flood", "layers": layers, "seconds": seconds, "rounds": rounds,
            "treeReplyBytes": treeBytes, "getTreeRoundTripMs": percentiles(treeTrips),
            "getTreeServerMs": percentiles(treeServer), "getTreeBuildMs": percentiles(treeBuild),
            "withoutFlooder": figures(false), "withFlooder": figures(true),
            "flooderCutOffs": cutOffs.load(ordering: .relaxed),
            "frameIntervalMs": 1000 / config.fps,
        ]
        let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys, .prettyPrinted])
        print(String(decoding: data, as: UTF8.self))
        c.close()
    } catch {
        benchFail("flood: \(error)")
    }
}
