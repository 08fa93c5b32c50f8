import Foundation
@_exported import LaminaGeometry
@_exported import LaminaTree
@_exported import LaminaAnimation
import LaminaWire
#if canImport(Glibc)
import Glibc
#endif

/// Errors the client library reports.
public enum LaminaError: Error, CustomStringConvertible, Equatable {
    /// The daemon could not be reached.
    case connectionFailed(String)
    /// The daemon closed the connection.
    case disconnected
    /// The daemon answered a request with an error event. `request` names the request
    /// answered; `failed` is the request that failed, as fields (for a rejected commit, the
    /// staged request: its id, opcode, layer and key path or animation key).
    case requestFailed(request: String, code: ErrorCode, message: String, failed: ErrorDetail)
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .connectionFailed(let m): m
        case .disconnected: "the daemon closed the connection"
        case .requestFailed(let r, let code, let m, _): "\(r) failed (\(code)): \(m)"
        case .protocolViolation(let m): "protocol violation: \(m)"
        }
    }
}

/// A connection to laminad. Create layers with `makeLayer`, change them, then `commit()`:
/// the daemon applies the whole batch or none of it.
///
/// Not thread-safe: use a connection from one thread at a time.
public final class Connection {
    /// The daemon's canvas size in points, scale and clock, from its welcome.
    public private(set) var canvasSize = Size(0, 0)
    public private(set) var scale = 1.0
    /// The display (size, scale, refresh rate), from the welcome and `displayChanged`.
    public private(set) var display = DisplayInfo(width: 0, height: 0, scale: 1, refreshRate: 0)
    /// The Reduce Motion setting, from the welcome and `reduceMotionChanged`.
    public private(set) var reduceMotion = false
    /// Called when the display or Reduce Motion changes (while the connection reads).
    public var displayChangeHandler: ((DisplayInfo) -> Void)?
    public var reduceMotionChangeHandler: ((Bool) -> Void)?
    public private(set) var isManualClock = false
    /// This client's id in the daemon.
    public private(set) var clientID: UInt32 = 0

    private let fd: Int32
    private var decoder = FrameDecoder(maxMessageSize: 1 << 30)
    private var nextRequestID: UInt32 = 1
    private var nextLayerID: UInt32 = 1
    private var outgoing: [UInt8] = []
    /// CATransaction's nesting and settings for this connection.
    var transactions = TransactionStack()
    private var completionBlocks: [UInt32: () -> Void] = [:]
    /// Called for `animationStarted` (finished nil) and `animationStopped` events of this
    /// client's explicit animations: (layer id, key, finished).
    public var animationEventHandler: ((UInt32, String, Bool?) -> Void)?
    /// Errors the daemon reported for requests that were not waited for.
    public private(set) var pendingErrors: [(requestID: UInt32, code: ErrorCode, message: String, failed: ErrorDetail)] = []

    /// The container of this client's top-level layers (local id 0).
    public private(set) lazy var root = Layer(connection: self, id: 0, kind: .layer)

    /// Connects and performs the handshake.
    /// - Parameters:
    ///   - socketPath: the daemon's socket; nil for `$XDG_RUNTIME_DIR/lamina-0` (or
    ///     `/tmp/lamina-<uid>/lamina-0` when that variable is unset).
    ///   - name: shown by `laminactl tree`.
    public init(socketPath: String? = nil, name: String = ProcessInfo.processInfo.processName) throws {
        let path = socketPath ?? Connection.defaultSocketPath
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw LaminaError.connectionFailed("socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            self.close(); throw LaminaError.connectionFailed("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { $0.copyBytes(from: bytes); $0[bytes.count] = 0 }
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let message = String(cString: strerror(errno))
            self.close()
            throw LaminaError.connectionFailed("cannot connect to laminad at \(path): \(message) (is laminad running?)")
        }
        let reply = try roundTrip(.hello(magic: Protocol.magic, major: Protocol.versionMajor,
                                         minor: Protocol.versionMinor, clientName: name))
        guard case .welcome(_, _, let id, let display, let clock, _, let reduceMotion) = reply else {
            throw LaminaError.protocolViolation("expected welcome, got \(reply)")
        }
        clientID = id
        self.display = display
        canvasSize = Size(Double(display.width), Double(display.height))
        scale = display.scale
        isManualClock = clock == .manual
        self.reduceMotion = reduceMotion
    }

    private var isClosed = false

    deinit { close() }

    /// Closes the connection; the daemon removes this client's layers in its next frame.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    /// The default socket path.
    public static var defaultSocketPath: String { Protocol.defaultSocketPath }

    /// Makes a new layer owned by this client. It exists in the daemon after the next commit.
    public func makeLayer(_ kind: LayerKind = .layer) -> Layer {
        let id = nextLayerID
        nextLayerID += 1
        stage(.createLayer(id: id, kind: kind))
        return Layer.make(connection: self, id: id, kind: kind)
    }

