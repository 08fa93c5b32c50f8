import LaminaAnimation
import LaminaFrame
import LaminaImage
import LaminaServer
import LaminaTree
import LaminaWire

/// The whole daemon on the test's thread with no sockets, threads, sleeps or GPU: the
/// server's `ServerCore` and the render loop's `FrameDriver`, wired as `Daemon` and
/// `RenderLoop` wire them, with the manual clock. Fake clients are byte streams: requests go
/// in encoded, replies and events come out decoded.
///
/// After every input it runs to quiescence: packets queued or a frame requested make a frame
/// at the clock's time, whose snapshot and events go back to the core. Captures need the GPU:
/// they are answered `captureFailed` here (pixels are the socket + lavapipe tests' part).
final class EmbeddedDaemon {
    let clock = CompositorClock(mode: .manual)
    private(set) var core: ServerCore
    private(set) var driver: FrameDriver
    private let statsBox = StatsBox()
    private var queued: [CommitPacket] = []
    private var frameWanted = false
    /// Frames made so far.
    private(set) var frames = 0

    /// Bytes the daemon wrote to each client, decoded as they arrive.
    private var decoders: [UInt32: FrameDecoder] = [:]
    /// Replies and events not yet taken, per client.
    private var inbox: [UInt32: [(event: Event, requestID: UInt32)]] = [:]
    /// Clients the daemon closed.
    private(set) var closed: Set<UInt32> = []
    private var nextRequestID: [UInt32: UInt32] = [:]

    /// The render statistics the core reports (the embedded daemon's frames).
    final class StatsBox: @unchecked Sendable {
        // @unchecked: the embedded daemon runs on one thread.
        var stats = FrameStats()
    }

    init(configure: (inout DaemonConfig) -> Void = { _ in }) {
        var config = DaemonConfig()
        config.width = 200; config.height = 200
        config.clock = "manual"
        config.background = .black
        config.maxMessageSize = 4096
        configure(&config)
        let box = statsBox
        core = ServerCore(config: config, clock: clock, stats: { box.stats })
        driver = FrameDriver(widthPoints: Double(config.width), heightPoints: Double(config.height),
                             scale: config.scale, background: config.background, targetFPS: config.fps)
        driver.programStepsPerFrame = config.maxProgramStepsPerFrame
        driver.tileStore = TileStore(budgetBytes: config.tileCacheBytes)
    }

    // MARK: Clients

    /// Connects a client, says hello and returns its id (nil when refused; `refusal` then
    /// holds the error event).
    func connect(name: String = "test", hello: Bool = true) -> UInt32? {
        switch core.connect() {
        case .refused(let bytes):
            var d = FrameDecoder()
            d.feed(bytes)
            if case .message(let e, _)? = d.nextEvent() { refusal = e }
            return nil
        case .accepted(let id, let effects):
            decoders[id] = FrameDecoder()
            inbox[id] = []
            perform(effects)
            if hello {
                let welcome = request(.hello(magic: Protocol.magic, major: Protocol.versionMajor,
                                             minor: Protocol.versionMinor, clientName: name), from: id)
                guard case .welcome = welcome else { preconditionFailure("no welcome: \(welcome)") }
            }
            return id
        }
    }
    private(set) var refusal: Event?

    /// Sends requests (request ids from 1 per client, in order) and runs to quiescence.
    /// Returns their ids.
    @discardableResult
    func send(_ requests: [Request], from client: UInt32) -> [UInt32] {
        var bytes: [UInt8] = []
        var ids: [UInt32] = []
        for r in requests {
            let id = (nextRequestID[client] ?? 0) + 1
            nextRequestID[client] = id
            ids.append(id)
            bytes += MessageEncoder.encode(r, requestID: id)
        }
        sendRaw(bytes, from: client)
        return ids
    }

    /// Sends raw bytes, optionally split into chunks of `chunk` bytes.
    func sendRaw(_ bytes: [UInt8], from client: UInt32, chunk: Int = .max) {
        var i = 0
        repeat {
            let j = min(bytes.count, i + max(chunk, 1))
            perform(core.receive(bytes[i..<j], from: client))
            i = j
        } while i < bytes.count
    }

    /// Sends one request and returns its reply (other events stay for `takeEvents`).
    func request(_ r: Request, from client: UInt32) -> Event {
        let id = send([r], from: client)[0]
        guard let k = inbox[client]?.firstIndex(where: { $0.requestID == id }) else {
            preconditionFailure("request \(id) (\(Request.name(ofOpcode: r.opcode))) got no reply")
        }
        return inbox[client]!.remove(at: k).event
    }

