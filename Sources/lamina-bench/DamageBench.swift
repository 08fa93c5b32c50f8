import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaRender
import LaminaTree
import LaminaModel

/// `lamina-bench damage [--layers N] [--size WxH] [--seconds S] [--mix KIND]`: one small
/// animated layer (24 × 24 points, moving and turning) over N static layers of the `frames`
/// mix, through the frame driver and the real Vulkan device, unpaced. Runs alternate half-second
/// rounds with damage tracking on (each frame redraws its damage over the previous one) and
/// off (every frame redrawn whole), so both see the same machine load.
///
/// Prints JSON per mode: fps, CPU ms per frame (p50), GPU ms (p50), the mean damaged share.
func runDamageBench(_ arguments: [String]) {
    let bench = SceneBench("damage", arguments, layers: 1000, accepting: ["--layers", "--size", "--seconds", "--mix"])
    let (layers, width, height) = (bench.layers, bench.width, bench.height)
    func fail(_ message: String) -> Never { bench.fail(message) }

    var model = ModelTree()
    var driver = FrameDriver(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                             background: Color(0.95, 0.95, 0.97), targetFPS: 0)
    let mover = UInt32(layers + 1)
    var packets: [CommitPacket] = []
    do {
        packets.append(try model.validate(Commit(client: 1, content: .connect)))
        var ops = FramesScene.create(layers: layers, width: width, height: height, mix: bench.mix)
        ops += [.create(mover, .layer), .addSublayer(parent: 0, child: mover),
                .set(mover, keyPath: "bounds", value: .rect(Rect(0, 0, 24, 24))),
                .set(mover, keyPath: "position", value: .point(Point(Double(width) / 2, Double(height) / 2))),
                .set(mover, keyPath: "backgroundColor", value: .color(Color(0.9, 0.2, 0.1))),
                .set(mover, keyPath: "cornerRadius", value: .number(6))]
        var timing = AnimationTiming(duration: 2, repeatCount: .infinity, autoreverses: true)
        timing.timingFunction = .easeInEaseOut
        ops.append(.addAnimation(mover, key: "move", animation: .basic(BasicAnimation(
            keyPath: "position.x", from: .double(Double(width) / 2 - 60), to: .double(Double(width) / 2 + 60), timing: timing))))
        ops.append(.addAnimation(mover, key: "spin", animation: .basic(BasicAnimation(
            keyPath: "transform.rotation.z", from: .double(0), to: .double(2 * .pi),
            timing: AnimationTiming(duration: 3, repeatCount: .infinity)))))
        packets.append(try model.validate(Commit(client: 1, content: .operations(ops))))
    } catch { fail("scene: \(error)") }
    let renderer: OffscreenRenderer
    do { renderer = try OffscreenRenderer(width: width, height: height, validation: false) } catch { fail("\(error)") }

    struct Mode { var cpu: [Double] = []; var gpu: [Double] = []; var damaged: [Double] = []; var frames = 0; var seconds = 0.0 }
    var modes = [Mode(), Mode()]   // 0: damage tracked, 1: whole frames
    let start = now()
    var round = 0
    // Warm-up: the first frames (tessellation, buffers) are not measured.
    for k in 0..<3 {
        let f = driver.frame(applying: packets, at: Double(k) / 60)
        packets = []
        do { try renderer.render(f.drawList) } catch { fail("render: \(error)") }
    }
    while now() - start < bench.seconds * 2 || round < 4 {
        let m = round % 2
        driver.tracksDamage = m == 0
        let roundStart = now()
        while now() - roundStart < 0.5 {
            let t0 = now()
            let f = driver.frame(applying: [], at: t0 - start)
            let timing: FrameTiming
            do { timing = try renderer.render(f.drawList) } catch { fail("render: \(error)") }
            let cpu = now() - t0 - timing.gpuWait
            modes[m].cpu.append(cpu)
            if let g = timing.gpu { modes[m].gpu.append(g) }
            modes[m].damaged.append(f.phases.damaged)
            modes[m].frames += 1
        }
        modes[m].seconds += now() - roundStart
        round += 1
    }
    _ = try? renderer.readPixels()
    let ms = SceneBench.ms
    func median(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
    func json(_ m: Mode) -> String {
        """
        {"fps": \((Double(m.frames) / max(m.seconds, 1e-9) * 10).rounded() / 10), "cpu_ms_p50": \(ms(median(m.cpu))), \
        "gpu_ms_p50": \(m.gpu.isEmpty ? "null" : "\(ms(median(m.gpu)))"), \
        "damaged_mean": \((m.damaged.reduce(0, +) / Double(max(m.damaged.count, 1)) * 10000).rounded() / 10000)}
        """
    }
    print("""
    {"layers": \(layers), "size": "\(width)x\(height)", "mix": "\(bench.mix)", "device": "\(renderer.deviceName)", \
    "damage": \(json(modes[0])), "whole": \(json(modes[1]))}
    """)
}

private func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
