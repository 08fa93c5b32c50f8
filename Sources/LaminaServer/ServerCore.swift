import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaFrame
import LaminaImage
import LaminaTree
import LaminaWire
import LaminaModel
import LaminaRender

/// What the server's host must do after the core handled an input.
public enum ServerEffect: Sendable {
    /// Send these bytes to the client (in order after what was sent before).
    case write(client: UInt32, bytes: [UInt8])
    /// Close the client's connection once its queued bytes are written (then report
    /// `disconnected`).
    case close(client: UInt32)
    /// Hand a validated packet to the render side.
    case submit(CommitPacket)
    /// Render and read back the frame at `time` (nil: now), then hand the result (`captured` or
    /// an error) to `captureFinished(tag:_:)`.
    case capture(client: UInt32, requestID: UInt32, time: Double?, tag: UInt64)
    /// Close the client's connection now, dropping what waits for it (its unread output went
    /// over `maxQueuedOutput`), then report `disconnected`.
    case cutOff(client: UInt32)
    /// Make a large reply off the server thread (`make` reads a copy of the model, taken when
    /// the request was handled), then hand it to `captureFinished(tag:_:)`: it goes out in its
    /// turn among the client's replies, which wait for it as for a capture.
    case build(client: UInt32, tag: UInt64, make: @Sendable () -> Event)
    /// A query waits for a newer presentation snapshot (or the clock moved): the render side
    /// must make a frame and report its snapshot (`snapshotPublished`).
    case requestFrame
    /// Put an image in the frame's image map under a qualified name (nil: remove it), before
    /// the packets submitted after this effect (ServerCore+Images).
    case setImage(name: String, image: Image?)
    /// Put a client's PNG file (`openImageFile`) where `contents` names it, for tiled layers;
    /// `setImage(name, nil)` removes it.
    case setTileSource(name: String, source: TileSource)
    /// A client's tile of a client-drawn image (`provideTile`, checked), for the tile cache.
    case provideTile(source: TileSource, key: TileKey, image: Image, serial: UInt64)
    /// Reduce Motion changed at compositor time `time`: the render thread stops emitters
    /// spawning from then (on) or lets them spawn again (off).
    case reduceMotion(on: Bool, time: Double)
}

/// The render side's trace recorder, as the core drives it (`startTrace` / `stopTrace`).
public struct TraceControl: Sendable {
    /// Starts a recording of at most this many frames; false when one is recording already.
    public var start: @Sendable (Int) -> Bool
    /// Stops the recording and returns it (nil: none was recording).
    public var stop: @Sendable () -> FrameTrace?
    /// Whether a recording runs, whoever started it (a client, or the viewer's T key).
    public var isRecording: @Sendable () -> Bool
    public init(start: @escaping @Sendable (Int) -> Bool, stop: @escaping @Sendable () -> FrameTrace?,
                isRecording: @escaping @Sendable () -> Bool) {
        self.start = start; self.stop = stop; self.isRecording = isRecording
    }
    /// No render side to record (`startTrace` is refused).
    public static let unavailable = TraceControl(start: { _ in false }, stop: { nil }, isRecording: { false })
    /// Why a client cannot start or stop a recording that no client owns.
    static let heldByWindow = "the viewer's window is recording a trace (its T key starts and stops it); one recording at a time"
}

/// The daemon's server logic with no I/O: connections and bytes in, effects out (bytes to
/// write, closes, packets, captures, frame requests). `Daemon`'s socket loop drives it on the
/// server thread; tests drive it directly (the embedded daemon) with a manual clock.
///
/// It owns the sessions and the model tree. Presentation queries and hit tests are answered
/// from the newest snapshot the render side published (`snapshotPublished`): one that
/// includes every commit accepted so far (any client's) and the clock's time when asked; until such
/// a snapshot arrives the query is parked, and the core asks for a frame.
///
/// Not thread-safe: one thread (the server thread) owns it.
public struct ServerCore {
    public let config: DaemonConfig
    public let clock: CompositorClock
    /// The render side's latest statistics (the `getStats` reply).
    private let stats: @Sendable () -> FrameStats
    /// The render side's trace recorder, and the client whose recording runs (one at a time).
    private let tracer: TraceControl
    private var traceOwner: UInt32?
    public internal(set) var model: ModelTree
    /// The newest snapshot the render side published.
    public private(set) var snapshot: PresentationSnapshot?

