import Foundation
import Lamina
import LaminaLottie
import LaminaServer
import LaminaWire
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree

/// `lamina-bench lottie-grid [--count N] [--size WxH] [--seconds S] [--plan] [--dump-plan] [--meshes] [--plan-time T] [FILE.json …]`:
/// issue 27's grid — N (100) Lottie animations playing at once in a W×H (1280×720) canvas, each
/// fitted into its cell of a ⌈√N⌉-column grid — as Lamina plays them: a headless daemon in this
/// process (realtime clock, its pacing cap at 1,000 Hz, so unpaced: a frame as soon as the last
/// is done) and a client in a child process (`lottie-grid-client`) that imports each file
/// (LaminaLottie, in the client), loads it over its own connection (`LottiePlayer`: one
/// connection per animation, as each file's layer ids start at 1), places its root layer in its
/// cell, seeks it to its phase and sets its speed, then does nothing: the compositor plays them.
///
/// The files (default: the 32 files of `Tests/Fixtures/lottie-corpus`) are taken in name order and
/// cycled when fewer than N: cell k shows file k mod F, at speed 1, 0.8, 1.25, 0.9 for its
/// first, second, third, fourth showing (`LottieGrid.speeds`), starting at progress
/// frac(0.618034 k) of its range. `--plan` prints that plan (one line per cell: file, speed,
/// phase, the fitted rectangle x y w h in pixels) for `bench/peers/run-lottie-peers`, whose
/// rlottie, ThorVG and Qt Lottie hosts show the same grid.
///
/// After the client says it is ready and one second of warm-up, `--seconds` (5) are measured:
/// frames per second (the daemon's frame count), the render thread's CPU time per frame (its
/// `/proc` schedstat run time: evaluation, draw list, recording, submission) and its wall time
/// per frame (the stats' `busySeconds`: start to submission), of which waiting for a frame slot
/// (`gpuWaitSeconds`: the GPU had not finished the frame before last), the daemon
/// process's CPU time per frame (every thread of this process: the render and server threads
/// and lavapipe's rasterizer threads; this process runs nothing else meanwhile), and the client
/// process's CPU time per frame over the same interval (getrusage in the child; zero is the
/// goal). One JSON line, with the import (client CPU to load all N) apart, and the figures of the
/// grid's frame plan at `--plan-time` (`LottieGridPlan`) and its shape meshes frame by frame
/// (`LottieGridMeshes`); `--dump-plan` prints that plan and stops, `--meshes` the mesh figures.
func runLottieGridBench(_ arguments: [String]) {
    let options = LottieGrid.Options(arguments, bench: "lottie-grid")
    let grid = LottieGrid(options)
    if options.plan {
        for cell in grid.cells {
            print("\(cell.file) \(cell.speed) \(cell.phase) \(cell.x) \(cell.y) \(cell.width) \(cell.height)")
        }
        return
    }
    let framePlan: LottieGridPlan
    do { framePlan = try LottieGridPlan(grid, width: options.width, height: options.height, at: options.planTime) } catch {
        benchFail("lottie-grid: the plan: \(error)")
    }
    let meshes: LottieGridMeshes
    do { meshes = try LottieGridMeshes(grid, width: options.width, height: options.height, at: options.planTime) } catch {
        benchFail("lottie-grid: the meshes: \(error)")
    }
    if options.meshesOnly {
        print(JSON.object(meshes.figures).text)
        return
    }
    if options.dumpPlan {
        print(framePlan.dump())
        return
    }
    var config = DaemonConfig()
    let socket = NSTemporaryDirectory() + "lamina-lottie-grid-\(getpid()).sock"
    config.socket = socket
    config.headless = true
    config.width = options.width; config.height = options.height; config.fps = 1000
    config.clock = "realtime"
    config.maxMessageSize = 1 << 22
    config.maxClients = max(config.maxClients, options.count + 8)
    config.automaticRasterCache = LottieGridPlan.rasterizesAutomatically
    config.effectRasterCache = LottieGridPlan.rasterizesEffects
    let daemon = Daemon(config: config)
    do { try daemon.start() } catch { benchFail("lottie-grid: daemon: \(error)") }
    defer { daemon.stop() }

    // The client: a child process, its stdin a pipe (each line asks for its CPU time; EOF ends it).
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["lottie-grid-client", "--socket", socket] + arguments
    let toChild = Pipe(), fromChild = Pipe()
    child.standardInput = toChild
    child.standardOutput = fromChild
    do { try child.run() } catch { benchFail("lottie-grid: cannot start the client: \(error)") }
    let reader = LineReader(fromChild.fileHandleForReading)
    func fail(_ message: String) -> Never {
        child.terminate(); child.waitUntilExit()
        benchFail("lottie-grid: \(message)")
    }
    func childCPU() -> Double {
        toChild.fileHandleForWriting.write(Data("cpu\n".utf8))
        guard let line = reader.next(), let v = Double(line) else { fail("the client did not answer") }
        return v
    }
    // "ready LAYERS IMPORT_CPU_SECONDS WARNINGS" once every animation is loaded and playing.
    guard let ready = reader.next() else { fail("the client ended before it was ready") }
    let parts = ready.split(separator: " ")
    guard parts.count == 4, parts[0] == "ready", let layers = Int(parts[1]), let importCPU = Double(parts[2]),
          let warnings = Int(parts[3]) else { fail("the client said \(ready)") }

    let stats: Connection
    do { stats = try Connection(socketPath: socket, name: "lottie-grid-stats") } catch { fail("stats: \(error)") }
    /// The daemon's frame count, and the render thread's wall seconds on frames (`busySeconds`)
    /// and, of those, waiting for a frame slot (`gpuWaitSeconds`), all from one publication.
    func frames() -> (count: Int, busy: Double, gpuWait: Double) {
        guard let text = try? stats.statsJSON(), case .object(let m)? = try? JSON.parse(text) else { fail("no stats") }
        func number(_ key: String) -> Double {
            guard let f = m.first(where: { $0.key == key }), case .number(let n) = f.value else { fail("no \(key) in the stats") }
            return n
        }
        return (Int(number("frames")), number("busySeconds"), number("gpuWaitSeconds"))
    }
    Thread.sleep(forTimeInterval: 1)   // warm-up: first tessellations, atlases, pipelines
    let renderTID = threadID(named: "lamina-render")
    let s0 = frames(), t0 = benchNow(), r0 = renderTID.map(threadRunSeconds) ?? .nan
    let p0 = processCPUSeconds(), c0 = childCPU()
    Thread.sleep(forTimeInterval: options.seconds)
    let c1 = childCPU(), p1 = processCPUSeconds()
    let s1 = frames(), t1 = benchNow(), r1 = renderTID.map(threadRunSeconds) ?? .nan
    // The render thread's mean phases over its recent frames (the daemon's stats: `phasesMs`).
    var phases: JSON = .null
    if let text = try? stats.statsJSON(), case .object(let m)? = try? JSON.parse(text),
       let p = m.first(where: { $0.key == "phasesMs" }) { phases = p.value }
    stats.close()
    toChild.fileHandleForWriting.closeFile()
    child.waitUntilExit()
    let n = Double(max(s1.count - s0.count, 1))
    func ms(_ seconds: Double) -> JSON { .number(seconds.isFinite ? (seconds * 1e6).rounded() / 1e3 : -1) }
    print(JSON.object([
        JSON.Member(key: "bench", value: .string("lottie-grid")),
        JSON.Member(key: "animations", value: .number(Double(options.count))),
        JSON.Member(key: "distinct_files", value: .number(Double(grid.files.count))),
        JSON.Member(key: "size", value: .string("\(options.width)x\(options.height)")),
        JSON.Member(key: "layers", value: .number(Double(layers))),
        JSON.Member(key: "warnings", value: .number(Double(warnings))),
        JSON.Member(key: "seconds", value: .number(((t1 - t0) * 1000).rounded() / 1000)),
        JSON.Member(key: "frames", value: .number(n)),
        JSON.Member(key: "fps", value: .number((n / (t1 - t0) * 10).rounded() / 10)),
        JSON.Member(key: "render_thread_cpu_ms_per_frame", value: ms((r1 - r0) / n)),
        JSON.Member(key: "daemon_process_cpu_ms_per_frame", value: ms((p1 - p0) / n)),
        JSON.Member(key: "render_thread_phases_ms", value: phases),
        JSON.Member(key: "render_thread_wall_ms_per_frame", value: ms((s1.busy - s0.busy) / n)),
        JSON.Member(key: "render_thread_gpu_wait_ms_per_frame", value: ms((s1.gpuWait - s0.gpuWait) / n)),
        JSON.Member(key: "client_cpu_ms_per_frame", value: ms((c1 - c0) / n)),
        JSON.Member(key: "client_cpu_ms_total", value: ms(c1 - c0)),
        JSON.Member(key: "client_import_cpu_ms", value: ms(importCPU)),
        JSON.Member(key: "plan_time", value: .number(options.planTime)),
    ] + framePlan.figures + meshes.figures).text)
}

