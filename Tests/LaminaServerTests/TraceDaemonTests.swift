import Foundation
import Lamina
import LaminaFrame
import LaminaServer
import LaminaWire
import Testing
import DaemonTestSupport

/// Frame traces end to end (issue 28, item 3): `startTrace` / `stopTrace` against a real
/// laminad (manual clock, lavapipe), and `laminactl trace` against one.
@Suite(.serialized) struct TraceDaemonTests {
    static func events(_ json: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["displayTimeUnit"] as? String == "ms")
        return try #require(object?["traceEvents"] as? [[String: Any]])
    }

    /// Commits a layer with a running animation and makes `frames` frames by advancing the clock
    /// (each advance followed by a query, answered from a frame at the new time: without it,
    /// advances made while the render thread is busy — a loaded machine — share one frame).
    static func animate(_ c: Connection, frames: Int) throws {
        let l = c.makeLayer()
        l.frame = Rect(10, 10, 50, 50)
        l.backgroundColor = Color(1, 0, 0)
        c.root.addSublayer(l)
        try c.commit()
        var timing = AnimationTiming()
        timing.duration = 1
        l.add(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: timing)), forKey: "fade")
        try c.commit()
        for _ in 0..<frames {
            try c.advanceClock(by: 1.0 / 60)
            _ = try l.presentationValue(forKeyPath: "opacity")
        }
        _ = try c.capture()   // waits for a frame that covers everything
    }

    @Test func aTraceHoldsTheFramesPhasesAndCommits() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "tracer")
        #expect(try c.startTrace() == 10_000)
        try Self.animate(c, frames: 5)
        let events = try Self.events(try c.stopTrace())
        let frames = events.filter { $0["name"] as? String == "frame" && $0["ph"] as? String == "X" }
        #expect(frames.count >= 3, "\(frames.count) frames")
        for name in ["apply", "evaluate", "record", "submit"] {
            #expect(events.contains { $0["name"] as? String == name && $0["cat"] as? String == "phase" }, "\(name)")
        }
        // Each frame says how its draw list was made: the first in full, later ones patched.
        #expect(events.contains { $0["name"] as? String == "build" && $0["cat"] as? String == "phase" })
        let commits = events.filter { $0["cat"] as? String == "commit" && $0["name"] as? String == "commit" }
        #expect(commits.count >= 2)
        #expect(commits.allSatisfy { ($0["args"] as? [String: Any])?["client"] as? Int == Int(c.clientID) })
        // Each transaction sent at least its commit's 12-byte header.
        #expect(commits.allSatisfy { (($0["args"] as? [String: Any])?["bytes"] as? Int ?? 0) >= 12 })
        for e in events where e["ph"] as? String == "X" {
            #expect((e["dur"] as? Double ?? -1) >= 0)
        }
        // Stopped: a second stop is an error; a new recording may start.
        #expect(throws: LaminaError.self) { try c.stopTrace() }
        #expect(try c.startTrace(maxFrames: 2) == 2)
        try Self.animate(c, frames: 4)
        let capped = try Self.events(try c.stopTrace())
        #expect(capped.filter { $0["name"] as? String == "frame" }.count == 2)
    }

    @Test func oneRecordingAtATime() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let a = try Connection(socketPath: daemon.socketPath, name: "a")
        let b = try Connection(socketPath: daemon.socketPath, name: "b")
        try a.startTrace()
        do {
            try b.startTrace()
            Issue.record("a second recording should be refused")
        } catch LaminaError.requestFailed(_, let code, let message, _) {
            #expect(code == .limitExceeded)
            #expect(message.contains("client \(a.clientID) is recording"))
        }
        do {
            _ = try b.stopTrace()
            Issue.record("only the recording client stops it")
        } catch LaminaError.requestFailed(_, let code, _, _) {
            #expect(code == .limitExceeded)
        }
        // The recording client's hang-up ends its recording: another may start one.
        a.close()
        var started = false
        for _ in 0..<200 where !started {
            started = (try? b.startTrace()) != nil
            if !started { usleep(10_000) }
        }
        #expect(started)
        _ = try b.stopTrace()
    }

    /// The viewer's T key drives the render loop's recorder directly (`RenderLoop.startTrace` /
    /// `stopTrace`): while it records, a client's `startTrace` is refused.
    @Test func theRenderLoopsRecorderAsTheViewerUsesIt() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        #expect(daemon.renderLoop.startTrace(frameCapacity: 100))
        #expect(!daemon.renderLoop.startTrace())
        #expect(daemon.renderLoop.isTracing)
        let c = try Connection(socketPath: daemon.socketPath, name: "animator")
        // Both refusals say who records: the window, not a client and not "nothing".
        for attempt in [{ _ = try c.startTrace() }, { _ = try c.stopTrace() }] as [() throws -> Void] {
            do {
                try attempt()
                Issue.record("the viewer's recording should refuse a client")
            } catch LaminaError.requestFailed(_, let code, let message, _) {
                #expect(code == .limitExceeded)
                #expect(message.contains("viewer's window is recording"), "\(message)")
            }
        }
        try Self.animate(c, frames: 3)
        let trace = try #require(daemon.renderLoop.stopTrace())
        #expect(!daemon.renderLoop.isTracing)
        #expect(daemon.renderLoop.stopTrace() == nil)
        #expect(trace.frames.count >= 3)
        #expect(trace.commits.contains { $0.client == c.clientID && $0.kind == "commit" })
        #expect(trace.frameCapacity == 100)
        _ = try Self.events(trace.chromeJSON())
        // Free again: the client may record.
        #expect(try c.startTrace() == 10_000)
        _ = try c.stopTrace()
    }

    /// A daemon with nothing to draw sleeps; a recording made while it sleeps holds that spell,
    /// from the recording's start to its stop (the thread never woke to record it itself).
    @Test func aRecordingOfAnIdleDaemonIsOneIdleSpell() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "still")
        _ = try c.capture()
        var asleep = false
        for _ in 0..<500 where !asleep {
            asleep = daemon.renderLoop.stats.idle
            if !asleep { usleep(10_000) }
        }
        try #require(asleep, "the render thread never slept")
        #expect(daemon.renderLoop.startTrace())
        // The manual clock is the recording's time too: moved by hand, it wakes nobody.
        _ = daemon.renderLoop.clock.advance(by: 0.25)
        let trace = try #require(daemon.renderLoop.stopTrace())
        let stopped = try #require(trace.stopped)
        #expect(trace.frames.isEmpty)
        #expect(trace.idles == [FrameTrace.Idle(start: trace.started, end: stopped)])
        #expect(stopped - trace.started == 0.25)
        let idle = try Self.events(trace.chromeJSON()).filter { $0["name"] as? String == "idle" }
        #expect(idle.count == 1)
        #expect(idle.first?["ts"] as? Double == 0)
    }

    @Test func badInputIsMalformed() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        #expect(throws: LaminaError.self) { try c.startTrace(maxFrames: 10_001) }
        // The raw request with maxFrames over the cap is `malformed`.
        var d = FrameDecoder()
        let fd = try UnixSocket.connect(path: daemon.socketPath)
        defer { close(fd) }
        try UnixSocket.writeAll(fd, MessageEncoder.encode(.hello(magic: Protocol.magic, major: 1, minor: 0, clientName: "raw"), requestID: 1)
                                + MessageEncoder.encode(.startTrace(maxFrames: 0), requestID: 2))
        var bytes = [UInt8]()
        withUnsafeBytes(of: UInt32(12 + 4).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt16(0x3A).littleEndian) { bytes += $0 }
        bytes += [0, 0]
        withUnsafeBytes(of: UInt32(3).littleEndian) { bytes += $0 }
        withUnsafeBytes(of: UInt32(20_000).littleEndian) { bytes += $0 }
        try UnixSocket.writeAll(fd, bytes)
        var seen: [(Event, UInt32)] = []
        let deadline = Date().addingTimeInterval(10)
        while seen.count < 3 && Date() < deadline {
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &buf, buf.count)
            guard n > 0 else { break }
            d.feed(buf[0..<n])
            while case .message(let e, let id)? = d.nextEvent() { seen.append((e, id)) }
        }
        #expect(seen.count == 3)
        if seen.count == 3 {
            #expect(seen[1].0 == .traceStarted(maxFrames: 10_000))
            guard case .error(let op, let code, _, _) = seen[2].0 else { Issue.record("\(seen[2])"); return }
            #expect(op == 0x3A && code == .malformed)
        }
    }

    @Test func laminactlTraceWritesAFile() throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let binDir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let laminactl = binDir.appendingPathComponent("laminactl").path
        try #require(FileManager.default.isExecutableFile(atPath: laminactl), "no \(laminactl)")
        let out = NSTemporaryDirectory() + "lamina-trace-test-\(getpid()).json"
        let log = out + ".out"
        defer { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.removeItem(atPath: log) }
        let pid = try spawnLikeAShell([laminactl, "trace", "--seconds", "1.5", out, "--socket", daemon.socketPath], stdout: log)
        // Frames and commits while it records: made again until laminactl exits, since on a
        // loaded machine laminactl may start recording well after the first ones.
        let c = try Connection(socketPath: daemon.socketPath, name: "animator")
        var status: Int32 = 0
        var rounds = 0
        while waitpid(pid, &status, WNOHANG) == 0, rounds < 100 {
            try Self.animate(c, frames: 4)
            rounds += 1
            usleep(100_000)
        }
        if rounds == 100 { waitpid(pid, &status, 0) }
        #expect(status == 0)
        let summary = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(summary.hasPrefix("wrote \(out): "), "\(summary)")
        let events = try Self.events(try String(contentsOfFile: out, encoding: .utf8))
        #expect(events.contains { $0["name"] as? String == "frame" })
        #expect(events.contains { $0["cat"] as? String == "commit" })
    }
}
