import CVulkan
import Glibc
import LaminaFrame

/// Every choice Lamina makes because of one driver, as one named switch: which driver, the
/// evidence, the figure, and when it can go. The renderer picks the profile from the device it
/// opens (`OffscreenRenderer.driverProfile`): a CPU device (lavapipe, whose rasterizer is
/// llvmpipe) gets `cpuRasterizer`, today's behaviour, measured on this machine; any other
/// device gets `gpu`, with each switch chosen for lavapipe off. No figure from a real GPU
/// exists yet: `gpu` is the plain path, what a GPU does not need the workaround for, and a
/// switch turns on for it only with a measurement.
///
/// Where each switch is read:
/// - `releasesDriverScratch`: `OffscreenRenderer` makes its `DriverScratch` only when on
///   (`releaseDriverFrameMemory` does nothing without one).
/// - `keptFreedHeap`: `OffscreenRenderer` asks `HeapTrim.keepFreed` for it when it opens the
///   device; glibc's threshold changes only in a process whose executable adopted
///   `HeapTrim.Policy.rendering` at startup (a library sets no process-wide allocator policy).
/// - `usesShapeAtlas`, `prefetches`: `FrameDriver.adopt(_:)` (the render loop, once its
///   renderer is open), into `FrameDriver.allowsShapeAtlas` (and, with it, coverage made in the
///   frame: `rasterizesNewShapes`) and `FrameDriver.prefetches`.
/// - `releasesIdleRings`: the render loop's idle ladder calls `releaseIdleBuffers(all: true)`
///   only when on.
///
/// Sendable: a value.
public struct DriverProfile: Sendable, Equatable, CustomStringConvertible {
    /// The profile's name: "cpuRasterizer" or "gpu".
    public var name: String

    /// **Late scene-memory release** (`DriverScratch`). Driver: llvmpipe (lavapipe, Mesa
    /// 22–23) keeps a render pass's binned scene — about 230 bytes a triangle — until a later
    /// draw takes that scene, so the last frame before an idle spell keeps its binning for as
    /// long as the daemon is idle. Evidence: 539 of the ~1,350 heap bytes per drawn layer that
    /// `lamina-bench memory --layers 50000 --trim` measured (docs/performance.md, "Session 7").
    /// Figure: heap per drawn layer 1,349 → 465 B with the idle releases together. Can go when
    /// llvmpipe frees a finished scene on its own. Off on a GPU: the binning is the device's.
    public var releasesDriverScratch: Bool

    /// **Freed heap kept** (glibc's trim threshold), in bytes; nil: the process's default.
    /// Driver: llvmpipe mallocs and frees tens of MiB each frame (its scene data, 16–64 MiB),
    /// and with glibc's default threshold (128 KiB) that memory went back to the kernel after
    /// every frame and was page-faulted in again. Evidence: 35 % of all CPU time with 2,000
    /// meshes a frame; figure: `lamina-bench frames --mix shape` ~300 → ~170 ms a frame with
    /// 64 MiB kept (16 MiB is not enough). Can go when llvmpipe pools its scene memory. Nil on
    /// a GPU: frames allocate nothing comparable on the heap.
    public var keptFreedHeap: Int?

    /// **Shape atlas** (LaminaFrame's `ShapeAtlas`): a shape unchanged since the last frame is
    /// drawn as one textured quad instead of its coverage meshes. Driver: llvmpipe rasterizes
    /// mesh triangles on the CPU, where a shape's many small triangles cost far more than one
    /// sampled quad. Evidence: `lamina-bench frames --layers 1000 --size 1280x720 --mix shape`
    /// GPU 138 / 172 → 17.5 / 19.0 ms a frame (docs/performance.md, "Frame cost against the
    /// peers"). Can go for a device where drawing the meshes measures as fast. Off on a GPU
    /// until measured there: meshes are exact at every scale and need no atlas memory.
    public var usesShapeAtlas: Bool