    /// Sends one request with descriptors (as SCM_RIGHTS brings them: the core owns them
    /// from now on) and returns its reply.
    func request(_ r: Request, descriptors: [Int32], from client: UInt32) -> Event {
        let id = (nextRequestID[client] ?? 0) + 1
        nextRequestID[client] = id
        perform(core.receive(MessageEncoder.encode(r, requestID: id), descriptors: descriptors, from: client))
        guard let k = inbox[client]?.firstIndex(where: { $0.requestID == id }) else {
            preconditionFailure("request \(id) (\(Request.name(ofOpcode: r.opcode))) got no reply")
        }
        return inbox[client]!.remove(at: k).event
    }

    /// Sends staged requests and a commit; returns the commit's reply.
    func commit(_ requests: [Request], from client: UInt32) -> Event {
        send(requests, from: client)
        return request(.commit, from: client)
    }

    /// Takes every reply and event the client has not taken, in arrival order.
    func takeEvents(_ client: UInt32) -> [(event: Event, requestID: UInt32)] {
        defer { inbox[client] = [] }
        return inbox[client] ?? []
    }

    /// The display changed (what the viewer will report).
    func changeDisplay(_ info: DisplayInfo) {
        perform(core.displayChanged(info))
    }

    /// The draw list of the presentation tree now (what the next frame draws).
    func drawList() -> DrawList { driver.drawList(at: clock.now) }
    /// Input from the viewer's window (`ServerCore.input`).
    func inject(_ input: ViewerInput) {
        perform(core.input(input))
    }

    /// The server's idle sharing of the model's nodes with the newest snapshot's
    /// (`ServerCore.shareIdleNodes`), at `now` seconds of the host's clock, as `Daemon` calls it.
    @discardableResult
    func shareIdleNodes(at now: Double) -> Bool { core.shareIdleNodes(at: now, with: driver.snapshot) }

    /// The client hangs up.
    func hangUp(_ client: UInt32) {
        perform(core.disconnected(client))
    }

    // MARK: The loop

    private func perform(_ effects: [ServerEffect]) {
        var pending = effects
        var rounds = 0
        while true {
            for effect in pending {
                switch effect {
                case .write(let client, let bytes): receive(bytes, client)
                case .close(let client):
                    closed.insert(client)
                    perform(core.disconnected(client))
                case .submit(let packet): queued.append(packet)
                case .capture(_, _, _, let tag):
                    perform(core.captureFailed(tag: tag, "the embedded daemon has no GPU"))
                case .build(_, let tag, let make):
                    perform(core.captureFinished(tag: tag, make()))
                case .cutOff(let client):
                    closed.insert(client)
                    perform(core.disconnected(client))
                case .requestFrame: frameWanted = true
                case .setImage(let name, let image): driver.setImage(name, image)
                case .setTileSource(let name, let source): driver.setTileSource(name, source)
                case .provideTile(let source, let key, let image, let serial):
                    driver.tileStore.provide(source, key, image, serial: serial)
                case .reduceMotion(let on, let time): driver.emitterBirthsEnd = on ? time : nil
                }
            }
            // Requests held behind an answer that has come are handled now.
            let resumed = core.resumable.flatMap { core.resume($0) }
            if !resumed.isEmpty { pending = resumed; continue }
            guard !queued.isEmpty || frameWanted else { return }
            rounds += 1
            precondition(rounds < 100, "the embedded daemon does not settle")
            pending = frame()
        }
    }

    /// Runs a realtime clock for `ticks` frame intervals of `interval` seconds, deciding each
    /// as `RenderLoop` does: a frame when one is needed (`FrameDriver.needsFrame`: something
    /// animates or is queued), else the interval counts as idle. Returns the frames made.
    @discardableResult
    func tick(_ ticks: Int, interval: Double) -> Int {
        let before = frames
        for _ in 0..<ticks {
            _ = clock.advance(by: interval)
            if driver.needsFrame(pending: !queued.isEmpty || frameWanted) {
                perform(frame())
            } else {
                driver.recordIdle(interval)
                statsBox.stats = driver.stats(at: clock.now)
            }
        }
        return frames - before
    }

    /// One frame at the clock's time, as the render loop makes it: the events go out before
    /// the snapshot is published.
    private func frame() -> [ServerEffect] {
        let packets = queued
        queued = []
        frameWanted = false
        let t = clock.now
        let f = driver.frame(applying: packets, at: t)
        frames += 1
        driver.record(start: t, phases: f.phases)
        statsBox.stats = driver.stats(at: t)
        return core.deliver(f.events) + core.snapshotPublished(f.snapshot)
    }

    private func receive(_ bytes: [UInt8], _ client: UInt32) {
        guard decoders[client] != nil else { return }
        decoders[client]!.feed(bytes)
        while let result = decoders[client]!.nextEvent() {
            guard case .message(let event, let requestID) = result else {
                preconditionFailure("the daemon wrote an undecodable event: \(result)")
            }
            inbox[client, default: []].append((event, requestID))
        }
    }
}
