import Foundation
import Testing
import LaminaFrame
import LaminaGeometry
import LaminaTree
import TestSupport
import LaminaPNG
@testable import LaminaRender
import LaminaModel

/// A path template through the whole path: commit → render tree → presentation (template
/// run) → draw list (tessellated through the mesh cache) → pixels, against the same polygon
/// given as SVG path data.
@Suite struct TemplateRenderTests {
    /// The polygon as SVG path data, from the words (TestSupport's `SeedPolygon`).
    static func svg(_ b: Rect, sides: Double, scale: Double, rotation: Double) -> String {
        let points = SeedPolygon.vertices(in: b, sides: sides, scale: scale, rotation: rotation)
        return points.enumerated().map { i, p in (i == 0 ? "M" : "L") + "\(p.x) \(p.y) " }.joined() + "Z"
    }

    func render(_ path: PropertyValue, custom: [(String, Double)], at time: Double = 0) throws -> RGBAImage {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = [
            .create(1, .shape), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 56, 50))),
            .set(1, keyPath: "position", value: .point(Point(32, 32))),
            .set(1, keyPath: "fillColor", value: .color(Color(0, 0, 1))),
        ]
        for (k, v) in custom { ops.append(.set(1, keyPath: "custom." + k, value: .number(v))) }
        ops.append(.set(1, keyPath: "path", value: path))
        try t.apply(Commit(client: 1, content: .operations(ops)))
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: Color(1, 1, 1))
        return try renderImage(builder.build(t.presentation(at: time)), alpha: .straight)
    }

    @Test func polygonTemplateDrawsAsTheSamePolygonInSVG() throws {
        for (sides, rotation) in [(3.0, 0.0), (5.7, 0.3), (8.0, -1.0)] {
            let template = try render(.template(SeedPolygon.template), custom: [("sides", sides), ("scale", 0.9), ("rotation", rotation)])
            let svg = try render(.path(Path(svg: Self.svg(Rect(0, 0, 56, 50), sides: sides, scale: 0.9, rotation: rotation))),
                                 custom: [])
            var differing = 0
            for y in 0 ..< 64 {
                for x in 0 ..< 64 where !template.pixel(x, y).isClose(to: svg.pixel(x, y), tolerance: 1) { differing += 1 }
            }
            #expect(differing == 0, "sides \(sides): \(differing) pixels differ")
            // And it is drawn: the centre is blue, a corner white.
            expectPixel(template, 32, 34, RGBA(0, 0, 255), "inside")
            expectPixel(template, 1, 1, RGBA(255, 255, 255), "outside")
        }
    }
}
