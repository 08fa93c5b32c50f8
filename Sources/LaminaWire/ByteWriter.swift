import LaminaGeometry

/// Appends little-endian primitives to a byte buffer.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    /// A writer that appends to `bytes`, taking them (`bytes` is left empty; `takeBytes()`
    /// hands them back), so that no copy is made while it writes.
    public init(appendingTo bytes: inout [UInt8]) {
        self.bytes = bytes
        bytes = []
    }

    /// Bytes written so far.
    public var count: Int { bytes.count }

    /// The bytes, leaving the writer empty.
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }
    public mutating func u16(_ v: UInt16) { bytes.append(UInt8(truncatingIfNeeded: v)); bytes.append(UInt8(truncatingIfNeeded: v >> 8)) }
    public mutating func u32(_ v: UInt32) { Swift.withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func u64(_ v: UInt64) { Swift.withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    public mutating func f64(_ v: Double) { u64(v.bitPattern) }
    public mutating func string(_ s: String) { u32(UInt32(s.utf8.count)); bytes.append(contentsOf: s.utf8) }
    public mutating func blob(_ b: [UInt8]) { u32(UInt32(b.count)); bytes.append(contentsOf: b) }
    public mutating func point(_ p: Point) { f64(p.x); f64(p.y) }

    /// Overwrites 4 bytes at `offset` (used to patch the length prefix).
    public mutating func patchU32(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> UInt32(8 * i)) }
    }
}

/// Reads little-endian primitives from a message body; every read checks the bounds.
public struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    public private(set) var offset: Int

    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes; offset = bytes.startIndex }

    public var remaining: Int { bytes.endIndex - offset }

    private mutating func take(_ n: Int, _ what: String) throws(WireError) -> ArraySlice<UInt8> {
        guard n >= 0, remaining >= n else {
            throw .truncated("\(what) needs \(n) bytes, \(remaining) left")
        }
        defer { offset += n }
        return bytes[offset..<offset + n]
    }

    public mutating func u8(_ what: String = "u8") throws(WireError) -> UInt8 { try take(1, what).first! }
    public mutating func u16(_ what: String = "u16") throws(WireError) -> UInt16 {
        let b = try take(2, what); return UInt16(b[b.startIndex]) | UInt16(b[b.startIndex + 1]) << 8
    }
    public mutating func u32(_ what: String = "u32") throws(WireError) -> UInt32 {
        let b = try take(4, what); var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(b[b.startIndex + i]) << UInt32(8 * i) }
        return v
    }
    public mutating func u64(_ what: String = "u64") throws(WireError) -> UInt64 {
        let b = try take(8, what); var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(b[b.startIndex + i]) << UInt64(8 * i) }
        return v
    }
    public mutating func f64(_ what: String = "f64") throws(WireError) -> Double { Double(bitPattern: try u64(what)) }
    public mutating func string(_ what: String = "string") throws(WireError) -> String {
        // (The length's label is made only when it is missing: no string built per read.)
        guard remaining >= 4 else { _ = try u32(what + " length"); return "" }
        let n = Int(try u32())
        let b = try take(n, what)
        // Key paths and names are ASCII: checked by a plain loop and made without the
        // general validator (which showed in the profile of batched sets).
        let s: String? = b.withUnsafeBufferPointer { buffer in
            var ascii = true
            for byte in buffer where byte >= 0x80 { ascii = false; break }
            return ascii ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
        guard let s else { throw .malformed("\(what) is not valid UTF-8") }
        return s
    }
    public mutating func blob(_ what: String = "bytes") throws(WireError) -> [UInt8] {
        let n = Int(try u32(what + " length"))
        return Array(try take(n, what))
    }
    /// A u8 that must be 0 or 1.
    public mutating func bool(_ what: String) throws(WireError) -> Bool {
        let b = try u8(what)
        guard b <= 1 else { throw .malformed("\(what) must be 0 or 1 (got \(b))") }
        return b == 1
    }
    public mutating func point(_ what: String) throws(WireError) -> Point { Point(try f64(what), try f64(what)) }

    /// Fails when bytes are left over after the message's fields.
    public func expectEnd(_ what: String) throws(WireError) {
        guard remaining == 0 else { throw .malformed("\(what) has \(remaining) unexpected trailing bytes") }
    }
}
