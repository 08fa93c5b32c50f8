import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing

/// `instanceDelay` (DrawListBuilder+Replicator.swift, `DelayedInstances`): instance k of a
/// replicator shows its sublayers' animations at the replicator's local time minus k × delay.
/// Expected centres are worked out by hand from a linear `position.x` animation: x(u) =
/// from + (to − from) × u / duration at local time u inside the active interval, the model
/// value before it begins (no backwards fill), `to` after it ends (forwards fill).
@Suite("Replicator instanceDelay")
struct ReplicatorDelayTests {
    static let from = 20.0, to = 120.0

    static func moveX(_ id: UInt32, duration: Double = 1) -> LayerChange {
        .addAnimation(id, key: "move", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(from), to: .double(to),
            timing: AnimationTiming(duration: duration, fillMode: .forwards, removedOnCompletion: false))))
    }

    static func x(at u: Double, duration: Double = 1) -> Double {
        u < 0 ? 5 : from + (to - from) * min(u, duration) / duration  // 5: the model position (frame 0…10)
    }

    /// A driver with one commit at time 0 holding `operations`.
    static func driver(_ operations: [LayerChange]) throws -> (FrameDriver, [CommitPacket]) {
        var model = ModelTree()
        let driver = FrameDriver(widthPoints: 300, heightPoints: 200, scale: 1, background: .black, targetFPS: 60)
        var setup = Commit(client: 1, content: .operations(operations))
        setup.time = 0
        return (driver, [try model.validate(Commit(client: 1, content: .connect)), try model.validate(setup)])
    }

    static func replicator(_ id: UInt32, parent: UInt32, count: Double, delay: Double, step: Transform3D) -> [LayerChange] {
        [.create(id, .replicator), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 200, 100))),
         .set(id, keyPath: "position", value: .point(Point(100, 50))),
         .set(id, keyPath: "instanceCount", value: .number(count)),
         .set(id, keyPath: "instanceDelay", value: .number(delay)),
         .set(id, keyPath: "instanceTransform", value: .transform(step)),
         .addSublayer(parent: parent, child: id)]
    }

    static func dot(_ id: UInt32, parent: UInt32, _ extra: [LayerChange] = []) -> [LayerChange] {
        [.create(id, .layer), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
         .set(id, keyPath: "position", value: .point(Point(5, 5))),
         .set(id, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
         .addSublayer(parent: parent, child: id)] + extra
    }

    /// The device x of each item's bounds centre, in list order.
    static func centres(_ list: DrawList) -> [Double] {
        list.items.map { item in
            let b = item.bounds, m = item.transform
            return b.midX * m.m11 + b.midY * m.m21 + m.m41
        }
    }

    static func expectCentres(_ list: DrawList, _ expected: [Double], _ note: String) {
        let got = centres(list)
        #expect(got.count == expected.count, "\(note): \(got)")
        for (g, e) in zip(got, expected) { #expect(abs(g - e) < 1e-9, "\(note): \(got) ≠ \(expected)") }
    }

    @Test func eachInstanceRunsItsAnimationDelayTimesKLater() throws {
        var (driver, packets) = try Self.driver(Self.replicator(1, parent: 0, count: 3, delay: 0.25, step: .identity)
            + Self.dot(2, parent: 1, [Self.moveX(2)]))
        // t 0.1: instance 0 at 0.1; instances 1 and 2 have not begun (model value 5).
        Self.expectCentres(driver.frame(applying: packets, at: 0.1).drawList, [Self.x(at: 0.1), 5, 5], "t 0.1")
        packets = []
        for t in [0.5, 0.75, 1.2] {
            let list = driver.frame(applying: [], at: t).drawList
            Self.expectCentres(list, (0..<3).map { Self.x(at: t - 0.25 * Double($0)) }, "t \(t)")
            #expect(driver.isAnimating, "t \(t): instance 2 still moves")
        }
        // t 1.2: the model's animation has ended (instance 0), instance 2 is at 0.7: still moving.
        #expect(!driver.tree.hasMovingAnimations)
        let end = driver.frame(applying: [], at: 1.6).drawList
        Self.expectCentres(end, [Self.to, Self.to, Self.to], "t 1.6")
        #expect(!driver.isAnimating, "every instance has ended")
    }

    @Test func aSublayersOwnSpeedScalesTheShiftedTime() throws {
        // The dot runs at speed 2: instance k's local time is (t − 0.25 k) × 2.
        let (driver0, packets) = try Self.driver(Self.replicator(1, parent: 0, count: 3, delay: 0.25, step: .identity)
            + Self.dot(2, parent: 1, [.set(2, keyPath: "speed", value: .number(2)), Self.moveX(2)]))
        var driver = driver0
        let list = driver.frame(applying: packets, at: 0.375).drawList
        Self.expectCentres(list, [Self.x(at: 0.75), Self.x(at: 0.25), Self.x(at: -0.25)], "speed 2")
    }

    @Test func nestedDelaysAddUp() throws {
        // Outer: 2 rows (delay 0.5), inner: 2 columns (delay 0.25) → shifts 0, 0.25, 0.5, 0.75.
        let (driver0, packets) = try Self.driver(
            Self.replicator(1, parent: 0, count: 2, delay: 0.5, step: .translation(0, 20))
            + Self.replicator(3, parent: 1, count: 2, delay: 0.25, step: .identity)
            + Self.dot(2, parent: 3, [Self.moveX(2)]))
        var driver = driver0
        let list = driver.frame(applying: packets, at: 0.8).drawList
        Self.expectCentres(list, [0, 0.25, 0.5, 0.75].map { Self.x(at: 0.8 - $0) }, "nested")
    }

    @Test func withoutDelayEveryInstanceShowsThePresentation() throws {
        let (driver0, packets) = try Self.driver(Self.replicator(1, parent: 0, count: 3, delay: 0, step: .identity)
            + Self.dot(2, parent: 1, [Self.moveX(2)]))
        var driver = driver0
        Self.expectCentres(driver.frame(applying: packets, at: 0.4).drawList, Array(repeating: Self.x(at: 0.4), count: 3), "no delay")
    }

    @Test func aFrozenReplicatorKeepsItsInstancesStill() throws {
        // speed 0 on the replicator: its local time stays at timeOffset 0.6, where the animation
        // began (added at local time 0.6); instance k is at 0 − 0.25k: only instance 0 has begun.
        let (driver0, packets) = try Self.driver(Self.replicator(1, parent: 0, count: 3, delay: 0.25, step: .identity)
            + [.set(1, keyPath: "speed", value: .number(0)), .set(1, keyPath: "timeOffset", value: .number(0.6))]
            + Self.dot(2, parent: 1, [Self.moveX(2)]))
        var driver = driver0
        let list = driver.frame(applying: packets, at: 3).drawList
        Self.expectCentres(list, [0, -0.25, -0.5].map { Self.x(at: $0) }, "frozen")
        #expect(!driver.isAnimating, "a frozen subtree needs no frames")
    }
}
