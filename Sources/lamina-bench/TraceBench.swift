import Foundation
import LaminaFrame
import LaminaModel
import LaminaTree
import Synchronization

/// `lamina-bench trace [--frames N]`: what a frame trace costs the render thread. Times, per
/// frame, the render loop's recording path as `RenderLoop` runs it — the flag read, then under
/// the trace's lock one frame record and one applied commit — with recording on (into a
/// trace reserved for N frames, 10,000 by default, rounds restarting it as it fills) and off
/// (the flag read alone), and the JSON written for a full trace (its time and bytes; the server
/// writes it off the server thread). Compare `on_ns_per_frame` with `frames`'
/// `render_thread_cpu_ms`.
func runTraceBench(_ arguments: [String]) {
    var capacity = Int(FrameTrace.defaultFrameCapacity)
    var args = arguments
    while !args.isEmpty {
        let a = args.removeFirst()
        if a == "--frames", let v = args.first.flatMap(Int.init), v > 0 { capacity = v; args.removeFirst() } else {
            FileHandle.standardError.write(Data("usage: lamina-bench trace [--frames N]\n".utf8)); exit(2)
        }
    }
    let tracing = Atomic<Bool>(false)
    let trace = Mutex<FrameTrace?>(nil)
    var phases = FramePhases()
    phases.apply = 0.0001; phases.evaluate = 0.002; phases.upload = 0.0005; phases.record = 0.0003; phases.submit = 0.0002
    phases.total = 0.0035; phases.gpu = 0.001; phases.damaged = 0.25
    let packet = [CommitPacket(client: 3, sequence: 1, time: nil,
                               content: .changes([.delete(LayerID(client: 3, local: 1))]))]
    func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    // The render loop's path (RenderLoop.traced), per frame: a frame record and one commit.
    @inline(never) func frame(_ i: Int) {
        let start = Double(i) / 120
        if tracing.load(ordering: .relaxed) { trace.withLock { t in if t != nil { t!.record(packets: packet, at: start) } } }
        if tracing.load(ordering: .relaxed) {
            trace.withLock { t in if t != nil { t!.record(FrameTrace.Frame(start: start, phases: phases, items: 10_000)) } }
        }
    }
    let rounds = 20
    var on: [Double] = [], off: [Double] = []
    for r in 0..<rounds * 2 {
        let recording = r % 2 == 0
        if recording {
            let fresh = FrameTrace(frameCapacity: capacity, started: 0)   // reserved off the timed loop
            trace.withLock { $0 = fresh }
        }
        tracing.store(recording, ordering: .releasing)
        let t0 = now()
        for i in 0..<capacity { frame(i) }
        let ns = Double(now() - t0) / Double(capacity)
        tracing.store(false, ordering: .releasing)
        if recording { on.append(ns) } else { off.append(ns) }
    }
    // A full trace's JSON.
    tracing.store(true, ordering: .releasing)
    trace.withLock { $0 = FrameTrace(frameCapacity: capacity, started: 0) }
    for i in 0..<capacity { frame(i) }
    let full = trace.withLock { $0! }
    let j0 = now()
    let json = full.chromeJSON()
    let jsonMs = Double(now() - j0) / 1e6
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    print("""
    {"bench": "trace", "frames": \(capacity), "rounds": \(rounds), \
    "on_ns_per_frame_p50": \(String(format: "%.1f", median(on))), "on_ns_per_frame_max": \(String(format: "%.1f", on.max()!)), \
    "off_ns_per_frame_p50": \(String(format: "%.1f", median(off))), \
    "json_ms": \(String(format: "%.1f", jsonMs)), "json_bytes": \(json.utf8.count)}
    """)
}
