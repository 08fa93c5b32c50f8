import Foundation
import LaminaFrame
import LaminaAnimation
import LaminaGeometry
import LaminaPNG
import LaminaRender
import LaminaWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's wiring: the socket server thread (sessions and the model tree) and the
/// render thread. `start()` returns once both run; `stop()` shuts them down and removes the
/// socket. Any thread may call `start`, `stop` and `waitUntilStopped`.
public final class Daemon: Sendable {
    public let config: DaemonConfig
    public let socketPath: String
    /// The listening socket systemd passed (`SocketActivation.take()`), served instead of
    /// binding `config.socket`; nil when the daemon binds its own.
    public let activated: SocketActivation.Listener?
    public let clock: CompositorClock
    public let renderLoop: RenderLoop

    /// Replies produced off the server thread (captures), delivered by the server thread.
    fileprivate struct Mailbox {
        /// Finished captures and builds: the core's tag and the reply, or why it failed.
        var captured: [(tag: UInt64, result: Result<Event, CaptureFailure>)] = []
        var stop = false
        /// The viewer's input and Reduce Motion setting (ServerCore.input, setReduceMotion).
        var inputs: [ViewerInput] = []
        var reduceMotion: Bool?
        /// The window's new display (ServerCore.displayChanged).
        var display: DisplayInfo?
    }
    private let mailbox = Mutex(Mailbox())      // protected by its own lock
    private let wakePipe: (read: Int32, write: Int32)
    private let listenFD = Mutex<Int32>(-1)      // set once in start
    private let serverThread = Mutex<JoinableThread?>(nil)   // set once by start, taken by the first waiter
    private let stopped = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - window: present the frames to this window too (`lamina-viewer`).
    ///   - activated: serve this already-listening socket (socket activation) instead of
    ///     binding `config.socket`; its path is `socketPath`, and the daemon never unlinks it
    ///     (systemd owns it).
    public init(config: DaemonConfig, window: WindowSurface? = nil, activated: SocketActivation.Listener? = nil) {
        self.config = config
        self.activated = activated
        socketPath = activated?.path ?? config.socket ?? SocketPath.default
        clock = CompositorClock(mode: config.clock == "manual" ? .manual : .realtime)
        var rc = RenderConfig()
        rc.widthPoints = Double(config.width); rc.heightPoints = Double(config.height)
        rc.scale = config.scale; rc.fps = config.fps; rc.background = config.background
        rc.window = window
        rc.programStepsPerFrame = config.maxProgramStepsPerFrame
        rc.tileCacheBytes = config.tileCacheBytes
        rc.surfaceZeroCopy = config.surfaceZeroCopy
        rc.surfaceInPlace = config.surfaceInPlace
        rc.automaticRasterCache = config.automaticRasterCache
        rc.effectRasterCache = config.effectRasterCache
        renderLoop = RenderLoop(config: rc, clock: clock)
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC); UnixSocket.setNonBlocking(fd) }
        wakePipe = (fds[0], fds[1])
    }

    deinit {
        close(wakePipe.read); close(wakePipe.write)
    }

    /// Opens the socket and the Vulkan device and starts both threads.
    /// - Throws: a `SocketError` (live daemon on the path, …) or a `RenderError` (no device).
    public func start() throws {
        // A client that closes before reading its reply must not kill the daemon: writes use
        // MSG_NOSIGNAL, and SIGPIPE is ignored for any other write (a failed write closes
        // only that client).
        signal(SIGPIPE, SIG_IGN)
        let fd = try activated?.fd ?? UnixSocket.listen(path: socketPath)
        let ownsPath = activated == nil   // systemd's socket file stays (it owns it)
        do {
            try renderLoop.start()
        } catch {
            close(fd)
            if ownsPath { unlink(socketPath) }
            throw error
        }
        listenFD.withLock { $0 = fd }
        // The render thread wakes the server when its outbox has something (events, captures)
        // or a frame someone asked for is published.
        renderLoop.setWaker { [weak self] in self?.wake() }
        let thread = JoinableThread(name: "lamina-server") { [self] in
            var server = ServerLoop(daemon: self, listenFD: fd)
            server.run()
            close(fd)
            if ownsPath { unlink(socketPath) }
            renderLoop.stop()
            stopped.signal()
        }
        serverThread.withLock { $0 = thread }
    }

    /// Asks both threads to stop; returns at once. Safe from a signal-handling thread.
    public func requestStop() {
        mailbox.withLock { $0.stop = true }
        wake()
    }

    /// Stops the daemon and waits until the socket is removed and the GPU released.
    public func stop() {
        requestStop()
        waitUntilStopped()
    }

    /// Waits until the server and render threads have exited and the socket is removed.
    public func waitUntilStopped() {
        stopped.wait()
        serverThread.withLock { t in
            t?.join()
            t = nil
        }
        stopped.signal()   // let other waiters through
    }

    fileprivate func wake() {
        var b: UInt8 = 1
        _ = write(wakePipe.write, &b, 1)
    }

    /// Why a capture failed (the core answers it `captureFailed` with this message).
    fileprivate struct CaptureFailure: Error { var message: String }

    /// Hands a finished capture or build to the server thread. Any thread may call it.
    fileprivate func post(capture tag: UInt64, _ result: Result<Event, CaptureFailure>) {
        mailbox.withLock { $0.captured.append((tag, result)) }
        wake()
    }

    /// Routes input from the viewer's window to the client it is for (the server thread
    /// hit-tests it against the newest snapshot: `ServerCore.input`). Any thread may call it.
    public func inject(_ input: ViewerInput) {
        mailbox.withLock { $0.inputs.append(input) }
        wake()
    }

    /// Sets Reduce Motion; every client is told when it changes. Any thread may call it.
    public func setReduceMotion(_ on: Bool) {
        mailbox.withLock { $0.reduceMotion = on }
        wake()
    }

    /// The viewer's window has this drawable now: clients draw on its size in points and its
    /// scale (the render thread's formula, `Drawable.screen`; points rounded to whole ones), at
    /// the configured rate. Every client is told when that changes (`displayChanged`), and later
    /// clients are welcomed with it. A minimized window (0 × 0) changes nothing. Any thread.
    public func windowChanged(_ drawable: WindowSurface.Drawable) {
        guard !drawable.isEmpty else { return }
        let screen = drawable.screen(configScale: config.scale)
        let info = DisplayInfo(width: UInt32(max(1, screen.width.rounded())), height: UInt32(max(1, screen.height.rounded())),
                               scale: screen.scale, refreshRate: config.fps)
        mailbox.withLock { $0.display = info }
        wake()
    }

    fileprivate func takeMail() -> Mailbox {
        mailbox.withLock { m in
            let taken = m
            m.captured = []; m.inputs = []; m.reduceMotion = nil; m.display = nil
            return taken
        }
    }

    fileprivate var wakeReadFD: Int32 { wakePipe.read }
}