/// The grid's client (a child of `lottie-grid`): loads the plan's animations, prints `ready …`,
/// then answers each line on stdin with its own CPU seconds until stdin ends.
func runLottieGridClient(_ arguments: [String]) {
    var rest = arguments
    guard rest.count >= 2, rest[0] == "--socket" else { benchFail("lottie-grid-client: --socket PATH first") }
    let socket = rest[1]
    rest.removeFirst(2)
    let grid = LottieGrid(LottieGrid.Options(rest, bench: "lottie-grid-client"))
    var players: [LottiePlayer] = []
    var layers = 0, warnings = 0
    do {
        for cell in grid.cells {
            let c = try Connection(socketPath: socket, name: "lottie-\(players.count)")
            c.setDisableActions(true)
            let player = try LottiePlayer(contentsOfFile: grid.files[cell.fileIndex], connection: c)
            var scene = player.scene
            // The root layer (empty bounds at the origin) becomes the file's canvas, fitted into the
            // cell and clipped to it.
            let (fw, fh) = (scene.size.width, scene.size.height)
            let root = "\"" + LottieImport.rootName
            let place = try JSON.parse("""
                {"disableActions": true, "set": {\(root).bounds": [0, 0, \(fw), \(fh)], \(root).anchorPoint": [0, 0],
                 \(root).position": [\(cell.x), \(cell.y)],
                 \(root).transform": [{"scale": [\(Double(cell.width) / fw), \(Double(cell.height) / fh), 1]}],
                 \(root).masksToBounds": true}}
                """)
            for op in try scene.operations(forTransaction: place) { c.stageOperation(op) }
            try c.commit()
            try player.seek(progress: cell.phase)
            try player.setSpeed(cell.speed)
            layers += scene.layerCount
            warnings += scene.warnings.count
            players.append(player)
        }
    } catch { benchFail("lottie-grid-client: \(error)") }
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    say("ready \(layers) \(processCPUSeconds()) \(warnings)")
    while readLine() != nil { say("\(processCPUSeconds())") }
    for p in players { p.connection.close() }
}

