import Foundation
import Lamina
import LaminaRender
import LaminaServer
import LaminaWire
import Synchronization

/// `lamina-bench surfaces [--seconds S]`: client surfaces through shared memory against an
/// in-process headless daemon (1920×1080 canvas, realtime clock, 240 Hz pacing cap), through
/// the Swift client's `SurfaceLayer` (memfd, SCM_RIGHTS, buffer ring, frame callbacks).
/// Four JSON lines:
/// - `full1080`: one 1920×1080 surface redrawn whole every frame, as a video player sends
///   frames (a moving test pattern of bars written into the buffer, then present + commit,
///   the next frame when the frame callback comes): frames composited per second, and
///   commit-to-frame latency p50/p99 (ms, from `commit()` to the callback of the frame that
///   applied it), with the client's drawing time apart;
/// - `sixteen`: 16 surfaces of 480×270 updated together at 60 Hz (one commit each frame):
///   the rate reached, latency, and the daemon's busy fraction;
/// - `damage4k`: a 3840×2160 buffer with one 64×64 rectangle damaged per frame, beside the same
///   buffer damaged whole: latency of each (the copy and upload follow the damage);
/// - `gpu1080`: one 1920×1080 GPU buffer (a ring of three Vulkan images, `GpuImageExporter`,
///   shared by opaque fd) cleared to a new color by the client each frame and attached whole:
///   frames per second and commit-to-frame latency, as `full1080` (the daemon copies the
///   image into the surface when it applies the commit);
/// - `memcpy`: this machine's memcpy of one 1920×1080×4 frame (ms, GB/s), the bound of a
///   copying path.
///
/// The shared-memory cases run twice, each against its own daemon: `"path": "zeroCopy"` (the
/// pool's pages imported with `VK_EXT_external_memory_host`, the GPU copying straight from
/// them: `transferMsPerFrame` is the render thread's whole time on it per frame, the GPU's
/// copy included and the wait for the frame still on the queue with it; `gpuCopyMsPerFrame`
/// the GPU's copies alone, between timestamps) and `"path": "copy"` (`surfaceZeroCopy` off: the CPU copies into the
/// surface's storage and a staging buffer; `applyMs` + `uploadMs`, the mean apply and upload
/// phases per frame, hold those copies, not the GPU's copy from the staging buffer).
/// `--path zeroCopy|copy` runs one of them only. `--fps F` sets the daemon's frame rate (240;
/// 60 to match Weston's headless output, `bench/peers/run-surfaces`).
///
/// Latency two ways: `commitToFrameMs`, `commit()` to the arrival of the frame callback of the
/// frame that applied it (real time, at the client); and `commitToPresentedMs`, as Weston's
/// `wp_presentation` is read (`bench/peers/weston/shm-bench.c`): the `presented` feedback's
/// time minus the time of the commit on the same clock (the compositor's, `Daemon.clock`,
/// read just before `commit()`), the first surface's feedback of each commit, discarded ones
/// left out.
func runSurfaceBench(_ arguments: [String]) {
    var seconds = 3.0
    var paths = [true, false]
    var fps = 240.0
    var i = 0
    while i < arguments.count {
        switch arguments[i] {
        case "--seconds" where i + 1 < arguments.count: seconds = Double(arguments[i + 1]) ?? seconds; i += 2
        case "--fps" where i + 1 < arguments.count && (Double(arguments[i + 1]) ?? 0) > 0:
            fps = Double(arguments[i + 1])!; i += 2
        case "--path" where i + 1 < arguments.count && ["zeroCopy", "copy"].contains(arguments[i + 1]):
            paths = [arguments[i + 1] == "zeroCopy"]; i += 2
        default: benchFail("surfaces: unknown option \(arguments[i]) (--seconds S, --path zeroCopy|copy, --fps F)")
        }
    }
    memcpyBench()
    for zeroCopy in paths {
        let daemon = startBenchDaemon("surfaces", fps: fps, size: (1920, 1080)) { $0.surfaceZeroCopy = zeroCopy }
        defer { daemon.stop() }
        do {
            try streamBench(daemon, "full1080", surfaces: 1, width: 1920, height: 1080, seconds: seconds, rate: nil,
                            damage: { _ in [] })
            try streamBench(daemon, "sixteen", surfaces: 16, width: 480, height: 270, seconds: seconds, rate: 60,
                            damage: { _ in [] })
            try streamBench(daemon, "damage4k", surfaces: 1, width: 3840, height: 2160, seconds: seconds, rate: nil,
                            damage: { k in [DamageRect(x: Int32(k * 64 % 3776), y: Int32(k * 64 / 3776 * 64 % 2096), width: 64, height: 64)] })
            try streamBench(daemon, "whole4k", surfaces: 1, width: 3840, height: 2160, seconds: seconds, rate: nil,
                            damage: { _ in [] })
            if zeroCopy || paths.count == 1 { try gpuBench(daemon, seconds: seconds) }
        } catch { benchFail("surfaces: \(error)") }
    }
}

