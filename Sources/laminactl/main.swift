// laminactl: talk to a running laminad, or render and query scene files without one.
import Foundation
import Lamina
import LaminaPNG
import LaminaRender
import LaminaWire
import LaminaSceneTree

let usage = """
usage: laminactl ping [--socket PATH]
       laminactl tree [--socket PATH]
       laminactl stats [--socket PATH]
       laminactl capture FILE.png [--at SECONDS] [--socket PATH]
       laminactl advance SECONDS [--socket PATH]
       laminactl trace --seconds S [--frames N] OUT.json [--socket PATH]
       laminactl render SCENE --at T [--at T …] --out FILE.png|DIR [--size WxH] [--scale S] [--once]
       laminactl render SCENE --fps F --duration D --out DIR [--size WxH] [--scale S] [--once]
       laminactl query SCENE --at T NAME.KEYPATH … [--once]
       laminactl query SCENE --at T --hit X,Y [--once]
       laminactl load SCENE [--socket PATH] [--once]
       laminactl lottie-requests LOTTIE [--first-id N] [--playback JSON] [--set JSON]
SCENE is a scene file or a Lottie (Bodymovin) JSON file; a Lottie file loops unless --once.
lottie-requests prints, as JSON, the staged requests that build a Lottie file's layers (ids
from N) for a client library in another language (clients/python: lamina.LottiePlayer), or
with --set {"keyPath": K, "value": [...], "rangeTime": T} those of a dynamic property.
"""

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("laminactl: \(message)\n".utf8))
    exit(code)
}

var args = Array(CommandLine.arguments.dropFirst())
var socketPath: String? = nil
var times: [Double] = []
var out: String? = nil
var sizeOverride: Size? = nil
var scaleOverride: Double? = nil
var fps: Double? = nil
var duration: Double? = nil
var hit: Point? = nil
var seconds: Double? = nil
var maxFrames = 0
var once = false
var firstID: UInt32 = 1
var playbackJSON: String? = nil
var setJSON: String? = nil
var positional: [String] = []

@MainActor func value(_ flag: String) -> String {
    guard !args.isEmpty else { fail("\(flag) needs a value\n\(usage)", code: 2) }
    return args.removeFirst()
}
@MainActor func positiveNumber(_ flag: String, allowZero: Bool = false) -> Double {
    let s = value(flag)
    guard let v = Double(s), v.isFinite, allowZero ? v >= 0 : v > 0 else {
        fail("\(flag) needs a number \(allowZero ? "≥ 0" : "> 0") (got \(s))", code: 2)
    }
    return v
}

while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--socket": socketPath = value(a)
    case "--at": times.append(positiveNumber(a, allowZero: true))
    case "--out": out = value(a)
    case "--size":
        let s = value(a).split(separator: "x").compactMap { Double($0) }
        guard s.count == 2, s[0] > 0, s[1] > 0 else { fail("--size needs WxH", code: 2) }
        sizeOverride = Size(s[0], s[1])
    case "--scale": scaleOverride = positiveNumber(a)
    case "--fps": fps = positiveNumber(a)
    case "--duration": duration = positiveNumber(a, allowZero: true)
    case "--seconds": seconds = positiveNumber(a)
    case "--once": once = true
    case "--first-id": firstID = UInt32(positiveNumber(a))
    case "--playback": playbackJSON = value(a)
    case "--set": setJSON = value(a)
    case "--frames":
        let s = value(a)
        guard let n = Int(s), (1...10_000).contains(n) else { fail("--frames needs a count in 1…10000 (got \(s))", code: 2) }
        maxFrames = n
    case "--hit":
        let s = value(a).split(separator: ",").compactMap { Double($0) }
        guard s.count == 2, s.allSatisfy(\.isFinite) else { fail("--hit needs X,Y", code: 2) }
        hit = Point(s[0], s[1])
    case "-h", "--help": print(usage); exit(0)
    default: positional.append(a)
    }
}
guard let command = positional.first else { fail("no command\n\(usage)", code: 2) }

@MainActor func loadScene() -> Scene {
    guard positional.count >= 2 else { fail("\(command) needs a SCENE file\n\(usage)", code: 2) }
    let scene: Scene
    do { scene = try Scene(contentsOfFile: positional[1], lottieLoops: !once) } catch { fail("\(positional[1]): \(error)") }
    // The parts of a Lottie file left out.
    for w in scene.warnings { FileHandle.standardError.write(Data("laminactl: warning: \(w)\n".utf8)) }
    return scene
}

func writePNG(_ pixels: [UInt8], _ width: Int, _ height: Int, to path: String) throws {
    let png = try PNG.encode(RGBAImage(width: width, height: height, pixels: pixels))
    try Data(png).write(to: URL(fileURLWithPath: path))
}