    /// Sends every staged change as one transaction and waits for the daemon's answer (the
    /// implicit transaction's commit, as at the end of a run loop turn).
    /// - Returns: the daemon's commit sequence number.
    /// - Throws: `LaminaError.requestFailed` when the daemon rejected it (then nothing of it applied).
    @discardableResult
    public func commit() throws -> UInt64 {
        // Open explicit transactions are closed first (their completions declared), then the
        // implicit one; everything goes in one packet.
        while transactions.depth > 0 {
            for case .stage(let op) in transactions.commit() { stageOperation(op) }
        }
        for case .stage(let op) in transactions.commit() { stageOperation(op) }
        return try sendCommit()
    }

    private func sendCommit() throws -> UInt64 {
        let reply = try roundTrip(.commit)
        guard case .committed(let seq) = reply else { throw LaminaError.protocolViolation("expected committed") }
        return seq
    }

    // MARK: Transactions (CATransaction)

    /// `CATransaction.begin()`: opens a nested transaction that inherits the current settings.
    public func begin() { transactions.begin() }

    /// `CATransaction.commit()`: closes the innermost transaction, restoring its parent's
    /// settings; the outermost one sends all staged changes as one commit and waits for it.
    public func commitTransaction() throws {
        for action in transactions.commit() {
            switch action {
            case .stage(let op): stageOperation(op)
            case .sendCommit: _ = try sendCommit()
            }
        }
    }

    /// `CATransaction.setAnimationDuration(_:)` for the innermost transaction.
    public func setAnimationDuration(_ seconds: Double) { transactions.setAnimationDuration(seconds) }
    /// `CATransaction.setAnimationTimingFunction(_:)`.
    public func setAnimationTimingFunction(_ f: TimingFunction) { transactions.setTimingFunction(f) }
    /// `CATransaction.setDisableActions(_:)`.
    public func setDisableActions(_ disabled: Bool) { transactions.setDisableActions(disabled) }
    /// `CATransaction.setCompletionBlock(_:)`: runs once every animation started by changes
    /// made after this call in the transaction has ended or been removed (at once if none).
    /// It runs on this connection's thread while the connection reads events
    /// (`processEvents`, or any request's round trip).
    public func setCompletionBlock(_ block: @escaping () -> Void) {
        completionBlocks[transactions.setCompletion()] = block
    }

    /// Runs `body` in a nested transaction with the given settings (Swift-y `CATransaction`).
    public func transaction(duration: Double? = nil, timingFunction: TimingFunction? = nil,
                            disableActions: Bool? = nil, completion: (() -> Void)? = nil,
                            _ body: () throws -> Void) throws {
        begin()
        if let duration { setAnimationDuration(duration) }
        if let timingFunction { setAnimationTimingFunction(timingFunction) }
        if let disableActions { setDisableActions(disableActions) }
        if let completion { setCompletionBlock(completion) }
        try body()
        try commitTransaction()
    }

