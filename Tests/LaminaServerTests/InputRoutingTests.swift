import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing

/// The viewer's input through the embedded daemon: pointer events go to the owner of the
/// layer under the pointer with the point in that layer's coordinates, never to another
/// client; capture holds from a down to its up; keys follow the focus (docs/protocol.md
/// "Input events").
@Suite struct InputRoutingTests {
    /// Client A: a1 100×100 at canvas (10, 20)…(110, 120); a2, its sublayer, 20×20 centred at
    /// a1's (50, 50) and scaled ×2, so it spans canvas (40, 50)…(80, 90) and the canvas point
    /// (60 + 2u, 70 + 2v) is a2's (10 + u, 10 + v). Client B (connected later, so in front):
    /// b1 50×50 at canvas (100, 100)…(150, 150).
    static func scene() -> (EmbeddedDaemon, a: UInt32, b: UInt32) {
        let d = EmbeddedDaemon()
        let a = d.connect(name: "a")!, b = d.connect(name: "b")!
        func layer(_ id: UInt32, parent: UInt32, bounds: Rect, anchor: Point, position: Point) -> [Request] {
            [.createLayer(id: id, kind: .layer), .setProperty(id: id, keyPath: "bounds", value: .rect(bounds)),
             .setProperty(id: id, keyPath: "anchorPoint", value: .point(anchor)),
             .setProperty(id: id, keyPath: "position", value: .point(position)),
             .addSublayer(parent: parent, child: id)]
        }
        var ra = layer(1, parent: 0, bounds: Rect(0, 0, 100, 100), anchor: Point(0, 0), position: Point(10, 20))
        ra += layer(2, parent: 1, bounds: Rect(0, 0, 20, 20), anchor: Point(0.5, 0.5), position: Point(50, 50))
        ra.append(.setProperty(id: 2, keyPath: "transform", value: .transform(.scale(2, 2))))
        guard case .committed = d.commit(ra, from: a) else { preconditionFailure("a's scene") }
        let rb = layer(1, parent: 0, bounds: Rect(0, 0, 50, 50), anchor: Point(0, 0), position: Point(100, 100))
        guard case .committed = d.commit(rb, from: b) else { preconditionFailure("b's scene") }
        _ = d.takeEvents(a); _ = d.takeEvents(b)
        return (d, a, b)
    }

    /// The input events a client got since the last call.
    static func inputs(_ d: EmbeddedDaemon, _ c: UInt32) -> [InputEvent] {
        d.takeEvents(c).compactMap { e in
            guard case .input(let i) = e.event else { return nil }
            #expect(e.requestID == 0)
            return i
        }
    }

    static func pointer(_ e: [InputEvent]) -> [PointerEvent] {
        e.compactMap { if case .pointer(let p) = $0 { p } else { nil } }
    }

    @Test func pointerGoesToTheHitLayersOwnerInItsCoordinates() {
        let (d, a, b) = Self.scene()
        d.inject(.pointer(.down, at: Point(64, 76), button: 0))      // a2's (12, 13)
        let got = Self.pointer(Self.inputs(d, a))
        #expect(got.count == 1)
        #expect(got.first?.phase == .down && got.first?.layer == 2)
        #expect(got.first?.location == Point(12, 13))
        #expect(got.first?.canvasLocation == Point(64, 76))
        #expect(Self.inputs(d, b).isEmpty)
        d.inject(.pointer(.up, at: Point(64, 76)))
        _ = Self.inputs(d, a)

        // In front: B's layer over a1 at (105, 105) is b1's (5, 5); A gets nothing.
        d.inject(.pointer(.down, at: Point(105, 105), button: 1))
        let bGot = Self.pointer(Self.inputs(d, b))
        #expect(bGot.map(\.layer) == [1] && bGot.first?.location == Point(5, 5) && bGot.first?.button == 1)
        #expect(Self.inputs(d, a).isEmpty)
        d.inject(.pointer(.up, at: Point(105, 105)))
        _ = Self.inputs(d, b)

        // Hover without capture goes to whoever is under the pointer; a scroll too.
        d.inject(.pointer(.moved, at: Point(30, 40)))        // a1's (20, 20)
        d.inject(.pointer(.scroll, at: Point(140, 145), scroll: Point(0, 40)))   // b1's (40, 45)
        #expect(Self.pointer(Self.inputs(d, a)).map { [$0.location.x, $0.location.y] } == [[20, 20]])
        let scroll = Self.pointer(Self.inputs(d, b))
        #expect(scroll.first?.phase == .scroll && scroll.first?.location == Point(40, 45) && scroll.first?.scrollDelta == Point(0, 40))
        // A point on no layer: nobody.
        d.inject(.pointer(.moved, at: Point(190, 10)))
        #expect(Self.inputs(d, a).isEmpty && Self.inputs(d, b).isEmpty)
    }

