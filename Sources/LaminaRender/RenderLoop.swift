import Foundation
import LaminaAnimation
import LaminaModel
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaTree
import Synchronization

/// Settings of the render thread.
public struct RenderConfig: Sendable {
    public var widthPoints: Double = 1280
    public var heightPoints: Double = 720
    public var scale: Double = 1
    /// Target frames per second (realtime clock).
    public var fps: Double = 120
    public var background: Color = .black
    /// Present every frame to this window too (`lamina-viewer`); its drawable size and
    /// content scale set the screen's size in points (pixels ÷ (`scale` × content scale)).
    public var window: WindowSurface? = nil
    /// Steps templates and expressions together may spend per frame (`FrameDriver`).
    public var programStepsPerFrame = LayerTree.defaultProgramStepsPerFrame
    /// Bytes of decoded tiles tiled layers keep in memory (`TileStore.budgetBytes`).
    public var tileCacheBytes = TileStore.defaultBudget
    /// Shared-memory surfaces copied by the GPU straight from the client's pages where the
    /// device imports host memory (`HostMemorySurfaces`); false: always copied on the CPU.
    public var surfaceZeroCopy = true
    /// Of those, buffers whose stride and offset fit a linear image sampled in place, without
    /// any copy (`HostMemorySurfaces.samplesInPlace`); false: copied by the GPU.
    public var surfaceInPlace = true
    /// The automatic raster cache (`FrameDriver.rasterizesAutomatically`); off by default.
    public var automaticRasterCache = false
    /// The automatic raster cache for masked and filtered subtrees
    /// (`FrameDriver.rasterizesEffects`); on by default.
    public var effectRasterCache = true
    public init() {}
}

/// A captured frame: straight-alpha RGBA8 pixels, rows top to bottom.
public struct CapturedFrame: Sendable {
    public var time: Double
    public var width: Int
    public var height: Int
    public var rgba: [UInt8]
}

/// Why a render-loop request failed.
public enum RenderLoopError: Error, Sendable, CustomStringConvertible {
    case stopped
    case render(String)
    public var description: String {
        switch self {
        case .stopped: "the render thread has stopped"
        case .render(let m): m
        }
    }
}

/// The render thread: a thread and a Vulkan backend around a `FrameDriver`. At the start of
/// each frame it applies every queued packet in order, so a transaction is never half
/// visible; evaluates the presentation tree at the frame time and publishes it as an
/// immutable `PresentationSnapshot`; renders the draw list through Vulkan into the offscreen
/// target.
///
/// Work reaches it through one lock-protected inbox that it drains by swapping. Vulkan objects
/// are made on the render thread and never leave it. What it hands back — the snapshot, the
/// statistics, and an outbox of the tree's events and capture results — is swapped under
/// locks (none held while rendering); it then calls the waker so that the server drains it.
/// No closure of another thread runs on it. Any thread may call the public methods.
///
/// Each turn of the thread is drain, frame, present, sleep (`run`); when the next frame is
/// due is `FramePacing`'s, what goes while idle is `IdlePolicy`'s, and the read-backs are
/// `FrameCaptures`' — pure or small types of their own.
public final class RenderLoop: Sendable {
    /// Wakes the thread that drains the outbox (the server's poll loop); called on the render
    /// thread after a frame that left something in the outbox or that someone asked for.
    public typealias Waker = @Sendable () -> Void

    /// A capture's result, tagged with the caller's `tag`.
    public struct CaptureResult: Sendable {
        public var tag: UInt64
        public var result: Result<CapturedFrame, RenderLoopError>
    }

    /// What the render thread hands back: the tree's events (animation started/stopped,
    /// transaction completed) in order, and finished captures.
    public struct Outbox: Sendable {
        public var events: [TreeEvent] = []
        public var captures: [CaptureResult] = []
        /// A client-drawn tiled image's wishes changed (`TileSource.clientWishes`): the server
        /// asks its client for the new tiles.
        public var tileWishes = false
        /// The newest packet sequence whose buffers the GPU has finished reading (nil: no
        /// frame since the last take): the server sends `bufferReleased` no earlier.
        public var surfaceReadsCompleted: UInt64?
    }

