import Foundation
import Lamina
import LaminaAnimation
import LaminaGallery
import LaminaGeometry
import LaminaPNG
import LaminaRender
import LaminaServer
import LaminaText
import LaminaWire
import Testing
import TestSupport
import LaminaModel

/// lamina-demo's gallery through the embedded daemon (manual clock): every page builds
/// without error, and its presentation values at a few times are what the page says —
/// worked out here from the page's description, not read back from the library.
@Suite struct GalleryTests {
    static let canvas = Size(800, 600)

    /// A daemon with one client showing `page`; the commit's reply is checked.
    final class Fixture {
        let d = EmbeddedDaemon { $0.width = 800; $0.height = 600; $0.maxMessageSize = 1 << 20 }
        let client: UInt32
        var gallery: Gallery
        init(_ page: Gallery.Page, reduceMotion: Bool = false) {
            client = d.connect(name: "gallery")!
            gallery = Gallery(canvas: GalleryTests.canvas, reduceMotion: reduceMotion)
            apply(gallery.show(page))
        }
        /// Commits the operations as lamina-demo's connection sends them.
        func apply(_ ops: [LayerChange]) {
            guard !ops.isEmpty else { return }
            let reply = d.commit(ops.map(Self.request), from: client)
            guard case .committed = reply else { Issue.record("commit failed: \(reply)"); return }
        }
        /// The request the client library stages for the operation.
        static func request(_ op: LayerChange) -> Request { Connection.request(for: op) }
        /// Sets the manual clock to `t` seconds after the first commit (time 0).
        func at(_ t: Double) {
            let dt = t - d.clock.now
            if dt > 0 { _ = d.request(.advanceClock(seconds: dt), from: client) }
        }
        func value(_ name: String, _ keyPath: String) -> PropertyValue? {
            guard let id = gallery.named[name] else { Issue.record("no layer \(name)"); return nil }
            guard case .presentation(let v) = d.request(.getPresentation(id: id, keyPath: keyPath), from: client) else { return nil }
            return v
        }
        func number(_ name: String, _ keyPath: String) -> Double {
            if case .number(let x)? = value(name, keyPath) { return x }
            Issue.record("\(name).\(keyPath) is not a number: \(String(describing: value(name, keyPath)))")
            return .nan
        }
        func transform(_ name: String) -> Transform3D? {
            if case .transform(let t)? = value(name, "transform") { return t }
            return nil
        }
    }

