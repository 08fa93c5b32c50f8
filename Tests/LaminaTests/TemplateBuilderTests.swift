import Foundation
import Lamina
import LaminaGeometry
import LaminaTree
import Testing
import LaminaModel

/// The client library's template builder: a shape written like SwiftUI's `path(in:)` becomes
/// template source that the compositor evaluates to the same path.
@Suite struct TemplateBuilderTests {
    struct Polygon: TemplateShape {
        func path(in rect: TemplateRect) -> TemplatePath {
            TemplatePath { p in
                let n = p.value(max(floor(.custom("sides")), 3))
                let r = p.value(min(rect.width, rect.height) / 2 * .custom("scale"))
                p.forEach(0, n) { i in
                    let a = p.value(2 * .pi * i / n - .pi / 2 + .custom("rotation"))
                    let v = TemplatePoint(rect.midX + r * cos(a), rect.midY + r * sin(a))
                    p.if(i == 0, then: { p.move(to: v) }, else: { p.addLine(to: v) })
                }
                p.closeSubpath()
            }
        }
    }

    @Test func builtPolygonEvaluatesToThePolygon() throws {
        let source = Polygon().templateSource
        #expect(source.hasPrefix("let v1 = max(floor(sides), 3)\nlet v2 = ((min(rect.width, rect.height) / 2) * scale)\nfor i3 in 0 ..< v1 {"))
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        let b = Rect(0, 0, 90, 60)
        for (sides, rotation) in [(4.0, 0.0), (7.9, -0.5)] {
            try t.apply(Commit(client: 1, content: .operations([
                .create(1, .shape), .set(1, keyPath: "bounds", value: .rect(b)),
                .set(1, keyPath: "custom.sides", value: .number(sides)), .set(1, keyPath: "custom.scale", value: .number(0.8)),
                .set(1, keyPath: "custom.rotation", value: .number(rotation)), .set(1, keyPath: "path", value: .template(source)),
            ])))
            let path = t.presentation(at: 0)[LayerID(client: 1, local: 1)]!.properties.path!
            let n = Int(sides.rounded(.down)), r = 60.0 / 2 * 0.8
            #expect(path.elements.count == n + 1)
            for (i, e) in path.elements.prefix(n).enumerated() {
                let a = 2 * Double.pi * Double(i) / Double(n) - Double.pi / 2 + rotation
                let want = Point(45 + r * Foundation.cos(a), 30 + r * Foundation.sin(a))
                switch e {
                case .move(let q), .line(let q): #expect(abs(q.x - want.x) < 1e-9 && abs(q.y - want.y) < 1e-9)
                default: Issue.record("unexpected \(e)")
                }
            }
            try t.apply(Commit(client: 1, content: .operations([.delete(1)])))
        }
    }

    @Test func negativeLiteralsAndExpressions() {
        let e: TemplateExpr = -2.5 * TemplateExpr.value(of: "slider", "position.x") + .t
        #expect(e.source == "(((-2.5) * slider.position.x) + t)")
    }
}
