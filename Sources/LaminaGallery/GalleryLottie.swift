import Lamina
import LaminaAnimation
import LaminaGeometry
import LaminaLottie
import LaminaModel
import LaminaWire

/// The gallery's Lottie page: a Lottie file mapped once (LaminaLottie, through the client
/// library's `Scene`) onto layers and compositor animations in a stage, and playback controls
/// that each send one change — the root layer's `speed`, `timeOffset` and `beginTime` from a
/// `LottieClock` at the compositor's time (`Gallery.now`) — never a frame. Space or the ⏯
/// button plays and pauses, ↑ / + faster and ↓ / − slower (×2, ¼…4), B or ⇄ plays backwards,
/// N or "next" shows the next file, 0…9 or a click on the track's tenths seeks. A thumb under
/// the track runs in a layer on the same clock, so it follows the animation without a client.
extension Gallery {
    /// The file every gallery has: a ball bouncing (eased position keyframes, a squash in
    /// scale), its shadow growing as it lands, and a ring whose trimmed stroke grows and
    /// shrinks while it turns. 400 × 300, 30 fps, 60 frames.
    public static let bundledLottie: (name: String, json: String) = ("bounce (bundled)", #"""
    {"v":"5.7.4","nm":"Lamina bounce","fr":30,"ip":0,"op":60,"w":400,"h":300,"assets":[],"layers":[
     {"ty":4,"nm":"Ball","ind":1,"ip":0,"op":60,"st":0,"ks":{"o":{"a":0,"k":100},"a":{"a":0,"k":[0,0]},
      "p":{"a":1,"k":[{"t":0,"s":[200,70],"o":{"x":[0.5],"y":[0]},"i":{"x":[1],"y":[1]}},
                      {"t":30,"s":[200,222],"o":{"x":[0],"y":[0]},"i":{"x":[0.5],"y":[1]}},{"t":60,"s":[200,70]}]},
      "s":{"a":1,"k":[{"t":0,"s":[100,100],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},
                      {"t":26,"s":[100,100],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},
                      {"t":30,"s":[125,75],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":34,"s":[100,100]}]},
      "r":{"a":0,"k":0}},
      "shapes":[{"ty":"gr","nm":"Ball","it":[{"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[60,60]}},
        {"ty":"fl","nm":"Fill 1","c":{"a":0,"k":[1,0.55,0.2,1]},"o":{"a":0,"k":100},"r":1},
        {"ty":"tr","p":{"a":0,"k":[0,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}]}]},
     {"ty":4,"nm":"Ring","ind":2,"ip":0,"op":60,"st":0,"ks":{"o":{"a":0,"k":100},"a":{"a":0,"k":[0,0]},
      "p":{"a":0,"k":[200,150]},"s":{"a":0,"k":[100,100]},
      "r":{"a":1,"k":[{"t":0,"s":[0],"o":{"x":[0],"y":[0]},"i":{"x":[1],"y":[1]}},{"t":60,"s":[360]}]}},
      "shapes":[{"ty":"gr","nm":"Ring","it":[{"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[240,240]}},
        {"ty":"tm","s":{"a":0,"k":0},"o":{"a":0,"k":0},"m":1,
         "e":{"a":1,"k":[{"t":0,"s":[10],"o":{"x":[0.4],"y":[0]},"i":{"x":[0.2],"y":[1]}},
                         {"t":30,"s":[90],"o":{"x":[0.4],"y":[0]},"i":{"x":[0.2],"y":[1]}},{"t":60,"s":[10]}]}},
        {"ty":"st","nm":"Stroke 1","c":{"a":0,"k":[0.29,0.72,1,1]},"o":{"a":0,"k":100},"w":{"a":0,"k":12},"lc":2,"lj":2},
        {"ty":"tr","p":{"a":0,"k":[0,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}]}]},
     {"ty":4,"nm":"Shadow","ind":3,"ip":0,"op":60,"st":0,"ks":{"o":{"a":0,"k":100},"a":{"a":0,"k":[0,0]},
      "p":{"a":0,"k":[200,262]},"r":{"a":0,"k":0},
      "s":{"a":1,"k":[{"t":0,"s":[50,50],"o":{"x":[0.5],"y":[0]},"i":{"x":[1],"y":[1]}},
                      {"t":30,"s":[100,100],"o":{"x":[0],"y":[0]},"i":{"x":[0.5],"y":[1]}},{"t":60,"s":[50,50]}]}},
      "shapes":[{"ty":"gr","nm":"Shadow","it":[{"ty":"el","p":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,20]}},
        {"ty":"fl","nm":"Fill 1","c":{"a":0,"k":[0,0,0,1]},"o":{"a":0,"k":30},"r":1},
        {"ty":"tr","p":{"a":0,"k":[0,0]},"a":{"a":0,"k":[0,0]},"s":{"a":0,"k":[100,100]},"r":{"a":0,"k":0},"o":{"a":0,"k":100}}]}]}]}
    """#)

    /// The stage (the file's canvas fitted into it, on a light panel), the track and the buttons.
    public static func lottieStage(_ c: Size) -> (center: Point, size: Size) {
        (Point(c.width / 2, c.height * 0.43), Size(min(c.width * 0.6, 560), min(c.height * 0.52, 320)))
    }
    public static func lottieTrack(_ c: Size) -> (center: Point, width: Double) { (Point(c.width / 2, c.height * 0.77), 480) }
    public static let lottieSegments = 10
    public static let lottieButtons = ["⏯", "−", "+", "⇄", "next"]
    public static let lottieSpeeds = (min: 0.25, max: 4.0)

    /// The files the page plays: the bundled one, then those given to `init`.
    public var lottieFiles: [(name: String, json: String)] { [Self.bundledLottie] + extraLottieFiles }

    /// Builds the page's stage and controls, and the file `lottieIndex` mapped into the stage.
    mutating func buildLottie(root: UInt32, _ b: inout GalleryBuilder) {
        let (center, size) = Self.lottieStage(canvas)
        let file = lottieFiles[lottieIndex % lottieFiles.count]
        let panel = b.layer(in: root, GalleryBuilder.box(size.width, size.height, at: center) + [
            ("backgroundColor", .color(Color(0.96, 0.96, 0.98))), ("cornerRadius", .number(14)), ("masksToBounds", .bool(true)),
        ])
        named["panel"] = panel
        lottieClock = nil
        lottieRoot = nil
        lottieLayers = nil
        var status = ""
        do {
            var paused = LottiePlayback()
            paused.autoplay = false
            let scene = try Scene(json: file.json, lottiePlayback: paused)
            guard let lottie = scene.lottie, let root = scene.names[LottieImport.rootName] else {
                throw SceneError(path: "", "not a Lottie file")
            }
            // The file's canvas, fitted into the panel (aspect kept) and centred: the stage.
            let s = min(size.width / scene.size.width, size.height / scene.size.height)
            let stage = b.layer(in: panel, GalleryBuilder.box(scene.size.width, scene.size.height,
                                                              at: Point(size.width / 2, size.height / 2)) + [
                ("transform", .transform(.scale(s, s))), ("masksToBounds", .bool(true)),
            ])
            named["stage"] = stage
            // The scene's layers (local ids 1…n) renumbered into the gallery's ids, under the stage.
            let base = b.nextID - 1
            for op in scene.initialOperations {
                let renumbered = op.renumbered(by: base, top: stage)
                if case .set(let id, "mask", .number(let m)) = renumbered, m > 0 { lottieMasked.append(id) }
                b.append(renumbered)
            }
            b.adopt(count: scene.layerCount)
            lottieRoot = root + base
            for (name, id) in scene.names { named["lottie/" + name] = id + base }
            lottieLayers = (base + 1)...(base + UInt32(max(scene.layerCount, 1)))
            named["lottie"] = root + base
            var clock = LottieClock(lottie, loadedAt: now)
            if !reduceMotion { clock.play(now: now) }   // Reduce Motion: shown paused at its start; ⏯ plays it
            lottieClock = clock
            status = scene.warnings.isEmpty ? "" : " · \(scene.warnings.count) parts left out"
            // Embedded images need an upload (I/O, which the gallery does not do): not shown.
            if !scene.imageData.isEmpty { status += " · its \(scene.imageData.count) images not shown" }
        } catch {
            status = " · cannot play it: \(error)"
        }
        named["status"] = b.text("", size: 15, in: root, at: Point(canvas.width / 2, center.y + size.height / 2 + 22),
                                 width: canvas.width - 40, color: Color(0.75, 0.78, 0.85))
        lottieNote = status
        // The track: ten segments (a click seeks to its start), and a thumb on the file's clock.
        let (tc, tw) = Self.lottieTrack(canvas)
        let seg = tw / Double(Self.lottieSegments)
        for k in 0..<Self.lottieSegments {
            named["segment\(k)"] = b.layer(in: root, GalleryBuilder.box(seg - 4, 10, at: Point(tc.x - tw / 2 + seg * (Double(k) + 0.5), tc.y)) + [
                ("backgroundColor", .color(Color(1, 1, 1, 0.25))), ("cornerRadius", .number(3)),
            ])
        }
        let clocked = b.layer(in: root, GalleryBuilder.box(0, 0, at: Point(tc.x - tw / 2, tc.y)))
        named["clocked"] = clocked
        let thumb = b.layer(in: clocked, GalleryBuilder.box(16, 16, at: Point(0, 0)) + [
            ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(8)),
        ])
        named["thumb"] = thumb
        if let clock = lottieClock {
            // One pass of the range per duration, repeating from long before local time 0 (as the
            // import's own loop), so backwards play and seeks find it running.
            b.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(0), to: .double(tw),
                                        timing: AnimationTiming(beginTime: -10_000 * clock.duration, duration: clock.duration,
                                                                repeatCount: .infinity))),
                  to: thumb, key: "progress")
        }
        for (k, label) in Self.lottieButtons.enumerated() {
            let button = b.layer(in: root, GalleryBuilder.box(76, 40, at: Point(canvas.width / 2 + (Double(k) - 2) * 90, canvas.height * 0.86)) + [
                ("backgroundColor", .color(Color(0.25, 0.28, 0.38))), ("cornerRadius", .number(10)),
            ])
            _ = b.text(label, size: 18, in: button, at: Point(38, 20), width: 70)
            named["button\(k)"] = button
        }
        b.append(.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true)))
        lottieClockChanges(&b)
    }

    /// Sets the root's and the thumb's layer time from the clock, and the status line.
    func lottieClockChanges(_ b: inout GalleryBuilder) {
        if let clock = lottieClock, let root = lottieRoot, let clocked = named["clocked"] {
            for (key, value) in clock.settings(now: now) {
                b.set(root, key, .number(value))
                b.set(clocked, key, .number(value))
            }
        }
        if let status = named["status"] { b.set(status, "string", .string(lottieStatus)) }
    }

    /// "name · playing at 1× (backwards)" and what the import left out.
    public var lottieStatus: String {
        let file = lottieFiles[lottieIndex % lottieFiles.count].name
        guard let clock = lottieClock else { return file + lottieNote }
        let speed = clock.isPlaying ? clock.speed : clock.resumeSpeed
        let rate = abs(speed) == abs(speed).rounded() ? String(Int(abs(speed))) : String(abs(speed))
        return "\(file) · \(clock.isPlaying ? "playing" : "paused") at \(rate)×\(speed < 0 ? " backwards" : "")" + lottieNote
    }

    /// A key on the Lottie page (← → are the gallery's).
    mutating func lottieKey(_ code: UInt32) -> [LayerChange] {
        switch code {
        case 32: return lottieControl { $0.isPlaying ? $0.pause(now: $1) : $0.play(now: $1) }        // space
        case 265, 61, 334: return lottieControl { $0.setSpeed(Self.nextSpeed($0, faster: true), now: $1) }   // ↑ + (=)
        case 264, 45, 333: return lottieControl { $0.setSpeed(Self.nextSpeed($0, faster: false), now: $1) }  // ↓ −
        case 66: return lottieControl { $0.setSpeed(-Self.currentSpeed($0), now: $1) }                  // B
        case 78:                                                                                      // N
            lottieIndex = (lottieIndex + 1) % lottieFiles.count
            return show(.lottie)
        case 48...57: return lottieControl { $0.seek(progress: Double(code - 48) / 10, now: $1) }       // 0…9
        default: return []
        }
    }

    /// A click on the Lottie page: the stage plays or pauses, a segment seeks, a button acts.
    mutating func lottieClick(_ layer: UInt32) -> [LayerChange] {
        if let k = (0..<Self.lottieSegments).first(where: { named["segment\($0)"] == layer }) {
            return lottieControl { $0.seek(progress: Double(k) / Double(Self.lottieSegments), now: $1) }
        }
        let keys: [UInt32] = [32, 264, 265, 66, 78]   // the buttons as their keys
        if let k = (0..<Self.lottieButtons.count).first(where: { named["button\($0)"] == layer }) { return lottieKey(keys[k]) }
        if layer == named["panel"] || layer == named["stage"] || lottieLayers?.contains(layer) == true {
            return lottieKey(32)
        }
        return []
    }

    private mutating func lottieControl(_ change: (inout LottieClock, Double) -> Void) -> [LayerChange] {
        guard var clock = lottieClock else { return [] }
        change(&clock, now)
        lottieClock = clock
        var b = GalleryBuilder(canvas: canvas, reduceMotion: reduceMotion, nextID: 1)
        b.append(.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true)))
        lottieClockChanges(&b)
        return b.operations
    }

    private static func currentSpeed(_ c: LottieClock) -> Double { c.isPlaying ? c.speed : c.resumeSpeed }

    /// The next speed up or down (×2 or ÷2, keeping the direction, within ¼…4); playing.
    private static func nextSpeed(_ c: LottieClock, faster: Bool) -> Double {
        let s = currentSpeed(c)
        let magnitude = min(max(abs(s) * (faster ? 2 : 0.5), lottieSpeeds.min), lottieSpeeds.max)
        return s < 0 ? -magnitude : magnitude
    }
}
