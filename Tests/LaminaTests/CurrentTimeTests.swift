import Foundation
@testable import Lamina
import LaminaServer
import Testing
import DaemonTestSupport
import TestSupport

/// `Connection.currentTime()` (the `getTime` request) against real daemons: the manual clock's
/// value as `advanceClock` reports it, the realtime clock against the wall clock, and an
/// animation scheduled from it.
@Suite(.serialized) struct CurrentTimeTests {
    @Test func itIsTheManualClockAsAdvanceClockReportsIt() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        #expect(try c.currentTime() == c.welcomeTime)
        let advanced = try c.advanceClock(by: 1.25)
        #expect(advanced == c.welcomeTime + 1.25)
        #expect(try c.currentTime() == advanced)
    }

    @Test func theAsyncFormAnswersTheSame() async throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let advanced = try await c.advanceClock(by: 0.5)
        #expect(try await c.currentTime() == advanced)
    }

    @Test func itFollowsTheWallClockUnderTheRealtimeClock() throws {
        var config = DaemonConfig()
        config.socket = NSTemporaryDirectory() + "lamina-time-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        config.width = 64; config.height = 64
        config.clock = "realtime"
        let daemon = Daemon(config: config)
        try daemon.start()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath)
        let t1 = try c.currentTime()
        let wall = Date()
        Thread.sleep(forTimeInterval: 0.3)
        let t2 = try c.currentTime()
        let elapsed = Date().timeIntervalSince(wall)
        #expect(t1 >= c.welcomeTime)
        // The daemon's clock moved as far as the wall clock, give or take the round trips.
        #expect(abs((t2 - t1) - elapsed) < 0.05, "\(t2 - t1) against \(elapsed)")
    }

    /// `beginTime` counts from the commit's time, which is `currentTime()` when the commit is
    /// sent (the manual clock stands still between): linear 0 → 200 over 1 s beginning 0.5 s
    /// after now is the model value (100) until now + 0.5, then 200 · (t − now − 0.5).
    @Test func anAnimationBeginningHalfASecondAfterNowStartsThen() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let l = c.makeLayer()
        l.bounds = Rect(0, 0, 10, 10)
        l.position = Point(100, 50)
        c.root.addSublayer(l)
        try c.commit()
        try c.advanceClock(by: 2)
        let now = try c.currentTime()
        var timing = AnimationTiming()
        timing.duration = 1
        timing.beginTime = 0.5
        l.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(200), timing: timing)), forKey: "slide")
        try c.commit()
        func x(at t: Double) throws -> Double {
            try c.advanceClock(by: t - (try c.currentTime()))
            guard case .number(let v) = try l.presentationValue(forKeyPath: "position.x") else { return .nan }
            return v
        }
        #expect(try x(at: now + 0.25) == 100)
        #expect(try x(at: now + 0.75) == 50)
        #expect(try x(at: now + 1.25) == 150)
        #expect(try x(at: now + 1.75) == 100)   // ended and removed: the model value
    }

    /// Layer time through the client: Apple's QA1673 pauses a layer tree with `timeOffset =
    /// convertTime(CACurrentMediaTime(), from: nil)`, `speed = 0`, and resumes it with `speed =
    /// 1`, `timeOffset = 0`, `beginTime = 0`, then `beginTime = convertTime(now, from: nil) −
    /// paused`. Linear 0 → 100 over 2 s added at `now`: 50 at now + 1, held there while paused
    /// (4 s), then 75 half a second after the resume, with no jump.
    @Test func theQA1673RecipePausesAndResumesWithoutAJump() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let parent = c.makeLayer(), l = c.makeLayer()
        parent.bounds = Rect(0, 0, 10, 10); l.bounds = Rect(0, 0, 10, 10)
        parent.addSublayer(l)
        c.root.addSublayer(parent)
        try c.commit()
        var timing = AnimationTiming()
        timing.duration = 2
        l.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(100), timing: timing)), forKey: "m")
        try c.commit()
        func x() throws -> Double {
            guard case .number(let v) = try l.presentationValue(forKeyPath: "position.x") else { return .nan }
            return v
        }
        try c.advanceClock(by: 1)
        let paused = parent.convertTime(try c.currentTime(), from: nil)
        parent.speed = 0
        parent.timeOffset = paused
        try c.commit()
        #expect(abs(try x() - 50) < 1e-9)
        try c.advanceClock(by: 4)
        #expect(abs(try x() - 50) < 1e-9)
        parent.speed = 1; parent.timeOffset = 0; parent.beginTime = 0
        parent.beginTime = parent.convertTime(try c.currentTime(), from: nil) - paused
        try c.commit()
        #expect(abs(try x() - 50) < 1e-9)
        try c.advanceClock(by: 0.5)
        #expect(abs(try x() - 75) < 1e-9)
        // The map the client keeps: local = t − beginTime (speed 1, no offset), and back.
        let now = try c.currentTime()
        #expect(l.convertTime(now, from: nil) == now - parent.beginTime)
        #expect(parent.convertTime(l.convertTime(now, from: nil), to: nil) == now)
    }
}

