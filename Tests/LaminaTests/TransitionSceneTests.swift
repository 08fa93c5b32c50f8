import Foundation
import Lamina
import LaminaGeometry
import LaminaModel
import LaminaTree
import LaminaWire
import Testing
import LaminaSceneTree

/// Scene-file transactions that add and remove layers with SwiftUI-style transitions
/// (docs/scene-format.md, "Adding and removing layers"): presentation values at scene times
/// against values worked out by hand, removal that keeps the layer drawn but not hit until
/// its end, and reversal mid-flight.
@Suite struct TransitionSceneTests {
    /// CSS/CA cubic Bézier timing (P0 = 0, P3 = 1) evaluated by bisection on x — independent of
    /// LaminaAnimation's solver.
    static func bezier(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ t: Double) -> Double {
        func c(_ a: Double, _ b: Double, _ u: Double) -> Double { 3 * a * u * (1 - u) * (1 - u) + 3 * b * u * u * (1 - u) + u * u * u }
        var lo = 0.0, hi = 1.0
        for _ in 0..<200 { let m = (lo + hi) / 2; if c(x1, x2, m) < t { lo = m } else { hi = m } }
        return c(y1, y2, (lo + hi) / 2)
    }
    static func easeInOut(_ t: Double) -> Double { bezier(0.42, 0, 0.58, 1, t) }

    func number(_ s: Scene, _ arg: String, at t: Double) throws -> Double {
        guard case .object(let m) = try s.query([arg], at: t), case .number(let v) = m[0].value else { return .nan }
        return v
    }
    func point(_ s: Scene, _ arg: String, at t: Double) throws -> Point {
        guard case .object(let m) = try s.query([arg], at: t), case .array(let a) = m[0].value,
              case .number(let x) = a[0], case .number(let y) = a[1] else { return Point(.nan, .nan) }
        return Point(x, y)
    }
    /// Whether the named layer is in the tree drawn at `t` (attached under the canvas).
    func isDrawn(_ s: Scene, _ name: String, at t: Double) throws -> Bool {
        let p = try s.tree(at: t).presentation(at: t)
        var found = false
        p.visit { node, _ in
            if node.id == s.layerID(named: name) { found = true }
            return true
        }
        return found
    }

