import LaminaWire

/// What a layer's pointer handler did with an event (as SwiftUI's `KeyPress.Result`):
/// `.handled` stops it there; `.ignored` lets it bubble on to the superlayer's handler.
public enum PointerEventResult: Sendable, Equatable {
    case handled
    case ignored
}

/// A layer's pointer handler (`Layer.onPointer`): it gets the event with `layer` its own layer,
/// `location` in that layer's coordinates and `target` the layer under the pointer, and says
/// whether the event goes on to the superlayers. It runs as an `EventCallback` does: formed on
/// an actor (`{ @MainActor event in … }`) it runs there.
public typealias PointerHandler = @isolated(any) @Sendable (PointerEvent) -> PointerEventResult

/// Input callbacks of a connection: the viewer's pointer and key events for this client's
/// layers (docs/protocol.md "Input events"), kept in the link's state.
struct InputHandlers: Sendable {
    /// A layer's handler: one that decides whether the event bubbles on (`Layer.onPointer`),
    /// or one that only listens (`Connection.onPointer(of:_:)`: the event always goes on).
    enum LayerHandler: Sendable {
        case deciding(PointerHandler)
        case listening(EventCallback<PointerEvent>)
    }

    var pointer: EventCallback<PointerEvent>?
    var key: EventCallback<KeyEvent>?
    var perLayer: [UInt32: LayerHandler] = [:]
    /// The path the daemon sent for the pointer event that comes next (`pointerPath`).
    var pendingPath: [PointerHop]?

    /// The deliveries for one event. A pointer event is one job that bubbles it: the handler
    /// of each layer on its path, innermost first, each given the event in its own layer's
    /// coordinates, until one returns `.handled`; then `onPointer`, unless one did. A key
    /// event is `onKey`'s. A `pointerPath` is kept for the pointer event after it.
    mutating func jobs(for event: InputEvent) -> [@Sendable () async -> Void] {
        switch event {
        case .pointerPath(let hops):
            pendingPath = hops
            return []
        case .pointer(let p):
            // The daemon sends the path right before its event; without one (an older daemon)
            // the event reaches its own layer only.
            let path = pendingPath.flatMap { $0.first?.layer == p.layer ? $0 : nil }
                ?? [PointerHop(layer: p.layer, location: p.location)]
            pendingPath = nil
            let chain: [(LayerHandler, PointerEvent)] = path.compactMap { hop in
                guard let handler = perLayer[hop.layer] else { return nil }
                var e = p
                e.layer = hop.layer
                e.location = hop.location
                e.target = p.layer
                return (handler, e)
            }
            let general = pointer
            guard !chain.isEmpty || general != nil else { return [] }
            return [{
                for (handler, e) in chain {
                    switch handler {
                    case .listening(let h): await h(e)
                    case .deciding(let h): if await h(e) == .handled { return }
                    }
                }
                if let general { await general(p) }
            }]
        case .key(let k):
            guard let h = key else { return [] }
            return [{ await h(k) }]
        }
    }
}

extension Connection {
    /// Called for every pointer event (down, up, moved, scroll) for one of this client's
    /// layers, after the layers' own handlers (unless one returned `.handled`): the hit
    /// layer's id and the point in its bounds coordinates. Pointer capture holds from a down
    /// to its up: the moves and the up go to the layer that got the down. It runs as the other
    /// callbacks do (see the type's notes).
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

    /// Listens to the pointer events of `layer` and of its sublayers (they bubble, as
    /// `Layer.onPointer` says), never stopping them; nil removes it. It replaces the layer's
    /// `Layer.onPointer` handler, as that replaces this.
    public func onPointer(of layer: Layer, _ handler: EventCallback<PointerEvent>?) {
        setPointerHandler(of: layer.id, handler.map { .listening($0) })
    }

    func setPointerHandler(of id: UInt32, _ handler: InputHandlers.LayerHandler?) {
        link.state.withLock { $0.input.perLayer[id] = handler }
    }
}

extension Layer {
    /// Handles the pointer events (down, up, moved, scroll) that hit this layer **or any of
    /// its sublayers**: they bubble, as DOM events and UIKit's responder chain do — the hit
    /// layer's handler first, then its superlayer's, outward to the client's root container,
    /// then `Connection.onPointer`. Each handler gets the event with `layer` its own layer,
    /// `location` the point in its own coordinates, and `target` the layer under the pointer;
    /// returning `.handled` stops the event there, `.ignored` passes it on. The chain is the
    /// one the daemon's tree had when it routed the event (a layer moved to another superlayer
    /// by a commit bubbles through its new ones). One handler per layer; nil removes it.
    ///
    /// ```swift
    /// card.onPointer { @MainActor event in
    ///     guard event.phase == .down else { return .ignored }
    ///     expand(card)            // a click on the card's title or icon lands here too
    ///     return .handled
    /// }
    /// ```
    public func onPointer(_ handler: PointerHandler?) {
        connection.setPointerHandler(of: id, handler.map { .deciding($0) })
    }
}
