import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
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

/// The render thread: at the start of each frame it applies every queued commit in order, so
/// a transaction is never half visible; evaluates the presentation tree at the frame time;
/// builds the draw list and renders it through Vulkan into the offscreen target.
///
/// Work reaches it through one lock-protected inbox that it drains by swapping. Vulkan objects
/// are made on the render thread and never leave it. What it publishes (stats) is an immutable
/// value swapped under a lock. Any thread may call the public methods.
public final class RenderLoop: Sendable {
    public typealias CaptureCompletion = @Sendable (Result<CapturedFrame, RenderLoopError>) -> Void
    /// Reads the presentation tree and the frame time; runs on the render thread: keep it short.
    public typealias PresentationQuery = @Sendable (_ presentation: LayerTree, _ time: Double) -> Void
    /// Receives the tree's events (animation started/stopped, transaction completed) on the
    /// render thread, once per frame that produced any: keep it short.
    public typealias EventHandler = @Sendable ([TreeEvent]) -> Void

    private struct Inbox {
        var commits: [CommitPacket] = []
        var captures: [(time: Double?, completion: CaptureCompletion)] = []
        /// Presentation queries, answered on the render thread after the next frame's evaluation.
        var queries: [PresentationQuery] = []
        var stop = false
        var dirty = true
    }

