import Foundation
import Lamina
import LaminaServer
import Testing
import DaemonTestSupport

/// Pointer events bubble from the hit layer to its superlayers (`Layer.onPointer`), against a
/// real daemon with injected input (the viewer's path: `Daemon.inject`). The points each
/// handler gets are worked out by hand from the layers' geometry below.
@Suite(.serialized) struct PointerBubblingTests {
    /// outer: anchor (0, 0) at canvas (20, 30), 160×140. middle: in outer, anchor (0, 0) at
    /// (10, 20), 60×50, scaled ×2 about its anchor, so outer's (10 + 2u, 20 + 2v) is middle's
    /// (u, v). inner: in middle, anchor (0, 0) at (5, 5), 20×20 — canvas (40…80, 60…100).
    /// The canvas point (50, 70) is outer's (30, 40), middle's (10, 10), inner's (5, 5).
    /// other: a top-level layer at the canvas origin, 200×200, below outer.
    struct Scene {
        let daemon: Daemon
        let c: Connection
        let outer: Layer, middle: Layer, inner: Layer, other: Layer
    }

    static func scene() throws -> Scene {
        let (daemon, c) = try TestDaemon.withClient()
        func layer(_ position: Point, _ size: Size) -> Layer {
            let l = c.makeLayer()
            l.anchorPoint = Point(0, 0)
            l.position = position
            l.bounds = Rect(origin: Point(0, 0), size: size)
            return l
        }
        let other = layer(Point(0, 0), Size(200, 200))
        let outer = layer(Point(20, 30), Size(160, 140))
        let middle = layer(Point(10, 20), Size(60, 50))
        middle.transform = .scale(2, 2)
        let inner = layer(Point(5, 5), Size(20, 20))
        c.root.addSublayer(other)
        c.root.addSublayer(outer)
        outer.addSublayer(middle)
        middle.addSublayer(inner)
        try c.commit()
        try waitForFrame(c)
        return Scene(daemon: daemon, c: c, outer: outer, middle: middle, inner: inner, other: other)
    }

    /// A query is answered once a frame covers every commit: input is routed against it.
    static func waitForFrame(_ c: Connection) throws { _ = try c.hitTest(Point(0, 0)) }

    static func click(_ s: Scene, at p: Point) {
        s.daemon.inject(.pointer(.down, at: p, button: 0))
        s.daemon.inject(.pointer(.up, at: p, button: 0))
    }

    /// Records "name layer target x y" for downs, and answers `result`.
    static func handler(_ name: String, _ seen: Recorder, _ result: PointerEventResult = .ignored) -> PointerHandler {
        { e in
            if e.phase == .down { seen.add("\(name) \(e.layer) \(e.target) \(e.location.x) \(e.location.y)") }
            return result
        }
    }

