import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaRender
import LaminaTree

/// `lamina-bench upload [--layers N] [--frames F] [--mix KIND] [--target WxH]`: the renderer's
/// CPU work per frame — `OffscreenRenderer.render` (upload, record, submit) — for the `frames`
/// scene (1280×720 points, every layer animating), after `advance` + `updatePresentation` +
/// `DrawListBuilder.build`, which are not measured.
///
/// `--target WxH` renders the 1280×720 scene's draw list into a smaller target (the same items,
/// mostly outside it), so that lavapipe's rasterization does not dominate a run under
/// `valgrind --tool=callgrind` (use few frames there; the CPU phases do not depend on the
/// target size beyond the clip-space coefficients).
///
/// Prints JSON: ms per frame of each CPU phase (wall, as `FrameTiming` reports it; the machine
/// is shared) and of the render thread's CPU time in `render` (p50 and mean), the draw
/// item count, and over the measured frames the renderer's counters: frames whose passes were
/// recorded or reused, frames that patched their ring, instances written whole per frame,
/// instances whose motion part alone was written per frame, and the bytes written into the
/// ring per frame (whole instances at their kinds' strides, 48 per motion part).
/// `LAMINA_BENCH_FULL=1`: every frame writes every instance whole and records its passes (the
/// renderer's reference path), to time whole writes.
func runUploadBench(_ arguments: [String]) {
    let bench = SceneBench("upload", arguments, layers: 10_000, frames: 60,
                           accepting: ["--layers", "--frames", "--mix", "--target"])
    let (layers, frames, mix, target, width, height) = (bench.layers, bench.frames, bench.mix, bench.target,
                                                        bench.width, bench.height)
    func fail(_ message: String) -> Never { bench.fail(message) }
    var tree = bench.makeTree()
    var presentation = LayerTree()
    var builder = bench.makeBuilder()
    let renderer: OffscreenRenderer
    do {
        renderer = try OffscreenRenderer(width: target?.width ?? width, height: target?.height ?? height, validation: false)
    } catch { fail("\(error)") }
    // LAMINA_BENCH_FULL=1: every frame writes every instance whole and records (no reuse).
    if ProcessInfo.processInfo.environment["LAMINA_BENCH_FULL"] == "1" { renderer.reusesWork = false }
    let cpuNow = SceneBench.threadCPUTime
    var counted = (recorded: 0, reused: 0, patched: 0, written: 0, motion: 0)
    var countedBytes = 0
    var upload: [Double] = [], record: [Double] = [], submit: [Double] = [], cpu: [Double] = []
    var items = 0
    let warmup = 3
    for frame in 0..<(warmup + frames) {
        let time = Double(frame) / 120
        tree.advance(to: time)
        tree.updatePresentation(&presentation, at: time)
        var list = builder.build(presentation)
        if let target { list.width = target.width; list.height = target.height }
        items = list.items.count
        let t0 = cpuNow()
        let timing: FrameTiming
        do { timing = try renderer.render(list) } catch { fail("render: \(error)") }
        let t1 = cpuNow()
        if frame == warmup - 1 {
            counted = (renderer.framesRecorded, renderer.framesReused, renderer.framesPatched, renderer.instancesWritten,
                       renderer.motionWritten)
            countedBytes = renderer.instanceBytesWritten
        }
        if frame >= warmup {
            upload.append(timing.upload); record.append(timing.record); submit.append(timing.submit)
            cpu.append(t1 - t0)
        }
    }
    _ = try? renderer.readPixels()  // wait for the last frame
    let phase = SceneBench.phase
    let size = target.map { "\($0.width)x\($0.height)" } ?? "\(width)x\(height)"
    print("""
    {"bench": "upload", "layers": \(layers), "mix": "\(mix)", "target": "\(size)", "frames": \(frames), \
    "draw_items": \(items), "device": "\(renderer.deviceName)", \
    "frames_recorded": \(renderer.framesRecorded - counted.recorded), "frames_reused": \(renderer.framesReused - counted.reused), \
    "frames_patched": \(renderer.framesPatched - counted.patched), \
    "instances_written_per_frame": \((renderer.instancesWritten - counted.written) / frames), \
    "motion_written_per_frame": \((renderer.motionWritten - counted.motion) / frames), \
    "instance_bytes_written_per_frame": \((renderer.instanceBytesWritten - countedBytes) / frames), \
    "ms_per_frame": {\(phase("upload", upload)), \(phase("record", record)), \(phase("submit", submit)), \
    \(phase("render_thread_cpu", cpu))}}
    """)
}
