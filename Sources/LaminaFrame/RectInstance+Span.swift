/// Stops the process when a write of `length` bytes at `offset` would not lie within `capacity`
/// bytes of `buffer` (a host-mapped buffer, or memory standing in for one): a write past the end
/// of mapped memory corrupts whatever the heap put after it — the driver's and the validation
/// layer's objects — and shows up far from the write. A few comparisons a write; always on.
@inlinable @inline(__always)
package func checkHostWrite(_ buffer: StaticString, offset: Int, length: Int, capacity: Int) {
    precondition(offset >= 0 && length >= 0 && offset <= capacity && length <= capacity - offset,
                 "\(buffer): a write of \(length) bytes at offset \(offset) passes its capacity of \(capacity) bytes")
}

extension RectInstance {
    /// Where `write` puts instances: `used` of `capacity` bytes written from `bytes` (the frame
    /// slot's mapped ring buffer, or any memory with room). A `packed` span (the ring) stores
    /// each instance as its kind's `stride` bytes; another the whole struct, so that it holds
    /// `count` `RectInstance`s.
    package struct Span {
        package var bytes: UnsafeMutableRawPointer
        package var capacity: Int
        package var used = 0
        package let packed: Bool

        /// A span of whole instances: `count` of `capacity` written from `base`.
        @inlinable
        package init(base: UnsafeMutablePointer<RectInstance>, capacity: Int, count: Int = 0) {
            bytes = UnsafeMutableRawPointer(base)
            self.capacity = capacity * MemoryLayout<RectInstance>.stride
            used = count * MemoryLayout<RectInstance>.stride
            packed = false
        }

        /// A packed span: `used` of `capacity` bytes written from `bytes` (16-byte aligned).
        @inlinable
        package init(packed bytes: UnsafeMutableRawPointer, capacity: Int, used: Int = 0) {
            self.bytes = bytes
            self.capacity = capacity
            self.used = used
            packed = true
        }

        /// Whole instances written (a span that is not `packed`).
        @inlinable
        package var count: Int { used / MemoryLayout<RectInstance>.stride }

        /// The bytes an instance of `kind` takes here.
        @inlinable @inline(__always)
        package func stride(_ kind: Kind) -> Int { packed ? RectInstance.stride(kind) : MemoryLayout<RectInstance>.stride }

        /// Whether `n` more instances of `kind` fit.
        @inlinable @inline(__always)
        package func hasRoom(_ n: Int, _ kind: Kind) -> Bool { capacity - used >= n * stride(kind) }

        /// Stores `instance` (its first `stride(kind)` bytes) at the end; `hasRoom` was checked.
        @inlinable @inline(__always)
        package mutating func append(_ instance: RectInstance, _ kind: Kind) {
            checkHostWrite("instance ring", offset: used, length: stride(kind), capacity: capacity)
            let at = bytes + used
            // A constant number of vec4 stores per stride (a copyMemory is a memmove, which
            // LLVM leaves a call above a few vectors).
            withUnsafeBytes(of: instance) { source in
                let from = source.baseAddress.unsafelyUnwrapped
                @inline(__always) func store(_ vectors: Int) {
                    for i in 0..<vectors {
                        at.storeBytes(of: from.load(fromByteOffset: 16 * i, as: SIMD4<Float>.self), toByteOffset: 16 * i,
                                      as: SIMD4<Float>.self)
                    }
                    used += 16 * vectors
                }
                switch stride(kind) {
                case 96: store(6)
                case 128: store(8)
                case 144: store(9)
                case 176: store(11)
                default: store(14)
                }
            }
        }
    }
}
