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
}
