import LaminaAnimation
import LaminaLottie
import LaminaGeometry
import LaminaModel
#if canImport(Glibc)
import Glibc
#endif

/// The demo gallery (`lamina-demo`): pages of animations the compositor runs by itself —
/// the client sends a page once (and a change per click or key), never a frame. The arrow
/// keys switch pages; each page has a title (a text layer). With Reduce Motion, movements
/// become 150 ms cross-fades (`GalleryBuilder.motion`).
///
/// The gallery is I/O-free: its methods return the operations to commit, so `lamina-demo`
/// sends them through a `Connection` and tests apply them to the embedded daemon.
public struct Gallery {
    public enum Page: Int, CaseIterable, Sendable {
        case progressRing, springs, shake, pulse, celebration, expandingCard, cardStack, stress, parametric
        case maskedAvatar, replicatorSpinner, scrubbing, blendAndFilters, transitions, frostedGlass, lottie

        public var title: String {
            switch self {
            case .progressRing: "Progress ring — strokeEnd, easeOut 0.6 s"
            case .springs: "Springs — smooth, snappy, bouncy"
            case .shake: "Shake — position.x keyframes, decaying"
            case .pulse: "Pulsing button — a repeating phase sequence"
            case .celebration: "Celebration — spring scale, keyframe tracks, opacity"
            case .expandingCard: "Expanding card — click it (matched geometry)"
            case .cardStack: "Card stack — click to send the top card back"
            case .stress: "Stress — + / − change the layer count"
            case .parametric: "Parametric shapes — arc, trapezoid, wave, polygon, flower"
            case .maskedAvatar: "Masks — a circular avatar, an animated reveal"
            case .replicatorSpinner: "Replicators — a 12-dot spinner, a nested grid with a delayed wave"
            case .scrubbing: "Scrubbed animation — ↑ / ↓ move its time by 0.1 s"
            case .blendAndFilters: "Blend modes and filters — blur, grayscale"
            case .transitions: "Transitions — click + to add a row, a row to remove it"
            case .frostedGlass: "Frosted glass — backgroundFilters over moving content"
            case .lottie: "Lottie — space ⏯ · ↑ ↓ speed · B backwards · N next file · 0–9 or the track seek"
            }
        }
    }

    public let canvas: Size
    public private(set) var page: Page = .progressRing
    public private(set) var reduceMotion: Bool
    /// The stress page's layer count.
    public private(set) var stressCount = 200
    /// The layers of the page on screen (deleted when the page changes).
    public private(set) var pageLayers: [UInt32] = []
    /// The canvas-sized layer that holds every page (made by the first `show`, kept): the
    /// arrow keys switch pages with a CATransition push on it.
    public private(set) var stage: UInt32?
    /// The page switch's push (the daemon cross-fades it under Reduce Motion).
    public static let pageTransitionDuration = 0.4
    /// Named layers of the page on screen (tests and click handling).
    public internal(set) var named: [String: UInt32] = [:]
    private var nextID: UInt32
    private var expanded = false
    /// The stack page's cards, front first.
    private var stackOrder: [UInt32] = []
    /// The transitions page's rows, top first.
    public private(set) var rows: [UInt32] = []
    private var rowCount = 0
    /// The scrubbed page's time (its frozen subtree's `timeOffset`), 0…`scrubLength`.
    public private(set) var scrubTime = 0.0
    /// The compositor time at which the next changes take effect (about): the celebration's
    /// confetti emitter takes it as its `beginTime`, so that its burst starts when it is shown
    /// (an emitter's particles run from its local time 0, as CAEmitterLayer's).
    public var now = 0.0
    /// The Lottie page (GalleryLottie.swift): the files given besides the bundled one, the one
    /// shown, its clock, its root layer and layers, and what its import left out.
    let extraLottieFiles: [(name: String, json: String)]
    public internal(set) var lottieIndex = 0
    public internal(set) var lottieClock: LottieClock?
    var lottieRoot: UInt32?
    var lottieLayers: ClosedRange<UInt32>?
    var lottieNote = ""
    /// The Lottie page's layers that have a mask.
    var lottieMasked: [UInt32] = []

    /// - Parameter firstID: the first layer id the gallery may use (ids above it are its own).
    /// - Parameter lottieFiles: Lottie files (a name and the JSON text) the Lottie page plays
    ///   after its bundled one (`Gallery.bundledLottie`).
    public init(canvas: Size, reduceMotion: Bool = false, firstID: UInt32 = 1, lottieFiles: [(name: String, json: String)] = []) {
        self.canvas = canvas; self.reduceMotion = reduceMotion; nextID = firstID
        extraLottieFiles = lottieFiles
    }

    // MARK: Events

