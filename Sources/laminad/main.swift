// laminad: the Lamina compositor daemon. Reads config/laminad.json (or --config FILE);
// flags override it. See README.md and docs/protocol.md.
import Foundation
import LaminaServer
#if canImport(Glibc)
import Glibc
#endif

let usage = """
usage: laminad [--config FILE] [--socket PATH] [--headless] [--size WxH] [--scale S]
               [--fps N] [--clock realtime|manual]
"""

/// Prints a line and flushes it at once (scripts wait for it).
func printFlushed(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("laminad: \(message)\n".utf8))
    exit(code)
}

var args = Array(CommandLine.arguments.dropFirst())
@MainActor func value(_ flag: String) -> String {
    guard !args.isEmpty else { fail("\(flag) needs a value\n\(usage)") }
    return args.removeFirst()
}

// The config file first, then the flags over it.
var configPath: String? = nil
if let i = args.firstIndex(of: "--config") {
    guard i + 1 < args.count else { fail("--config needs a value\n\(usage)") }
    configPath = args[i + 1]
    args.removeSubrange(i...i + 1)
} else if FileManager.default.fileExists(atPath: "config/laminad.json") {
    configPath = "config/laminad.json"
}
var config = DaemonConfig()
if let configPath {
    do { config = try DaemonConfig.load(path: configPath) } catch { fail("\(error)") }
}
while !args.isEmpty {
    let flag = args.removeFirst()
    switch flag {
    case "--socket": config.socket = value(flag)
    case "--headless": config.headless = true
    case "--size":
        guard let (w, h) = DaemonConfig.parseSize(value(flag)) else { fail("--size must be WxH, e.g. 1280x720") }
        config.width = w; config.height = h
    case "--scale":
        guard let s = Double(value(flag)), s > 0, s <= 8 else { fail("--scale must be a number in (0, 8]") }
        config.scale = s
    case "--fps":
        guard let f = Double(value(flag)), f > 0, f <= 1000 else { fail("--fps must be a number in (0, 1000]") }
        config.fps = f
    case "--clock":
        let c = value(flag)
        guard c == "realtime" || c == "manual" else { fail("--clock must be realtime or manual") }
        config.clock = c
    case "-h", "--help": print(usage); exit(0)
    default: fail("unknown option \(flag)\n\(usage)")
    }
}
guard config.headless else {
    fail("windowed output is lamina-viewer's (not built yet); run with --headless or \"headless\": true")
}

let daemon = Daemon(config: config)
do {
    try daemon.start()
} catch {
    fail("\(error)", code: 1)
}

// SIGINT and SIGTERM shut down cleanly: the render thread releases the GPU, the socket goes.
signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let signalSources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler { daemon.requestStop() }
    source.resume()
    return source
}
printFlushed("laminad: serving \(daemon.socketPath) (\(config.width)x\(config.height) @\(config.scale)x, \(config.fps) fps, \(config.clock) clock)")
daemon.waitUntilStopped()
_ = signalSources
print("laminad: stopped")