    @Test func captureHoldsFromDownToUp() {
        let (d, a, b) = Self.scene()
        d.inject(.pointer(.down, at: Point(60, 70)))          // a2's centre (10, 10)
        // Dragged over B's layer and off every layer: still a2's, in a2's coordinates.
        d.inject(.pointer(.moved, at: Point(140, 140)))       // a2's (10 + 40, 10 + 35)
        d.inject(.pointer(.moved, at: Point(190, 10)))        // a2's (75, -20)
        d.inject(.pointer(.up, at: Point(140, 140)))
        let got = Self.pointer(Self.inputs(d, a))
        #expect(got.map(\.phase) == [.down, .moved, .moved, .up])
        #expect(got.allSatisfy { $0.layer == 2 })
        #expect(got.map(\.location) == [Point(10, 10), Point(50, 45), Point(75, -20), Point(50, 45)])
        #expect(Self.inputs(d, b).isEmpty)
        // After the up, the same point is B's again.
        d.inject(.pointer(.moved, at: Point(140, 140)))
        #expect(Self.pointer(Self.inputs(d, b)).map(\.location) == [Point(40, 40)])
        #expect(Self.inputs(d, a).isEmpty)
    }

    @Test func keysFollowTheFocusThenThePointerThenTheFrontmostClient() {
        let (d, a, b) = Self.scene()
        func keys(_ c: UInt32) -> [KeyEvent] { Self.inputs(d, c).compactMap { if case .key(let k) = $0 { k } else { nil } } }
        // No click yet, pointer over a1: A's a1.
        d.inject(.key(KeyCode.right, isDown: true, pointer: Point(30, 40)))
        #expect(keys(a).map(\.layer) == [1] && keys(b).isEmpty)
        // No click, pointer outside the window: the frontmost client, B, with its container.
        d.inject(.key(KeyCode.left, isDown: true, modifiers: Modifiers.shift, pointer: nil))
        let front = keys(b)
        #expect(front.map(\.layer) == [0] && front.first?.key == KeyCode.left && front.first?.modifiers == Modifiers.shift)
        #expect(keys(a).isEmpty)
        // A click on a2 focuses it: keys go to A even with the pointer over B's layer.
        d.inject(.pointer(.down, at: Point(60, 70))); d.inject(.pointer(.up, at: Point(60, 70)))
        _ = Self.inputs(d, a)
        d.inject(.key(KeyCode.up, isDown: true, pointer: Point(140, 140)))
        d.inject(.key(KeyCode.up, isDown: false, pointer: Point(140, 140)))
        let focused = keys(a)
        #expect(focused.map(\.layer) == [2, 2] && focused.map(\.isDown) == [true, false])
        #expect(keys(b).isEmpty)
        // A click on no layer clears the focus: the pointer decides again.
        d.inject(.pointer(.down, at: Point(190, 10))); d.inject(.pointer(.up, at: Point(190, 10)))
        d.inject(.key(KeyCode.down, isDown: true, pointer: Point(140, 140)))
        #expect(keys(b).map(\.layer) == [1] && keys(a).isEmpty)
        // The focused client hangs up: its focus is gone with it.
        d.inject(.pointer(.down, at: Point(105, 105))); d.inject(.pointer(.up, at: Point(105, 105)))
        _ = Self.inputs(d, b)
        d.hangUp(b)
        d.inject(.key(KeyCode.space, isDown: true, pointer: Point(30, 40)))
        #expect(keys(a).map(\.layer) == [1])
    }