    private struct Client {
        var session: Session
        var decoder: FrameDecoder
        /// Completion ids declared and not yet reported (`transactionCompleted`): one may not
        /// be declared again until it fires.
        var pendingCompletions: Set<UInt32> = []
        /// Replies behind one that is not ready yet (a query waiting for a frame, a capture
        /// being rendered), in request order: they go out when everything before them has.
        var held: [HeldReply] = []
        /// Bytes of the replies in `held`.
        var heldBytes = 0
        /// The last turn ended on its budget with requests left to handle (`resume`).
        var budgetEnded = false
        /// Its requests wait behind one whose answer waits for a frame or a capture.
        var blocked = false
    }
    private var clients: [UInt32: Client] = [:]
    private var nextClientID: UInt32 = 1
    private var commitSequence: UInt64 = 0
    /// The display clients draw on (`welcome`, `displayChanged`).
    public private(set) var display: DisplayInfo
    /// The Reduce Motion setting (`welcome`, `reduceMotionChanged`).
    public private(set) var reduceMotion = false

    private enum Query {
        case presentation(layer: UInt32, keyPath: String), hitTest(Point)
        case measure(StyledText, font: String, fontSize: Double, width: Double?)
    }
    /// Lays text out for `measureText` (the server thread's own engine, made at the first use).
    private let measurer = TextMeasurer()
    private struct Parked { var requestID: UInt32; var query: Query; var sequence: UInt64; var time: Double }
    /// A reply in a client's `held` queue.
    private enum HeldReply {
        /// Built, waiting for the replies before it.
        case bytes([UInt8])
        /// A query waiting for a snapshot that covers it.
        case query(Parked)
        /// A capture the render side is making (`captureFinished`).
        case capture(tag: UInt64)

        var isWaiting: Bool { if case .bytes = self { false } else { true } }
    }
    /// Captures in flight: tag → who asked.
    private var captures: [UInt64: (client: UInt32, requestID: UInt32)] = [:]
    private var nextCaptureTag: UInt64 = 1
    /// Each client's images (ServerCore+Images).
    var imageTables: [UInt32: ClientImages] = [:]
    /// Uploads so far: the serial of each qualified image name.
    var imageSerial: UInt64 = 0
    /// Each client's pools, buffers and surface layers, what commits wait for from the render
    /// side, and surface layers made so far (ServerCore+Surfaces).
    var surfaceTables: [UInt32: ClientSurfaces] = [:]
    var surfaceWaits: [SurfaceWait] = []
    /// Releases due whose buffers the GPU may still read (zero copy), until
    /// `surfaceReadsCompleted` reaches their packets; and how far it has (nil: never told,
    /// releases are not held — a core without a render side that reads on the GPU).
    var heldReleases: [SurfaceWait] = []
    /// Releases of buffers sampled in place, past their reads: sent when their lease ended
    /// (`surfaceReadsCompleted`, which the render side calls when a batch ends leases).
    var sampledInPlace: [SurfaceWait] = []
    var readsCompleted: UInt64?
    var surfaceSerial: UInt64 = 0
    /// The importer of GPU buffers (ServerCore+Surfaces), made on the first `createGpuBuffer`;
    /// when it could not be made, why (every later `createGpuBuffer` is refused with that).
    public internal(set) var gpuImporter: Result<GpuBufferImporter, GpuBufferImporter.Failure>?
    /// Which layers hold the pointer and the keyboard (ServerCore+Input.swift).
    var inputRouting = InputRouting()
    /// When the model's nodes are next offered to share the render side's (ServerCore+Sharing).
    var nodeSharing = NodeSharing()

    public init(config: DaemonConfig, clock: CompositorClock, stats: @escaping @Sendable () -> FrameStats,
                trace: TraceControl = .unavailable) {
        self.tracer = trace
        self.config = config
        self.clock = clock
        self.stats = stats
        display = DisplayInfo(width: UInt32(config.width), height: UInt32(config.height), scale: config.scale,
                              refreshRate: config.fps)
        model = ModelTree(maxLayersPerClient: config.maxLayersPerClient, maxDepth: config.maxDepth)
        model.expressionLimits = config.expressionLimits
    }

