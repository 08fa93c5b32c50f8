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
/// idle (`RenderLoop`).
///
/// The library trims and reads the heap; it sets no process-wide allocator policy. glibc's
/// trim threshold changes only in a process whose executable adopted a `Policy` at startup.
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

    /// What this process lets renderers do with glibc's trim threshold, which is process-wide:
    /// an executable adopts a policy at startup (`adopt`), a library never does. Until one is
    /// adopted (libraries, tests), the threshold is never changed.
    public enum Policy: Sendable, Equatable {
        /// glibc's threshold (and its dynamic mmap threshold) as the C library sets them.
        case processDefault
        /// A renderer whose driver profile keeps freed heap (`DriverProfile.keptFreedHeap`:
        /// lavapipe's per-frame scene memory) raises the threshold to that figure when it opens
        /// its device; its idle releases run with the default (`withDefaultThreshold`).
        case driverProfile
    }

    /// The policy, what renderers asked to keep (the largest, whatever the policy), and how
    /// many releases run with the default now (they win while any runs).
    private static let threshold = Mutex<(policy: Policy, asked: Int?, kept: Int?, releases: Int)>((.processDefault, nil, nil, 0))

    /// glibc's default trim threshold (128 KiB).
    public static let defaultTrimThreshold = 128 << 10

    /// Sets the process's allocator policy. Call once at startup, from an executable
    /// (`laminad`, `lamina-viewer`, `lamina-bench`), before any renderer opens; adopting
    /// `.driverProfile` after a renderer asked applies what it asked.
    /// - Thread: any.
    public static func adopt(_ policy: Policy) {
        threshold.withLock {
            $0.policy = policy
            if policy == .driverProfile, $0.kept == nil, let asked = $0.asked {
                $0.kept = asked
                if $0.releases == 0 { setTrimThreshold(asked) }
            }
        }
    }

    /// The free memory this process keeps at the top of each arena (glibc's trim threshold as
    /// set here), nil while glibc's default stands (no policy adopted, or no renderer asked).
    public static var keptFreedHeap: Int? { threshold.withLock { $0.kept } }

    /// A renderer's driver profile asks to keep up to `bytes` of freed memory at the top of
    /// each arena (glibc's trim threshold, `mallopt(M_TRIM_THRESHOLD)`, the largest asked
    /// for): under `Policy.driverProfile`, free memory at an arena's top beyond it goes back to
    /// the system when a free makes it so. Process-wide; it also fixes the mmap threshold (no
    /// dynamic adjustment). Nothing under `.processDefault`, nor where there is no mallopt.
    static func keepFreed(_ bytes: Int) {
        threshold.withLock {
            $0.asked = max($0.asked ?? 0, bytes)
            guard $0.policy == .driverProfile else { return }
            $0.kept = $0.asked
            if $0.releases == 0 { setTrimThreshold($0.kept!) }
        }
    }

    /// Runs `body` with glibc's default trim threshold (a release whose frees should go back to
    /// the system at once), then restores what `keepFreed` set. A renderer asking for more
    /// meanwhile gets it when the last such release ends. Where nothing was kept, only runs
    /// `body` (the threshold is the default already, and stays untouched).
    public static func withDefaultThreshold<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let changed = threshold.withLock { t -> Bool in
            guard t.kept != nil else { return false }
            t.releases += 1
            setTrimThreshold(defaultTrimThreshold)
            return true
        }
        defer {
            if changed {
                threshold.withLock {
                    $0.releases -= 1
                    if $0.releases == 0, let kept = $0.kept { setTrimThreshold(kept) }
                }
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
