import Testing
import LaminaGeometry
import LaminaTree
@testable import LaminaFrame

/// Shapes far larger than the target are meshed only where they can be seen
/// (`DrawListBuilder.visibleWindow`; LaminaGeometry's `VisibleWindow`).
@Suite struct VisibleWindowFrameTests {
    /// A tree with one shape layer at `position` (bounds at the origin) drawing `path`.
    static func tree(_ path: Path, position: Point, stroke: [String: PropertyValue] = [:]) throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [Operation] = [
            .create(1, .shape), .addSublayer(parent: 0, child: 1),
            .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
            .set(1, keyPath: "anchorPoint", value: .point(Point(0, 0))),
            .set(1, keyPath: "position", value: .point(position)),
            .set(1, keyPath: "path", value: .path(path)),
            .set(1, keyPath: "fillColor", value: .color(Color(1, 0, 0))),
        ]
        for (k, v) in stroke { ops.append(.set(1, keyPath: k, value: v)) }
        try t.apply(Commit(client: 1, content: .operations(ops)))
        return t
    }

    static func meshes(_ builder: inout DrawListBuilder, _ t: LayerTree) -> [MeshDraw] {
        builder.build(t).items.compactMap { if case .mesh(let m) = $0.kind { m } else { nil } }
    }

    /// A triangle 2e15 points across and a dashed stroke 1e30 wide along it: meshes of the
    /// target's size, covering a pixel in the view as the triangle does (half of the box on
    /// the diagonal); a small move keeps the meshes, a shape within the view is meshed whole.
    @Test func hugeShapeIsMeshedAroundTheTarget() throws {
        let big = 1e15
        let path = Path.polygon([Point(-big, -big), Point(big, big), Point(-big, big)])
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 48, scale: 1, background: Color(1, 1, 1))
        builder.usesShapeAtlas = false
        let t = try Self.tree(path, position: Point(0, 0))
        let first = Self.meshes(&builder, t)
        #expect(first.count == 1)
        let fill = try #require(first.first)
        #expect(fill.mesh.bounds.width < 1_000 && fill.mesh.bounds.height < 1_000, "\(fill.mesh.bounds)")
        // The pixel at (20, 20) straddles the diagonal y = x: half covered (y ≥ x is inside).
        #expect(abs(CoverageMesh.coverage(of: fill.mesh, x: 20.5, y: 20.5, width: 1, height: 1) - 0.5) < 0.01)
        #expect(abs(CoverageMesh.coverage(of: fill.mesh, x: 10.5, y: 30.5, width: 1, height: 1) - 1) < 1e-6)
        // Moved by a point: the same window, the same mesh.
        let moved = Self.meshes(&builder, try Self.tree(path, position: Point(1, 0)))
        #expect(moved.map(\.id) == first.map(\.id))
        // A dashed stroke 1e30 wide along it: a mesh of the target's size too.
        let stroked = try Self.tree(path, position: Point(0, 0), stroke: [
            "strokeColor": .color(Color(0, 0, 1)), "lineWidth": .number(1e30), "lineDashPattern": .numbers([3, 500]),
        ])
        let both = Self.meshes(&builder, stroked)
        #expect(both.count == 2)
        for m in both { #expect(m.mesh.bounds.width < 1_000 && m.mesh.bounds.height < 1_000, "\(m.mesh.bounds)") }
        // Within the view: whole, as always.
        let small = Path.polygon([Point(5, 5), Point(40, 5), Point(20, 30)])
        let whole = Self.meshes(&builder, try Self.tree(small, position: Point(0, 0)))
        #expect(whole.count == 1 && abs(whole[0].mesh.bounds.minX - 4) < 1e-6 && abs(whole[0].mesh.bounds.maxX - 41) < 1e-6)
    }

    /// The window holds the target mapped back (rotated, scaled, with perspective); none for a
    /// shape near the view or a plane whose horizon crosses the target; a plane seen edge-on
    /// projects to a line.
    @Test func windowHoldsTheTargetMappedBack() throws {
        let m = Transform3D.rotation(0.3).concatenating(.scale(3, 3)).concatenating(.translation(10, 20))
        let huge = Rect(-1e12, -1e12, 2e12, 2e12)
        let w = try #require(DrawListBuilder.visibleWindow(huge, reach: 0, toPixels: m, width: 64, height: 48, grow: 0))
        let inverse = try #require(m.inverted)
        for (x, y) in [(0.0, 0.0), (64, 0), (64, 48), (0, 48)] {
            let p = inverse.apply(Point(x, y))
            #expect(w.containsClosed(p), "\(p) outside \(w)")
        }
        #expect(DrawListBuilder.visibleWindow(Rect(0, 0, 30, 30), reach: 2, toPixels: m, width: 64, height: 48, grow: 0) == nil)
        // A huge stroke reach around a small path is huge too.
        #expect(DrawListBuilder.visibleWindow(Rect(0, 0, 30, 30), reach: 1e20, toPixels: m, width: 64, height: 48, grow: 0) != nil)
        // Perspective with the horizon across the target: unbounded, no window.
        let tilted = Transform3D.rotation(1.4, 1, 0, 0).concatenating(.perspective(50)).concatenating(.translation(32, 24))
        #expect(DrawListBuilder.visibleWindow(huge, reach: 0, toPixels: tilted, width: 64, height: 48, grow: 0) == nil)
        #expect(DrawListBuilder.projectsToLine(.scale(0, 1)))
        #expect(!DrawListBuilder.projectsToLine(m))
    }
}

extension Rect {
    fileprivate func containsClosed(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
}
