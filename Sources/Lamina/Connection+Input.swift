import LaminaWire

/// Input callbacks of a connection: the viewer's pointer and key events for this client's
/// layers (docs/protocol.md "Input events"), kept in the link's state.
struct InputHandlers: Sendable {
    var pointer: EventCallback<PointerEvent>?
    var key: EventCallback<KeyEvent>?
    var perLayer: [UInt32: EventCallback<PointerEvent>] = [:]

    /// The deliveries for one event: the layer's handler, then `onPointer`; or `onKey`.
    func jobs(for event: InputEvent) -> [@Sendable () async -> Void] {
        var jobs: [@Sendable () async -> Void] = []
        switch event {
        case .pointer(let p):
            if let h = perLayer[p.layer] { jobs.append { await h(p) } }
            if let h = pointer { jobs.append { await h(p) } }
        case .key(let k):
            if let h = key { jobs.append { await h(k) } }
        }
        return jobs
    }
}

extension Connection {
    /// Called for every pointer event (down, up, moved, scroll) for one of this client's
    /// layers: the layer's id and the point in its bounds coordinates. Pointer capture holds
    /// from a down to its up: the moves and the up go to the layer that got the down. It runs
    /// as the other callbacks do (see the type's notes).
    public var onPointer: EventCallback<PointerEvent>? {
        get { link.state.withLock { $0.input.pointer } }
        set { link.state.withLock { $0.input.pointer = newValue } }
    }

    /// Called for every key down and up routed to this client: the focused layer's client (the
    /// layer last clicked) gets keys, else the one under the pointer, else the frontmost client.
    public var onKey: EventCallback<KeyEvent>? {
        get { link.state.withLock { $0.input.key } }
        set { link.state.withLock { $0.input.key = newValue } }
    }

    /// Calls `handler` for the pointer events of one layer (before `onPointer`); nil removes it.
    public func onPointer(of layer: Layer, _ handler: EventCallback<PointerEvent>?) {
        let id = layer.id
        link.state.withLock { $0.input.perLayer[id] = handler }
    }
}
