import Foundation
import LaminaAnimation
import LaminaGallery
import LaminaGeometry
import LaminaServer
import LaminaWire
import Testing
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
        static func request(_ op: LayerChange) -> Request {
            switch op {
            case .create(let id, let kind): .createLayer(id: id, kind: kind)
            case .delete(let id): .deleteLayer(id: id)
            case .set(let id, let k, let v): .setProperty(id: id, keyPath: k, value: v)
            case .addSublayer(let p, let c): .addSublayer(parent: p, child: c)
            case .insertSublayer(let p, let c, let i): .insertSublayer(parent: p, child: c, index: i)
            case .removeFromSuperlayer(let id): .removeFromSuperlayer(id: id)
            case .setTransaction(let s): .setTransaction(s)
            case .addAnimation(let id, let key, let a): .addAnimation(id: id, key: key, json: AnimationJSON.encode(a).text)
            case .addExpression(let id, let key, let e): .addAnimation(id: id, key: key, json: ExpressionJSON.encode(e).text)
            case .removeAnimation(let id, let key): .removeAnimation(id: id, key: key)
            case .removeAllAnimations(let id): .removeAllAnimations(id: id)
            case .completion(let id): .completion(id: id)
            case .setTransitions(let id, let t): .setTransitions(id: id, json: TransitionJSON.encode(t).text)
            case .match(let from, let to): .match(from: from, to: to)
            }
        }
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
            // The client's container, the page's layers, nothing else.
            #expect(f.d.core.model.count == 1 + 1 + f.gallery.pageLayers.count)
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

    @Test func cardExpandsIntoTheDetailFrameAndBack() {
        let f = Fixture(.expandingCard)
        let (small, smallCenter, _) = Gallery.cardFrame(Self.canvas)
        let (big, bigCenter, bigRadius) = Gallery.detailFrame(Self.canvas)
        f.apply(f.gallery.click(f.gallery.named["card"]!))
        // Implicit animations from the card's frame: at the commit it is still the card.
        #expect(f.value("card", "bounds") == .rect(Rect(0, 0, small.width, small.height)))
        #expect(f.value("card", "position") == .point(smallCenter))
        f.at(0.2)
        if case .rect(let r)? = f.value("card", "bounds") { #expect(r.size.width > small.width && r.size.width < big.width + 40) }
        f.at(3)
        #expect(f.value("card", "bounds") == .rect(Rect(0, 0, big.width, big.height)))
        #expect(f.value("card", "position") == .point(bigCenter))
        #expect(f.number("card", "cornerRadius") == bigRadius)
        f.apply(f.gallery.click(f.gallery.named["card"]!))
        f.at(6)
        #expect(f.value("card", "bounds") == .rect(Rect(0, 0, small.width, small.height)))
        // Reduce Motion: the detail frame at once, fading in.
        let r = Fixture(.expandingCard, reduceMotion: true)
        r.apply(r.gallery.click(r.gallery.named["card"]!))
        #expect(r.value("card", "bounds") == .rect(Rect(0, 0, big.width, big.height)))
        #expect(r.number("card", "opacity") == 0)
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

    @Test func arrowKeysSwitchPagesAndRemoveTheOldOne() {
        let f = Fixture(.progressRing)
        let ring = f.gallery.named["ring"]!
        f.apply(f.gallery.key(KeyCode.right))
        #expect(f.gallery.page == .springs)
        #expect(f.d.core.model.count == 2 + f.gallery.pageLayers.count)
        guard case .error(_, let code, _, _) = f.d.request(.getPresentation(id: ring, keyPath: "opacity"), from: f.client) else {
            Issue.record("the old page's ring is still there"); return
        }
        #expect(code == .unknownLayer)
        f.apply(f.gallery.key(KeyCode.left))
        f.apply(f.gallery.key(KeyCode.left))
        #expect(f.gallery.page == .parametric)
        // Reduce Motion rebuilds the page.
        f.apply(f.gallery.setReduceMotion(true))
        #expect(f.number("arc", "custom.endAngle") == 1.5)   // its model value: no sweep
    }
}