    /// Shows a page (removing the one on screen); with `push`, the new page pushes the old one
    /// out from that side (CATransition on the stage).
    public mutating func show(_ page: Page, push: ContentTransition.Subtype? = nil) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true))]
        var b = GalleryBuilder(canvas: canvas, reduceMotion: reduceMotion, nextID: nextID)
        let w = canvas.width, h = canvas.height
        if let stage {
            if let push {
                ops.append(.transition(stage, ContentTransition(type: .push, subtype: push, duration: Self.pageTransitionDuration,
                                                                timingFunction: .easeInEaseOut)))
            }
            for (key, value) in GalleryBuilder.box(w, h, at: Point(w / 2, h / 2)) { ops.append(.set(stage, keyPath: key, value: value)) }
        } else {
            stage = b.layer(in: 0, GalleryBuilder.box(w, h, at: Point(w / 2, h / 2)))
        }
        // A mask is deleted once no layer has it (the Lottie page's masks and mattes).
        ops += lottieMasked.map { .set($0, keyPath: "mask", value: .number(0)) }
        lottieMasked = []
        ops += pageLayers.reversed().map { .delete($0) }
        self.page = page
        expanded = false
        scrubTime = 0
        named = [:]
        build(page, &b)
        nextID = b.nextID
        pageLayers = b.created.filter { $0 != stage }
        return ops + b.operations
    }

    /// A key from the viewer: ←/→ switch pages, + / − change the stress page's count.
    public mutating func key(_ code: UInt32) -> [LayerChange] {
        let pages = Page.allCases.count
        switch code {
        case 262: return show(Page(rawValue: (page.rawValue + 1) % pages)!, push: .fromRight)          // right
        case 263: return show(Page(rawValue: (page.rawValue + pages - 1) % pages)!, push: .fromLeft)   // left
        case 61 where page == .stress, 334 where page == .stress:                                          // = / + , keypad +
            stressCount = min(stressCount * 2, 12_800)
            return show(.stress)
        case 45 where page == .stress, 333 where page == .stress:                                          // - , keypad −
            stressCount = max(stressCount / 2, 25)
            return show(.stress)
        case _ where page == .lottie: return lottieKey(code)
        case 265 where page == .scrubbing, 264 where page == .scrubbing:                                   // ↑ / ↓
            let step = code == 265 ? Self.scrubStep : -Self.scrubStep
            scrubTime = min(max((scrubTime + step) / Self.scrubStep, 0).rounded() * Self.scrubStep, Self.scrubLength)
            guard let clip = named["clip"], let thumb = named["thumb"] else { return [] }
            return [.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true)),
                    .set(clip, keyPath: "timeOffset", value: .number(scrubTime)),
                    .set(thumb, keyPath: "position", value: .point(Self.thumbCenter(scrubTime, canvas)))]
        default: return []
        }
    }

    /// Reduce Motion changed: the page is built again with or without movement.
    public mutating func setReduceMotion(_ on: Bool) -> [LayerChange] {
        guard on != reduceMotion else { return [] }
        reduceMotion = on
        return show(page)
    }

    /// A click (pointer down) on one of the gallery's layers.
    public mutating func click(_ layer: UInt32) -> [LayerChange] {
        var b = GalleryBuilder(canvas: canvas, reduceMotion: reduceMotion, nextID: nextID)
        switch page {
        case .expandingCard:
            guard let card = named["card"], let detail = named["detail"], layer == card || layer == detail else { return [] }
            expanded.toggle()
            let (from, to) = expanded ? (card, detail) : (detail, card)
            if reduceMotion {
                // No movement: the other one shows at once, fading in.
                b.implicitly(duration: 0, .linear, layers: [to])
                b.set(from, "opacity", .number(0))
                b.set(to, "opacity", .number(1))
            } else {
                // Matched geometry: `to` grows out of `from`'s frame, `from` into `to`'s.
                b.append(.setTransaction(TransactionSettings(duration: 0.45, timingFunction: .spring(.snappy))))
                b.set(to, "opacity", .number(1))
                b.append(.match(from: from, to: to))
            }
        case .transitions:
            if layer == named["add"] {
                guard rows.count < Self.maxRows, let list = named["list"] else { return [] }
                b.append(.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true)))
                let row = Self.makeRow(rowCount, slot: rows.count, &b)
                rowCount += 1
                rows.append(row)
                named["row\(rows.count - 1)"] = row
                b.append(.setTransaction(Self.rowTransaction(reduceMotion)))
                b.append(.setTransitions(row, Self.rowTransitions(reduceMotion)))
                b.append(.addSublayer(parent: list, child: row))
            } else if let i = rows.firstIndex(of: layer) {
                rows.remove(at: i)
                // The rows below move up (under Reduce Motion at once).
                if reduceMotion {
                    b.append(.setTransaction(TransactionSettings(duration: 0, timingFunction: .linear, disableActions: true)))
                } else {
                    b.append(.setTransaction(Self.rowTransaction(false)))
                }
                for (k, row) in rows.enumerated() { b.set(row, "position", .point(Self.rowCenter(k))) }
                b.append(.setTransaction(Self.rowTransaction(reduceMotion)))
                b.append(.setTransitions(layer, Self.rowTransitions(reduceMotion)))
                b.append(.removeFromSuperlayer(layer))
                named = named.filter { !$0.key.hasPrefix("row") }
                for (k, row) in rows.enumerated() { named["row\(k)"] = row }
            } else {
                return []
            }
        case .cardStack:
            guard stackOrder.contains(layer) else { return [] }
            stackOrder.append(stackOrder.removeFirst())
            b.implicitly(duration: 0.35, .easeInEaseOut, layers: stackOrder)
            for (i, card) in stackOrder.enumerated() {
                let slot = Self.stackSlot(i, canvas)
                b.set(card, "position", .point(slot.center))
                b.set(card, "zPosition", .number(Double(stackOrder.count - i)))
                b.set(card, "opacity", .number(slot.opacity))
            }
        case .lottie:
            return lottieClick(layer)
        case .celebration:
            guard named["star"] == layer || named["burst"] == layer else { return [] }
            return show(.celebration)    // plays again
        default:
            return []
        }
        nextID = b.nextID
        pageLayers += b.created
        return b.operations
    }

    // MARK: Geometry the pages and tests share

    /// The expanding card's small frame: size, centre, corner radius.
    public static func cardFrame(_ c: Size) -> (Size, Point, Double) { (Size(200, 130), Point(c.width * 0.25, c.height * 0.5), 16) }
    /// Its detail frame.
    public static func detailFrame(_ c: Size) -> (Size, Point, Double) {
        (Size(c.width * 0.6, c.height * 0.6), Point(c.width * 0.55, c.height * 0.55), 28)
    }
    /// The detail view's body text (wrapped at the detail's width less `detailBodyInset`).
    public static let detailBody = "The detail view grows out of the card you tapped: matched geometry moves and "
        + "sizes it from the card's frame on screen while the two cross-fade. This paragraph wraps at the "
        + "detail's width as it is drawn, so its lines reflow while the view grows and shrink back with it."
    public static let detailBodyInset = 40.0
    /// The masks page: the avatar's centre and its circular mask's diameter; the reveal card's
    /// frame and its mask circle's diameter (covering the card at scale 1) and duration.
    public static func avatarCenter(_ c: Size) -> Point { Point(c.width * 0.3, c.height * 0.5) }
    public static let avatarSize = 180.0, avatarMaskDiameter = 160.0
    public static func revealCenter(_ c: Size) -> Point { Point(c.width * 0.7, c.height * 0.5) }
    public static let revealSize = Size(240, 160), revealDiameter = 290.0, revealDuration = 1.2
    /// The spinner: its replicator's centre and size, the dot's size and its distance from the
    /// centre, the instance count and one turn's duration.
    public static func spinnerCenter(_ c: Size) -> Point { Point(c.width * 0.3, c.height * 0.5) }
    public static let spinnerSize = 120.0, dotSize = 16.0, dotRadius = 50.0, spinnerCount = 12, spinnerTurn = 1.2
    /// The grid: its origin (the first cell's top-left corner), cell size, pitch and counts.
    public static func gridOrigin(_ c: Size) -> Point { Point(c.width * 0.55, c.height * 0.3) }
    public static let gridCell = 30.0, gridPitch = 40.0, gridColumns = 6, gridRows = 5
    /// The scrubbed page: its animations' length, the step of ↑ / ↓, the ball's x from and to
    /// (in the clip layer, linear over `scrubLength`), and the thumb's centre on its track.
    public static let scrubLength = 2.0, scrubStep = 0.1, ballFrom = 60.0, ballTo = 540.0
    public static func clipCenter(_ c: Size) -> Point { Point(c.width / 2, c.height * 0.42) }
    public static func thumbCenter(_ t: Double, _ c: Size) -> Point {
        Point(c.width / 2 - 300 + 600 * t / scrubLength, c.height * 0.72)
    }
    /// The blend page's photo: its centre and size, the ground's colour (its lower 40 %), the
    /// blend layers' modes and colours, and the filtered copies' centres.
    public static func photoCenter(_ c: Size) -> Point { Point(c.width * 0.3, c.height * 0.45) }
    public static let photoSize = Size(320, 220), groundColor = Color(0.25, 0.55, 0.35)
    public static let blends: [(mode: String, color: Color)] = [
        ("multiplyBlendMode", Color(0.9, 0.5, 0.2)), ("screenBlendMode", Color(0.2, 0.4, 0.9)),
        ("overlayBlendMode", Color(0.8, 0.2, 0.6)), ("differenceBlendMode", Color(1, 1, 1)),
    ]
    /// Blend square `i`'s centre in the photo (60 × 60, across the sky and the ground).
    public static func blendCenter(_ i: Int) -> Point { Point(55 + Double(i) * 70, photoSize.height * 0.6) }
    public static func blurredCenter(_ c: Size) -> Point { Point(c.width * 0.74, c.height * 0.3) }
    public static func grayCenter(_ c: Size) -> Point { Point(c.width * 0.74, c.height * 0.66) }
    public static let copyScale = 0.6, blurRadius = 4.0, sunColor = Color(1, 0.8, 0.3)

    /// A photo-like picture: a sky gradient, a sun, a ground (with `blends` over it or not).
    static func photo(at center: Point, scale: Double, blends: Bool, in parent: UInt32, _ extra: [(String, PropertyValue)],
                      _ b: inout GalleryBuilder) -> UInt32 {
        let sz = photoSize
        let photo = b.layer(.gradient, in: parent, GalleryBuilder.box(sz.width, sz.height, at: center) + [
            ("colors", .colors([Color(hex6: 0x355C7D), Color(hex6: 0xF67280)])),
            ("startPoint", .point(Point(0, 0))), ("endPoint", .point(Point(1, 1))),
            ("transform", .transform(.scale(scale, scale))),
        ] + extra)
        _ = b.layer(in: photo, GalleryBuilder.box(60, 60, at: Point(sz.width * 0.75, sz.height * 0.28)) + [
            ("backgroundColor", .color(sunColor)), ("cornerRadius", .number(30)),
        ])
        _ = b.layer(in: photo, GalleryBuilder.box(sz.width, sz.height * 0.4, at: Point(sz.width / 2, sz.height * 0.8)) + [
            ("backgroundColor", .color(groundColor)),
        ])
        if blends {
            for (i, blend) in Self.blends.enumerated() {
                _ = b.layer(in: photo, GalleryBuilder.box(60, 60, at: blendCenter(i)) + [
                    ("backgroundColor", .color(blend.color)), ("cornerRadius", .number(8)),
                    ("compositingFilter", .string(blend.mode)),
                ])
            }
        }
        return photo
    }

    /// The transitions page: row `k`'s centre in the list, and the most rows.
    public static func rowCenter(_ k: Int) -> Point { Point(160, 30 + Double(k) * 52) }
    public static let maxRows = 6
    /// The celebration's confetti: four colors of paper, thrown up within ±50° of vertical,
    /// falling under gravity, spinning and fading (0.6 s of births, each living 2.5–3.5 s).
    public static let confettiCells: [EmitterCell] = [0xFFD24A, 0xFF6B6B, 0x4ECDC4, 0x9B5DE5].enumerated().map { i, hex in
        var c = EmitterCell(name: "paper\(i)")
        c.birthRate = 30; c.duration = 0.6; c.lifetime = 3; c.lifetimeRange = 0.5
        c.velocity = 320; c.velocityRange = 120; c.emissionLongitude = -.pi / 2; c.emissionRange = 0.9
        c.yAcceleration = 300; c.spin = 3; c.spinRange = 5; c.scale = 9; c.scaleRange = 3
        c.color = Color(hex6: UInt32(hex)); c.redRange = 0.05; c.greenRange = 0.05; c.blueRange = 0.05; c.alphaSpeed = -0.25
        return c
    }

    static func rowTransaction(_ reduceMotion: Bool) -> TransactionSettings {
        TransactionSettings(duration: reduceMotion ? GalleryBuilder.fadeDuration : 0.35, timingFunction: .easeInEaseOut)
    }
    /// Rows slide in from the leading edge and move out across the trailing one; under Reduce
    /// Motion they fade.
    static func rowTransitions(_ reduceMotion: Bool) -> LayerTransitions {
        let t = LayerTransitions(insertion: .slide, removal: .combined([.move(.trailing), .opacity]))
        return reduceMotion ? LayerTransitions(insertion: t.insertion.reducingMotion, removal: t.removal.reducingMotion) : t
    }
    static func makeRow(_ n: Int, slot: Int, _ b: inout GalleryBuilder) -> UInt32 {
        let colors: [UInt32] = [0x2A9D8F, 0xE9C46A, 0xF4A261, 0xE76F51, 0x8AB17D, 0x6D9DC5]
        let row = b.detached(GalleryBuilder.box(300, 44, at: rowCenter(slot)) + [
            ("backgroundColor", .color(Color(hex6: colors[n % colors.count]))), ("cornerRadius", .number(10)),
        ])
        _ = b.text("Row \(n + 1) — click to remove", size: 16, in: row, at: Point(150, 22), width: 280, color: Color(0.08, 0.1, 0.14))
        return row
    }

    /// The stack's slot `i` (0 front): centre and opacity.
    public static func stackSlot(_ i: Int, _ c: Size) -> (center: Point, opacity: Double) {
        (Point(c.width / 2 + Double(i) * 24, c.height / 2 + 20 - Double(i) * 24), 1 - Double(i) * 0.15)
    }
    /// The progress ring's circle (in its layer's bounds) and duration.
    public static let ringDuration = 0.6
    /// The shake's rest x, its keyframe offsets (decaying) and duration.
    public static let shakeOffsets: [Double] = [0, 40, -32, 24, -16, 8, -4, 0]
    public static let shakeDuration = 0.8

    // MARK: Pages

    private mutating func build(_ page: Page, _ b: inout GalleryBuilder) {
        let w = canvas.width, h = canvas.height
        let root = b.layer(in: stage ?? 0, GalleryBuilder.box(w, h, at: Point(w / 2, h / 2)) + [("backgroundColor", .color(Color(hex6: 0x151922)))])
        named["root"] = root
        named["title"] = b.text(page.title, size: 26, in: root, at: Point(w / 2, 40), width: w - 40)
        _ = b.text("← → pages · R Reduce Motion · page \(page.rawValue + 1)/\(Page.allCases.count)", size: 14, in: root,
                   at: Point(w / 2, h - 24), width: w - 40, color: Color(0.6, 0.62, 0.7))
        switch page {
        case .lottie:
            buildLottie(root: root, &b)
        case .progressRing:
            let d = min(w, h) * 0.45
            let track = b.layer(.shape, in: root, GalleryBuilder.box(d, d, at: Point(w / 2, h / 2)) + [
                ("path", .path(.ellipse(in: Rect(0, 0, d, d)))), ("fillColor", .color(nil)),
                ("strokeColor", .color(Color(1, 1, 1, 0.12))), ("lineWidth", .number(16)),
            ])
            let ring = b.layer(.shape, in: root, GalleryBuilder.box(d, d, at: Point(w / 2, h / 2)) + [
                ("path", .path(.ellipse(in: Rect(0, 0, d, d)))), ("fillColor", .color(nil)),
                ("strokeColor", .color(Color(hex6: 0x4AD9FF))), ("lineWidth", .number(16)), ("lineCap", .string("round")),
                ("transform", .transform(.rotation(-.pi / 2))), ("strokeEnd", .number(1)),
            ])
            _ = track
            named["ring"] = ring
            b.motion(.basic(BasicAnimation(keyPath: "strokeEnd", from: .double(0), to: .double(1),
                                           timing: AnimationTiming(duration: Self.ringDuration, timingFunction: .easeOut))),
                     to: ring, key: "progress")
        case .springs:
            for (i, (name, spring)) in [("smooth", Spring.smooth), ("snappy", .snappy), ("bouncy", .bouncy)].enumerated() {
                let y = h * (0.3 + 0.2 * Double(i))
                let ball = b.layer(in: root, GalleryBuilder.box(60, 60, at: Point(w * 0.75, y)) + [
                    ("backgroundColor", .color(Color(hex6: [0x99B898, 0xFECEA8, 0xE84A5F][i]))), ("cornerRadius", .number(30)),
                ])
                named[name] = ball
                _ = b.text(name, size: 16, in: root, at: Point(w * 0.12, y), width: 140)
                b.motion(.spring(SpringAnimation(keyPath: "position.x", from: .double(w * 0.25), to: .double(w * 0.75), spring: spring,
                                                 timing: AnimationTiming(duration: 1.6, repeatCount: .infinity, autoreverses: true))),
                         to: ball, key: "spring")
            }
        case .shake:
            let field = b.layer(in: root, GalleryBuilder.box(320, 56, at: Point(w / 2, h / 2)) + [
                ("backgroundColor", .color(Color(0.2, 0.22, 0.3))), ("cornerRadius", .number(10)),
                ("borderWidth", .number(2)), ("borderColor", .color(Color(hex6: 0xE84A5F))),
            ])
            named["field"] = field
            b.motion(.keyframe(KeyframeAnimation(keyPath: "position.x", values: Self.shakeOffsets.map { .double(w / 2 + $0) },
                                                 timing: AnimationTiming(duration: Self.shakeDuration, repeatCount: .infinity,
                                                                         repeatDuration: 0))),
                     to: field, key: "shake")
        case .pulse:
            let button = b.layer(in: root, GalleryBuilder.box(200, 64, at: Point(w / 2, h / 2)) + [
                ("backgroundColor", .color(Color(hex6: 0x2A9D8F))), ("cornerRadius", .number(32)),
            ])
            named["button"] = button
            _ = b.text("Continue", size: 22, in: button, at: Point(100, 32), width: 200)
            b.motion(.phases(PhaseAnimation(phases: [
                Phase(values: ["transform": .transform(.identity), "opacity": .double(1)], curve: .easeInEaseOut, duration: 0.4),
                Phase(values: ["transform": .transform(.scale(1.12, 1.12)), "opacity": .double(0.85)], curve: .easeOut, duration: 0.3),
                Phase(values: ["transform": .transform(.scale(0.97, 0.97)), "opacity": .double(1)], curve: .spring(.bouncy), duration: 0.5),
            ])), to: button, key: "pulse")
        case .celebration:
            let burst = b.layer(in: root, GalleryBuilder.box(220, 220, at: Point(w / 2, h / 2)) + [
                ("backgroundColor", .color(Color(1, 0.82, 0.29, 0.18))), ("cornerRadius", .number(110)),
            ])
            let star = b.layer(.shape, in: burst, GalleryBuilder.box(180, 180, at: Point(110, 110)) + [
                ("path", .path(.polygon(Self.starPoints(center: Point(90, 90), outer: 88, inner: 38)))),
                ("fillColor", .color(Color(hex6: 0xFFD24A))),
            ])
            named["burst"] = burst; named["star"] = star
            // Confetti (CAEmitterLayer) bursting up from the star for 0.6 s and falling, behind
            // the star so that clicks reach it. Reduce Motion: no particle is born.
            let confetti = b.detached(GalleryBuilder.box(w, h, at: Point(w / 2, h / 2)) + [
                ("emitterPosition", .point(Point(w / 2, h / 2))), ("emitterShape", .string("circle")),
                ("emitterSize", .size(Size(120, 120))), ("seed", .number(26)), ("beginTime", .number(now)),
                ("birthRate", .number(b.reduceMotion ? 0 : 1)),
                ("emitterCells", .emitterCells(Self.confettiCells)),
            ], kind: .emitter)
            b.append(.insertSublayer(parent: root, child: confetti, index: 0))
            named["confetti"] = confetti
            b.motion(.spring(SpringAnimation(keyPath: "transform", from: .transform(.scale(0.2, 0.2)), to: .transform(.identity),
                                             spring: .bouncy)), to: burst, key: "pop")
            b.motion(.keyframeTracks(KeyframeTracksAnimation(tracks: [
                KeyframeTrack(keyPath: "transform", keyframes: [
                    .linear(.transform(.rotation(0.6)), duration: 0.25),
                    .cubic(.transform(.rotation(-0.4)), duration: 0.35),
                    .spring(.transform(.identity), duration: 0.6, bounce: 0.35),
                ]),
                KeyframeTrack(keyPath: "opacity", keyframes: [
                    .move(.double(0)), .linear(.double(1), duration: 0.2), .cubic(.double(1), duration: 1.0),
                ]),
            ])), to: star, key: "celebrate")
        case .expandingCard:
            let (size, center, radius) = Self.cardFrame(canvas)
            let card = b.layer(in: root, GalleryBuilder.box(size.width, size.height, at: center) + [
                ("backgroundColor", .color(Color(hex6: 0xFF847C))), ("cornerRadius", .number(radius)),
                ("masksToBounds", .bool(true)),
            ])
            named["card"] = card
            _ = b.text("Tap to open", size: 18, in: card, at: Point(100, 30), width: 180)
            // The detail view, hidden until a click matches the card into it.
            let (dSize, dCenter, dRadius) = Self.detailFrame(canvas)
            let detail = b.layer(in: root, GalleryBuilder.box(dSize.width, dSize.height, at: dCenter) + [
                ("backgroundColor", .color(Color(hex6: 0xFF847C))), ("cornerRadius", .number(dRadius)),
                ("masksToBounds", .bool(true)), ("opacity", .number(0)),
            ])
            named["detail"] = detail
            _ = b.text("Detail — tap to close", size: 24, in: detail, at: Point(dSize.width / 2, 40), width: dSize.width - 40)
            // The body wraps at the detail's presentation width (expressions on its width and
            // centre): while the match grows the detail out of the card, its lines reflow.
            let body = b.layer(.text, in: detail, [
                ("anchorPoint", .point(Point(0.5, 0))),
                ("bounds", .rect(Rect(0, 0, dSize.width - Self.detailBodyInset, dSize.height - 90))),
                ("position", .point(Point(dSize.width / 2, 70))),
                ("string", .string(Self.detailBody)), ("fontSize", .number(16)),
                ("foregroundColor", .color(Color(0.95, 0.95, 0.97))), ("isWrapped", .bool(true)),
            ])
            named["detailBody"] = body
            b.append(.addExpression(body, key: "reflow.width", expression: ExpressionAnimation(
                keyPath: "bounds.size.width", expression: "detail.bounds.size.width - \(Self.detailBodyInset)",
                layers: ["detail": detail])))
            b.append(.addExpression(body, key: "reflow.x", expression: ExpressionAnimation(
                keyPath: "position.x", expression: "detail.bounds.size.width / 2", layers: ["detail": detail])))
        case .cardStack:
            stackOrder = []
            let colors: [UInt32] = [0xE84A5F, 0xFF847C, 0xFECEA8, 0x99B898]
            for (i, color) in colors.enumerated() {
                let slot = Self.stackSlot(i, canvas)
                let card = b.layer(in: root, GalleryBuilder.box(260, 170, at: slot.center) + [
                    ("backgroundColor", .color(Color(hex6: color))), ("cornerRadius", .number(18)),
                    ("zPosition", .number(Double(colors.count - i))), ("opacity", .number(slot.opacity)),
                ])
                stackOrder.append(card)
                named["card\(i)"] = card
            }
        case .stress:
            let n = stressCount
            let columns = Int(Double(n).squareRoot().rounded(.up))
            let cell = min((w - 40) / Double(columns), (h - 120) / Double(columns))
            for i in 0..<n {
                let x = 20 + (Double(i % columns) + 0.5) * cell, y = 80 + (Double(i / columns) + 0.5) * cell
                let hue = Double(i) / Double(n)
                let l = b.layer(in: root, GalleryBuilder.box(cell * 0.7, cell * 0.7, at: Point(x, y)) + [
                    ("backgroundColor", .color(Color(0.4 + 0.6 * hue, 0.5, 1 - 0.6 * hue))),
                ])
                b.motion(.basic(BasicAnimation(keyPath: "transform", from: .transform(.rotation(0)), to: .transform(.rotation(.pi)),
                                               timing: AnimationTiming(duration: 1 + Double(i % 7) * 0.1, repeatCount: .infinity,
                                                                       autoreverses: true))), to: l, key: "spin")
            }
            named["count"] = b.text("\(n) layers", size: 18, in: root, at: Point(w / 2, 70), width: 300)
        case .parametric:
            for (i, seed) in ParametricSeeds.all.enumerated() {
                let center = Point(w * (0.18 + 0.32 * Double(i % 3)), h * (i < 3 ? 0.35 : 0.72))
                var props = GalleryBuilder.box(seed.size, seed.size, at: center)
                for (k, v) in seed.custom { props.append(("custom.\(k)", .number(v))) }
                props.append(("path", .template(seed.template)))
                props += seed.style
                let l = b.layer(.shape, in: root, props)
                named[seed.name] = l
                for (j, json) in seed.animations.enumerated() {
                    if let op = ParametricSeeds.animation(json, layer: l, key: "\(seed.name)\(j)") {
                        if b.reduceMotion { b.fadeIn(l) } else { b.append(op) }
                    }
                }
            }
        case .maskedAvatar:
            // An avatar (a face on a background) cut by a circular mask layer.
            let s = Self.avatarSize, d = Self.avatarMaskDiameter
            let avatar = b.layer(in: root, GalleryBuilder.box(s, s, at: Self.avatarCenter(canvas)) + [
                ("backgroundColor", .color(Color(hex6: 0x6D9DC5))),
            ])
            _ = b.layer(in: avatar, GalleryBuilder.box(70, 70, at: Point(s / 2, s * 0.4)) + [
                ("backgroundColor", .color(Color(hex6: 0xFECEA8))), ("cornerRadius", .number(35)),
            ])
            _ = b.layer(in: avatar, GalleryBuilder.box(130, 90, at: Point(s / 2, s * 0.95)) + [
                ("backgroundColor", .color(Color(hex6: 0xE84A5F))), ("cornerRadius", .number(45)),
            ])
            let circle = b.detached(GalleryBuilder.box(d, d, at: Point(s / 2, s / 2)) + [
                ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(d / 2)),
            ])
            b.set(avatar, "mask", .number(Double(circle)))
            named["avatar"] = avatar; named["avatarMask"] = circle
            // A card revealed by a growing circle (its mask's scale 0 → 1, repeating).
            let r = Self.revealSize, rd = Self.revealDiameter
            let card = b.layer(in: root, GalleryBuilder.box(r.width, r.height, at: Self.revealCenter(canvas)) + [
                ("backgroundColor", .color(Color(hex6: 0x2A9D8F))), ("cornerRadius", .number(18)),
            ])
            _ = b.text("Revealed", size: 22, in: card, at: Point(r.width / 2, r.height / 2), width: r.width - 20)
            let reveal = b.detached(GalleryBuilder.box(rd, rd, at: Point(r.width / 2, r.height / 2)) + [
                ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(rd / 2)),
            ])
            b.set(card, "mask", .number(Double(reveal)))
            named["reveal"] = card; named["revealMask"] = reveal
            b.motion(.basic(BasicAnimation(keyPath: "transform.scale", from: .double(0), to: .double(1),
                                           timing: AnimationTiming(duration: Self.revealDuration, timingFunction: .easeInEaseOut,
                                                                   repeatCount: .infinity, autoreverses: true))),
                     to: reveal, key: "reveal")
        case .replicatorSpinner:
            // Twelve dots: one dot, replicated and turned 30° each time, fading by 1/12.
            let s = Self.spinnerSize, n = Self.spinnerCount
            let spinner = b.layer(.replicator, in: root, GalleryBuilder.box(s, s, at: Self.spinnerCenter(canvas)) + [
                ("instanceCount", .number(Double(n))), ("instanceTransform", .transform(.rotation(2 * .pi / Double(n)))),
                ("instanceAlphaOffset", .number(-1 / Double(n))),
            ])
            named["spinner"] = spinner
            named["dot"] = b.layer(in: spinner, GalleryBuilder.box(Self.dotSize, Self.dotSize, at: Point(s / 2, s / 2 - Self.dotRadius)) + [
                ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(Self.dotSize / 2)),
            ])
            b.motion(.basic(BasicAnimation(keyPath: "transform.rotation.z", from: .double(0), to: .double(2 * .pi),
                                           timing: AnimationTiming(duration: Self.spinnerTurn, repeatCount: .infinity))),
                     to: spinner, key: "spin")
            // A grid: a replicator of columns holding a replicator of rows; colors shift per instance.
            let o = Self.gridOrigin(canvas), p = Self.gridPitch, cell = Self.gridCell
            let columns = b.layer(.replicator, in: root, [
                ("bounds", .rect(Rect(0, 0, cell, cell))), ("anchorPoint", .point(Point(0, 0))), ("position", .point(o)),
                ("instanceCount", .number(Double(Self.gridColumns))), ("instanceTransform", .transform(.translation(p, 0))),
                ("instanceRedOffset", .number(-0.15)),
            ])
            let rowsLayer = b.layer(.replicator, in: columns, [
                ("bounds", .rect(Rect(0, 0, cell, cell))), ("anchorPoint", .point(Point(0, 0))), ("position", .point(Point(0, 0))),
                ("instanceCount", .number(Double(Self.gridRows))), ("instanceTransform", .transform(.translation(0, p))),
                ("instanceGreenOffset", .number(-0.18)),
            ])
            named["grid"] = columns; named["gridRows"] = rowsLayer
            named["cell"] = b.layer(in: rowsLayer, GalleryBuilder.box(cell, cell, at: Point(cell / 2, cell / 2)) + [
                ("backgroundColor", .color(Color(1, 1, 0.6))), ("cornerRadius", .number(6)),
            ])
            // A wave through the grid: each cell pulses, later by instanceDelay along the rows and
            // the columns (the cell's centre stays covered at the smallest scale).
            b.set(columns, "instanceDelay", .number(0.11))
            b.set(rowsLayer, "instanceDelay", .number(0.07))
            b.motion(.basic(BasicAnimation(keyPath: "transform.scale", from: .double(1), to: .double(0.6),
                                           timing: AnimationTiming(duration: 0.9, timingFunction: .easeInEaseOut,
                                                                   repeatCount: .infinity, autoreverses: true))),
                     to: named["cell"]!, key: "wave")
        case .scrubbing:
            // A frozen subtree (speed 0) whose timeOffset ↑ / ↓ move: a ball crossing and a
            // square turning, both linear over 2 s. The user moves them, so Reduce Motion keeps them.
            let clip = b.layer(in: root, GalleryBuilder.box(600, 160, at: Self.clipCenter(canvas)) + [
                ("backgroundColor", .color(Color(0.2, 0.22, 0.3))), ("cornerRadius", .number(14)),
                ("speed", .number(0)), ("timeOffset", .number(0)),
            ])
            named["clip"] = clip
            let ball = b.layer(in: clip, GalleryBuilder.box(50, 50, at: Point(Self.ballFrom, 50)) + [
                ("backgroundColor", .color(Color(hex6: 0xFFD24A))), ("cornerRadius", .number(25)),
            ])
            let square = b.layer(in: clip, GalleryBuilder.box(40, 40, at: Point(300, 115)) + [
                ("backgroundColor", .color(Color(hex6: 0x4AD9FF))),
            ])
            named["ball"] = ball; named["square"] = square
            let timing = AnimationTiming(duration: Self.scrubLength, timingFunction: .linear, fillMode: .both, removedOnCompletion: false)
            b.add(.basic(BasicAnimation(keyPath: "position.x", from: .double(Self.ballFrom), to: .double(Self.ballTo), timing: timing)),
                  to: ball, key: "cross")
            b.add(.basic(BasicAnimation(keyPath: "transform.rotation.z", from: .double(0), to: .double(.pi), timing: timing)),
                  to: square, key: "turn")
            let track = Self.thumbCenter(Self.scrubLength / 2, canvas)
            _ = b.layer(in: root, GalleryBuilder.box(600, 4, at: track) + [("backgroundColor", .color(Color(1, 1, 1, 0.25)))])
            named["thumb"] = b.layer(in: root, GalleryBuilder.box(18, 18, at: Self.thumbCenter(0, canvas)) + [
                ("backgroundColor", .color(Color(1, 1, 1))), ("cornerRadius", .number(9)),
            ])
        case .blendAndFilters:
            named["photo"] = Self.photo(at: Self.photoCenter(canvas), scale: 1, blends: true, in: root, [], &b)
            named["blurred"] = Self.photo(at: Self.blurredCenter(canvas), scale: Self.copyScale, blends: false, in: root,
                                          [("filters", .filters([.gaussianBlur(Self.blurRadius)]))], &b)
            named["gray"] = Self.photo(at: Self.grayCenter(canvas), scale: Self.copyScale, blends: false, in: root,
                                       [("filters", .filters([LayerFilter(kind: .grayscale, amount: 1)]))], &b)
            for (i, blend) in Self.blends.enumerated() {
                let c = Self.photoCenter(canvas), sz = Self.photoSize
                _ = b.text(String(blend.mode.dropLast("BlendMode".count)), size: 13, in: root,
                           at: Point(c.x - sz.width / 2 + Self.blendCenter(i).x, c.y + sz.height / 2 + 16), width: 68)
            }
        case .transitions:
            rows = []; rowCount = 0
            let list = b.layer(in: root, GalleryBuilder.box(320, 330, at: Point(w * 0.4, h * 0.52)) + [
                ("backgroundColor", .color(Color(0.2, 0.22, 0.3))), ("cornerRadius", .number(14)), ("masksToBounds", .bool(true)),
            ])
            named["list"] = list
            for k in 0..<3 {
                let row = Self.makeRow(k, slot: k, &b)
                b.append(.addSublayer(parent: list, child: row))
                rows.append(row); named["row\(k)"] = row
            }
            rowCount = 3
            let add = b.layer(in: root, GalleryBuilder.box(64, 64, at: Point(w * 0.8, h * 0.52)) + [
                ("backgroundColor", .color(Color(hex6: 0x4AD9FF))), ("cornerRadius", .number(32)),
            ])
            named["add"] = add
            _ = b.text("+", size: 36, in: add, at: Point(32, 32), width: 60, color: Color(0.08, 0.1, 0.14))
        case .frostedGlass:
            Self.buildFrostedGlass(root, canvas, &named, &b)
        }
    }

    /// The frosted sheet's frame and the moving blobs beneath it (frostedGlass).
    public static func sheetFrame(_ c: Size) -> (size: Size, center: Point) {
        (Size(c.width * 0.6, 150), Point(c.width / 2, c.height * 0.55))
    }
    public static let blobColors: [UInt32] = [0xFF3B30, 0xFFCC00, 0x34C759, 0x007AFF, 0xAF52DE, 0xFF9500]
    public static let sheetBlur = 14.0

    /// Blobs crossing back and forth under the sheet, and the sheet: a rounded translucent
    /// panel whose backdrop is blurred and saturated, with a label on it.
    static func buildFrostedGlass(_ root: UInt32, _ canvas: Size, _ named: inout [String: UInt32],
                                  _ b: inout GalleryBuilder) {
        let (sheet, center) = sheetFrame(canvas)
        for (i, hex) in blobColors.enumerated() {
            let y = center.y - 90 + Double(i) * 36
            let x0 = canvas.width * 0.15, x1 = canvas.width * 0.85
            let blob = b.layer(in: root, GalleryBuilder.box(70, 70, at: Point(i % 2 == 0 ? x0 : x1, y)) + [
                ("backgroundColor", .color(Color(hex6: hex))), ("cornerRadius", .number(35)),
            ])
            named["blob\(i)"] = blob
            b.motion(.basic(BasicAnimation(keyPath: "position.x", from: .double(i % 2 == 0 ? x0 : x1),
                                           to: .double(i % 2 == 0 ? x1 : x0),
                                           timing: AnimationTiming(duration: 2.4 + 0.4 * Double(i), timingFunction: .easeInEaseOut,
                                                                   repeatCount: .infinity, autoreverses: true))),
                     to: blob, key: "cross")
        }
        let glass = b.layer(in: root, GalleryBuilder.box(sheet.width, sheet.height, at: center) + [
            ("backgroundColor", .color(Color(1, 1, 1, 0.22))), ("cornerRadius", .number(22)),
            ("borderWidth", .number(1)), ("borderColor", .color(Color(1, 1, 1, 0.4))),
            ("backgroundFilters", .filters([.gaussianBlur(sheetBlur, name: "blur"),
                                            LayerFilter(kind: .saturate, amount: 1.6)])),
        ])
        named["sheet"] = glass
        _ = b.text("Frosted glass", size: 24, in: glass, at: Point(sheet.width / 2, sheet.height / 2), width: sheet.width - 40)
    }

    static func starPoints(center c: Point, outer: Double, inner: Double) -> [Point] {
        (0..<10).map { i in
            let a = Double(i) * .pi / 5 - .pi / 2, r = i % 2 == 0 ? outer : inner
            return Point(c.x + r * cos(a), c.y + r * sin(a))
        }
    }
}

