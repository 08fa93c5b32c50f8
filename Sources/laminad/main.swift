// laminad: the Lamina compositor daemon. Reads config/laminad.json (or --config FILE);
// flags override it (LaminaServer.DaemonOptions, shared with lamina-viewer). Serves the
// listening socket systemd passes (socket activation, LaminaServer.SocketActivation) when
// given one, else binds its own. `--check-config FILE` only validates a config file. See
// README.md and docs/protocol.md.
import Foundation
import LaminaRender
import LaminaServer
#if canImport(Glibc)
import Glibc
#endif

// SIGINT and SIGTERM are handled from here on: one that comes while the daemon starts stops
// it as soon as it serves (socket removed, status 0).
TerminationSignals.install()

let usage = "usage: laminad \(DaemonOptions.flags)\n       laminad --check-config FILE"

/// Prints a line and flushes it at once (scripts wait for it).
func printFlushed(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("laminad: \(message)\n".utf8))
    exit(code)
}

// The process's allocator policy, set here and not in a library: a renderer on lavapipe may
// keep its driver profile's freed heap (`DriverProfile.keptFreedHeap`).
HeapTrim.adopt(.driverProfile)

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("-h") || arguments.contains("--help") { print(usage); exit(0) }

// --check-config FILE: the daemon's own config reader (DaemonConfig.load) on FILE, nothing
// started. It stops at the first error, which names the file and the field.
if let i = arguments.firstIndex(of: "--check-config") {
    guard i + 1 < arguments.count else { fail("--check-config needs a file\n\(usage)") }
    guard arguments.count == 2 else { fail("--check-config FILE takes no other option\n\(usage)") }
    let file = arguments[i + 1]
    do {
        _ = try DaemonConfig.load(path: file)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
    printFlushed("\(file): ok")
    exit(0)
}
let config: DaemonConfig
do {
    let parsed = try DaemonOptions.parse(arguments)
    if let unknown = parsed.rest.first { fail("unknown option \(unknown)\n\(usage)") }
    config = parsed.config
} catch {
    fail("\(error)\n\(usage)")
}
guard config.headless else {
    fail("windowed output is lamina-viewer's: run it (same config, flags and socket), or run with --headless")
}

// Socket activation: the listening socket systemd passed (fd 3), if any; its path wins over
// --socket and the config's "socket".
let activated: SocketActivation.Listener?
do {
    activated = try SocketActivation.take()
} catch {
    fail("\(error)", code: 1)
}
if let activated, let configured = config.socket, configured != activated.path {
    FileHandle.standardError.write(Data("laminad: serving systemd's socket \(activated.path), not \(configured)\n".utf8))
}

let daemon = Daemon(config: config, activated: activated)
DaemonOptions.stopOnSignals(daemon)
do {
    try daemon.start()
} catch {
    fail("\(error)", code: 1)
}
printFlushed(DaemonOptions.servingLine("laminad", daemon))
daemon.waitUntilStopped()
print("laminad: stopped")