    /// Reads and dispatches events that have arrived (completions, animation events), waiting
    /// up to `timeout` seconds for the first.
    public func processEvents(timeout: Double = 0) throws {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(max(0, timeout) * 1000)) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        guard n > 0 else { throw LaminaError.disconnected }
        decoder.feed(buffer[0..<n])
        while let result = decoder.nextEvent() {
            if case .message(let event, let requestID) = result {
                if case .error(_, let code, let message, let d) = event { pendingErrors.append((requestID, code, message, d)) }
                else { dispatch(event) }
            }
        }
    }

    private func dispatch(_ event: Event) {
        switch event {
        case .transactionCompleted(let id): completionBlocks.removeValue(forKey: id)?()
        case .animationStarted(let layer, let key): animationEventHandler?(layer, key, nil)
        case .animationStopped(let layer, let key, let finished): animationEventHandler?(layer, key, finished)
        case .displayChanged(let d):
            display = d; canvasSize = Size(Double(d.width), Double(d.height)); scale = d.scale
            displayChangeHandler?(d)
        case .reduceMotionChanged(let on):
            reduceMotion = on
            reduceMotionChangeHandler?(on)
        default: break
        }
    }

    // MARK: Presentation

    /// The presentation value of one of this client's layers at a key path (model values with
    /// the animations running now), as the render thread's next frame evaluates it.
    public func presentationValue(ofLayer id: UInt32, forKeyPath keyPath: String) throws -> PropertyValue {
        guard case .presentation(let v) = try roundTrip(.getPresentation(id: id, keyPath: keyPath)) else {
            throw LaminaError.protocolViolation("expected presentation")
        }
        return v
    }

    /// The topmost layer under a canvas point in the presentation tree: `.ownLayer` with this
    /// client's layer id, `.otherClient`, or `.none`.
    public func hitTest(_ point: Point) throws -> (result: Event.HitResult, layer: UInt32) {
        guard case .hitResult(let r, let layer) = try roundTrip(.hitTest(x: point.x, y: point.y)) else {
            throw LaminaError.protocolViolation("expected hitResult")
        }
        return (r, layer)
    }

    /// Stages a layer operation as its request (with the transaction settings in force).
    public func stageOperation(_ op: LaminaTree.Operation) {
        switch op {
        case .create(let id, let kind): stage(.createLayer(id: id, kind: kind))
        case .delete(let id): stage(.deleteLayer(id: id))
        case .set(let id, let k, let v): stage(.setProperty(id: id, keyPath: k, value: v))
        case .addSublayer(let p, let c): stage(.addSublayer(parent: p, child: c))
        case .insertSublayer(let p, let c, let i): stage(.insertSublayer(parent: p, child: c, index: i))
        case .removeFromSuperlayer(let id): stage(.removeFromSuperlayer(id: id))
        case .setTransaction(let s): stageRaw(.setTransaction(s))
        case .addAnimation(let id, let key, let a): stage(.addAnimation(id: id, key: key, json: AnimationJSON.encode(a).text))
        case .removeAnimation(let id, let key): stage(.removeAnimation(id: id, key: key))
        case .removeAllAnimations(let id): stage(.removeAllAnimations(id: id))
        case .addExpression(let id, let key, let e): stage(.addAnimation(id: id, key: key, json: ExpressionJSON.encode(e).text))
        case .completion(let id): stageRaw(.completion(id: id))
        }
    }

    /// Reserves layer ids up to `id` (for callers that assign ids themselves, like scenes).
    public func reserveLayerIDs(through id: UInt32) { nextLayerID = max(nextLayerID, id + 1) }

    /// Measures a round trip to the daemon.
    public func ping() throws -> Double {
        let start = Date()
        let token = UInt64.random(in: 0...UInt64.max)
        guard case .pong(let t) = try roundTrip(.ping(token: token)), t == token else {
            throw LaminaError.protocolViolation("pong token mismatch")
        }
        return Date().timeIntervalSince(start)
    }

    /// Captures a frame as PNG bytes: the current one, or under the manual clock the frame at `time`.
    public func capture(at time: Double? = nil) throws -> (png: [UInt8], width: Int, height: Int, time: Double) {
        guard case .captured(let t, let w, let h, let png) = try roundTrip(.capture(time: time)) else {
            throw LaminaError.protocolViolation("expected captured")
        }
        return (png, Int(w), Int(h), t)
    }

    /// Moves the daemon's manual clock forward; returns the new time.
    @discardableResult
    public func advanceClock(by seconds: Double) throws -> Double {
        guard case .clockAdvanced(let t) = try roundTrip(.advanceClock(seconds: seconds)) else {
            throw LaminaError.protocolViolation("expected clockAdvanced")
        }
        return t
    }

    /// The daemon's model tree as JSON (ids, owners, kinds, frames).
    public func treeJSON() throws -> String {
        guard case .tree(let json) = try roundTrip(.getTree) else { throw LaminaError.protocolViolation("expected tree") }
        return json
    }

    /// The render thread's statistics as JSON.
    public func statsJSON() throws -> String {
        guard case .stats(let json) = try roundTrip(.getStats) else { throw LaminaError.protocolViolation("expected stats") }
        return json
    }

    /// Sets the daemon's Reduce Motion setting (tools and tests); every other client is told.
    public func setReduceMotion(_ on: Bool) throws {
        guard case .reduceMotionChanged(let now) = try roundTrip(.setReduceMotion(on)) else {
            throw LaminaError.protocolViolation("expected reduceMotionChanged")
        }
        reduceMotion = now
    }

    /// Sends raw bytes (for tests of the daemon's robustness).
    public func sendRaw(_ bytes: [UInt8]) throws { try writeAll(bytes) }

    // MARK: Internals

    /// Stages a request, preceded by the transaction settings when they changed.
    func stage(_ request: Request) {
        if Request.isLayerOpcode(request.opcode), let op = transactions.settingsChange(), case .setTransaction(let s) = op {
            stageRaw(.setTransaction(s))
        }
        stageRaw(request)
    }

    private func stageRaw(_ request: Request) {
        outgoing += MessageEncoder.encode(request, requestID: nextRequestID)
        nextRequestID &+= 1
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LaminaError.disconnected
            }
            offset += n
        }
    }

    /// Sends staged requests and `request`, then reads until its reply arrives.
    func roundTrip(_ request: Request) throws -> Event {
        let id = nextRequestID
        stageRaw(request)
        let bytes = outgoing
        outgoing = []
        try writeAll(bytes)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            while let result = decoder.nextEvent() {
                switch result {
                case .failure(let error, _, _):
                    throw LaminaError.protocolViolation(error.description)
                case .message(let event, let requestID):
                    if case .error(let opcode, let code, let message, let d) = event {
                        if requestID == id {
                            throw LaminaError.requestFailed(request: Request.name(ofOpcode: opcode), code: code, message: message, failed: d)
                        }
                        pendingErrors.append((requestID, code, message, d))
                        continue
                    }
                    if requestID == id { return event }
                    dispatch(event)
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw LaminaError.disconnected }
            decoder.feed(buffer[0..<n])
        }
    }
}
