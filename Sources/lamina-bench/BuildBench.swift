import Foundation
import LaminaGeometry
import LaminaRender
import LaminaTree

/// `lamina-bench build [--layers N] [--frames F] [--mix KIND]`: the render thread's CPU work
/// before the GPU, without a Vulkan device: `advance` + `updatePresentation` (the presentation
/// phase) and `DrawListBuilder.build` (the build phase) for the `frames` scene (every layer's
/// position, rotation and opacity animating), on frame times 1/120 s apart.
///
/// Thread CPU time (the dev machine is shared: wall time counts other processes' slices).
/// Prints JSON: ms per frame per phase, p50 and mean, and the draw item count. Quick enough to
/// run under `valgrind --tool=callgrind` with a few frames.
func runBuildBench(_ arguments: [String]) {
    var layers = 10_000, frames = 120
    var mix = "all"
    var i = 0
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lamina-bench build: \(message)\n".utf8)); exit(2)
    }
    while i < arguments.count {
        let flag = arguments[i]
        guard i + 1 < arguments.count else { fail("\(flag) needs a value") }
        let value = arguments[i + 1]
        switch flag {
        case "--layers": guard let n = Int(value), n > 0 else { fail("--layers N, N > 0") }; layers = n
        case "--frames": guard let n = Int(value), n > 0 else { fail("--frames F, F > 0") }; frames = n
        case "--mix":
            guard ["all", "plain", "rounded", "shape", "gradient"].contains(value) else {
                fail("--mix all|plain|rounded|shape|gradient")
            }
            mix = value
        default: fail("unknown option \(flag)")
        }
        i += 2
    }
    let width = 1280, height = 720
    var tree = LayerTree()
    do {
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations(FramesScene.create(layers: layers, width: width, height: height, mix: mix))))
        try tree.apply(Commit(client: 1, content: .operations(FramesScene.animations(layers: layers, width: width, height: height))))
    } catch { fail("scene: \(error)") }
    var presentation = LayerTree()
    var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                  background: Color(0.95, 0.95, 0.97))
    func cpuNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    var evaluate: [Double] = [], build: [Double] = [], tessellate: [Double] = []
    var items = 0
    let warmup = 3
    for frame in 0..<(warmup + frames) {
        let time = Double(frame) / 120
        let t0 = cpuNow()
        tree.advance(to: time)
        tree.updatePresentation(&presentation, at: time)
        let t1 = cpuNow()
        let list = builder.build(presentation)
        let t2 = cpuNow()
        items = list.items.count
        if frame >= warmup {
            evaluate.append(t1 - t0)
            build.append(t2 - t1 - builder.lastTessellateSeconds)
            tessellate.append(builder.lastTessellateSeconds)
        }
    }
    func ms(_ s: Double) -> Double { (s * 1e6).rounded() / 1e3 }
    func p50(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
    let total = zip(zip(evaluate, build), tessellate).map { $0.0 + $0.1 + $1 }
    print("""
    {"bench": "build", "layers": \(layers), "mix": "\(mix)", "frames": \(frames), "draw_items": \(items), \
    "cpu_ms_per_frame": {"presentation": {"p50": \(ms(p50(evaluate))), "mean": \(ms(mean(evaluate)))}, \
    "build": {"p50": \(ms(p50(build))), "mean": \(ms(mean(build)))}, \
    "tessellate": {"p50": \(ms(p50(tessellate))), "mean": \(ms(mean(tessellate)))}, \
    "total": {"p50": \(ms(p50(total))), "mean": \(ms(mean(total)))}}}
    """)
}
