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
        let px = PlanCensus.pixels
        var cleared = 0, offscreen = 0, imageArea = 0
        var drawn: [String: (steps: Int, pixels: Int)] = [:]
        var imageAreas: [Int: PixelRect] = [:]  // where each image was last drawn (a composite reads that)
        for pass in plan.passes {
            defer {
                if case .image(let image) = pass.target { imageAreas[image] = pass.area }
                if let copy = pass.copyOut { imageAreas[copy.image] = copy.area }
            }
            cleared += PlanCensus.cleared(pass)
            if case .image = pass.target { offscreen += 1; imageArea += PlanCensus.cleared(pass) }
            PlanCensus.forEachStep(of: pass, in: plan) { step, _, writes in
                if case .within = step { return }
                var pixels = writes.map(px) ?? 0
                switch step {
                case .composite(let image, _), .filtered(let image, _, _):
                    if let w = writes, let a = imageAreas[image] { pixels = px(a.intersection(w)) }
                default: break
                }
                let kind = PlanCensus.name(step), d = drawn[kind] ?? (0, 0)
                drawn[kind] = (d.steps + 1, d.pixels + pixels)
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
