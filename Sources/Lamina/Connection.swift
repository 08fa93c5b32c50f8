import Foundation
@_exported import LaminaGeometry
@_exported import LaminaModel
@_exported import LaminaAnimation
@_exported import LaminaWire
#if canImport(Glibc)
import Glibc
#endif

/// Errors the client library reports.
public enum LaminaError: Error, CustomStringConvertible, Equatable {
    /// The daemon could not be reached (or refused the connection: `maxClients`).
    case connectionFailed(String)
    /// The daemon closed the connection (or `close()` was called); on a connection that
    /// reconnects, a request waiting for its reply when the daemon went away.
    case disconnected
    /// The daemon went away and the connection is reconnecting (`ReconnectPolicy`): nothing
    /// was sent. A commit's staged changes stay staged: commit again after
    /// `ConnectionEvent.reconnected`.
    case reconnecting
    /// The daemon answered a request with an error event. `request` names the request
    /// answered; `failed` is the request that failed, as fields (for a rejected commit, the
    /// staged request: its id, opcode, layer and key path or animation key).
    case requestFailed(request: String, code: ErrorCode, message: String, failed: ErrorDetail)
    /// The daemon sent something this library cannot read as the reply expected.
    case protocolViolation(String)
    /// A local file the call was given could not be read (`uploadImage(contentsOfFile:)`):
    /// its path and the system's reason. Nothing was sent.
    case fileUnreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .connectionFailed(let m): m
        case .disconnected: "the daemon closed the connection"
        case .reconnecting: "the daemon went away; reconnecting (nothing was sent)"
        case .requestFailed(let r, let code, let m, _): "\(r) failed (\(code)): \(m)"
        case .protocolViolation(let m): "protocol violation: \(m)"
        case .fileUnreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }

    /// The error code of a `requestFailed`, else nil.
    public var code: ErrorCode? {
        if case .requestFailed(_, let code, _, _) = self { return code }
        return nil
    }

    /// The failing request's id, opcode, layer and key of a `requestFailed`, else nil.
    public var failedRequest: ErrorDetail? {
        if case .requestFailed(_, _, _, let d) = self { return d }
        return nil
    }
}

/// A connection to laminad. Create layers with `makeLayer`, change them, then `commit()`:
/// the daemon applies the whole batch or none of it.
///
/// **Where it may be used.** A connection and its layers are not `Sendable`: they belong to
/// the isolation domain that made them (a thread, a task, an actor such as the main actor),
/// and the compiler keeps them there. Every method is called from that domain. The blocking
/// forms (`commit()`, `ping()`, …) block the calling thread until the reply; from async code
/// use their `async` forms, which suspend instead and resume on the caller's actor.
///
/// **Events** arrive without the caller doing anything: a reader thread reads the socket,
/// answers the waiting requests and hands events to callbacks (`onAnimationEvent`,
/// `onDisplayChange`, `onReduceMotionChange`, completion blocks, animation delegates), which
/// run on the actor they were formed on, or else on the connection's serial delivery
/// context, in the order the events came; and to every `events` stream.
///
/// **A daemon restart** ends a connection, unless it was made with a `ReconnectPolicy`
/// (`reconnect: .standard`): then it keeps what it committed, reconnects when a daemon is back
/// on the socket and replays its model (`Reconnection.swift`, the library's README).
public final class Connection {
    let link: Link
    /// This client's id in the daemon (a new one after a reconnection).
    public var clientID: UInt32 { link.state.withLock { $0.session.clientID } }
    /// The daemon runs the manual clock (`advanceClock`, captures at a time).
    public var isManualClock: Bool { link.state.withLock { $0.session.isManualClock } }
    /// The daemon's clock when it welcomed this client (the last reconnection's daemon's).
    public var welcomeTime: Double { link.state.withLock { $0.session.welcomeTime } }

    /// CATransaction's nesting and settings for this connection.
    var transactions = TransactionStack()
    private var outgoing: [UInt8] = []
    /// The open transaction's requests, kept while reconnection is on: the journal records
    /// them when the commit is accepted, and a commit after a reconnection sends them all
    /// again (some may have been written, by a query, to the daemon that went away).
    private var staged: [Request] = []
    /// The link's generation when staged requests of the open transaction were first written
    /// before its commit (nil: none were).
    private var writtenInGeneration: Int?
    /// Completion blocks and animation delegates of the transaction being built.
    private var hooks = Link.CommitHooks()
    private var nextLayerID: UInt32 = 1
    /// Pool, buffer and frame-callback ids (SurfaceLayer.swift), one counter for all three.
    private var nextSurfaceID: UInt32 = 1
    func takeSurfaceID() -> UInt32 { defer { nextSurfaceID &+= 1 }; return nextSurfaceID }
    private var registry: [UInt32: WeakLayer] = [:]
    private struct WeakLayer { weak var layer: Layer? }

