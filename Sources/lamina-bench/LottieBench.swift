import Foundation
import Lamina
import LaminaLottie
import LaminaWire

/// `lamina-bench lottie [FILE.json …] [--repeat N]`: the import time of Lottie files — parse
/// (JSON text → value), map (LaminaLottie: Lottie → scene JSON) and scene (`Scene(json:)`
/// in all: parse, map, and the scene reader's checks into layer operations) — for each file
/// given, and for a synthetic file of 200 shape layers × 20 shapes (each a group with a
/// rectangle or an ellipse, a fill or (every third) a stroke whose trim end is keyframed, and
/// its own transform; every layer's position, rotation and scale keyframed with Bézier easing). Thread CPU time, best of N
/// runs (default 5; the dev box is shared). Prints JSON: per file its bytes, the layers and
/// keyframe animations it maps to, warnings, and milliseconds.
func runLottieBench(_ arguments: [String]) {
    func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("lamina-bench lottie: \(message)\n".utf8)); exit(1)
    }
    var files: [String] = []
    var repeats = 5
    var i = 0
    while i < arguments.count {
        if arguments[i] == "--repeat", i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 {
            repeats = n; i += 2; continue
        }
        files.append(arguments[i]); i += 1
    }
    var inputs: [(String, String)] = []
    for f in files {
        guard let data = FileManager.default.contents(atPath: f) else {
            fail("cannot read \(f)")
        }
        inputs.append((f, String(decoding: data, as: UTF8.self)))
    }
    inputs.append(("synthetic-200x20", syntheticLottie(layers: 200, shapes: 20)))
    var results: [JSON] = []
    for (name, text) in inputs {
        var best = (parse: Double.infinity, map: Double.infinity, scene: Double.infinity)
        var scene: Scene? = nil
        for _ in 0..<repeats {
            var t0 = SceneBench.threadCPUTime()
            guard let root = try? JSON.parse(text) else { fail("\(name): not JSON") }
            var t1 = SceneBench.threadCPUTime()
            best.parse = min(best.parse, t1 - t0)
            t0 = SceneBench.threadCPUTime()
            do { _ = try LottieImport(json: root) } catch { fail("\(name): \(error)") }
            t1 = SceneBench.threadCPUTime()
            best.map = min(best.map, t1 - t0)
            t0 = SceneBench.threadCPUTime()
            do { scene = try Scene(json: text) } catch { fail("\(name): \(error)") }
            t1 = SceneBench.threadCPUTime()
            best.scene = min(best.scene, t1 - t0)
        }
        let animations = scene!.initialOperations.reduce(0) { n, op in
            if case .addAnimation = op { return n + 1 }
            return n
        }
        results.append(.object([
            JSON.Member(key: "file", value: .string(name)),
            JSON.Member(key: "bytes", value: .number(Double(text.utf8.count))),
            JSON.Member(key: "layers", value: .number(Double(scene!.layerCount))),
            JSON.Member(key: "layer_animation_groups", value: .number(Double(animations))),
            JSON.Member(key: "warnings", value: .number(Double(scene!.warnings.count))),
            JSON.Member(key: "parse_ms", value: .number((best.parse * 1e6).rounded() / 1e3)),
            JSON.Member(key: "map_ms", value: .number((best.map * 1e6).rounded() / 1e3)),
            JSON.Member(key: "scene_total_ms", value: .number((best.scene * 1e6).rounded() / 1e3)),
        ]))
    }
    print(JSON.object([JSON.Member(key: "bench", value: .string("lottie")),
                       JSON.Member(key: "repeats", value: .number(Double(repeats))),
                       JSON.Member(key: "files", value: .array(results))]).text)
}

/// A Lottie file of `layers` shape layers with `shapes` groups each (see `runLottieBench`).
func syntheticLottie(layers: Int, shapes: Int) -> String {
    func eased(_ a: String, _ b: String) -> String {
        #"{"a":1,"k":[{"t":0,"s":\#(a),"o":{"x":[0.4],"y":[0]},"i":{"x":[0.2],"y":[1]}},{"t":60,"s":\#(b)}]}"#
    }
    var out: [String] = []
    for l in 0..<layers {
        var items: [String] = []
        for s in 0..<shapes {
            let path = s % 2 == 0
                ? #"{"ty":"rc","p":{"a":0,"k":[\#(s * 3),0]},"s":{"a":0,"k":[20,12]},"r":{"a":0,"k":3}}"#
                : #"{"ty":"el","p":{"a":0,"k":[0,\#(s * 3)]},"s":{"a":0,"k":[14,14]}}"#
            let style = s % 3 == 0
                ? #"{"ty":"tm","s":{"a":0,"k":0},"e":\#(eased("[0]", "[100]")),"o":{"a":0,"k":0},"m":1},{"ty":"st","c":{"a":0,"k":[0.2,0.4,0.9,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":2},"lc":2,"lj":2}"#
                : #"{"ty":"fl","c":{"a":0,"k":[0.9,0.3,0.2,1]},"o":{"a":0,"k":80},"r":1}"#
            let tr = #"{"ty":"tr","p":{"a":0,"k":[\#(s),\#(s)]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":\#(s * 5)},"o":{"a":0,"k":100}}"#
            items.append(#"{"ty":"gr","it":[\#(path),\#(style),\#(tr)]}"#)
        }
        let x = Double(l % 20) * 64 + 32, y = Double(l / 20) * 72 + 36
        let ks = #"{"o":{"a":0,"k":100},"p":\#(eased("[\(x),\(y)]", "[\(x + 20),\(y)]")),"r":\#(eased("[0]", "[180]")),"s":\#(eased("[50,50]", "[100,100]")),"a":{"a":0,"k":[0,0]}}"#
        out.append(#"{"ty":4,"nm":"L\#(l)","ind":\#(l + 1),"ks":\#(ks),"shapes":[\#(items.joined(separator: ","))],"ip":0,"op":60,"st":0}"#)
    }
    return #"{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":1280,"h":720,"assets":[],"layers":[\#(out.joined(separator: ","))]}"#
}
