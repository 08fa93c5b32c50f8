import LaminaAnimation
import LaminaModel

/// A layer's `contents` cross-fading from the image it showed to the one it shows now: Core
/// Animation's implicit transition for `contents`, made when `contents` changes in a
/// transaction that does not disable actions (duration and timing are the transaction's).
/// Held by the render tree's node (`LayerNode.contentsFade`) until it ends; the draw-list
/// builder draws both images from it.
public struct ContentsFade: Equatable, Sendable {
    /// The image shown before the change (nil: none).
    public var from: String?
    /// Compositor time at which the fade starts.
    public var beginTime: Double
    /// Seconds (above 0).
    public var duration: Double
    public var timingFunction: TimingFunction

    public init(from: String?, beginTime: Double, duration: Double, timingFunction: TimingFunction) {
        self.from = from; self.beginTime = beginTime; self.duration = duration; self.timingFunction = timingFunction
    }

    /// Compositor time at which the new image shows alone.
    public var endTime: Double { beginTime + duration }

    /// How far the new image has faded in at compositor time `t`: 0 before the start, the
    /// timing function of the elapsed fraction during, 1 after.
    public func progress(at t: Double) -> Double {
        let x = (t - beginTime) / duration
        if !(x > 0) { return 0 }
        if x >= 1 { return 1 }
        return timingFunction.progress(x)
    }
}

extension LayerTree {
    /// Starts a contents cross-fade on a layer whose `contents` changed from `old` (see
    /// `ContentsFade`). A change during a fade ends that one and fades from the model image
    /// before the change (the partly faded mix is not kept). Clearing `contents` is at once
    /// (unlike Core Animation, which fades the old image out): the image is freed as soon as
    /// no layer shows it, as the protocol says.
    mutating func addContentsFade(_ id: LayerID, from old: String?, context: ApplyContext) {
        if nodes[existing: id].contentsFade != nil {
            nodes[existing: id].contentsFade = nil
            fadingLayers.remove(id)
            bumpVersion()
        }
        let s = context.settings
        guard s.runsActions, !context.created.contains(id),
              nodes[existing: id].properties.contents != nil else { return }
        let fade = ContentsFade(from: old, beginTime: context.time, duration: s.duration, timingFunction: s.timingFunction)
        nodes[existing: id].contentsFade = fade
        fadingLayers.insert(id)
        nextEndTime = min(nextEndTime, fade.endTime)
        bumpVersion()
    }

    /// Ends the fades that are over at `t`; returns the earliest end of those still running.
    mutating func advanceFades(to t: Double) -> Double {
        var next = Double.infinity
        guard !fadingLayers.isEmpty else { return next }
        for id in fadingLayers {
            guard let fade = nodes[id]?.contentsFade else { fadingLayers.remove(id); continue }
            if t >= fade.endTime {
                nodes[existing: id].contentsFade = nil
                fadingLayers.remove(id)
                bumpVersion()
            } else {
                next = min(next, fade.endTime)
            }
        }
        return next
    }

    /// Whether a running cross-fade draws the image named `name` as its old image, or a
    /// CATransition's old rendering shows it (LayerTree+ContentTransition.swift).
    public func fadeUses(_ name: String) -> Bool {
        fadingLayers.contains { nodes[$0]?.contentsFade?.from == name } || ghostsShow(name)
    }
}
