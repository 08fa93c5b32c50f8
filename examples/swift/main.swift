// lamina-example: a small client written with the Lamina client library.
//
//   swift run lamina-example [SOCKET]
//
// Draws a red square, a blue triangle (a shape layer) and a gradient bar; fades the square
// in a transaction whose completion block tells an actor; slides the triangle with an
// explicit animation whose delegate hears it start and stop; reads a presentation value
// halfway and hit-tests the square. Nothing here reads the socket: the connection's reader
// delivers the events. Under the manual clock (tests) it moves the clock itself. Prints one
// JSON object.
import Foundation
import Lamina

/// Collects what the callbacks report; an actor, so they run isolated to it.
actor Log {
    var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
    /// Waits until `count` lines came (the callbacks run without anyone reading).
    func wait(for count: Int, seconds: Double = 5) async -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while lines.count < count && Date() < deadline { try? await Task.sleep(nanoseconds: 2_000_000) }
        return lines
    }
}

/// `CAAnimationDelegate`: an actor conforms with its own isolated methods.
actor SlideDelegate: AnimationDelegate {
    let log: Log
    init(log: Log) { self.log = log }
    func animationDidStart(layer: UInt32, key: String) async { await log.add("started:\(key)") }
    func animationDidStop(layer: UInt32, key: String, finished: Bool) async {
        await log.add("stopped:\(key):\(finished)")
    }
}

func run() async throws -> [String: Any] {
    let socket = CommandLine.arguments.dropFirst().first
    let c = try Connection(socketPath: socket, name: "lamina-example")
    defer { c.close() }
    let log = Log()

    // The scene, in the implicit transaction: one commit.
    let square = c.makeLayer()
    square.bounds = Rect(0, 0, 100, 100)
    square.position = Point(60, 60)
    square.backgroundColor = Color(1, 0, 0)
    square.cornerRadius = 8
    c.root.addSublayer(square)

    let triangle = c.makeShapeLayer()
    triangle.bounds = Rect(0, 0, 60, 60)
    triangle.position = Point(160, 60)
    triangle.path = Path([.move(Point(0, 60)), .line(Point(30, 0)), .line(Point(60, 60)), .close])
    triangle.fillColor = Color(0, 0, 1)
    c.root.addSublayer(triangle)

    let bar = c.makeGradientLayer()
    bar.frame = Rect(10, 150, 200, 30)
    bar.colors = [Color(1, 1, 0), Color(0, 1, 1)]
    bar.startPoint = Point(0, 0.5); bar.endPoint = Point(1, 0.5)
    c.root.addSublayer(bar)
    try await c.commit()

    // An explicit animation with a delegate (linear, 0.5 s: x from 160 by +100).
    var timing = AnimationTiming()
    timing.duration = 0.5
    triangle.add(.basic(BasicAnimation(keyPath: "position.x", by: .double(100), timing: timing)),
                 forKey: "slide", delegate: SlideDelegate(log: log))
    // A fade in a transaction with a completion block that runs on the `log` actor's terms.
    let reduce = c.reduceMotion
    try await Transaction.perform(on: c, duration: reduce ? 0 : 0.5, timingFunction: .linear,
                                  completion: { Task { await log.add("faded") } }) {
        square.opacity = 0.2
    }

    var halfway = 0.0
    if c.isManualClock {
        try await c.advanceClock(by: 0.25)
        halfway = try await triangle.presentation().properties.position.x
        try await c.advanceClock(by: 0.5)
    } else {
        try await Task.sleep(nanoseconds: 250_000_000)
        halfway = try await triangle.presentation().properties.position.x
        try await Task.sleep(nanoseconds: 500_000_000)
    }
    let hit = try await c.root.hitTest(Point(60, 60))
    let events = await log.wait(for: 3).sorted()
    return [
        "display": [c.display.width, c.display.height],
        "reduceMotion": reduce,
        "halfwayX": halfway,
        "hitSquare": hit === square,
        "opacity": try await square.presentationValue(forKeyPath: "opacity") == .number(0.2),
        "events": events,
    ]
}

do {
    let result = try await run()
    let data = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} catch {
    FileHandle.standardError.write(Data("lamina-example: \(error)\n".utf8))
    exit(1)
}