    private struct Inbox {
        var packets: [CommitPacket] = []
        /// Image map changes (applied before the packets), in order.
        var images: [(name: String, image: Image?)] = []
        /// File-backed tile sources added (applied before the images).
        var tileSources: [(name: String, source: TileSource)] = []
        /// Client-drawn tiles (`provideTile`), applied with the tile sources.
        var tiles: [(source: TileSource, key: TileKey, image: Image, serial: UInt64)] = []
        /// A new `FrameDriver.emitterBirthsEnd` (Reduce Motion changed), applied with the images.
        var birthsEnd: Double?? = nil
        var captures: [CaptureRequest] = []
        /// Someone waits for the next snapshot: wake them after the next frame.
        var notify = false
        var stop = false
        var dirty = true
    }

    public let config: RenderConfig
    public let clock: CompositorClock
    private let inbox = Mutex(Inbox())                       // protected by its own lock
    private let outbox = Mutex(Outbox())                     // protected by its own lock
    private let published = Mutex(FrameStats())             // protected by its own lock
    private let latest = Mutex<PresentationSnapshot?>(nil)   // protected by its own lock
    /// When the render thread went to sleep with nothing to draw (uptime ns), nil while awake.
    /// When the render thread went to sleep (uptime nanoseconds, and the clock's real seconds),
    /// while it sleeps.
    private let idleSince = Mutex<(nanos: UInt64, real: Double)?>(nil)   // protected by its own lock
    private let wake = DispatchSemaphore(value: 0)
    /// How long the render thread sleeps before it lets go of the driver's frame memory and
    /// trims the heap (seconds): a client committing more often than this keeps both.
    static var idleReleaseDelay: Double { IdlePolicy.defaultReleaseDelay }
    /// How long after that it also lets go of the last frame's instance ring
    /// (`releaseIdleBuffers(all:)`): a client committing once a second or more often keeps it,
    /// and its frames patch it.
    static var idleRingReleaseDelay: Double { IdlePolicy.defaultRingReleaseDelay }
    private let thread = Mutex<JoinableThread?>(nil)   // set once by start, taken by stop
    private let waker = Mutex<Waker?>(nil)             // protected by its own lock

    public init(config: RenderConfig, clock: CompositorClock) {
        self.config = config
        self.clock = clock
    }

    /// The render thread's validation messages so far (`LAMINA_VALIDATION=1`; empty without it).
    public var validationMessages: [String] { validation.withLock { $0 }?.messages ?? [] }
    private let validation = Mutex<ValidationLog?>(nil)

    /// Starts the render thread and waits until its Vulkan device is ready.
    /// - Throws: `RenderError` when no Vulkan device can be opened (the message names the package).
    public func start() throws(RenderError) {
        let ready = Mutex<RenderError??>(nil)
        let readySignal = DispatchSemaphore(value: 0)
        let started = JoinableThread(name: "lamina-render") { [self] in
            let renderer: OffscreenRenderer
            do throws(RenderError) {
                renderer = try OffscreenRenderer(width: max(1, Int((config.widthPoints * config.scale).rounded())),
                                                 height: max(1, Int((config.heightPoints * config.scale).rounded())),
                                                 window: config.window, fps: config.fps)
            } catch {
                ready.withLock { $0 = .some(error) }
                readySignal.signal()
                return
            }
            validation.withLock { $0 = renderer.validationLog }
            presented.withLock { $0 = renderer.presentPacing.map { PresentationCounts(pacing: $0, presented: 0,
                                                                                  unpresented: 0, swapchains: 0) } }
            ready.withLock { $0 = .some(nil) }
            readySignal.signal()
            run(renderer)
        }
        readySignal.wait()
        if case .some(.some(let error)) = ready.withLock({ $0 }) {
            started.join()
            inbox.withLock { $0.stop = true }
            throw error
        }
        thread.withLock { $0 = started }
    }

