import LaminaTree
import LaminaWire

/// What the server must do after a session handled its input.
public enum SessionAction: Sendable, Equatable {
    case send(Event, requestID: UInt32)
    /// Validate and apply a commit; the server answers `committed` or an error.
    case commit(Commit, requestID: UInt32)
    case capture(time: Double?, requestID: UInt32)
    case advanceClock(seconds: Double, requestID: UInt32)
    case sendTree(requestID: UInt32)
    case sendStats(requestID: UInt32)
    case presentation(layer: UInt32, keyPath: String, requestID: UInt32)
    case hitTest(x: Double, y: Double, requestID: UInt32)
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
    private var staged: [Operation] = []
    private var stagedIDs: [UInt32] = []
    /// The first failed request of the open transaction, if any.
    private var failedRequest: (requestID: UInt32, opcode: UInt16, message: String)?

    public init(clientID: UInt32, maxPendingOperations: Int) {
        self.clientID = clientID
        self.maxPendingOperations = maxPendingOperations
    }

    /// Number of staged operations waiting for a commit.
    public var stagedCount: Int { staged.count }

    /// Handles one decoded message or decoding failure.
    /// - Parameter welcome: the `welcome` event to answer a valid hello with.
    public mutating func handle(_ input: DecodeResult<Request>, welcome: Event) -> [SessionAction] {
        guard state != .closed else { return [] }
        switch input {
        case .failure(let error, let opcode, let requestID):
            if state == .awaitingHello {
                state = .closed
                return [.send(.error(opcode: opcode, code: .badHandshake,
                                     message: "expected a hello message first: \(error)"), requestID: requestID),
                        .close(reason: "bad handshake")]
            }
            if case .badFraming = error {
                state = .closed
                return [.send(.error(opcode: opcode, code: .malformed, message: error.description), requestID: requestID),
                        .close(reason: "bad framing")]
            }
            if Request.isLayerOpcode(opcode), failedRequest == nil {
                failedRequest = (requestID, opcode, error.description)
            }
            return [.send(.error(opcode: opcode, code: error.code, message: error.description), requestID: requestID)]

        case .message(let request, let requestID):
            if state == .awaitingHello {
                guard case .hello(let magic, let major, _, let name) = request else {
                    state = .closed
                    return [.send(.error(opcode: request.opcode, code: .badHandshake,
                                         message: "expected a hello message first, got \(Request.name(ofOpcode: request.opcode))"),
                                  requestID: requestID),
                            .close(reason: "bad handshake")]
                }
                guard magic == Protocol.magic else {
                    state = .closed
                    return [.send(.error(opcode: request.opcode, code: .badHandshake, message: "bad magic number"),
                                  requestID: requestID), .close(reason: "bad magic")]
                }
                guard major == Protocol.versionMajor else {
                    state = .closed
                    return [.send(.error(opcode: request.opcode, code: .unsupportedVersion,
                                         message: "protocol version \(major) is not supported; this daemon speaks \(Protocol.versionMajor).\(Protocol.versionMinor)"),
                                  requestID: requestID), .close(reason: "unsupported version")]
                }
                clientName = name
                state = .ready
                return [.send(welcome, requestID: requestID)]
            }
            return handleReady(request, requestID: requestID)
        }
    }

    private mutating func handleReady(_ request: Request, requestID: UInt32) -> [SessionAction] {
        var operation = request.operation
        if case .addAnimation(let id, let key, let json) = request {
            // The animation's JSON is checked when staged; a bad one fails the transaction
            // like an undecodable request.
            do {
                operation = try AnimationJSON.operation(layer: id, key: key, text: json)
            } catch {
                if failedRequest == nil { failedRequest = (requestID, request.opcode, error.description) }
                return [.send(.error(opcode: request.opcode, code: .invalidAnimation, message: error.description), requestID: requestID)]
            }
        }
        if let op = operation {
            guard staged.count < maxPendingOperations else {
                let message = "a transaction may stage at most \(maxPendingOperations) operations"
                if failedRequest == nil { failedRequest = (requestID, request.opcode, message) }
                return [.send(.error(opcode: request.opcode, code: .limitExceeded, message: message), requestID: requestID)]
            }
            staged.append(op)
            stagedIDs.append(requestID)
            return []
        }
        switch request {
        case .hello:
            return [.send(.error(opcode: request.opcode, code: .badHandshake, message: "hello was already received"),
                          requestID: requestID)]
        case .ping(let token):
            return [.send(.pong(token: token), requestID: requestID)]
        case .commit:
            defer { staged = []; stagedIDs = []; failedRequest = nil }
            if let failed = failedRequest {
                return [.send(.error(opcode: request.opcode, code: .transactionFailed,
                                     message: "commit rejected, nothing applied: request \(failed.requestID) (\(Request.name(ofOpcode: failed.opcode))) failed: \(failed.message)"),
                              requestID: requestID)]
            }
            return [.commit(Commit(client: clientID, content: .operations(staged), requestIDs: stagedIDs),
                            requestID: requestID)]
        case .capture(let time): return [.capture(time: time, requestID: requestID)]
        case .advanceClock(let s): return [.advanceClock(seconds: s, requestID: requestID)]
        case .getTree: return [.sendTree(requestID: requestID)]
        case .getStats: return [.sendStats(requestID: requestID)]
        case .getPresentation(let id, let keyPath): return [.presentation(layer: id, keyPath: keyPath, requestID: requestID)]
        case .hitTest(let x, let y): return [.hitTest(x: x, y: y, requestID: requestID)]
        default:
            return [.send(.error(opcode: request.opcode, code: .internalError, message: "unhandled request"), requestID: requestID)]
        }
    }
}