    @Test func anEventBubblesFromTheHitLayerOutwardEachHandlerInItsOwnCoordinates() throws {
        let s = try Self.scene()
        defer { s.daemon.stop() }
        let seen = Recorder()
        s.inner.onPointer(Self.handler("inner", seen))
        s.middle.onPointer(Self.handler("middle", seen))
        s.outer.onPointer(Self.handler("outer", seen))
        s.c.root.onPointer(Self.handler("root", seen))
        s.c.onPointer = { e in if e.phase == .down { seen.add("connection \(e.layer) \(e.location.x) \(e.location.y)") } }
        Self.click(s, at: Point(50, 70))
        let i = s.inner.id
        #expect(seen.wait(for: 5) == [
            "inner \(i) \(i) 5.0 5.0",
            "middle \(s.middle.id) \(i) 10.0 10.0",
            "outer \(s.outer.id) \(i) 30.0 40.0",
            "root 0 \(i) 50.0 70.0",              // the container sits at the canvas origin
            "connection \(i) 5.0 5.0",            // onPointer: the event as routed
        ])
    }

    @Test func handledStopsTheEventWhereItIs() throws {
        let s = try Self.scene()
        defer { s.daemon.stop() }
        let seen = Recorder()
        s.inner.onPointer(Self.handler("inner", seen))
        s.middle.onPointer(Self.handler("middle", seen, .handled))
        s.outer.onPointer(Self.handler("outer", seen))
        s.c.root.onPointer(Self.handler("root", seen))
        s.c.onPointer = { e in if e.phase == .down { seen.add("connection") } }
        Self.click(s, at: Point(50, 70))
        _ = seen.wait(for: 2)
        Thread.sleep(forTimeInterval: 0.2)          // room for a wrong third delivery
        let i = s.inner.id
        #expect(seen.all == ["inner \(i) \(i) 5.0 5.0", "middle \(s.middle.id) \(i) 10.0 10.0"])
    }

    @Test func aLayerWithoutAHandlerPassesTheEventToItsSuperlayer() throws {
        let s = try Self.scene()
        defer { s.daemon.stop() }
        let seen = Recorder()
        // A click on inner (no handler) reaches outer's, and the listening form hears it too.
        s.outer.onPointer(Self.handler("outer", seen))
        s.c.onPointer(of: s.middle) { e in if e.phase == .down { seen.add("listener \(e.layer) \(e.location.x) \(e.location.y)") } }
        Self.click(s, at: Point(50, 70))
        #expect(seen.wait(for: 2) == ["listener \(s.middle.id) 10.0 10.0", "outer \(s.outer.id) \(s.inner.id) 30.0 40.0"])
    }

    @Test func theChainIsTheDaemonsTreeAtTheHitNotTheStagedOne() throws {
        let s = try Self.scene()
        defer { s.daemon.stop() }
        let seen = Recorder()
        for (layer, name) in [(s.inner, "inner"), (s.middle, "middle"), (s.outer, "outer"), (s.other, "other")] {
            layer.onPointer(Self.handler(name, seen))
        }
        // Committed: inner moves into other, at other's (5, 5)…(25, 25) = canvas (5, 5)…(25, 25).
        s.other.addSublayer(s.inner)
        try s.c.commit()
        try Self.waitForFrame(s.c)
        Self.click(s, at: Point(10, 10))
        let i = s.inner.id
        #expect(seen.wait(for: 2) == ["inner \(i) \(i) 5.0 5.0", "other \(s.other.id) \(i) 10.0 10.0"])

        // Staged, not committed: the client's model has inner back in middle, the daemon's
        // tree does not — the event still bubbles through other.
        s.middle.addSublayer(s.inner)
        #expect(s.inner.superlayer === s.middle)
        Self.click(s, at: Point(10, 10))
        #expect(seen.wait(for: 4).suffix(2) == ["inner \(i) \(i) 5.0 5.0", "other \(s.other.id) \(i) 10.0 10.0"])

        // Committed: back under middle and outer.
        try s.c.commit()
        try Self.waitForFrame(s.c)
        Self.click(s, at: Point(50, 70))
        #expect(seen.wait(for: 7).suffix(3) == [
            "inner \(i) \(i) 5.0 5.0", "middle \(s.middle.id) \(i) 10.0 10.0", "outer \(s.outer.id) \(i) 30.0 40.0",
        ])
    }

    @Test func aMainActorHandlerRunsOnTheMainActor() async throws {
        let s = try Self.scene()
        defer { s.daemon.stop() }
        let seen = Recorder()
        s.outer.onPointer { @MainActor e in
            MainActor.assertIsolated()            // traps off the main actor
            if e.phase == .down { seen.add("main actor") }
            return .handled
        }
        Self.click(s, at: Point(50, 70))
        var got: [String] = []
        for _ in 0..<250 where got.isEmpty {
            try await Task.sleep(nanoseconds: 20_000_000)
            got = seen.all
        }
        #expect(got == ["main actor"])
    }
}
