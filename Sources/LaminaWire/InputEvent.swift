import LaminaGeometry

/// A pointer or keyboard event the daemon sends to a client (opcodes 0x90…0x96, request
/// id 0; docs/protocol.md "Input events"). The viewer's window produces them; the server
/// hit-tests pointers against the presentation tree and routes them (LaminaServer's
/// `ServerCore.input(_:)`).
public enum InputEvent: Hashable, Sendable {
    case pointer(PointerEvent)
    case key(KeyEvent)
    /// `pointerPath` (0x96): the layers the pointer event sent right after it bubbles
    /// through, innermost first — its layer, then each superlayer up to the client's container
    /// (layer 0) — each with the point in its own coordinates, as the presentation tree had
    /// them when the event was routed.
    case pointerPath([PointerHop])

    /// The most hops a `pointerPath` may carry when decoded (a bound for the decoder; the
    /// depth limit, at most 2048, keeps a real path far below it).
    public static let maxPointerHops = 1 << 16

    public var opcode: UInt16 {
        switch self {
        case .pointer(let p): 0x90 + UInt16(p.phase.rawValue)
        case .key(let k): k.isDown ? 0x94 : 0x95
        case .pointerPath: 0x96
        }
    }

    func encodeBody(_ w: inout ByteWriter) {
        switch self {
        case .pointer(let p):
            w.u32(p.layer); w.point(p.location); w.point(p.canvasLocation)
            w.u8(p.button); w.u16(p.modifiers); w.point(p.scrollDelta); w.f64(p.time)
        case .key(let k):
            w.u32(k.layer); w.u32(k.key); w.u16(k.modifiers); w.u8(k.isRepeat ? 1 : 0); w.f64(k.time)
        case .pointerPath(let hops):
            w.u32(UInt32(hops.count))
            for h in hops { w.u32(h.layer); w.point(h.location) }
        }
    }

    static func decodeBody(opcode: UInt16, _ r: inout ByteReader) throws(WireError) -> InputEvent {
        switch opcode {
        case 0x90...0x93:
            let phase = PointerEvent.Phase(rawValue: UInt8(opcode - 0x90))!
            let layer = try r.u32("layer"), location = try r.point("location"), canvas = try r.point("canvas location")
            let button = try r.u8("button"), modifiers = try r.u16("modifiers")
            let scroll = try r.point("scroll delta"), time = try r.f64("time")
            guard [location.x, location.y, canvas.x, canvas.y, scroll.x, scroll.y, time].allSatisfy(\.isFinite) else {
                throw .malformed("pointer event values must be finite")
            }
            return .pointer(PointerEvent(phase: phase, layer: layer, location: location, canvasLocation: canvas,
                                         button: button, modifiers: modifiers, scrollDelta: scroll, time: time))
        case 0x94, 0x95:
            let layer = try r.u32("layer"), key = try r.u32("key"), modifiers = try r.u16("modifiers")
            let rep = try r.u8("repeat")
            guard rep <= 1 else { throw .malformed("repeat must be 0 or 1") }
            let time = try r.f64("time")
            return .key(KeyEvent(isDown: opcode == 0x94, layer: layer, key: key, modifiers: modifiers,
                                 isRepeat: rep == 1, time: time))
        case 0x96:
            let n = Int(try r.u32("hop count"))
            guard n >= 1, n <= maxPointerHops else { throw .malformed("a pointer path has 1…\(maxPointerHops) hops (got \(n))") }
            guard n <= r.remaining / 20 else { throw .truncated("\(n) hops, \(r.remaining) bytes left") }
            var hops: [PointerHop] = []
            hops.reserveCapacity(n)
            for _ in 0..<n {
                let layer = try r.u32("layer"), location = try r.point("location")
                guard location.x.isFinite, location.y.isFinite else { throw .malformed("pointer path points must be finite") }
                hops.append(PointerHop(layer: layer, location: location))
            }
            return .pointerPath(hops)
        default: throw .unknownOpcode(opcode)
        }
    }
}

