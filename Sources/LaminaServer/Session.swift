import LaminaWire
import LaminaModel

/// What the server must do after a session handled its input.
public enum SessionAction: Sendable, Equatable {
    case send(Event, requestID: UInt32)
    /// Validate and apply a commit; the server answers `committed` or an error.
    case commit(Commit, requestID: UInt32)
    case capture(time: Double?, requestID: UInt32)
    case advanceClock(seconds: Double, requestID: UInt32)
    case sendTree(requestID: UInt32)
    case sendStats(requestID: UInt32)
    /// `getTime`: the clock's value now.
    case sendTime(requestID: UInt32)
    case presentation(layer: UInt32, keyPath: String, requestID: UInt32)
    case hitTest(x: Double, y: Double, requestID: UInt32)
    case setReduceMotion(Bool, requestID: UInt32)
    /// `uploadImage` / `releaseImage` (ServerCore+Images).
    case image(Request, requestID: UInt32)
    /// `createPool` / `destroyPool` / `createBuffer` / `destroyBuffer` (ServerCore+Surfaces).
    case surface(Request, requestID: UInt32)
    case measureText(StyledText, font: String, fontSize: Double, width: Double?, requestID: UInt32)
    /// `startTrace` (maxFrames: 1…`Request.maxTraceFrames`) / `stopTrace`.
    case startTrace(maxFrames: Int, requestID: UInt32)
    case stopTrace(requestID: UInt32)
    /// Close the connection after sending what is queued.
    case close(reason: String)
}

/// One client's protocol state: a struct with no I/O whose methods return actions.
///
/// Layer requests are staged until `commit`. If any staged request fails to decode, the
/// transaction is marked failed: its commit is rejected whole, so nothing is half-applied.
public struct Session: Sendable {
    public enum State: Sendable, Equatable { case awaitingHello, ready, closed }

    public let clientID: UInt32
    public let maxPendingOperations: Int
    public private(set) var state = State.awaitingHello
    public private(set) var clientName = ""
    private var staged: [LayerChange] = []
    private var stagedIDs: [UInt32] = []
    /// Staged surface requests (`attachBuffer`, `frameCallback`, `presentationFeedback`).
    private var stagedSurface: [SurfaceOperation] = []
    private var stagedSurfaceIDs: [UInt32] = []
    /// Bytes of the staged requests' messages (for the commit's `wireBytes`).
    private var stagedBytes = 0
    /// Requests the last transaction staged: the next one reserves room for as many at its
    /// first request (a client sending large batches does not regrow the arrays each time).
    private var lastStagedCount = 0
    /// The first failed request of the open transaction, if any.
    private var failedRequest: (detail: ErrorDetail, message: String)?

    public init(clientID: UInt32, maxPendingOperations: Int) {
        self.clientID = clientID
        self.maxPendingOperations = maxPendingOperations
    }

    /// Number of staged operations waiting for a commit.
    public var stagedCount: Int { staged.count + stagedSurface.count }

    /// Handles one decoded message or decoding failure.
    /// - Parameters:
    ///   - welcome: the `welcome` event to answer a valid hello with.
    ///   - bytes: the message's size on the wire, header included (`FrameDecoder.lastFrameLength`).
    public mutating func handle(_ input: DecodeResult<Request>, welcome: Event, bytes: Int = 0) -> [SessionAction] {
        guard state != .closed else { return [] }
        switch input {
        case .failure(let error, let opcode, let requestID):
            if state == .awaitingHello {
                return refuse(.badHandshake, "expected a hello message first: \(error)", opcode: opcode, requestID: requestID)
            }
            if case .badFraming = error {
                return refuse(.malformed, error.description, opcode: opcode, requestID: requestID)
            }
            return fail(error.code, error.description, detail: ErrorDetail(request: requestID, opcode: opcode), opcode: opcode)

        case .message(let request, let requestID):
            if state == .awaitingHello {
                guard case .hello(let magic, let major, _, let name) = request else {
                    return refuse(.badHandshake, "expected a hello message first, got \(Request.name(ofOpcode: request.opcode))",
                                  opcode: request.opcode, requestID: requestID)
                }
                guard requestID != 0 else {
                    return refuse(.badHandshake, "request id 0 is reserved for events", opcode: request.opcode, requestID: 0)
                }
                guard magic == Protocol.magic else {
                    return refuse(.badHandshake, "bad magic number 0x\(String(magic, radix: 16)) (expected 0x414e4d4c, \"LMNA\")",
                                  opcode: request.opcode, requestID: requestID)
                }
                guard major == Protocol.versionMajor else {
                    return refuse(.unsupportedVersion,
                                  "protocol version \(major) is not supported; this daemon speaks \(Protocol.versionMajor).\(Protocol.versionMinor)",
                                  opcode: request.opcode, requestID: requestID)
                }
                clientName = name
                state = .ready
                return [.send(welcome, requestID: requestID)]
            }
            guard requestID != 0 else {
                let (layer, key) = request.subject
                return fail(.malformed, "request id 0 is reserved for events; the request was ignored",
                            detail: ErrorDetail(request: 0, opcode: request.opcode, layer: layer, key: key), opcode: request.opcode)
            }
            return handleReady(request, requestID: requestID, bytes: bytes)
        }
    }