/// The grid's plan, the same for Lamina and its peers (`--plan`).
struct LottieGrid {
    struct Options {
        var count = 100, width = 1280, height = 720, seconds = 5.0, plan = false
        /// `--dump-plan`: print the frame plan of the grid at `planTime` (`--plan-time`, 1 s) and stop.
        var dumpPlan = false, planTime = 1.0
        /// `--meshes`: print the grid's offline mesh figures (`LottieGridMeshes`) and stop.
        var meshesOnly = false
        var files: [String] = []
        init(_ arguments: [String], bench: String) {
            var i = 0
            func value() -> String {
                guard i + 1 < arguments.count else { benchFail("\(bench): \(arguments[i]) needs a value") }
                i += 1
                return arguments[i]
            }
            while i < arguments.count {
                switch arguments[i] {
                case "--count":
                    guard let n = Int(value()), n > 0, n <= 1000 else { benchFail("\(bench): --count 1…1000") }
                    count = n
                case "--size":
                    let v = value().split(separator: "x").compactMap { Int($0) }
                    guard v.count == 2, v[0] > 0, v[1] > 0 else { benchFail("\(bench): --size WxH") }
                    (width, height) = (v[0], v[1])
                case "--seconds":
                    guard let s = Double(value()), s > 0 else { benchFail("\(bench): --seconds S") }
                    seconds = s
                case "--plan": plan = true
                case "--dump-plan": dumpPlan = true
                case "--meshes": meshesOnly = true
                case "--plan-time":
                    guard let t = Double(value()), t >= 0 else { benchFail("\(bench): --plan-time T (seconds ≥ 0)") }
                    planTime = t
                default:
                    if arguments[i].hasPrefix("--") { benchFail("\(bench): unknown option \(arguments[i])") }
                    files.append(arguments[i])
                }
                i += 1
            }
            if files.isEmpty {
                let corpus = "Tests/Fixtures/lottie-corpus"
                let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []
                files = names.filter { $0.hasSuffix(".json") }
                    .sorted().map { corpus + "/" + $0 }
                if files.isEmpty { benchFail("\(bench): no files given and no \(corpus) here (run from the project root)") }
            }
        }
    }

