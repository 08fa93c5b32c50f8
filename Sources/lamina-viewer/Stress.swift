import Foundation
import Lamina
import LaminaAnimation
import LaminaGeometry

/// `--stress N`: a client inside the viewer that puts N animated layers on the screen (a grid
/// of 16-point rounded squares, each moving 40 points and fading, repeating forever with
/// autoreverse, phases staggered) and stays connected. After that the compositor animates them
/// with no traffic from the client — the scene `--measure` is meant for.
enum StressClient {
    static func start(socket: String, layers: Int, width: Int, height: Int) {
        Thread.detachNewThread {
            do {
                let c = try Connection(socketPath: socket, name: "lamina-viewer stress")
                let columns = max(1, Int((Double(layers) * Double(width) / Double(height)).squareRoot()))
                let step = Double(width) / Double(columns + 1)
                for i in 0..<layers {
                    let layer = c.makeLayer()
                    layer.bounds = Rect(0, 0, 16, 16)
                    layer.cornerRadius = 4
                    layer.position = Point(step * Double(i % columns + 1), 20 + step * Double(i / columns))
                    layer.backgroundColor = Color(Double(i % 7) / 6, 0.5, 1 - Double(i % 5) / 4)
                    c.root.addSublayer(layer)
                    var timing = AnimationTiming()
                    timing.duration = 1 + Double(i % 10) / 10
                    timing.repeatCount = .infinity
                    timing.autoreverses = true
                    timing.timingFunction = .easeInEaseOut
                    layer.add(.basic(BasicAnimation(keyPath: "position.x", by: .double(40), timing: timing)), forKey: "move")
                    layer.add(.basic(BasicAnimation(keyPath: "opacity", from: .double(1), to: .double(0.3), timing: timing)),
                              forKey: "fade")
                }
                try c.commit()
                say("stress: \(layers) animated layers")
                while true { try c.waitWhileConnected(timeout: 1) }
            } catch {
                say("stress client stopped: \(error)")
            }
        }
    }
}

/// A built-in client playing a Lottie file given on the command line (`lamina-viewer
/// FILE.json`), looping, through the client library's `LottiePlayer`: the file becomes layers
/// and compositor animations once; this thread then only waits.
enum LottieClient {
    static func start(socket: String, file: String) {
        Thread.detachNewThread {
            do {
                let c = try Connection(socketPath: socket, name: "lamina-viewer lottie")
                let player = try LottiePlayer(contentsOfFile: file, connection: c)
                for w in player.scene.warnings { say("\(file): warning: \(w)") }
                say("playing \(file) (\(player.scene.layerCount) layers)")
                while true { try c.waitWhileConnected(timeout: 1) }
            } catch {
                say("\(file): \(error)")
            }
        }
    }
}