    /// An error that closes the connection (handshake, framing, a second hello).
    private mutating func refuse(_ code: ErrorCode, _ message: String, opcode: UInt16, requestID: UInt32) -> [SessionAction] {
        state = .closed
        return [.send(.error(opcode: opcode, code: code, message: message, request: requestID), requestID: requestID),
                .close(reason: message)]
    }

    /// An error answered at once; a staged request's (0x10…0x1F) also fails the transaction.
    private mutating func fail(_ code: ErrorCode, _ message: String, detail: ErrorDetail, opcode: UInt16) -> [SessionAction] {
        if Request.isLayerOpcode(opcode), failedRequest == nil { failedRequest = (detail, message) }
        return [.send(.error(opcode: opcode, code: code, message: message, detail: detail), requestID: detail.request)]
    }

    private mutating func handleReady(_ request: Request, requestID: UInt32, bytes: Int) -> [SessionAction] {
        var operation = request.operation
        var detail: ErrorDetail {
            let (layer, key) = request.subject
            return ErrorDetail(request: requestID, opcode: request.opcode, layer: layer, key: key)
        }
        if case .addAnimation(let id, let key, let json) = request {
            // The animation's JSON is checked when staged; a bad one fails the transaction
            // like an undecodable request.
            do {
                operation = try AnimationJSON.operation(layer: id, key: key, text: json)
            } catch {
                return fail(.invalidAnimation, error.description, detail: detail, opcode: request.opcode)
            }
        }
        if let op = request.surfaceOperation {
            guard stagedCount < maxPendingOperations else {
                return fail(.limitExceeded, "a transaction may stage at most \(maxPendingOperations) requests",
                            detail: detail, opcode: request.opcode)
            }
            stagedSurface.append(op)
            stagedSurfaceIDs.append(requestID)
            stagedBytes += bytes
            return []
        }
        if case .setTransitions(let id, let json) = request {
            do {
                operation = .setTransitions(id, try TransitionJSON.decode(text: json))
            } catch {
                return fail(.invalidValue, error.description, detail: detail, opcode: request.opcode)
            }
        }
        if let op = operation {
            guard stagedCount < maxPendingOperations else {
                return fail(.limitExceeded, "a transaction may stage at most \(maxPendingOperations) requests",
                            detail: detail, opcode: request.opcode)
            }
            if staged.isEmpty && lastStagedCount > 16 {
                staged.reserveCapacity(lastStagedCount)
                stagedIDs.reserveCapacity(lastStagedCount)
            }
            staged.append(op)
            stagedIDs.append(requestID)
            stagedBytes += bytes
            return []
        }
        switch request {
        case .hello:
            return refuse(.badHandshake, "hello was already received; the connection is closed",
                          opcode: request.opcode, requestID: requestID)
        case .ping(let token):
            return [.send(.pong(token: token), requestID: requestID)]
        case .commit:
            defer {
                lastStagedCount = staged.count; staged = []; stagedIDs = []; stagedBytes = 0; failedRequest = nil
                stagedSurface = []; stagedSurfaceIDs = []
            }
            if let failed = failedRequest {
                return [.send(.error(opcode: request.opcode, code: .transactionFailed,
                                     message: "commit rejected, nothing applied: request \(failed.detail.request) (\(Request.name(ofOpcode: failed.detail.opcode))) failed: \(failed.message)",
                                     detail: failed.detail),
                              requestID: requestID)]
            }
            var commit = Commit(client: clientID, content: .operations(staged), requestIDs: stagedIDs,
                                wireBytes: stagedBytes + bytes)
            commit.surfaceOperations = stagedSurface
            commit.surfaceRequestIDs = stagedSurfaceIDs
            return [.commit(commit, requestID: requestID)]
        case .capture(let time): return [.capture(time: time, requestID: requestID)]
        case .advanceClock(let s): return [.advanceClock(seconds: s, requestID: requestID)]
        case .getTree: return [.sendTree(requestID: requestID)]
        case .getStats: return [.sendStats(requestID: requestID)]
        case .getTime: return [.sendTime(requestID: requestID)]
        case .getPresentation(let id, let keyPath): return [.presentation(layer: id, keyPath: keyPath, requestID: requestID)]
        case .hitTest(let x, let y): return [.hitTest(x: x, y: y, requestID: requestID)]
        case .setReduceMotion(let on): return [.setReduceMotion(on, requestID: requestID)]
        case .uploadImage, .releaseImage, .openImageFile, .createTiledImage, .provideTile: return [.image(request, requestID: requestID)]
        case .createPool, .destroyPool, .createBuffer, .destroyBuffer, .createGpuBuffer: return [.surface(request, requestID: requestID)]
        case .measureText(let text, let font, let size, let width):
            return [.measureText(text, font: font, fontSize: size, width: width, requestID: requestID)]
        case .startTrace(let n):
            return [.startTrace(maxFrames: n == 0 ? Int(Request.maxTraceFrames) : Int(n), requestID: requestID)]
        case .stopTrace: return [.stopTrace(requestID: requestID)]
        default:
            return [.send(.error(opcode: request.opcode, code: .internalError, message: "unhandled request", request: requestID),
                          requestID: requestID)]
        }
    }
}
