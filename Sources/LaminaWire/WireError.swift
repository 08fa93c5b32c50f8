/// Error codes carried by error events (see docs/protocol.md).
public enum ErrorCode: UInt16, Sendable, CaseIterable {
    case badHandshake = 1
    case unsupportedVersion = 2
    case messageTooLarge = 3
    case malformed = 4
    case unknownOpcode = 5
    case unknownLayer = 6
    case duplicateLayer = 7
    case invalidProperty = 8
    case invalidValue = 9
    case invalidHierarchy = 10
    case limitExceeded = 11
    case clockNotManual = 12
    case captureFailed = 13
    case transactionFailed = 14
    case internalError = 15
    case invalidAnimation = 16
    /// `contents` or `releaseImage` names an image the client has not uploaded (or released).
    case unknownImage = 17
    /// `uploadImage`'s bytes are not an image the daemon can decode (or raw pixels don't fit).
    case invalidImage = 18
    /// `uploadImage` under a name the client already uses.
    case duplicateImage = 19
    /// A pool or buffer id the client has not created (or has destroyed) (Surfaces).
    case unknownBuffer = 20
    /// A pool or buffer that cannot be: no memfd sent, not a memfd, not sealed against
    /// shrinking, too small for the buffer, a stride or offset that does not fit (Surfaces).
    case invalidBuffer = 21
}

/// Why bytes could not be decoded into a message.
public enum WireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A field runs past the end of its message.
    case truncated(String)
    /// A field has an impossible value.
    case malformed(String)
    case unknownOpcode(UInt16)
    /// The length prefix exceeds the limit; `length` bytes are skipped.
    case tooLarge(length: Int, limit: Int)
    /// The length prefix is smaller than a header: the stream cannot be resynchronised.
    case badFraming(String)

    public var code: ErrorCode {
        switch self {
        case .truncated, .malformed: .malformed
        case .unknownOpcode: .unknownOpcode
        case .tooLarge: .messageTooLarge
        case .badFraming: .badHandshake
        }
    }

    public var description: String {
        switch self {
        case .truncated(let m): "truncated message: \(m)"
        case .malformed(let m): "malformed message: \(m)"
        case .unknownOpcode(let op): "unknown opcode 0x\(String(op, radix: 16))"
        case .tooLarge(let n, let limit): "message of \(n) bytes exceeds the limit of \(limit) bytes"
        case .badFraming(let m): "bad framing: \(m)"
        }
    }
}