    /// Each pointer event comes right after its path: the hit layer and its superlayers up to
    /// the container, each with the point in its coordinates (the scene's notes: canvas
    /// (64, 76) is a2's (12, 13), a1's (54, 56) — a1 sits at (10, 20) —, the container's
    /// (64, 76)). A captured layer's moves carry its path too, wherever the pointer is.
    @Test func aPointerEventsPathNamesItsLayerAndItsSuperlayers() {
        let (d, a, _) = Self.scene()
        d.inject(.pointer(.down, at: Point(64, 76)))
        #expect(Self.inputs(d, a) == [
            .pointerPath([PointerHop(layer: 2, location: Point(12, 13)), PointerHop(layer: 1, location: Point(54, 56)),
                          PointerHop(layer: 0, location: Point(64, 76))]),
            .pointer(PointerEvent(phase: .down, layer: 2, location: Point(12, 13), canvasLocation: Point(64, 76), time: 0)),
        ])
        // Captured by a2: a move to (20, 30), outside it, is a2's (−10, −10) and a1's (10, 10).
        d.inject(.pointer(.moved, at: Point(20, 30)))
        let moved = Self.inputs(d, a)
        #expect(moved.first == .pointerPath([PointerHop(layer: 2, location: Point(-10, -10)),
                                             PointerHop(layer: 1, location: Point(10, 10)),
                                             PointerHop(layer: 0, location: Point(20, 30))]))
        #expect(moved.count == 2)
    }

    @Test func inputEventsRoundTripOnTheWire() {
        let events: [InputEvent] = [
            .pointer(PointerEvent(phase: .down, layer: 7, location: Point(1.5, -2), canvasLocation: Point(3, 4), button: 2,
                                  modifiers: Modifiers.control, time: 0.25)),
            .pointer(PointerEvent(phase: .scroll, layer: 1, location: Point(0, 0), canvasLocation: Point(9, 9),
                                  scrollDelta: Point(-40, 80), time: 1)),
            .key(KeyEvent(isDown: false, layer: 3, key: KeyCode.letter("a"), modifiers: Modifiers.alt, isRepeat: true, time: 2)),
            .pointerPath([PointerHop(layer: 2, location: Point(12, 13)), PointerHop(layer: 0, location: Point(64, 76))]),
        ]
        for e in events {
            let bytes = MessageEncoder.encode(Event.input(e), requestID: 0)
            // Opcodes: 0x90 + phase for pointers, 0x94/0x95 for key down/up.
            let opcode = UInt16(bytes[4]) | UInt16(bytes[5]) << 8
            switch e {
            case .pointer(let p): #expect(opcode == 0x90 + UInt16(p.phase.rawValue))
            case .key(let k): #expect(opcode == (k.isDown ? 0x94 : 0x95))
            case .pointerPath(let hops):
                // 0x96: u32 count, then (u32 layer, f64 x, f64 y) per hop.
                #expect(opcode == 0x96 && bytes.count == 12 + 4 + 20 * hops.count)
            }
            var decoder = FrameDecoder()
            decoder.feed(bytes)
            guard case .message(.input(let back), 0)? = decoder.nextEvent() else { Issue.record("no input event"); continue }
            #expect(back == e)
        }
        #expect(KeyCode.letter("a") == 65)
    }
}
