// lamina-viewer: the Lamina compositor in a window. The same server as laminad — the same
// config file, flags and socket (LaminaServer.DaemonOptions), so clients cannot tell them
// apart — presenting every frame into a GLFW window through a Vulkan swapchain, with keys for
// the tools people expect. See README.md.
import CGLFW
import Foundation
import LaminaRender
import LaminaServer
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

TerminationSignals.install()   // SIGINT and SIGTERM handled from here on

let usage = """
usage: lamina-viewer \(DaemonOptions.flags)
               [--captures DIR] [--measure SECONDS] [--stress N] [--offscreen] [--tiled FILE.png]
               [FILE.json]

The compositor in a window: the same server as laminad (same config, flags and socket).
--headless is accepted and ignored (the viewer always has a window).
--captures DIR     where C writes PNGs and T traces (default: captures)
--measure SECONDS  after SECONDS, print the presentation figures as JSON and quit
--stress N         a built-in client puts N animated layers on the screen (for --measure)
--tiled FILE.png   a built-in client shows the PNG (any size up to 2^30 pixels a side, read
                   region by region through its descriptor) in a tiled layer fitted to the
                   window: drag or the arrow keys pan, the scroll wheel (about the pointer)
                   or + and - zoom, 0 fits it again; decoded tiles stay under the config's
                   tileCacheBytes (--config FILE)
--offscreen        no window: the same server drawing offscreen only, as laminad does
                   (the offscreen figure of the same scene, for --measure)
FILE.json          a Lottie file a built-in client plays, looping (the client library's
                   LottiePlayer: its layers and compositor animations, nothing per frame)

Keys:
  Space  pause / resume compositor time (every animation stops where it is)
  S      slow animations: compositor time runs at a tenth of real time (again: normal)
  R      Reduce Motion on / off (clients are told)
  H      heads-up display: frame times against the frame budget, per-phase bars
  W      tessellated meshes as wireframe
  D      tint the region each frame redrew (its damage)
  C      capture the window's frame to a PNG
  T      frame trace: start recording / stop and write <captures>/lamina-trace-<time>.json
         (Chrome trace-event JSON: open it in ui.perfetto.dev or chrome://tracing)
  I      inspector: the layer under the pointer outlined, with its kind, id and client;
         a click pins it (a panel of its presentation values and running animations, live),
         a click on empty space or Escape unpins. While it is on, the pointer goes to the
         inspector, not to the clients.
  O      blended layers: each pixel coloured by how many layers were blended into it
         (0 black, 1 green, 2 yellow, 3 orange, 4 or more red), with a legend
  Q      quit (as does Escape, unless it unpins; closing the window, SIGINT or SIGTERM)
Every other key, and the pointer, goes to the clients as input events (docs/protocol.md).
The overlays (H, W, D, I, O) are drawn by the compositor for the window only: clients'
captures never include them.
"""

func say(_ line: String) {
    FileHandle.standardOutput.write(Data(("lamina-viewer: " + line + "\n").utf8))
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("lamina-viewer: \(message)\n".utf8))
    exit(code)
}

// The process's allocator policy, set here and not in a library: a renderer on lavapipe may
// keep its driver profile's freed heap (`DriverProfile.keptFreedHeap`).
HeapTrim.adopt(.driverProfile)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") { print(usage); exit(0) }
var config: DaemonConfig
var capturesDirectory = "captures"
var measureSeconds: Double? = nil
var stressLayers = 0
var offscreen = false
var lottieFile: String? = nil
var tiledFile: String? = nil
do {
    let parsed = try DaemonOptions.parse(arguments, valueFlags: ["--captures", "--measure", "--stress", "--tiled"])
    config = parsed.config
    var rest = parsed.rest
    while !rest.isEmpty {
        let flag = rest.removeFirst()
        switch flag {
        case "--captures": capturesDirectory = rest.removeFirst()
        case "--measure":
            guard let s = Double(rest.removeFirst()), s > 0 else { fail("--measure must be a positive number of seconds") }
            measureSeconds = s
        case "--stress":
            guard let n = Int(rest.removeFirst()), n > 0, n <= 100_000 else { fail("--stress must be a layer count in 1…100000") }
            stressLayers = n
        case "--offscreen": offscreen = true
        case "--tiled": tiledFile = rest.removeFirst()
        case let file where !file.hasPrefix("-") && lottieFile == nil: lottieFile = file
        default: fail("unknown option \(flag)\n\(usage)")
        }
    }
} catch {
    fail("\(error)\n\(usage)")
}

