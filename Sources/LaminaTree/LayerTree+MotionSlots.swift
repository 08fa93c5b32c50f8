
// Added by the draw-list work (issue 11 item 5): what the retained draw list needs to know of
// the presentation plan beyond `presentationChangedSlots`.

/// Per slot, what its animations change (`LayerTree.markMotionOnlySlots`).
public struct MotionSlotFlags: OptionSet, Sendable {
    public let rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Animated, but only in how it is placed and how opaque it is (position, anchor point,
    /// zPosition, transform, sublayerTransform, a component of either, opacity).
    @inlinable public static var motionOnly: MotionSlotFlags { MotionSlotFlags(rawValue: 1) }
    /// Its zPosition or anchorPointZ is animated (else both are the model's).
    @inlinable public static var depth: MotionSlotFlags { MotionSlotFlags(rawValue: 2) }
    /// Left clear for the caller (the draw-list builder notes a slot whose model values it keeps).
    @inlinable public static var spare: MotionSlotFlags { MotionSlotFlags(rawValue: 4) }
    /// Left clear for the caller, as `spare`.
    @inlinable public static var spare2: MotionSlotFlags { MotionSlotFlags(rawValue: 8) }
}

extension LayerTree {
    /// Sets `flags[slot]` (the array sized to `count`, all empty) for each slot of
    /// `presentationChangedSlots`: `.motionOnly` when its animations change only how the layer
    /// is placed and how opaque it is — position, anchor point, zPosition, transform,
    /// sublayerTransform (or a component of either) and opacity — so that its own drawing is
    /// the same but moved and faded; `.depth` when one of them animates zPosition or
    /// anchorPointZ. False, changing nothing, when `presentationChangedSlots` is nil. Costs a
    /// look at each binding; makes no array when `flags` has the right size.
    public func markMotionOnlySlots(_ flags: inout [MotionSlotFlags]) -> Bool {
        guard presentationChangedSlots != nil else { return false }
        if flags.count != count { flags = Array(repeating: [], count: count) }
        guard let plan = presentationPlan else { return true }
        for slot in plan.animatedSlots where slot >= 0 && slot < count { flags[slot].insert(.motionOnly) }
        // The general bindings, by layer.
        for g in plan.groups where g.index >= 0 && g.index < count {
            for j in g.start..<g.end {
                let channel = plan.bindings[j].channel
                if !Self.isMotion(channel) { flags[g.index].remove(.motionOnly) }
                if Self.isDepth(channel) { flags[g.index].insert(.depth) }
            }
        }
        // The fast path's runs (PresentationPlan+Fast.swift: one channel each, records by node).
        for run in plan.fastRuns {
            let motion = Self.isMotion(run.channel), depth = Self.isDepth(run.channel)
            guard !motion || depth else { continue }
            func mark(_ node: Int) {
                guard node >= 0 && node < count else { return }
                if !motion { flags[node].remove(.motionOnly) }
                if depth { flags[node].insert(.depth) }
            }
            if case .four = run.lanes {
                for r in run.start..<run.end { mark(Int(plan.fastVectors[r].node)) }
            } else {
                for r in run.start..<run.end { mark(Int(plan.fastScalars[r].node)) }
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

    private static func isDepth(_ channel: PresentationChannel) -> Bool {
        switch channel {
        case .zPosition, .anchorPointZ: true
        default: false
        }
    }
}
