import Foundation
import Lamina
import LaminaServer
import Synchronization
import Testing
import DaemonTestSupport

/// A global actor for checking that callbacks formed on an actor run on it.
@globalActor actor CallbackActor {
    static let shared = CallbackActor()
}

/// An animation delegate recording its calls.
final class RecordingDelegate: AnimationDelegate {
    let recorder: Recorder
    init(_ r: Recorder) { recorder = r }
    func animationDidStart(layer: UInt32, key: String) async { recorder.add("start \(layer) \(key)") }
    func animationDidStop(layer: UInt32, key: String, finished: Bool) async {
        recorder.add("stop \(layer) \(key) \(finished)")
    }
}

/// The client library against a real daemon (manual clock): events and completions arrive
/// without the caller reading, typed errors name the failing request, async queries.
/// Expected values come from docs/protocol.md and Core Animation's timing (linear 0 → 1 over
/// 1 s is 0.5 at 0.5 s).
@Suite(.serialized) struct ClientLibraryTests {
    static func setUp() throws -> (Daemon, Connection) { try TestDaemon.withClient() }

    static func square(_ c: Connection) -> Layer {
        let l = c.makeLayer()
        l.bounds = Rect(0, 0, 50, 50)
        l.position = Point(25, 25)
        l.backgroundColor = Color(1, 0, 0)
        c.root.addSublayer(l)
        return l
    }

