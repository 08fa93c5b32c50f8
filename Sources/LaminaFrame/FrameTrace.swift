import Foundation
import LaminaTree

/// A recording of what the render thread did: per frame its phases, the commits it applied and
/// the spells it slept idle. Fixed capacity: the arrays are reserved when the recording starts,
/// and once one is full its later records are counted (`droppedFrames`, …) but not kept, so
/// recording never allocates on the render thread. Written by the render thread only.
public struct FrameTrace: Sendable {
    /// One frame: its real start time (seconds, the render loop's clock) and its phases.
    public struct Frame: Sendable, Hashable {
        public var start: Double
        public var phases: FramePhases
        /// Draw items in the frame's list.
        public var items: Int
        public init(start: Double, phases: FramePhases, items: Int) {
            self.start = start; self.phases = phases; self.items = items
        }
    }
    /// One commit applied by a frame: the client, its sequence, its size (changes to the layer
    /// tree, and bytes on the wire).
    public struct Commit: Sendable, Hashable {
        public var time: Double
        public var client: UInt32
        public var sequence: UInt64
        /// Changes the model tree resolved the commit into (`CommitPacket.Change`s).
        public var changes: Int
        /// The transaction's requests and commit on the wire, headers included (0: not from a client).
        public var bytes: Int
        /// "commit", "connect" or "disconnect".
        public var kind: String
        public init(time: Double, client: UInt32, sequence: UInt64, changes: Int, bytes: Int = 0, kind: String) {
            self.time = time; self.client = client; self.sequence = sequence; self.changes = changes
            self.bytes = bytes; self.kind = kind
        }
    }
    /// A spell the render thread slept with nothing to draw.
    public struct Idle: Sendable, Hashable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) { self.start = start; self.end = end }
    }

    /// The default and largest number of frames one recording keeps (about 80 s at 120 Hz).
    public static let defaultFrameCapacity = 10_000
    public let frameCapacity: Int
    public private(set) var frames: [Frame] = []
    public private(set) var commits: [Commit] = []
    public private(set) var idles: [Idle] = []
    /// Records that came once their array was full.
    public private(set) var droppedFrames = 0
    public private(set) var droppedCommits = 0
    /// Real time the recording started and stopped (seconds, the render loop's clock).
    public var started: Double
    public var stopped: Double?

    public init(frameCapacity: Int = FrameTrace.defaultFrameCapacity, started: Double) {
        self.frameCapacity = max(1, frameCapacity)
        self.started = started
        frames.reserveCapacity(self.frameCapacity)
        commits.reserveCapacity(self.frameCapacity)
        idles.reserveCapacity(self.frameCapacity)
    }

    public mutating func record(_ frame: Frame) {
        if frames.count < frameCapacity { frames.append(frame) } else { droppedFrames += 1 }
    }

    /// Records the packets a frame applied (at `time`, its start).
    public mutating func record(packets: [CommitPacket], at time: Double) {
        for p in packets {
            guard commits.count < frameCapacity else { droppedCommits += 1; continue }
            let changes: Int, kind: String
            switch p.content {
            case .connect: (changes, kind) = (0, "connect")
            case .disconnect: (changes, kind) = (0, "disconnect")
            case .changes(let c): (changes, kind) = (c.count, "commit")
            }
            commits.append(Commit(time: time, client: p.client, sequence: p.sequence, changes: changes,
                                  bytes: p.wireBytes, kind: kind))
        }
    }

    /// Records an idle spell, the part of it inside the recording: a spell that began before
    /// `started` (the thread was asleep when the recording began) counts from `started`, one
    /// still going on at `stopped` up to `stopped`; a spell wholly outside is not kept.
    public mutating func record(idle: Idle) {
        let start = max(idle.start, started), end = min(idle.end, stopped ?? idle.end)
        guard end > start else { return }
        if idles.count < frameCapacity { idles.append(Idle(start: start, end: end)) }
    }

    /// The real-time span the recording covers (seconds).
    public var span: Double { (stopped ?? frames.last.map { $0.start + $0.phases.total } ?? started) - started }

    // MARK: Chrome trace-event JSON

    /// Track (tid) numbers of the trace's threads.
    public static let renderTID = 1, serverTID = 2, gpuTID = 3

    /// The recording in the Chrome trace-event format (`{"traceEvents": […], "displayTimeUnit":
    /// "ms"}`), which Perfetto's UI and `chrome://tracing` open: on the render thread's track a
    /// complete event ("X") per frame with its phases nested in it in order (the draw list's
    /// `patch` or `build` nested at the end of `evaluate`), idle spells, and
    /// instant events for commits; the GPU time, where known, on its own track; counters
    /// ("C") for the damaged share and the items. Times are microseconds from the start.
    public func chromeJSON(pid: Int = 1) -> String {
        var out = "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"frames\":\(frames.count),\"droppedFrames\":\(droppedFrames),"
        out += "\"commits\":\(commits.count),\"droppedCommits\":\(droppedCommits),\"spanSeconds\":\(Self.num(span))},"
        out += "\"traceEvents\":["
        var first = true
        func add(_ event: String) {
            if !first { out += "," }
            out += "\n" + event
            first = false
        }
        func us(_ t: Double) -> Double { max(0, (t - started) * 1e6) }
        add(#"{"name":"process_name","ph":"M","pid":\#(pid),"tid":0,"args":{"name":"laminad"}}"#)
        add(#"{"name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(Self.renderTID),"args":{"name":"render thread"}}"#)
        add(#"{"name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(Self.serverTID),"args":{"name":"commits (server thread)"}}"#)
        add(#"{"name":"thread_name","ph":"M","pid":\#(pid),"tid":\#(Self.gpuTID),"args":{"name":"GPU"}}"#)
        // Render track: frames and idles, in start order (they never overlap).
        var fi = 0, ii = 0
        while fi < frames.count || ii < idles.count {
            let takeFrame = ii >= idles.count || (fi < frames.count && frames[fi].start <= idles[ii].start)
            if takeFrame {
                let f = frames[fi]; fi += 1
                let ts = us(f.start)
                let p = f.phases
                add(#"{"name":"frame","cat":"frame","ph":"X","pid":\#(pid),"tid":\#(Self.renderTID),"ts":\#(Self.num(ts)),"dur":\#(Self.num(max(0, p.total) * 1e6)),"args":{"items":\#(f.items),"damaged":\#(Self.num(p.damaged)),"gpuMs":\#(p.gpu.map { Self.num($0 * 1000) } ?? "null")}}"#)
                var at = ts
                for (name, seconds) in zip(FramePhases.names, p.values) {
                    let dur = max(0, seconds) * 1e6
                    add(#"{"name":"\#(name)","cat":"phase","ph":"X","pid":\#(pid),"tid":\#(Self.renderTID),"ts":\#(Self.num(at)),"dur":\#(Self.num(dur))}"#)
                    if name == "evaluate", p.drawList > 0 {
                        // Its last part, nested: the draw list's patch or full build.
                        let list = min(p.drawList * 1e6, dur)
                        add(#"{"name":"\#(p.patched ? "patch" : "build")","cat":"phase","ph":"X","pid":\#(pid),"tid":\#(Self.renderTID),"ts":\#(Self.num(at + dur - list)),"dur":\#(Self.num(list)),"args":{"patched":\#(p.patched)}}"#)
                    }
                    at += dur
                }
                if let gpu = p.gpu {
                    add(#"{"name":"gpu","cat":"gpu","ph":"X","pid":\#(pid),"tid":\#(Self.gpuTID),"ts":\#(Self.num(at)),"dur":\#(Self.num(max(0, gpu) * 1e6))}"#)
                }
                add(#"{"name":"damage","cat":"frame","ph":"C","pid":\#(pid),"tid":\#(Self.renderTID),"ts":\#(Self.num(ts)),"args":{"damaged":\#(Self.num(p.damaged)),"items":\#(f.items)}}"#)
            } else {
                let i = idles[ii]; ii += 1
                add(#"{"name":"idle","cat":"idle","ph":"X","pid":\#(pid),"tid":\#(Self.renderTID),"ts":\#(Self.num(us(i.start))),"dur":\#(Self.num(max(0, i.end - i.start) * 1e6))}"#)
            }
        }
        for c in commits {
            add(#"{"name":"\#(c.kind)","cat":"commit","ph":"i","s":"t","pid":\#(pid),"tid":\#(Self.serverTID),"ts":\#(Self.num(us(c.time))),"args":{"client":\#(c.client),"sequence":\#(c.sequence),"changes":\#(c.changes),"bytes":\#(c.bytes)}}"#)
        }
        out += "\n]}\n"
        return out
    }

    private static func num(_ v: Double) -> String { v.isFinite ? String(format: "%.3f", v) : "0" }
}