@MainActor func render() throws {
    var scene = loadScene()
    if let s = sizeOverride { scene.size = s }
    if let s = scaleOverride { scene.scale = s }
    guard let out else { fail("render needs --out FILE.png|DIR", code: 2) }
    var frames: [(time: Double, path: String)] = []
    if let fps {
        guard let duration, times.isEmpty else { fail("render --fps needs --duration (and no --at)", code: 2) }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let count = max(1, Int((duration * fps + 1e-9).rounded(.down)))
        for i in 0..<count {
            frames.append((Double(i) / fps, out + "/" + String(format: "frame-%05d.png", i)))
        }
    } else {
        guard !times.isEmpty else { fail("render needs --at T (or --fps and --duration)", code: 2) }
        if out.hasSuffix(".png") {
            guard times.count == 1 else { fail("several --at times need --out DIR", code: 2) }
            frames = [(times[0], out)]
        } else {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            frames = times.enumerated().map { ($0.element, out + "/" + String(format: "frame-%05d.png", $0.offset)) }
        }
    }
    let compositor = try HeadlessCompositor(widthPoints: scene.size.width, heightPoints: scene.size.height,
                                            scale: scene.scale, background: scene.background)
    do { compositor.images = try HeadlessCompositor.loadImages(scene.images, data: scene.imageData) } catch { fail("\(positional[1]): \(error)") }
    compositor.tileSources = HeadlessCompositor.loadTileSources(scene.images)
    for f in frames {
        let presentation = try scene.tree(at: f.time).presentation(at: f.time)
        try writePNG(try compositor.render(presentation, at: f.time), compositor.pixelWidth, compositor.pixelHeight, to: f.path)
    }
    print("wrote \(frames.count) frame\(frames.count == 1 ? "" : "s") (\(compositor.pixelWidth)x\(compositor.pixelHeight)) to \(out)")
}

@MainActor func query() throws {
    let scene = loadScene()
    guard times.count == 1 else { fail("query needs one --at T", code: 2) }
    if let hit {
        guard positional.count == 2 else { fail("query --hit takes no key paths", code: 2) }
        let name = try scene.hitTest(hit, at: times[0])
        print(JSON.object([JSON.Member(key: "hit", value: name.map { .string($0) } ?? .null)]).text)
    } else {
        guard positional.count > 2 else { fail("query needs NAME.KEYPATH arguments (or --hit X,Y)", code: 2) }
        print(try scene.query(Array(positional.dropFirst(2)), at: times[0]).text)
    }
}

@MainActor func load() throws {
    let scene = loadScene()
    let connection = try Connection(socketPath: socketPath, name: "laminactl load")
    let player = try ScenePlayer(scene: scene, connection: connection)
    try player.loadAndPlay { line in print(line) }
    print("loaded \(positional[1]); staying attached (Ctrl-C to detach and remove the scene)")
    while true { sleep(3600) }
}

do {
    switch command {
    case "render": try render(); exit(0)
    case "query": try query(); exit(0)
    case "load": try load()
    case "lottie-requests": try lottieRequests(); exit(0)
    default: break
    }
    let connection = try Connection(socketPath: socketPath, name: "laminactl")
    switch command {
    case "ping":
        let rtt = try connection.ping()
        print(String(format: "pong from laminad in %.3f ms (client %u)", rtt * 1000, connection.clientID))
    case "tree":
        print(try connection.treeJSON())
    case "stats":
        print(try connection.statsJSON())
    case "capture":
        guard positional.count == 2 else { fail("capture needs an output FILE.png\n\(usage)", code: 2) }
        let shot = try connection.capture(at: times.last)
        try Data(shot.png).write(to: URL(fileURLWithPath: positional[1]))
        print("wrote \(positional[1]) (\(shot.width)x\(shot.height), t = \(shot.time) s)")
    case "trace":
        guard positional.count == 2 else { fail("trace needs an output OUT.json\n\(usage)", code: 2) }
        guard let seconds else { fail("trace needs --seconds S\n\(usage)", code: 2) }
        let cap = try connection.startTrace(maxFrames: maxFrames)
        usleep(UInt32(min(seconds, 3600) * 1e6))
        let json = try connection.stopTrace()
        try Data(json.utf8).write(to: URL(fileURLWithPath: positional[1]))
        let other = ((try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any])?["otherData"] as? [String: Any]
        let frames = other?["frames"] as? Int ?? 0, commits = other?["commits"] as? Int ?? 0
        let span = other?["spanSeconds"] as? Double ?? 0, dropped = other?["droppedFrames"] as? Int ?? 0
        print("wrote \(positional[1]): \(frames) frames, \(commits) commits over \(String(format: "%.3f", span)) s"
              + (dropped > 0 ? " (\(dropped) frames past the cap of \(cap) not kept)" : ""))
    case "advance":
        guard positional.count == 2, let s = Double(positional[1]), s.isFinite, s >= 0 else {
            fail("advance needs SECONDS ≥ 0", code: 2)
        }
        print(String(format: "clock at %.6f s", try connection.advanceClock(by: s)))
    default:
        fail("unknown command \(command)\n\(usage)", code: 2)
    }
} catch {
    fail("\(error)")
}
