/// CPU time of one frame's phases, in seconds, and its GPU time where the device reports it.
public struct FramePhases: Sendable, Hashable {
    public var apply = 0.0
    public var evaluate = 0.0
    public var tessellate = 0.0
    public var upload = 0.0
    public var record = 0.0
    public var submit = 0.0
    public var gpu: Double? = nil
    /// Wall time the backend waited for the frame slot it reuses (the GPU finishing the frame
    /// `framesInFlight` frames back; `FrameTiming.gpuWait`): part of `total`, in no phase.
    public var gpuWait = 0.0
    /// Wall time from the frame's start to its submission.
    public var total = 0.0
    /// The share of the target the frame redrew (its damage; 1: all of it).
    public var damaged = 1.0
    /// The part of `evaluate` that made the draw list (its patch or full build, and its
    /// damage), and whether it was a patch (`DrawListBuilder.lastBuildPatched`).
    public var drawList = 0.0
    public var patched = false
    public init() {}

    /// The phases in the order the render thread runs them (`values`' order), as the stats,
    /// traces and benchmarks name them.
    public static let names = ["apply", "evaluate", "tessellate", "upload", "record", "submit"]
    public var values: [Double] { [apply, evaluate, tessellate, upload, record, submit] }
}

/// A published summary of recent frames: an immutable value swapped under a lock by the
/// render thread, read by any thread.
public struct FrameStats: Sendable, Hashable {
    /// Frames rendered since start.
    public var frames = 0
    /// Frames that started more than one interval late since start.
    public var droppedFrames = 0
    /// Frames per second over the recent window.
    public var fps = 0.0
    public var targetFPS = 0.0
    /// Frame time (CPU, start to submit) percentiles over the recent window, milliseconds.
    public var p50ms = 0.0
    public var p99ms = 0.0
    /// Mean milliseconds per phase over the recent window, by `FramePhases.names`.
    public var phaseMeansMs: [String: Double] = [:]
    /// Mean GPU milliseconds over the recent window, when the device has timestamps.
    public var gpuMeanMs: Double? = nil
    /// Compositor time of the last frame.
    public var lastFrameTime = 0.0
    public var layers = 0
    /// The damaged (redrawn) share of the target: the last frame's, and the mean over the
    /// recent window.
    public var lastDamaged = 0.0
    public var damagedMean = 0.0
    /// Whether the render thread is asleep now: nothing changed since its last frame (no
    /// packet, no running animation, no capture or frame request).
    public var idle = false
    /// Seconds the render thread spent making frames (CPU, start to submit), since start.
    public var busySeconds = 0.0
    /// Seconds it slept with nothing to draw, since start (the current sleep included).
    public var idleSeconds = 0.0
    /// Seconds it waited for the next frame's deadline while something animated.
    public var pacedSeconds = 0.0
    /// Of `busySeconds`, the seconds frames waited for their frame slot (`FramePhases.gpuWait`:
    /// the GPU had not finished the frame `framesInFlight` back), since start.
    public var gpuWaitSeconds = 0.0
    /// busy / (busy + paced + idle): the share of the render thread's time spent on frames.
    public var busyFraction: Double {
        let all = busySeconds + pacedSeconds + idleSeconds
        return all > 0 ? busySeconds / all : 0
    }
    public init() {}

    /// The stats as a JSON object (stable key order).
    public var json: String {
        func n(_ v: Double) -> String { v.isFinite ? String(format: "%.4f", v) : "null" }
        let phases = FramePhases.names.map { "\"\($0)\": \(n(phaseMeansMs[$0] ?? 0))" }.joined(separator: ", ")
        return """
        {"frames": \(frames), "droppedFrames": \(droppedFrames), "fps": \(n(fps)), "targetFPS": \(n(targetFPS)), \
        "p50ms": \(n(p50ms)), "p99ms": \(n(p99ms)), "phasesMs": {\(phases)}, \
        "gpuMs": \(gpuMeanMs.map(n) ?? "null"), "time": \(n(lastFrameTime)), "layers": \(layers), \
        "damaged": \(n(lastDamaged)), "damagedMean": \(n(damagedMean)), \
        "idle": \(idle), "busySeconds": \(n(busySeconds)), "idleSeconds": \(n(idleSeconds)), \
        "pacedSeconds": \(n(pacedSeconds)), "gpuWaitSeconds": \(n(gpuWaitSeconds)), "busyFraction": \(n(busyFraction))}
        """
    }
}

/// Collects frame records on the render thread and summarises them (render thread only).
package struct FrameStatsCollector {
    private var ring: [(start: Double, phases: FramePhases)] = []
    private var next = 0
    private let capacity = 240
    package var frames = 0
    package var dropped = 0
    package var busy = 0.0
    package var idle = 0.0
    package var paced = 0.0
    package var gpuWait = 0.0

    package init() {}

    package mutating func record(start: Double, phases: FramePhases) {
        frames += 1
        busy += phases.total
        gpuWait += phases.gpuWait
        if ring.count < capacity { ring.append((start, phases)) } else { ring[next] = (start, phases) }
        next = (next + 1) % capacity
    }

    package func summary(targetFPS: Double, time: Double, layers: Int) -> FrameStats {
        var s = FrameStats()
        s.frames = frames; s.droppedFrames = dropped; s.targetFPS = targetFPS
        s.lastFrameTime = time; s.layers = layers
        s.busySeconds = busy; s.idleSeconds = idle; s.pacedSeconds = paced
        s.gpuWaitSeconds = gpuWait
        guard !ring.isEmpty else { return s }
        let totals = ring.map { $0.phases.total * 1000 }.sorted()
        s.p50ms = totals[totals.count / 2]
        s.p99ms = totals[min(totals.count - 1, Int(Double(totals.count) * 0.99))]
        let starts = ring.map(\.start)
        if let lo = starts.min(), let hi = starts.max(), hi > lo { s.fps = Double(ring.count - 1) / (hi - lo) }
        for (i, name) in FramePhases.names.enumerated() {
            s.phaseMeansMs[name] = ring.map { $0.phases.values[i] }.reduce(0, +) / Double(ring.count) * 1000
        }
        s.lastDamaged = ring[(next + ring.count - 1) % ring.count].phases.damaged
        s.damagedMean = ring.map(\.phases.damaged).reduce(0, +) / Double(ring.count)
        let gpus = ring.compactMap(\.phases.gpu)
        if !gpus.isEmpty { s.gpuMeanMs = gpus.reduce(0, +) / Double(gpus.count) * 1000 }
        return s
    }
}
