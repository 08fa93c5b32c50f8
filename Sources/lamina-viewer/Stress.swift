import Foundation
import Lamina
import LaminaAnimation
import LaminaGeometry
import Synchronization

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

/// `lamina-viewer --tiled FILE.png`: a built-in client showing a PNG of any size (up to 2^30
/// pixels a side) in a tiled layer, sent by descriptor (`openImageFile`), fitted to the
/// window, with pan and zoom: a drag pans, the scroll wheel zooms about the pointer, the arrow
/// keys pan a tenth of the window, + and − (= and -, keypad too) zoom about the window's
/// centre, 0 fits the image again. The tiles come in on the daemon's tile worker under
/// `tileCacheBytes`; frames never wait for them (a coarser level shows meanwhile).
enum TiledClient {
    /// What the event callbacks hand the client's thread (which alone touches the layers).
    struct Inbox: Sendable {
        var viewport: TiledViewport
        var drag: Point? = nil
        var changed = false
    }

    static func start(socket: String, file: String, width: Int, height: Int) {
        Thread.detachNewThread {
            do {
                let c = try Connection(socketPath: socket, name: "lamina-viewer tiled")
                let image = try c.openImageFile(file, name: "tiled")
                let (w, h) = (Double(image.width), Double(image.height))
                let (vw, vh) = (Double(width), Double(height))
                let fit = TiledViewport.fit(width: w, height: h, viewWidth: vw, viewHeight: vh)
                // Levels down to one tile's worth of the fitted view (at most 30).
                let levels = min(30, max(1, Int(log2(max(w, h) / 256).rounded(.up)) + 1))
                let backdrop = c.makeLayer()   // catches the pointer where the image is not
                backdrop.frame = Rect(0, 0, vw, vh)
                backdrop.backgroundColor = Color(0.08, 0.08, 0.1)
                let layer = c.makeLayer(.tiled) as! TiledLayer
                layer.anchorPoint = Point(0, 0)
                layer.bounds = Rect(0, 0, w, h)
                layer.levelsOfDetail = Double(levels)
                layer.levelsOfDetailBias = 4
                layer.setContents(image)
                backdrop.addSublayer(layer)
                c.root.addSublayer(backdrop)
                let inbox = Mutex(Inbox(viewport: fit, changed: true))
                let wake = DispatchSemaphore(value: 0)
                c.onPointer = { p in
                    inbox.withLock { s in
                        switch p.phase {
                        case .down: s.drag = p.canvasLocation
                        case .up: s.drag = nil
                        case .moved:
                            guard let from = s.drag else { return }
                            s.viewport.pan(by: Point(p.canvasLocation.x - from.x, p.canvasLocation.y - from.y))
                            s.drag = p.canvasLocation
                            s.changed = true
                        case .scroll:
                            s.viewport.zoom(by: pow(1.25, p.scrollDelta.y), about: p.canvasLocation)
                            s.changed = true
                        }
                    }
                    wake.signal()
                }
                c.onKey = { k in
                    guard k.isDown else { return }
                    let centre = Point(vw / 2, vh / 2)
                    inbox.withLock { s in
                        s.changed = true
                        switch k.key {
                        case 262: s.viewport.pan(by: Point(-vw / 10, 0))   // right: see further right
                        case 263: s.viewport.pan(by: Point(vw / 10, 0))
                        case 264: s.viewport.pan(by: Point(0, -vh / 10))
                        case 265: s.viewport.pan(by: Point(0, vh / 10))
                        case 61, 334: s.viewport.zoom(by: 2, about: centre)   // = (+), keypad +
                        case 45, 333: s.viewport.zoom(by: 0.5, about: centre) // -, keypad -
                        case 48: s.viewport = fit
                        default: s.changed = false
                        }
                    }
                    wake.signal()
                }
                say("tiled: \(file) (\(image.width)×\(image.height), \(levels) levels): drag or arrows pan, scroll or +/- zoom, 0 fits")
                while true {
                    _ = wake.wait(timeout: .now() + 1)
                    let v: TiledViewport? = inbox.withLock { s in
                        defer { s.changed = false }
                        return s.changed ? s.viewport : nil
                    }
                    if let v {
                        c.setDisableActions(true)
                        layer.position = v.position
                        layer.transform = Transform3D.scale(v.scale, v.scale, 1)
                        try c.commit()
                    }
                    try c.waitWhileConnected(timeout: 0)
                }
            } catch {
                say("\(file): \(error)")
            }
        }
    }
}
