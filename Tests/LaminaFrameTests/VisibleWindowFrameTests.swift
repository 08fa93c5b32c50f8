import Testing
import LaminaGeometry
import LaminaTree
@testable import LaminaFrame
import LaminaModel

/// Shapes far larger than the target are meshed only where they can be seen
/// (`DrawListBuilder.visibleWindow`; LaminaGeometry's `VisibleWindow`).
@Suite struct VisibleWindowFrameTests {
    /// A tree with one shape layer at `position` (bounds at the origin) drawing `path`.
    static func tree(_ path: Path, position: Point, stroke: [String: PropertyValue] = [:]) throws -> LayerTree {
        var t = LayerTree()
        try t.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = [
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
    /// shape near the view; bounded where the plane's horizon crosses the target; nothing of a
    /// huge shape outside it, behind the eye or seen edge-on.
    @Test func windowHoldsTheTargetMappedBack() throws {
        let m = Transform3D.rotation(0.3).concatenating(.scale(3, 3)).concatenating(.translation(10, 20))
        let huge = Rect(-1e12, -1e12, 2e12, 2e12)
        let w = try #require(DrawListBuilder.visibleRegion(huge, reach: 0, toPixels: m, width: 64, height: 48, grow: 0).window)
        let inverse = try #require(m.inverted)
        for (x, y) in [(0.0, 0.0), (64, 0), (64, 48), (0, 48)] {
            let p = inverse.apply(Point(x, y))
            #expect(w.containsClosed(p), "\(p) outside \(w)")
        }
        #expect(DrawListBuilder.visibleRegion(Rect(0, 0, 30, 30), reach: 2, toPixels: m, width: 64, height: 48, grow: 0) == .whole)
        // A huge stroke reach around a small path is huge too.
        #expect(DrawListBuilder.visibleRegion(Rect(0, 0, 30, 30), reach: 1e20, toPixels: m, width: 64, height: 48, grow: 0).window != nil)
        // Perspective with the horizon across the target: the part in front of the eye, up to
        // 1/512 pixel from the horizon — bounded, and it holds every target point mapped back
        // that lies farther from the horizon than that.
        let tilted = Transform3D.rotation(1.4, 1, 0, 0).concatenating(.perspective(50)).concatenating(.translation(32, 24))
        let far = try #require(DrawListBuilder.visibleRegion(huge, reach: 0, toPixels: tilted, width: 64, height: 48, grow: 0).window)
        #expect(far.width.isFinite && far.height.isFinite)
        let back = try #require(tilted.inverted)
        var inFront = 0
        for y in stride(from: 0.0, through: 48, by: 4) {
            for x in stride(from: 0.0, through: 64, by: 4) {
                // The plane point under (x, y): intersect the eye ray with z = 0 (two depths).
                let p0 = back.apply(Vector4(x, y, 0, 1)), p1 = back.apply(Vector4(x, y, 1, 1))
                let a = Point(p0.x / p0.w, p0.y / p0.w), az = p0.z / p0.w, bz = p1.z / p1.w
                let b = Point(p1.x / p1.w, p1.y / p1.w)
                guard az != bz else { continue }
                let t = az / (az - bz)
                let local = a.lerp(to: b, t)
                // In front of the eye: W of the local point positive, and clear of the horizon.
                let v = tilted.apply(Vector4(local.x, local.y, 0, 1))
                guard v.w > 1e-3 else { continue }
                inFront += 1
                #expect(far.containsClosed(local), "\(local) outside \(far)")
            }
        }
        #expect(inFront > 10)
        // A huge shape wholly outside the target shows nothing.
        #expect(DrawListBuilder.visibleRegion(Rect(1e9, 0, 1e12, 1e12), reach: 0, toPixels: m, width: 64, height: 48, grow: 0,
                                              footprint: 4 / 3) == .nothing)
        // A small one is drawn as always (the GPU clips it).
        #expect(DrawListBuilder.visibleRegion(Rect(1e9, 0, 10, 10), reach: 0, toPixels: m, width: 64, height: 48, grow: 0,
                                              footprint: 4 / 3) == .whole)
        // Just outside, but within a footprint of a visible pixel: meshed.
        let edge = m.inverted!.apply(Point(-0.5, 10))
        #expect(DrawListBuilder.visibleRegion(Rect(edge.x - 1e12, edge.y, 1e12, 1), reach: 0, toPixels: m, width: 64, height: 48,
                                              grow: 0, footprint: 4 / 3) != .nothing)
        // A plane wholly behind the eye shows nothing.
        let behind = Transform3D.translation(0, 0, 100).concatenating(.perspective(50))
        #expect(DrawListBuilder.visibleRegion(huge, reach: 0, toPixels: behind, width: 64, height: 48, grow: 0, footprint: 4) == .nothing)
        // A small one is drawn as always (the GPU clips it).
        #expect(DrawListBuilder.visibleRegion(Rect(0, 0, 30, 30), reach: 0, toPixels: behind, width: 64, height: 48, grow: 0,
                                              footprint: 4) == .whole)
        // Seen edge-on: nothing of a huge shape.
        #expect(DrawListBuilder.visibleRegion(huge, reach: 0, toPixels: .scale(0, 1), width: 64, height: 48, grow: 0,
                                              footprint: 4) == .nothing)
    }

    /// A huge shape inside a small clipped layer (a Lottie inverted mask's square, even-odd
    /// with a hole, in a 20 × 16 cell) is meshed around the clip's device box, not the target:
    /// the window snapped to a grid of its size (a power of two ≥ the box, half a grid either
    /// side) holds at most box + 3 grids per axis, grown by the tessellator's 4-pixel margin;
    /// the same shape unclipped is meshed around the whole 256 × 192 target.
    @Test func clippedHugeShapeIsMeshedAroundTheClip() throws {
        let e = 1e5
        var square = Path()
        square.move(to: Point(-e, -e)); square.addLine(to: Point(e, -e)); square.addLine(to: Point(e, e))
        square.addLine(to: Point(-e, e)); square.closeSubpath()
        square.addEllipse(in: Rect(2, 2, 12, 10))
        func meshes(clipped: Bool) throws -> [MeshDraw] {
            var t = LayerTree()
            try t.apply(Commit(client: 1, content: .connect))
            try t.apply(Commit(client: 1, content: .operations([
                .create(2, .layer), .addSublayer(parent: 0, child: 2),
                .set(2, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 16))),
                .set(2, keyPath: "anchorPoint", value: .point(Point(0, 0))),
                .set(2, keyPath: "position", value: .point(Point(40, 30))),
                .set(2, keyPath: "masksToBounds", value: .bool(clipped)),
                .create(1, .shape), .addSublayer(parent: 2, child: 1),
                .set(1, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 16))),
                .set(1, keyPath: "anchorPoint", value: .point(Point(0, 0))),
                .set(1, keyPath: "path", value: .path(square)),
                .set(1, keyPath: "fillRule", value: .string("evenOdd")),
                .set(1, keyPath: "fillColor", value: .color(Color(1, 0, 0))),
            ])))
            var b = DrawListBuilder(widthPoints: 256, heightPoints: 192, scale: 1, background: Color(1, 1, 1))
            return Self.meshes(&b, t)
        }
        let inCell = try meshes(clipped: true), free = try meshes(clipped: false)
        #expect(inCell.count == 1 && free.count == 1)
        guard let c = inCell.first, let f = free.first else { return }
        // The clip's box: 20 × 16 at (40, 30), grown by clipAreaMargin; grid 32 (≥ 24).
        let box = 20 + 2 * DrawListBuilder.clipAreaMargin, grid = 32.0
        #expect(c.mesh.bounds.width <= box + 3 * grid + 8 && c.mesh.bounds.height <= box + 3 * grid + 8, "\(c.mesh.bounds)")
        // It holds the clip's box (shape-local units: the cell's, 0…20 × 0…16), grown.
        #expect(c.mesh.bounds.minX <= -2 && c.mesh.bounds.maxX >= 22 && c.mesh.bounds.minY <= -2
                    && c.mesh.bounds.maxY >= 18, "\(c.mesh.bounds)")
        #expect(f.mesh.bounds.width >= 256 && f.mesh.bounds.height >= 192, "\(f.mesh.bounds)")
        #expect(c.mesh.vertices.count * 4 < f.mesh.vertices.count, "\(c.mesh.vertices.count) vs \(f.mesh.vertices.count)")
    }
}

extension Rect {
    fileprivate func containsClosed(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
}