    public let config: RenderConfig
    public let clock: CompositorClock
    private let inbox = Mutex(Inbox())                // protected by its own lock
    private let published = Mutex(FrameStats())       // protected by its own lock
    private let wake = DispatchSemaphore(value: 0)
    private let thread = Mutex<JoinableThread?>(nil)   // set once by start, taken by stop
    private let eventHandler = Mutex<EventHandler?>(nil)  // protected by its own lock

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
                                                 height: max(1, Int((config.heightPoints * config.scale).rounded())))
            } catch {
                ready.withLock { $0 = .some(error) }
                readySignal.signal()
                return
            }
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

    /// Queues a validated commit; it becomes visible at the start of the next frame.
    public func submit(_ commit: CommitPacket) {
        inbox.withLock { $0.commits.append(commit); $0.dirty = true }
        wake.signal()
    }

    /// Asks the render thread to render the frame at compositor time `time` (or the current
    /// time when nil) and read it back. `completion` runs on the render thread: keep it short.
    public func capture(at time: Double?, completion: @escaping CaptureCompletion) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stop else { return false }
            inbox.captures.append((time, completion))
            return true
        }
        if accepted { wake.signal() } else { completion(.failure(.stopped)) }
    }

    /// Sets the receiver of the tree's events (call before `start`, or any time).
    public func setEventHandler(_ handler: @escaping EventHandler) {
        eventHandler.withLock { $0 = handler }
    }

    /// Runs `query` on the render thread with the presentation tree of the next frame.
    /// When the loop has stopped it runs at once with an empty tree.
    public func queryPresentation(_ query: @escaping PresentationQuery) {
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stop else { return false }
            inbox.queries.append(query)
            return true
        }
        if accepted { wake.signal() } else { query(LayerTree(), clock.now) }
    }

    /// Tells the render thread that the clock moved (manual clock).
    public func clockDidAdvance() {
        inbox.withLock { $0.dirty = true }
        wake.signal()
    }

    /// The latest published frame statistics.
    public var stats: FrameStats { published.withLock { $0 } }

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
        // The render tree: model values and running animations (render thread only), and the
        // presentation tree evaluated from it each frame, patched in place between commits.
        // The model tree (server thread) has applied every limit already.
        var tree = LayerTree()
        var presentation = LayerTree()
        var builder = DrawListBuilder(widthPoints: config.widthPoints, heightPoints: config.heightPoints,
                                      scale: config.scale, background: config.background)
        var collector = FrameStatsCollector()
        let interval = config.fps > 0 ? 1 / config.fps : 0
        let realtime = clock.mode == .realtime
        var deadline = clock.now
        var lastPublish = -1.0

        while true {
            // Drain the inbox by swapping.
            let work = inbox.withLock { inbox -> Inbox in
                let taken = inbox
                inbox.commits = []; inbox.captures = []; inbox.queries = []; inbox.dirty = false
                return taken
            }
            if work.stop {
                for c in work.captures { c.completion(.failure(.stopped)) }
                for q in work.queries { q(LayerTree(), clock.now) }
                return
            }
            let shouldRender = realtime || work.dirty || !work.commits.isEmpty || !work.captures.isEmpty
                || !work.queries.isEmpty
            if shouldRender {
                let frameStart = clock.now
                var phases = FramePhases()
                let t0 = DispatchTime.now().uptimeNanoseconds
                for commit in work.commits {
                    tree.apply(commit, at: commit.time ?? frameStart)
                }
                let t1 = DispatchTime.now().uptimeNanoseconds
                phases.apply = Double(t1 - t0) / 1e9
                // Evaluate: end finished animations (events), then the presentation at the frame time.
                tree.advance(to: frameStart)
                tree.updatePresentation(&presentation, at: frameStart)
                let events = tree.takeEvents()
                if !events.isEmpty, let handler = eventHandler.withLock({ $0 }) { handler(events) }
                for q in work.queries { q(presentation, frameStart) }
                let list = builder.build(presentation)
                let t2 = DispatchTime.now().uptimeNanoseconds
                phases.evaluate = Double(t2 - t1) / 1e9
                // The builder times its mesh-cache misses; report them as their own phase.
                phases.tessellate = builder.lastTessellateSeconds
                phases.evaluate = max(phases.evaluate - phases.tessellate, 0)
                do {
                    let timing = try renderer.render(list)
                    phases.merge(timing)
                } catch {
                    for c in work.captures { c.completion(.failure(.render("render failed: \(error)"))) }
                    continue
                }
                phases.total = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
                collector.record(start: frameStart, phases: phases)
                if frameStart - lastPublish > 0.25 || !realtime {
                    let summary = collector.summary(targetFPS: config.fps, time: frameStart, layers: tree.count)
                    published.withLock { $0 = summary }
                    lastPublish = frameStart
                }
                // Captures of other times render their own frame.
                for capture in work.captures {
                    // The frame just rendered is read back as it is; another time renders its own.
                    let other = capture.time.flatMap { $0 == frameStart ? nil : tree.presentation(at: $0) }
                    capture.completion(Self.capture(renderer: renderer, builder: &builder, tree: other,
                                                    time: capture.time ?? frameStart))
                }
            }
            if realtime && interval > 0 {
                // Pace from the real clock's timestamps: the next deadline is one interval after
                // the previous one; a frame that starts more than an interval late is dropped
                // from the schedule and pacing restarts from now.
                deadline += interval
                let now = clock.now
                if now > deadline + interval {
                    collector.dropped += Int((now - deadline) / interval)
                    deadline = now
                }
                // Commits wait for the next frame's start; only a stop cuts the wait short.
                while true {
                    let wait = deadline - clock.now
                    guard wait > 0 else { break }
                    if wake.wait(timeout: .now() + wait) == .success, inbox.withLock({ $0.stop }) { break }
                }
            } else if realtime {
                continue
            } else {
                wake.wait()
            }
        }
    }

    /// Reads back the frame at `time`: the one just rendered when `tree` is nil, else the
    /// presentation tree `tree` (at `time`) rendered first.
    private static func capture(renderer: OffscreenRenderer, builder: inout DrawListBuilder, tree: LayerTree?,
                                time: Double) -> Result<CapturedFrame, RenderLoopError> {
        do {
            if let tree { _ = try renderer.render(builder.build(tree)) }
            let pixels = try renderer.readPixels(alpha: .straight)
            return .success(CapturedFrame(time: time, width: builder.pixelWidth, height: builder.pixelHeight, rgba: pixels))
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
