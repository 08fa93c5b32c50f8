import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

/// The frame driver with no GPU: packets in, snapshots, draw lists and events out.
@Suite struct FrameDriverTests {
    @Test func aPublishedSnapshotStaysAsItWasWhileLaterFramesRun() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 100, heightPoints: 100, scale: 1, background: .black, targetFPS: 60)
        let fade = Animation.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                                  timing: AnimationTiming(duration: 1)))
        var setup = Commit(client: 1, content: .operations([
            .create(1, .layer), .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 50, 50))),
            .set(1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
            .addSublayer(parent: 0, child: 1), .addAnimation(1, key: "fade", animation: fade),
        ]))
        setup.time = 0
        let packets = [try model.validate(Commit(client: 1, content: .connect)), try model.validate(setup)]
        let id = LayerID(client: 1, local: 1)
        let first = driver.frame(applying: packets, at: 0.25)
        #expect(first.events == [.animationStarted(id, key: "fade")])
        #expect(first.drawList.items.count == 1)
        let held = first.snapshot
        #expect(held.time == 0.25 && held.sequence == 2 && held.frame == 1)
        #expect(held.value(of: id, keyPath: "opacity") == .number(0.25))     // linear: t / 1 s
        // Later frames while the first snapshot is held: it never changes; later ones differ.
        var last = held
        for (i, t) in [0.5, 0.75, 1.5].enumerated() {
            let f = driver.frame(applying: [], at: t)
            #expect(f.snapshot.frame != held.frame)
            #expect(f.snapshot.time == t && f.snapshot.frame == UInt64(i + 2))
            #expect(f.snapshot.value(of: id, keyPath: "opacity") == .number(min(t, 1) == 1 ? 1 : t))
            #expect(held.time == 0.25 && held.frame == 1 && held.value(of: id, keyPath: "opacity") == .number(0.25))
            last = f.snapshot
        }
        #expect(last.value(of: id, keyPath: "opacity") == .number(1))   // the model value after the end
        // A new commit shows in the next snapshot with its sequence.
        let change = try model.validate(Commit(client: 1, content: .operations([.removeFromSuperlayer(1)])))
        let after = driver.frame(applying: [change], at: 2)
        #expect(after.snapshot.sequence == 3 && after.snapshot.hitTest(Point(10, 10)) == nil)
        #expect(after.drawList.items.isEmpty)
        #expect(held.hitTest(Point(10, 10)) == id)
    }

    /// Layer time: animations frozen by speed 0 change nothing as time passes, so no frame is
    /// needed for them (the render thread may sleep); scrubbed or resumed, frames come again.
    /// Opacity 0 → 1 over 1 s (linear) on layer 2 under layer 1.
    @Test func frozenAnimationsNeedNoFrames() throws {
        var model = ModelTree()
        var driver = FrameDriver(widthPoints: 100, heightPoints: 100, scale: 1, background: .black, targetFPS: 60)
        let fade = Animation.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                                  timing: AnimationTiming(duration: 1)))
        func packet(_ ops: [LayerChange], at time: Double) throws -> CommitPacket {
            var c = Commit(client: 1, content: .operations(ops))
            c.time = time
            return try model.validate(c)
        }
        let setup = [try model.validate(Commit(client: 1, content: .connect)), try packet([
            .create(1, .layer), .addSublayer(parent: 0, child: 1),
            .create(2, .layer), .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 50, 50))),
            .set(2, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
            .addSublayer(parent: 1, child: 2), .addAnimation(2, key: "fade", animation: fade),
        ], at: 0)]
        let id = LayerID(client: 1, local: 2)
        _ = driver.frame(applying: setup, at: 0)
        #expect(driver.needsFrame(pending: false))
        // Paused at 0.25 (QA1673: timeOffset = the local time then, speed 0).
        let paused = try packet([.set(1, keyPath: "speed", value: .number(0)), .set(1, keyPath: "timeOffset", value: .number(0.25))],
                                at: 0.25)
        let f = driver.frame(applying: [paused], at: 0.25)
        #expect(f.snapshot.value(of: id, keyPath: "opacity") == .number(0.25))
        #expect(!driver.needsFrame(pending: false))
        #expect(driver.frame(applying: [], at: 9).snapshot.value(of: id, keyPath: "opacity") == .number(0.25))
        #expect(!driver.needsFrame(pending: false))
        // Resumed at 10: speed 1, timeOffset 0, beginTime 10 − 0.25.
        let resumed = try packet([.set(1, keyPath: "speed", value: .number(1)), .set(1, keyPath: "timeOffset", value: .number(0)),
                                  .set(1, keyPath: "beginTime", value: .number(9.75))], at: 10)
        _ = driver.frame(applying: [resumed], at: 10)
        #expect(driver.needsFrame(pending: false))
        #expect(driver.frame(applying: [], at: 10.5).snapshot.value(of: id, keyPath: "opacity") == .number(0.75))
        _ = driver.frame(applying: [], at: 10.75)
        #expect(!driver.needsFrame(pending: false), "ended at local 1, t = 10.75")
    }
}