    @Test func completionBlocksFireWithoutPumping() throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        try c.commit()
        let seen = Recorder()
        try Transaction.perform(on: c, duration: 1, completion: { seen.add("done") }) {
            l.opacity = 0   // an implicit animation over 1 s
        }
        c.advanceClockAndWait(0.5)
        #expect(seen.wait(for: 1, seconds: 0.3).isEmpty, "completed before its animation ended")
        c.advanceClockAndWait(0.6)
        // Nothing reads here: the reader thread delivers it.
        #expect(seen.wait(for: 1) == ["done"])
    }

    /// `setValue` of a named filter's number: the local model changes, the daemon animates it
    /// implicitly (linear 2 → 10 over 2 s: 4 at 0.5 s), a field the list lacks throws here.
    @Test func aNamedFilterNumberAnimatesImplicitly() throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        l.filters = [.gaussianBlur(2, name: "blur")]
        try c.commit()
        try Transaction.perform(on: c, duration: 2, timingFunction: .linear) {
            try l.setValue(.number(10), forKeyPath: "filters.blur.radius")
        }
        #expect(l.filters[0].radius == 10)
        c.advanceClockAndWait(0.5)
        guard case .number(let r) = try l.presentationValue(forKeyPath: "filters.blur.radius") else {
            Issue.record("no radius"); return
        }
        #expect(abs(r - 4) < 1e-9)
        #expect(throws: PropertyError.self) { try l.setValue(.number(1), forKeyPath: "filters.blur.amount") }
    }

    @Test func aTransactionWithNoAnimationCompletesAtItsFrame() throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let seen = Recorder()
        c.begin()
        c.setCompletionBlock { seen.add("empty") }
        _ = Self.square(c)
        try c.commitTransaction()
        #expect(seen.wait(for: 1) == ["empty"])
    }

    /// Core Animation: a transaction has one completion block; setting it again replaces it.
    /// The replaced block never runs and is not kept (its captures are released); the new
    /// one waits for the changes made after it, as a single block would.
    @Test func aSecondCompletionBlockReplacesTheFirst() throws {
        final class Token: Sendable {}
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        try c.commit()
        let seen = Recorder()
        weak var firstCapture: Token?
        do {
            let token = Token()
            firstCapture = token
            c.begin()
            c.setAnimationDuration(1)
            c.setCompletionBlock { withExtendedLifetime(token) { seen.add("first") } }
            c.setCompletionBlock { seen.add("second") }
            l.opacity = 0   // an implicit animation over 1 s
            try c.commitTransaction()
        }
        #expect(firstCapture == nil, "the replaced block is still held")
        c.advanceClockAndWait(0.5)
        #expect(seen.wait(for: 1, seconds: 0.3).isEmpty, "completed before its animation ended")
        c.advanceClockAndWait(0.6)
        #expect(seen.wait(for: 1) == ["second"])
        // Nothing else arrives later (the first block never runs).
        c.advanceClockAndWait(1)
        #expect(seen.wait(for: 2, seconds: 0.3) == ["second"])
    }

    /// Callers blocked in the blocking forms (or anything else) may hold every thread of
    /// the cooperative pool: callbacks still run (their delivery has its own thread).
    @Test func callbacksRunWhileTheCooperativePoolIsBlocked() throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let release = DispatchSemaphore(value: 0)
        let blockers = ProcessInfo.processInfo.activeProcessorCount + 2
        for _ in 0..<blockers { Task.detached { release.wait() } }
        defer { for _ in 0..<blockers { release.signal() } }
        usleep(50_000)
        let seen = Recorder()
        c.begin()
        c.setCompletionBlock { seen.add("ran") }
        _ = Self.square(c)
        try c.commitTransaction()
        #expect(seen.wait(for: 1) == ["ran"])
    }

    @Test func callbacksFormedOnAnActorRunOnIt() async throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let seen = Recorder()
        c.begin()
        c.setCompletionBlock { @CallbackActor in
            CallbackActor.shared.assertIsolated()
            seen.add("on actor")
        }
        _ = Self.square(c)
        try await c.commitTransaction()
        _ = try await c.hitTest(Point(1, 1))
        await c.drainEvents()
        #expect(seen.all == ["on actor"])
    }

    @Test func animationDelegatesAndEventsStreamSeeStartAndStop() async throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        try await c.commit()
        let seen = Recorder()
        let delegate = RecordingDelegate(seen)
        let stream = c.events
        var timing = AnimationTiming()
        timing.duration = 1
        l.add(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: timing)),
              forKey: "fade", delegate: delegate)
        l.add(.basic(BasicAnimation(keyPath: "position.x", by: .double(10), timing: timing)), forKey: "slide",
              delegate: delegate)
        try await c.commit()
        // Linear 0 → 1 over 1 s: 0.5 at 0.5 s.
        try await c.advanceClock(by: 0.5)
        let p = try await l.presentation()
        #expect(abs(p.properties.opacity - 0.5) < 1e-9)
        #expect(p.value(forKeyPath: "position.x") == .number(25 + 5))
        l.removeAnimation(forKey: "slide")
        try await c.commit()
        try await c.advanceClock(by: 0.6)
        _ = try await c.hitTest(Point(1, 1))
        await c.drainEvents()
        #expect(seen.all == ["start \(l.id) fade", "start \(l.id) slide", "stop \(l.id) slide false",
                             "stop \(l.id) fade true"])
        var events: [ConnectionEvent] = []
        for await e in stream {
            events.append(e)
            if events.count == 4 { break }
        }
        #expect(events == [.animationStarted(layer: l.id, key: "fade"), .animationStarted(layer: l.id, key: "slide"),
                           .animationStopped(layer: l.id, key: "slide", finished: false),
                           .animationStopped(layer: l.id, key: "fade", finished: true)])
    }

    @Test func aRejectedCommitsErrorNamesTheFailingRequest() throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        try c.commit()
        let seen = Recorder()
        c.begin()
        c.setCompletionBlock { seen.add("must not run") }
        l.opacity = 0.5
        c.stageOperation(.set(l.id, keyPath: "strokeEnd", value: .number(0.5)))   // a shape layer's property
        do {
            try c.commitTransaction()
            Issue.record("the commit should have been rejected")
        } catch let e as LaminaError {
            #expect(e.code == .invalidProperty)
            // The failing request: a setProperty (0x12) of this layer at strokeEnd.
            #expect(e.failedRequest?.opcode == 0x12)
            #expect(e.failedRequest?.layer == l.id)
            #expect(e.failedRequest?.key == "strokeEnd")
        }
        // The connection stays usable; the rejected transaction's completion never runs.
        #expect(try c.presentationValue(ofLayer: l.id, forKeyPath: "opacity") == .number(1))
        #expect(seen.wait(for: 1, seconds: 0.3).isEmpty)
    }

    @Test func hitTestFindsTheLayerObject() async throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        try await c.commit()
        let hit = try await c.root.hitTest(Point(10, 10))
        #expect(hit?.id == l.id)
        // The client's own layer object, not a copy: a value set on `l` reads back through it.
        l.opacity = 0.5
        #expect(hit?.opacity == 0.5)
        #expect(try await c.root.hitTest(Point(150, 150)) == nil)
        let other = try Connection(socketPath: daemon.socketPath, name: "other")
        let o = Self.square(other)
        o.position = Point(150, 150)
        try await other.commit()
        // A query answers from a frame with its own client's commits: the other client's
        // query makes the frame with its square.
        _ = try await other.hitTest(Point(150, 150))
        // Another client's layer: found, but not this client's.
        #expect(try await c.hitTest(Point(150, 150)).result == .otherClient)
        #expect(try await c.root.hitTest(Point(150, 150)) == nil)
    }

    @Test func reduceMotionChangesAreObservedWithoutReading() throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        #expect(c.reduceMotion == false)
        #expect(c.display.width == 200 && c.display.height == 200)
        let seen = Recorder()
        c.onReduceMotionChange = { on in seen.add("reduceMotion \(on)") }
        let tool = try Connection(socketPath: daemon.socketPath, name: "tool")
        try tool.setReduceMotion(true)
        #expect(seen.wait(for: 1) == ["reduceMotion true"])
        #expect(c.reduceMotion == true)
        #expect(tool.reduceMotion == true)
    }

    @Test func aClosedDaemonFailsWaitersAndEndsStreams() async throws {
        let (daemon, c) = try Self.setUp()
        let stream = c.events
        daemon.stop()
        var last: ConnectionEvent? = nil
        for await e in stream { last = e }
        #expect(last == .disconnected)
        await #expect(throws: LaminaError.disconnected) { try await c.ping() }
        #expect(throws: LaminaError.disconnected) { try c.waitWhileConnected(timeout: 5) }
        #expect(throws: LaminaError.disconnected) { try c.commit() }
    }

    @Test func manyConcurrentQueriesAreEachAnswered() async throws {
        let (daemon, c) = try Self.setUp()
        defer { daemon.stop() }
        let l = Self.square(c)
        l.opacity = 0.25
        try await c.commit()
        let p = try await l.presentation()
        // Every property of a plain layer, answered from one frame, as the model holds it.
        #expect(p.properties.opacity == 0.25)
        #expect(p.properties.bounds == Rect(0, 0, 50, 50))
        #expect(p.properties.backgroundColor == Color(1, 0, 0))
        for _ in 0..<50 { #expect(try await c.ping() >= 0) }
    }
}

extension Connection {
    /// Moves the manual clock and waits for the frame at the new time (a query after it).
    func advanceClockAndWait(_ seconds: Double) {
        _ = try? advanceClock(by: seconds)
        _ = try? hitTest(Point(0, 0))
    }
}
