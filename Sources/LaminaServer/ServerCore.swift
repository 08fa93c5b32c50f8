import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaFrame
import LaminaTree
import LaminaWire

/// What the server's host must do after the core handled an input.
public enum ServerEffect: Sendable {
    /// Send these bytes to the client (in order after what was sent before).
    case write(client: UInt32, bytes: [UInt8])
    /// Close the client's connection once its queued bytes are written (then report
    /// `disconnected`).
    case close(client: UInt32)
    /// Hand a validated packet to the render side.
    case submit(CommitPacket)
    /// Render and read back the frame at `time` (nil: now), then `deliver` the result.
    case capture(client: UInt32, requestID: UInt32, time: Double?)
    /// A query waits for a newer presentation snapshot (or the clock moved): the render side
    /// must make a frame and report its snapshot (`snapshotPublished`).
    case requestFrame
}

/// The daemon's server logic with no I/O: connections and bytes in, effects out (bytes to
/// write, closes, packets, captures, frame requests). `Daemon`'s socket loop drives it on the
/// server thread; tests drive it directly (the embedded daemon) with a manual clock.
///
/// It owns the sessions and the model tree. Presentation queries and hit tests are answered
/// from the newest snapshot the render side published (`snapshotPublished`): one that
/// includes the asking client's commits so far and the clock's time when asked; until such
/// a snapshot arrives the query is parked, and the core asks for a frame.
///
/// Not thread-safe: one thread (the server thread) owns it.
public struct ServerCore {
    public let config: DaemonConfig
    public let clock: CompositorClock
    /// The render side's latest statistics (the `getStats` reply).
    private let stats: @Sendable () -> FrameStats
    public private(set) var model: ModelTree
    /// The newest snapshot the render side published.
    public private(set) var snapshot: PresentationSnapshot?

    private struct Client {
        var session: Session
        var decoder: FrameDecoder
        /// The sequence of its newest packet (connect included): what its queries must see.
        var sequence: UInt64 = 0
    }
    private var clients: [UInt32: Client] = [:]
    private var nextClientID: UInt32 = 1
    private var commitSequence: UInt64 = 0

    private enum Query { case presentation(layer: UInt32, keyPath: String), hitTest(Point) }
    private struct Parked { var client: UInt32; var requestID: UInt32; var query: Query; var sequence: UInt64; var time: Double }
    /// Queries waiting for a newer snapshot, in arrival order.
    private var parked: [Parked] = []

    public init(config: DaemonConfig, clock: CompositorClock, stats: @escaping @Sendable () -> FrameStats) {
        self.config = config
        self.clock = clock
        self.stats = stats
        model = ModelTree(maxLayersPerClient: config.maxLayersPerClient, maxDepth: config.maxDepth)
    }

    /// Connected clients.
    public var clientCount: Int { clients.count }
    /// Queries waiting for a newer snapshot.
    public var parkedQueries: Int { parked.count }

    // MARK: Inputs

    /// The answer to a new connection.
    public enum Admission: Sendable {
        /// Its client id, and what to do (the packet of its container).
        case accepted(UInt32, [ServerEffect])
        /// The daemon is full: write these bytes (an error) and close the connection.
        case refused([UInt8])
    }

    /// A client connected (its peer checked by the host).
    public mutating func connect() -> Admission {
        guard clients.count < config.maxClients else {
            return .refused(MessageEncoder.encode(Event.error(opcode: 0, code: .limitExceeded,
                                                              message: "the daemon serves at most \(config.maxClients) clients"),
                                                  requestID: 0))
        }
        let id = nextClientID
        nextClientID &+= 1
        var client = Client(session: Session(clientID: id, maxPendingOperations: config.maxPendingOperations),
                            decoder: FrameDecoder(maxMessageSize: config.maxMessageSize))
        // The client's container joins the root now, so clients stack in connection order.
        var effects: [ServerEffect] = []
        if let packet = try? model.validate(Commit(client: id, content: .connect), at: clock.now) {
            client.sequence = packet.sequence
            effects.append(.submit(packet))
        }
        clients[id] = client
        return .accepted(id, effects)
    }

