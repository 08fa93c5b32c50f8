// lamina-toplevel: what top-level code in main.swift meets (docs/swift-client.md, "Top-level code").
//
//   swift run lamina-toplevel [SOCKET]
//
// At top level Swift chooses the *blocking* `commit()` even after `await` (each top-level
// statement counts as synchronous when the compiler picks an overload; the `await` only draws
// "no 'async' operations occur within 'await' expression"). The library cannot change that
// choice, so it says so: a blocking call that blocks the main actor in async code prints one
// line on standard error per request, naming it and the remedy. Inside an async function
// (`publish` below) the same `try await` gets the suspending form, silently; a callback's
// blocking call (its only choice) is not reported. The tests run this and check all three.
import Lamina

let socket = CommandLine.arguments.dropFirst().first
let connection = try Connection(socketPath: socket, name: "lamina-toplevel")
let square = connection.makeLayer()
square.bounds = Rect(0, 0, 40, 40)
square.position = Point(30, 30)
square.backgroundColor = Color(0, 0.6, 1)
connection.root.addSublayer(square)
try await connection.commit()              // blocking here (and said so on stderr)
square.cornerRadius = 8
try await connection.commit()              // blocking again (said once per request)
_ = try await connection.ping()            // blocking: said for `ping`

@MainActor
func publish(_ layer: Layer, opacity: Double) async throws {
    let c = layer.connection
    // In an async function `try await` gets the suspending forms: nothing is said.
    _ = try await c.currentTime()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        Task { @MainActor in
            try await c.transaction(duration: 0, completion: { @MainActor in
                // A synchronous callback on the main actor has only the blocking forms: not said.
                _ = try? connection.currentTime()
                done.resume()
            }) {
                layer.opacity = opacity
            }
        }
    }
}
try await publish(square, opacity: 0.5)
print("committed")