    /// **Software prefetch** in the frame's CPU loops (`LayerTree.prefetches`,
    /// `DrawListBuilder.prefetches`; `CPrefetch`). Driver: each frame follows llvmpipe's
    /// rasterization on the same cores, which leaves nothing of the last frame's megabytes in
    /// cache, and the loops' addresses are indirect (the hardware prefetchers do not follow
    /// them). Evidence: the draw list's moves 0.43–0.50 → 0.28–0.31 ms in `lamina-bench
    /// frames --layers 10000`; the presentation's fast runs −0.02 to −0.04 ms
    /// (docs/performance.md, "what changed"). Measured again with `CPrefetch` (release,
    /// alternating, LAMINA_PREFETCH=0 for off): render-thread CPU p50 1.78 / 1.71 / 1.89 ms
    /// with it, 2.00 / 1.98 / 1.96 ms without (evaluation 0.72–0.75 → 0.85–0.87). Can go when the loops' data stays in cache
    /// between frames. Off on a GPU, whose rasterization leaves the CPU's caches alone.
    public var prefetches: Bool

    /// **Idle ring release**: idle a second, the render loop lets go of the last frame's
    /// instance ring and clip buffer too (`OffscreenRenderer.releaseIdleBuffers(all: true)`),
    /// and the next frame writes every instance again (about 0.13 µs an item). Driver: on
    /// lavapipe "device" memory is the process's heap, so the ring counts in the daemon's
    /// resident memory: about 252 B per drawn layer of `lamina-bench memory --layers 50000
    /// --trim` (docs/performance.md, "Session 7"). Can go when the ring is small enough not to
    /// matter. Off on a GPU: the ring is the driver's memory, and keeping it keeps the next
    /// frame's patch.
    public var releasesIdleRings: Bool

    public init(name: String, releasesDriverScratch: Bool, keptFreedHeap: Int?, usesShapeAtlas: Bool,
                prefetches: Bool, releasesIdleRings: Bool) {
        self.name = name
        self.releasesDriverScratch = releasesDriverScratch
        self.keptFreedHeap = keptFreedHeap
        self.usesShapeAtlas = usesShapeAtlas
        self.prefetches = prefetches
        self.releasesIdleRings = releasesIdleRings
    }

    /// A CPU device (lavapipe / llvmpipe): every switch on, as measured on this machine.
    public static let cpuRasterizer = DriverProfile(name: "cpuRasterizer", releasesDriverScratch: true,
                                                    keptFreedHeap: 64 << 20, usesShapeAtlas: true,
                                                    prefetches: true, releasesIdleRings: true)

    /// Any other device (discrete, integrated or virtual GPU): every switch chosen for
    /// lavapipe off.
    public static let gpu = DriverProfile(name: "gpu", releasesDriverScratch: false, keptFreedHeap: nil,
                                          usesShapeAtlas: false, prefetches: false, releasesIdleRings: false)

    /// The profile for a device of `type`: `cpuRasterizer` for a CPU device, `gpu` otherwise.
    static func forDevice(_ type: VkPhysicalDeviceType) -> DriverProfile {
        type == VK_PHYSICAL_DEVICE_TYPE_CPU ? .cpuRasterizer : .gpu
    }

    /// The profile named `name` ("cpuRasterizer" or "gpu"), nil for any other name or nil.
    public static func named(_ name: String?) -> DriverProfile? {
        switch name {
        case "cpuRasterizer": .cpuRasterizer
        case "gpu": .gpu
        default: nil
        }
    }

    public var description: String {
        "\(name) (driverScratch: \(releasesDriverScratch), keptFreedHeap: \(keptFreedHeap.map(String.init) ?? "default"), "
            + "shapeAtlas: \(usesShapeAtlas), prefetch: \(prefetches), idleRings: \(releasesIdleRings))"
    }
}

extension DriverProfile {
    /// Whether shapes the shape atlas does not draw this frame are drawn from coverage made in
    /// the frame (LaminaFrame's `DrawListBuilder.rasterizesNewShapes`): with the atlas, where the
    /// mesh shader's per-pixel integral runs on the CPU; `LAMINA_FRAME_COVERAGE=0` keeps their
    /// meshes, as before (to compare in one binary).
    public var rasterizesNewShapes: Bool {
        usesShapeAtlas && getenv("LAMINA_FRAME_COVERAGE").map { String(cString: $0) } != "0"
    }
}

extension FrameDriver {
    /// Takes the frame-side switches of the renderer's driver profile: whether shapes may be
    /// drawn from the shape atlas (and from coverage made in the frame) and whether the frame's
    /// loops prefetch. Call once the
    /// renderer has opened its device (`OffscreenRenderer.driverProfile`).
    /// - Thread: the driver's (render) thread.
    public mutating func adopt(_ profile: DriverProfile) {
        allowsShapeAtlas = profile.usesShapeAtlas
        rasterizesNewShapes = profile.rasterizesNewShapes
        prefetches = profile.prefetches
    }
}