    struct Cell {
        var fileIndex: Int, file: String
        var speed: Double, phase: Double
        /// The file's canvas fitted (aspect kept) and centred in the cell, whole pixels.
        var x: Int, y: Int, width: Int, height: Int
    }

    /// A file's 1st, 2nd, 3rd, 4th… showing plays at these speeds (cycled).
    static let speeds = [1.0, 0.8, 1.25, 0.9]

    let files: [String]
    let cells: [Cell]

    init(_ options: Options) {
        files = options.files
        let columns = Int(Double(options.count).squareRoot().rounded(.up))
        let rows = (options.count + columns - 1) / columns
        let cw = Double(options.width) / Double(columns), ch = Double(options.height) / Double(rows)
        var sizes: [Int: (Double, Double)] = [:]
        var cells: [Cell] = []
        for k in 0..<options.count {
            let f = k % files.count
            if sizes[f] == nil {
                guard let data = FileManager.default.contents(atPath: files[f]), case .object(let m)? = try? JSON.parse(String(decoding: data, as: UTF8.self)),
                      case .number(let w)? = m.first(where: { $0.key == "w" })?.value,
                      case .number(let h)? = m.first(where: { $0.key == "h" })?.value, w > 0, h > 0 else {
                    benchFail("lottie-grid: \(files[f]) is not a Lottie file with w and h")
                }
                sizes[f] = (w, h)
            }
            let (fw, fh) = sizes[f]!
            let s = min(cw / fw, ch / fh)
            let w = max(1, Int((fw * s).rounded(.down))), h = max(1, Int((fh * s).rounded(.down)))
            let cx = Double(k % columns) * cw, cy = Double(k / columns) * ch
            let phase = (0.618034 * Double(k)).truncatingRemainder(dividingBy: 1)
            cells.append(Cell(fileIndex: f, file: files[f], speed: LottieGrid.speeds[(k / files.count) % LottieGrid.speeds.count],
                              phase: (phase * 1e6).rounded() / 1e6,
                              x: Int(cx + (cw - Double(w)) / 2), y: Int(cy + (ch - Double(h)) / 2), width: w, height: h))
        }
        self.cells = cells
    }
}

/// Lines from a pipe (blocking).
private final class LineReader {
    let handle: FileHandle
    var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }
    func next() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer = Data(buffer[(nl + 1)...])
                return line
            }
            let more = handle.availableData
            if more.isEmpty { return nil }
            buffer.append(more)
        }
    }
}

/// This process's CPU time (user + system, all threads), seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// The id of this process's first thread named `name` (`/proc/self/task/*/comm`): the lowest id,
/// as threads it starts take its name (lavapipe's threads are named after the render thread).
func threadID(named name: String) -> Int? {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap(Int.init).sorted().first { tid in
        (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) == name
    }
}

/// A thread's time on a CPU so far (the first field of `/proc/self/task/TID/schedstat`, ns), seconds.
func threadRunSeconds(_ tid: Int) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8),
          let ns = text.split(separator: " ").first.flatMap({ Double($0) }) else { return .nan }
    return ns / 1e9
}

/// The grid's frame plan, made offline the way the daemon's render thread makes it: the cells'
/// files imported, placed in one layer tree (client k + 1 holds cell k, placed as the client
/// places it), its presentation at `time` (every cell at the same scene time, phases and speeds
/// left out) built into a draw list at the grid's size and planned (`FramePlanner`, batches on).
/// For `lottie-grid`'s plan figures and `--dump-plan`.
struct LottieGridPlan {
    var list: DrawList
    var cells: [LottieGrid.Cell]
    /// Per pass of the plan, whether the renderer leaves it out: an atlas pass whose drawing
    /// the frame before drew already (its version), and the offscreen passes only such passes
    /// read (`FramePlan.passesLeftOut`).
    var leftOut: [Bool]