    /// The container of this client's top-level layers (local id 0): sublayers only, no
    /// properties (`RootLayer`).
    public private(set) lazy var root = RootLayer(connection: self)

    /// Connects and performs the handshake (blocking).
    /// - Parameters:
    ///   - socketPath: the daemon's socket; nil for `$XDG_RUNTIME_DIR/lamina-0` (or
    ///     `/tmp/lamina-<uid>/lamina-0` when that variable is unset).
    ///   - name: shown by `laminactl tree`.
    ///   - reconnect: whether the connection survives the daemon's restart (off by default;
    ///     `ReconnectPolicy`).
    public init(socketPath: String? = nil, name: String = ProcessInfo.processInfo.processName,
                reconnect: ReconnectPolicy = .disabled) throws {
        let path = socketPath ?? Connection.defaultSocketPath
        let fd = try Handshake.connect(path: path)
        let (welcome, decoder) = try Handshake.hello(fd: fd, name: name)
        guard case .welcome(_, _, let id, let display, let clock, let time, let reduceMotion) = welcome else {
            Glibc.close(fd)
            throw LaminaError.protocolViolation("expected welcome, got \(welcome)")
        }
        link = Link(fd: fd, session: Link.Session(clientID: id, isManualClock: clock == .manual, welcomeTime: time),
                    socketPath: path, clientName: name, policy: reconnect)
        link.state.withLock { $0.display = display; $0.reduceMotion = reduceMotion }
        link.startReader(decoder: decoder)
    }

    deinit { link.shutdown() }

    /// Closes the connection; the daemon removes this client's layers in its next frame.
    /// Requests waiting for replies fail with `disconnected`; `events` streams end.
    public func close() { link.shutdown() }

    /// The default socket path.
    public static var defaultSocketPath: String { Protocol.defaultSocketPath }

    // MARK: Display and Reduce Motion

    /// The display (size in points, scale, refresh rate), from the welcome and `displayChanged`.
    public var display: DisplayInfo { link.state.withLock { $0.display } }
    /// The canvas size in points.
    public var canvasSize: Size { let d = display; return Size(Double(d.width), Double(d.height)) }
    public var scale: Double { display.scale }
    /// The daemon's Reduce Motion setting, from the welcome and `reduceMotionChanged`. When
    /// on, skip or shorten non-essential motion.
    public var reduceMotion: Bool { link.state.withLock { $0.reduceMotion } }

    /// Called when the display changes (see the type's notes on where callbacks run).
    public var onDisplayChange: EventCallback<DisplayInfo>? {
        get { link.state.withLock { $0.onDisplayChange } }
        set { link.state.withLock { $0.onDisplayChange = newValue } }
    }
    /// Called when the Reduce Motion setting changes (or `setReduceMotion` answers).
    public var onReduceMotionChange: EventCallback<Bool>? {
        get { link.state.withLock { $0.onReduceMotionChange } }
        set { link.state.withLock { $0.onReduceMotionChange = newValue } }
    }
    /// Called for every `animationStarted`/`animationStopped` event of this client's explicit
    /// animations (after the animation's own delegate).
    public var onAnimationEvent: EventCallback<ConnectionEvent>? {
        get { link.state.withLock { $0.onAnimationEvent } }
        set { link.state.withLock { $0.onAnimationEvent = newValue } }
    }

    /// A new stream of this connection's events from now on (each stream gets every event;
    /// it buffers what is not yet consumed and ends with `.disconnected`). For an actor that
    /// wants its events in its own isolation: `for await e in connection.events { … }`.
    public var events: AsyncStream<ConnectionEvent> { link.subscribe() }

    /// Errors the daemon reported for requests no one waited for (staged requests that
    /// failed at once), oldest first.
    public var pendingErrors: [RequestError] { link.state.withLock { $0.pendingErrors } }

    /// Blocks the calling thread up to `timeout` seconds, or until the connection ends (for a
    /// thread that only keeps a connection alive: events need no pumping).
    /// - Throws: `LaminaError.disconnected` once the connection has ended.
    public func waitWhileConnected(timeout: Double) throws {
        if link.ended.wait(timeout: .now() + max(0, timeout)) == .success { throw LaminaError.disconnected }
    }

    /// 0.x's pump; events are delivered without it now.
    @available(*, deprecated, renamed: "waitWhileConnected(timeout:)")
    public func processEvents(timeout: Double = 0) throws { try waitWhileConnected(timeout: timeout) }

    /// Suspends until the callbacks of every event read so far have run.
    nonisolated(nonsending) public func drainEvents() async { await link.drain() }