private func memcpyBench() {
    let n = 1920 * 1080 * 4
    let a = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64), b = UnsafeMutableRawPointer.allocate(byteCount: n, alignment: 64)
    defer { a.deallocate(); b.deallocate() }
    a.initializeMemory(as: UInt8.self, repeating: 1, count: n)
    b.initializeMemory(as: UInt8.self, repeating: 2, count: n)
    var times: [Double] = []
    for k in 0..<200 {
        a.storeBytes(of: UInt8(k & 0xFF), as: UInt8.self)
        let t0 = benchNow()
        b.copyMemory(from: a, byteCount: n)
        times.append(benchNow() - t0)
    }
    let p50 = times.sorted()[times.count / 2]
    print("{\"bench\": \"surfaces\", \"case\": \"memcpy\", \"bytes\": \(n), \"ms\": \(String(format: "%.3f", p50 * 1000)), \"GBps\": \(String(format: "%.2f", Double(n) / p50 / 1e9))}")
}

private func streamBench(_ daemon: Daemon, _ name: String, surfaces count: Int, width: Int, height: Int, seconds: Double,
                         rate: Double?, damage: (Int) -> [DamageRect]) throws {
    let c = try Connection(socketPath: daemon.socketPath, name: "lamina-bench-\(name)")
    defer { c.close() }
    c.setDisableActions(true)
    let arrived = Mutex<[Double]>([])
    let signal = DispatchSemaphore(value: 0)
    let presented = Mutex<[Double]>([])
    var commits: [Double] = []
    var layers: [SurfaceLayer] = []
    let columns = Int(Double(count).squareRoot().rounded(.up))
    for k in 0..<count {
        let s = c.makeSurfaceLayer()
        try s.makeBuffers(width: width, height: height, count: 3)
        // Laid out on the 1920×1080 canvas (a 4K buffer is shown at half size).
        let w = min(1920.0 / Double(columns), Double(width) * (width > 1920 ? 0.5 : 1))
        let h = w * Double(height) / Double(width)
        s.frame = Rect(Double(k % columns) * w, Double(k / columns) * h, w, h)
        c.root.addSublayer(s)
        if k == 0 {
            s.onFrame = { _, _ in arrived.withLock { $0.append(benchNow()) }; signal.signal() }
            s.onPresented = { f in presented.withLock { $0.append(f.discarded ? .nan : f.time) } }
        }
        layers.append(s)
    }
    try c.commit()
    let before = daemon.renderLoop.zeroCopyCounts
    let run = try runFrames(c, seconds: seconds, rate: rate, onCommit: { commits.append(daemon.clock.now) }, wait: {
        guard signal.wait(timeout: .now() + 5) == .success else { benchFail("surfaces: no frame callback in 5 s") }
        return arrived.withLock { $0.last! }
    }) { frames in
        for (k, s) in layers.enumerated() {
            // Three buffers and a frame callback per commit: one is free here, or soon (a buffer
            // sampled in place is released once the next one replaced it and the frame that last
            // drew it finished on the GPU).
            var free = s.nextBuffer()
            let deadline = benchNow() + 5
            while free == nil && benchNow() < deadline { usleep(200); free = s.nextBuffer() }
            guard let b = free else { benchFail("surfaces: no free buffer in 5 s") }
            let d = damage(frames)
            if d.isEmpty {
                // A moving pattern of 16 vertical bars, every byte written (a decoded video frame).
                let shift = (frames * 8 + k * 16) % width
                for y in 0..<b.height {
                    let row = (b.pixels + y * b.stride).assumingMemoryBound(to: UInt32.self)
                    for x in 0..<b.width { row[x] = ((x + shift) / max(width / 16, 1)) & 1 == 0 ? 0xFF20_4080 : 0xFFE0_C040 }
                }
            } else {
                for r in d {
                    for y in Int(r.y)..<Int(r.y) + Int(r.height) {
                        let row = (b.pixels + y * b.stride).assumingMemoryBound(to: UInt32.self)
                        for x in Int(r.x)..<Int(r.x) + Int(r.width) { row[x] = UInt32(truncatingIfNeeded: 0xFF00_0000 | frames &* 2654435761) }
                    }
                }
            }
            s.present(b, damage: d)
        }
    }
    let json = try JSONSerialization.jsonObject(with: Data(try c.statsJSON().utf8)) as? [String: Any]
    let busy = (json?["busyFraction"] as? Double) ?? .nan
    let phases = json?["phasesMs"] as? [String: Any]
    let after = daemon.renderLoop.zeroCopyCounts
    let l = percentiles(run.latencies)
    // Feedback comes before the frame callback of the same frame: all of them are in.
    let shown = presented.withLock { $0 }
    let p = percentiles(zip(commits, shown).dropFirst(5).compactMap { c, t in t.isNaN ? nil : (t - c) * 1000 })
    let path = after.enabled ? "zeroCopy" : "copy"
    let inPlace = after.inPlaceAttaches - before.inPlaceAttaches
    let transfer = run.frames > 0 ? (after.seconds - before.seconds) / Double(run.frames) * 1000 : 0
    let gpuCopy = run.frames > 0 ? (after.gpuSeconds - before.gpuSeconds) / Double(run.frames) * 1000 : 0
    print("{\"bench\": \"surfaces\", \"case\": \"\(name)\", \"path\": \"\(path)\", \"surfaces\": \(count), \"size\": \"\(width)x\(height)\", "
          + "\"damagePerFrame\": \(damage(0).isEmpty ? "\"whole\"" : "\"64x64\""), \"inPlaceAttaches\": \(inPlace), "
          + "\"transferMsPerFrame\": \(String(format: "%.3f", transfer)), \"gpuCopyMsPerFrame\": \(String(format: "%.3f", gpuCopy)), "
          + "\"applyMs\": \(String(format: "%.3f", (phases?["apply"] as? Double) ?? .nan)), "
          + "\"uploadMs\": \(String(format: "%.3f", (phases?["upload"] as? Double) ?? .nan)), "
          + "\"framesPerSecond\": \(String(format: "%.1f", run.framesPerSecond)), "
          + "\"commitToFrameMs\": {\"p50\": \(l["p50"]!), \"p99\": \(l["p99"]!)}, "
          + "\"commitToPresentedMs\": {\"p50\": \(p["p50"]!), \"p99\": \(p["p99"]!)}, \"fps\": \(daemon.config.fps), "
          + "\"clientDrawMs\": \(String(format: "%.3f", run.drawMs)), \"daemonBusyFraction\": \(String(format: "%.3f", busy))}")
}

