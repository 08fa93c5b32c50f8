/// Encodes one message with its header.
public enum MessageEncoder {
    public static func encode(_ request: Request, requestID: UInt32) -> [UInt8] {
        frame(opcode: request.opcode, requestID: requestID) { request.encodeBody(&$0) }
    }
    public static func encode(_ event: Event, requestID: UInt32) -> [UInt8] {
        frame(opcode: event.opcode, requestID: requestID) { event.encodeBody(&$0) }
    }
    /// Appends one message with its header to `bytes`, written in place (no buffer of its own:
    /// a client staging many requests appends each to its outgoing bytes).
    public static func append(_ request: Request, requestID: UInt32, to bytes: inout [UInt8]) {
        var w = ByteWriter(appendingTo: &bytes)
        let start = w.count
        w.u32(0); w.u16(request.opcode); w.u16(0); w.u32(requestID)
        request.encodeBody(&w)
        w.patchU32(UInt32(w.count - start), at: start)
        bytes = w.takeBytes()
    }

    static func frame(opcode: UInt16, requestID: UInt32, _ body: (inout ByteWriter) -> Void) -> [UInt8] {
        var w = ByteWriter()
        w.u32(0); w.u16(opcode); w.u16(0); w.u32(requestID)
        body(&w)
        w.patchU32(UInt32(w.bytes.count), at: 0)
        return w.bytes
    }
}

/// One framed message: header fields and its body, undecoded.
public struct Frame: Hashable, Sendable {
    public var opcode: UInt16
    public var flags: UInt16
    public var requestID: UInt32
    public var body: ArraySlice<UInt8>
}

/// A frame, or a framing failure with the header's opcode and request id.
public enum FrameResult: Sendable {
    case frame(Frame)
    case failure(WireError, opcode: UInt16, requestID: UInt32)
}

/// What the decoder produced from the bytes so far.
public enum DecodeResult<Message: Sendable>: Sendable {
    case message(Message, requestID: UInt32)
    /// A message that could not be decoded; it was skipped and the stream continues.
    case failure(WireError, opcode: UInt16, requestID: UInt32)
}

/// Splits a byte stream into messages: a state machine with no I/O. Feed it bytes in any
/// pieces; `next()` returns complete messages. An oversized message is skipped (its bytes
/// are discarded as they arrive) and reported once; a length below the header size breaks
/// the framing for good (`isBroken`), and the connection must be closed.
public struct FrameDecoder: Sendable {
    public let maxMessageSize: Int
    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes still to discard from an oversized message.
    private var skipping = 0
    public private(set) var isBroken = false
    /// Bytes of the last message `nextFrame` returned, its header included (0 before the first,
    /// and for a skipped oversized one).
    public private(set) var lastFrameLength = 0

    public init(maxMessageSize: Int = Protocol.defaultMaxMessageSize) { self.maxMessageSize = maxMessageSize }

    /// Bytes held while waiting for the rest of a message.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func feed<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        guard !isBroken else { return }
        var slice = bytes[...]
        if skipping > 0 {
            let n = min(skipping, slice.count)
            skipping -= n
            slice = slice.dropFirst(n)
        }
        buffer.append(contentsOf: slice)
    }

    /// The next frame, a framing failure, or nil when more bytes are needed.
    public mutating func nextFrame() -> FrameResult? {
        guard !isBroken, skipping == 0 else { return nil }
        let available = buffer.count - start
        guard available >= Protocol.headerSize else { compact(); return nil }
        var r = ByteReader(buffer[start..<start + Protocol.headerSize])
        // SAFETY of the try!s: the slice holds exactly a header's bytes.
        let length = Int(try! r.u32()), opcode = try! r.u16(), flags = try! r.u16(), requestID = try! r.u32()
        guard length >= Protocol.headerSize else {
            isBroken = true
            buffer = []; start = 0
            return .failure(.badFraming("length \(length) is smaller than the \(Protocol.headerSize)-byte header"),
                            opcode: opcode, requestID: requestID)
        }
        if length > maxMessageSize {
            lastFrameLength = 0
            let have = min(available, length)
            start += have
            skipping = length - have
            compact()
            return .failure(.tooLarge(length: length, limit: maxMessageSize), opcode: opcode, requestID: requestID)
        }
        guard available >= length else { compact(); return nil }
        // The body shares the buffer (no copy): decoded before the next `feed`, it leaves the
        // buffer uniquely referenced again; a caller that keeps it only costs one copy then.
        let body = buffer[start + Protocol.headerSize..<start + length]
        lastFrameLength = length
        start += length
        if start == buffer.count { buffer = []; start = 0 }
        return .frame(Frame(opcode: opcode, flags: flags, requestID: requestID, body: body))
    }

    private mutating func compact() {
        if start > 0 && start >= buffer.count / 2 { buffer.removeFirst(start); start = 0 }
    }

    /// The next request, a failure to report, or nil when more bytes are needed.
    public mutating func nextRequest() -> DecodeResult<Request>? {
        next(Request.decodeBody)
    }

    /// The next event, a failure to report, or nil when more bytes are needed.
    public mutating func nextEvent() -> DecodeResult<Event>? {
        next(Event.decodeBody)
    }

    private mutating func next<M>(_ decode: (UInt16, inout ByteReader) throws(WireError) -> M) -> DecodeResult<M>? {
        guard let frame = nextFrame() else { return nil }
        switch frame {
        case .failure(let e, let opcode, let requestID): return .failure(e, opcode: opcode, requestID: requestID)
        case .frame(let f):
            guard f.flags == 0 else {
                return .failure(.malformed("flags must be 0"), opcode: f.opcode, requestID: f.requestID)
            }
            var r = ByteReader(f.body)
            do {
                return .message(try decode(f.opcode, &r), requestID: f.requestID)
            } catch {
                return .failure(error, opcode: f.opcode, requestID: f.requestID)
            }
        }
    }
}