    init(_ grid: LottieGrid, width: Int, height: Int, at time: Double) throws {
        var tree = try Self.tree(grid)
        var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                      background: Color(1, 1, 1))
        builder.rasterizesAutomatically = Self.rasterizesAutomatically
        builder.rasterizesEffects = Self.rasterizesEffects
        // With a raster cache, the frames before at 60 Hz first, as the daemon built them: the
        // plan is the steady one (stable layers composited from the cache; `rasterStats`). An
        // entry is drawn on the third frame and often once more on the fourth (its shapes then
        // from the shape atlas), so five frames come first.
        let warmUp = builder.rasterizesAutomatically || builder.rasterizesEffects ? RasterCacheLimits.stableFrames + 2 : 0
        var versions = Set<UInt64>()
        for k in stride(from: warmUp, to: 0, by: -1) {
            let t = max(time - Double(k) / 60, 0)
            tree.advance(to: t)
            builder.time = t
            let before = builder.build(tree.presentation(at: t))
            versions = Set(before.items.compactMap { if case .raster(let r) = $0.kind { r.version } else { nil } })
        }
        tree.advance(to: time)
        builder.time = time
        // Shapes first seen drawn from coverage made in the frame, as the daemon's builder on a
        // CPU rasterizer draws them (LaminaRender's `DriverProfile.rasterizesNewShapes`; so masks
        // drawn from coverage count as the daemon draws them).
        builder.rasterizesNewShapes = getenv("LAMINA_FRAME_COVERAGE").map { String(cString: $0) } != "0"
        list = builder.build(tree.presentation(at: time))
        cells = grid.cells
        leftOut = list.plan.passesLeftOut(held: list.plan.passes.map { $0.rasterVersion != 0 && versions.contains($0.rasterVersion) })
    }

    /// `LAMINA_BENCH_RASTER_AUTO=1`: the automatic raster cache on (the daemon's
    /// `automaticRasterCache`; off by default).
    static var rasterizesAutomatically: Bool { ProcessInfo.processInfo.environment["LAMINA_BENCH_RASTER_AUTO"] == "1" }
    /// `LAMINA_BENCH_RASTER_EFFECTS=0`: masked and filtered subtrees drawn directly (the
    /// daemon's `effectRasterCache`; on by default).
    static var rasterizesEffects: Bool { ProcessInfo.processInfo.environment["LAMINA_BENCH_RASTER_EFFECTS"] != "0" }

    /// The grid's layer tree: the cells' files imported and placed (client k + 1 holds cell k).
    /// With `phased`, each cell plays at its phase and speed as the client sets them (`LottiePlayer`:
    /// the root layer's speed, timeOffset and beginTime, at compositor time 0).
    static func tree(_ grid: LottieGrid, phased: Bool = false) throws -> LayerTree {
        var tree = LayerTree()
        var scenes: [Int: Scene] = [:]
        for (k, cell) in grid.cells.enumerated() {
            if scenes[cell.fileIndex] == nil { scenes[cell.fileIndex] = try Scene(contentsOfFile: grid.files[cell.fileIndex]) }
            var scene = scenes[cell.fileIndex]!
            let (fw, fh) = (scene.size.width, scene.size.height)
            let root = "\"" + LottieImport.rootName
            let place = try JSON.parse("""
                {"set": {\(root).bounds": [0, 0, \(fw), \(fh)], \(root).anchorPoint": [0, 0],
                 \(root).position": [\(cell.x), \(cell.y)],
                 \(root).transform": [{"scale": [\(Double(cell.width) / fw), \(Double(cell.height) / fh), 1]}],
                 \(root).masksToBounds": true}}
                """)
            let client = UInt32(k + 1)
            try tree.apply(Commit(client: client, content: .connect))
            try tree.apply(Commit(client: client, content: .operations(scene.initialOperations)), at: 0)
            try tree.apply(Commit(client: client, content: .operations(try scene.operations(forTransaction: place))), at: 0)
            if phased, var clock = scene.lottieClock {
                clock.seek(progress: cell.phase, now: 0)
                clock.setSpeed(cell.speed, now: 0)
                let set = clock.settings(now: 0).map { JSON.Member(key: LottieImport.rootName + "." + $0.keyPath, value: .number($0.value)) }
                let timing = JSON.object([JSON.Member(key: "set", value: .object(set))])
                try tree.apply(Commit(client: client, content: .operations(try scene.operations(forTransaction: timing))), at: 0)
            }
        }
        return tree
    }

    /// The cell whose rectangle holds the centre of `area`, or nil.
    func cell(of area: PixelRect) -> Int? {
        let cx = (area.minX + area.maxX) / 2, cy = (area.minY + area.maxY) / 2
        return cells.firstIndex { cx >= $0.x && cx < $0.x + $0.width && cy >= $0.y && cy < $0.y + $0.height }
    }

    /// Cells whose rectangles `area` overlaps.
    func cellsOverlapped(by area: PixelRect) -> Int {
        cells.filter { area.minX < $0.x + $0.width && $0.x < area.maxX && area.minY < $0.y + $0.height && $0.y < area.maxY }.count
    }

    /// Items each pass draws (its `.items` steps), and the device pixels they cover within the
    /// pass's area (each item's device box, cut to the pass area and any `.within` before it:
    /// an upper bound of the fragments the rasterizer shades for them).
    func drawn(_ pass: FramePass) -> (items: Int, pixels: Int) {
        let plan = list.plan
        var items = 0, pixels = 0
        list.items.withUnsafeBufferPointer { all in
            PlanCensus.forEachStep(of: pass, in: plan) { step, within, _ in
                guard case .items(let range) = step else { return }
                items += range.count
                for k in range {
                    guard let b = FramePlanner.box(all, k..<(k + 1), whole: within, margin: 0) else { continue }
                    pixels += PlanCensus.pixels(b)
                }
            }
        }
        return (items, pixels)
    }

    /// Whole-plan figures: passes by target, pixels the offscreen passes clear (their areas),
    /// pixels their items cover, steps that read images and the pixels those steps write.
    var figures: [JSON.Member] {
        let plan = list.plan
        var offscreen = 0, atlas = 0, cleared = 0, offscreenDrawn = 0, frameDrawn = 0, items = 0, largest = 0
        var reads = 0, readPixels = 0, spanning = 0, offscreenLeftOut = 0, atlasLeftOut = 0
        for (index, pass) in plan.passes.enumerated() {
            if leftOut[index] {
                if case .atlas = pass.target { atlasLeftOut += 1 } else { offscreenLeftOut += 1 }
            }
            let a = PlanCensus.pixels(pass.area)
            let d = drawn(pass)
            items += d.items
            switch pass.target {
            case .frame: frameDrawn += d.pixels
            case .image:
                offscreen += 1; cleared += PlanCensus.cleared(pass); offscreenDrawn += d.pixels; largest = max(largest, a)
                if cellsOverlapped(by: pass.area) > 1 { spanning += 1 }
            case .atlas: atlas += 1; cleared += PlanCensus.cleared(pass); offscreenDrawn += d.pixels
            }
            PlanCensus.forEachStep(of: pass, in: plan) { _, _, writes in
                if let w = writes, !w.isEmpty { reads += 1; readPixels += PlanCensus.pixels(w) }
            }
        }
        func n(_ v: Int) -> JSON { .number(Double(v)) }
        return [
            JSON.Member(key: "plan_items", value: n(list.items.count)),
            JSON.Member(key: "plan_passes", value: n(plan.passes.count)),
            JSON.Member(key: "plan_offscreen_passes", value: n(offscreen)),
            JSON.Member(key: "plan_atlas_passes", value: n(atlas)),
            // Of those, the passes the renderer leaves out (`leftOut`): the offscreen passes it
            // draws are plan_offscreen_passes − plan_offscreen_passes_left_out.
            JSON.Member(key: "plan_offscreen_passes_left_out", value: n(offscreenLeftOut)),
            JSON.Member(key: "plan_atlas_passes_left_out", value: n(atlasLeftOut)),
            JSON.Member(key: "plan_offscreen_passes_spanning_cells", value: n(spanning)),
            JSON.Member(key: "plan_images", value: n(plan.imageCount)),
            JSON.Member(key: "plan_offscreen_pixels_cleared", value: n(cleared)),
            JSON.Member(key: "plan_largest_offscreen_pass_pixels", value: n(largest)),
            JSON.Member(key: "plan_offscreen_item_pixels", value: n(offscreenDrawn)),
            JSON.Member(key: "plan_frame_item_pixels", value: n(frameDrawn)),
            JSON.Member(key: "plan_image_reading_steps", value: n(reads)),
            JSON.Member(key: "plan_image_read_pixels", value: n(readPixels)),
            // The raster cache at the plan's frame: entries composited as drawn before (their atlas
            // passes left out by the renderer), drawn again, or drawn directly for want of room.
            JSON.Member(key: "plan_raster", value: .object([
                JSON.Member(key: "automatic", value: .bool(Self.rasterizesAutomatically)),
                JSON.Member(key: "effects", value: .bool(Self.rasterizesEffects)),
                JSON.Member(key: "hits", value: n(list.rasterStats.hits)),
                JSON.Member(key: "misses", value: n(list.rasterStats.misses)),
                JSON.Member(key: "uncached", value: n(list.rasterStats.uncached)),
                JSON.Member(key: "entries", value: n(list.rasterStats.entries)),
                JSON.Member(key: "bytes", value: n(list.rasterStats.bytes)),
            ])),
        ]
    }

    /// One line per pass: index, target, area, pixels, cells it overlaps, the cell (file) at its
    /// centre, items and their pixels, its steps by kind.
    func dump() -> String {
        let plan = list.plan
        var lines: [String] = []
        for (i, pass) in plan.passes.enumerated() {
            let a = pass.area
            let px = PlanCensus.pixels(a)
            let target: String = switch pass.target {
            case .frame: "frame"
            case .image(let n): "image \(n)"
            case .atlas(let n): "atlas \(n)"
            }
            var kinds: [String: Int] = [:]
            for s in pass.steps { kinds[PlanCensus.name(plan.steps[s]), default: 0] += 1 }
            let d = drawn(pass)
            let file = cell(of: a).map { (cells[$0].file as NSString).lastPathComponent } ?? "-"
            lines.append("pass \(i) \(target)\(leftOut[i] ? " (left out: held in the atlas)" : "") area \(a.minX),\(a.minY)-\(a.maxX),\(a.maxY) px \(px) "
                + "cleared \(PlanCensus.cleared(pass)) cells \(cellsOverlapped(by: a)) "
                + "at \(file) items \(d.items) item_px \(d.pixels) steps "
                + kinds.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))
        }
        return lines.joined(separator: "\n")
    }
}