/// One connected client's socket (server thread only).
private struct Connection {
    var fd: Int32
    /// The client's process ("NAME pid N", `UnixSocket.peerProcess`), for the inspector's labels.
    var process: String? = nil
    var output = OutputQueue()
    var closing = false
}

/// A client's bytes waiting to be written, as the messages came: a large reply is queued by
/// reference, never copied into (or grown with) one buffer of everything that waits; small
/// messages share a chunk of up to 64 KiB. What was written goes as the client reads.
private struct OutputQueue {
    private var chunks: [[UInt8]] = []
    private var head = 0
    /// Bytes of `chunks[head]` already written.
    private var offset = 0
    /// Bytes waiting.
    private(set) var count = 0

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if head < chunks.count, chunks[chunks.count - 1].count + bytes.count <= 1 << 16 {
            chunks[chunks.count - 1] += bytes
        } else {
            chunks.append(bytes)
        }
        count += bytes.count
    }

    /// Writes until the socket would block; false on a write error (the peer is gone).
    mutating func write(to fd: Int32) -> Bool {
        defer {
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: chunks.capacity <= 64)
                head = 0
            } else if head >= 64 && head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
        }
        while head < chunks.count {
            let n = UnixSocket.send(fd, chunks[head][offset...])
            if n > 0 {
                offset += n
                count -= n
                if offset == chunks[head].count { chunks[head] = []; head += 1; offset = 0 }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return true }
            return false
        }
        return true
    }
}