    // MARK: Layers

    /// Makes a new layer owned by this client. It exists in the daemon after the next commit.
    public func makeLayer(_ kind: LayerKind = .layer) -> Layer {
        let id = nextLayerID
        nextLayerID += 1
        stage(.createLayer(id: id, kind: kind))
        let layer = Layer.make(connection: self, id: id, kind: kind)
        registry[id] = WeakLayer(layer: layer)
        return layer
    }

    /// This client's layer with `id`, while it is alive here (0: `root`).
    public func layer(withID id: UInt32) -> Layer? {
        id == 0 ? root.layer : registry[id]?.layer
    }

    /// Reserves layer ids up to `id` (for callers that assign ids themselves, like scenes).
    public func reserveLayerIDs(through id: UInt32) { nextLayerID = max(nextLayerID, id + 1) }

    // MARK: Commit

    /// Sends every staged change as one transaction and blocks until the daemon's answer (the
    /// implicit transaction's commit, as at the end of a run loop turn). Open explicit
    /// transactions are closed first.
    /// - Returns: the daemon's commit sequence number.
    /// - Throws: `LaminaError.requestFailed` when the daemon rejected it (then nothing of it
    ///   applied; `failedRequest` names the staged request that failed): with the code of
    ///   what failed at commit (`unknownLayer`, `invalidValue`, `invalidAnimation`, …), or
    ///   `transactionFailed` when a staged request had already failed when it arrived (that
    ///   failure came first as a `ConnectionEvent.requestFailed`). docs/protocol.md, "Errors",
    ///   says which check comes when.
    @discardableResult
    public func commit() throws -> UInt64 {
        closeAllTransactions()
        return try sendCommit()
    }

    /// `commit()`, suspending instead of blocking.
    @discardableResult
    nonisolated(nonsending) public func commit() async throws -> UInt64 {
        closeAllTransactions()
        return try await sendCommit()
    }

    private func closeAllTransactions() {
        while transactions.depth > 0 {
            for case .stage(let op) in transactions.commit() { stageOperation(op) }
        }
        for case .stage(let op) in transactions.commit() { stageOperation(op) }
    }

    private func committed(_ reply: Event) throws(LaminaError) -> UInt64 {
        guard case .committed(let seq) = reply else { throw LaminaError.protocolViolation("expected committed, got \(reply)") }
        return seq
    }

    /// `commitTransaction()`'s staging: closes the innermost transaction; true when the
    /// outermost closed and the packet is to be sent.
    func closeTransaction() -> Bool {
        var send = false
        for action in transactions.commit() {
            switch action {
            case .stage(let op): stageOperation(op)
            case .sendCommit: send = true
            }
        }
        return send
    }

    @discardableResult
    func sendCommit() throws(LaminaError) -> UInt64 {
        let (bytes, hooks) = takeCommit()
        do {
            return try committed(link.roundTrip(bytes, .commit, hooks: hooks))
        } catch {
            restage(hooks, error)
            throw error
        }
    }

    @discardableResult
    nonisolated(nonsending) func sendCommit() async throws(LaminaError) -> UInt64 {
        let (bytes, hooks) = takeCommit()
        do {
            return try committed(await link.roundTrip(bytes, .commit, hooks: hooks))
        } catch {
            restage(hooks, error)
            throw error
        }
    }

    /// The staged requests not yet written (they stay staged in the daemon until the commit).
    func takeStaged() -> [UInt8] {
        if link.isJournaling && !outgoing.isEmpty && writtenInGeneration == nil {
            writtenInGeneration = link.generation.load(ordering: .relaxed)
        }
        defer { outgoing = [] }
        return outgoing
    }

    /// The commit's bytes and hooks. With reconnection on, the hooks carry the transaction's
    /// requests for the journal; if some were written to a daemon that has gone since, every
    /// request of the transaction is written again.
    private func takeCommit() -> ([UInt8], Link.CommitHooks?) {
        guard link.isJournaling else { return (takeStaged(), takeHooks()) }
        var h = takeHooks() ?? Link.CommitHooks()
        h.journal = .commit(staged, time: link.state.withLock { $0.clock.now })
        var bytes = outgoing
        if let g = writtenInGeneration, g != link.generation.load(ordering: .relaxed) {
            bytes = []
            for r in staged { MessageEncoder.append(r, requestID: link.takeRequestID(), to: &bytes) }
        }
        outgoing = []
        staged = []
        writtenInGeneration = nil
        return (bytes, h)
    }

