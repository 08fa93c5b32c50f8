import LaminaFrame

/// One reading of a frame plan for the benches' plan figures (`lamina-bench plan`, and
/// `lottie-grid`'s `plan_…` figures and `--dump-plan`): the steps' names, the pixels a rect
/// holds, and each step with the area it is limited to and the area it writes.
enum PlanCensus {
    /// Pixels in `rect` (0 when empty).
    static func pixels(_ rect: PixelRect) -> Int { rect.isEmpty ? 0 : (rect.maxX - rect.minX) * (rect.maxY - rect.minY) }

    /// Pixels `pass` clears: its `clears` (a batch's members' regions) when it has them, else its area.
    static func cleared(_ pass: FramePass) -> Int {
        // A pass that goes on after a cut (`loads`) keeps its pixels: it clears nothing.
        pass.loads ? 0 : pass.clears.map { $0.reduce(0) { $0 + pixels($1) } } ?? pixels(pass.area)
    }

    /// The step's kind, as the benches' JSON and dumps name it.
    static func name(_ step: PassStep) -> String {
        switch step {
        case .items: "items"
        case .composite: "composite"
        case .filtered: "filtered"
        case .mask: "mask"
        case .region: "region"
        case .maskRegion: "mask_region"
        case .within: "within"
        case .blend: "blend"
        case .copy: "copy"
        case .blur: "blur"
        case .backdrop: "backdrop"
        }
    }

    /// Calls `body` for each of `pass`'s steps in order with the area the step is limited to
    /// (the pass's area, cut by the last `.within` before it or at it) and the area it writes
    /// from an image or a shader: the limit itself for a whole-area step (composite, filtered,
    /// mask, blend, copy), the step's own rect cut to the limit for region, maskRegion, blur and
    /// backdrop, and nil for `.items` and `.within`.
    static func forEachStep(of pass: FramePass, in plan: FramePlan,
                            _ body: (_ step: PassStep, _ within: PixelRect, _ writes: PixelRect?) -> Void) {
        var within = pass.area
        for s in pass.steps {
            let step = plan.steps[s]
            let writes: PixelRect?
            switch step {
            case .within(let r): within = r.intersection(pass.area); writes = nil
            case .items: writes = nil
            case .composite, .filtered, .mask, .blend, .copy: writes = within
            case .region(_, let r, _, _), .maskRegion(_, let r): writes = r.intersection(within)
            case .blur(_, _, _, _, _, let r, _), .backdrop(_, _, _, _, _, let r, _): writes = r.intersection(within)
            }
            body(step, within, writes)
        }
    }
}