/// The grid's shape meshes frame by frame, offline (`lottie-grid`'s `mesh_…` figures): the grid's
/// tree (`LottieGridPlan.tree`, each cell at its phase and speed) built into draw lists at
/// 60 Hz steps from `time` by one builder, as the render thread builds them; after `warmUp`
/// frames, `frames` are counted. Per frame: the mesh cache's misses (tessellations), hits and
/// evictions, the builder's tessellation time, the vertices of the meshes drawn, and — from the
/// presentation trees themselves — the shapes' fill and stroke parts whose path or style
/// differs from the last frame's (those must be tessellated unless an earlier mesh is still
/// cached), split into a moved path and a stroke style alone (a trim, a dash phase, a width).
/// Misses beyond the changed parts are meshes made again for an unchanged path and style.
struct LottieGridMeshes {
    var figures: [JSON.Member] = []

    init(_ grid: LottieGrid, width: Int, height: Int, at time: Double, warmUp: Int = 30, frames: Int = 90) throws {
        var tree = try LottieGridPlan.tree(grid, phased: true)
        var builder = DrawListBuilder(widthPoints: Double(width), heightPoints: Double(height), scale: 1,
                                      background: Color(1, 1, 1))
        if let c = ProcessInfo.processInfo.environment["LAMINA_BENCH_MESH_CAPACITY"].flatMap(Int.init) {
            builder.meshCache = MeshCache(capacity: c, maxBytes: 1 << 34)
        }
        let step = ProcessInfo.processInfo.environment["LAMINA_BENCH_MESH_STEP"].flatMap(Double.init) ?? 1.0 / 60
        struct Part: Equatable { var path: Path; var fill: FillRule?; var stroke: StrokeStyle? }
        var last: [LayerID: [Part]] = [:]
        var misses = 0, hits = 0, evictions = 0, tessellate = 0.0, vertices = 0, parts = 0, changed = 0,
            pathMoved = 0, styleOnly = 0, unchangedMissed = 0
        var seen = Set<MeshID>()
        for k in 0..<(warmUp + frames) {
            let t = time + Double(k) * step
            tree.advance(to: t)
            let presentation = tree.presentation(at: t)
            // The shapes' parts, as `appendShape` takes them (hidden subtrees left out).
            var now: [LayerID: [Part]] = [:]
            var stack: [LayerID] = [.root]
            while let id = stack.popLast() {
                guard let node = presentation[id], !node.properties.isHidden else { continue }
                stack.append(contentsOf: node.sublayers)
                let p = node.properties
                if p.mask != 0 { stack.append(LayerID(client: id.client, local: p.mask)) }
                guard let path = p.path else { continue }
                var list: [Part] = []
                if let f = p.fillColor, f.alpha > 0 { list.append(Part(path: path, fill: p.fillRule, stroke: nil)) }
                if let s = p.strokeColor, s.alpha > 0, p.lineWidth >= 0, p.strokeStyle.strokeEnd > p.strokeStyle.strokeStart {
                    list.append(Part(path: path, fill: nil, stroke: p.strokeStyle))
                }
                if !list.isEmpty { now[id] = list }
            }
            let (m0, h0, c0) = (builder.meshCache.misses, builder.meshCache.hits, builder.meshCache.count)
            builder.time = t
            let list = builder.build(presentation)
            let newMisses = builder.meshCache.misses - m0
            guard k >= warmUp else { last = now; continue }
            misses += newMisses
            hits += builder.meshCache.hits - h0
            evictions += newMisses - (builder.meshCache.count - c0)
            tessellate += builder.lastTessellateSeconds
            for item in list.items { if case .mesh(let m) = item.kind { vertices += m.mesh.vertices.count } }
            if ProcessInfo.processInfo.environment["LAMINA_BENCH_MESHES"] != nil {
                Self.listNewMeshes(list, frame: k, cache: builder.meshCache, seen: &seen)
            }
            var frameChanged = 0
            for (id, ps) in now {
                let before = last[id] ?? []
                for (i, part) in ps.enumerated() {
                    parts += 1
                    guard i < before.count, before[i] == part else {
                        frameChanged += 1
                        if i < before.count, before[i].path == part.path { styleOnly += 1 } else { pathMoved += 1 }
                        continue
                    }
                }
            }
            changed += frameChanged
            unchangedMissed += max(newMisses - frameChanged, 0)
            last = now
        }
        let n = Double(frames)
        func per(_ v: Int) -> JSON { .number((Double(v) / n * 10).rounded() / 10) }
        figures = [
            JSON.Member(key: "mesh_frames", value: .number(n)),
            JSON.Member(key: "mesh_shape_parts_per_frame", value: per(parts)),
            JSON.Member(key: "mesh_parts_changed_per_frame", value: per(changed)),
            JSON.Member(key: "mesh_parts_path_moved_per_frame", value: per(pathMoved)),
            JSON.Member(key: "mesh_parts_stroke_style_only_per_frame", value: per(styleOnly)),
            JSON.Member(key: "mesh_tessellations_per_frame", value: per(misses)),
            JSON.Member(key: "mesh_tessellations_beyond_changed_per_frame", value: per(unchangedMissed)),
            JSON.Member(key: "mesh_cache_hits_per_frame", value: per(hits)),
            JSON.Member(key: "mesh_cache_evictions_per_frame", value: per(evictions)),
            JSON.Member(key: "mesh_cache_meshes", value: .number(Double(builder.meshCache.count))),
            JSON.Member(key: "mesh_vertices_drawn_per_frame", value: per(vertices)),
            JSON.Member(key: "mesh_tessellate_ms_per_frame", value: .number((tessellate / n * 1e5).rounded() / 100)),
            JSON.Member(key: "mesh_tessellate_us_per_mesh",
                        value: .number(misses > 0 ? (tessellate / Double(misses) * 1e7).rounded() / 10 : 0)),
        ]
    }

