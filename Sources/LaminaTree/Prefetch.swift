import CPrefetch

// Software prefetch (`CPrefetch`: the compiler's `__builtin_prefetch`, x86's `prefetcht0` /
// `prefetchw`), for the render thread's per-frame loops whose data comes from memory rather
// than cache: on a CPU driver each frame follows the rasterizer's, which leaves nothing of the
// last frame's megabytes in cache, and where a loop's addresses are indirect (a node per move,
// items at a recorded place) the hardware prefetchers do not follow them. A hint: it changes no
// value, and an address that is not mapped is ignored (no fault). The loops prefetch only while
// their owner's `prefetches` is on (`LayerTree.prefetches`, `DrawListBuilder.prefetches`: the
// driver profile's switch, LaminaRender's `DriverProfile.prefetches`).

/// Brings the cache line holding `address` into cache, for reading.
@inlinable @inline(__always)
package func prefetch(_ address: UnsafeRawPointer) { lamina_prefetch_read(address) }

/// Brings the cache line holding `address` into cache, for writing.
@inlinable @inline(__always)
package func prefetchForWriting(_ address: UnsafeRawPointer) { lamina_prefetch_write(address) }
