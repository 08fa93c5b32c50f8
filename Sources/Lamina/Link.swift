import Foundation
import LaminaWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A callback the connection runs for an event: formed on an actor (`@MainActor`, your own
/// actor) it runs on that actor; otherwise on the connection's delivery context, a serial
/// one: callbacks of one connection never overlap and run in the order their events came.
public typealias EventCallback<T: Sendable> = @isolated(any) @Sendable (T) -> Void

/// A transaction's completion block; runs as an `EventCallback` does.
public typealias CompletionBlock = @isolated(any) @Sendable () -> Void

/// An event from the daemon that is not the reply to a request.
///
/// Minor versions add events: switch over it with a `default`. (The viewer's input events,
/// opcodes 0x90…0x9F, come to `Connection.onPointer`, `onKey` and the layers' handlers,
/// `Connection+Input.swift`.)
public enum ConnectionEvent: Sendable, Equatable {
    /// An explicit animation of this client started (the frame that applied its commit).
    case animationStarted(layer: UInt32, key: String)
    /// It stopped: finished when its active interval ended, not when removed or replaced.
    case animationStopped(layer: UInt32, key: String, finished: Bool)
    /// A transaction's completion (the id `Connection.setCompletionBlock` returned).
    case transactionCompleted(id: UInt32)
    case displayChanged(DisplayInfo)
    case reduceMotionChanged(Bool)
    /// An error answering a request no one waited for (a staged request that failed at once;
    /// its transaction's commit then fails with `transactionFailed`).
    case requestFailed(RequestError)
    /// The daemon went away (its socket closed); the connection is reconnecting
    /// (`ReconnectPolicy`). Requests fail with `LaminaError.reconnecting` until `reconnected`.
    case connectionLost
    /// A daemon on the same socket welcomed the client again and accepted the replay of its
    /// committed model (layers, images, running animations, completions): this client's id in
    /// that daemon.
    case reconnected(clientID: UInt32)
    /// The connection is over: the daemon closed it (with reconnection off, or after
    /// reconnecting gave up), or `close()` was called. The last event.
    case disconnected
}

/// An error event as fields: the request it answered and the request that failed.
public struct RequestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The id of the request the error answered (for a rejected commit: the commit's).
    public let requestID: UInt32
    /// The opcode of the request answered.
    public let opcode: UInt16
    public let code: ErrorCode
    /// English for people; not part of the protocol.
    public let message: String
    /// The request that failed: its id, opcode, layer and key path or animation key.
    public let failed: ErrorDetail

    public var description: String { "\(Request.name(ofOpcode: opcode)) failed (\(code)): \(message)" }
}

/// Receives a layer's explicit animation events (`CAAnimationDelegate`). Its methods are
/// async so that an actor (the main actor, your own) can conform with isolated methods; the
/// connection awaits them in order on its delivery context.
public protocol AnimationDelegate: AnyObject, Sendable {
    /// The animation added under `key` to `layer` (a layer id) started.
    func animationDidStart(layer: UInt32, key: String) async
    /// It stopped: `finished` when its active interval ended, false when removed or replaced.
    func animationDidStop(layer: UInt32, key: String, finished: Bool) async
}

extension AnimationDelegate {
    public func animationDidStart(layer: UInt32, key: String) async {}
}

/// The socket and everything shared with the reader thread: request ids, the replies waited
/// for, callbacks, the state events change. Sendable: its mutable state is behind `state`'s
/// lock; writes are serialized by `writeLock`. The reader thread never runs caller code: it
/// hands callbacks to the delivery task, which runs them in order.
final class Link: Sendable {
    enum Waiter {
        case sync(SyncBox)
        case async(CheckedContinuation<Result<Event, LaminaError>, Never>)
        case part(Collector, Int)

        func resume(_ r: Result<Event, LaminaError>) {
            switch self {
            case .sync(let box): box.result = r; box.semaphore.signal()
            case .async(let c): c.resume(returning: r)
            case .part(let collector, let i): collector.set(i, r)
            }
        }
    }

    /// The replies of a pipelined batch of requests; resumes its continuation with all of them.
    final class Collector: Sendable {
        private let slots: Mutex<(results: [Result<Event, LaminaError>?], left: Int)>
        private let done: CheckedContinuation<[Result<Event, LaminaError>], Never>

        init(count: Int, done: CheckedContinuation<[Result<Event, LaminaError>], Never>) {
            slots = Mutex((Array(repeating: nil, count: count), count))
            self.done = done
        }

        func set(_ i: Int, _ r: Result<Event, LaminaError>) {
            let all: [Result<Event, LaminaError>]? = slots.withLock { s in
                guard s.results[i] == nil else { return nil }
                s.results[i] = r
                s.left -= 1
                return s.left == 0 ? s.results.map { $0! } : nil
            }
            if let all { done.resume(returning: all) }
        }
    }

    /// A blocked caller's reply slot (written once before the signal, read after the wait).
    final class SyncBox: @unchecked Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        var result: Result<Event, LaminaError>?
    }

    /// What a commit brings into force when the daemon accepts it (and, on a connection that
    /// reconnects, what the journal records when its reply comes).
    struct CommitHooks: Sendable {
        var completions: [UInt32: CompletionBlock] = [:]
        var delegates: [(layer: UInt32, key: String, delegate: any AnimationDelegate)] = []
        var journal: JournalEntry?
        var isEmpty: Bool { completions.isEmpty && delegates.isEmpty && journal == nil }
    }

    /// What an accepted request changes in the `ModelJournal`.
    enum JournalEntry: Sendable {
        /// A commit's staged requests and the journal's time when it was sent.
        case commit([Request], time: Double)
        case upload(ModelJournal.ImageRecord)
        case release(String)
    }

    /// What the welcome of the daemon now serving the client said.
    struct Session: Sendable {
        var clientID: UInt32
        var isManualClock: Bool
        var welcomeTime: Double
    }

    struct AnimationKey: Hashable { let layer: UInt32; let key: String }

    struct State {
        var waiters: [UInt32: (Waiter, CommitHooks?)] = [:]
        var completions: [UInt32: CompletionBlock] = [:]
        var delegates: [AnimationKey: [any AnimationDelegate]] = [:]
        var display = DisplayInfo(width: 0, height: 0, scale: 1, refreshRate: 0)
        var reduceMotion = false
        var pendingErrors: [RequestError] = []
        var subscribers: [UInt64: AsyncStream<ConnectionEvent>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var onAnimationEvent: EventCallback<ConnectionEvent>?
        var onDisplayChange: EventCallback<DisplayInfo>?
        var onReduceMotionChange: EventCallback<Bool>?
        /// `onPointer`, `onKey` (Connection+Input.swift).
        var input = InputHandlers()
        var isClosed = false
        var session: Session
        /// `onConnectionChange`.
        var onConnectionChange: EventCallback<ConnectionEvent>?
        /// The committed model, kept while reconnection is on (nil: off).
        var journal: ModelJournal?
        var clock: ReplayClock
        /// Between `connectionLost` and `reconnected` (or the end).
        var isReconnecting = false
        /// `close()` was called: no reconnection.
        var closeRequested = false
        /// A descriptor of the socket a reconnection is trying, its own (a `dup`, closed only
        /// under the lock): `shutdown()` ends that socket too.
        var candidate: Int32?
        /// Surface layers' buffers (SurfaceLayer.swift): called on the reader thread at a buffer's
        /// `bufferReleased`, by buffer id.
        /// The argument is whether the buffer is busy now (false at `bufferReleased`; a replay
        /// marks the buffer it attaches again busy and the others free).
        var bufferReleases: [UInt32: @Sendable (Bool) -> Void] = [:]
        /// Surface layers' frame callbacks, by callback id (once each: the frame's time and the
        /// next frame's target time), run on the delivery context.
        var frameCallbacks: [UInt32: @Sendable (Double, Double) async -> Void] = [:]
        /// `presentationFeedback` ids waiting for their `presented` event.
        var presentationCallbacks: [UInt32: @Sendable (PresentationFeedback) async -> Void] = [:]
        /// Client-drawn tiled images' suppliers (TileProvider.swift), by image name.
        var tileSuppliers: [String: TileSupplier] = [:]
        /// `animationStarted` events to swallow: replayed animations had started before.
        var replayedStarts: [AnimationKey: Int] = [:]

        /// Why a request cannot be sent now, if it cannot.
        var refusal: LaminaError? { isClosed ? .disconnected : isReconnecting ? .reconnecting : nil }
    }

    /// The socket now in use (replaced when reconnecting; written under `writeLock`).
    private let socket: Atomic<Int32>
    let state: Mutex<State>
    /// Left when the reader ends (the connection is over).
    let ended = DispatchGroup()
    private let writeLock = Mutex(())
    private let nextID = Atomic<UInt32>(2)   // 1 is the hello's
    /// How many times the connection reconnected (staged requests written before a
    /// reconnection are written again at the commit: `Connection.takeStaged`).
    let generation = Atomic<Int>(0)
    private let jobs: AsyncStream<@Sendable () async -> Void>.Continuation
    let policy: ReconnectPolicy
    private let socketPath: String
    private let clientName: String
    /// Signalled by `shutdown()`: ends a reconnection's wait at once.
    private let wake = DispatchSemaphore(value: 0)

    /// Whether requests are journaled (reconnection is on).
    var isJournaling: Bool { policy.isEnabled }

    init(fd: Int32, session: Session, socketPath: String, clientName: String, policy: ReconnectPolicy) {
        socket = Atomic(fd)
        self.policy = policy
        self.socketPath = socketPath
        self.clientName = clientName
        state = Mutex(State(session: session, journal: policy.isEnabled ? ModelJournal() : nil,
                            clock: ReplayClock(manual: session.isManualClock, daemonTime: session.welcomeTime)))
        ended.enter()
        let (stream, jobs) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
        self.jobs = jobs
        // The delivery context: one task running callbacks in event order, on its own
        // queue's thread (not the shared cooperative pool, which callers blocked in the
        // blocking forms could otherwise starve).
        Task.detached(executorPreference: DeliveryExecutor()) {
            await BlockingCheck.$inCallback.withValue(true) { for await job in stream { await job() } }
        }
    }

    deinit { Glibc.close(socket.load(ordering: .relaxed)) }

    /// Starts the reader thread (after the handshake's reply was read synchronously).
    func startReader(decoder: FrameDecoder) {
        let thread = Thread { [self] in self.readLoop(decoder: decoder) }
        thread.name = "lamina-client-reader"
        thread.start()
    }

    /// A fresh request id (never 0).
    func takeRequestID() -> UInt32 {
        var id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        while id == 0 { id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue }
        return id
    }

    // MARK: Writing

    /// Writes `bytes`; `descriptor` (when not nil) goes with the first byte (SCM_RIGHTS).
    func write(_ bytes: [UInt8], descriptor: Int32? = nil) throws(LaminaError) {
        let ok: Bool = writeLock.withLock { _ in
            let fd = socket.load(ordering: .relaxed)
            var offset = 0
            if let descriptor {
                let n = bytes.withUnsafeBytes { Self.sendWithDescriptor(fd, $0.baseAddress!, count: $0.count, descriptor: descriptor) }
                guard n > 0 else { return false }
                offset = n
            }
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
        if !ok { throw .disconnected }
    }

    /// Ends the connection: the reader sees the end and fails what is waited for (a
    /// reconnection in progress stops).
    func shutdown() {
        state.withLock { s in
            s.closeRequested = true
            if let c = s.candidate { _ = Glibc.shutdown(c, Int32(SHUT_RDWR)) }
        }
        wake.signal()
        _ = Glibc.shutdown(socket.load(ordering: .relaxed), Int32(SHUT_RDWR))
    }

    // MARK: Round trips

    /// `sendmsg` of `count` bytes with one descriptor (SCM_RIGHTS): the count sent, or −1.
    static func sendWithDescriptor(_ fd: Int32, _ base: UnsafeRawPointer, count: Int, descriptor: Int32) -> Int {
        // cmsghdr on Linux: size_t len, int level, int type, the descriptor, padded to size_t.
        let header = MemoryLayout<Int>.size + 8
        var control = [UInt64](repeating: 0, count: (header + 4 + 7) / 8)
        var iov = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: count)
        return control.withUnsafeMutableBytes { c in
            c.storeBytes(of: header + 4, toByteOffset: 0, as: Int.self)
            c.storeBytes(of: SOL_SOCKET, toByteOffset: MemoryLayout<Int>.size, as: Int32.self)
            c.storeBytes(of: Int32(SCM_RIGHTS), toByteOffset: MemoryLayout<Int>.size + 4, as: Int32.self)
            c.storeBytes(of: descriptor, toByteOffset: header, as: Int32.self)
            return withUnsafeMutablePointer(to: &iov) { iovp in
                var msg = msghdr()
                msg.msg_iov = iovp
                msg.msg_iovlen = 1
                msg.msg_control = c.baseAddress
                msg.msg_controllen = c.count
                while true {
                    let n = sendmsg(fd, &msg, Int32(MSG_NOSIGNAL))
                    if n < 0 && errno == EINTR { continue }
                    return n
                }
            }
        }
    }

    /// Sends `prefix` (staged requests) and `request`, then blocks until its reply.
    func roundTrip(_ prefix: [UInt8], _ request: Request, hooks: CommitHooks? = nil,
                   descriptor: Int32? = nil) throws(LaminaError) -> Event {
        BlockingCheck.willBlock(request)
        let box = SyncBox()
        post(prefix, request, waiter: .sync(box), hooks: hooks, descriptor: descriptor)
        box.semaphore.wait()
        return try box.result!.get()
    }

    /// Sends `prefix` and `request`, then suspends until its reply.
    func roundTrip(_ prefix: [UInt8], _ request: Request, hooks: CommitHooks? = nil) async throws(LaminaError) -> Event {
        let r = await withCheckedContinuation { (c: CheckedContinuation<Result<Event, LaminaError>, Never>) in
            post(prefix, request, waiter: .async(c), hooks: hooks)
        }
        return try r.get()
    }

    /// Sends `requests` in one write and suspends until every reply came (in their order).
    func roundTrips(_ requests: [Request]) async -> [Result<Event, LaminaError>] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { (c: CheckedContinuation<[Result<Event, LaminaError>], Never>) in
            let collector = Collector(count: requests.count, done: c)
            var bytes: [UInt8] = []
            var ids: [UInt32] = []
            for r in requests {
                let id = takeRequestID()
                ids.append(id)
                bytes += MessageEncoder.encode(r, requestID: id)
            }
            let refusal: LaminaError? = state.withLock { s in
                if let r = s.refusal { return r }
                for (i, id) in ids.enumerated() { s.waiters[id] = (.part(collector, i), nil) }
                return nil
            }
            if let refusal { for i in ids.indices { collector.set(i, .failure(refusal)) }; return }
            do { try write(bytes) } catch {
                let ws = state.withLock { s in ids.compactMap { s.waiters.removeValue(forKey: $0)?.0 } }
                for w in ws { w.resume(.failure(.disconnected)) }
            }
        }
    }

    /// Registers the waiter, then writes; a failed write (or a closed link) resumes it.
    private func post(_ prefix: [UInt8], _ request: Request, waiter: Waiter, hooks: CommitHooks?, descriptor: Int32? = nil) {
        let id = takeRequestID()
        let refusal: LaminaError? = state.withLock { s in
            if let r = s.refusal { return r }
            s.waiters[id] = (waiter, hooks)
            return nil
        }
        if let refusal { waiter.resume(.failure(refusal)); return }
        let message = MessageEncoder.encode(request, requestID: id)
        do {
            if let descriptor {   // the descriptor goes with its own message's first byte
                if !prefix.isEmpty { try write(prefix) }
                try write(message, descriptor: descriptor)
            } else {
                try write(prefix + message)
            }
        } catch {
            let w = state.withLock { $0.waiters.removeValue(forKey: id) }
            w?.0.resume(.failure(error))
        }
    }

    // MARK: Subscriptions

    func subscribe() -> AsyncStream<ConnectionEvent> {
        let (stream, c) = AsyncStream.makeStream(of: ConnectionEvent.self)
        let token: UInt64? = state.withLock { s in
            guard !s.isClosed else { return nil }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = c
            return s.nextSubscriber
        }
        guard let token else { c.yield(.disconnected); c.finish(); return stream }
        c.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: token) } }
        return stream
    }

    /// Suspends until every callback for events read so far has run.
    func drain() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            if case .terminated = jobs.yield({ c.resume() }) { c.resume() }
        }
    }

    // MARK: The reader thread

    private func readLoop(decoder start: FrameDecoder) {
        var decoder = start
        var fd = socket.load(ordering: .relaxed)
        while true {
            read(fd, &decoder)
            guard let (newFD, newDecoder) = reconnect() else { break }
            fd = newFD
            decoder = newDecoder
        }
        finish()
    }

    /// Reads and handles messages until the socket ends.
    private func read(_ fd: Int32, _ decoder: inout FrameDecoder) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            while let result = decoder.nextEvent() { handle(result) }
            if decoder.isBroken { return }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            decoder.feed(buffer[0..<n])
        }
    }

    private func finish() {
        let (waiters, subscribers, general) = state.withLock { s in
            s.isClosed = true
            s.isReconnecting = false
            let w = s.waiters.values.map(\.0)
            s.waiters = [:]
            let subs = Array(s.subscribers.values)
            s.subscribers = [:]
            return (w, subs, s.onConnectionChange)
        }
        for w in waiters { w.resume(.failure(.disconnected)) }
        if let general { jobs.yield { await general(.disconnected) } }
        for c in subscribers { c.yield(.disconnected); c.finish() }
        jobs.finish()
        ended.leave()
    }

    /// Delivers a connection event (`connectionLost`, `reconnected`) to `onConnectionChange`
    /// and every stream.
    private func announce(_ event: ConnectionEvent) {
        let (general, subscribers) = state.withLock { s in (s.onConnectionChange, Array(s.subscribers.values)) }
        if let general { jobs.yield { await general(event) } }
        for c in subscribers { c.yield(event) }
    }

    // MARK: Reconnecting

    /// After the socket ended: when reconnection is on and `close()` was not called, fails
    /// what is waited for, announces `connectionLost`, and tries the socket again with the
    /// policy's backoff until a daemon welcomes the client and accepts the replay (the new
    /// socket and what its decoder holds), or the policy gives up (nil).
    private func reconnect() -> (Int32, FrameDecoder)? {
        let lost: [Waiter]? = state.withLock { s in
            guard s.journal != nil, !s.closeRequested else { return nil }
            s.isReconnecting = true
            let w = s.waiters.values.map(\.0)
            s.waiters = [:]
            return w
        }
        guard let lost else { return nil }
        for w in lost { w.resume(.failure(.disconnected)) }
        announce(.connectionLost)
        let start = DispatchTime.now().uptimeNanoseconds
        var delay = policy.initialDelay
        while true {
            if wake.wait(timeout: .now() + delay) == .success { return nil }   // close()
            if state.withLock({ $0.closeRequested }) { return nil }
            switch attemptReplay() {
            case .success(let connection): return connection
            case .failure(.rejected(let error)):
                // The new daemon refused the model (a lower limit, say): the connection ends.
                state.withLock { $0.pendingErrors.append(error) }
                for c in state.withLock({ Array($0.subscribers.values) }) { c.yield(.requestFailed(error)) }
                return nil
            case .failure(.unreachable): break
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            if let limit = policy.giveUpAfter, elapsed >= limit { return nil }
            delay = policy.nextDelay(after: delay)
        }
    }

    enum ReplayFailure: Error {
        /// No daemon answered (or it closed the socket): try again later.
        case unreachable
        /// A daemon answered the replay with an error.
        case rejected(RequestError)
    }

    /// Connects, says hello, and replays the journal in one transaction (images uploaded
    /// first, released ones released after it), reading the replies on this thread.
    private func attemptReplay() -> Result<(Int32, FrameDecoder), ReplayFailure> {
        let fd: Int32
        let welcome: Event
        var decoder: FrameDecoder
        do {
            fd = try Handshake.connect(path: socketPath)
        } catch {
            return .failure(.unreachable)
        }
        // Until it is in use or given up, `close()` shuts it down (a daemon that accepts and
        // never answers must not hold the reader).
        let watched = dup(fd)
        let closing: Bool = state.withLock { s in
            if s.closeRequested { return true }
            if watched >= 0 { s.candidate = watched }
            return false
        }
        defer {
            state.withLock { s in
                s.candidate = nil
                if watched >= 0 { Glibc.close(watched) }
            }
        }
        if closing { Glibc.close(fd); return .failure(.unreachable) }
        do {
            (welcome, decoder) = try Handshake.hello(fd: fd, name: clientName)
        } catch {
            return .failure(.unreachable)
        }
        guard case .welcome(_, _, let id, let display, let clock, let time, let reduceMotion) = welcome else {
            Glibc.close(fd)
            return .failure(.unreachable)
        }
        let session = Session(clientID: id, isManualClock: clock == .manual, welcomeTime: time)
        // The replay is made at the journal's now (its timeline goes on where it was).
        let (uploads, staged, releases, suppliers) = state.withLock { s in
            s.clock.rebase(manual: session.isManualClock, daemonTime: session.welcomeTime)
            // Frame callbacks and presentation feedback still waiting come from the new
            // daemon's first frame (the old one's frames are gone).
            let waiting = s.frameCallbacks.keys.sorted().map { Request.frameCallback(id: $0) }
                + s.presentationCallbacks.keys.sorted().map { Request.presentationFeedback(id: $0) }
            let replay = s.journal!.replay(now: s.clock.now, pending: Set(s.completions.keys), waiting: waiting)
            s.replayedStarts = [:]
            for k in s.journal!.animationKeys { s.replayedStarts[AnimationKey(layer: k.layer, key: k.key), default: 0] += 1 }
            return (replay.uploads, replay.staged, replay.releases, Array(s.tileSuppliers.values))
        }
        // Client-drawn images start afresh: the new daemon asks for their tiles again (and has
        // none of their pools), before any of its `tileWanted` is read.
        for supplier in suppliers { supplier.reconnected() }
        // Messages with a descriptor (a pool's memfd, a PNG file's) go in a `sendmsg` of their own.
        var parts: [(bytes: [UInt8], descriptor: KeptDescriptor?)] = [([], nil)]
        var asked: [UInt32] = []
        func append(_ r: Request, answered: Bool, descriptor: KeptDescriptor? = nil) {
            let id = takeRequestID()
            if answered { asked.append(id) }
            if let descriptor { parts.append(([], descriptor)) }
            MessageEncoder.append(r, requestID: id, to: &parts[parts.count - 1].bytes)
            if descriptor != nil { parts.append(([], nil)) }
        }
        for (r, descriptor) in uploads { append(r, answered: true, descriptor: descriptor) }
        for r in staged { append(r, answered: false) }
        append(.commit, answered: true)
        for r in releases { append(r, answered: true) }
        for part in parts where !part.bytes.isEmpty {
            var offset = 0
            if let d = part.descriptor {
                offset = part.bytes.withUnsafeBytes { Self.sendWithDescriptor(fd, $0.baseAddress!, count: $0.count, descriptor: d.fd) }
                guard offset > 0 else { Glibc.close(fd); return .failure(.unreachable) }
            }
            while offset < part.bytes.count {
                let n = part.bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, part.bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { Glibc.close(fd); return .failure(.unreachable) }
                offset += n
            }
        }
        // Read until every reply came; events between them are handled as usual.
        var waiting = Set(asked)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !waiting.isEmpty {
            if let result = decoder.nextEvent() {
                switch result {
                case .message(let event, let rid) where waiting.contains(rid):
                    waiting.remove(rid)
                    if case .error(let opcode, let code, let message, let detail) = event {
                        Glibc.close(fd)
                        return .failure(.rejected(RequestError(requestID: rid, opcode: opcode, code: code,
                                                               message: message, failed: detail)))
                    }
                default: handle(result)
                }
                continue
            }
            if decoder.isBroken { Glibc.close(fd); return .failure(.unreachable) }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { Glibc.close(fd); return .failure(.unreachable) }
            decoder.feed(buffer[0..<n])
        }
        // In use from here: requests go to the new daemon.
        let old = socket.load(ordering: .relaxed)
        let closed: Bool = state.withLock { s in
            guard !s.closeRequested else { return true }
            writeLock.withLock { _ in socket.store(fd, ordering: .relaxed) }
            generation.wrappingAdd(1, ordering: .relaxed)
            s.session = session
            s.display = display
            s.reduceMotion = reduceMotion
            s.isReconnecting = false
            return false
        }
        if closed { Glibc.close(fd); return .failure(.unreachable) }
        Glibc.close(old)
        // The old daemon's releases will never come: the kept buffers are free again, but
        // those attached again, busy until the new daemon releases them.
        let (marks, attached) = state.withLock { s in
            (s.bufferReleases, Set(s.journal!.layers.values.map(\.attached)).intersection(s.journal!.keptBufferIDs))
        }
        for (id, mark) in marks { mark(attached.contains(id)) }
        announce(.reconnected(clientID: id))
        return .success((fd, decoder))
    }

    private func handle(_ result: DecodeResult<Event>) {
        switch result {
        case .failure(let error, _, let requestID):
            // An event this version does not know is skipped; a reply that cannot be read
            // fails its request.
            guard requestID != 0, case .unknownOpcode = error else {
                if requestID != 0, let w = state.withLock({ $0.waiters.removeValue(forKey: requestID) }) {
                    w.0.resume(.failure(.protocolViolation(error.description)))
                }
                return
            }
        case .message(let event, let requestID):
            if requestID != 0, let (waiter, hooks) = state.withLock({ $0.waiters.removeValue(forKey: requestID) }) {
                reply(event, requestID, waiter, hooks)
            } else {
                dispatch(event, requestID)
            }
        }
    }

    private func reply(_ event: Event, _ requestID: UInt32, _ waiter: Waiter, _ hooks: CommitHooks?) {
        switch event {
        case .error(let opcode, let code, let message, let detail):
            waiter.resume(.failure(.requestFailed(request: Request.name(ofOpcode: opcode), code: code,
                                                  message: message, failed: detail)))
        case .committed, .imageUploaded, .imageReleased:
            if let hooks, !hooks.isEmpty {
                // In force before any later event is read: this commit's events come after.
                state.withLock { s in
                    s.completions.merge(hooks.completions) { _, new in new }
                    for d in hooks.delegates { s.delegates[AnimationKey(layer: d.layer, key: d.key), default: []].append(d.delegate) }
                    switch hooks.journal {
                    case .commit(let requests, let time)?: s.journal?.apply(requests, time: time)
                    case .upload(let image)?: s.journal?.uploaded(image)
                    case .release(let name)?: s.journal?.released(name)
                    case nil: break
                    }
                }
            }
            waiter.resume(.success(event))
        case .clockAdvanced(let time):
            state.withLock { $0.clock.clockAdvanced(to: time) }
            waiter.resume(.success(event))
        case .reduceMotionChanged(let on):
            let handler = state.withLock { s in s.reduceMotion = on; return s.onReduceMotionChange }
            waiter.resume(.success(event))
            if let handler { jobs.yield { await handler(on) } }
        default:
            waiter.resume(.success(event))
        }
    }

    private func dispatch(_ event: Event, _ requestID: UInt32) {
        let out: ConnectionEvent
        var job: (@Sendable () async -> Void)? = nil
        switch event {
        case .error(let opcode, let code, let message, let detail):
            let e = RequestError(requestID: requestID, opcode: opcode, code: code, message: message, failed: detail)
            state.withLock { $0.pendingErrors.append(e) }
            out = .requestFailed(e)
        case .transactionCompleted(let id):
            if let block = state.withLock({ $0.completions.removeValue(forKey: id) }) { job = { await block() } }
            out = .transactionCompleted(id: id)
        case .animationStarted(let layer, let key):
            let (replayed, d): (Bool, (any AnimationDelegate)?) = state.withLock { s in
                let k = AnimationKey(layer: layer, key: key)
                // A replayed animation had started before the daemon went away: not again.
                if let n = s.replayedStarts[k] {
                    s.replayedStarts[k] = n > 1 ? n - 1 : nil
                    return (true, nil)
                }
                return (false, s.delegates[k]?.first)
            }
            if replayed { return }
            if let d { job = { await d.animationDidStart(layer: layer, key: key) } }
            out = .animationStarted(layer: layer, key: key)
        case .animationStopped(let layer, let key, let finished):
            let d: (any AnimationDelegate)? = state.withLock { s in
                let k = AnimationKey(layer: layer, key: key)
                if finished { s.journal?.animationFinished(layer: layer, key: key) }
                guard var list = s.delegates[k], !list.isEmpty else { return nil }
                let first = list.removeFirst()
                s.delegates[k] = list.isEmpty ? nil : list
                return first
            }
            if let d { job = { await d.animationDidStop(layer: layer, key: key, finished: finished) } }
            out = .animationStopped(layer: layer, key: key, finished: finished)
        case .displayChanged(let info):
            if let h = state.withLock({ s in s.display = info; return s.onDisplayChange }) { job = { await h(info) } }
            out = .displayChanged(info)
        case .reduceMotionChanged(let on):
            if let h = state.withLock({ s in s.reduceMotion = on; return s.onReduceMotionChange }) { job = { await h(on) } }
            out = .reduceMotionChanged(on)
        case .input(let e):
            for job in state.withLock({ $0.input.jobs(for: e) }) { jobs.yield(job) }
            return
        case .bufferReleased(let id):
            state.withLock { $0.bufferReleases[id] }?(false)
            return
        case .frameDone(let id, let time, let target):
            if let h = state.withLock({ $0.frameCallbacks.removeValue(forKey: id) }) { jobs.yield { await h(time, target) } }
            return
        case .tileWanted(let t):
            if let supplier = state.withLock({ $0.tileSuppliers[t.name] }) {
                supplier.wanted(t)
                jobs.yield { supplier.draw(t) }
            }
            return
        case .tileCancelled(let t):
            if let supplier = state.withLock({ $0.tileSuppliers[t.name] }), supplier.cancelled(t),
               let notice = supplier.onCancelled {
                jobs.yield { await notice(t) }
            }
            return
        case .presented(let id, let discarded, let time, let refresh, let frame):
            let feedback = PresentationFeedback(time: time, refreshInterval: refresh, frame: frame, discarded: discarded)
            if let h = state.withLock({ $0.presentationCallbacks.removeValue(forKey: id) }) { jobs.yield { await h(feedback) } }
            return
        default:
            return   // a reply to a request no one waits for any more
        }
        let (general, subscribers) = state.withLock { s in (s.onAnimationEvent, Array(s.subscribers.values)) }
        if let job { jobs.yield(job) }
        if let general {
            switch out {
            case .animationStarted, .animationStopped: jobs.yield { await general(out) }
            default: break
            }
        }
        for c in subscribers { c.yield(out) }
    }
}

/// The delivery task's executor: a serial dispatch queue of its own. Nonisolated callbacks
/// run here; actor-isolated ones hop to their actor (a default actor runs them here too).
final class DeliveryExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "lamina-client-delivery")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