    /// Connected clients.
    public var clientCount: Int { clients.count }
    /// Each connected client's name (from its `hello`; empty when it gave none).
    public var clientNames: [UInt32: String] { clients.mapValues { $0.session.clientName } }
    /// Queries waiting for a newer snapshot.
    public var parkedQueries: Int {
        clients.values.reduce(0) { n, c in n + c.held.count { if case .query = $0 { true } else { false } } }
    }
    /// Whether the client has received requests the core has not handled yet and may handle
    /// now (a turn's budget ended first, or the answer they waited behind was sent): the host
    /// calls `resume` for it in its next turn.
    public func hasPendingInput(_ id: UInt32) -> Bool { clients[id]?.budgetEnded ?? false }
    /// The clients with requests to handle now (`hasPendingInput`), in id order.
    public var resumable: [UInt32] { clients.keys.filter { clients[$0]!.budgetEnded }.sorted() }
    /// Bytes the core received from the client and has not handled yet.
    public func pendingInputBytes(_ id: UInt32) -> Int { clients[id]?.decoder.bufferedCount ?? 0 }

    /// How much of a client's requests one `receive`/`resume` handles: it stops once its
    /// replies reach `outputBytes` or it handled `messages` requests (what is left waits in the
    /// client's decoder for the next turn), so one client's expensive requests never hold the
    /// server thread for long. `.unlimited` handles everything received.
    public struct TurnBudget: Sendable {
        public var outputBytes: Int
        public var messages: Int
        public init(outputBytes: Int, messages: Int) { self.outputBytes = outputBytes; self.messages = messages }
        public static let unlimited = TurnBudget(outputBytes: .max, messages: .max)
        /// The daemon's: 256 KiB of replies or 4,096 requests per client per turn.
        public static let daemon = TurnBudget(outputBytes: 256 << 10, messages: 4096)
    }
    /// Whether a client is connected and said hello.
    func isConnected(_ id: UInt32) -> Bool { clients[id]?.session.state == .ready }
    func clientExists(_ id: UInt32) -> Bool { clients[id] != nil }

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
                                                              message: "the daemon serves at most \(config.maxClients) clients",
                                                              request: 0),
                                                  requestID: 0))
        }
        let id = nextClientID
        // Never 0 (the root's) nor UInt32.max (the trees' "no superlayer", `LayerNode`).
        nextClientID = nextClientID >= UInt32.max - 1 ? 1 : nextClientID + 1
        let client = Client(session: Session(clientID: id, maxPendingOperations: config.maxPendingOperations),
                            decoder: FrameDecoder(maxMessageSize: config.maxMessageSize))
        // The client's container joins the root now, so clients stack in connection order.
        var effects: [ServerEffect] = []
        if let packet = try? model.validate(Commit(client: id, content: .connect), at: clock.now) {
            effects.append(.submit(packet))
        }
        clients[id] = client
        return .accepted(id, effects)
    }

    /// Bytes arrived from a client: handles its requests in order, within `budget`.
    /// - Parameter outputRoom: how many more bytes of output the client may have waiting
    ///   (`maxQueuedOutput` less what its host holds unwritten for it). Once the replies built
    ///   (and held) go over it, no further request is handled: the client is cut off at once
    ///   (`cutOff`), so a client that never reads costs at most one reply past its limit.
    /// - Parameter descriptors: file descriptors that came with the bytes (SCM_RIGHTS), for
    ///   `createPool`; the core owns them from now on (it closes those it does not keep).
    public mutating func receive<C: Collection>(_ bytes: C, descriptors: [Int32] = [], from id: UInt32, outputRoom: Int = .max,
                                                budget: TurnBudget = .unlimited) -> [ServerEffect] where C.Element == UInt8 {
        receiveDescriptors(descriptors, from: id)
        clients[id]?.decoder.feed(bytes)
        return resume(id, outputRoom: outputRoom, budget: budget)
    }

    /// Handles the client's requests received and not handled yet (see `receive`).
    public mutating func resume(_ id: UInt32, outputRoom: Int = .max, budget: TurnBudget = .unlimited) -> [ServerEffect] {
        // Taken out of the table while it changes, so that its staged requests' buffer stays
        // uniquely referenced (a copy left in the table made every append copy them all).
        guard var client = clients.removeValue(forKey: id) else { return [] }
        let welcome = Event.welcome(major: Protocol.versionMajor, minor: Protocol.versionMinor, clientID: id,
                                    display: display, clock: clock.mode == .manual ? .manual : .realtime,
                                    time: clock.now, reduceMotion: reduceMotion)
        var effects: [ServerEffect] = []
        var written = 0, handled = 0
        let room = outputRoom == .max ? .max : outputRoom - client.heldBytes
        func output(_ effects: [ServerEffect]) -> Int {
            effects.reduce(0) { n, e in if case .write(let c, let b) = e, c == id { n + b.count } else { n } }
        }
        while client.session.state != .closed {
            // A request whose answer waits for a frame or a capture holds the client's later
            // requests too, not only their replies: a pipelined `advanceClock` must not move the
            // clock under a query sent before it. `flushHeld` lets them go on.
            if client.held.contains(where: \.isWaiting) {
                client.blocked = true
                break
            }
            guard let input = client.decoder.nextRequest() else { break }
            let actions = client.session.handle(input, welcome: welcome, bytes: client.decoder.lastFrameLength)
            handled += 1
            guard !actions.isEmpty else { continue }
            clients[id] = client
            let heldBefore = client.heldBytes
            var step: [ServerEffect] = []
            for action in actions { perform(action, client: id, &step) }
            guard let updated = clients.removeValue(forKey: id) else { return effects + step }
            client = updated
            written += output(step) + max(0, client.heldBytes - heldBefore)
            effects += step
            if written > room {
                // Over its output limit: cut off now, its other requests never handled.
                clients[id] = client
                return effects.filter { if case .write(let c, _) = $0, c == id { false } else { true } }
                    + [.cutOff(client: id)]
            }
            if written >= budget.outputBytes || handled >= budget.messages {
                client.budgetEnded = true
                clients[id] = client
                return effects
            }
        }
        client.budgetEnded = false
        clients[id] = client
        return effects
    }

    /// A client's connection is gone (hang-up, error, or closed after `close`): its layers go.
    public mutating func disconnected(_ id: UInt32) -> [ServerEffect] {
        guard clients.removeValue(forKey: id) != nil else { return [] }
        captures = captures.filter { $0.value.client != id }
        if traceOwner == id { traceOwner = nil; _ = tracer.stop() }   // its recording is dropped
        guard let packet = try? model.validate(Commit(client: id, content: .disconnect), at: clock.now) else { return [] }
        return [.submit(packet)] + dropImages(of: id) + dropSurfaces(of: id)
    }

    /// The render side published a presentation snapshot: answers the queries it covers.
    public mutating func snapshotPublished(_ snapshot: PresentationSnapshot) -> [ServerEffect] {
        if let old = self.snapshot, old.frame > snapshot.frame { return [] }
        self.snapshot = snapshot
        var effects: [ServerEffect] = []
        var waiting = false
        for id in clients.keys.sorted() where !clients[id]!.held.isEmpty {
            flushHeld(id, &effects)
            if clients[id]!.held.contains(where: { if case .query = $0 { true } else { false } }) { waiting = true }
        }
        if waiting { effects.append(.requestFrame) }
        effects += surfaceEvents(for: snapshot)
        return effects
    }

    /// A capture finished (`captured` or an error): it goes out in its turn among the client's
    /// replies.
    public mutating func captureFinished(tag: UInt64, _ event: Event) -> [ServerEffect] {
        guard let (id, requestID) = captures.removeValue(forKey: tag), var client = clients[id],
              let i = client.held.firstIndex(where: { if case .capture(tag) = $0 { true } else { false } }) else { return [] }
        let bytes = MessageEncoder.encode(event, requestID: requestID)
        client.held[i] = .bytes(bytes)
        client.heldBytes += bytes.count
        clients[id] = client
        var effects: [ServerEffect] = []
        flushHeld(id, &effects)
        return effects
    }

    /// A capture failed: it is answered `captureFailed` (naming its request) in its turn.
    public mutating func captureFailed(tag: UInt64, _ message: String) -> [ServerEffect] {
        guard let requestID = captures[tag]?.requestID else { return [] }
        return captureFinished(tag: tag, .error(opcode: Request.capture(time: nil).opcode, code: .captureFailed,
                                                message: message, request: requestID))
    }

    /// Sends the client's held replies from the front, up to the first one not ready.
    private mutating func flushHeld(_ id: UInt32, _ effects: inout [ServerEffect]) {
        guard var client = clients.removeValue(forKey: id) else { return }
        var done = 0
        loop: for reply in client.held {
            switch reply {
            case .bytes(let b):
                effects.append(.write(client: id, bytes: b))
                client.heldBytes -= b.count
            case .query(let p):
                guard let snapshot, snapshot.covers(sequence: p.sequence, time: p.time) else { break loop }
                effects.append(.write(client: id, bytes: answer(p.query, from: snapshot, client: id, requestID: p.requestID)))
            case .capture: break loop
            }
            done += 1
        }
        client.held.removeFirst(done)
        if client.blocked && !client.held.contains(where: \.isWaiting) {
            // The requests it held back are handled in the host's next turn.
            client.blocked = false
            client.budgetEnded = true
        }
        clients[id] = client
    }

    /// Sends an event to a client (render-side events, capture results).
    public func deliver(_ event: Event, requestID: UInt32, to client: UInt32) -> [ServerEffect] {
        guard clients[client] != nil else { return [] }
        return [.write(client: client, bytes: MessageEncoder.encode(event, requestID: requestID))]
    }

    /// The display's size, scale or refresh rate changed: every client that said hello gets
    /// `displayChanged`. (The headless daemon's display never changes; the viewer's will.)
    public mutating func displayChanged(_ info: DisplayInfo) -> [ServerEffect] {
        guard info != display else { return [] }
        display = info
        return broadcast(.displayChanged(info))
    }

    /// Sets Reduce Motion; when it changes every client that said hello gets
    /// `reduceMotionChanged` (request id 0). Returns the effects.
    public mutating func setReduceMotion(_ on: Bool) -> [ServerEffect] {
        setReduceMotion(on, except: nil)
    }

    private mutating func setReduceMotion(_ on: Bool, except: UInt32?) -> [ServerEffect] {
        guard on != reduceMotion else { return [] }
        reduceMotion = on
        return [.reduceMotion(on: on, time: clock.now)] + broadcast(.reduceMotionChanged(on), except: except)
    }

    private func broadcast(_ event: Event, except: UInt32? = nil) -> [ServerEffect] {
        let bytes = MessageEncoder.encode(event, requestID: 0)
        return clients.keys.sorted().compactMap { id in
            id != except && clients[id]!.session.state == .ready ? .write(client: id, bytes: bytes) : nil
        }
    }

    /// Sends the render tree's events to their owners.
    public mutating func deliver(_ events: [TreeEvent]) -> [ServerEffect] {
        var effects: [ServerEffect] = []
        for e in events {
            let event: Event
            switch e {
            case .animationStarted(let id, let key): event = .animationStarted(layer: id.local, key: key)
            case .animationStopped(let id, let key, let finished):
                event = .animationStopped(layer: id.local, key: key, finished: finished)
            case .transactionCompleted(_, let id):
                event = .transactionCompleted(id: id)
                clients[e.client]?.pendingCompletions.remove(id)
            }
            effects += deliver(event, requestID: 0, to: e.client)
        }
        return effects
    }

    // MARK: Requests

    private mutating func perform(_ action: SessionAction, client: UInt32, _ effects: inout [ServerEffect]) {
        func send(_ event: Event, _ requestID: UInt32) { reply(MessageEncoder.encode(event, requestID: requestID), to: client, &effects) }
        switch action {
        case .send(let event, let requestID):
            send(event, requestID)
        case .close:
            effects.append(.close(client: client))
        case .commit(var commit, let requestID):
            commit.time = clock.now
            let (qualified, imageFailure) = qualifyContents(commit)
            commit = qualified
            if reduceMotion { commit = Self.reducingMotion(commit) }
            let operations: [LayerChange]
            if case .operations(let ops) = commit.content { operations = ops } else { operations = [] }
            func reject(_ code: ErrorCode, index: Int, _ message: String) {
                let failing = index < commit.requestIDs.count ? commit.requestIDs[index] : requestID
                var detail = ErrorDetail(request: failing, opcode: Request.commit.opcode)
                if index < operations.count { detail = Self.detail(of: operations[index], request: failing) }
                send(.error(opcode: Request.commit.opcode, code: code,
                            message: "commit rejected, nothing applied: request \(failing) (\(Request.name(ofOpcode: detail.opcode))): \(message)",
                            detail: detail), requestID)
            }
            // A completion id may be declared once until it fires.
            var declared = clients[client]?.pendingCompletions ?? []
            for i in operations.indices {
                guard case .completion(let id) = operations[i] else { continue }
                guard declared.insert(id).inserted else {
                    reject(.invalidValue, index: i, "completion \(id) is already declared and has not fired")
                    return
                }
            }
            let plan: SurfacePlan
            switch planSurfaces(commit) {
            case .success(let p):
                if let f = imageFailure { return reject(f.code, index: f.index, f.message) }
                plan = p
            case .failure(var f):
                if let i = imageFailure, i.index < f.index { return reject(i.code, index: i.index, i.message) }
                // The model tree's failure comes first when one of the requests before it fails.
                if let earlier = earlierFailure(commit, before: f.index) {
                    f = SurfaceFailure(index: earlier.index, code: ErrorCode(rawValue: earlier.code.rawValue) ?? .internalError,
                                       message: earlier.message)
                }
                if f.index < operations.count { return reject(f.code, index: f.index, f.message) }
                let j = f.index - operations.count
                let failing = commit.surfaceRequestIDs[j]
                let op = commit.surfaceOperations[j]
                send(.error(opcode: Request.commit.opcode, code: f.code,
                            message: "commit rejected, nothing applied: request \(failing) (\(Request.name(ofOpcode: op.opcode))): \(f.message)",
                            detail: ErrorDetail(request: failing, opcode: op.opcode, layer: op.layer)), requestID)
                return
            }
            if !plan.contents.isEmpty, case .operations(let ops) = commit.content {
                commit.content = .operations(ops + plan.contents)
                commit.requestIDs += Array(repeating: requestID, count: plan.contents.count)
            }
            do {
                var packet = try model.validate(commit, at: clock.now)
                packet.surfaces = plan.updates
                packet.reducedMotion = reduceMotion
                commitSequence += 1
                clients[client]?.pendingCompletions = declared
                effects.append(.submit(packet))
                commitSurfaces(plan, client: client, sequence: packet.sequence, &effects)
                updateImageUsers(after: commit, &effects)
                send(.committed(sequence: commitSequence), requestID)
            } catch {
                reject(ErrorCode(rawValue: error.code.rawValue) ?? .internalError, index: error.index, error.message)
            }
        case .setReduceMotion(let on, let requestID):
            effects += setReduceMotion(on, except: client)
            send(.reduceMotionChanged(on), requestID)
        case .capture(let time, let requestID):
            if time != nil && clock.mode != .manual {
                send(.error(opcode: Request.capture(time: nil).opcode, code: .clockNotManual,
                            message: "capture at a given time needs the manual clock (--clock manual)", request: requestID), requestID)
                return
            }
            let tag = nextCaptureTag
            nextCaptureTag += 1
            captures[tag] = (client, requestID)
            clients[client]?.held.append(.capture(tag: tag))
            effects.append(.capture(client: client, requestID: requestID, time: time, tag: tag))
        case .advanceClock(let seconds, let requestID):
            guard clock.mode == .manual else {
                send(.error(opcode: Request.advanceClock(seconds: 0).opcode, code: .clockNotManual,
                            message: "the clock is realtime; start laminad with --clock manual to advance it", request: requestID),
                     requestID)
                return
            }
            let now = clock.advance(by: seconds)
            effects.append(.requestFrame)
            send(.clockAdvanced(time: now), requestID)
        case .presentation(let layer, let keyPath, let requestID):
            query(.presentation(layer: layer, keyPath: keyPath), client: client, requestID: requestID, &effects)
        case .hitTest(let x, let y, let requestID):
            query(.hitTest(Point(x, y)), client: client, requestID: requestID, &effects)
        case .image(let request, let requestID):
            handleImage(request, client: client, requestID: requestID, &effects)
        case .surface(let request, let requestID):
            handleSurface(request, client: client, requestID: requestID, &effects)
        case .measureText(let text, let font, let size, let width, let requestID):
            // Needs no snapshot: answered now (sent in turn behind this client's held replies).
            let size = measurer.measure(text, font: font, fontSize: size, width: width)
            send(.textMeasured(width: size.width, height: size.height), requestID)
        case .sendTree(let requestID):
            // Built off the server thread from the model as it is now: a client asking for
            // large trees (or flooding them) never holds the others' requests for its replies.
            let tag = nextCaptureTag
            nextCaptureTag += 1
            captures[tag] = (client, requestID)
            clients[client]?.held.append(.capture(tag: tag))
            let model = self.model
            let names = clientNames
            effects.append(.build(client: client, tag: tag, make: { .tree(json: Self.treeJSON(model, names: names)) }))
        case .startTrace(let maxFrames, let requestID):
            let opcode = Request.startTrace(maxFrames: 0).opcode
            if let owner = traceOwner {
                send(.error(opcode: opcode, code: .limitExceeded,
                            message: owner == client ? "this client is recording a trace already; stopTrace ends it"
                                : "client \(owner) is recording a trace; one recording at a time", request: requestID), requestID)
            } else if !tracer.start(maxFrames) {
                send(.error(opcode: opcode, code: .limitExceeded,
                            message: tracer.isRecording() ? TraceControl.heldByWindow
                                : "this daemon has no render thread to record a trace of",
                            request: requestID), requestID)
            } else {
                traceOwner = client
                send(.traceStarted(maxFrames: UInt32(maxFrames)), requestID)
            }
        case .stopTrace(let requestID):
            guard traceOwner == client, let trace = tracer.stop() else {
                send(.error(opcode: Request.stopTrace.opcode, code: .limitExceeded,
                            message: traceOwner != nil ? "client \(traceOwner!) is recording the trace; only it can stop it"
                                : tracer.isRecording() ? TraceControl.heldByWindow
                                : "no trace is recording; startTrace starts one", request: requestID), requestID)
                if traceOwner == client { traceOwner = nil }
                return
            }
            traceOwner = nil
            // The JSON (megabytes for a long recording) is written off the server thread, as `tree`.
            let tag = nextCaptureTag
            nextCaptureTag += 1
            captures[tag] = (client, requestID)
            clients[client]?.held.append(.capture(tag: tag))
            effects.append(.build(client: client, tag: tag, make: { .trace(json: trace.chromeJSON()) }))
        case .sendTime(let requestID):
            send(.time(clock.now), requestID)
        case .sendStats(let requestID):
            var s = stats()
            s.layers = model.count
            let json = String(s.json.dropLast()) + ", \"clients\": \(clients.count)}"
            send(.stats(json: json), requestID)
        }
    }

    /// A reply to one of the client's requests: written now, or held behind its earlier
    /// replies that are not ready yet (replies never overtake each other).
    private mutating func reply(_ bytes: [UInt8], to client: UInt32, _ effects: inout [ServerEffect]) {
        guard let c = clients[client], !c.held.isEmpty else {
            effects.append(.write(client: client, bytes: bytes))
            return
        }
        clients[client]!.held.append(.bytes(bytes))
        clients[client]!.heldBytes += bytes.count
    }

    /// Answers a query from the latest snapshot when it covers every commit accepted so far
    /// and the clock's time now; holds it (and every later reply) otherwise.
    private mutating func query(_ q: Query, client: UInt32, requestID: UInt32, _ effects: inout [ServerEffect]) {
        // Every commit the daemon accepted before the query — any client's — and the clock's
        // time now: a query never sees a tree older than what was committed before it.
        let needed = Parked(requestID: requestID, query: q, sequence: model.sequence, time: clock.now)
        if let snapshot, snapshot.covers(sequence: needed.sequence, time: needed.time) {
            reply(answer(q, from: snapshot, client: client, requestID: requestID), to: client, &effects)
        } else {
            clients[client]?.held.append(.query(needed))
            effects.append(.requestFrame)
        }
    }

    private func answer(_ q: Query, from snapshot: PresentationSnapshot, client: UInt32, requestID: UInt32) -> [UInt8] {
        let event: Event
        switch q {
        case .presentation(let layer, let keyPath):
            let id = LayerID(client: client, local: layer)
            if snapshot.tree[id] == nil {
                event = .error(opcode: 0x34, code: .unknownLayer, message: "layer \(layer) does not exist",
                               request: requestID, layer: layer, key: keyPath)
            } else if let problem = Self.kindLacks(keyPath, snapshot.tree[id]!.kind) {
                // A property the layer's kind lacks (`fillColor` on a plain layer).
                event = .error(opcode: 0x34, code: .invalidProperty, message: problem.description,
                               request: requestID, layer: layer, key: keyPath)
            } else if var v = snapshot.value(of: id, keyPath: keyPath) {
                if keyPath == "contents", case .string(let q) = v { v = .string(Self.clientImageName(q)) }
                if case .emitterCells(let cells) = v {
                    func unqualify(_ list: [EmitterCell]) -> [EmitterCell] {
                        list.map { c in
                            var c = c
                            c.contents = c.contents.map(Self.clientImageName)
                            c.emitterCells = unqualify(c.emitterCells)
                            return c
                        }
                    }
                    v = .emitterCells(unqualify(cells))
                }
                event = .presentation(value: v)
            } else {
                event = .error(opcode: 0x34, code: .invalidProperty,
                               message: "'\(keyPath)' is not a key path of a layer of type \(snapshot.tree[id]!.kind.name)",
                               request: requestID, layer: layer, key: keyPath)
            }
        case .hitTest(let point):
            if let id = snapshot.hitTest(point) {
                event = id.client == client ? .hitResult(.ownLayer, layer: id.local) : .hitResult(.otherClient, layer: 0)
            } else {
                event = .hitResult(.none, layer: 0)
            }
        case .measure(let text, let font, let fontSize, let width):
            let size = measurer.measure(text, font: font, fontSize: fontSize, width: width)
            event = .textMeasured(width: size.width, height: size.height)
        }
        return MessageEncoder.encode(event, requestID: requestID)
    }

    /// Why layers of `kind` cannot have `keyPath` (`fillColor` on a plain layer), or nil.
    static func kindLacks(_ keyPath: String, _ kind: LayerKind) -> PropertyError? {
        do { try PropertyTable.check(keyPath: keyPath, kind: kind) } catch { return error }
        return nil
    }

    /// Under Reduce Motion the daemon itself turns a CATransition's movement (moveIn, push,
    /// reveal) into a cross-fade (docs/protocol.md, Reduce Motion).
    static func reducingMotion(_ commit: Commit) -> Commit {
        guard case .operations(let ops) = commit.content,
              ops.contains(where: { if case .transition = $0 { true } else { false } }) else { return commit }
        var c = commit
        c.content = .operations(ops.map { op in
            if case .transition(let id, let t) = op { return .transition(id, t.reducingMotion) }
            return op
        })
        return c
    }

    /// The error detail of a staged operation: its request's opcode, layer and key.
    static func detail(of op: LayerChange, request: UInt32) -> ErrorDetail {
        switch op {
        case .create(let id, _): ErrorDetail(request: request, opcode: 0x10, layer: id)
        case .delete(let id): ErrorDetail(request: request, opcode: 0x11, layer: id)
        case .set(let id, let keyPath, _): ErrorDetail(request: request, opcode: 0x12, layer: id, key: keyPath)
        case .addSublayer(_, let child): ErrorDetail(request: request, opcode: 0x13, layer: child)
        case .insertSublayer(_, let child, _): ErrorDetail(request: request, opcode: 0x14, layer: child)
        case .removeFromSuperlayer(let id): ErrorDetail(request: request, opcode: 0x15, layer: id)
        case .setTransaction: ErrorDetail(request: request, opcode: 0x16)
        case .addAnimation(let id, let key, _): ErrorDetail(request: request, opcode: 0x17, layer: id, key: key)
        // An expression animation travels as addAnimation.
        case .addExpression(let id, let key, _): ErrorDetail(request: request, opcode: 0x17, layer: id, key: key)
        case .removeAnimation(let id, let key): ErrorDetail(request: request, opcode: 0x18, layer: id, key: key)
        case .removeAllAnimations(let id): ErrorDetail(request: request, opcode: 0x19, layer: id)
        case .completion: ErrorDetail(request: request, opcode: 0x1A)
        case .setTransitions(let id, _): ErrorDetail(request: request, opcode: 0x1E, layer: id)
        case .match(_, let to): ErrorDetail(request: request, opcode: 0x1F, layer: to)
        case .transition(let id, _): ErrorDetail(request: request, opcode: 0x42, layer: id)
        }
    }
}
