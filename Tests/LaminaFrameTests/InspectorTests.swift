import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaModel
import LaminaTree
import Testing
import TestSupport

/// The inspector's report (`Inspector.report`): the layer's on-screen quad worked out by hand
/// from its geometry, its name and owner, its presentation values and running animations.
@Suite struct InspectorTests {
    /// P: bounds 100 × 60 at position (110, 70) (its bounds' origin on the canvas at (60, 40));
    /// its sublayer L: bounds 20 × 10 at (20, 15) in P, turned 90° and red, fading in over 2 s
    /// from time 0 (key "fade").
    static func tree() throws -> LayerTree {
        var changes = TestScene.layer(1, frame: Rect(60, 40, 100, 60))
        changes += TestScene.layer(2, parent: 1, frame: Rect(10, 10, 20, 10), [
            ("transform", .transform(.rotation(.pi / 2))), ("backgroundColor", .color(Color(1, 0, 0)))])
        changes.append(.addAnimation(2, key: "fade", animation: .basic(BasicAnimation(
            keyPath: "opacity", from: .double(0), to: .double(1), timing: AnimationTiming(duration: 2)))))
        return try TestScene.tree(changes)
    }

    @Test func theQuadIsTheLayersBoundsOnScreen() throws {
        let render = try Self.tree()
        let presentation = render.presentation(at: 0.5)
        // L's corner c: c − (10, 5) (its anchor) turned by R(u, v) = (−v, u), plus its
        // position (20, 15) in P, plus P's bounds origin on the canvas (60, 40); × scale 2.
        func corner(_ x: Double, _ y: Double) -> Point {
            let u = x - 10, v = y - 5
            return Point((-v + 20 + 60) * 2, (u + 15 + 40) * 2)
        }
        let report = try #require(Inspector.report(TestScene.id(2), in: presentation, render: render, at: 0.5, scale: 2,
                                                   names: [1: Inspector.describe(name: "demo", process: nil)], details: true))
        let quad = try #require(report.quad)
        let expected = [corner(0, 0), corner(20, 0), corner(20, 10), corner(0, 10)]
        #expect(expected == [Point(170, 90), Point(170, 130), Point(150, 130), Point(150, 90)])
        for (q, e) in zip(quad, expected) { #expect(abs(q.x - e.x) < 1e-9 && abs(q.y - e.y) < 1e-9, "\(q) vs \(e)") }
        // The same layer is what hit testing finds at a point of that quad (canvas (80, 55)).
        #expect(presentation.hitTest(Point(80, 55)) == TestScene.id(2))
    }

    @Test func theReportNamesTheLayerAndClientAndListsItsValuesAndAnimations() throws {
        let render = try Self.tree()
        let presentation = render.presentation(at: 0.5)
        let report = try #require(Inspector.report(TestScene.id(2), in: presentation, render: render, at: 0.5, scale: 1,
                                                   names: [1: Inspector.describe(name: "demo", process: nil)], details: true))
        #expect(report.title == "layer 1:2")
        #expect(report.owner == "client 1 “demo”")
        #expect(Inspector.report(TestScene.id(2), in: presentation, at: 0.5, scale: 1, details: false)?.owner == "client 1")
        // Presentation values this frame: opacity is the animation's 0.25 at 0.5 s of 2 s.
        #expect(Array(report.properties.prefix(6)) == [
            "position  (20, 15)", "bounds  (0, 0, 20, 10)", "anchorPoint  (0.5, 0.5)", "zPosition  0",
            "transform  [0 1 -1 0 0 0]", "opacity  0.25"])
        #expect(report.properties.contains("backgroundColor  rgba(1, 0, 0, 1)"))
        #expect(!report.properties.contains { $0.hasPrefix("borderWidth") }, "defaults are left out")
        #expect(report.animations == ["“fade” opacity (double, explicit) active 25 % 0.50/2.00 s"])
        // Without details: the label's part only.
        let brief = try #require(Inspector.report(TestScene.id(2), in: presentation, at: 0.5, scale: 1, details: false))
        #expect(brief.properties.isEmpty && brief.animations.isEmpty && brief.quad != nil)
        // A client's container and an unknown layer have no report.
        #expect(Inspector.report(LayerID.clientRoot(1), in: presentation, at: 0.5, scale: 1, details: true) == nil)
        #expect(Inspector.report(TestScene.id(9), in: presentation, at: 0.5, scale: 1, details: true) == nil)
    }

    @Test func aNamedLayersTitleShowsItsNameBeforeItsKindAndID() throws {
        // CALayer.name: quoted, its first line cut at 40 characters, then the kind and id.
        let long = String(repeating: "n", count: 41)
        var changes = TestScene.layer(1, frame: Rect(0, 0, 10, 10), [("name", .string("knob"))])
        changes += TestScene.layer(2, frame: Rect(0, 0, 10, 10), [("name", .string(long))])
        changes += TestScene.layer(3, frame: Rect(0, 0, 10, 10), [("name", .string("two\nlines"))])
        changes += TestScene.layer(4, frame: Rect(0, 0, 10, 10))
        let tree = try TestScene.tree(changes).presentation(at: 0)
        func title(_ local: UInt32) -> String? {
            Inspector.report(TestScene.id(local), in: tree, at: 0, scale: 1, details: false)?.title
        }
        #expect(title(1) == "“knob” layer 1:1")
        #expect(title(2) == "“" + String(repeating: "n", count: 40) + "…” layer 1:2")
        #expect(title(3) == "“two”… layer 1:3")
        #expect(title(4) == "layer 1:4")
    }

    @Test func clientsAreDescribedByTheirHelloNameAndProcess() {
        #expect(Inspector.describe(name: "demo", process: "python3 pid 42") == "“demo” python3 pid 42")
        #expect(Inspector.describe(name: "", process: "python3 pid 42") == "python3 pid 42")
        #expect(Inspector.describe(name: "demo", process: nil) == "“demo”")
        #expect(Inspector.describe(name: "", process: nil) == "")
    }

    @Test func numbersAndValuesAsThePanelShowsThem() {
        #expect(Inspector.number(12) == "12" && Inspector.number(0.5) == "0.5" && Inspector.number(-3.256) == "-3.26")
        #expect(Inspector.number(-0.001) == "0" && Inspector.number(.nan) == "–")
        #expect(Inspector.text(.size(Size(3, 4))) == "3 × 4")
        #expect(Inspector.text(.color(nil)) == "nil")
        #expect(Inspector.text(.transform(.identity)) == "identity")
        #expect(Inspector.text(.bool(true)) == "true")
        #expect(Inspector.text(.string(String(repeating: "a", count: 50))) == "“" + String(repeating: "a", count: 40) + "…”")
    }
}
