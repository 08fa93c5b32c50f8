// laminad: the Lamina compositor daemon. Reads config/laminad.json (or --config FILE);
// flags override it (LaminaServer.DaemonOptions, shared with lamina-viewer). See README.md
// and docs/protocol.md.
import Foundation
import LaminaRender
import LaminaServer
#if canImport(Glibc)
import Glibc
#endif

// SIGINT and SIGTERM are handled from here on: one that comes while the daemon starts stops
// it as soon as it serves (socket removed, status 0).
TerminationSignals.install()

let usage = "usage: laminad \(DaemonOptions.flags)"

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

let daemon = Daemon(config: config)
DaemonOptions.stopOnSignals(daemon)
do {
    try daemon.start()
} catch {
    fail("\(error)", code: 1)
}
printFlushed(DaemonOptions.servingLine("laminad", daemon))
daemon.waitUntilStopped()
print("laminad: stopped")