    /// Queues a validated packet; it becomes visible at the start of the next frame.
    public func submit(_ packet: CommitPacket) {
        inbox.withLock { $0.packets.append(packet); $0.dirty = true }
        wake.signal()
    }

    /// Puts an image in the frame's image map (nil removes it) before the packets submitted
    /// after it. No frame by itself: only a packet makes a layer show it.
    public func setImage(_ name: String, _ image: Image?) {
        inbox.withLock { $0.images.append((name, image)) }
    }

    /// Puts a file-backed tile source under a qualified image name (`FrameDriver.setTileSource`)
    /// before the packets submitted after it; `setImage(name, nil)` removes it.
    public func setTileSource(_ name: String, _ source: TileSource) {
        inbox.withLock { $0.tileSources.append((name, source)) }
    }

    /// A client's tile of a client-drawn tiled image (checked by the server), cached for the
    /// next frame, which it makes.
    public func provideTile(_ source: TileSource, _ key: TileKey, _ image: Image, serial: UInt64) {
        inbox.withLock { $0.tiles.append((source, key, image, serial)); $0.dirty = true }
        wake.signal()
    }

    /// Reduce Motion for emitters (`FrameDriver.emitterBirthsEnd`): no particle is born after
    /// compositor time `time` (nil: they are born again); applied at the next frame.
    public func setEmitterBirthsEnd(_ time: Double?) {
        inbox.withLock { $0.birthsEnd = .some(time); $0.dirty = true }
        wake.signal()
    }

