import Foundation
import LaminaFrame
import LaminaModel
import LaminaTree

/// `lamina-bench plan [--layers N] [--size WxH] [--mix KIND]`: the frame plan of the `frames`
/// scene at time 0.5 s, without a Vulkan device — how many passes, the pixels they clear (their
/// areas), and the pixels each kind of step draws (its scissor cut to its pass's area), batched
/// (`FramePlanner.batches`) and unbatched. Prints JSON. Where the GPU time of the offscreen mixes
/// (`blur`, `mask`, `backdrop`) goes, in pixels rather than milliseconds.
func runPlanBench(_ arguments: [String]) {
    let bench = SceneBench("plan", arguments, layers: 1000, accepting: ["--layers", "--size", "--mix"])
    var tree = bench.makeTree()
    var presentation = LayerTree()
    var builder = bench.makeBuilder()
    tree.advance(to: 0.5)
    tree.updatePresentation(&presentation, at: 0.5)
    let list = builder.build(presentation)
    func stats(_ plan: FramePlan) -> String {
        func px(_ r: PixelRect) -> Int { r.isEmpty ? 0 : (r.maxX - r.minX) * (r.maxY - r.minY) }
        var cleared = 0, offscreen = 0, imageArea = 0
        var drawn: [String: (steps: Int, pixels: Int)] = [:]
        func add(_ kind: String, _ pixels: Int) {
            let d = drawn[kind] ?? (0, 0)
            drawn[kind] = (d.steps + 1, d.pixels + pixels)
        }
        var imageAreas: [Int: PixelRect] = [:]  // where each image was last drawn (a composite reads that)
        for pass in plan.passes {
            defer { if case .image(let image) = pass.target { imageAreas[image] = pass.area } }
            cleared += px(pass.area)
            if case .image = pass.target { offscreen += 1; imageArea += px(pass.area) }
            var within = pass.area
            for step in plan.steps[pass.steps] {
                switch step {
                case .within(let r): within = r.intersection(pass.area)
                case .items: add("items", 0)
                case .composite(let image, _):
                    add("composite", px((imageAreas[image] ?? within).intersection(within)))
                case .filtered(let image, _, _):
                    add("filtered", px((imageAreas[image] ?? within).intersection(within)))
                case .mask: add("mask", px(within))
                case .region(_, let area, _, _): add("region", px(area.intersection(within)))
                case .maskRegion(_, let area): add("mask_region", px(area.intersection(within)))
                case .blend: add("blend", px(within))
                case .copy: add("copy", px(within))
                case .blur(_, _, _, _, _, let scissor, _): add("blur", px(scissor.intersection(within)))
                case .backdrop(_, _, _, _, _, let scissor, _): add("backdrop", px(scissor.intersection(within)))
                }
            }
        }
        let kinds = drawn.sorted { $0.key < $1.key }
            .map { "\"\($0.key)\": {\"steps\": \($0.value.steps), \"pixels\": \($0.value.pixels)}" }
            .joined(separator: ", ")
        return """
        {"passes": \(plan.passes.count), "offscreen_passes": \(offscreen), "images": \(plan.imageCount), \
        "cleared_pixels": \(cleared), "offscreen_cleared_pixels": \(imageArea), "steps": {\(kinds)}}
        """
    }
    print("""
    {"bench": "plan", "layers": \(bench.layers), "mix": "\(bench.mix)", "size": "\(bench.width)x\(bench.height)", \
    "draw_items": \(list.items.count), "target_pixels": \(bench.width * bench.height), \
    "batched": \(stats(list.planned(batches: true).plan)), "unbatched": \(stats(list.planned(batches: false).plan))}
    """)
}