    /// A commit that did not reach a daemon that answered (it went away): with reconnection
    /// on, its requests and hooks are staged again — nothing committed is lost; the next
    /// commit, after `reconnected`, sends them.
    private func restage(_ h: Link.CommitHooks?, _ error: LaminaError) {
        guard link.isJournaling, error == .disconnected || error == .reconnecting,
              case .commit(let requests, _)? = h?.journal else { return }
        // What was staged since assumed the default settings (a commit resets them).
        var again = requests
        if requests.contains(where: { if case .setTransaction = $0 { true } else { false } }) {
            again.append(.setTransaction(TransactionSettings()))
        }
        again += staged
        var bytes: [UInt8] = []
        for r in again { MessageEncoder.append(r, requestID: link.takeRequestID(), to: &bytes) }
        outgoing = bytes
        staged = again
        writtenInGeneration = nil
        var merged = h!
        merged.journal = nil
        merged.completions.merge(hooks.completions) { old, _ in old }
        merged.delegates += hooks.delegates
        hooks = merged
    }

    private func takeHooks() -> Link.CommitHooks? {
        guard !hooks.isEmpty else { return nil }
        defer { hooks = Link.CommitHooks() }
        return hooks
    }

    func addDelegate(_ delegate: any AnimationDelegate, layer: UInt32, key: String) {
        hooks.delegates.append((layer, key, delegate))
    }

    func addCompletion(_ id: UInt32, _ block: @escaping CompletionBlock) {
        hooks.completions[id] = block
    }

    /// Drops the block of a completion that was replaced before its transaction committed.
    func removeCompletion(_ id: UInt32) {
        hooks.completions[id] = nil
    }

    // MARK: Staging

    /// Stages a layer operation as its request (with the transaction settings in force).
    public func stageOperation(_ op: LayerChange) {
        switch op {
        case .setTransaction, .completion: stageRaw(Connection.request(for: op))
        default: stage(Connection.request(for: op))
        }
    }

    /// The request that stages a layer operation.
    public static func request(for op: LayerChange) -> Request {
        switch op {
        case .create(let id, let kind): .createLayer(id: id, kind: kind)
        case .delete(let id): .deleteLayer(id: id)
        case .set(let id, let k, let v): .setProperty(id: id, keyPath: k, value: v)
        case .addSublayer(let p, let c): .addSublayer(parent: p, child: c)
        case .insertSublayer(let p, let c, let i): .insertSublayer(parent: p, child: c, index: i)
        case .removeFromSuperlayer(let id): .removeFromSuperlayer(id: id)
        case .setTransaction(let s): .setTransaction(s)
        case .addAnimation(let id, let key, let a): .addAnimation(id: id, key: key, json: AnimationJSON.encode(a).text)
        case .removeAnimation(let id, let key): .removeAnimation(id: id, key: key)
        case .removeAllAnimations(let id): .removeAllAnimations(id: id)
        case .addExpression(let id, let key, let e): .addAnimation(id: id, key: key, json: ExpressionJSON.encode(e).text)
        case .completion(let id): .completion(id: id)
        case .setTransitions(let id, let t): .setTransitions(id: id, json: TransitionJSON.encode(t).text)
        case .match(let from, let to): .match(from: from, to: to)
        case .transition(let id, let t): .transition(id: id, t)
        }
    }

    /// Stages a request, preceded by the transaction settings when they changed.
    func stage(_ request: Request) {
        if Request.isLayerOpcode(request.opcode), let op = transactions.settingsChange(), case .setTransaction(let s) = op {
            stageRaw(.setTransaction(s))
        }
        stageRaw(request)
    }

    private func stageRaw(_ request: Request) {
        MessageEncoder.append(request, requestID: link.takeRequestID(), to: &outgoing)
        if link.isJournaling { staged.append(request) }
    }

    /// Sends staged requests and `request`, then blocks until its reply (the library's other
    /// requests: images). With reconnection on, an image uploaded or released is recorded
    /// for the replay once the daemon accepts it.
    func roundTrip(_ request: Request) throws(LaminaError) -> Event {
        var hooks: Link.CommitHooks?
        if link.isJournaling {
            switch request {
            case .uploadImage(let name, let format, let width, let height, let data):
                hooks = Link.CommitHooks(journal: .upload(ModelJournal.ImageRecord(name: name, format: format, width: width,
                                                                                   height: height, data: data)))
            case .releaseImage(let name): hooks = Link.CommitHooks(journal: .release(name))
            case .createTiledImage(let name, let width, let height):
                hooks = Link.CommitHooks(journal: .upload(ModelJournal.ImageRecord(name: name, source: .tiled(width: width, height: height))))
            default: break
            }
        }
        return try link.roundTrip(takeStaged(), request, hooks: hooks)
    }

    /// Sends raw bytes (for tests of the daemon's robustness).
    public func sendRaw(_ bytes: [UInt8]) throws { try link.write(bytes) }
}