    /// Asks the render thread to render the frame at compositor time `time` (or the current
    /// time when nil) and read it back; the result comes back in the outbox under `tag`.
    public func capture(at time: Double?, tag: UInt64) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stop else { return false }
            inbox.captures.append(CaptureRequest(time: time, tag: tag))
            return true
        }
        if accepted {
            wake.signal()
        } else {
            outbox.withLock { $0.captures.append(CaptureResult(tag: tag, result: .failure(.stopped))) }
            waker.withLock { $0 }?()
        }
    }

    /// Sets who is woken when the outbox has something or a requested frame is published
    /// (call before `start`).
    public func setWaker(_ body: @escaping Waker) {
        waker.withLock { $0 = body }
    }

    /// Asks for a frame (the clock moved, or a query waits for a newer snapshot); the waker
    /// runs once its snapshot is published.
    public func requestFrame() {
        inbox.withLock { $0.dirty = true; $0.notify = true }
        wake.signal()
    }

    /// The tile cache's bytes after the latest frame, and the most it held (`tileCacheBytes`
    /// is its budget).
    public var tileCacheBytes: (resident: Int, peak: Int) { tileCache.withLock { $0 } }
    private let tileCache = Mutex((resident: 0, peak: 0))

    /// What the zero-copy surface path has done (`HostMemorySurfaces`; all zero without one).
    public var zeroCopyCounts: ZeroCopyCounts { zeroCopy.withLock { $0 } }
    private let zeroCopy = Mutex(ZeroCopyCounts())

    /// The newest published presentation snapshot (nil before the first frame).
    public var snapshot: PresentationSnapshot? { latest.withLock { $0 } }

    /// Takes what the render thread handed back since the last call.
    public func takeOutbox() -> Outbox {
        outbox.withLock { o in
            defer { o = Outbox() }
            return o
        }
    }

    /// The latest published frame statistics (while the render thread sleeps, its idle time
    /// counts up to now).
    public var stats: FrameStats {
        var s = published.withLock { $0 }
        if let since = idleSince.withLock({ $0 }) {
            let now = DispatchTime.now().uptimeNanoseconds
            s.idleSeconds += Double(now &- since.nanos) / 1e9
        }
        return s
    }

    private static func counts(_ c: HUDCounts, clients: Int) -> HUDCounts {
        var c = c
        c.clients = clients
        return c
    }

    /// Turns the viewer's overlays on or off from the next frame (any thread).
    public func setOverlay(_ settings: OverlaySettings) {
        overlaySettings.withLock { $0 = settings }
        inspecting.store(settings.inspector, ordering: .relaxed)
        requestFrame()
    }
    private let overlaySettings = Mutex(OverlaySettings())   // protected by its own lock

    /// The inspector's pointer: the canvas point (points) whose topmost layer it outlines,
    /// hit-tested against each frame's presentation tree; nil outlines none (any thread).
    public func setInspectorPointer(_ point: Point?) {
        let changed = inspectorInput.withLock { i -> Bool in
            defer { i.pointer = point }
            return i.pointer != point
        }
        if changed && overlaySettings.withLock({ $0.inspector }) { requestFrame() }
    }

    /// Pins a layer in the inspector (its outline and its panel of presentation values and
    /// running animations, updated every frame), or unpins with nil (any thread).
    public func setInspectorPinned(_ layer: LayerID?) {
        inspectorInput.withLock { $0.pinned = layer }
        if overlaySettings.withLock({ $0.inspector }) { requestFrame() }
    }

    /// What the inspector's labels say of each client after "client N"
    /// (`Inspector.describe`: its `hello` name, its process); the server thread sets them while
    /// `wantsClientNames`.
    public func setClientNames(_ names: [UInt32: String]) {
        let changed = inspectorInput.withLock { i -> Bool in
            guard i.names != names else { return false }
            i.names = names
            return true
        }
        if changed && overlaySettings.withLock({ $0.inspector }) { requestFrame() }   // the label says the new name
    }

    /// Whether the inspector is on, so the server thread keeps the client names current (an
    /// atomic read: nothing else while it is off).
    public var wantsClientNames: Bool { inspecting.load(ordering: .relaxed) }

    /// What the inspector reads (any thread writes it; the render thread reads it per frame
    /// while the inspector is on).
    private struct InspectorInput {
        var pointer: Point?
        var pinned: LayerID?
        var names: [UInt32: String] = [:]
    }
    private let inspectorInput = Mutex(InspectorInput())   // protected by its own lock
    private let inspecting = Atomic<Bool>(false)

    /// The number of connected clients, for the HUD's text (the server thread sets it).
    public func setClientCount(_ n: Int) { clientCount.store(n, ordering: .relaxed) }
    private let clientCount = Atomic<Int>(0)

    /// The window's presentation so far (nil without a window), updated with the statistics.
    public var presentation: PresentationCounts? { presented.withLock { $0 } }
    private let presented = Mutex<PresentationCounts?>(nil)   // protected by its own lock

    /// Whether a trace is recording: the render thread's one check per frame when it is not.
    private let tracing = Atomic<Bool>(false)
    private let trace = Mutex<FrameTrace?>(nil)   // protected by its own lock

    /// Starts recording a trace of at most `frameCapacity` frames (its arrays are reserved
    /// here, not on the render thread). False, and nothing changes, when one is recording.
    public func startTrace(frameCapacity: Int = FrameTrace.defaultFrameCapacity) -> Bool {
        let fresh = FrameTrace(frameCapacity: frameCapacity, started: clock.realSeconds)
        let started = trace.withLock { t -> Bool in
            guard t == nil else { return false }
            t = fresh
            return true
        }
        if started { tracing.store(true, ordering: .releasing) }
        return started
    }

    /// Whether a trace is recording.
    public var isTracing: Bool { tracing.load(ordering: .acquiring) }

    /// Stops the recording and returns it; nil when none was recording. While the render thread
    /// sleeps, the spell it is sleeping ends the recording (up to now): it would otherwise be
    /// recorded only when the thread wakes, after the recording is gone.
    public func stopTrace() -> FrameTrace? {
        tracing.store(false, ordering: .releasing)
        let now = clock.realSeconds
        let asleepSince = idleSince.withLock { $0?.real }
        return trace.withLock { t -> FrameTrace? in
            guard var taken = t else { return nil }
            t = nil
            taken.stopped = now
            if let since = asleepSince { taken.record(idle: FrameTrace.Idle(start: since, end: now)) }
            return taken
        }
    }

    /// Runs `body` on the recording, when one is recording (render thread).
    private func traced(_ body: (inout FrameTrace) -> Void) {
        guard tracing.load(ordering: .relaxed) else { return }
        trace.withLock { t in if t != nil { body(&t!) } }
    }

    /// Stops the render thread and waits for it to release the GPU.
    public func stop() {
        let wasRunning = inbox.withLock { inbox -> Bool in
            defer { inbox.stop = true }
            return !inbox.stop
        }
        guard wasRunning else { return }
        wake.signal()
        thread.withLock { t in
            t?.join()
            t = nil
        }
    }

    // MARK: Render thread

    /// What the render thread keeps from one turn to the next (render thread only).
    private struct RenderThreadState {
        let renderer: OffscreenRenderer
        /// The render tree, its snapshots and the draw-list builder. The model tree (server
        /// thread) has applied every limit already.
        var driver: FrameDriver
        var viewport: WindowViewport
        var overlay = ViewerOverlay()
        /// The published statistics the HUD's text shows.
        var hudCounts = HUDCounts()
        /// When the statistics were last published (real seconds; -1: publish with the next frame).
        var lastPublish = -1.0
        let realtime: Bool
        /// What the render thread lets go of while idle, and when (the memory ladder), with the
        /// rungs the device's driver profile asks for.
        let idlePolicy: IdlePolicy
    }

    /// The render thread: drain, frame, present, sleep — until a stop is drained.
    private func run(_ renderer: OffscreenRenderer) {
        let realtime = clock.mode == .realtime
        var state = RenderThreadState(
            renderer: renderer,
            driver: FrameDriver(widthPoints: config.widthPoints, heightPoints: config.heightPoints,
                                scale: config.scale, background: config.background, targetFPS: config.fps),
            viewport: WindowViewport(config: config), realtime: realtime,
            idlePolicy: IdlePolicy(releasesDriverScratch: renderer.driverProfile.releasesDriverScratch,
                                   releasesIdleRings: renderer.driverProfile.releasesIdleRings))
        state.driver.programStepsPerFrame = config.programStepsPerFrame
        state.driver.tileStore = TileStore(budgetBytes: config.tileCacheBytes)
        state.driver.rasterizesAutomatically = config.automaticRasterCache
        state.driver.rasterizesEffects = config.effectRasterCache
        if let host = renderer.hostSurfaces {
            if !config.surfaceZeroCopy { host.enabled = false }
            if !config.surfaceInPlace { host.samplesInPlace = false }
            state.driver.surfaceUploader = host
            // A batch of copies finished after its frame: the server may release its buffers.
            host.onReadsCompleted { [weak self] sequence in
                guard let self else { return }
                self.outbox.withLock { $0.surfaceReadsCompleted = max($0.surfaceReadsCompleted ?? 0, sequence) }
                self.wakeServer()
            }
            // Buffers no longer sampled in place were let go: a frame frees their imports.
            host.onPoolsLetGo { [weak self] in
                guard let self else { return }
                self.inbox.withLock { $0.dirty = true }
                self.wake.signal()
            }
        }
        state.driver.adopt(renderer.driverProfile)   // the shape atlas and prefetching where they pay
        var pacing = FramePacing(fps: config.fps, renderThreadPaces: renderer.presentPacing?.renderThreadPaces,
                                 realtime: realtime, start: clock.realSeconds)
        while true {
            guard var work = drain() else { return }
            var drew = false
            if let made = frame(&state, applying: work) {
                present(&state, made, captures: FrameCaptures(requests: work.captures),
                        wakes: work.notify || !made.frame.events.isEmpty || made.tileWishes)
                drew = true
            }
            if mayIdle(state) {
                sleepUntilWoken(&state, holding: &work)
                pacing.restart(at: clock.realSeconds)
            } else {
                sleepUntilDue(&state, &pacing, drew: drew)
            }
        }
    }

    /// Drain: takes everything queued since the last turn by swapping the inbox (under its
    /// lock); nil once a stop is queued (its captures fail with `.stopped`).
    private func drain() -> Inbox? {
        let work = inbox.withLock { inbox -> Inbox in
            let taken = inbox
            inbox.packets = []; inbox.images = []; inbox.tileSources = []; inbox.tiles = []; inbox.captures = []; inbox.dirty = false; inbox.notify = false
            inbox.birthsEnd = nil
            return taken
        }
        guard work.stop else { return work }
        if !work.captures.isEmpty {
            let failed = FrameCaptures(requests: work.captures).failed(.stopped)
            outbox.withLock { $0.captures += failed }
            wakeServer()
        }
        return nil
    }

    /// A frame made by `frame(_:applying:)`, with its times.
    private struct MadeFrame {
        var frame: FrameDriver.Frame
        /// Compositor time of the frame (paused or slowed by the clock's rate).
        var time: Double
        /// Real time it started (statistics, pacing).
        var realStart: Double
        /// Uptime it started (ns), for its total time.
        var t0: UInt64
        /// Client-drawn tiles' wishes changed (the server is woken).
        var tileWishes = false
    }

    /// Frame: applies the drained images, then — when a frame is needed (something queued or
    /// animating, or no frame yet) — makes it: the window's size read, the packets applied at
    /// the frame's compositor time, its events put in the outbox and then its snapshot
    /// published (a reader that took the snapshot and then drains the outbox has them all).
    /// Nil when no frame is needed.
    private func frame(_ s: inout RenderThreadState, applying work: Inbox) -> MadeFrame? {
        for added in work.tileSources { s.driver.setTileSource(added.name, added.source) }
        for t in work.tiles { s.driver.tileStore.provide(t.source, t.key, t.image, serial: t.serial) }
        for change in work.images { s.driver.setImage(change.name, change.image) }
        if let end = work.birthsEnd { s.driver.emitterBirthsEnd = end }
        guard s.driver.needsFrame(pending: work.dirty || !work.packets.isEmpty || !work.captures.isEmpty) else {
            return nil
        }
        let frameStart = clock.now, realStart = clock.realSeconds
        let t0 = DispatchTime.now().uptimeNanoseconds
        if s.viewport.update() { s.driver.setViewport(widthPoints: s.viewport.points.0, heightPoints: s.viewport.points.1,
                                                      scale: s.viewport.scale) }
        // The wireframe shows shapes' meshes, not the quads of their atlas entries.
        let wireframe = overlaySettings.withLock { $0.wireframe }
        if s.driver.usesShapeAtlas == wireframe { s.driver.usesShapeAtlas = !wireframe }
        let frame = s.driver.frame(applying: work.packets, at: frameStart)
        var readsCompleted = frame.snapshot.sequence
        if let host = s.renderer.hostSurfaces {
            // The copies from the surfaces' pages are submitted, not waited for: their buffers'
            // releases wait for the GPU (`surfaceReadsCompleted`, advanced by the waiter thread).
            host.finishReads(through: frame.snapshot.sequence)
            readsCompleted = host.readsCompleted
            zeroCopy.withLock { $0 = host.counts }
        }
        outbox.withLock { $0.surfaceReadsCompleted = max($0.surfaceReadsCompleted ?? 0, readsCompleted) }
        if !work.packets.isEmpty { traced { $0.record(packets: work.packets, at: realStart) } }
        if !frame.events.isEmpty { outbox.withLock { $0.events += frame.events } }
        let tileWishes = s.driver.tileStore.takeClientWishesChanged()
        tileCache.withLock { $0 = (s.driver.tileStore.residentBytes, s.driver.tileStore.peakBytes) }
        if tileWishes { outbox.withLock { $0.tileWishes = true } }
        latest.withLock { $0 = frame.snapshot }
        return MadeFrame(frame: frame, time: frameStart, realStart: realStart, t0: t0, tileWishes: tileWishes)
    }

    /// Present: draws the frame (with the viewer's overlays; nothing while the window is
    /// minimized unless a capture needs the frame), wakes whoever waits for it (`wakes`: its
    /// events, a query for its snapshot) as soon as it is drawn, then does the bookkeeping
    /// (statistics) and the captures, and hands their results back.
    private func present(_ s: inout RenderThreadState, _ made: MadeFrame, captures: FrameCaptures, wakes: Bool) {
        let frame = made.frame
        var phases = frame.phases
        var results: [CaptureResult] = []
        var woken = false
        /// Whether the target holds the frame with the viewer's overlays (captures then draw
        /// the frame's own list again: clients never see the overlays).
        var overlaid = false
        do {
            if !s.viewport.minimized || !captures.isEmpty {
                let settings = overlaySettings.withLock { $0 }
                if settings.isEmpty {
                    phases.merge(try s.renderer.render(frame.drawList, present: !s.viewport.minimized))
                } else {
                    var inspection: InspectorFrame? = nil
                    if settings.inspector {
                        let input = inspectorInput.withLock { $0 }
                        inspection = InspectorFrame(tree: frame.snapshot.tree, render: s.driver.tree, at: made.time,
                                                    scale: s.driver.builder.scale, pointer: input.pointer,
                                                    pinned: input.pinned, names: input.names)
                    }
                    let list = s.overlay.apply(settings, to: frame.drawList, scale: s.viewport.scale, fps: config.fps,
                                               counts: settings.hud ? Self.counts(s.hudCounts, clients: clientCount.load(ordering: .relaxed)) : s.hudCounts,
                                               inspection: inspection)
                    phases.merge(try s.renderer.render(list, present: !s.viewport.minimized))
                    overlaid = true
                }
            }
            phases.total = Double(DispatchTime.now().uptimeNanoseconds - made.t0) / 1e9
            if wakes { wakeServer(); woken = true }
            s.driver.record(start: made.realStart, phases: phases)
            traced { $0.record(FrameTrace.Frame(start: made.realStart, phases: phases, items: frame.drawList.items.count)) }
            s.overlay.record(phases)
            publishStats(&s, at: made.realStart)
            results = captures.read(after: made.time, driver: &s.driver, renderer: s.renderer,
                                    frameList: overlaid ? frame.drawList : nil)
        } catch {
            results = captures.failed(.render("render failed: \(error)"))
        }
        if !results.isEmpty { outbox.withLock { $0.captures += results } }
        if !results.isEmpty || (!woken && wakes) { wakeServer() }
    }

    /// Publishes the statistics (and the window's presentation counts) at most every 250 ms of
    /// real time; every frame with a manual clock.
    private func publishStats(_ s: inout RenderThreadState, at realStart: Double) {
        guard realStart - s.lastPublish > 0.25 || !s.realtime else { return }
        let summary = s.driver.stats(at: realStart)
        published.withLock { $0 = summary }
        s.hudCounts = HUDCounts(fps: summary.fps, frameMs: summary.p50ms, layers: summary.layers)
        if let pacing = s.renderer.presentPacing {
            let counts = PresentationCounts(pacing: pacing, presented: s.renderer.presentedFrames,
                                            unpresented: s.renderer.unpresentedFrames,
                                            swapchains: s.renderer.swapchainsMade)
            presented.withLock { $0 = counts }
        }
        s.lastPublish = realStart
    }

    /// Whether the thread may sleep until woken: nothing changes with time and nothing is queued.
    private func mayIdle(_ s: RenderThreadState) -> Bool {
        !s.driver.isAnimating && !inbox.withLock({ $0.dirty || $0.stop || !$0.captures.isEmpty })
    }

    /// Sleep, idle: publishes the statistics as idle and sleeps until woken (a packet, a
    /// capture, a frame request, a stop), letting go of memory down `s.idlePolicy`'s ladder while
    /// no wake-up comes (`work`: the drained packets, dropped on its first rung). The frame
    /// after it is drawn at once.
    private func sleepUntilWoken(_ s: inout RenderThreadState, holding work: inout Inbox) {
        let summary = s.driver.stats(at: clock.now)
        let since = DispatchTime.now().uptimeNanoseconds, sleptAt = clock.realSeconds
        published.withLock { $0 = summary; $0.idle = true }
        idleSince.withLock { $0 = (since, sleptAt) }
        s.driver.willSleep()
        release(s.idlePolicy.atSleep, s.renderer, &work)
        var rungs = 0
        while let rung = s.idlePolicy.rung(after: rungs) {
            guard wake.wait(timeout: .now() + rung.delay) == .timedOut else { break }
            release(rung.releases, s.renderer, &work)
            rungs += 1
        }
        if s.idlePolicy.rung(after: rungs) == nil { wake.wait() }
        let slept = Double(DispatchTime.now().uptimeNanoseconds - since) / 1e9
        idleSince.withLock { $0 = nil }
        s.driver.recordIdle(slept)
        traced { $0.record(idle: FrameTrace.Idle(start: sleptAt, end: sleptAt + slept)) }
        published.withLock { $0.idle = false; $0.idleSeconds += slept }
        s.lastPublish = -1
    }

    /// Lets go of `releases` (a failure only keeps the memory).
    private func release(_ releases: IdlePolicy.Release, _ renderer: OffscreenRenderer, _ work: inout Inbox) {
        if releases.contains(.spareSlots) { try? renderer.releaseIdleBuffers() }
        if releases.contains(.appliedPackets) { work.packets = []; work.images = []; work.tileSources = [] }   // their values are in the tree
        if releases.contains(.driverScratch) { try? renderer.releaseDriverFrameMemory() }
        if releases.contains(.lastSlot) { try? renderer.releaseIdleBuffers(all: true) }
        if releases.contains(.heapTrim) { HeapTrim.trim() }
    }

    /// Sleep, animating: until the next frame is due (`FramePacing`); commits that come
    /// meanwhile wait for it, only a stop cuts the wait short. A catch-up frame, or FIFO
    /// presentation pacing by itself, does not wait.
    private func sleepUntilDue(_ s: inout RenderThreadState, _ pacing: inout FramePacing, drew: Bool) {
        switch pacing.afterFrame(rendered: drew, minimized: s.viewport.minimized, now: clock.realSeconds,
                                 packetsWaiting: inbox.withLock({ !$0.packets.isEmpty })) {
        case .catchUp, .next:
            return
        case .waitForWake:
            wake.wait()
        case .wait(let deadline, let dropped):
            if dropped > 0 { s.driver.recordDropped(dropped) }
            let waitStart = DispatchTime.now().uptimeNanoseconds
            while true {
                let wait = deadline - clock.realSeconds
                guard wait > 0 else { break }
                if wake.wait(timeout: .now() + wait) == .success, inbox.withLock({ $0.stop }) { break }
            }
            s.driver.recordPaced(Double(DispatchTime.now().uptimeNanoseconds - waitStart) / 1e9)
        }
    }

    private func wakeServer() { waker.withLock { $0 }?() }
}

extension FramePhases {
    mutating func merge(_ timing: FrameTiming) {
        upload = timing.upload
        record = timing.record
        submit = timing.submit
        gpu = timing.gpu
        gpuWait = timing.gpuWait
    }
}