    /// Bytes arrived from a client.
    public mutating func receive<C: Collection>(_ bytes: C, from id: UInt32) -> [ServerEffect] where C.Element == UInt8 {
        guard var client = clients[id] else { return [] }
        client.decoder.feed(bytes)
        var actions: [SessionAction] = []
        let welcome = Event.welcome(major: Protocol.versionMajor, minor: Protocol.versionMinor, clientID: id,
                                    width: UInt32(config.width), height: UInt32(config.height),
                                    scale: config.scale, clock: clock.mode == .manual ? .manual : .realtime,
                                    time: clock.now)
        while client.session.state != .closed, let input = client.decoder.nextRequest() {
            actions += client.session.handle(input, welcome: welcome)
        }
        clients[id] = client
        var effects: [ServerEffect] = []
        for action in actions { perform(action, client: id, &effects) }
        return effects
    }

    /// A client's connection is gone (hang-up, error, or closed after `close`): its layers go.
    public mutating func disconnected(_ id: UInt32) -> [ServerEffect] {
        guard clients.removeValue(forKey: id) != nil else { return [] }
        parked.removeAll { $0.client == id }
        guard let packet = try? model.validate(Commit(client: id, content: .disconnect), at: clock.now) else { return [] }
        return [.submit(packet)]
    }

    /// The render side published a presentation snapshot: answers the queries it covers.
    public mutating func snapshotPublished(_ snapshot: PresentationSnapshot) -> [ServerEffect] {
        if let old = self.snapshot, old.frame > snapshot.frame { return [] }
        self.snapshot = snapshot
        guard !parked.isEmpty else { return [] }
        var effects: [ServerEffect] = []
        var waiting: [Parked] = []
        for p in parked {
            if snapshot.covers(sequence: p.sequence, time: p.time) {
                answer(p.query, from: snapshot, client: p.client, requestID: p.requestID, &effects)
            } else {
                waiting.append(p)
            }
        }
        parked = waiting
        if !parked.isEmpty { effects.append(.requestFrame) }
        return effects
    }

    /// Sends an event to a client (render-side events, capture results).
    public func deliver(_ event: Event, requestID: UInt32, to client: UInt32) -> [ServerEffect] {
        guard clients[client] != nil else { return [] }
        return [.write(client: client, bytes: MessageEncoder.encode(event, requestID: requestID))]
    }

    /// Sends the render tree's events to their owners.
    public func deliver(_ events: [TreeEvent]) -> [ServerEffect] {
        var effects: [ServerEffect] = []
        for e in events {
            let event: Event
            switch e {
            case .animationStarted(let id, let key): event = .animationStarted(layer: id.local, key: key)
            case .animationStopped(let id, let key, let finished):
                event = .animationStopped(layer: id.local, key: key, finished: finished)
            case .transactionCompleted(_, let id): event = .transactionCompleted(id: id)
            }
            effects += deliver(event, requestID: 0, to: e.client)
        }
        return effects
    }

    // MARK: Requests

