import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing
import LaminaModel

/// Nothing drawn when nothing changed (issue 11, item 2): the embedded daemon runs a
/// realtime-like clock (`tick`) and makes a frame only where the render loop would. Frames
/// are counted, never timed. Intervals of 1/64 s are exact in binary, so an animation's end
/// falls exactly on a tick.
@Suite struct IdleFrameTests {
    static let interval = 1.0 / 64

    static func json(_ a: Animation) -> String { AnimationJSON.encode(a).text }

    static func scene(_ d: EmbeddedDaemon) -> UInt32 {
        let c = d.connect()!
        let reply = d.commit([.createLayer(id: 1, kind: .layer),
                              .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 40, 40))),
                              .setProperty(id: 1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
                              .addSublayer(parent: 0, child: 1)], from: c)
        guard case .committed = reply else { Issue.record("scene commit: \(reply)"); return c }
        return c
    }

    static func slide(duration: Double, repeatCount: Double = 0, removed: Bool = true) -> Animation {
        .basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(100),
                              timing: AnimationTiming(duration: duration, repeatCount: repeatCount,
                                                      fillMode: removed ? .removed : .forwards,
                                                      removedOnCompletion: removed)))
    }

    @Test func anUnchangedSceneMakesNoFrames() {
        let d = EmbeddedDaemon()
        let c = Self.scene(d)
        let afterCommit = d.frames
        #expect(afterCommit >= 1, "the commit was drawn")
        #expect(d.tick(640, interval: Self.interval) == 0)
        // A commit wakes it at once: exactly one frame, then idle again.
        _ = d.commit([.setTransaction(TransactionSettings(disableActions: true)),
                      .setProperty(id: 1, keyPath: "opacity", value: .number(0.5))], from: c)
        #expect(d.frames == afterCommit + 1)
        #expect(d.tick(64, interval: Self.interval) == 0)
        // A change with the default action: its implicit animation (CA's 0.25 s) draws 16
        // ticks, then nothing.
        _ = d.commit([.setProperty(id: 1, keyPath: "opacity", value: .number(1))], from: c)
        #expect(d.frames == afterCommit + 2)
        #expect(d.tick(16, interval: Self.interval) == 16)
        #expect(d.tick(64, interval: Self.interval) == 0)
    }

    @Test func anAnimationDrawsUntilItEndsThenNothing() {
        let d = EmbeddedDaemon()
        let c = Self.scene(d)
        _ = d.commit([.addAnimation(id: 1, key: "slide", json: Self.json(Self.slide(duration: 0.5)))], from: c)
        // Added at t = 0; ticks at k/64: the frames at k = 1…32 (the last one, at its end,
        // ends it), then none.
        #expect(d.tick(32, interval: Self.interval) == 32)
        #expect(d.tick(320, interval: Self.interval) == 0)
        _ = d.request(.ping(token: 1), from: c)
        #expect(d.takeEvents(c).map(\.event).contains(.animationStopped(layer: 1, key: "slide", finished: true)))
    }

    /// An expression animation may read the time: the tree keeps drawing while one exists,
    /// and its value follows `t` (here x = 64·t, so each 1/64 s tick moves it by one point).
    @Test func anExpressionOfTimeDrawsEveryTickUntilRemoved() {
        let d = EmbeddedDaemon()
        let c = Self.scene(d)
        let json = #"{"type": "expression", "keyPath": "position.x", "expression": "64 * t", "layers": {}}"#
        guard case .committed = d.commit([.addAnimation(id: 1, key: "clock", json: json)], from: c) else {
            Issue.record("the expression was refused"); return
        }
        #expect(d.tick(32, interval: Self.interval) == 32)
        if case .presentation(.number(let x)) = d.request(.getPresentation(id: 1, keyPath: "position.x"), from: c) {
            #expect(abs(x - 64 * d.clock.now) < 1e-9)
        } else {
            Issue.record("no presentation value")
        }
        _ = d.commit([.removeAnimation(id: 1, key: "clock")], from: c)
        _ = d.tick(1, interval: Self.interval)
        #expect(d.tick(64, interval: Self.interval) == 0)
    }

    @Test func aFilledAnimationIsStillAfterItsEnd() {
        let d = EmbeddedDaemon()
        let c = Self.scene(d)
        _ = d.commit([.addAnimation(id: 1, key: "held", json: Self.json(Self.slide(duration: 0.25, removed: false)))], from: c)
        #expect(d.tick(16, interval: Self.interval) == 16)
        #expect(d.tick(160, interval: Self.interval) == 0)
        // Still applied (filled forwards) though nothing is drawn.
        if case .presentation(.number(let x)) = d.request(.getPresentation(id: 1, keyPath: "position.x"), from: c) {
            #expect(x == 100)
        } else {
            Issue.record("no presentation value")
        }
    }

    @Test func aRepeatingAnimationDrawsEveryTickUntilRemoved() {
        let d = EmbeddedDaemon()
        let c = Self.scene(d)
        _ = d.commit([.addAnimation(id: 1, key: "loop", json: Self.json(Self.slide(duration: 0.25, repeatCount: .infinity)))], from: c)
        #expect(d.tick(200, interval: Self.interval) == 200)
        _ = d.commit([.removeAnimation(id: 1, key: "loop")], from: c)
        #expect(d.tick(100, interval: Self.interval) == 0)
    }

    @Test func aClientLeavingWithItsAnimationsLeavesTheLoopIdle() {
        let d = EmbeddedDaemon()
        let other = Self.scene(d)
        let c = d.connect(name: "leaving")!
        _ = d.commit([.createLayer(id: 1, kind: .layer), .addSublayer(parent: 0, child: 1),
                      .addAnimation(id: 1, key: "loop", json: Self.json(Self.slide(duration: 1, repeatCount: .infinity)))],
                     from: c)
        #expect(d.tick(10, interval: Self.interval) == 10)
        d.hangUp(c)
        #expect(d.tick(100, interval: Self.interval) == 0)
        _ = other
    }

    @Test func statsTellIdleTimeFromBusyTime() {
        let d = EmbeddedDaemon()
        let c = Self.scene(d)
        let frames = d.frames
        d.tick(128, interval: Self.interval)
        guard case .stats(let json) = d.request(.getStats, from: c),
              let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            Issue.record("no stats"); return
        }
        #expect(object["frames"] as? Int == frames)
        // 128 idle ticks of 1/64 s: two seconds asleep; the embedded daemon measures no busy time.
        #expect(abs((object["idleSeconds"] as? Double ?? -1) - 2) < 1e-3)
        #expect(object["busyFraction"] as? Double == 0)
    }
}