/// The server thread's loop: sockets around the `ServerCore` (server thread only).
private struct ServerLoop {
    let daemon: Daemon
    let listenFD: Int32
    var connections: [UInt32: Connection] = [:]
    var core: ServerCore
    /// A client that does not read is cut off when more than this much output waits for it
    /// (config `maxQueuedOutput`, 64 MiB by default).
    let maxOutput: Int
    /// One read's bytes.
    let readChunk = 64 * 1024

    init(daemon: Daemon, listenFD: Int32) {
        self.daemon = daemon
        self.listenFD = listenFD
        maxOutput = daemon.config.maxQueuedOutput
        let renderLoop = daemon.renderLoop
        core = ServerCore(config: daemon.config, clock: daemon.clock, stats: { renderLoop.stats },
                          trace: TraceControl(start: { renderLoop.startTrace(frameCapacity: $0) },
                                              stop: { renderLoop.stopTrace() },
                                              isRecording: { renderLoop.isTracing }))
    }

    mutating func run() {
        var readBuffer = [UInt8](repeating: 0, count: readChunk)
        var inputs: [ViewerInput] = []
        while true {
            var fds = [pollfd(fd: daemon.wakeReadFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            let ids = Array(connections.keys)
            var backlog = false
            for id in ids {
                let c = connections[id]!
                // A client whose requests wait unhandled (its turns' budget ran out) is read
                // again once they are down to one read's worth: it is served in turns, the
                // others between them, and what waits for it stays bounded. Bytes of a message
                // not yet whole are always read on (the decoder bounds them by
                // maxMessageSize): nothing else would ever complete it.
                let waiting = core.hasPendingInput(id)
                var events = waiting && core.pendingInputBytes(id) >= readChunk ? 0 : Int16(POLLIN)
                if waiting { backlog = true }
                if c.output.count > 0 { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: c.fd, events: events, revents: 0))
            }
            // An idle model shares the render side's nodes (ServerCore+Sharing): the poll wakes
            // when that is due, and the model's own storage, let go, goes back to the system.
            let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            if core.shareIdleNodes(at: now, with: daemon.renderLoop.snapshot) { HeapTrim.trim() }
            // Tile requests unanswered too long are cancelled and others asked for; under the
            // realtime clock the poll wakes when the next one is due (the manual clock moves
            // only by a request, which wakes the poll).
            perform(core.expireTileRequests())
            var due = core.nodeSharingDue.map { $0 - now }
            if daemon.clock.mode == .realtime, let tiles = core.tileAnswersDue {
                due = min(due ?? .infinity, tiles - daemon.clock.now)
            }
            let timeout = backlog ? 0 : due.map { Int32(min(max($0 * 1000, 0).rounded(.up), 60_000)) } ?? -1
            let n = poll(&fds, nfds_t(fds.count), timeout)
            if n < 0 && errno != EINTR { break }
            if fds[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 256)
                while read(daemon.wakeReadFD, &sink, sink.count) > 0 {}
                let mail = daemon.takeMail()
                if mail.stop { break }
                for c in mail.captured {
                    switch c.result {
                    case .success(let event): perform(core.captureFinished(tag: c.tag, event))
                    case .failure(let failure): perform(core.captureFailed(tag: c.tag, failure.message))
                    }
                }
                if let on = mail.reduceMotion { perform(core.setReduceMotion(on)) }
                if let display = mail.display { perform(core.displayChanged(display)) }
                inputs = mail.inputs   // routed below, against the newest snapshot
            }
            // The newest snapshot, then the outbox: the render thread fills the outbox with a
            // frame's events before it publishes the frame's snapshot, so every event up to
            // that frame goes out before a query answered from it.
            let snapshot = daemon.renderLoop.snapshot
            drainRenderOutbox()
            if let snapshot, snapshot !== core.snapshot { perform(core.snapshotPublished(snapshot)) }
            for input in inputs { perform(core.input(input)) }
            inputs = []
            for (i, id) in ids.enumerated() {
                let revents = fds[i + 2].revents
                guard connections[id] != nil else { continue }
                if revents & Int16(POLLOUT) != 0 { flush(id) }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    readFrom(id, &readBuffer)
                } else if core.hasPendingInput(id) {
                    perform(core.resume(id, outputRoom: outputRoom(id), budget: .daemon))
                }
            }
            for id in Array(connections.keys) where connections[id]!.closing && connections[id]!.output.count == 0 {
                disconnect(id)
            }
            // Accepted after the hang-ups this poll saw: a client that closed and connected
            // again is not counted twice towards maxClients.
            if fds[1].revents & Int16(POLLIN) != 0 { acceptClients() }
            daemon.renderLoop.setClientCount(core.clientCount)   // the viewer HUD's text
            if daemon.renderLoop.wantsClientNames {   // the inspector's labels: hello name and process
                var names = core.clientNames
                for (id, name) in names { names[id] = Inspector.describe(name: name, process: connections[id]?.process) }
                daemon.renderLoop.setClientNames(names)
            }
        }
        for id in Array(connections.keys) { disconnect(id) }
    }

    /// The render thread's events and capture results. Captures are encoded as PNG off the
    /// server thread, then come back through the mailbox.
    mutating func drainRenderOutbox() {
        let out = daemon.renderLoop.takeOutbox()
        perform(core.deliver(out.events))
        if let reads = out.surfaceReadsCompleted { perform(core.surfaceReadsCompleted(through: reads)) }
        if out.tileWishes { perform(core.tileWishesChanged()) }
        let daemon = self.daemon
        for c in out.captures {
            let tag = c.tag
            let result = c.result
            DispatchQueue.global().async {
                switch result {
                case .success(let frame):
                    do {
                        let png = try PNG.encode(RGBAImage(width: frame.width, height: frame.height, pixels: frame.rgba))
                        daemon.post(capture: tag, .success(.captured(time: frame.time, width: UInt32(frame.width),
                                                                     height: UInt32(frame.height), png: png)))
                    } catch {
                        daemon.post(capture: tag, .failure(Daemon.CaptureFailure(message: "\(error)")))
                    }
                case .failure(let error):
                    daemon.post(capture: tag, .failure(Daemon.CaptureFailure(message: error.description)))
                }
            }
        }
    }

    mutating func acceptClients() {
        while true {
            guard let fd = UnixSocket.accept(listenFD) else { return }
            guard let uid = UnixSocket.peerUID(fd), uid == geteuid() else {
                close(fd)   // another user's process: refused before any byte is read
                continue
            }
            // At the limit, first take in the hang-ups that came after this poll began: a
            // client that closed and connected again (the accept loop takes connections made
            // since the poll) is not counted twice towards maxClients.
            if core.clientCount >= daemon.config.maxClients { readHangUps() }
            switch core.connect() {
            case .refused(let bytes):
                _ = UnixSocket.send(fd, bytes[...])
                close(fd)
            case .accepted(let id, let effects):
                connections[id] = Connection(fd: fd, process: UnixSocket.peerProcess(fd))
                perform(effects)
            }
        }
    }

    /// Reads every connection that has hung up or has bytes waiting now (a poll that does not
    /// wait), so that its end is seen before a new client is refused for lack of room.
    mutating func readHangUps() {
        let ids = Array(connections.keys)
        var fds = ids.map { pollfd(fd: connections[$0]!.fd, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), 0) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        for (i, id) in ids.enumerated() where fds[i].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readFrom(id, &buffer)
            // A peer that hung up sent a bounded amount: read on to its end.
            guard fds[i].revents & Int16(POLLHUP | POLLERR) != 0 else { continue }
            for _ in 0..<1024 where connections[id] != nil { readFrom(id, &buffer) }
        }
    }

    mutating func readFrom(_ id: UInt32, _ buffer: inout [UInt8]) {
        guard let conn = connections[id] else { return }
        var fds: [Int32] = []
        let n = buffer.withUnsafeMutableBytes { UnixSocket.receive(conn.fd, into: $0, fds: &fds) }
        if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
            fds.forEach { close($0) }
            disconnect(id)
            return
        }
        guard n > 0 else { fds.forEach { close($0) }; return }
        perform(core.receive(buffer[0..<n], descriptors: fds, from: id, outputRoom: outputRoom(id), budget: .daemon))
    }

    /// How many more bytes may wait for the client before it is cut off.
    func outputRoom(_ id: UInt32) -> Int {
        guard let c = connections[id] else { return 0 }
        return maxOutput - c.output.count
    }

    mutating func perform(_ effects: [ServerEffect]) {
        for effect in effects {
            switch effect {
            case .write(let client, let bytes): send(bytes, to: client)
            case .close(let client): connections[client]?.closing = true
            case .submit(let packet): daemon.renderLoop.submit(packet)
            case .cutOff(let client): disconnect(client)
            case .build(_, let tag, let make):
                // One at a time per client (its later requests wait for it): a flooder keeps at
                // most one build in flight.
                let daemon = self.daemon
                DispatchQueue.global().async { daemon.post(capture: tag, .success(make())) }
            case .capture(_, _, let time, let tag):
                daemon.renderLoop.capture(at: time, tag: tag)
            case .requestFrame: daemon.renderLoop.requestFrame()
            case .setImage(let name, let image): daemon.renderLoop.setImage(name, image)
            case .setTileSource(let name, let source): daemon.renderLoop.setTileSource(name, source)
            case .provideTile(let source, let key, let image, let serial):
                daemon.renderLoop.provideTile(source, key, image, serial: serial)
            case .reduceMotion(let on, let time): daemon.renderLoop.setEmitterBirthsEnd(on ? time : nil)
            }
        }
    }

    /// Queues bytes for a client and writes what the socket takes now. The queue holds at
    /// most `maxOutput` unread bytes: one more and the client is disconnected (it does not read
    /// its replies; it must not grow the daemon without bound, nor stall it or anyone else).
    mutating func send(_ bytes: [UInt8], to client: UInt32) {
        guard var conn = connections[client] else { return }
        connections[client] = nil   // no copy of the queue while it is changed
        if conn.output.count + bytes.count > maxOutput {
            connections[client] = conn
            disconnect(client)
            return
        }
        conn.output.append(bytes)
        connections[client] = conn
        flush(client)
    }

    /// Writes queued bytes until the socket would block. A write error (the peer is gone:
    /// EPIPE, ECONNRESET) closes this client only.
    mutating func flush(_ id: UInt32) {
        guard var conn = connections[id] else { return }
        connections[id] = nil
        let ok = conn.output.write(to: conn.fd)
        connections[id] = conn
        if !ok { disconnect(id) }
    }

    mutating func disconnect(_ id: UInt32) {
        guard var conn = connections.removeValue(forKey: id) else { return }
        close(conn.fd)
        // What waited for it (up to maxQueuedOutput) is freed off the server thread: handing
        // tens of MiB back to the system takes milliseconds.
        if conn.output.count > 1 << 20 {
            let dropped = conn.output
            conn.output = OutputQueue()
            DispatchQueue.global().async { withExtendedLifetime(dropped) {} }
        }
        perform(core.disconnected(id))
    }
}