    private mutating func perform(_ action: SessionAction, client: UInt32, _ effects: inout [ServerEffect]) {
        func send(_ event: Event, _ requestID: UInt32) {
            effects.append(.write(client: client, bytes: MessageEncoder.encode(event, requestID: requestID)))
        }
        switch action {
        case .send(let event, let requestID):
            send(event, requestID)
        case .close:
            effects.append(.close(client: client))
        case .commit(var commit, let requestID):
            commit.time = clock.now
            do {
                let packet = try model.validate(commit, at: clock.now)
                commitSequence += 1
                clients[client]?.sequence = packet.sequence
                effects.append(.submit(packet))
                send(.committed(sequence: commitSequence), requestID)
            } catch {
                let failing = error.index < commit.requestIDs.count ? commit.requestIDs[error.index] : requestID
                send(.error(opcode: Request.commit.opcode, code: ErrorCode(rawValue: error.code.rawValue) ?? .internalError,
                            message: "commit rejected, nothing applied: request \(failing): \(error.message)"), requestID)
            }
        case .capture(let time, let requestID):
            if time != nil && clock.mode != .manual {
                send(.error(opcode: Request.capture(time: nil).opcode, code: .clockNotManual,
                            message: "capture at a given time needs the manual clock (--clock manual)"), requestID)
                return
            }
            effects.append(.capture(client: client, requestID: requestID, time: time))
        case .advanceClock(let seconds, let requestID):
            guard clock.mode == .manual else {
                send(.error(opcode: Request.advanceClock(seconds: 0).opcode, code: .clockNotManual,
                            message: "the clock is realtime; start laminad with --clock manual to advance it"), requestID)
                return
            }
            let now = clock.advance(by: seconds)
            effects.append(.requestFrame)
            send(.clockAdvanced(time: now), requestID)
        case .presentation(let layer, let keyPath, let requestID):
            query(.presentation(layer: layer, keyPath: keyPath), client: client, requestID: requestID, &effects)
        case .hitTest(let x, let y, let requestID):
            query(.hitTest(Point(x, y)), client: client, requestID: requestID, &effects)
        case .sendTree(let requestID):
            send(.tree(json: treeJSON()), requestID)
        case .sendStats(let requestID):
            var s = stats()
            s.layers = model.count
            let json = String(s.json.dropLast()) + ", \"clients\": \(clients.count)}"
            send(.stats(json: json), requestID)
        }
    }

    /// Answers a query from the latest snapshot when it covers the client's commits and the
    /// clock's time now; parks it otherwise.
    private mutating func query(_ q: Query, client: UInt32, requestID: UInt32, _ effects: inout [ServerEffect]) {
        let needed = Parked(client: client, requestID: requestID, query: q,
                            sequence: clients[client]?.sequence ?? 0, time: clock.now)
        if parked.isEmpty, let snapshot, snapshot.covers(sequence: needed.sequence, time: needed.time) {
            answer(q, from: snapshot, client: client, requestID: requestID, &effects)
        } else {
            // Behind an older parked query too: replies keep the order of the requests.
            parked.append(needed)
            effects.append(.requestFrame)
        }
    }

    private func answer(_ q: Query, from snapshot: PresentationSnapshot, client: UInt32, requestID: UInt32,
                        _ effects: inout [ServerEffect]) {
        let event: Event
        switch q {
        case .presentation(let layer, let keyPath):
            let id = LayerID(client: client, local: layer)
            if snapshot.tree[id] == nil {
                event = .error(opcode: 0x34, code: .unknownLayer, message: "layer \(layer) does not exist")
            } else if let v = snapshot.value(of: id, keyPath: keyPath) {
                event = .presentation(value: v)
            } else {
                event = .error(opcode: 0x34, code: .invalidProperty, message: "unknown key path '\(keyPath)'")
            }
        case .hitTest(let point):
            if let id = snapshot.hitTest(point) {
                event = id.client == client ? .hitResult(.ownLayer, layer: id.local) : .hitResult(.otherClient, layer: 0)
            } else {
                event = .hitResult(.none, layer: 0)
            }
        }
        effects.append(.write(client: client, bytes: MessageEncoder.encode(event, requestID: requestID)))
    }

    /// The model tree as JSON (`getTree`): each layer's id, owner, kind, depth, frame, sublayers.
    func treeJSON() -> String {
        var entries: [String] = []
        func esc(_ s: String) -> String { s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") }
        func num(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        model.visit { node, depth in
            let f = node.properties.frame
            let subs = node.sublayers.map { "\"\($0)\"" }.joined(separator: ", ")
            let owner = node.id.client
            let name = owner == 0 ? "compositor" : esc(clients[owner]?.session.clientName ?? "")
            entries.append("""
            {"id": "\(node.id)", "owner": \(owner), "ownerName": "\(name)", "kind": "\(node.kind.name)", "depth": \(depth), \
            "frame": [\(num(f.origin.x)), \(num(f.origin.y)), \(num(f.size.width)), \(num(f.size.height))], \
            "sublayers": [\(subs)]}
            """)
            return true
        }
        return "{\"layers\": [" + entries.joined(separator: ", ") + "]}"
    }
}
