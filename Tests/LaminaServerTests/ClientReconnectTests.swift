import DaemonTestSupport
import Foundation
import Lamina
import LaminaPNG
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Lamina issue 28, item 2: a client that reconnects survives its daemon's restart. Real
/// `laminad` processes (built beside the tests) on one socket path: daemon A is killed
/// (SIGKILL) mid-animation, daemon B is started on the same path, and the client — left
/// alone — reconnects and replays its model. Its frame from B is compared with one from a
/// daemon C that never died, at the same animation time: every daemon runs the manual clock,
/// so the times are exact (the client's timeline follows its own `advanceClock` replies).
@Suite(.serialized) struct ClientReconnectTests {
    /// A laminad process on a socket path (its own, or one reused after a kill).
    final class Process {
        let pid: pid_t
        let socket: String
        private var reaped = false

        /// - Parameter config: the daemon's config file's JSON (`config/laminad.json`'s keys).
        init(socket: String, clock: String = "manual", config: String? = nil) throws {
            self.socket = socket
            var argv = [DaemonRobustnessTests.laminad.path, "--headless", "--socket", socket, "--size", "160x120",
                        "--clock", clock]
            if let config {
                let path = socket + ".json"
                try config.write(toFile: path, atomically: true, encoding: .utf8)
                argv += ["--config", path]
            }
            pid = try spawnLikeAShell(argv)
            // Ready once a client can connect (the socket file of a killed daemon may still be there).
            for _ in 0..<3000 {
                if (try? Connection(socketPath: socket, name: "probe").close()) != nil { return }
                usleep(5000)
            }
            kill()
            throw LaminaError.connectionFailed("laminad did not start on \(socket)")
        }

        /// SIGKILL: no goodbye to its clients, its socket file left behind.
        func kill() {
            guard !reaped else { return }
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            reaped = true
        }

        deinit { kill() }
    }

    /// Whether the process reached the stopped state within 5 s (a signal is delivered when
    /// the kernel gets to it).
    static func waitUntilStopped(_ pid: pid_t) -> Bool {
        for _ in 0..<2500 {
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
               let state = stat.split(separator: ")").last?.split(separator: " ").first, state == "T" || state == "t" {
                return true
            }
            usleep(2000)
        }
        return false
    }

    static func socketPath(_ name: String) -> String {
        let path = NSTemporaryDirectory() + "lamina-reconnect-\(getpid())-\(name)-\(UInt32.random(in: 0...UInt32.max)).sock"
        unlink(path)
        return path
    }

    /// Reconnects quickly for tests: 20 ms doubling to 200 ms.
    static let quick = ReconnectPolicy(initialDelay: 0.02, maxDelay: 0.2)

    /// A 16×16 premultiplied checkerboard (opaque white and half-transparent blue).
    static let checker: [UInt8] = (0..<256).flatMap { i -> [UInt8] in
        (i / 16 / 4 + i % 16 / 4) % 2 == 0 ? [255, 255, 255, 255] : [0, 0, 128, 128]
    }

    struct Scene {
        let back: Layer
        let moving: Layer
        let doomed: Layer
    }