/// The root container (`Connection.root`): a `RootLayer` offering only what the daemon
/// accepts of it.
@Suite(.serialized) struct RootLayerTests {
    @Test func itHoldsTheTopLevelLayersAndIsTheirSuperlayer() async throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let root: RootLayer = c.root
        let a = c.makeLayer(), b = c.makeLayer()
        a.bounds = Rect(0, 0, 20, 20); a.position = Point(10, 10)
        b.bounds = Rect(0, 0, 20, 20); b.position = Point(50, 50)
        root.addSublayer(b)
        root.insertSublayer(a, at: 0)
        try await c.commit()
        #expect(root.id == 0 && root.sublayers.map(\.id) == [a.id, b.id])
        #expect(a.superlayer === c.layer(withID: 0) && c.layer(withID: 0) === root.layer)
        #expect(try await root.hitTest(Point(50, 50)) === b)
        #expect(try await root.hitTest(Point(150, 150)) == nil)
    }

    /// The daemon still refuses a property on the container, reached through `layer(withID: 0)`
    /// (docs/protocol.md: `setProperty` on it is `invalidProperty`), so the type leaves them out.
    @Test func theDaemonRefusesPropertiesOnTheContainer() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        c.layer(withID: 0)!.backgroundColor = Color(1, 0, 0)
        #expect(throws: LaminaError.self) { try c.commit() }
    }
}

/// What compiles against the client library: the root container has no properties, so setting
/// one is a compile-time error naming the remedy (swiftc type-checks snippets against the
/// modules this build made).
@Suite(.serialized) struct RootLayerCompileTests {
    /// The build's module folder: beside the test bundle, else the package's .build/debug.
    static func modules() -> String? {
        [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("Modules"),
         repositoryRoot.appendingPathComponent(".build/debug/Modules")]
            .map(\.path).first { FileManager.default.fileExists(atPath: $0 + "/Lamina.swiftmodule") }
    }

    /// swiftc's status and diagnostics for `source` importing Lamina.
    static func typecheck(_ source: String) throws -> (status: Int32, output: String)? {
        guard let swiftc = executableInPath("swiftc"), let modules = modules() else { return nil }
        let file = NSTemporaryDirectory() + "lamina-typecheck-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).swift"
        try ("import Lamina\n" + source).write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: swiftc)
        p.arguments = ["-typecheck", "-swift-version", "6", "-I", modules, file]
        let out = Pipe()
        p.standardOutput = out; p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    @Test func aPropertyOfTheRootDoesNotCompileItsSublayersDo() throws {
        guard let ok = try Self.typecheck("func f(_ c: Connection) { c.root.addSublayer(c.makeLayer()) }"),
              let colour = try Self.typecheck("func f(_ c: Connection) { c.root.backgroundColor = Color(1, 0, 0) }"),
              let opacity = try Self.typecheck("func f(_ c: Connection) { c.root.opacity = 0.5 }") else {
            Issue.record("no swiftc in PATH or no built Lamina module"); return
        }
        #expect(ok.status == 0, "\(ok.output)")
        #expect(colour.status != 0)
        #expect(colour.output.contains("'backgroundColor' is unavailable: the root container takes no properties"))
        #expect(opacity.status != 0 && opacity.output.contains("has no member 'opacity'"))
    }
}

/// Blocking forms that block the main actor in async code say so on standard error (top-level
/// code gets them even after `await`: BlockingCheck's notes). On the main thread in a task it
/// is reported — TopLevelExampleTests runs that in a real program (Swift Testing's main actor
/// is not the main thread), with a callback's blocking call, which is not; here: a blocking call
/// off the main thread, not reported either.
@Suite(.serialized) struct BlockingCheckTests {
    static func blockingPing(_ c: Connection) throws { _ = try c.ping() }
    static func blockingTime(_ c: Connection) throws { _ = try c.currentTime() }

    @Test func blockingOffTheMainThreadIsNotReported() async throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let said = Recorder()
        let previous = BlockingCheck.state.withLock { s in
            defer { s.reported = []; s.sink = { said.add($0) } }
            return s.sink
        }
        defer { BlockingCheck.state.withLock { $0.sink = previous } }
        // A detached task's thread (a cooperative one, not the main thread).
        let path = daemon.socketPath
        try await Task.detached {
            let c2 = try Connection(socketPath: path)
            try Self.blockingTime(c2)
            try Self.blockingPing(c2)
        }.value
        #expect(said.all.isEmpty)
    }

    @Test func theReportNamesTheRequestAndTheRemedy() {
        let m = BlockingCheck.message("commit")
        #expect(m.contains("`commit`") && m.contains("async function") && m.contains("docs/swift-client.md"))
    }
}
