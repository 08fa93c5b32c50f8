import Foundation
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
/// is shared) and of the render thread's CPU time in `render` (p50 and mean), and the draw
/// item count.
func runUploadBench(_ arguments: [String]) {
    var layers = 10_000, frames = 60
    var mix = "all"
    var target: (width: Int, height: Int)?
    var i = 0
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lamina-bench upload: \(message)\n".utf8)); exit(2)
    }
    while i < arguments.count {
        let flag = arguments[i]
        guard i + 1 < arguments.count else { fail("\(flag) needs a value") }
        let value = arguments[i + 1]
        switch flag {
        case "--layers": guard let n = Int(value), n > 0 else { fail("--layers N, N > 0") }; layers = n
        case "--frames": guard let n = Int(value), n > 0 else { fail("--frames F, F > 0") }; frames = n
        case "--target":
            let parts = value.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { fail("--target WxH") }
            target = (parts[0], parts[1])
        case "--mix":
            guard ["all", "plain", "rounded", "shape", "gradient", "shadow"].contains(value) else {
                fail("--mix all|plain|rounded|shape|gradient|shadow")
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
    let renderer: OffscreenRenderer
    do {
        renderer = try OffscreenRenderer(width: target?.width ?? width, height: target?.height ?? height, validation: false)
    } catch { fail("\(error)") }
    func cpuNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
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
        if frame >= warmup {
            upload.append(timing.upload); record.append(timing.record); submit.append(timing.submit)
            cpu.append(t1 - t0)
        }
    }
    _ = try? renderer.readPixels()  // wait for the last frame
    func ms(_ s: Double) -> Double { (s * 1e6).rounded() / 1e3 }
    func p50(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) }
    func phase(_ name: String, _ v: [Double]) -> String { "\"\(name)\": {\"p50\": \(ms(p50(v))), \"mean\": \(ms(mean(v)))}" }
    let size = target.map { "\($0.width)x\($0.height)" } ?? "\(width)x\(height)"
    print("""
    {"bench": "upload", "layers": \(layers), "mix": "\(mix)", "target": "\(size)", "frames": \(frames), \
    "draw_items": \(items), "device": "\(renderer.deviceName)", \
    "ms_per_frame": {\(phase("upload", upload)), \(phase("record", record)), \(phase("submit", submit)), \
    \(phase("render_thread_cpu", cpu))}}
    """)
}