    /// `LAMINA_BENCH_MESHES=1`: one line per mesh first drawn in `list` — frame, vertices, the
    /// microseconds to tessellate its key again in a new cache, the same key at scales 1/8, 1
    /// and 4 (vertices, microseconds), path elements, scale bucket, window, end points' box, style.
    static func listNewMeshes(_ list: DrawList, frame: Int, cache: MeshCache, seen: inout Set<MeshID>) {
        for item in list.items {
            guard case .mesh(let m) = item.kind, !seen.contains(m.id) else { continue }
            seen.insert(m.id)
            guard let key = cache.key(for: m.id) else { continue }
            var c = MeshCache()
            func timed(_ scale: Double) -> (vertices: Int, us: Int) {
                let t0 = benchNow()
                let v = (try? c.entry(for: key.path, style: key.style, scale: scale, window: key.window))?.mesh.vertices.count ?? -1
                return (v, Int((benchNow() - t0) * 1e6))
            }
            var line = "new \(frame) v \(m.mesh.vertices.count) us \(timed(MeshCache.scale(forBucket: key.scaleBucket)).us)"
            for scale in [0.125, 1, 4] {
                let (v, us) = timed(scale)
                line += " s\(scale) v \(v) us \(us)"
            }
            let ends: [Point] = key.path.elements.compactMap {
                switch $0 { case .move(let p), .line(let p), .quad(_, let p), .cubic(_, _, let p): p; case .close: nil }
            }
            let xs = ends.map(\.x), ys = ends.map(\.y)
            line += " el \(key.path.elements.count) bucket \(key.scaleBucket) window \(key.window.map { "\($0)" } ?? "-")"
                + " bounds \(xs.min() ?? 0),\(ys.min() ?? 0)-\(xs.max() ?? 0),\(ys.max() ?? 0) style \(key.style)"
            print(line)
        }
    }
}
