import DaemonTestSupport
import Foundation
import Lamina
import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing

/// `Layer.transition` and `Connection.match` through a daemon under the manual clock: values
/// worked out by hand from docs/protocol.md's "Transitions and matched geometry".
@Suite(.serialized) struct TransitionClientTests {
    func number(_ l: Layer, _ keyPath: String) throws -> Double {
        guard case .number(let v) = try l.presentationValue(forKeyPath: keyPath) else { return .nan }
        return v
    }
    func point(_ l: Layer, _ keyPath: String) throws -> Point {
        guard case .point(let p) = try l.presentationValue(forKeyPath: keyPath) else { return Point(.nan, .nan) }
        return p
    }

    @Test func removalStaysDrawnNotHitThenGoes() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let row = c.makeLayer()
        row.bounds = Rect(0, 0, 40, 40)
        row.position = Point(20, 20)
        row.backgroundColor = Color(0, 1, 0)
        row.transition = .asymmetric(insertion: .offset(100, 0), removal: .opacity)
        try Transaction.perform(on: c, duration: 1, timingFunction: .linear) { c.root.addSublayer(row) }
        c.advanceClockAndWait(0.25)
        #expect(abs(try point(row, "position").x - (20 + 100 * 0.75)) < 1e-9)
        c.advanceClockAndWait(1)
        #expect(try c.hitTest(Point(20, 20)).layer == row.id)
        try Transaction.perform(on: c, duration: 1, timingFunction: .linear) { row.removeFromSuperlayer() }
        c.advanceClockAndWait(0.5)
        #expect(abs(try number(row, "opacity") - 0.5) < 1e-9)
        #expect(try c.hitTest(Point(20, 20)).result == .none)
    }

    /// CATransition from the client library: staged as `transition` (0x42) with the
    /// transaction's duration when left out; a bad duration fails the whole commit.
    @Test func contentTransitionCommitsAndBadOnesFailWhole() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let page = c.makeLayer()
        page.bounds = Rect(0, 0, 100, 50)
        page.position = Point(50, 25)
        page.backgroundColor = Color(0, 0, 1)
        c.root.addSublayer(page)
        try c.commit()
        try Transaction.perform(on: c, duration: 0.5, timingFunction: .linear) {
            page.backgroundColor = Color(0, 1, 0)
            Transaction.transition(page, type: .push, subtype: .fromRight, on: c)
        }
        c.advanceClockAndWait(0.25)
        // Inside the transition the change does not animate on its own.
        #expect(try page.presentationValue(forKeyPath: "backgroundColor") == .color(Color(0, 1, 0)))
        page.opacity = 0.5
        c.addTransition(to: page, type: .fade, duration: -1)
        #expect(throws: (any Error).self) { try c.commit() }
        c.advanceClockAndWait(0.1)
        #expect(try number(page, "opacity") == 1)
    }

    @Test func reduceMotionTurnsMovementIntoAFade() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        try c.setReduceMotion(true)
        let row = c.makeLayer()
        row.bounds = Rect(0, 0, 40, 40)
        row.position = Point(20, 20)
        row.transition = .slide
        try Transaction.perform(on: c, duration: 1, timingFunction: .linear) { c.root.addSublayer(row) }
        c.advanceClockAndWait(0.25)
        #expect(try point(row, "position") == Point(20, 20))
        #expect(abs(try number(row, "opacity") - 0.25) < 1e-9)
    }

    /// Under Reduce Motion the daemon plays a match as a cross-fade: neither layer moves or
    /// changes size (b stays at its own frame and corner radius, a where it is), b's opacity
    /// goes 0 → 1 and a's 1 → 0 (linear: half way at 0.5 s).
    @Test func reduceMotionTurnsAMatchIntoACrossFade() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        try c.setReduceMotion(true)
        let (a, b) = try matchHalfWay(c)
        #expect(try point(b, "position") == Point(250, 150))
        #expect(try b.presentationValue(forKeyPath: "bounds") == .rect(Rect(0, 0, 100, 60)))
        #expect(abs(try number(b, "cornerRadius") - 8) < 1e-9)
        #expect(try point(a, "position") == Point(50, 50))
        #expect(try a.presentationValue(forKeyPath: "bounds") == .rect(Rect(0, 0, 20, 20)))
        #expect(abs(try number(a, "opacity") - 0.5) < 1e-9)
        #expect(abs(try number(b, "opacity") - 0.5) < 1e-9)
        c.advanceClockAndWait(0.6)
        #expect(abs(try number(a, "opacity")) < 1e-9)
        #expect(abs(try number(b, "opacity") - 1) < 1e-9)
        #expect(try point(a, "position") == Point(50, 50))
    }

    /// a (20 × 20 at (50, 50)) matched into b (100 × 60 at (250, 150), corner radius 8) in a
    /// linear transaction of 1 s, seen half way.
    func matchHalfWay(_ c: Connection) throws -> (Layer, Layer) {
        let a = c.makeLayer(), b = c.makeLayer()
        a.bounds = Rect(0, 0, 20, 20); a.position = Point(50, 50)
        b.bounds = Rect(0, 0, 100, 60); b.position = Point(250, 150); b.cornerRadius = 8
        c.root.addSublayer(a); c.root.addSublayer(b)
        try c.commit()
        try Transaction.perform(on: c, duration: 1, timingFunction: .linear) { Transaction.match(from: a, to: b, on: c) }
        c.advanceClockAndWait(0.5)
        return (a, b)
    }

    @Test func matchStartsAtTheSourceFrame() throws {
        let (daemon, c) = try TestDaemon.withClient()
        defer { daemon.stop() }
        let (a, b) = try matchHalfWay(c)
        #expect(try point(b, "position") == Point(150, 100))
        #expect(abs(try number(b, "cornerRadius") - 4) < 1e-9)   // from 0 to 8
        #expect(try point(a, "position") == Point(150, 100))
        #expect(abs(try number(a, "opacity") - 0.5) < 1e-9)
        #expect(abs(try number(b, "opacity") - 0.5) < 1e-9)
    }
}
