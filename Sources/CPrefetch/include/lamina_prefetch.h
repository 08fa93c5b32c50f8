// Software prefetch for the render thread's per-frame loops (LaminaTree's presentation plan,
// LaminaFrame's retained moves): a hint that brings one cache line into cache ahead of use.
// `static inline` around the compiler's builtin, so Swift imports and inlines it with no call
// and no symbol; it changes no value, and an address that is not mapped is ignored (no fault).
// Header-only: no library, nothing linked. Whether a frame prefetches at all is the driver
// profile's switch (`DriverProfile.prefetches`, LaminaRender).
#ifndef LAMINA_PREFETCH_H
#define LAMINA_PREFETCH_H

/// Brings the cache line holding `address` into every cache level, for reading (x86:
/// `prefetcht0`).
static inline __attribute__((always_inline)) void lamina_prefetch_read(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// Brings the cache line holding `address` into every cache level, for writing (x86:
/// `prefetchw` where the processor has it, else `prefetcht0`).
static inline __attribute__((always_inline)) void lamina_prefetch_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
