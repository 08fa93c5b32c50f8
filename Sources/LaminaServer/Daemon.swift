import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaPNG
import LaminaRender
import LaminaTree
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
    public let clock: CompositorClock
    public let renderLoop: RenderLoop

    /// Replies produced off the server thread (captures), delivered by the server thread.
    fileprivate struct Mailbox {
        var replies: [(client: UInt32, event: Event, requestID: UInt32)] = []
        var stop = false
    }
    private let mailbox = Mutex(Mailbox())      // protected by its own lock
    private let wakePipe: (read: Int32, write: Int32)
    private let listenFD = Mutex<Int32>(-1)      // set once in start
    private let serverThread = Mutex<JoinableThread?>(nil)   // set once by start, taken by the first waiter
    private let stopped = DispatchSemaphore(value: 0)

    public init(config: DaemonConfig) {
        self.config = config
        socketPath = config.socket ?? SocketPath.default
        clock = CompositorClock(mode: config.clock == "manual" ? .manual : .realtime)
        var rc = RenderConfig()
        rc.widthPoints = Double(config.width); rc.heightPoints = Double(config.height)
        rc.scale = config.scale; rc.fps = config.fps; rc.background = config.background
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
        let fd = try UnixSocket.listen(path: socketPath)
        do {
            try renderLoop.start()
        } catch {
            close(fd); unlink(socketPath)
            throw error
        }
        listenFD.withLock { $0 = fd }
        // Animation and transaction events go back to the owning client through the mailbox.
        renderLoop.setEventHandler { [weak self] events in
            guard let self else { return }
            self.mailbox.withLock { m in
                for e in events {
                    let event: Event
                    switch e {
                    case .animationStarted(let id, let key): event = .animationStarted(layer: id.local, key: key)
                    case .animationStopped(let id, let key, let finished):
                        event = .animationStopped(layer: id.local, key: key, finished: finished)
                    case .transactionCompleted(_, let id): event = .transactionCompleted(id: id)
                    }
                    m.replies.append((e.client, event, 0))
                }
            }
            self.wake()
        }
        let thread = JoinableThread(name: "lamina-server") { [self] in
            var server = ServerLoop(daemon: self, listenFD: fd)
            server.run()
            close(fd)
            unlink(socketPath)
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

    /// Queues an event for a client; the server thread sends it. Any thread may call it.
    func post(client: UInt32, event: Event, requestID: UInt32) {
        mailbox.withLock { $0.replies.append((client, event, requestID)) }
        wake()
    }

    fileprivate func takeMail() -> Mailbox {
        mailbox.withLock { m in
            let taken = m
            m.replies = []
            return taken
        }
    }

    fileprivate var wakeReadFD: Int32 { wakePipe.read }
}

/// One connected client (server thread only).
private struct Connection {
    var fd: Int32
    var session: Session
    var decoder: FrameDecoder
    var output: [UInt8] = []
    var outputOffset = 0
    var closing = false
}

/// The server thread's state and loop: sockets, sessions and the model tree (server thread only).
private struct ServerLoop {
    let daemon: Daemon
    let listenFD: Int32
    var connections: [UInt32: Connection] = [:]
    var model: ModelTree
    var nextClientID: UInt32 = 1
    var commitSequence: UInt64 = 0
    /// A client that never reads is cut off when this much output is waiting for it.
    let maxOutput = 64 << 20

    init(daemon: Daemon, listenFD: Int32) {
        self.daemon = daemon
        self.listenFD = listenFD
        // The model tree validates animations but keeps none: the render thread runs them.
        model = ModelTree(maxLayersPerClient: daemon.config.maxLayersPerClient, maxDepth: daemon.config.maxDepth)
    }

    mutating func run() {
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var fds = [pollfd(fd: daemon.wakeReadFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            let ids = Array(connections.keys)
            for id in ids {
                let c = connections[id]!
                var events = Int16(POLLIN)
                if c.outputOffset < c.output.count { events |= Int16(POLLOUT) }
                fds.append(pollfd(fd: c.fd, events: events, revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 && errno != EINTR { break }
            if fds[0].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 256)
                while read(daemon.wakeReadFD, &sink, sink.count) > 0 {}
                let mail = daemon.takeMail()
                if mail.stop { break }
                for reply in mail.replies { send(reply.event, requestID: reply.requestID, to: reply.client) }
            }
            if fds[1].revents & Int16(POLLIN) != 0 { acceptClients() }
            for (i, id) in ids.enumerated() {
                let revents = fds[i + 2].revents
                guard revents != 0, connections[id] != nil else { continue }
                if revents & Int16(POLLOUT) != 0 { flush(id) }
                if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readFrom(id, &readBuffer) }
            }
            for id in Array(connections.keys) where connections[id]!.closing && connections[id]!.outputOffset >= connections[id]!.output.count {
                disconnect(id)
            }
        }
        for id in Array(connections.keys) { disconnect(id) }
    }

    mutating func acceptClients() {
        while true {
            guard let fd = UnixSocket.accept(listenFD) else { return }
            guard let uid = UnixSocket.peerUID(fd), uid == geteuid() else {
                close(fd)   // another user's process: refused before any byte is read
                continue
            }
            let id = nextClientID
            nextClientID &+= 1
            var conn = Connection(fd: fd, session: Session(clientID: id, maxPendingOperations: daemon.config.maxPendingOperations),
                                  decoder: FrameDecoder(maxMessageSize: daemon.config.maxMessageSize))
            if connections.count >= daemon.config.maxClients {
                conn.output = MessageEncoder.encode(Event.error(opcode: 0, code: .limitExceeded,
                                                                message: "the daemon serves at most \(daemon.config.maxClients) clients"),
                                                    requestID: 0)
                _ = conn.output.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                close(fd)
                continue
            }
            connections[id] = conn
            // The client's container joins the root now, so clients stack in connection order.
            if let packet = try? model.validate(Commit(client: id, content: .connect)) { daemon.renderLoop.submit(packet) }
        }
    }

    mutating func readFrom(_ id: UInt32, _ buffer: inout [UInt8]) {
        guard var conn = connections[id] else { return }
        let n = buffer.withUnsafeMutableBytes { read(conn.fd, $0.baseAddress!, $0.count) }
        if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
            disconnect(id)
            return
        }
        guard n > 0 else { return }
        conn.decoder.feed(buffer[0..<n])
        var actions: [SessionAction] = []
        let welcome = Event.welcome(major: Protocol.versionMajor, minor: Protocol.versionMinor, clientID: id,
                                    width: UInt32(daemon.config.width), height: UInt32(daemon.config.height),
                                    scale: daemon.config.scale, clock: daemon.clock.mode == .manual ? .manual : .realtime,
                                    time: daemon.clock.now)
        while conn.session.state != .closed, let input = conn.decoder.nextRequest() {
            actions += conn.session.handle(input, welcome: welcome)
        }
        connections[id] = conn
        for action in actions { perform(action, client: id) }
    }

    mutating func perform(_ action: SessionAction, client: UInt32) {
        switch action {
        case .send(let event, let requestID):
            send(event, requestID: requestID, to: client)
        case .close:
            connections[client]?.closing = true
        case .commit(var commit, let requestID):
            commit.time = daemon.clock.now
            do {
                let packet = try model.validate(commit, at: commit.time ?? 0)
                commitSequence += 1
                daemon.renderLoop.submit(packet)
                send(.committed(sequence: commitSequence), requestID: requestID, to: client)
            } catch {
                let failing = error.index < commit.requestIDs.count ? commit.requestIDs[error.index] : requestID
                send(.error(opcode: Request.commit.opcode, code: ErrorCode(rawValue: error.code.rawValue) ?? .internalError,
                            message: "commit rejected, nothing applied: request \(failing): \(error.message)"),
                     requestID: requestID, to: client)
            }
        case .capture(let time, let requestID):
            if time != nil && daemon.clock.mode != .manual {
                send(.error(opcode: Request.capture(time: nil).opcode, code: .clockNotManual,
                            message: "capture at a given time needs the manual clock (--clock manual)"),
                     requestID: requestID, to: client)
                return
            }
            let daemon = self.daemon
            daemon.renderLoop.capture(at: time) { result in
                // Encode off the render thread, then hand the reply to the server thread.
                DispatchQueue.global().async {
                    switch result {
                    case .success(let frame):
                        do {
                            let png = try PNG.encode(RGBAImage(width: frame.width, height: frame.height, pixels: frame.rgba))
                            daemon.post(client: client, event: .captured(time: frame.time, width: UInt32(frame.width),
                                                                         height: UInt32(frame.height), png: png),
                                        requestID: requestID)
                        } catch {
                            daemon.post(client: client, event: .error(opcode: 0x30, code: .captureFailed, message: "\(error)"),
                                        requestID: requestID)
                        }
                    case .failure(let error):
                        daemon.post(client: client, event: .error(opcode: 0x30, code: .captureFailed, message: error.description),
                                    requestID: requestID)
                    }
                }
            }
        case .advanceClock(let seconds, let requestID):
            guard daemon.clock.mode == .manual else {
                send(.error(opcode: Request.advanceClock(seconds: 0).opcode, code: .clockNotManual,
                            message: "the clock is realtime; start laminad with --clock manual to advance it"),
                     requestID: requestID, to: client)
                return
            }
            let now = daemon.clock.advance(by: seconds)
            daemon.renderLoop.clockDidAdvance()
            send(.clockAdvanced(time: now), requestID: requestID, to: client)
        case .presentation(let layer, let keyPath, let requestID):
            let daemon = self.daemon
            daemon.renderLoop.queryPresentation { presentation, _ in
                let id = LayerID(client: client, local: layer)
                if presentation[id] == nil {
                    daemon.post(client: client, event: .error(opcode: 0x34, code: .unknownLayer,
                                                              message: "layer \(layer) does not exist"), requestID: requestID)
                } else if let v = presentation[id]?.properties.value(forKeyPath: keyPath) {
                    daemon.post(client: client, event: .presentation(value: v), requestID: requestID)
                } else {
                    daemon.post(client: client, event: .error(opcode: 0x34, code: .invalidProperty,
                                                              message: "unknown key path '\(keyPath)'"), requestID: requestID)
                }
            }
        case .hitTest(let x, let y, let requestID):
            let daemon = self.daemon
            daemon.renderLoop.queryPresentation { presentation, _ in
                let event: Event
                if let id = presentation.hitTest(Point(x, y)) {
                    event = id.client == client ? .hitResult(.ownLayer, layer: id.local) : .hitResult(.otherClient, layer: 0)
                } else {
                    event = .hitResult(.none, layer: 0)
                }
                daemon.post(client: client, event: event, requestID: requestID)
            }
        case .sendTree(let requestID):
            send(.tree(json: treeJSON()), requestID: requestID, to: client)
        case .sendStats(let requestID):
            var s = daemon.renderLoop.stats
            s.layers = model.count
            let clients = connections.count
            let json = String(s.json.dropLast()) + ", \"clients\": \(clients)}"
            send(.stats(json: json), requestID: requestID, to: client)
        }
    }

    mutating func send(_ event: Event, requestID: UInt32, to client: UInt32) {
        guard var conn = connections[client] else { return }
        if conn.outputOffset > 0 && conn.outputOffset == conn.output.count {
            conn.output.removeAll(keepingCapacity: true); conn.outputOffset = 0
        }
        conn.output += MessageEncoder.encode(event, requestID: requestID)
        if conn.output.count - conn.outputOffset > maxOutput {
            connections[client] = conn
            disconnect(client)   // it does not read its replies; it must not grow the daemon without bound
            return
        }
        connections[client] = conn
        flush(client)
    }

    mutating func flush(_ id: UInt32) {
        guard var conn = connections[id] else { return }
        while conn.outputOffset < conn.output.count {
            let n = conn.output.withUnsafeBytes { write(conn.fd, $0.baseAddress! + conn.outputOffset, $0.count - conn.outputOffset) }
            if n > 0 { conn.outputOffset += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN { break }
            connections[id] = conn
            disconnect(id)
            return
        }
        connections[id] = conn
    }

    mutating func disconnect(_ id: UInt32) {
        guard let conn = connections.removeValue(forKey: id) else { return }
        close(conn.fd)
        if let packet = try? model.validate(Commit(client: id, content: .disconnect)) { daemon.renderLoop.submit(packet) }
    }

    func treeJSON() -> String {
        var entries: [String] = []
        func esc(_ s: String) -> String { s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") }
        func num(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        model.visit { node, depth in
            let f = node.properties.frame
            let subs = node.sublayers.map { "\"\($0)\"" }.joined(separator: ", ")
            let owner = node.id.client
            let name = owner == 0 ? "compositor" : esc(connections[owner]?.session.clientName ?? "")
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
