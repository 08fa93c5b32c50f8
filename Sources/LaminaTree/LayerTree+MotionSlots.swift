// Added by the draw-list work (issue 11 item 5): what the retained draw list needs to know of
// the presentation plan beyond `presentationChangedSlots`.

extension LayerTree {
    /// Sets `flags[slot]` (the array sized to `count`, all false) to true for each slot of
    /// `presentationChangedSlots` whose animations change only how the layer is placed and how
    /// opaque it is — position, anchor point, zPosition, transform, sublayerTransform (or a
    /// component of either) and opacity — so that its own drawing is the same but moved and
    /// faded. False, changing nothing, when `presentationChangedSlots` is nil. Costs a look at
    /// each binding; makes no array when `flags` has the right size.
    public func markMotionOnlySlots(_ flags: inout [Bool]) -> Bool {
        guard presentationChangedSlots != nil else { return false }
        if flags.count != count { flags = Array(repeating: false, count: count) }
        guard let plan = presentationPlan else { return true }
        for slot in plan.animatedSlots where slot >= 0 && slot < count { flags[slot] = true }
        // The general bindings, by layer.
        for g in plan.groups where g.index >= 0 && g.index < count {
            for j in g.start..<g.end where !Self.isMotion(plan.bindings[j].channel) {
                flags[g.index] = false
                break
            }
        }
        // The fast path's runs (PresentationPlan+Fast.swift: one channel each, records by node).
        for run in plan.fastRuns where !Self.isMotion(run.channel) {
            if case .four = run.lanes {
                for r in run.start..<run.end {
                    let node = Int(plan.fastVectors[r].node)
                    if node >= 0 && node < count { flags[node] = false }
                }
            } else {
                for r in run.start..<run.end {
                    let node = Int(plan.fastScalars[r].node)
                    if node >= 0 && node < count { flags[node] = false }
                }
            }
        }
        return true
    }

    private static func isMotion(_ channel: PresentationChannel) -> Bool {
        switch channel {
        case .position, .positionX, .positionY, .zPosition, .anchorPoint, .anchorPointX, .anchorPointY, .anchorPointZ,
             .transform, .sublayerTransform, .opacity, .transformComponent, .sublayerTransformComponent:
            true
        default:
            false
        }
    }
}