    /// The scene: a backdrop, an image layer placed by `frame` after its anchor point moved, a
    /// square sliding over 2 s and a repeating fade, committed at time 0; then a layer
    /// removed in a second commit.
    static func build(_ c: Connection, delegate: (any AnimationDelegate)? = nil,
                      completion: CompletionBlock? = nil) throws -> Scene {
        let image = try c.uploadImage(premultipliedRGBA: checker, width: 16, height: 16, name: "checker")
        let back = c.makeLayer()
        back.frame = Rect(0, 0, 160, 120)
        back.backgroundColor = Color(0.2, 0.2, 0.3)
        c.root.addSublayer(back)
        let pic = c.makeLayer()
        pic.anchorPoint = Point(0, 0)
        pic.frame = Rect(8, 8, 48, 48)        // position (8, 8) with this anchor point
        pic.setContents(image)
        back.addSublayer(pic)
        let moving = c.makeLayer()
        moving.bounds = Rect(0, 0, 30, 30)
        moving.position = Point(20, 90)
        moving.backgroundColor = Color(1, 0.2, 0)
        back.addSublayer(moving)
        let doomed = c.makeLayer()
        doomed.frame = Rect(100, 10, 50, 50)
        doomed.backgroundColor = Color(0, 1, 0)
        back.addSublayer(doomed)
        // An image released while a layer shows it: the layer keeps it.
        let stamp = try c.uploadImage(premultipliedRGBA: [UInt8](repeating: 200, count: 8 * 8 * 4), width: 8, height: 8,
                                      name: "stamp")
        let stamped = c.makeLayer()
        stamped.frame = Rect(120, 80, 24, 24)
        stamped.setContents(stamp)
        back.addSublayer(stamped)
        var slide = AnimationTiming()
        slide.duration = 2
        var fade = AnimationTiming()
        fade.duration = 0.7
        fade.autoreverses = true
        fade.repeatCount = .infinity
        pic.add(.keyframe(KeyframeAnimation(keyPath: "opacity", values: [.double(1), .double(0.25)], timing: fade)),
                forKey: "")
        if let completion { c.setCompletionBlock(completion) }   // waits for the slide (added after it)
        moving.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(20), to: .double(140), timing: slide)),
                   forKey: "slide", delegate: delegate)
        try c.commit()
        try stamp.release()
        doomed.delete()
        try c.commit()
        return Scene(back: back, moving: moving, doomed: doomed)
    }

    /// The change made while the daemon is away (no implicit animation).
    static func changeWhileAway(_ s: Scene) {
        s.back.connection.setDisableActions(true)
        s.back.backgroundColor = Color(0.1, 0.3, 0.2)
    }

    static func image(_ c: Connection, at time: Double) throws -> RGBAImage {
        try PNG.decode(c.capture(at: time).png)
    }

    /// Events seen through `onConnectionChange`.
    /// Daemon A on a fresh socket named after `label`, and a connection to it that reconnects
    /// quickly (`quick`), its connection events recorded.
    static func start(_ label: String) throws -> (path: String, a: Process, c: Connection, seen: Recorder) {
        let path = socketPath(label)
        let a = try Process(socket: path)
        let c = try Connection(socketPath: path, name: label, reconnect: quick)
        return (path, a, c, record(c))
    }

    /// Daemon B on `path`, once the connection has reconnected to it (after losing A).
    static func restart(on path: String, _ seen: Recorder,
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> Process {
        let b = try Process(socket: path)
        #expect(seen.wait(for: 2, seconds: 10) == ["lost", "reconnected"], sourceLocation: sourceLocation)
        return b
    }

    static func record(_ c: Connection) -> Recorder {
        let seen = Recorder()
        c.onConnectionChange = { e in
            switch e {
            case .connectionLost: seen.add("lost")
            case .reconnected: seen.add("reconnected")
            case .disconnected: seen.add("disconnected")
            default: seen.add("\(e)")
            }
        }
        return seen
    }

    @Test func restartMidAnimationReplaysTheModelAndMatchesADaemonThatNeverDied() throws {
        let path = Self.socketPath("ab")
        var a: Process? = try Process(socket: path)
        let c = try Connection(socketPath: path, name: "survivor", reconnect: Self.quick)
        defer { c.close() }
        let seen = Self.record(c)
        let scene = try Self.build(c)
        try c.advanceClock(by: 0.5)                      // mid-slide: 0.5 s of 2
        a!.kill()
        a = nil
        #expect(seen.wait(for: 1) == ["lost"])
        #expect(c.isReconnecting)

        // While away: a commit throws `reconnecting` and keeps its changes staged.
        Self.changeWhileAway(scene)
        #expect(throws: LaminaError.reconnecting) { try c.commit() }
        #expect(throws: LaminaError.reconnecting) { try c.ping() }

        // Several tries fail before B exists (20, 40, 80, 160 ms …): the client keeps trying.
        usleep(400_000)
        #expect(seen.all == ["lost"])
        let b = try Self.restart(on: path, seen)
        #expect(!c.isReconnecting)
        try c.commit()                                   // the change made while away

        // The reference: daemon C, never killed, the same model and change, at time 0.8.
        let cPath = Self.socketPath("c")
        let cDaemon = try Process(socket: cPath)
        let ref = try Connection(socketPath: cPath, name: "reference")
        defer { ref.close() }
        let refScene = try Self.build(ref)
        Self.changeWhileAway(refScene)
        try ref.commit()

        // B's replay commit came at B's time 0 with the slide 0.5 s in: B at 0.3 is 0.8 s in.
        let fromB = try Self.image(c, at: 0.3)
        let fromC = try Self.image(ref, at: 0.8)
        let rule = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)
        let same = PixelComparator.compare(fromB, fromC, tolerance: rule)
        #expect(same.passed, "B at 0.3 against C at 0.8: \(same)")
        // The comparison can fail: had the animations restarted from zero, B at 0.3 would be
        // C at 0.3.
        let restarted = PixelComparator.compare(fromB, try Self.image(ref, at: 0.3), tolerance: rule)
        #expect(!restarted.passed, "B at 0.3 against C at 0.3: \(restarted)")

        // The removed layer is not resurrected; the others are there with their model values.
        #expect(throws: LaminaError.self) { try c.presentationValue(ofLayer: scene.doomed.id, forKeyPath: "opacity") }
        #expect(try c.presentationValue(ofLayer: scene.moving.id, forKeyPath: "position.y") == .number(90))
        #expect(try c.presentationValue(ofLayer: scene.moving.id, forKeyPath: "position.x") == .number(20 + 120 * 0.5 / 2))
        // The released image was released in B too: its name is free again; the kept one is not.
        #expect(throws: Never.self) { try c.uploadImage(premultipliedRGBA: [0, 0, 0, 0], width: 1, height: 1, name: "stamp") }
        #expect(throws: LaminaError.self) { try c.uploadImage(premultipliedRGBA: [0, 0, 0, 0], width: 1, height: 1, name: "checker") }
        withExtendedLifetime(b) {}
        withExtendedLifetime(cDaemon) {}
    }

    final class Delegate: AnimationDelegate {
        let seen: Recorder
        init(_ seen: Recorder) { self.seen = seen }
        func animationDidStart(layer: UInt32, key: String) async { seen.add("start \(key)") }
        func animationDidStop(layer: UInt32, key: String, finished: Bool) async { seen.add("stop \(key) \(finished)") }
    }

    @Test func delegatesAndCompletionsContinueOnTheReplayedAnimation() throws {
        let path = Self.socketPath("delegate")
        var a: Process? = try Process(socket: path)
        let c = try Connection(socketPath: path, name: "delegates", reconnect: Self.quick)
        defer { c.close() }
        let connection = Self.record(c)
        let seen = Recorder()
        let stream = c.events
        _ = try Self.build(c, delegate: Delegate(seen), completion: { seen.add("completion") })
        try c.advanceClock(by: 1.5)
        _ = try c.hitTest(Point(1, 1))                   // answered from a frame after the commit's
        c.drainEventsBlocking()
        #expect(seen.all == ["start slide"])
        a!.kill()
        a = nil
        let b = try Process(socket: path)
        #expect(connection.wait(for: 2, seconds: 10) == ["lost", "reconnected"])
        // 0.5 s of the slide is left: not over at 0.4, over at 0.6 — once, not started again.
        try c.advanceClock(by: 0.4)
        _ = try c.hitTest(Point(1, 1))
        c.drainEventsBlocking()
        #expect(seen.all == ["start slide"])
        try c.advanceClock(by: 0.2)
        _ = try c.hitTest(Point(1, 1))
        c.drainEventsBlocking()
        #expect(seen.all == ["start slide", "stop slide true", "completion"])
        // The stream saw the loss and the reconnection between the animation's events.
        c.close()
        let events = Recorder()
        let done = DispatchSemaphore(value: 0)
        Task {
            for await e in stream {
                switch e {
                case .animationStarted(_, let k): events.add("start \(k)")
                case .animationStopped(_, let k, let f): events.add("stop \(k) \(f)")
                case .connectionLost: events.add("lost")
                case .reconnected: events.add("reconnected")
                case .disconnected: events.add("disconnected")
                default: break
                }
            }
            done.signal()
        }
        done.wait()
        // (The replayed animations' second `animationStarted` is not delivered.)
        #expect(events.all == ["start ", "start slide", "lost", "reconnected", "stop slide true", "disconnected"])
        withExtendedLifetime(b) {}
    }

    @Test func aTransactionWrittenBeforeTheRestartIsWrittenAgain() throws {
        let (path, started, c, seen) = try Self.start("rewrite")
        var a: Process? = started
        defer { c.close() }
        let l = c.makeLayer()
        c.root.addSublayer(l)
        l.opacity = 0.25
        _ = try c.ping()                                 // writes the staged requests to A (staged there)
        a!.kill()
        a = nil
        let b = try Self.restart(on: path, seen)
        l.bounds = Rect(0, 0, 10, 10)
        try c.commit()
        #expect(try c.presentationValue(ofLayer: l.id, forKeyPath: "opacity") == .number(0.25))
        #expect(try c.presentationValue(ofLayer: l.id, forKeyPath: "bounds.size.width") == .number(10))
        withExtendedLifetime(b) {}
    }

    @Test func changesStagedAfterAFailedCommitKeepTheirOwnSettings() throws {
        let (path, started, c, seen) = try Self.start("settings")
        var a: Process? = started
        defer { c.close() }
        let l = c.makeLayer()
        l.bounds = Rect(0, 0, 10, 10)
        c.root.addSublayer(l)
        try c.commit()
        a!.kill()
        a = nil
        #expect(seen.wait(for: 1) == ["lost"])
        c.setDisableActions(true)
        l.position = Point(50, 50)                       // no implicit animation
        #expect(throws: LaminaError.reconnecting) { try c.commit() }
        l.opacity = 0                                    // the default settings: 0.25 s easeInEaseOut
        let b = try Self.restart(on: path, seen)
        try c.commit()
        try c.advanceClock(by: 0.125)                    // halfway: easeInEaseOut is symmetric
        guard case .number(let opacity) = try c.presentationValue(ofLayer: l.id, forKeyPath: "opacity") else {
            Issue.record("not a number")
            return
        }
        #expect(abs(opacity - 0.5) < 1e-9)
        #expect(try c.presentationValue(ofLayer: l.id, forKeyPath: "position") == .point(Point(50, 50)))
        withExtendedLifetime(b) {}
    }

    /// Under the realtime clock the timeline is this process's monotonic clock: after a restart
    /// an animation is where the time since its commit puts it (the time the daemon was away
    /// included), not back at its start.
    @Test func underTheRealtimeClockAnimationsGoOnByThisProcesssClock() throws {
        let path = Self.socketPath("realtime")
        var a: Process? = try Process(socket: path, clock: "realtime")
        let c = try Connection(socketPath: path, name: "realtime", reconnect: Self.quick)
        defer { c.close() }
        let seen = Self.record(c)
        let l = c.makeLayer()
        c.root.addSublayer(l)
        var timing = AnimationTiming()
        timing.duration = 100
        l.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(1000), timing: timing)), forKey: "x")
        let beforeCommit = Date()
        try c.commit()
        let afterCommit = Date()
        usleep(300_000)
        a!.kill()
        a = nil
        usleep(300_000)
        let b = try Process(socket: path, clock: "realtime")
        #expect(seen.wait(for: 2, seconds: 10) == ["lost", "reconnected"])
        let beforeQuery = Date()
        guard case .number(let x) = try c.presentationValue(ofLayer: l.id, forKeyPath: "position.x") else {
            Issue.record("not a number")
            return
        }
        let afterQuery = Date()
        // 10 points a second: x / 10 seconds since the commit, within the query's span (a frame
        // interval and some slack either side).
        let low = beforeQuery.timeIntervalSince(afterCommit) - 0.05
        let high = afterQuery.timeIntervalSince(beforeCommit) + 0.05
        #expect(x / 10 >= low && x / 10 <= high, "\(x / 10) s, expected \(low)…\(high)")
        #expect(low > 0.55)                             // far from a restart from zero
        withExtendedLifetime(b) {}
    }

    @Test func aDaemonThatRefusesTheReplayEndsTheConnection() throws {
        let (path, started, c, seen) = try Self.start("refused")
        var a: Process? = started
        defer { c.close() }
        for _ in 0..<3 { c.root.addSublayer(c.makeLayer()) }
        try c.commit()
        a!.kill()
        a = nil
        let b = try Process(socket: path, config: #"{"maxLayersPerClient": 2}"#)
        #expect(seen.wait(for: 2, seconds: 10) == ["lost", "disconnected"])
        #expect(c.pendingErrors.map(\.code) == [.limitExceeded])
        #expect(throws: LaminaError.disconnected) { try c.ping() }
        withExtendedLifetime(b) {}
    }

    @Test func givesUpAfterItsLimitAndThenFailsRequestsWithDisconnected() throws {
        let path = Self.socketPath("giveup")
        let a = try Process(socket: path)
        let c = try Connection(socketPath: path, name: "gives-up",
                               reconnect: ReconnectPolicy(initialDelay: 0.02, maxDelay: 0.05, giveUpAfter: 0.3))
        defer { c.close() }
        let seen = Self.record(c)
        let start = Date()
        a.kill()
        #expect(seen.wait(for: 2, seconds: 5) == ["lost", "disconnected"])
        let took = Date().timeIntervalSince(start)
        #expect(took >= 0.3 && took < 3, "gave up after \(took) s")
        #expect(throws: LaminaError.disconnected) { try c.ping() }
        #expect(throws: LaminaError.disconnected) { try c.waitWhileConnected(timeout: 1) }
    }

    @Test func backoffDoublesFromItsFirstDelayToItsCap() {
        #expect(ReconnectPolicy.standard.delays(8) == [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2, 2])
        #expect(ReconnectPolicy(initialDelay: 0.3, maxDelay: 1).delays(4) == [0.3, 0.6, 1, 1])
        #expect(ReconnectPolicy(initialDelay: 0).delays(3) == [0.001, 0.002, 0.004])   // never a busy loop
        #expect(ReconnectPolicy.standard.giveUpAfter == nil)
        #expect(!ReconnectPolicy.disabled.isEnabled)
    }

    @Test func withoutReconnectionTheDaemonsEndIsTheConnectionsEnd() throws {
        let path = Self.socketPath("plain")
        let a = try Process(socket: path)
        let c = try Connection(socketPath: path, name: "plain")
        defer { c.close() }
        let seen = Self.record(c)
        let l = c.makeLayer()
        c.root.addSublayer(l)
        try c.commit()
        a.kill()
        #expect(seen.wait(for: 1) == ["disconnected"])
        l.opacity = 0.5
        #expect(throws: LaminaError.disconnected) { try c.commit() }
        // A daemon back on the path changes nothing for it.
        let b = try Process(socket: path)
        usleep(200_000)
        #expect(seen.all == ["disconnected"])
        withExtendedLifetime(b) {}
    }

    @Test func aCommitWaitingWhenTheDaemonDiesFailsWithDisconnectedAndIsStagedAgain() throws {
        let (path, started, c, seen) = try Self.start("pending")
        var a: Process? = started
        defer { c.close() }
        let l = c.makeLayer()
        c.root.addSublayer(l)
        l.opacity = 0.25
        Glibc.kill(a!.pid, SIGSTOP)                      // the commit waits for a reply that never comes
        try #require(Self.waitUntilStopped(a!.pid))
        let result = Recorder()
        let waiting = c.commitFromAnotherThread(result)
        usleep(200_000)
        #expect(result.all.isEmpty)
        a!.kill()
        a = nil
        #expect(waiting.wait(timeout: .now() + 5) == .success)
        #expect(result.all == ["\(LaminaError.disconnected)"])
        #expect(seen.wait(for: 1) == ["lost"])
        // Nothing committed is lost: the commit's changes were staged again, and go to B.
        let b = try Self.restart(on: path, seen)
        try c.commit()
        #expect(try c.presentationValue(ofLayer: l.id, forKeyPath: "opacity") == .number(0.25))
        withExtendedLifetime(b) {}
    }

    /// A socket on the path that accepts (the kernel's backlog) and never answers: a daemon
    /// hung before its welcome.
    static func silentListener(at path: String) throws -> Int32 {
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw LaminaError.connectionFailed("cannot listen on \(path)") }
        return fd
    }

    @Test func closeWhileADaemonHangsBeforeItsWelcomeEndsTheConnectionAtOnce() throws {
        let path = Self.socketPath("hung")
        let a = try Process(socket: path)
        let c = try Connection(socketPath: path, name: "hung", reconnect: Self.quick)
        let seen = Self.record(c)
        a.kill()
        #expect(seen.wait(for: 1) == ["lost"])
        let listener = try Self.silentListener(at: path)
        defer { Glibc.close(listener); unlink(path) }
        usleep(500_000)                                  // the client is waiting for a welcome now
        #expect(seen.all == ["lost"])
        let start = Date()
        c.close()
        #expect(seen.wait(for: 2) == ["lost", "disconnected"])
        #expect(Date().timeIntervalSince(start) < 1)
    }

    @Test func closeWhileReconnectingEndsTheConnectionAtOnce() throws {
        let path = Self.socketPath("close")
        let a = try Process(socket: path)
        let c = try Connection(socketPath: path, name: "close", reconnect: .standard)
        let seen = Self.record(c)
        a.kill()
        #expect(seen.wait(for: 1) == ["lost"])
        let start = Date()
        c.close()
        #expect(seen.wait(for: 2) == ["lost", "disconnected"])
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(throws: LaminaError.disconnected) { try c.ping() }
    }
}

extension Connection {
    /// `drainEvents` from a blocking test.
    func drainEventsBlocking() {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let c = self
        Task { await c.drainEvents(); done.signal() }
        done.wait()
    }

    /// Commits on a thread of its own (the test's thread waits meanwhile, touching nothing of
    /// the connection); the semaphore is signalled once `result` has "committed" or the error.
    func commitFromAnotherThread(_ result: Recorder) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let c = self
        Thread {
            do { try c.commit(); result.add("committed") } catch { result.add("\(error)") }
            done.signal()
        }.start()
        return done
    }
}
