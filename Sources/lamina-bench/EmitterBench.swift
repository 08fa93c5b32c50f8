import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaRender
import LaminaTree

/// `lamina-bench emitters [--particles N,N,…] [--frames F] [--size WxH] [--contents]
/// [--render-mode MODE] [--startup]`: emitter
/// layers' cost per particle. For each N, ⌈N / 10 000⌉ emitters (a frame draws at most
/// `EmitterSimulation.maxParticles` of one) whose single cell has birthRate n / 2 and lifetime
/// 2, so exactly N particles live from t = 2 on — moving, spinning, with color ranges; 1-point
/// squares scaled to 6 points (rect items), or `--contents` a 16 × 16 image (image items).
/// Frames at t = 2.5 + k/120. Per frame: the presentation update and draw-list build (thread
/// CPU time: the simulation runs there), the offscreen renderer's CPU phases (upload, record,
/// submit) and the GPU's time (lavapipe: CPU threads). Prints one JSON object: per N the p50
/// of each in ms; the cost per particle of each phase (the slope between the smallest and the
/// largest N, in µs); and the most particles whose frame (build + render CPU + GPU p50) fits
/// 8.33 ms (120 Hz), measured and by the linear fit. `--render-mode` sets the emitters'
/// `renderMode` (default `unordered`; `additive` draws every particle with the additive
/// pipelines).
///
/// `--startup`: instead, the start-up cost in this (fresh) process — wall seconds to open the
/// renderer (Vulkan instance, device, every pipeline), of which the variant pipelines
/// (source-over and the 8 additive ones apart), and to build and render the first frame of
/// the first N. Run with `LAMINA_BENCH_NO_ADDITIVE_PIPELINES=1` the renderer leaves the
/// additive pipelines out (then `--render-mode additive` is refused): alternate the two for
/// the additive path's start-up cost.
func runEmitterBench(_ arguments: [String]) {
    var counts = [1_000, 5_000, 10_000, 20_000, 40_000]
    var frames = 120, width = 1280, height = 720, contents = false
    var renderMode = EmitterRenderMode.unordered, startup = false
    var i = 0
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lamina-bench emitters: \(message)\n".utf8)); exit(2)
    }
    while i < arguments.count {
        let a = arguments[i]
        func value() -> String {
            i += 1
            guard i < arguments.count else { fail("\(a) needs a value") }
            return arguments[i]
        }
        switch a {
        case "--particles":
            counts = value().split(separator: ",").compactMap { Int($0) }
            guard !counts.isEmpty, counts.allSatisfy({ $0 >= 0 && $0 <= EmitterSimulation.maxParticlesPerClient }) else {
                fail("--particles takes counts 0…\(EmitterSimulation.maxParticlesPerClient), comma-separated")
            }
        case "--frames": frames = max(1, Int(value()) ?? 120)
        case "--size":
            let p = value().split(separator: "x").compactMap { Int($0) }
            guard p.count == 2 else { fail("--size WxH") }
            (width, height) = (p[0], p[1])
        case "--contents": contents = true
        case "--render-mode":
            let name = value()
            guard let mode = EmitterRenderMode(rawValue: name) else {
                fail("--render-mode takes \(EmitterRenderMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            renderMode = mode
        case "--startup": startup = true
        default: fail("unknown option \(a)")
        }
        i += 1
    }
    let withoutAdditive = getenv("LAMINA_BENCH_NO_ADDITIVE_PIPELINES").map { String(cString: $0) == "1" } ?? false
    if withoutAdditive, renderMode == .additive {
        fail("--render-mode additive needs the additive pipelines (LAMINA_BENCH_NO_ADDITIVE_PIPELINES=1 leaves them out)")
    }
    let opening = benchNow()
    let renderer: OffscreenRenderer
    do { renderer = try OffscreenRenderer(width: width, height: height, validation: false) } catch { fail("\(error)") }
    let opened = benchNow()
    var sprite: [UInt8] = []
    for y in 0..<16 {
        for x in 0..<16 {
            let d = ((Double(x) - 7.5) * (Double(x) - 7.5) + (Double(y) - 7.5) * (Double(y) - 7.5)).squareRoot()
            let a = UInt8(max(0, min(255, (8 - d) * 64)))
            sprite += [a, a, a, a]
        }
    }
    func p50(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
    func ms(_ s: Double) -> String { String(format: "%.3f", s * 1000) }
    var rows: [(n: Int, build: Double, render: Double, gpu: Double, items: Int)] = []
    for n in counts {
        let emitters = (n + EmitterSimulation.maxParticles - 1) / EmitterSimulation.maxParticles
        var ops: [LayerChange] = []
        var cell = EmitterCell(name: "bit")
        cell.lifetime = 2; cell.velocity = 60; cell.velocityRange = 30; cell.emissionRange = .pi
        cell.yAcceleration = 30; cell.spin = 2; cell.spinRange = 2; cell.scale = contents ? 1 : 6
        cell.color = Color(0.9, 0.6, 0.3, 1); cell.redRange = 0.1; cell.greenRange = 0.3; cell.blueRange = 0.3
        cell.alphaSpeed = -0.3
        if contents { cell.contents = "sprite" }
        for e in 0..<emitters {
            let id = UInt32(e + 1)
            var c = cell
            c.birthRate = Double(n / emitters) / 2
            let x = Double(width) * (Double(e) + 0.5) / Double(emitters)
            ops += [.create(id, .emitter), .addSublayer(parent: 0, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, Double(width), Double(height)))),
                    .set(id, keyPath: "position", value: .point(Point(Double(width) / 2, Double(height) / 2))),
                    .set(id, keyPath: "emitterPosition", value: .point(Point(x, Double(height) / 3))),
                    .set(id, keyPath: "emitterShape", value: .string("circle")),
                    .set(id, keyPath: "emitterSize", value: .size(Size(100, 100))),
                    .set(id, keyPath: "seed", value: .number(Double(e))),
                    .set(id, keyPath: "renderMode", value: .string(renderMode.rawValue)),
                    .set(id, keyPath: "emitterCells", value: .emitterCells([c]))]
        }
        var tree = LayerTree()
        do {
            try tree.apply(Commit(client: 1, content: .connect))
            try tree.apply(Commit(client: 1, content: .operations(ops)), at: 0)
        } catch { fail("scene: \(error)") }
        var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                      background: Color(0.1, 0.1, 0.15))
        builder.images = ["sprite": LaminaImage.Image(width: 16, height: 16, format: .rgba8, pixels: sprite)]
        var presentation = LayerTree()
        var build: [Double] = [], render: [Double] = [], gpu: [Double] = []
        var items = 0
        let warmup = 5
        if startup {
            // The first frame of this scene in this process: build, render and wait for it.
            let t = 2.5
            tree.advance(to: t)
            tree.updatePresentation(&presentation, at: t)
            builder.time = t
            let list = builder.build(presentation)
            do { _ = try renderer.render(list) } catch { fail("render: \(error)") }
            let firstFrame = benchNow()
            let p = renderer.pipelineSeconds
            func s3(_ v: Double) -> String { String(format: "%.4f", v) }
            print("""
            {"bench": "emitters-startup", "size": "\(width)x\(height)", "render_mode": "\(renderMode.rawValue)", \
            "additive_pipelines": \(!withoutAdditive), "particles": \(n), "draw_items": \(list.items.count), \
            "open_renderer_s": \(s3(opened - opening)), "plain_variant_pipelines_s": \(s3(p.plain)), \
            "additive_variant_pipelines_s": \(s3(p.additive)), "first_frame_s": \(s3(firstFrame - opened)), \
            "to_first_frame_s": \(s3(firstFrame - opening))}
            """)
            return
        }
        for f in 0..<(warmup + frames) {
            let t = 2.5 + Double(f) / 120
            let t0 = SceneBench.threadCPUTime()
            tree.advance(to: t)
            tree.updatePresentation(&presentation, at: t)
            builder.time = t
            let list = builder.build(presentation)
            let t1 = SceneBench.threadCPUTime()
            items = list.items.count
            let timing: FrameTiming
            do { timing = try renderer.render(list) } catch { fail("render: \(error)") }
            guard f >= warmup else { continue }
            build.append(t1 - t0)
            render.append(timing.upload + timing.record + timing.submit)
            if let g = timing.gpu { gpu.append(g) }
        }
        rows.append((n, p50(build), p50(render), p50(gpu), items))
    }
    // The cost per particle: the slope from the smallest to the largest N.
    let first = rows.first!, last = rows.last!
    let span = Double(max(last.n - first.n, 1))
    func slope(_ a: Double, _ b: Double) -> Double { (b - a) / span }
    let buildPer = slope(first.build, last.build), renderPer = slope(first.render, last.render)
    let gpuPer = slope(first.gpu, last.gpu)
    let budget = 1.0 / 120
    let total = { (r: (n: Int, build: Double, render: Double, gpu: Double, items: Int)) in r.build + r.render + r.gpu }
    let fits = rows.filter { total($0) <= budget }.map(\.n).max() ?? 0
    // The linear fit: total(N) ≈ total(first) + (N − first) × per-particle.
    let per = buildPer + renderPer + gpuPer
    let fitted = per > 0 ? Int((Double(first.n) + (budget - total(first)) / per).rounded(.down)) : 0
    let perN = rows.map { r in
        "{\"particles\": \(r.n), \"draw_items\": \(r.items), \"build_cpu_ms_p50\": \(ms(r.build)), "
            + "\"render_cpu_ms_p50\": \(ms(r.render)), \"gpu_ms_p50\": \(ms(r.gpu)), \"frame_ms\": \(ms(total(r)))}"
    }.joined(separator: ", ")
    print("""
    {"bench": "emitters", "size": "\(width)x\(height)", "contents": \(contents), "render_mode": "\(renderMode.rawValue)", \
    "frames": \(frames), "runs": [\(perN)], \
    "us_per_particle": {"build_cpu": \(String(format: "%.4f", buildPer * 1e6)), "render_cpu": \(String(format: "%.4f", renderPer * 1e6)), \
    "gpu": \(String(format: "%.4f", gpuPer * 1e6))}, "particles_within_8_33_ms_measured": \(fits), \
    "particles_within_8_33_ms_fitted": \(fitted)}
    """)
}

