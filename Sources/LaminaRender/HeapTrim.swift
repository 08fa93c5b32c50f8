import Foundation
import Synchronization

/// Hands the heap's free pages back to the system (glibc's `malloc_trim`, looked up at run
/// time: it is not in the Glibc module, and other C libraries have none).
///
/// Memory a frame or a commit freed stays resident in malloc's arenas until something trims
/// them: a commit of 50,000 layers frees its packets, the builder's and the renderer's spare
/// buffers go when the render thread sleeps (`FrameDriver.willSleep`,
/// `OffscreenRenderer.releaseIdleBuffers`), and without a trim the daemon would keep their
/// pages (about 100 bytes a layer in `lamina-bench memory`). The render loop trims when it goes
/// idle, at most once a second (`RenderLoop`).
public enum HeapTrim {
    private static let function: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// Whether the C library can trim.
    public static var isAvailable: Bool { function != nil }

    /// Trims every arena now, keeping no pad. Returns whether any memory was handed back.
    @discardableResult
    public static func trim() -> Bool { (function?(0) ?? 0) != 0 }

    /// Bytes in allocated heap chunks (glibc's `mallinfo2`: `uordblks` + `hblkhd`), every
    /// arena's; 0 where it cannot be called.
    public static func bytesInUse() -> Int {
        #if arch(x86_64)
        // `struct mallinfo2` is ten size_t fields, returned in memory: on x86-64 (System V) the
        // caller passes the result's address as the first argument, so the function can be
        // called as one taking a pointer (the Glibc module does not export it).
        guard let f = mallinfo2 else { return 0 }
        var fields = [Int](repeating: 0, count: 10)
        fields.withUnsafeMutableBytes { _ = f($0.baseAddress!) }
        return fields[7] + fields[4]   // uordblks + hblkhd
        #else
        return 0
        #endif
    }

    private static let mallinfo2: (@convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?)? = {
        guard let symbol = dlsym(nil, "mallinfo2") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?).self)
    }()

    /// The trim threshold as set here: what renderers asked to keep (the largest), and how
    /// many releases run with the default now (they win while any runs).
    private static let threshold = Mutex<(kept: Int?, releases: Int)>((nil, 0))

    /// glibc's default trim threshold (128 KiB).
    public static let defaultTrimThreshold = 128 << 10

    /// Keeps up to `bytes` of freed memory at the top of each arena from now on (glibc's trim
    /// threshold, `mallopt(M_TRIM_THRESHOLD)`, the largest asked for): free memory at an
    /// arena's top beyond it goes back to the system when a free makes it so. Process-wide; it
    /// also fixes the mmap threshold (no dynamic adjustment). Nothing where there is no mallopt.
    public static func keepFreed(_ bytes: Int) {
        threshold.withLock {
            $0.kept = max($0.kept ?? 0, bytes)
            if $0.releases == 0 { setTrimThreshold($0.kept!) }
        }
    }

    /// Runs `body` with glibc's default trim threshold (a release whose frees should go back to
    /// the system at once), then restores what `keepFreed` asked for. A renderer asking for
    /// more meanwhile gets it when the last such release ends.
    public static func withDefaultThreshold<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        threshold.withLock {
            $0.releases += 1
            setTrimThreshold(defaultTrimThreshold)
        }
        defer {
            threshold.withLock {
                $0.releases -= 1
                if $0.releases == 0, let kept = $0.kept { setTrimThreshold(kept) }
            }
        }
        return try body()
    }

    private static func setTrimThreshold(_ bytes: Int) {
        // mallopt is in <malloc.h>, which the Glibc module does not import: look it up.
        let trimThreshold: Int32 = -1  // M_TRIM_THRESHOLD
        _ = mallopt?(trimThreshold, Int32(clamping: bytes))
    }

    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "mallopt") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }()
}
