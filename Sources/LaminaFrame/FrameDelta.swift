/// Where a patched list can differ from the list it was patched from (`DrawListPatcher`):
/// what the damage, the instance upload and the recorded commands of the frame after it may
/// reuse. A full build has none (`DrawList.delta` nil): everything is new.
public struct FrameDelta: Sendable {
    /// `serial` of the list it was patched from (the builder's previous list).
    public var base: UInt64
    /// Item ranges rewritten with new values (the changed layers' visits), ascending.
    public var rewritten: [Range<Int>]
    /// The parts of `rewritten` (ascending, disjoint) whose items differ from the base list's
    /// in transform and opacity only (leaves that only moved or faded): their instances'
    /// content part is as before (`RectInstance.writeMotion`). Empty when none are known.
    public var motionOnly: [Range<Int>] = []
    /// Whether the list has group or blurred-shadow markers (then its plan, damage and
    /// instances are made anew).
    public var hasMarkers: Bool

    public init(base: UInt64, rewritten: [Range<Int>], motionOnly: [Range<Int>] = [], hasMarkers: Bool) {
        self.base = base
        self.rewritten = rewritten
        self.motionOnly = motionOnly
        self.hasMarkers = hasMarkers
    }
}

/// The deltas (`DrawList.delta`) of the lists a renderer saw lately, newest last: which item
/// ranges changed from each list to the next, whole or in motion only (transform and opacity:
/// `FrameDelta.motionOnly`). Copies the ranges into buffers of its own (so the builder's
/// alternating buffers stay unshared). Render thread only.
package struct FrameDeltaHistory {
    private var serials: [UInt64] = []
    /// The list each was patched from, 0 for a full build (or a list with group markers).
    private var bases: [UInt64] = []
    /// Per list: the ranges changed whole, and those changed in motion only (disjoint).
    private var ranges: [[Range<Int>]] = []
    private var motionRanges: [[Range<Int>]] = []
    private let capacity: Int
    /// Scratch for `changed` (its whole ranges before they are subtracted from the motion ones).
    private var scratch: [Range<Int>] = []
    /// The ranges `delta` returns, kept between calls.
    private var wholeScratch: [Range<Int>] = [], motionScratch: [Range<Int>] = []

    package init(capacity: Int) { self.capacity = capacity }

    /// Notes the next list seen.
    package mutating func note(_ list: DrawList) {
        var reused: [Range<Int>] = [], reusedMotion: [Range<Int>] = []
        if serials.count == capacity {
            serials.removeFirst()
            bases.removeFirst()
            reused = ranges.removeFirst()
            reusedMotion = motionRanges.removeFirst()
        }
        reused.removeAll(keepingCapacity: true)
        reusedMotion.removeAll(keepingCapacity: true)
        var base: UInt64 = 0
        if let delta = list.delta, list.serial != 0, !delta.hasMarkers {
            base = delta.base
            // Whole: the ranges less their motion parts (a subset of them).
            Self.subtract(delta.motionOnly, from: delta.rewritten, into: &reused)
            reusedMotion.append(contentsOf: delta.motionOnly)
        }
        serials.append(list.serial)
        bases.append(base)
        ranges.append(reused)
        motionRanges.append(reusedMotion)
    }

    /// The delta of the newest list from list `serial` (its `base`), when `changed` finds one
    /// (below): what the encoder of a ring holding list `serial` rewrites. It shares the
    /// history's scratch buffers: let it go before the next call (no copy when they are refilled).
    package mutating func delta(since serial: UInt64, items: Int) -> FrameDelta? {
        var whole = wholeScratch, motion = motionScratch
        wholeScratch = []
        motionScratch = []
        defer { wholeScratch = whole; motionScratch = motion }
        guard changed(since: serial, items: items, whole: &whole, motion: &motion) else { return nil }
        return FrameDelta(base: serial, rewritten: whole, motionOnly: motion, hasMarkers: false)
    }

    /// The item ranges outside which the newest list's `items` items equal those of list
    /// `serial`, when the lists since it were each patched from the one before: `whole`, the
    /// items changed in any way by one of them, and `motion`, those only moved or faded by
    /// each that changed them (both ascending, disjoint, and disjoint from each other). True
    /// when found and together they cost at most three quarters of writing every item (a
    /// motion-only item a quarter of a whole one; more are written as fast in full, and a
    /// patch that fails costs twice), each item counted once however many of the lists changed
    /// it: a ring two lists behind is patched when the same items change every frame, as they
    /// do in an animation. False otherwise (then every item is written).
    private mutating func changed(since serial: UInt64, items: Int, whole: inout [Range<Int>],
                                  motion: inout [Range<Int>]) -> Bool {
        whole.removeAll(keepingCapacity: true)
        motion.removeAll(keepingCapacity: true)
        guard serial != 0, var i = serials.indices.last else { return false }
        let bound = items * 3
        while serials[i] != serial {
            guard bases[i] != 0, i > 0, serials[i - 1] == bases[i] else { return false }
            // One list's own cost bounds the union's from below (its whole items stay whole
            // there, its moved ones are moved or whole): past the bound, stop here.
            var cost = 0
            for range in ranges[i] {
                cost += 4 * range.count
                whole.append(range)
            }
            for range in motionRanges[i] {
                cost += range.count
                motion.append(range)
            }
            guard cost <= bound else { return false }
            i -= 1
        }
        Self.merge(&whole)
        Self.merge(&motion)
        if !whole.isEmpty, !motion.isEmpty {
            scratch.removeAll(keepingCapacity: true)
            Self.subtract(whole, from: motion, into: &scratch)
            swap(&motion, &scratch)
        }
        return 4 * Self.count(whole) + Self.count(motion) <= bound
    }

    /// Items in `ranges`.
    private static func count(_ ranges: [Range<Int>]) -> Int {
        ranges.reduce(0) { $0 + $1.count }
    }

    /// Sorts `ranges` and merges overlapping or adjacent ones: ascending and disjoint.
    package static func merge(_ out: inout [Range<Int>]) {
        guard out.count > 1 else { return }
        out.sort { $0.lowerBound < $1.lowerBound }
        var merged = 0
        for k in 1..<out.count {
            if out[k].lowerBound <= out[merged].upperBound {
                out[merged] = out[merged].lowerBound..<max(out[merged].upperBound, out[k].upperBound)
            } else {
                merged += 1
                out[merged] = out[k]
            }
        }
        out.removeLast(out.count - merged - 1)
    }

    /// Appends to `out` the parts of `ranges` outside `removed` (both ascending and disjoint).
    package static func subtract(_ removed: [Range<Int>], from ranges: [Range<Int>], into out: inout [Range<Int>]) {
        var r = 0
        for range in ranges {
            var lower = range.lowerBound
            while r < removed.count, removed[r].upperBound <= lower { r += 1 }
            var q = r
            while lower < range.upperBound {
                guard q < removed.count, removed[q].lowerBound < range.upperBound else {
                    out.append(lower..<range.upperBound)
                    break
                }
                if removed[q].lowerBound > lower { out.append(lower..<removed[q].lowerBound) }
                lower = max(lower, removed[q].upperBound)
                q += 1
            }
        }
    }
}
