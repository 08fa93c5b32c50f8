// laminactl: talk to a running laminad.
import Foundation
import Lamina

let usage = """
usage: laminactl ping [--socket PATH]
       laminactl tree [--socket PATH]
       laminactl stats [--socket PATH]
       laminactl capture FILE.png [--at SECONDS] [--socket PATH]
       laminactl advance SECONDS [--socket PATH]
"""

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("laminactl: \(message)\n".utf8))
    exit(code)
}

var args = Array(CommandLine.arguments.dropFirst())
var socketPath: String? = nil
var at: Double? = nil
var positional: [String] = []
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--socket":
        guard !args.isEmpty else { fail("--socket needs a path", code: 2) }
        socketPath = args.removeFirst()
    case "--at":
        guard !args.isEmpty, let t = Double(args.removeFirst()), t.isFinite, t >= 0 else { fail("--at needs seconds ≥ 0", code: 2) }
        at = t
    case "-h", "--help": print(usage); exit(0)
    default: positional.append(a)
    }
}
guard let command = positional.first else { fail("no command\n\(usage)", code: 2) }

do {
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
        let shot = try connection.capture(at: at)
        try Data(shot.png).write(to: URL(fileURLWithPath: positional[1]))
        print("wrote \(positional[1]) (\(shot.width)x\(shot.height), t = \(shot.time) s)")
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