    /// The cubic Bézier timing curve (x1, y1, x2, y2) at progress x, by bisection on x(s).
    static func bezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, at x: Double) -> Double {
        func c(_ a: Double, _ b: Double, _ s: Double) -> Double { 3 * (1 - s) * (1 - s) * s * a + 3 * (1 - s) * s * s * b + s * s * s }
        var lo = 0.0, hi = 1.0
        for _ in 0..<80 { let m = (lo + hi) / 2; if c(x1, x2, m) < x { lo = m } else { hi = m } }
        return c(y1, y2, (lo + hi) / 2)
    }

    @Test(arguments: Gallery.Page.allCases) func everyPageBuildsWithItsTitle(_ page: Gallery.Page) {
        for reduceMotion in [false, true] {
            let f = Fixture(page, reduceMotion: reduceMotion)
            #expect(f.value("title", "string") == .text(StyledText(page.title)) || f.value("title", "string") == .string(page.title))
            // The client's container, the stage, the page's layers, nothing else.
            #expect(f.d.core.model.count == 1 + 1 + 1 + f.gallery.pageLayers.count)
            f.at(0.5)
            f.at(2)
        }
    }

    @Test func progressRingFillsWithEaseOutIn0_6s() {
        let f = Fixture(.progressRing)
        #expect(f.number("ring", "strokeEnd") == 0)
        f.at(0.3)
        #expect(abs(f.number("ring", "strokeEnd") - Self.bezier(0, 0, 0.58, 1, at: 0.5)) < 1e-6)
        f.at(0.6)
        #expect(f.number("ring", "strokeEnd") == 1)
        // Reduce Motion: full at once, fading in over 150 ms.
        let r = Fixture(.progressRing, reduceMotion: true)
        #expect(r.number("ring", "strokeEnd") == 1)
        r.at(0.075)
        #expect(abs(r.number("ring", "opacity") - 0.5) < 1e-9)
        r.at(0.15)
        #expect(r.number("ring", "opacity") == 1)
    }

    @Test func springsStartTogetherAndArrive() {
        let f = Fixture(.springs)
        for name in ["smooth", "snappy", "bouncy"] { #expect(f.number(name, "position.x") == 200) }
        f.at(0.15)
        let x = ["smooth", "snappy", "bouncy"].map { f.number($0, "position.x") }
        #expect(Set(x).count == 3)          // three different springs
        #expect(x.allSatisfy { $0 > 200 })
        f.at(1.6)                            // the end of the first leg (duration 1.6, autoreverses)
        for name in ["smooth", "snappy", "bouncy"] { #expect(abs(f.number(name, "position.x") - 600) < 3) }
    }

    @Test func shakeDecaysThroughItsKeyframes() {
        let f = Fixture(.shake)
        // Eight values, evenly spaced over 0.8 s (linear calculation mode).
        let step = Gallery.shakeDuration / 7
        for k in [1, 2, 3, 6] {
            f.at(Double(k) * step)
            #expect(abs(f.number("field", "position.x") - (400 + Gallery.shakeOffsets[k])) < 1e-6)
        }
        #expect(Gallery.shakeOffsets.dropFirst().map(abs).elementsEqual([40, 32, 24, 16, 8, 4, 0]))
    }

    @Test func pulseStepsThroughItsPhasesAndRepeats() {
        let f = Fixture(.pulse)
        #expect(f.transform("button")?.m11 == 1)
        f.at(0.3)    // the transition into phase 2 takes its 0.3 s
        #expect(abs((f.transform("button")?.m11 ?? 0) - 1.12) < 1e-9)
        #expect(abs(f.number("button", "opacity") - 0.85) < 1e-9)
        f.at(0.8)    // + 0.5 s into phase 3
        #expect(abs((f.transform("button")?.m11 ?? 0) - 0.97) < 0.02)   // a bouncy spring's 0.5 s
        f.at(1.2)    // + 0.4 s back to phase 1: one cycle; it repeats
        #expect(abs((f.transform("button")?.m11 ?? 0) - 1) < 1e-9)
        f.at(1.5)
        #expect(abs((f.transform("button")?.m11 ?? 0) - 1.12) < 1e-9)
    }

    @Test func celebrationPopsTurnsAndFadesIn() {
        let f = Fixture(.celebration)
        #expect(abs((f.transform("burst")?.m11 ?? 0) - 0.2) < 1e-9)
        #expect(f.number("star", "opacity") == 0)
        f.at(0.2)
        #expect(abs(f.number("star", "opacity") - 1) < 1e-9)
        f.at(0.25)   // the linear keyframe's end: turned 0.6 rad
        let t = f.transform("star")
        #expect(abs((t?.m11 ?? 0) - cos(0.6)) < 1e-9 && abs((t?.m12 ?? 0) - sin(0.6)) < 1e-9)
        f.at(0.6)    // the cubic keyframe's end: −0.4 rad
        #expect(abs((f.transform("star")?.m12 ?? 0) - sin(-0.4)) < 1e-9)
        f.at(4)
        #expect(abs((f.transform("burst")?.m11 ?? 0) - 1) < 1e-3)
    }

    /// The celebration's confetti: an emitter behind the star whose four cells (30 a second
    /// each, 0.6 s from the page's time) have thrown 4 × (⌊0.5 × 30⌋ + 1) = 64 papers at 0.5 s,
    /// all still living (lifetimes ≥ 2.5 s); with Reduce Motion none is born.
    @Test func celebrationThrowsConfettiUnlessReduceMotion() {
        let f = Fixture(.celebration), still = Fixture(.celebration, reduceMotion: true)
        #expect(f.value("confetti", "emitterCells") == .emitterCells(Gallery.confettiCells))
        #expect(f.number("confetti", "birthRate") == 1 && still.number("confetti", "birthRate") == 0)
        f.at(0.5); still.at(0.5)
        let rects = { (x: Fixture) in x.d.drawList().items.filter { if case .rect = $0.kind { true } else { false } }.count }
        #expect(rects(f) - rects(still) == 64)
        // The star is still what a click finds (the emitter is behind it).
        let star = f.gallery.named["star"]!
        guard case .hitResult(_, let hit) = f.d.request(.hitTest(x: 400, y: 300), from: f.client) else {
            Issue.record("no hit test answer"); return
        }
        #expect(hit == star || hit == f.gallery.named["burst"]!, "hit \(hit)")
    }

    @Test func cardMatchesIntoTheDetailViewAndBack() {
        let f = Fixture(.expandingCard)
        let (small, smallCenter, smallRadius) = Gallery.cardFrame(Self.canvas)
        let (big, bigCenter, bigRadius) = Gallery.detailFrame(Self.canvas)
        #expect(f.number("detail", "opacity") == 0)
        f.apply(f.gallery.click(f.gallery.named["card"]!))
        // Matched geometry: the detail view starts at the card's frame, transparent.
        #expect(f.value("detail", "bounds") == .rect(Rect(0, 0, small.width, small.height)))
        #expect(f.value("detail", "position") == .point(smallCenter))
        #expect(f.number("detail", "cornerRadius") == smallRadius)
        #expect(f.number("detail", "opacity") == 0)
        // The body text wraps at the detail's width less 40 and stays centred in it, at every
        // time of the match (its expressions read the detail's presentation bounds).
        func bodyFollowsTheDetail(_ width: Double, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(abs(f.number("detailBody", "bounds.size.width") - (width - 40)) < 1e-9, sourceLocation: sourceLocation)
            #expect(abs(f.number("detailBody", "position.x") - width / 2) < 1e-9, sourceLocation: sourceLocation)
        }
        bodyFollowsTheDetail(small.width)
        f.at(0.12)
        let midWidth = f.number("detail", "bounds.size.width")
        #expect(midWidth > small.width + 10 && midWidth < big.width - 10, "mid-flight: \(midWidth)")
        bodyFollowsTheDetail(midWidth)
        // So its lines reflow: laid out as a text layer lays it out (16 points, wrapped), the
        // paragraph takes more lines in the card's width than in the detail's.
        let engine = TextLayoutEngine()
        func height(_ width: Double) -> Double {
            engine.measure(AttributedText(runs: [TextRun(Gallery.detailBody)]), style: TextStyle(fontSize: 16, isWrapped: true),
                           width: width).height
        }
        #expect(height(small.width - 40) > height(big.width - 40) * 1.5)
        f.at(3)
        bodyFollowsTheDetail(big.width)
        #expect(f.value("detail", "bounds") == .rect(Rect(0, 0, big.width, big.height)))
        #expect(f.value("detail", "position") == .point(bigCenter))
        #expect(f.number("detail", "cornerRadius") == bigRadius)
        #expect(f.number("detail", "opacity") == 1)
        // The card went to the detail's frame and faded out, and stays so.
        #expect(f.value("card", "position") == .point(bigCenter))
        #expect(f.number("card", "opacity") == 0)
        // A click on the detail matches back into the card.
        f.apply(f.gallery.click(f.gallery.named["detail"]!))
        #expect(f.value("card", "position") == .point(bigCenter))
        f.at(6)
        #expect(f.value("card", "bounds") == .rect(Rect(0, 0, small.width, small.height)))
        #expect(f.value("card", "position") == .point(smallCenter))
        #expect(f.number("card", "opacity") == 1)
        #expect(f.number("detail", "opacity") == 0)
        // Reduce Motion: the detail view at once, in its own frame, fading in.
        let r = Fixture(.expandingCard, reduceMotion: true)
        r.apply(r.gallery.click(r.gallery.named["card"]!))
        #expect(r.value("detail", "bounds") == .rect(Rect(0, 0, big.width, big.height)))
        #expect(r.number("detail", "opacity") == 0)
        #expect(r.number("card", "opacity") == 0)
        r.at(0.15)
        #expect(r.number("detail", "opacity") == 1)
    }

    @Test func cardStackSendsTheFrontCardBack() {
        let f = Fixture(.cardStack)
        let front = f.gallery.named["card0"]!
        #expect(f.number("card0", "zPosition") == 4)
        f.apply(f.gallery.click(front))
        #expect(f.value("card0", "position") == .point(Gallery.stackSlot(0, Self.canvas).center))   // animating from there
        f.at(0.35)
        #expect(f.value("card0", "position") == .point(Gallery.stackSlot(3, Self.canvas).center))
        #expect(f.value("card1", "position") == .point(Gallery.stackSlot(0, Self.canvas).center))
        #expect(f.number("card0", "zPosition") == 1 && f.number("card1", "zPosition") == 4)
        #expect(abs(f.number("card0", "opacity") - 0.55) < 1e-9)
        // A click elsewhere changes nothing.
        #expect(f.gallery.click(f.gallery.named["title"]!).isEmpty)
    }

    @Test func stressPageCountFollowsPlusAndMinus() {
        let f = Fixture(.stress)
        let base = f.d.core.model.count
        f.apply(f.gallery.key(KeyCode.equal))          // + doubles: 200 → 400
        #expect(f.gallery.stressCount == 400)
        #expect(f.d.core.model.count == base + 200)
        f.apply(f.gallery.key(KeyCode.keypadSubtract)) // − halves
        f.apply(f.gallery.key(KeyCode.minus))
        #expect(f.gallery.stressCount == 100)
        #expect(f.d.core.model.count == base - 100)
        #expect(f.value("count", "string") == .string("100 layers") || f.value("count", "string") == .text(StyledText("100 layers")))
    }

    @Test func parametricSeedsAnimateTheirInputs() {
        let f = Fixture(.parametric)
        // examples/parametric.json: arc endAngle 0.5 → 6 easeInEaseOut 2 s; polygon sides 3 → 9 linear 3 s.
        #expect(f.number("arc", "custom.endAngle") == 0.5)
        #expect(f.number("polygon", "custom.sides") == 3)
        f.at(1.5)
        #expect(abs(f.number("polygon", "custom.sides") - 6) < 1e-9)
        #expect(abs(f.number("arc", "custom.endAngle") - (0.5 + 5.5 * Self.bezier(0.42, 0, 0.58, 1, at: 0.75))) < 1e-6)
        f.at(2)
        #expect(abs(f.number("arc", "custom.endAngle") - 6) < 1e-9)
        for name in ["trapezoid", "wave", "flower"] { #expect(f.gallery.named[name] != nil) }
    }

    /// The arrow keys switch pages with a CATransition push on the stage (from the right
    /// going forward, from the left going back); the old page is pushed out from a snapshot.
    @Test func arrowKeysPushThePages() throws {
        let f = Fixture(.progressRing)
        let stage = LayerID(client: f.client, local: try #require(f.gallery.stage))
        f.apply(f.gallery.key(KeyCode.right))
        f.at(0.1)
        let forward = try #require(f.d.driver.tree.contentTransitions[stage])
        #expect(forward.transition == ContentTransition(type: .push, subtype: .fromRight,
                                                       duration: Gallery.pageTransitionDuration, timingFunction: .easeInEaseOut))
        #expect(forward.ghost != nil)
        f.at(1)
        #expect(f.d.driver.tree.contentTransitions.isEmpty)
        f.apply(f.gallery.key(KeyCode.left))
        f.at(1.1)
        #expect(f.d.driver.tree.contentTransitions[stage]?.transition.subtype == .fromLeft)
    }

    @Test func arrowKeysSwitchPagesAndRemoveTheOldOne() {
        let f = Fixture(.progressRing)
        let ring = f.gallery.named["ring"]!
        f.apply(f.gallery.key(KeyCode.right))
        #expect(f.gallery.page == .springs)
        #expect(f.d.core.model.count == 3 + f.gallery.pageLayers.count)
        guard case .error(_, let code, _, _) = f.d.request(.getPresentation(id: ring, keyPath: "opacity"), from: f.client) else {
            Issue.record("the old page's ring is still there"); return
        }
        #expect(code == .unknownLayer)
        f.apply(f.gallery.key(KeyCode.left))
        f.apply(f.gallery.key(KeyCode.left))
        #expect(f.gallery.page == Gallery.Page.allCases.last)   // wrapped around
        f.apply(f.gallery.show(.parametric))
        // Reduce Motion rebuilds the page.
        f.apply(f.gallery.setReduceMotion(true))
        #expect(f.number("arc", "custom.endAngle") == 1.5)   // its model value: no sweep
    }

    // MARK: Masks, replicators, transitions

    /// The embedded daemon's frame at its clock's time, drawn through Vulkan (lavapipe).
    static func render(_ f: Fixture) throws -> RGBAImage {
        let list = f.d.drawList()
        let renderer = try OffscreenRenderer(width: list.width, height: list.height)
        try renderer.render(list)
        return RGBAImage(width: list.width, height: list.height, pixels: try renderer.readPixels(alpha: .straight))
    }
    /// The pages' background, #151922.
    static let background = RGBA(0x15, 0x19, 0x22)
    /// `color` at `alpha` over the background (8-bit, rounded).
    static func over(_ c: (Double, Double, Double), _ alpha: Double) -> RGBA {
        func ch(_ v: Double, _ b: Int) -> Int { Int((v * 255 * alpha + Double(b) * (1 - alpha)).rounded()) }
        return RGBA(ch(c.0, 0x15), ch(c.1, 0x19), ch(c.2, 0x22))
    }

    @Test func masksCutTheAvatarAndRevealTheCard() throws {
        let f = Fixture(.maskedAvatar)
        // The mask layers are detached: no superlayer, but the masked layers name them.
        #expect(f.value("avatar", "mask") == .number(Double(f.gallery.named["avatarMask"]!)))
        #expect(f.number("revealMask", "transform.scale") == 0)
        let c = Gallery.avatarCenter(Self.canvas), r = Gallery.avatarMaskDiameter / 2
        // (−r, −r) from the centre: inside the avatar's square, outside its circle (r√2 > r).
        let corner = (Int(c.x - r), Int(c.y - r))
        // (−0.875 r, 0) from the centre: inside the circle, on the avatar's own background.
        let inside = (Int(c.x - r * 0.875), Int(c.y))
        let rc = Gallery.revealCenter(Self.canvas), rs = Gallery.revealSize
        let cardPixel = (Int(rc.x - rs.width / 2 + 10), Int(rc.y - rs.height / 2 + 10))   // inside the rounded card
        let teal = RGBA(0x2A, 0x9D, 0x8F)
        var image = try Self.render(f)
        expectPixel(image, corner.0, corner.1, Self.background, tolerance: 2, "masked-out avatar corner")
        expectPixel(image, inside.0, inside.1, RGBA(0x6D, 0x9D, 0xC5), tolerance: 2, "avatar inside its mask")
        expectPixel(image, cardPixel.0, cardPixel.1, Self.background, tolerance: 2, "the reveal's mask at scale 0")
        // At 1.2 s the reveal circle (diameter 290 > the card's diagonal, 288.4) covers the card.
        f.at(Gallery.revealDuration)
        #expect(f.number("revealMask", "transform.scale") == 1)
        image = try Self.render(f)
        expectPixel(image, cardPixel.0, cardPixel.1, teal, tolerance: 2, "revealed card")
        expectPixel(image, corner.0, corner.1, Self.background, tolerance: 2)
    }

    @Test func spinnerDotsSitAtTheirTurnsAndFade() throws {
        let f = Fixture(.replicatorSpinner)
        let s = Gallery.spinnerCenter(Self.canvas), d = Gallery.dotRadius
        // Instance k is the dot turned k × 30° about the replicator's centre, alpha 1 − k/12:
        // k = 0 above the centre (white), k = 6 below it (half white), k = 3 at 90° (3/4 white).
        var image = try Self.render(f)
        expectPixel(image, Int(s.x), Int(s.y - d), Self.over((1, 1, 1), 1), tolerance: 2, "instance 0")
        expectPixel(image, Int(s.x), Int(s.y + d), Self.over((1, 1, 1), 0.5), tolerance: 2, "instance 6")
        expectPixel(image, Int(s.x + d), Int(s.y), Self.over((1, 1, 1), 0.75), tolerance: 2, "instance 3 (clockwise, y down)")
        expectPixel(image, Int(s.x - d), Int(s.y), Self.over((1, 1, 1), 0.25), tolerance: 2, "instance 9")
        expectPixel(image, Int(s.x), Int(s.y), Self.background, tolerance: 2, "the centre")
        // Grid cell (column 2, row 3): colour (1, 1, 0.6) × (1 − 2·0.15, 1 − 3·0.18, 1).
        let o = Gallery.gridOrigin(Self.canvas), p = Gallery.gridPitch, half = Gallery.gridCell / 2
        expectPixel(image, Int(o.x + 2 * p + half), Int(o.y + 3 * p + half), Self.over((0.7, 0.46, 0.6), 1), tolerance: 2, "grid cell (2, 3)")
        expectPixel(image, Int(o.x + 5 * p + half), Int(o.y + 4 * p + half), Self.over((0.25, 0.28, 0.6), 1), tolerance: 2, "grid cell (5, 4)")
        expectPixel(image, Int(o.x + 6 * p + half), Int(o.y + half), Self.background, tolerance: 2, "past the last column")
        // A quarter turn later (linear 1.2 s per turn) instance 0 is where instance 3 was.
        f.at(Gallery.spinnerTurn / 4)
        #expect(abs(f.number("spinner", "transform.rotation.z") - .pi / 2) < 1e-9)
        image = try Self.render(f)
        expectPixel(image, Int(s.x + d), Int(s.y), Self.over((1, 1, 1), 1), tolerance: 2, "instance 0 turned")
        // The grid's wave: the cell (instance 0 of both replicators) pulses 1 → 0.6 over 0.9 s
        // easeInEaseOut (0.5 at half time, the curve being symmetric); delayed instances follow.
        f.at(0.45)
        #expect(abs(f.number("cell", "transform.scale") - 0.8) < 1e-6)
        // Reduce Motion: no turning, no wave.
        let r = Fixture(.replicatorSpinner, reduceMotion: true)
        r.at(0.3)
        #expect(r.number("spinner", "transform.rotation.z") == 0)
        #expect(r.number("cell", "transform.scale") == 1)
    }

    @Test func rowsSlideInAndMoveOut() {
        let f = Fixture(.transitions)
        #expect(f.gallery.rows.count == 3)
        let add = f.gallery.named["add"]!
        f.apply(f.gallery.click(add))
        #expect(f.gallery.rows.count == 4)
        let row = f.gallery.rows[3], center = Gallery.rowCenter(3)
        // Slide in from the leading edge of the list (bounds 0…320): the row (x 10…310) starts
        // moved by −(10 + 300), and comes in over 0.35 s easeInEaseOut (half way at 0.175 s).
        #expect(f.value("row3", "position") == .point(Point(center.x - 310, center.y)))
        f.at(0.175)
        #expect(abs(f.number("row3", "position.x") - (center.x - 155)) < 1e-6)
        f.at(0.35)
        #expect(f.value("row3", "position") == .point(center))
        // Clicking the first row removes it: it moves out across the trailing edge (by 320 − 10)
        // while fading; the rows below move up.
        let first = f.gallery.rows[0]
        f.apply(f.gallery.click(first))
        #expect(f.gallery.rows.count == 3 && !f.gallery.rows.contains(first) && f.gallery.rows[2] == row)
        f.at(0.35 + 0.175)
        guard case .presentation(.point(let p)) = f.d.request(.getPresentation(id: first, keyPath: "position"), from: f.client) else {
            Issue.record("no presentation for the departing row"); return
        }
        #expect(abs(p.x - (Gallery.rowCenter(0).x + 155)) < 1e-6)
        f.at(0.35 + 0.35)
        #expect(f.value("row2", "position") == .point(Gallery.rowCenter(2)))
        #expect(f.gallery.named["row2"] == row)
        // At most six rows.
        for _ in 0..<5 { f.apply(f.gallery.click(add)) }
        #expect(f.gallery.rows.count == Gallery.maxRows)
        // Reduce Motion: rows fade in where they belong.
        let r = Fixture(.transitions, reduceMotion: true)
        r.apply(r.gallery.click(r.gallery.named["add"]!))
        #expect(r.value("row3", "position") == .point(Gallery.rowCenter(3)))
        r.at(GalleryBuilder.fadeDuration / 2)
        #expect(abs(r.number("row3", "opacity") - 0.5) < 1e-9)
    }

    @Test func arrowsUpAndDownScrubTheFrozenSubtree() {
        let f = Fixture(.scrubbing)
        #expect(f.number("clip", "speed") == 0)
        func ballX(_ t: Double) -> Double { Gallery.ballFrom + (Gallery.ballTo - Gallery.ballFrom) * t / Gallery.scrubLength }
        #expect(f.number("ball", "position.x") == Gallery.ballFrom)
        f.at(1)   // frozen: the clock moves, the animation does not
        #expect(f.number("ball", "position.x") == Gallery.ballFrom)
        for _ in 0..<5 { f.apply(f.gallery.key(KeyCode.up)) }
        #expect(abs(f.gallery.scrubTime - 0.5) < 1e-12)
        #expect(abs(f.number("ball", "position.x") - ballX(0.5)) < 1e-6)
        #expect(abs(f.number("square", "transform.rotation.z") - .pi / 4) < 1e-9)
        #expect(f.value("thumb", "position") == .point(Gallery.thumbCenter(0.5, Self.canvas)))
        f.at(2)
        #expect(abs(f.number("ball", "position.x") - ballX(0.5)) < 1e-6)
        f.apply(f.gallery.key(KeyCode.down))
        #expect(abs(f.number("ball", "position.x") - ballX(0.4)) < 1e-6)
        // Clamped to 0…2 s.
        for _ in 0..<30 { f.apply(f.gallery.key(KeyCode.up)) }
        #expect(f.gallery.scrubTime == Gallery.scrubLength)
        #expect(abs(f.number("ball", "position.x") - Gallery.ballTo) < 1e-6)
        for _ in 0..<30 { f.apply(f.gallery.key(KeyCode.down)) }
        #expect(f.gallery.scrubTime == 0)
        // The animations outlive their end (not removed on completion): scrubbing back works.
        f.apply(f.gallery.key(KeyCode.up))
        #expect(abs(f.number("ball", "position.x") - ballX(0.1)) < 1e-6)
        // ↑ elsewhere does nothing.
        f.apply(f.gallery.show(.springs))
        #expect(f.gallery.key(KeyCode.up).isEmpty)
    }

    @Test func theFrostedSheetBlursWhatMovesBeneathIt() throws {
        let f = Fixture(.frostedGlass)
        guard case .filters(let list)? = f.value("sheet", "backgroundFilters") else { Issue.record("no filters"); return }
        #expect(list.first?.radius == Gallery.sheetBlur && list.count == 2)
        let (size, c) = Gallery.sheetFrame(Self.canvas)
        let before = try Self.render(f)
        let x0 = f.number("blob0", "position.x")
        f.at(1)
        #expect(abs(f.number("blob0", "position.x") - x0) > 10, "the blobs move")
        let after = try Self.render(f)
        // Live: the sheet's inside changed with what moved beneath it, and no pixel there is a
        // blob's own colour (everything under the sheet is blurred and tinted).
        var changed = 0, sharp = 0
        // The blobs' colours as sRGB bytes.
        let blobs: [(Int, Int, Int)] = Gallery.blobColors.map { (Int($0 >> 16 & 0xFF), Int($0 >> 8 & 0xFF), Int($0 & 0xFF)) }
        for y in stride(from: Int(c.y - size.height / 2) + 24, to: Int(c.y + size.height / 2) - 24, by: 4) {
            for x in stride(from: Int(c.x - size.width / 2) + 24, to: Int(c.x + size.width / 2) - 24, by: 4) {
                let a = before.pixel(x, y), b = after.pixel(x, y)
                if a.r != b.r || a.g != b.g || a.b != b.b { changed += 1 }
                for blob in blobs where abs(b.r - blob.0) < 2 && abs(b.g - blob.1) < 2 && abs(b.b - blob.2) < 2 { sharp += 1 }
            }
        }
        #expect(changed > 20, "\(changed) pixels changed under the sheet")
        #expect(sharp == 0, "\(sharp) pixels show a blob unblurred")
    }

    @Test func blendModesAndFiltersFollowTheirFormulas() throws {
        let f = Fixture(.blendAndFilters)
        let image = try Self.render(f)
        // The blend squares' lower halves lie over the ground, Cb = (0.25, 0.55, 0.35).
        let c = Gallery.photoCenter(Self.canvas), sz = Gallery.photoSize
        let cb = Gallery.groundColor
        func at(_ i: Int) -> (Int, Int) { (Int(c.x - sz.width / 2 + Gallery.blendCenter(i).x), Int(c.y - sz.height / 2 + sz.height * 0.68)) }
        func hardLight(_ s: Double, _ b: Double) -> Double { s <= 0.5 ? 2 * s * b : b + (2 * s - 1) - b * (2 * s - 1) }
        let b = [cb.red, cb.green, cb.blue]
        let expected: [[Double]] = Gallery.blends.map { blend in
            let s = [blend.color.red, blend.color.green, blend.color.blue]
            return (0..<3).map { k in
                switch blend.mode {
                case "multiplyBlendMode": b[k] * s[k]
                case "screenBlendMode": b[k] + s[k] - b[k] * s[k]
                case "overlayBlendMode": hardLight(b[k], s[k])     // overlay(Cb, Cs) = hardLight(Cs ↔ Cb)
                default: abs(b[k] - s[k])
                }
            }
        }
        for (i, e) in expected.enumerated() {
            let (x, y) = at(i)
            expectPixel(image, x, y, Self.over((e[0], e[1], e[2]), 1), tolerance: 2, Gallery.blends[i].mode)
        }
        // The grayscale copy's sun: 0.2126 R + 0.7152 G + 0.0722 B of (1, 0.8, 0.3).
        let sun = Gallery.sunColor, k = Gallery.copyScale, g = Gallery.grayCenter(Self.canvas)
        let y = 0.2126 * sun.red + 0.7152 * sun.green + 0.0722 * sun.blue
        let sunAt = Point(g.x + k * (sz.width * 0.75 - sz.width / 2), g.y + k * (sz.height * 0.28 - sz.height / 2))
        expectPixel(image, Int(sunAt.x), Int(sunAt.y), Self.over((y, y, y), 1), tolerance: 2, "grayscale sun")
        // The blurred copy: its ground's middle stays the ground colour; just outside its left
        // edge the blur spreads the ground: a fraction 1 − Φ(0.5 / σ) ≈ 0.45 for the pixel centre
        // half a point out (σ = 4 at the copy's scale 0.6 would be less: both bounds checked).
        let bc = Gallery.blurredCenter(Self.canvas)
        let groundY = bc.y + k * (sz.height * 0.8 - sz.height / 2)
        expectPixel(image, Int(bc.x), Int(groundY), Self.over((cb.red, cb.green, cb.blue), 1), tolerance: 2, "blurred ground, far from edges")
        let edge = image.pixel(Int(bc.x - k * sz.width / 2) - 1, Int(groundY))
        let frac = Double(edge.g - 0x19) / (255 * cb.green - 0x19)
        #expect(frac > 0.3 && frac < 0.6, "blur spread \(frac) at the left edge")
    }
}
