import LaminaGeometry
import LaminaTree
import LaminaWire
import LaminaModel

/// Input from the viewer's window, in canvas points, before routing.
public enum ViewerInput: Sendable, Equatable {
    /// A pointer down, up, move or scroll at a canvas point (`button` for down/up; `scroll`
    /// in points for a scroll).
    case pointer(PointerEvent.Phase, at: Point, button: UInt8 = 0, modifiers: UInt16 = 0, scroll: Point = Point(0, 0))
    /// A key down or up; `pointer` is where the pointer is (nil: outside the window).
    case key(UInt32, isDown: Bool, isRepeat: Bool = false, modifiers: UInt16 = 0, pointer: Point?)
}

/// Which layers hold the pointer and the keyboard (the server thread's input state).
struct InputRouting {
    /// The layer that got the pointer's down: moves and the up go to it until the up.
    var capture: LayerID?
    /// The layer last clicked: keys go to it while its client is connected and it exists.
    var focus: LayerID?
}

extension ServerCore {
    /// Routes one input from the viewer to the client it is for, hit-testing pointers against
    /// the newest presentation snapshot (docs/protocol.md "Input events"):
    ///
    /// - down: to the owner of the topmost layer under the point, which captures the pointer
    ///   and takes the keyboard focus (a down on no layer clears both);
    /// - moved and up: to the capturing layer until the up (its point converted into that
    ///   layer even outside it), else to the layer under the point; scroll likewise;
    /// - keys: to the focused layer's client; with no focus, to the owner of the layer under
    ///   the pointer; with none there either, to the frontmost client (the one connected
    ///   last), with layer 0 (its container).
    ///
    /// Nothing is sent to a client whose layer is not involved; with no snapshot yet, nothing.
    public mutating func input(_ input: ViewerInput) -> [ServerEffect] {
        guard let snapshot else { return [] }
        let tree = snapshot.tree
        let now = clock.now
        func exists(_ id: LayerID?) -> LayerID? {
            guard let id, tree[id] != nil, isConnected(id.client) else { return nil }
            return id
        }
        switch input {
        case .pointer(let phase, let point, let button, let modifiers, let scroll):
            let hit = exists(snapshot.hitTest(point))
            let target: LayerID?
            switch phase {
            case .down:
                inputRouting.capture = hit
                inputRouting.focus = hit
                target = hit
            case .up:
                target = exists(inputRouting.capture) ?? (inputRouting.capture == nil ? hit : nil)
                inputRouting.capture = nil
            case .moved, .scroll:
                target = inputRouting.capture != nil ? exists(inputRouting.capture) : hit
            }
            guard let target, let local = tree.convertFromCanvas(point, to: target) else { return [] }
            let event = PointerEvent(phase: phase, layer: target.local, location: local, canvasLocation: point,
                                     button: button, modifiers: modifiers, scrollDelta: scroll, time: now)
            let path = Self.pointerPath(from: target, at: point, in: tree)
            return deliver(.input(.pointerPath(path)), requestID: 0, to: target.client)
                + deliver(.input(.pointer(event)), requestID: 0, to: target.client)
        case .key(let code, let isDown, let isRepeat, let modifiers, let pointer):
            var target = exists(inputRouting.focus)
            if target == nil, let pointer { target = exists(snapshot.hitTest(pointer)) }
            if target == nil, let front = tree[.root]?.sublayers.last(where: { isConnected($0.client) }) { target = front }
            guard let target else { return [] }
            let event = KeyEvent(isDown: isDown, layer: target.local, key: code, modifiers: modifiers,
                                 isRepeat: isRepeat, time: now)
            return deliver(.input(.key(event)), requestID: 0, to: target.client)
        }
    }

    /// The layers a pointer event for `target` bubbles through, innermost first: `target`,
    /// then each superlayer up to its client's container (layer 0) — or to the topmost one of
    /// a detached branch —, each with `point` in its coordinates, from the tree the event was
    /// routed against (the tree as it is at the hit: a layer moved by a commit since bubbles
    /// through its new superlayers). A superlayer whose plane no point of which lands on
    /// `point` (seen edge-on) is left out.
    static func pointerPath(from target: LayerID, at point: Point, in tree: LayerTree) -> [PointerHop] {
        var hops: [PointerHop] = []
        for (id, local) in tree.convertFromCanvasAlongSuperlayers(point, of: target) {
            guard id.client == target.client, hops.count < InputEvent.maxPointerHops else { break }
            if let local { hops.append(PointerHop(layer: id.local, location: local)) }
        }
        return hops
    }
}