if offscreen {
    // The comparison run: no window, no keys; the same daemon as laminad.
    let daemon = Daemon(config: config)
    DaemonOptions.stopOnSignals(daemon)
    do { try daemon.start() } catch { fail("\(error)", code: 1) }
    say(String(DaemonOptions.servingLine("lamina-viewer", daemon).dropFirst("lamina-viewer: ".count)) + " offscreen")
    if stressLayers > 0 {
        StressClient.start(socket: daemon.socketPath, layers: stressLayers, width: config.width, height: config.height)
    }
    if let lottieFile { LottieClient.start(socket: daemon.socketPath, file: lottieFile) }
    if let tiledFile { TiledClient.start(socket: daemon.socketPath, file: tiledFile, width: config.width, height: config.height) }
    if let measureSeconds {
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: measureSeconds)
            FileHandle.standardOutput.write(Data((ViewerControls.measurementJSON(daemon.renderLoop) + "\n").utf8))
            daemon.requestStop()
        }
    }
    daemon.waitUntilStopped()
    say("stopped")
    exit(0)
}

let window: ViewerWindow
do {
    window = try ViewerWindow(title: "Lamina", width: config.width, height: config.height, scale: config.scale)
} catch {
    fail("\(error)", code: 1)
}
let daemon = Daemon(config: config, window: window.surface)
do {
    try daemon.start()
} catch {
    window.close()
    fail("\(error)", code: 1)
}
// Clients draw on the window's size and scale: told at once (GLFW may have scaled the window
// to the monitor) and whenever a resize or a content-scale change alters them.
var lastDrawable = window.current
daemon.windowChanged(lastDrawable)
// SIGINT/SIGTERM stop the daemon; the event loop below wakes and closes the window.
DaemonOptions.stopOnSignals(daemon, also: { glfwPostEmptyEvent() })
let stopped = Atomic<Bool>(false)
Thread.detachNewThread {
    daemon.waitUntilStopped()
    stopped.store(true, ordering: .sequentiallyConsistent)
    glfwPostEmptyEvent()
}
if stressLayers > 0 {
    StressClient.start(socket: daemon.socketPath, layers: stressLayers, width: config.width, height: config.height)
}
if let lottieFile { LottieClient.start(socket: daemon.socketPath, file: lottieFile) }
if let tiledFile {
    let screen = lastDrawable.screen(configScale: config.scale)
    TiledClient.start(socket: daemon.socketPath, file: tiledFile, width: Int(screen.width), height: Int(screen.height))
}
var controls = ViewerControls(daemon: daemon, capturesDirectory: capturesDirectory)
controls.install(on: window)
say(DaemonOptions.servingLine("lamina-viewer", daemon).dropFirst("lamina-viewer: ".count)
    + " in a window, presenting \(daemon.renderLoop.presentation?.pacing.rawValue ?? "…")")
let start = Date()
while !stopped.load(ordering: .sequentiallyConsistent) {
    glfwWaitEventsTimeout(0.05)
    window.refresh()
    let drawable = window.current
    if drawable != lastDrawable, !drawable.isEmpty {
        lastDrawable = drawable
        daemon.windowChanged(drawable)
    }
    if window.shouldClose || controls.quitRequested { daemon.requestStop() }
    if let measureSeconds, Date().timeIntervalSince(start) >= measureSeconds, !controls.quitRequested {
        FileHandle.standardOutput.write(Data((ViewerControls.measurementJSON(daemon.renderLoop) + "\n").utf8))
        controls.quitRequested = true
    }
}
window.close()
say("stopped")
