import Foundation
import Lamina
import LaminaServer
import LaminaWire
import Testing

/// Transactions, implicit and explicit animations, events and presentation queries end to
/// end: laminad with the manual clock, driven through the client library.
@Suite(.serialized) struct AnimationDaemonTests {
    func number(_ v: PropertyValue) -> Double {
        if case .number(let x) = v { return x }
        return .nan
    }

    @Test func implicitAnimationCompletionAndPresentation() throws {
        let daemon = try DaemonTests.makeDaemon()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "anim")
        let box = c.makeLayer()
        box.bounds = Rect(0, 0, 50, 50); box.position = Point(100, 100); box.backgroundColor = Color(1, 0, 0)
        c.root.addSublayer(box)
        try c.commit()

        var completed = 0
        try c.transaction(duration: 1, timingFunction: .linear, completion: { completed += 1 }) {
            box.opacity = 0
        }
        #expect(completed == 0)
        try c.advanceClock(by: 0.25)
        // Linear from the presentation value 1 to 0 over 1 s: 0.75 at a quarter.
        #expect(abs(number(try box.presentationValue(forKeyPath: "opacity")) - 0.75) < 1e-9)
        #expect(try c.hitTest(Point(100, 100)) == (.ownLayer, box.id))
        try c.advanceClock(by: 1)
        _ = try c.ping()                              // the completion event precedes the pong
        for _ in 0..<20 where completed == 0 { try c.processEvents(timeout: 0.1) }
        #expect(completed == 1)
        #expect(number(try box.presentationValue(forKeyPath: "opacity")) == 0)
        _ = try c.ping()
        #expect(completed == 1)
    }

    @Test func explicitAnimationEventsAndRemoval() throws {
        let daemon = try DaemonTests.makeDaemon()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "anim")
        var events: [String] = []
        c.animationEventHandler = { layer, key, finished in
            events.append("\(layer) \(key) \(finished.map { $0 ? "finished" : "removed" } ?? "started")")
        }
        let box = c.makeLayer()
        box.bounds = Rect(0, 0, 10, 10)
        c.root.addSublayer(box)
        try c.commit()
        box.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(100),
                                      timing: AnimationTiming(duration: 2))), forKey: "slide")
        try c.commit()
        try c.advanceClock(by: 0.5)
        #expect(number(try box.presentationValue(forKeyPath: "position.x")) == 25)
        box.removeAnimation(forKey: "slide")
        try c.commit()
        #expect(number(try box.presentationValue(forKeyPath: "position.x")) == 0)
        _ = try c.ping()
        #expect(events == ["1 slide started", "1 slide removed"])
    }

    @Test func aBadAnimationRejectsTheCommit() throws {
        let daemon = try DaemonTests.makeDaemon()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "anim")
        let box = c.makeLayer()
        c.root.addSublayer(box)
        box.add(.basic(BasicAnimation(keyPath: "opacity", from: .point(.zero), to: .double(1))), forKey: "bad")
        #expect(throws: LaminaError.self) { try c.commit() }
        // The animation's JSON was refused when staged, so the commit failed as a whole.
        #expect(c.pendingErrors.map(\.code) == [.invalidAnimation])
        // Nothing of it applied: the layer does not exist.
        #expect(!(try c.treeJSON()).contains("\"kind\": \"layer\", \"depth\": 2"))
    }
}
