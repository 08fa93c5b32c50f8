import Foundation
import LaminaWire
#if canImport(Glibc)
import Glibc
#endif

/// The requests with replies, each in a blocking form and an `async` form (see
/// `Connection`'s notes on where they may be called from). Staged changes not yet committed
/// are sent first (they stay staged in the daemon until `commit`).
extension Connection {
    private func ask(_ request: Request) throws(LaminaError) -> Event {
        try link.roundTrip(takeStaged(), request)
    }

    nonisolated(nonsending) private func ask(_ request: Request) async throws(LaminaError) -> Event {
        try await link.roundTrip(takeStaged(), request)
    }

    /// Measures a round trip to the daemon, in seconds.
    public func ping() throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let token = UInt64.random(in: 0...UInt64.max)
        try Self.pong(ask(.ping(token: token)), token)
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    nonisolated(nonsending) public func ping() async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let token = UInt64.random(in: 0...UInt64.max)
        try Self.pong(await ask(.ping(token: token)), token)
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private static func pong(_ e: Event, _ token: UInt64) throws(LaminaError) {
        guard case .pong(let t) = e, t == token else { throw LaminaError.protocolViolation("pong token mismatch") }
    }

    /// The presentation value of one of this client's layers at a key path (model values with
    /// the animations running now), from a frame that includes this client's commits.
    public func presentationValue(ofLayer id: UInt32, forKeyPath keyPath: String) throws -> PropertyValue {
        try Self.presentation(ask(.getPresentation(id: id, keyPath: keyPath)))
    }

    nonisolated(nonsending) public func presentationValue(ofLayer id: UInt32, forKeyPath keyPath: String) async throws -> PropertyValue {
        try Self.presentation(await ask(.getPresentation(id: id, keyPath: keyPath)))
    }

    static func presentation(_ e: Event) throws(LaminaError) -> PropertyValue {
        guard case .presentation(let v) = e else { throw LaminaError.protocolViolation("expected presentation, got \(e)") }
        return v
    }

    /// The presentation values of a layer at several key paths, asked in one write.
    nonisolated(nonsending) func presentationValues(ofLayer id: UInt32, keyPaths: [String]) async throws(LaminaError) -> [PropertyValue] {
        let staged = takeStaged()
        if !staged.isEmpty { try link.write(staged) }
        var values: [PropertyValue] = []
        for r in await link.roundTrips(keyPaths.map { .getPresentation(id: id, keyPath: $0) }) {
            values.append(try Self.presentation(r.get()))
        }
        return values
    }

    /// The topmost layer under a canvas point in the presentation tree: `.ownLayer` with this
    /// client's layer id, `.otherClient`, or `.none`.
    public func hitTest(_ point: Point) throws -> (result: Event.HitResult, layer: UInt32) {
        try Self.hit(ask(.hitTest(x: point.x, y: point.y)))
    }

    nonisolated(nonsending) public func hitTest(_ point: Point) async throws -> (result: Event.HitResult, layer: UInt32) {
        try Self.hit(await ask(.hitTest(x: point.x, y: point.y)))
    }

    private static func hit(_ e: Event) throws(LaminaError) -> (result: Event.HitResult, layer: UInt32) {
        guard case .hitResult(let r, let layer) = e else { throw LaminaError.protocolViolation("expected hitResult, got \(e)") }
        return (r, layer)
    }

    /// Captures a frame as PNG bytes: the current one, or under the manual clock the frame at `time`.
    public func capture(at time: Double? = nil) throws -> (png: [UInt8], width: Int, height: Int, time: Double) {
        try Self.captured(ask(.capture(time: time)))
    }

    nonisolated(nonsending) public func capture(at time: Double? = nil) async throws -> (png: [UInt8], width: Int, height: Int, time: Double) {
        try Self.captured(await ask(.capture(time: time)))
    }

    private static func captured(_ e: Event) throws(LaminaError) -> (png: [UInt8], width: Int, height: Int, time: Double) {
        guard case .captured(let t, let w, let h, let png) = e else { throw LaminaError.protocolViolation("expected captured, got \(e)") }
        return (png, Int(w), Int(h), t)
    }

    /// Moves the daemon's manual clock forward; returns the new time. Events due at the new
    /// time come with the next frame: a query after this waits for them.
    @discardableResult
    public func advanceClock(by seconds: Double) throws -> Double {
        try Self.clock(ask(.advanceClock(seconds: seconds)))
    }

    @discardableResult
    nonisolated(nonsending) public func advanceClock(by seconds: Double) async throws -> Double {
        try Self.clock(await ask(.advanceClock(seconds: seconds)))
    }

