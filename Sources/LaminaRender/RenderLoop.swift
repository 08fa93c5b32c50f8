import Foundation
import LaminaAnimation
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
    }

    private struct Inbox {
        var packets: [CommitPacket] = []
        /// Image map changes (applied before the packets), in order.
        var images: [(name: String, image: Image?)] = []
        var captures: [(time: Double?, tag: UInt64)] = []
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
    private let idleSince = Mutex<UInt64?>(nil)              // protected by its own lock
    private let wake = DispatchSemaphore(value: 0)
    /// How long the render thread sleeps before it lets go of the driver's frame memory and
    /// trims the heap: a client committing more often than this keeps both.
    static let idleReleaseDelay: DispatchTimeInterval = .milliseconds(250)
    /// How long after that it also lets go of the last frame's instance ring (`releaseIdleBuffers(all:)`):
    /// a client committing once a second or more often keeps it, and its frames patch it.
    static let idleRingReleaseDelay: DispatchTimeInterval = .milliseconds(750)
    private let thread = Mutex<JoinableThread?>(nil)   // set once by start, taken by stop
    private let waker = Mutex<Waker?>(nil)             // protected by its own lock

    public init(config: RenderConfig, clock: CompositorClock) {
        self.config = config
        self.clock = clock
    }

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

    /// Asks the render thread to render the frame at compositor time `time` (or the current
    /// time when nil) and read it back; the result comes back in the outbox under `tag`.
    public func capture(at time: Double?, tag: UInt64) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stop else { return false }
            inbox.captures.append((time, tag))
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
            s.idleSeconds += Double(now &- since) / 1e9
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
        requestFrame()
    }
    private let overlaySettings = Mutex(OverlaySettings())   // protected by its own lock

    /// The number of connected clients, for the HUD's text (the server thread sets it).
    public func setClientCount(_ n: Int) { clientCount.store(n, ordering: .relaxed) }
    private let clientCount = Atomic<Int>(0)

    /// The window's presentation so far (nil without a window), updated with the statistics.
    public var presentation: PresentationCounts? { presented.withLock { $0 } }
    private let presented = Mutex<PresentationCounts?>(nil)   // protected by its own lock

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

    private func run(_ renderer: OffscreenRenderer) {
        // The render tree, its snapshots and the draw-list builder (render thread only). The
        // model tree (server thread) has applied every limit already.
        var driver = FrameDriver(widthPoints: config.widthPoints, heightPoints: config.heightPoints,
                                 scale: config.scale, background: config.background, targetFPS: config.fps)
        driver.programStepsPerFrame = config.programStepsPerFrame
        // FIFO at the configured rate paces by itself (presentation blocks); else the deadlines below.
        let interval = config.fps > 0 && renderer.presentPacing?.renderThreadPaces != false ? 1 / config.fps : 0
        let realtime = clock.mode == .realtime
        var deadline = clock.realSeconds
        var lastPublish = -1.0
        var viewport = WindowViewport(config: config)
        var overlay = ViewerOverlay()
        var hudCounts = HUDCounts()   // the published statistics the HUD's text shows
        var caughtUp = false          // the last frame drew packets that missed the one before

        while true {
            // Drain the inbox by swapping.
            var work = inbox.withLock { inbox -> Inbox in
                let taken = inbox
                inbox.packets = []; inbox.images = []; inbox.captures = []; inbox.dirty = false; inbox.notify = false
                return taken
            }
            if work.stop {
                if !work.captures.isEmpty {
                    outbox.withLock { o in
                        for c in work.captures { o.captures.append(CaptureResult(tag: c.tag, result: .failure(.stopped))) }
                    }
                    waker.withLock { $0 }?()
                }
                return
            }
            for change in work.images { driver.setImage(change.name, change.image) }
            let pending = work.dirty || !work.packets.isEmpty || !work.captures.isEmpty
            let shouldRender = driver.needsFrame(pending: pending)
            if shouldRender {
                // Compositor time for the frame (paused or slowed by the clock's rate), real
                // time for statistics and pacing.
                let frameStart = clock.now, realStart = clock.realSeconds
                let t0 = DispatchTime.now().uptimeNanoseconds
                if viewport.update() { driver.setViewport(widthPoints: viewport.points.0, heightPoints: viewport.points.1,
                                                          scale: viewport.scale) }
                // The wireframe shows shapes' meshes, not the quads of their atlas entries.
                let wireframe = overlaySettings.withLock { $0.wireframe }
                if driver.usesShapeAtlas == wireframe { driver.usesShapeAtlas = !wireframe }
                let frame = driver.frame(applying: work.packets, at: frameStart)
                // A frame's events are in the outbox before its snapshot is published, so a
                // reader that took the snapshot and then drains the outbox has them all.
                if !frame.events.isEmpty { outbox.withLock { $0.events += frame.events } }
                latest.withLock { $0 = frame.snapshot }
                var phases = frame.phases
                var results: [CaptureResult] = []
                // Whoever waits for this frame (its events, a query for its snapshot) is woken
                // as soon as it is drawn, not after the bookkeeping and captures that follow.
                var woken = false
                do {
                    // A minimized window: nothing is drawn (unless a capture needs the frame).
                    if !viewport.minimized || !work.captures.isEmpty {
                        let settings = overlaySettings.withLock { $0 }
                        let list = settings.isEmpty ? frame.drawList
                            : overlay.apply(settings, to: frame.drawList, scale: viewport.scale, fps: config.fps,
                                            counts: settings.hud ? Self.counts(hudCounts, clients: clientCount.load(ordering: .relaxed)) : hudCounts)
                        phases.merge(try renderer.render(list, present: !viewport.minimized))
                    }
                    phases.total = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                    if work.notify || !frame.events.isEmpty { waker.withLock { $0 }?(); woken = true }
                    driver.record(start: realStart, phases: phases)
                    overlay.record(phases)
                    if realStart - lastPublish > 0.25 || !realtime {
                        let summary = driver.stats(at: realStart)
                        published.withLock { $0 = summary }
                        hudCounts = HUDCounts(fps: summary.fps, frameMs: summary.p50ms, layers: summary.layers)
                        if let pacing = renderer.presentPacing {
                            let counts = PresentationCounts(pacing: pacing, presented: renderer.presentedFrames,
                                                            unpresented: renderer.unpresentedFrames,
                                                            swapchains: renderer.swapchainsMade)
                            presented.withLock { $0 = counts }
                        }
                        lastPublish = realStart
                    }
                    for capture in work.captures {
                        // The frame just rendered is read back as it is; another time renders its own.
                        let other = capture.time.flatMap { $0 == frameStart ? nil : driver.drawList(at: $0) }
                        // (drawn without presenting: the window keeps showing the frame's time)
                        results.append(CaptureResult(tag: capture.tag, result: Self.capture(
                            renderer: renderer, list: other, time: capture.time ?? frameStart,
                            width: driver.builder.pixelWidth, height: driver.builder.pixelHeight)))
                    }
                } catch {
                    for c in work.captures {
                        results.append(CaptureResult(tag: c.tag, result: .failure(.render("render failed: \(error)"))))
                    }
                }
                if !results.isEmpty { outbox.withLock { $0.captures += results } }
                if !results.isEmpty || (!woken && (work.notify || !frame.events.isEmpty)) { waker.withLock { $0 }?() }
            }
            if !driver.isAnimating && !inbox.withLock({ $0.dirty || $0.stop || !$0.captures.isEmpty }) {
                // Nothing changes with time and nothing is queued: sleep until woken (a
                // packet, a capture, a frame request, a stop), then draw at once.
                let summary = driver.stats(at: clock.now)
                let since = DispatchTime.now().uptimeNanoseconds
                published.withLock { $0 = summary; $0.idle = true }
                idleSince.withLock { $0 = since }
                driver.willSleep()
                // The idle frame slots' buffers go too (a failure here only keeps them).
                try? renderer.releaseIdleBuffers()
                // Still idle a moment later (a client committing more often finds everything
                // as it was): the applied packets and a CPU driver's memory for the last frames
                // go (0.25–0.4 ms), and what this busy spell freed goes back to the system, not
                // just to malloc (0.2–0.6 ms with 50,000 layers).
                // Idle a second: the last frame's instance ring goes too (the next frame writes
                // every instance again: about 0.12 µs an item, once per idle spell).
                if wake.wait(timeout: .now() + Self.idleReleaseDelay) == .timedOut {
                    work.packets = []; work.images = []   // applied: their values are in the tree
                    try? renderer.releaseDriverFrameMemory()
                    HeapTrim.trim()
                    if wake.wait(timeout: .now() + Self.idleRingReleaseDelay) == .timedOut {
                        try? renderer.releaseIdleBuffers(all: true)
                        HeapTrim.trim()
                        wake.wait()
                    }
                }
                let slept = Double(DispatchTime.now().uptimeNanoseconds - since) / 1e9
                idleSince.withLock { $0 = nil }
                driver.recordIdle(slept)
                caughtUp = false
                published.withLock { $0.idle = false; $0.idleSeconds += slept }
                deadline = clock.realSeconds
                lastPublish = -1
                continue
            }
            if realtime && (interval > 0 || viewport.minimized) {
                let interval = interval > 0 ? interval : 1 / max(config.fps, 1)
                // A packet that arrived while this frame was made (just after it drained the
                // inbox) is drawn by one more frame at once, not a whole interval later. The
                // schedule stays, and such a frame is not followed by another: at most one
                // more frame per interval, and a commit waits at most an interval less the
                // frame's time for its frame to start.
                if shouldRender && !caughtUp && inbox.withLock({ !$0.packets.isEmpty }) {
                    caughtUp = true
                    continue
                }
                caughtUp = false
                // Pace from the real clock's timestamps: the next deadline is one interval after
                // the previous one; a frame that starts more than an interval late is dropped
                // from the schedule and pacing restarts from now.
                deadline += interval
                let now = clock.realSeconds
                if now > deadline + interval {
                    driver.recordDropped(Int((now - deadline) / interval))
                    deadline = now
                }
                // Commits that come now wait for the next frame's start; only a stop cuts the
                // wait short.
                let waitStart = DispatchTime.now().uptimeNanoseconds
                while true {
                    let wait = deadline - clock.realSeconds
                    guard wait > 0 else { break }
                    if wake.wait(timeout: .now() + wait) == .success, inbox.withLock({ $0.stop }) { break }
                }
                driver.recordPaced(Double(DispatchTime.now().uptimeNanoseconds - waitStart) / 1e9)
            } else if !realtime {
                wake.wait()
            }
        }
    }

    /// Reads back a frame: the one just rendered when `list` is nil, else `list` rendered first.
    private static func capture(renderer: OffscreenRenderer, list: DrawList?, time: Double,
                                width: Int, height: Int) -> Result<CapturedFrame, RenderLoopError> {
        do {
            if let list { _ = try renderer.render(list, present: false) }
            let pixels = try renderer.readPixels(alpha: .straight)
            return .success(CapturedFrame(time: time, width: width, height: height, rgba: pixels))
        } catch {
            return .failure(.render("capture failed: \(error)"))
        }
    }
}

extension FramePhases {
    mutating func merge(_ timing: FrameTiming) {
        upload = timing.upload
        record = timing.record
        submit = timing.submit
        gpu = timing.gpu
    }
}
