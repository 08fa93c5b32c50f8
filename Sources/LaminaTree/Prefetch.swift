/// Software prefetch (LLVM's `llvm.prefetch` intrinsic: x86's `prefetcht0` / `prefetchw`),
/// for the render thread's per-frame loops whose data comes from memory rather than cache:
/// each frame follows the rasterizer's, which leaves nothing of the last frame's megabytes in
/// cache, and where a loop's addresses are indirect (a node per move, items at a recorded
/// place) the hardware prefetchers do not follow them. A hint: it changes no value, and an
/// address that is not mapped is ignored (no fault).
@usableFromInline @_silgen_name("llvm.prefetch.p0")
func llvmPrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ data: Int32)

/// Brings the cache line holding `address` into cache, for reading.
@inlinable @inline(__always)
package func prefetch(_ address: UnsafeRawPointer) { llvmPrefetch(address, 0, 3, 1) }

/// Brings the cache line holding `address` into cache, for writing.
@inlinable @inline(__always)
package func prefetchForWriting(_ address: UnsafeRawPointer) { llvmPrefetch(address, 1, 3, 1) }