    private static func clock(_ e: Event) throws(LaminaError) -> Double {
        guard case .clockAdvanced(let t) = e else { throw LaminaError.protocolViolation("expected clockAdvanced, got \(e)") }
        return t
    }

    /// The compositor's clock now, in seconds (`CACurrentMediaTime()` for the daemon's
    /// timeline): the time a commit sent now is given — its animations' time 0, the base of
    /// their `beginTime` — and the clock `PointerEvent.time`, `welcomeTime` and captures use.
    /// Under the manual clock it moves only by `advanceClock`. Staged changes are sent first
    /// (they stay staged).
    public func currentTime() throws -> Double {
        try Self.time(ask(.getTime))
    }

    nonisolated(nonsending) public func currentTime() async throws -> Double {
        try Self.time(await ask(.getTime))
    }

    private static func time(_ e: Event) throws(LaminaError) -> Double {
        guard case .time(let t) = e else { throw LaminaError.protocolViolation("expected time, got \(e)") }
        return t
    }

    /// The daemon's model tree as JSON (docs/protocol.md, `tree` schema).
    public func treeJSON() throws -> String {
        guard case .tree(let json) = try ask(.getTree) else { throw LaminaError.protocolViolation("expected tree") }
        return json
    }

    /// The render thread's statistics as JSON (docs/protocol.md, `stats` schema).
    public func statsJSON() throws -> String {
        guard case .stats(let json) = try ask(.getStats) else { throw LaminaError.protocolViolation("expected stats") }
        return json
    }

    nonisolated(nonsending) public func statsJSON() async throws -> String {
        guard case .stats(let json) = try await ask(.getStats) else { throw LaminaError.protocolViolation("expected stats") }
        return json
    }

    /// Starts recording a frame trace (docs/protocol.md, Frame traces) of at most `maxFrames`
    /// frames (0: the most, 10,000); returns the cap. One recording at a time, daemon-wide.
    @discardableResult
    public func startTrace(maxFrames: Int = 0) throws -> Int {
        guard (0...Int(Request.maxTraceFrames)).contains(maxFrames) else {
            throw LaminaError.protocolViolation("maxFrames must be in 0…\(Request.maxTraceFrames)")
        }
        guard case .traceStarted(let n) = try ask(.startTrace(maxFrames: UInt32(maxFrames))) else {
            throw LaminaError.protocolViolation("expected traceStarted")
        }
        return Int(n)
    }

    /// Stops this client's trace recording and returns it as Chrome trace-event JSON.
    public func stopTrace() throws -> String {
        guard case .trace(let json) = try ask(.stopTrace) else { throw LaminaError.protocolViolation("expected trace") }
        return json
    }

    /// Sets the daemon's Reduce Motion setting (tools and tests); every other client is told.
    public func setReduceMotion(_ on: Bool) throws {
        guard case .reduceMotionChanged = try ask(.setReduceMotion(on)) else {
            throw LaminaError.protocolViolation("expected reduceMotionChanged")
        }
    }
}

/// Connecting and the handshake, before the reader thread starts.
enum Handshake {
    static func connect(path: String) throws(LaminaError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectionFailed("socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            Glibc.close(fd)
            throw .connectionFailed("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes); $0[bytes.count] = 0 }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let message = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .connectionFailed("cannot connect to laminad at \(path): \(message) (is laminad running?)")
        }
        return fd
    }

    /// Sends `hello` and reads until its reply; returns it and the decoder holding what came
    /// after it. A refusal (`maxClients`) or an error closes the socket.
    static func hello(fd: Int32, name: String) throws(LaminaError) -> (Event, FrameDecoder) {
        let hello = MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor,
                                                 minor: Protocol.versionMinor, clientName: name), requestID: 1)
        var decoder = FrameDecoder(maxMessageSize: 1 << 30)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var offset = 0
        while offset < hello.count {
            let n = hello.withUnsafeBytes { send(fd, $0.baseAddress! + offset, hello.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }   // refused: read the error below
            offset += n
        }
        while true {
            if let result = decoder.nextEvent() {
                switch result {
                case .message(.error(let opcode, let code, let message, let detail), _):
                    Glibc.close(fd)
                    throw .requestFailed(request: opcode == 0 ? "connect" : "hello", code: code, message: message, failed: detail)
                case .message(let e, _): return (e, decoder)
                case .failure(let e, _, _):
                    Glibc.close(fd)
                    throw LaminaError.protocolViolation(e.description)
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { Glibc.close(fd); throw .disconnected }
            decoder.feed(buffer[0..<n])
        }
    }
}