private func gpuBench(_ daemon: Daemon, seconds: Double) throws {
    let c = try Connection(socketPath: daemon.socketPath, name: "lamina-bench-gpu1080")
    defer { c.close() }
    c.setDisableActions(true)
    let arrived = Mutex<[Double]>([])
    let signal = DispatchSemaphore(value: 0)
    let s = c.makeSurfaceLayer()
    var ring: [(GpuImageExporter, GpuSurfaceBuffer)] = []
    for _ in 0..<3 {
        let e = try GpuImageExporter(width: 1920, height: 1080, format: 44)
        let b = try s.addGpuBuffer(memoryFD: try e.exportMemory(), width: e.width, height: e.height, format: e.format,
                                   size: e.size, memoryType: e.memoryType, deviceUUID: e.deviceUUID)
        ring.append((e, b))
    }
    s.frame = Rect(0, 0, 1920, 1080)
    c.root.addSublayer(s)
    s.onFrame = { _, _ in arrived.withLock { $0.append(benchNow()) }; signal.signal() }
    try c.commit()
    let run = try runFrames(c, seconds: seconds, rate: nil, wait: {
        guard signal.wait(timeout: .now() + 5) == .success else { benchFail("surfaces: no frame callback in 5 s") }
        return arrived.withLock { $0.last! }
    }) { frames in
        guard let (e, b) = ring.first(where: { !$0.1.isBusy }) else { benchFail("surfaces: no free GPU buffer") }
        let v = Float(frames % 64) / 63
        try e.clear(v, 1 - v, 0.5, 1)
        s.present(b)
    }
    let l = percentiles(run.latencies)
    print("{\"bench\": \"surfaces\", \"case\": \"gpu1080\", \"surfaces\": 1, \"size\": \"1920x1080\", "
          + "\"damagePerFrame\": \"whole\", \"framesPerSecond\": \(String(format: "%.1f", run.framesPerSecond)), "
          + "\"commitToFrameMs\": {\"p50\": \(l["p50"]!), \"p99\": \(l["p99"]!)}, "
          + "\"clientDrawMs\": \(String(format: "%.3f", run.drawMs))}")
}

/// Frames for `seconds` after 5 warm-up frames (at least 8 in all): `draw(k)` draws and
/// presents frame k, then the commit, then `wait` (the arrival time of the frame callback);
/// with `rate`, paced to it. Commit-to-callback latencies (ms, warm-up left out), the median
/// client drawing time (ms) and the rate reached.
private func runFrames(_ c: Connection, seconds: Double, rate: Double?, onCommit: () -> Void = {}, wait: () -> Double,
                       draw: (Int) throws -> Void) throws -> (framesPerSecond: Double, latencies: [Double], drawMs: Double, frames: Int) {
    var latencies: [Double] = [], drawing: [Double] = []
    var frames = 0
    let start = benchNow()
    var next = start
    let warmup = 5
    while benchNow() - start < seconds + (frames < warmup ? 1 : 0) || frames < warmup + 3 {
        let d0 = benchNow()
        try draw(frames)
        let t0 = benchNow()
        drawing.append(t0 - d0)
        onCommit()
        try c.commit()
        let t1 = wait()
        frames += 1
        if frames > warmup { latencies.append((t1 - t0) * 1000) }
        if let rate {
            next += 1 / rate
            let pause = next - benchNow()
            if pause > 0 { usleep(UInt32(pause * 1e6)) } else { next = benchNow() }
        }
    }
    let drawMs = drawing.dropFirst(warmup).sorted()[max(drawing.count - warmup, 1) / 2] * 1000
    return (Double(frames) / (benchNow() - start), latencies, drawMs, frames)
}
