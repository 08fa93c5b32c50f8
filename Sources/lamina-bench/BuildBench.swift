import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaRender
import LaminaTree
import LaminaModel

/// `lamina-bench build [--layers N] [--frames F] [--mix KIND] [--drive animations|commits]
/// [--speed S] [--time-offset O]`: the
/// render thread's CPU work before the GPU, without a Vulkan device: `advance` +
/// `updatePresentation` (the presentation phase) and `DrawListBuilder.build` (the build phase)
/// for the `frames` scene (every layer's position, rotation and opacity animating), on frame
/// times 1/120 s apart. `--drive commits` moves the layers by one commit a frame instead (as
/// `frames` does; applying it is not measured): every build is then a full one.
///
/// Thread CPU time (the dev machine is shared: wall time counts other processes' slices).
/// Prints JSON: ms per frame per phase, p50 and mean, the draw item count and size, and how
/// many measured frames patched the previous list (the retained list) rather than built it, and
/// why the others did not (`patch_failures`, warm-up frames included). Quick enough to
/// run under `valgrind --tool=callgrind` with a few frames.
/// `LAMINA_PATCH=0` makes every build a full one (the draw-list patch off, to compare in one
/// build); `visits_per_patch` says how the patches took the visits they did not skip.
func runBuildBench(_ arguments: [String]) {
    let bench = SceneBench("build", arguments, layers: 10_000, frames: 120, accepting: ["--layers", "--frames", "--mix", "--drive",
                                                                                                 "--speed", "--time-offset"])
    let (layers, frames, mix) = (bench.layers, bench.frames, bench.mix)
    var tree = bench.makeTree()
    var presentation = LayerTree()
    var builder = bench.makeBuilder()
    let cpuNow = SceneBench.threadCPUTime
    var evaluate: [Double] = [], build: [Double] = [], tessellate: [Double] = []
    var items = 0, patched = 0
    var ways = DrawListBuilder.PatchWays()
    let warmup = 3
    for frame in 0..<(warmup + frames) {
        let time = Double(frame) / 120
        if bench.drive == "commits" {
            do {
                try tree.apply(Commit(client: 1, content: .operations(FramesScene.animate(
                    layers: layers, width: bench.width, height: bench.height, time: time, mix: mix))))
            } catch { bench.fail("animate: \(error)") }
        }
        let t0 = cpuNow()
        tree.advance(to: time)
        tree.updatePresentation(&presentation, at: time)
        let t1 = cpuNow()
        let list = builder.build(presentation)
        let t2 = cpuNow()
        items = list.items.count
        if frame >= warmup {
            if builder.lastBuildPatched {
                patched += 1
                let w = builder.lastPatchWays
                ways.moved += w.moved; ways.descended += w.descended
                ways.reemittedOwn += w.reemittedOwn; ways.reemittedWhole += w.reemittedWhole
            }
            evaluate.append(t1 - t0)
            build.append(t2 - t1 - builder.lastTessellateSeconds)
            tessellate.append(builder.lastTessellateSeconds)
        }
    }
    let total = zip(zip(evaluate, build), tessellate).map { $0.0 + $0.1 + $1 }
    func perPatch(_ n: Int) -> String { String(format: "%.1f", Double(n) / Double(max(patched, 1))) }
    let failures = builder.patchFailures.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ")
    print("""
    {"bench": "build", "layers": \(layers), "mix": "\(mix)", "drive": "\(bench.drive)", "speed": \(bench.speed), "time_offset": \(bench.timeOffset), "frames": \(frames), "draw_items": \(items), \
    "draw_item_bytes": \(MemoryLayout<DrawItem>.stride), "patched_frames": \(patched), "patch_failures": {\(failures)}, \
    "visits_per_patch": {"moved": \(perPatch(ways.moved)), "descended": \(perPatch(ways.descended)), \
    "reemitted_own": \(perPatch(ways.reemittedOwn)), "reemitted_whole": \(perPatch(ways.reemittedWhole))}, \
    "cpu_ms_per_frame": {\(SceneBench.phase("presentation", evaluate)), \(SceneBench.phase("build", build)), \
    \(SceneBench.phase("tessellate", tessellate)), \(SceneBench.phase("total", total))}}
    """)
}