    static let list = #"""
    {"size": [400, 300], "layers": [
      {"name": "list", "bounds": [0, 0, 200, 100], "position": [100, 50], "anchorPoint": [0.5, 0.5]},
      {"name": "old", "bounds": [0, 0, 50, 50], "position": [300, 200], "backgroundColor": "#f00"}
    ],
    "transactions": [
      {"at": 1, "addSublayers": {"list": [{"name": "row", "bounds": [0, 0, 50, 50], "position": [100, 50],
                                           "opacity": 0.8, "backgroundColor": "#0f0"}]},
       "transitions": {"row": {"insertion": "opacity", "removal": "slide"}}},
      {"at": 2, "removeLayers": ["row"], "transitions": {"row": {"removal": "slide"}}}
    ]}
    """#

    @Test func opacityInsertionFollowsEaseInEaseOut() throws {
        let s = try Scene(json: Self.list)
        // 0.25 s easeInEaseOut from opacity 0 to the model's 0.8.
        #expect(abs(try number(s, "row.opacity", at: 1.0)) < 1e-9)
        for t in [0.05, 0.1, 0.2] {
            let v = try number(s, "row.opacity", at: 1 + t)
            #expect(abs(v - 0.8 * Self.easeInOut(t / 0.25)) < 1e-4, "t = \(t): \(v)")
        }
        #expect(try number(s, "row.opacity", at: 1.3) == 0.8)
        #expect(try point(s, "row.position", at: 1.1) == Point(100, 50))   // opacity only
    }

    @Test func slideRemovalStaysDrawnNotHitThenGoes() throws {
        let s = try Scene(json: Self.list)
        // Before the removal the row is hit (list's centre is the row's centre, canvas (100, 50)).
        #expect(try s.hitTest(Point(100, 50), at: 1.9) == "row")
        // Slide out to the trailing edge: the row's frame minX 75 goes to the list's maxX 200.
        for t in [0.0, 0.1, 0.2] {
            let x = try point(s, "row.position", at: 2 + t).x
            #expect(abs(x - (100 + 125 * Self.easeInOut(t / 0.25))) < 1e-3, "t = \(t): \(x)")
            #expect(try isDrawn(s, "row", at: 2 + t))
            // Left the model: never hit while it leaves (the list under it is).
            #expect(try s.hitTest(Point(100, 50), at: 2 + t) == "list")
        }
        #expect(try !isDrawn(s, "row", at: 2.25))
        #expect(try !isDrawn(s, "row", at: 3))
    }

    @Test func removalMidInsertionReversesWithoutAJump() throws {
        let s = try Scene(json: #"""
        {"layers": [{"name": "p", "bounds": [0, 0, 100, 100], "position": [50, 50]}],
         "transactions": [
          {"at": 1, "duration": 1, "timingFunction": "linear",
           "addSublayers": {"p": [{"name": "a", "bounds": [0, 0, 10, 10], "position": [50, 50]}]},
           "transitions": {"a": {"insertion": {"combined": ["opacity", {"offset": [40, 0]}]}, "removal": "opacity"}}},
          {"at": 1.5, "duration": 1, "timingFunction": "linear", "removeLayers": ["a"],
           "transitions": {"a": {"removal": "opacity"}}}
        ]}
        """#)
        // Halfway in: opacity 0.5, offset 20.
        #expect(abs(try number(s, "a.opacity", at: 1.4999) - 0.4999) < 1e-6)
        #expect(abs(try number(s, "a.opacity", at: 1.5) - 0.5) < 1e-9)
        #expect(abs(try point(s, "a.position", at: 1.5).x - 70) < 1e-9)
        // The removal runs from there: opacity 0.5 → 0, and the offset (not part of the
        // removal) back from 70 to the model's 50, over 1 s.
        #expect(abs(try number(s, "a.opacity", at: 2.0) - 0.25) < 1e-9)
        #expect(abs(try point(s, "a.position", at: 2.0).x - 60) < 1e-9)
        #expect(try isDrawn(s, "a", at: 2.4))
        #expect(try !isDrawn(s, "a", at: 2.5))
    }

    @Test func scaleOffsetAndMoveStates() throws {
        let s = try Scene(json: #"""
        {"layers": [{"name": "p", "bounds": [0, 0, 200, 100], "position": [100, 50]}],
         "transactions": [
          {"at": 1, "duration": 1, "timingFunction": "linear",
           "addSublayers": {"p": [{"name": "a", "bounds": [0, 0, 20, 10], "position": [60, 40]},
                                  {"name": "b", "bounds": [0, 0, 20, 10], "position": [60, 40]}]},
           "transitions": {"a": {"insertion": {"combined": [{"scale": 0.5}, {"offset": [10, 20]}]}},
                           "b": {"insertion": {"move": "top"}}}}
        ]}
        """#)
        // A quarter in: scale 0.5 → 1 is 0.625; the offset (10, 20) has 0.75 left.
        #expect(abs(try number(s, "a.transform.scale.x", at: 1.25) - 0.625) < 1e-9)
        #expect(abs(try number(s, "a.transform.scale.y", at: 1.25) - 0.625) < 1e-9)
        let pa = try point(s, "a.position", at: 1.25)
        #expect(abs(pa.x - 67.5) < 1e-9 && abs(pa.y - 55) < 1e-9)
        // move(top): frame maxY 45 goes to the superlayer's minY 0: dy = −45.
        let pb = try point(s, "b.position", at: 1.25)
        #expect(abs(pb.x - 60) < 1e-9 && abs(pb.y - (40 - 45 * 0.75)) < 1e-9)
        #expect(try point(s, "b.position", at: 2.5) == Point(60, 40))
    }

    /// A transition under a spring transaction follows the spring as a timing function
    /// (docs/protocol.md, Springs): SwiftUI's Spring(duration: 0.5, bounce: 0) is critically
    /// damped with ω = 2π/0.5, so from rest the share of the way still to go after spring time
    /// s is (1 + ωs)·e^(−ωs); its settling duration Ts is the first multiple of 0.1 s from which
    /// that share stays within 0.001 (worked out below: 0.8 s), and the transaction's 0.4 s play
    /// the whole settling motion: s = t · Ts / 0.4. The offset (100, 0) insertion starts 100
    /// points right of the model's x = 60 and closes in by that curve; its opacity transition
    /// (combined) follows the same curve from 0 to 1; from 0.4 s on both are at the model.
    @Test func aSpringTransactionDrivesTheTransition() throws {
        let s = try Scene(json: #"""
        {"layers": [{"name": "p", "bounds": [0, 0, 200, 100], "position": [100, 50]}],
         "transactions": [
          {"at": 1, "duration": 0.4, "timingFunction": {"spring": {"perceptualDuration": 0.5, "bounce": 0}},
           "addSublayers": {"p": [{"name": "a", "bounds": [0, 0, 20, 10], "position": [60, 40]}]},
           "transitions": {"a": {"insertion": {"combined": ["opacity", {"offset": [100, 0]}]}}}}
        ]}
        """#)
        let omega = 2 * Double.pi / 0.5
        func left(_ s: Double) -> Double { (1 + omega * s) * exp(-omega * s) }   // decreasing
        let settling = Double((1...100).first { left(Double($0) / 10) <= 0.001 } ?? 0) / 10
        #expect(settling == 0.8)
        for t in [0.05, 0.1, 0.2, 0.3] {
            let rest = left(t * settling / 0.4)
            let pa = try point(s, "a.position", at: 1 + t)
            #expect(abs(pa.x - (60 + 100 * rest)) < 1e-6, "t = \(t): \(pa)")
            #expect(abs(pa.y - 40) < 1e-9)
            #expect(abs(try number(s, "a.opacity", at: 1 + t) - (1 - rest)) < 1e-6, "t = \(t)")
        }
        #expect(try point(s, "a.position", at: 1.45) == Point(60, 40))
        #expect(try number(s, "a.opacity", at: 1.45) == 1)
    }

    @Test func errorsNameTheirPath() {
        func error(_ text: String) -> String? {
            do { _ = try Scene(json: text); return nil } catch { return error.description }
        }
        let base = #"{"layers": [{"name": "a"}], "transactions": [{"at": 1, "#
        #expect(error(base + #""transitions": {"a": {"insertion": "opacity"}}}]}"#)
                == #"transactions[0].transitions.a: the layer "a" is neither added nor removed by this transaction"#)
        #expect(error(base + #""removeLayers": ["a"], "transitions": {"a": {"removal": {"move": "up"}}}}]}"#)
                == #"transactions[0].transitions.a.removal.move: must be "leading", "trailing", "top" or "bottom""#)
        #expect(error(base + #""removeLayers": ["a"], "transitions": {"a": {"removal": {"scale": -1}}}}]}"#)
                == "transactions[0].transitions.a.removal.scale: must be ≥ 0")
        #expect(error(base + #""removeLayers": ["a"], "transitions": {"a": {"out": "opacity"}}}]}"#)
                == "transactions[0].transitions.a.out: unknown field")
        #expect(error(base + #""removeLayers": ["nobody"]}]}"#)
                == #"transactions[0].removeLayers[0]: no layer is named "nobody""#)
        // A layer added by a later transaction is not there for an earlier one.
        #expect(error(#"{"transactions": [{"at": 2, "addSublayers": {"": [{"name": "x"}]}}, {"at": 1, "removeLayers": ["x"]}]}"#)
                == #"transactions[1].removeLayers[0]: the layer "x" is added by a transaction at 2.0, after this one"#)
    }

    /// `a` inside a superlayer rotated by π and scaled by 2 about (100, 100); `b` at the top.
    static let match = #"""
    {"layers": [
      {"name": "pa", "bounds": [0, 0, 0, 0], "position": [100, 100], "transform": [{"rotate": 3.141592653589793}, {"scale": 2}],
       "sublayers": [{"name": "a", "bounds": [0, 0, 10, 20], "position": [5, 0], "cornerRadius": 2}]},
      {"name": "b", "bounds": [0, 0, 100, 50], "position": [300, 200], "cornerRadius": 10}
    ],
    "transactions": [
      {"at": 1, "duration": 1, "timingFunction": "linear", "match": [{"from": "a", "to": "b"}]},
      {"at": 1.5, "duration": 1, "timingFunction": "linear", "match": [{"from": "b", "to": "a"}]}
    ]}
    """#

    func near(_ p: Point, _ x: Double, _ y: Double, _ tol: Double = 1e-6) -> Bool { abs(p.x - x) < tol && abs(p.y - y) < tol }

    @Test func matchStartsAtTheSourceFrameThroughTransformedSuperlayers() throws {
        let s = try Scene(json: Self.match)
        // a's centre (5, 0) → rotated by π (−5, 0) → scaled (−10, 0) → moved (90, 100); its
        // 10×20 size doubles, its radius 2 too.
        #expect(near(try point(s, "b.position", at: 1), 90, 100))
        #expect(near(try point(s, "b.bounds.size", at: 1), 20, 40))
        #expect(abs(try number(s, "b.cornerRadius", at: 1) - 4) < 1e-9)
        #expect(abs(try number(s, "b.opacity", at: 1)) < 1e-9)
        // Halfway (linear): b between there and its own frame; a on its way to b's frame,
        // which in pa's space is ((300, 200) − (100, 100)) / 2 rotated by π = (−100, −50).
        #expect(near(try point(s, "b.position", at: 1.4999), 90 + 210 * 0.4999, 100 + 100 * 0.4999, 1e-3))
        #expect(abs(try number(s, "b.cornerRadius", at: 1.25) - 5.5) < 1e-9)
        #expect(near(try point(s, "a.position", at: 1.25), 5 - 105 * 0.25, -50 * 0.25))
        #expect(near(try point(s, "a.bounds.size", at: 1.25), 10 + 40 * 0.25, 20 + 5 * 0.25))
        #expect(abs(try number(s, "a.opacity", at: 1.25) - 0.75) < 1e-9)
    }

    @Test func matchBackMidFlightRetargetsWithoutAJump() throws {
        let s = try Scene(json: Self.match)
        // Just before and at the interruption: the same values.
        let a0 = try point(s, "a.position", at: 1.5), b0 = try point(s, "b.position", at: 1.5)
        #expect(near(a0, -47.5, -25) && near(b0, 195, 150))
        #expect(near(try point(s, "a.position", at: 1.49999), -47.5, -25, 1e-2))
        #expect(abs(try number(s, "a.opacity", at: 1.5) - 0.5) < 1e-9)
        // Half a second later: a halfway back to its own frame, b halfway to a's frame.
        #expect(near(try point(s, "a.position", at: 2), (-47.5 + 5) / 2, -12.5))
        #expect(near(try point(s, "b.position", at: 2), (195 + 90) / 2, 125))
        #expect(abs(try number(s, "a.opacity", at: 2) - 0.75) < 1e-9)
        #expect(abs(try number(s, "b.opacity", at: 2) - 0.25) < 1e-9)
        // At the end: a at its own frame; b held at a's frame, transparent.
        #expect(near(try point(s, "a.position", at: 3), 5, 0))
        #expect(near(try point(s, "b.position", at: 3), 90, 100) )
        #expect(abs(try number(s, "b.opacity", at: 3)) < 1e-9)
    }

    @Test func matchErrors() {
        func error(_ text: String) -> String? {
            do { _ = try Scene(json: text); return nil } catch { return error.description }
        }
        #expect(error(#"{"layers": [{"name": "a"}], "transactions": [{"match": [{"from": "a", "to": "a"}]}]}"#)
                == "transactions[0].match[0]: from and to must be different layers")
        #expect(error(#"{"layers": [{"name": "a"}], "transactions": [{"match": [{"from": "a"}]}]}"#)
                == "transactions[0].match[0].to: is required")
    }

    // MARK: CATransition

    static let page = #"""
    {"size": [200, 100], "layers": [
      {"name": "page", "bounds": [0, 0, 200, 100], "position": [100, 50], "backgroundColor": "#00f",
       "sublayers": [{"name": "title", "bounds": [0, 0, 50, 20], "position": [30, 20], "backgroundColor": "#f00"}]}
    ],
    "transactions": [
      {"at": 1, "duration": 0.4, "timingFunction": "linear",
       "transition": {"layer": "page", "type": "push", "subtype": "fromBottom"},
       "set": {"title.position": [150, 60], "page.backgroundColor": "#0f0"}}
    ]}
    """#

    /// The transaction's duration and timing when the transition leaves them out; the changes
    /// inside the layer do not animate on their own; the old rendering is the layer before.
    @Test func transitionFromAScene() throws {
        let s = try Scene(json: Self.page)
        let tree = try s.tree(at: 1.2)
        let page = try #require(s.layerID(named: "page"))
        let state = try #require(tree.contentTransitions[page])
        #expect(state.transition == ContentTransition(type: .push, subtype: .fromBottom, duration: 0.4, timingFunction: .linear))
        #expect(state.beginTime == 1 && abs(state.progress(at: 1.2) - 0.5) < 1e-12)
        #expect(near(try point(s, "title.position", at: 1.2), 150, 60))
        let ghost = try #require(state.ghost.flatMap { tree[$0] })
        #expect(ghost.properties.backgroundColor == Color(0, 0, 1))
        #expect(ghost.sublayers.first.flatMap { tree[$0]?.properties.position } == Point(30, 20))
        // Not hit: the title's old place is empty once it moved.
        #expect(try s.hitTest(Point(30, 20), at: 1.2) == "page")
    }

    @Test func transitionErrors() {
        func error(_ transition: String) -> String? {
            let text = #"{"layers": [{"name": "a"}], "transactions": [{"transition": "# + transition + "}]}"
            do { _ = try Scene(json: text); return nil } catch { return error.description }
        }
        #expect(error(#"{"layer": "a", "type": "spin"}"#)
                == #"transactions[0].transition.type: unknown transition type "spin" (fade, moveIn, push, reveal)"#)
        #expect(error(#"{"layer": "a", "type": "push", "subtype": "fromAbove"}"#)
                == #"transactions[0].transition.subtype: unknown transition subtype "fromAbove" (fromLeft, fromRight, fromTop, fromBottom)"#)
        #expect(error(#"{"layer": "b", "type": "push"}"#)?.hasPrefix("transactions[0].transition.layer") == true)
        #expect(error(#"{"layer": "a", "type": "push", "duration": -1}"#)?.hasPrefix("transactions[0].transition.duration") == true)
        #expect(error(#"{"type": "push"}"#) == "transactions[0].transition.layer: is required")
        #expect(error(#"{"layer": "a", "type": "push", "speed": 2}"#) != nil)
    }
}
