// lamina-toplevel: what top-level code in main.swift meets (docs/swift-client.md, "Top-level code").
//
//   swift run lamina-toplevel [SOCKET]
//
// At top level Swift chooses the *blocking* `commit()` even after `await` (each top-level
// statement counts as synchronous when the compiler picks an overload; the `await` only draws
// "no 'async' operations occur within 'await' expression"). The library cannot change that
// choice, so it says so: the blocking call prints one line on standard error naming the
// request and the remedy. Inside an async function (`publish` below) the same line gets the
// suspending form, silently. The tests run this and check both.
import Lamina

let socket = CommandLine.arguments.dropFirst().first
let connection = try Connection(socketPath: socket, name: "lamina-toplevel")
let square = connection.makeLayer()
square.bounds = Rect(0, 0, 40, 40)
square.position = Point(30, 30)
square.backgroundColor = Color(0, 0.6, 1)
connection.root.addSublayer(square)
try await connection.commit()              // blocking here (and said so on stderr)

@MainActor
func publish(_ layer: Layer, opacity: Double) async throws {
    layer.opacity = opacity
    try await layer.connection.commit()    // suspending: an async function's context
    _ = try await layer.connection.currentTime()
}
try await publish(square, opacity: 0.5)
print("committed")
