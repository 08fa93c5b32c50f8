import Foundation
import LaminaRender
import Testing

@Suite("Heap trim")
struct HeapTrimTests {
    /// The render loop trims the heap going idle: on this glibc system the function is found
    /// at run time (a C library without it would make `trim` do nothing, not fail).
    /// Skipped under a sanitizer (`scripts/sanitize` sets LAMINA_SANITIZER): AddressSanitizer
    /// and ThreadSanitizer replace malloc, so glibc's arenas hold nothing to trim.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["LAMINA_SANITIZER"] == nil,
                   "reads glibc's allocator, which a sanitizer replaces"))
    func mallocTrimIsFoundAndRuns() {
        #expect(HeapTrim.isAvailable)
        // 4,096 blocks of 16 KiB (below malloc's mmap threshold: they come from an arena),
        // written and freed: the arena then has free pages, which a trim hands back. (A daemon
        // of another test going idle may trim first; one of a few tries is ours.)
        var handedBack = false
        for _ in 0..<5 where !handedBack {
            var blocks: [UnsafeMutableRawPointer] = []
            for _ in 0..<4096 {
                let p = malloc(16 << 10)!
                memset(p, 1, 16 << 10)
                blocks.append(p)
            }
            for p in blocks { free(p) }
            handedBack = HeapTrim.trim()
        }
        #expect(handedBack)
    }
}
