import Foundation
@testable import Lamina
import LaminaGeometry
import LaminaWire
import Testing
import LaminaModel
import LaminaSceneTree

/// examples/parametric.json: each seed shape's presentation path at several parameter values
/// against the shape computed here from the issue's words; the shake expression; scene
/// errors for templates and expressions.
@Suite struct ParametricSceneTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../examples/parametric.json").path

    /// The path of `name` at scene time 100 after setting `values` (actions off) at time 50,
    /// with the layer's own animations removed, in a scene whose bounds are `bounds`.
    func path(_ name: String, _ values: [String: Double]) throws -> (Path?, Rect) {
        var scene = try Scene(contentsOfFile: Self.file)
        let local = scene.names[name]!
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true)), .removeAllAnimations(local)]
        for (k, v) in values.sorted(by: { $0.key < $1.key }) { ops.append(.set(local, keyPath: "custom." + k, value: .number(v))) }
        scene.transactions.append(Scene.TimedTransaction(at: 50, operations: ops))
        let p = try scene.tree(at: 100).presentation(at: 100)
        let props = p[scene.layerID(named: name)!]!.properties
        return (props.path, props.bounds)
    }

    func close(_ a: Path?, _ b: Path, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let a else { Issue.record("no path", sourceLocation: sourceLocation); return }
        #expect(a.elements.count == b.elements.count, sourceLocation: sourceLocation)
        func pts(_ e: Path.Element) -> [Double] {
            switch e {
            case .move(let p), .line(let p): [0, p.x, p.y]
            case .quad(let c, let p): [1, c.x, c.y, p.x, p.y]
            case .cubic(let c1, let c2, let p): [2, c1.x, c1.y, c2.x, c2.y, p.x, p.y]
            case .close: [3]
            }
        }
        for (x, y) in zip(a.elements, b.elements) {
            let u = pts(x), v = pts(y)
            #expect(u.count == v.count && zip(u, v).allSatisfy { abs($0 - $1) < 1e-9 }, "\(x) vs \(y)", sourceLocation: sourceLocation)
        }
    }

    @Test func trapezoid() throws {
        for inset in [0.0, 20, 75.5] {
            let (p, r) = try path("trapezoid", ["insetAmount": inset])
            var e = Path()
            e.move(to: Point(0, r.maxY)); e.addLine(to: Point(inset, r.minY))
            e.addLine(to: Point(r.maxX - inset, r.minY)); e.addLine(to: Point(r.maxX, r.maxY)); e.closeSubpath()
            close(p, e)
        }
    }

    @Test func arc() throws {
        for (a, b) in [(0.0, 1.5), (-1.5, 4.0), (0.5, 0.5 + 2 * Double.pi)] {
            let (p, r) = try path("arc", ["startAngle": a, "endAngle": b])
            // Path.addArc is the arc statement's definition (LaminaExpression README).
            var e = Path()
            e.addArc(center: Point(r.midX, r.midY), radius: r.width / 2, startAngle: a, endAngle: b, clockwise: true)
            close(p, e)
            // Its ends lie on the circle at the two angles.
            if case .move(let s)? = p?.elements.first {
                #expect(abs(s.x - (r.midX + r.width / 2 * cos(a))) < 1e-9 && abs(s.y - (r.midY + r.width / 2 * sin(a))) < 1e-9)
            }
        }
    }

    @Test func wave() throws {
        for (amp, freq, phase) in [(30.0, 2.0, 0.0), (60, 3, 1.25)] {
            let (p, r) = try path("wave", ["amplitude": amp, "frequency": freq, "phase": phase])
            var e = Path()
            var x = 0.0
            while x <= r.width {
                let pt = Point(x, r.midY + amp * sin(2 * Double.pi * freq * x / r.width + phase))
                if x == 0 { e.move(to: pt) } else { e.addLine(to: pt) }
                x += 1
            }
            close(p, e)
        }
    }

    @Test func polygon() throws {
        for (sides, scale, rotation) in [(3.0, 1.0, 0.0), (6.5, 0.5, 0.7), (1.0, 0.9, 0.0)] {
            let (p, r) = try path("polygon", ["sides": sides, "scale": scale, "rotation": rotation])
            let n = max(sides.rounded(.down), 3)
            let radius = min(r.width, r.height) / 2 * scale
            var e = Path()
            for i in 0 ..< Int(n) {
                let a = 2 * Double.pi * Double(i) / n - Double.pi / 2 + rotation
                let pt = Point(r.midX + radius * cos(a), r.midY + radius * sin(a))
                if i == 0 { e.move(to: pt) } else { e.addLine(to: pt) }
            }
            e.closeSubpath()
            close(p, e)
        }
    }

    @Test func flower() throws {
        for (count, inner, outer, rot) in [(5.0, 30.0, 90.0, 0.0), (8.7, 20, 60, 0.4), (1.0, 10, 50, 0)] {
            let (p, r) = try path("flower", ["petalCount": count, "innerRadius": inner, "outerRadius": outer, "rotationOffset": rot])
            let n = max(count.rounded(.down), 2)
            let c = Point(r.midX, r.midY)
            func at(_ radius: Double, _ angle: Double) -> Point { Point(c.x + radius * cos(angle), c.y + radius * sin(angle)) }
            var e = Path()
            for i in 0 ..< Int(n) {
                let base = 2 * Double.pi * Double(i) / n + rot
                e.move(to: c)
                e.addQuadCurve(to: at(outer, base), control: at(inner, base - Double.pi / n))
                e.addQuadCurve(to: c, control: at(inner, base + Double.pi / n))
            }
            close(p, e)
        }
    }

    @Test func shake() throws {
        var scene = try Scene(contentsOfFile: Self.file)
        let local = scene.names["shake"]!
        for progress in [0.0, 0.2, 0.55, 1.0] {
            scene.transactions = [Scene.TimedTransaction(at: 0, operations: [
                .setTransaction(TransactionSettings(disableActions: true)),
                .set(local, keyPath: "custom.progress", value: .number(progress))])]
            guard case .object(let m) = try scene.query(["shake.transform"], at: 0), case .array(let rows) = m[0].value,
                  case .number(let x) = rows[12] else { Issue.record("no transform"); continue }
            #expect(abs(x - sin(progress * 6 * Double.pi) * 40 * (1 - progress)) < 1e-9)
        }
    }

    @Test func everySeedAnimatesInTheCompositor() throws {
        // Between two times without any client step, each shape's output changes.
        let scene = try Scene(contentsOfFile: Self.file)
        let a = try scene.tree(at: 0.3).presentation(at: 0.3), b = try scene.tree(at: 0.9).presentation(at: 0.9)
        for name in ["trapezoid", "arc", "wave", "polygon", "flower"] {
            let id = scene.layerID(named: name)!
            #expect(a[id]!.properties.path != b[id]!.properties.path, "\(name)")
        }
        let shake = scene.layerID(named: "shake")!
        #expect(a[shake]!.properties.transform != b[shake]!.properties.transform)
    }

    @Test func sceneErrors() throws {
        func error(_ text: String) -> String? {
            do { _ = try Scene(json: text); return nil } catch { return error.description }
        }
        #expect(error(#"{"layers": [{"type": "shape", "path": {"template": "move(0, nope)"}}]}"#)
                == "layers[0].path: template line 1, column 9 (offset 8): unknown name 'nope' (a template reads rect.…, pi and the layer's custom properties, which must be set before it)")
        // `custom` may come after `path` in the object: it is read first.
        #expect(error(#"{"layers": [{"type": "shape", "path": {"template": "move(k, 0)"}, "custom": {"k": 1}}]}"#) == nil)
        #expect(error(#"{"layers": [{"name": "a", "animations": {"e": {"type": "expression", "keyPath": "opacity", "expression": "b.opacity"}}}]}"#)
                == #"layers[0].animations.e.expression: line 1, column 1 (offset 0): no layer is named "b""#)
        // A later layer may be named.
        #expect(error(#"{"layers": [{"name": "a", "animations": {"e": {"type": "expression", "keyPath": "opacity", "expression": "b.opacity"}}}, {"name": "b"}]}"#) == nil)
        #expect(error(#"{"layers": [{"animations": {"e": {"type": "expression", "keyPath": "opacity", "expression": "1 +"}}}]}"#)?
            .hasPrefix("layers[0].animations.e.expression: line 1") == true)
    }

    @Test func aCycleInASceneIsSaidInTheScenesNames() throws {
        // "slider" follows "knob", which follows "slider": rejected when the scene is built,
        // naming both by their scene names.
        let scene = try Scene(json: #"""
            {"layers": [
              {"name": "slider", "animations": {"f": {"type": "expression", "keyPath": "opacity", "expression": "knob.opacity"}}},
              {"name": "knob", "animations": {"g": {"type": "expression", "keyPath": "opacity", "expression": "1 - slider.opacity"}}}
            ]}
            """#)
        #expect {
            _ = try scene.tree(at: 0)
        } throws: { error in
            let m = (error as? CommitError)?.message ?? ""
            return m == #"layer "knob" expression 'g': expression dependency cycle: knob.opacity → slider.opacity → knob.opacity"#
                || m == #"layer "knob" expression 'g': expression dependency cycle: slider.opacity → knob.opacity → slider.opacity"#
        }
    }
}
