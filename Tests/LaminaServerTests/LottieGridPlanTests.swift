import Foundation
import Lamina
import LaminaFrame
import LaminaLottie
import LaminaModel
import LaminaTree
import LaminaWire
import Testing

/// What the frame plan asks of a Lottie file shown small in a large canvas (issue 27's grid: a
/// 128 × 72 cell of 1280 × 720): its offscreen passes (a mask's group and the mask, a matte's)
/// clear and draw only about its cell — the cell's rectangle grown by the planner's margins (a
/// pixel and the anti-aliasing fringe of 1.5, rounded out: at most 3 pixels). A subtract or
/// inverted mask is a path cut out of a square standing for everywhere (`Mapper.everywhere`);
/// its group's pass once covered the whole canvas.
@Suite("Lottie in a grid cell: the frame plan")
struct LottieGridPlanTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/lottie-corpus").path

    /// The file's draw list at scene time `t`, its root fitted into `cell` (x, y, width, height
    /// in pixels, the file's aspect ignored) of a 1280 × 720 canvas and clipped to it, as
    /// `lamina-bench lottie-grid` places it. `masksFromCoverage` (non-nil): shapes first seen
    /// drawn from coverage made in the frame, as the daemon's builder on a CPU rasterizer draws
    /// them, and masks drawn from coverage or not (`DrawListBuilder.drawsMasksFromCoverage`).
    static func list(_ file: String, cell: (Int, Int, Int, Int), at t: Double,
                     masksFromCoverage: Bool? = nil) throws -> DrawList {
        var scene = try Scene(contentsOfFile: corpus + "/" + file)
        let (fw, fh) = (scene.size.width, scene.size.height)
        let root = "\"" + LottieImport.rootName
        let place = try JSON.parse("""
            {"set": {\(root).bounds": [0, 0, \(fw), \(fh)], \(root).anchorPoint": [0, 0],
             \(root).position": [\(cell.0), \(cell.1)],
             \(root).transform": [{"scale": [\(Double(cell.2) / fw), \(Double(cell.3) / fh), 1]}],
             \(root).masksToBounds": true}}
            """)
        var tree = LayerTree()
        try tree.apply(Commit(client: 1, content: .connect))
        try tree.apply(Commit(client: 1, content: .operations(scene.initialOperations)), at: 0)
        try tree.apply(Commit(client: 1, content: .operations(try scene.operations(forTransaction: place))), at: 0)
        tree.advance(to: t)
        var builder = DrawListBuilder(widthPoints: 1280, heightPoints: 720, scale: 1, background: Color(1, 1, 1))
        builder.time = t
        if let masksFromCoverage {
            builder.rasterizesNewShapes = true
            builder.drawsMasksFromCoverage = masksFromCoverage
        }
        return builder.build(tree.presentation(at: t))
    }

    /// Files with subtract masks (`like`) and alpha track mattes (`bounching_ball`,
    /// `matte_two_item_with_lowerlayer`), at three times each: every offscreen pass lies within
    /// the cell grown by 3 pixels. (`mask`'s one subtract is on a solid, drawn as a clipped
    /// fill without an offscreen pass: `solidMaskMakesNoOffscreenPass`.) (`bell` and `loading_` draw beyond their canvas, which their
    /// root's clip hides: the planner bounds a group by its items, not by their clips, so their
    /// passes reach up to 80 pixels past the cell — not cut yet.)
    @Test(arguments: ["like.json", "bounching_ball.json", "matte_two_item_with_lowerlayer.json"])
    func offscreenPassesStayInTheCell(_ file: String) throws {
        let cell = (576, 324, 128, 72)
        let grown = PixelRect(minX: cell.0 - 3, minY: cell.1 - 3, maxX: cell.0 + cell.2 + 3, maxY: cell.1 + cell.3 + 3)
        var offscreen = 0
        for t in [0.25, 1.0, 1.75] {
            let plan = try Self.list(file, cell: cell, at: t).plan
            for pass in plan.passes where pass.target != .frame {
                offscreen += 1
                #expect(pass.area.intersection(grown) == pass.area, "\(file) at \(t): a pass over \(pass.area)")
            }
        }
        #expect(offscreen > 0, "\(file) makes no offscreen pass (the test would prove nothing)")
    }

    /// Gradient fills and strokes of paths and ellipses, which LaminaLottie maps (as Core
    /// Animation would) to gradient layers masked by their shapes drawn opaque: drawn from the
    /// shapes' coverage (`DrawListBuilder.visitCoverageMasked`) the plan has no offscreen pass
    /// at three times; with every mask a group, each makes its passes.
    @Test(arguments: ["ripple_loading_animation.json", "gradient_sleepy_loader.json"])
    func gradientShapesMakeNoOffscreenPass(_ file: String) throws {
        for t in [0.25, 1.0, 1.75] {
            let cell = (576, 324, 128, 72)
            let plan = try Self.list(file, cell: cell, at: t, masksFromCoverage: true).plan
            #expect(plan.passes.count == 1 && plan.passes.allSatisfy { $0.target == .frame }, "\(file) at \(t): \(plan.passes.map(\.target))")
            let grouped = try Self.list(file, cell: cell, at: t, masksFromCoverage: false).plan
            #expect(grouped.passes.count > 1, "\(file) at \(t): no pass to take away (the test would prove nothing)")
        }
    }

    /// `mask`: a solid under one subtract mask (an animated rect) is the solid's rect and the
    /// rect as two contours filled even-odd in a `masksToBounds` layer (LaminaLottie's
    /// `solidMasked`): the frame plan has no offscreen pass at all, at three times.
    @Test func solidMaskMakesNoOffscreenPass() throws {
        for t in [0.25, 1.0, 1.75] {
            let plan = try Self.list("mask.json", cell: (576, 324, 128, 72), at: t).plan
            #expect(plan.passes.count == 1 && plan.passes.allSatisfy { $0.target == .frame }, "at \(t): \(plan.passes.map(\.target))")
        }
    }
}
