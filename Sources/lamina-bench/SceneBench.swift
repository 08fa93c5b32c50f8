import Foundation
import LaminaFrame
import LaminaGeometry
import LaminaRender
import LaminaTree
import LaminaModel

/// What the scene benchmarks (`frames`, `build`, `upload`) share: their options, the
/// `FramesScene` tree with its animations, and their clocks and statistics.
struct SceneBench {
    var command: String
    var layers: Int
    var frames: Int
    var seconds = 5.0
    var width = 1280, height = 720
    var target: (width: Int, height: Int)?
    var mix = "all"
    var drive = "animations"
    /// `--speed`, `--time-offset`: layer time on every top-level layer (1 and 0: none), set
    /// before the animations are added (a speed other than 1 takes the presentation plan's
    /// groups instead of its fast runs; an offset alone keeps them).
    var speed = 1.0
    var timeOffset = 0.0

    static let mixes = ["all", "plain", "rounded", "shape", "gradient", "shadow", "image", "text", "cards", "mask", "replicator", "blur", "backdrop"]

    /// Parses `arguments` (`--flag value` pairs), accepting only `flags` among `--layers`,
    /// `--frames`, `--seconds`, `--size`, `--target`, `--mix`, `--drive`, `--speed`,
    /// `--time-offset`; exits with status 2
    /// and a message naming the problem otherwise.
    init(_ command: String, _ arguments: [String], layers: Int, frames: Int = 60, accepting flags: Set<String>) {
        self.command = command
        self.layers = layers
        self.frames = frames
        var i = 0
        func size(_ value: String, _ flag: String) -> (Int, Int) {
            let parts = value.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { fail("\(flag) WxH") }
            return (parts[0], parts[1])
        }
        while i < arguments.count {
            let flag = arguments[i]
            guard flags.contains(flag) else { fail("unknown option \(flag)") }
            guard i + 1 < arguments.count else { fail("\(flag) needs a value") }
            let value = arguments[i + 1]
            switch flag {
            case "--layers": guard let n = Int(value), n > 0 else { fail("--layers N, N > 0") }; self.layers = n
            case "--frames": guard let n = Int(value), n > 0 else { fail("--frames F, F > 0") }; self.frames = n
            case "--seconds": guard let s = Double(value), s > 0 else { fail("--seconds S, S > 0") }; seconds = s
            case "--size": (width, height) = size(value, flag)
            case "--target": target = size(value, flag)
            case "--mix":
                guard Self.mixes.contains(value) else { fail("--mix \(Self.mixes.joined(separator: "|"))") }
                mix = value
            case "--drive":
                guard value == "animations" || value == "commits" else { fail("--drive animations|commits") }
                drive = value
            case "--speed": guard let s = Double(value), s.isFinite else { fail("--speed S, finite") }; speed = s
            case "--time-offset": guard let s = Double(value), s.isFinite else { fail("--time-offset S, finite") }; timeOffset = s
            default: fail("unknown option \(flag)")
            }
            i += 2
        }
    }

    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lamina-bench \(command): \(message)\n".utf8)); exit(2)
    }

    /// The `FramesScene` tree: `layers` layers of the mix, with their explicit animations
    /// unless `drive` is `commits`.
    func makeTree() -> LayerTree {
        var tree = LayerTree()
        do {
            try tree.apply(Commit(client: 1, content: .connect))
            try tree.apply(Commit(client: 1, content: .operations(
                FramesScene.create(layers: layers, width: width, height: height, mix: mix))))
            if speed != 1 || timeOffset != 0, let top = tree[.clientRoot(1)]?.sublayers {
                var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
                for id in top {
                    ops.append(.set(id.local, keyPath: "speed", value: .number(speed)))
                    ops.append(.set(id.local, keyPath: "timeOffset", value: .number(timeOffset)))
                }
                try tree.apply(Commit(client: 1, content: .operations(ops)))
            }
            if drive == "animations" {
                try tree.apply(Commit(client: 1, content: .operations(
                    FramesScene.animations(layers: layers, width: width, height: height, mix: mix))))
            }
        } catch { fail("scene: \(error)") }
        return tree
    }

    func makeBuilder() -> DrawListBuilder {
        var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                      background: Color(0.95, 0.95, 0.97))
        builder.images = FramesScene.images
        // LAMINA_PATCH=0: every build a full one (what the draw-list patch saves, in one build).
        if ProcessInfo.processInfo.environment["LAMINA_PATCH"] == "0" { builder.patchesInPlace = false }
        // LAMINA_BENCH_ANALYTIC_BLUR=0: every blurred layer an offscreen group with its blur
        // passes (`DrawListBuilder.drawsAnalyticBlurs` off; `frames` and `plan`).
        builder.drawsAnalyticBlurs = ProcessInfo.processInfo.environment["LAMINA_BENCH_ANALYTIC_BLUR"] != "0"
        return builder
    }

    /// This thread's CPU time in seconds (the machine is shared: wall time counts other
    /// processes' slices).
    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Seconds as milliseconds with three decimals.
    static func ms(_ s: Double) -> Double { (s * 1e6).rounded() / 1e3 }
    static func p50(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.sorted()[v.count / 2] }
    static func mean(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.reduce(0, +) / Double(v.count) }
    /// `"name": {"p50": …, "mean": …}` in ms.
    static func phase(_ name: String, _ v: [Double]) -> String {
        "\"\(name)\": {\"p50\": \(ms(p50(v))), \"mean\": \(ms(mean(v)))}"
    }
}
