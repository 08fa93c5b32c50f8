/// What the render thread lets go of while it sleeps with nothing to draw, and when: a ladder
/// of releases, each after a longer idle spell. Pure (idle times in, releases out; no clock,
/// no Vulkan), so that it is tested without a GPU (`IdlePolicyTests`); `RenderLoop` waits on
/// its semaphore for each rung's delay and performs the rung's releases when the wait times
/// out (a wake-up ends the ladder: the thread draws at once).
///
/// The ladder (defaults):
///
/// | idle | releases | why then |
/// |---|---|---|
/// | at once | `spareSlots`: every frame slot's ring and clip buffer but the last drawn one's | the next frame uses the last slot's |
/// | 250 ms | `appliedPackets`, `driverScratch` (a CPU driver's memory for the last frames, `OffscreenRenderer.releaseDriverFrameMemory`), `heapTrim` | a client committing more often than this keeps them (0.25–0.4 ms to release; a trim 0.2–0.6 ms with 50,000 layers) |
/// | 1 s (750 ms later) | `lastSlot` (`releaseIdleBuffers(all: true)`), `heapTrim` | a client committing once a second or more often keeps its ring, and its frames patch it; after it, the next frame writes every instance again (about 0.12 µs an item, once per idle spell) |
///
/// The switches (`releasesDriverScratch`, `releasesIdleRings`) are driver choices — a
/// `DriverProfile` sets them; off, the rung keeps that memory (a rung left with nothing to
/// release is dropped).
///
/// Any thread may make one; the render thread keeps it.
struct IdlePolicy: Equatable, Sendable {
    /// Memory the render thread lets go of.
    struct Release: OptionSet, Hashable, Sendable {
        let rawValue: Int
        /// The idle frame slots' buffers: every slot's ring and clip buffer but the last drawn
        /// one's (`OffscreenRenderer.releaseIdleBuffers()`).
        static let spareSlots = Release(rawValue: 1 << 0)
        /// The packets the last frame applied (their values are in the tree by now).
        static let appliedPackets = Release(rawValue: 1 << 1)
        /// A CPU driver's memory for the last frames (`OffscreenRenderer.releaseDriverFrameMemory`).
        static let driverScratch = Release(rawValue: 1 << 2)
        /// The heap's free pages, back to the system (`HeapTrim.trim`).
        static let heapTrim = Release(rawValue: 1 << 3)
        /// The last drawn slot's ring and clip buffer too (`releaseIdleBuffers(all: true)`).
        static let lastSlot = Release(rawValue: 1 << 4)
    }

    /// One rung: after `delay` more seconds of sleep, `releases` go.
    struct Rung: Equatable, Sendable {
        /// Seconds after the previous rung (or after going to sleep, for the first).
        var delay: Double
        var releases: Release
    }

    /// Seconds idle before the first timed rung (250 ms).
    static let defaultReleaseDelay = 0.25
    /// Seconds after that before the ring rung (750 ms: one second idle in all).
    static let defaultRingReleaseDelay = 0.75

    /// Released as the thread goes to sleep, before any wait.
    let atSleep: Release
    /// The timed rungs, in order.
    let rungs: [Rung]

    /// - Parameters:
    ///   - releasesDriverScratch: the first rung has the driver free its frame memory.
    ///   - releasesIdleRings: after `ringReleaseDelay` more, the last slot's ring goes too.
    ///   - releaseDelay: seconds idle before the first rung.
    ///   - ringReleaseDelay: seconds after the first rung before the ring rung.
    init(releasesDriverScratch: Bool = true, releasesIdleRings: Bool = true,
         releaseDelay: Double = IdlePolicy.defaultReleaseDelay,
         ringReleaseDelay: Double = IdlePolicy.defaultRingReleaseDelay) {
        atSleep = .spareSlots
        var first: Release = [.appliedPackets, .heapTrim]
        if releasesDriverScratch { first.insert(.driverScratch) }
        var rungs = [Rung(delay: releaseDelay, releases: first)]
        if releasesIdleRings { rungs.append(Rung(delay: ringReleaseDelay, releases: [.lastSlot, .heapTrim])) }
        self.rungs = rungs
    }

    /// Seconds of sleep (since going to sleep) at which each rung is due.
    var dueTimes: [Double] {
        var t = 0.0
        return rungs.map { t += $0.delay; return t }
    }

    /// Everything released once the thread has slept `seconds` without being woken.
    func released(afterIdle seconds: Double) -> Release {
        var out = atSleep
        for (due, rung) in zip(dueTimes, rungs) where seconds >= due { out.formUnion(rung.releases) }
        return out
    }

    /// The rung after `index` rungs have run, or nil: nothing more to release, so sleep until
    /// woken.
    func rung(after index: Int) -> Rung? { index < rungs.count ? rungs[index] : nil }
}