/// A pointer event: `layer` is the client's layer it is for (the hit layer, or the layer that
/// captured the pointer at its down), `location` the point in that layer's bounds
/// coordinates (as `CALayer.convert(_:from: nil)`; the layer's transforms undone as hit
/// testing does), `canvasLocation` the point on the canvas in points.
///
/// As the client library delivers it while the event bubbles (`Layer.onPointer`), `layer` and
/// `location` are the handler's own layer and the point in its coordinates, and `target` the
/// layer the event was routed to (the hit layer); on the wire `target` is `layer`.
public struct PointerEvent: Hashable, Sendable {
    /// The phase; the opcode is 0x90 + its raw value.
    public enum Phase: UInt8, Sendable { case down = 0, up = 1, moved = 2, scroll = 3 }
    public var phase: Phase
    public var layer: UInt32
    public var location: Point
    /// The layer the event was routed to (`DOM`'s `event.target`): `layer` itself, except
    /// while the client library bubbles the event through `layer`'s superlayers.
    public var target: UInt32
    public var canvasLocation: Point
    /// The button of a down or up: 0 primary (left), 1 secondary (right), 2 middle.
    public var button: UInt8
    /// `Modifiers` bits held.
    public var modifiers: UInt16
    /// A scroll's offset in points (x right, y down); zero otherwise.
    public var scrollDelta: Point
    /// The compositor time the event happened at.
    public var time: Double

    public init(phase: Phase, layer: UInt32, location: Point, canvasLocation: Point, button: UInt8 = 0,
                modifiers: UInt16 = 0, scrollDelta: Point = Point(0, 0), time: Double = 0, target: UInt32? = nil) {
        self.phase = phase; self.layer = layer; self.location = location; self.canvasLocation = canvasLocation
        self.target = target ?? layer
        self.button = button; self.modifiers = modifiers; self.scrollDelta = scrollDelta; self.time = time
    }
}

/// A key pressed or released. `layer` is the layer it was routed by (the layer of the last
/// pointer down, or the one under the pointer; 0, the client's container, when neither).
public struct KeyEvent: Hashable, Sendable {
    public var isDown: Bool
    public var layer: UInt32
    /// The key's code (`KeyCode`): printable keys are their unshifted US-layout ASCII
    /// (letters upper case), other keys the codes below 512 that GLFW uses.
    public var key: UInt32
    public var modifiers: UInt16
    /// A held key's auto-repeat (a down without an up before it).
    public var isRepeat: Bool
    public var time: Double

    public init(isDown: Bool, layer: UInt32, key: UInt32, modifiers: UInt16 = 0, isRepeat: Bool = false, time: Double = 0) {
        self.isDown = isDown; self.layer = layer; self.key = key; self.modifiers = modifiers
        self.isRepeat = isRepeat; self.time = time
    }
}

/// Key codes of `KeyEvent.key` (GLFW's values, which the protocol adopts).
public enum KeyCode {
    public static let space: UInt32 = 32
    public static let minus: UInt32 = 45
    public static let equal: UInt32 = 61     // "=" / "+" on a US keyboard
    public static func letter(_ c: Character) -> UInt32 { UInt32(c.uppercased().unicodeScalars.first!.value) }
    public static let escape: UInt32 = 256
    public static let enter: UInt32 = 257
    public static let tab: UInt32 = 258
    public static let backspace: UInt32 = 259
    public static let right: UInt32 = 262
    public static let left: UInt32 = 263
    public static let down: UInt32 = 264
    public static let up: UInt32 = 265
    public static let keypadSubtract: UInt32 = 333
    public static let keypadAdd: UInt32 = 334
}

/// Modifier bits of input events (GLFW's values).
public enum Modifiers {
    public static let shift: UInt16 = 1
    public static let control: UInt16 = 2
    public static let alt: UInt16 = 4
    public static let superKey: UInt16 = 8
}

/// One layer a pointer event bubbles through (`InputEvent.pointerPath`): the layer and the
/// event's point in its bounds coordinates.
public struct PointerHop: Hashable, Sendable {
    public var layer: UInt32
    public var location: Point
    public init(layer: UInt32, location: Point) { self.layer = layer; self.location = location }
}
