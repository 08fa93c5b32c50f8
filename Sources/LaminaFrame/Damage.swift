import LaminaGeometry

/// What changed in a frame, in device pixels, against an earlier frame's draw list: the
/// backend redraws only `rect` (scissor + render area) over what it kept of frame `since`,
/// and leaves every other pixel as it was.
public struct Damage: Sendable, Hashable {
    /// The pixels whose value may differ from frame `since`'s (empty: none).
    public var rect: PixelRect
    /// `DrawList.serial` of the frame this damage is relative to (never 0).
    public var since: UInt64

    public init(rect: PixelRect, since: UInt64) { self.rect = rect; self.since = since }

    /// The damaged share of a `width` × `height` target (0…1).
    public func fraction(width: Int, height: Int) -> Double {
        let r = rect.intersection(PixelRect(minX: 0, minY: 0, maxX: width, maxY: height))
        guard !r.isEmpty, width > 0, height > 0 else { return 0 }
        return Double((r.maxX - r.minX) * (r.maxY - r.minY)) / Double(width * height)
    }
}

/// Computes a frame's damage from its draw list and the previous one (render thread only).
///
/// The damage is the union of the device bounds, before and after, of every item whose
/// drawn output changed — an item that differs from the item at the same place in the
/// previous list (any field; a mesh by its `MeshID`), or whose clip chain changed — each
/// bounded as drawn: its anti-aliasing margin, a shadow's blur, a group's (each member cut by
/// its own clip: `clippedBounds`) or blurred shadow's whole content (markers compare their opacity, color, σ and item count), grown by
/// the blur of every blurred shadow it is the source of, and cut by its innermost clip.
/// Lists of different lengths align on their common prefix and suffix (not inside a group:
/// the aligned ends stop before any group open across them) and damage what lies between.
/// A new size or clear color, or no previous list, damages everything.
///
/// Only items that changed are bounded, so an unchanged frame costs one comparison per item
/// and no allocation once its buffers have grown.
public struct DamageTracker {
    /// Open groups while walking a list: where each ends and the blur it adds (pixels).
    private struct OpenGroup {
        var start: Int; var end: Int; var grow: Double
        /// A rasterized subtree's items: drawn in the raster atlas, not on the target (its
        /// marker and composite bound what it changes there).
        var atlas = false
    }
    private var oldOpen: [OpenGroup] = []
    private var newOpen: [OpenGroup] = []
    private var clipChanged: [Bool] = []

    public init() {}

    /// The pixels of `new` that may differ from `old`'s as drawn (the whole target without
    /// `old`, or when the size or clear color changed).
    public mutating func damage(from old: DrawList?, to new: DrawList) -> PixelRect {
        beneath.removeAll(keepingCapacity: true)
        let changed = itemDamage(from: old, to: new)
        return Self.widenedByBackdrops(changed, new, beneath: beneath)
    }

    /// `damage` (what the items changed) with what each `.backdrop` item of `list` (background
    /// filters) writes differently for it: where what lies beneath it changed — the changes of
    /// the items before it in painter's order (`beneath`: per backdrop's index, those items'
    /// damage; without it, all of `damage`), and what earlier backdrops add — the part of its
    /// device box within its blurs' reach of them, grown by the blurs of the filter groups and
    /// shadows it lies in. A change drawn over it adds nothing; a change of the item itself is
    /// in `damage` already (its box). Inside a rasterized subtree it adds nothing (the subtree's
    /// composite bounds every change of it).
    static func widenedByBackdrops(_ damage: PixelRect, _ list: DrawList, beneath: [(index: Int, rect: PixelRect)] = [])
        -> PixelRect {
        guard !damage.isEmpty else { return damage }
        let whole = PixelRect(minX: 0, minY: 0, maxX: max(list.width, 0), maxY: max(list.height, 0))
        var d = damage
        var added = PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0)  // what earlier backdrops add
        var next = 0  // into `beneath`
        list.items.withUnsafeBufferPointer { items in
            var open: [OpenGroup] = []
            for i in items.indices {
                Self.close(&open, at: i)
                defer { Self.open(items, i, &open) }
                guard items[i].isBackdrop, case .backdrop(let filters) = items[i].kind else { continue }
                while next < beneath.count, beneath[next].index < i { next += 1 }
                let under = (next < beneath.count && beneath[next].index == i ? beneath[next].rect : damage).union(added)
                guard !under.isEmpty, !open.contains(where: \.atlas),
                      let box = FramePlanner.box(items, i..<(i + 1), whole: whole, margin: 1), !box.isEmpty else { continue }
                let written = under.grown(by: FramePlanner.reach(filters)).intersection(box)
                guard !written.isEmpty else { continue }
                let grow = Int(open.reduce(0) { $0 + $1.grow }.rounded(.up))
                let out = written.grown(by: grow).intersection(whole)
                added = added.union(out)
                d = d.union(out)
            }
        }
        return d
    }

    /// Per `.backdrop` item of the list being compared (by index, ascending): the damage of the
    /// items before it (`widenedByBackdrops`); only filled by the pairwise comparison.
    private var beneath: [(index: Int, rect: PixelRect)] = []

    /// The pixels of `new` whose items changed from `old`'s (before background filters).
    private mutating func itemDamage(from old: DrawList?, to new: DrawList) -> PixelRect {
        let whole = PixelRect(minX: 0, minY: 0, maxX: max(new.width, 0), maxY: max(new.height, 0))
        guard let old, old.width == new.width, old.height == new.height, old.clearColor == new.clearColor else {
            return whole
        }
        if let delta = new.delta, delta.base == old.serial, old.serial != 0, !delta.hasMarkers,
           old.items.count == new.items.count, old.clips.count == new.clips.count {
            return damage(old, new, only: delta.rewritten, whole)
        }
        markChangedClips(old.clips, new.clips)
        var box = Box()
        let oc = old.items.count, nc = new.items.count
        old.items.withUnsafeBufferPointer { a in
            new.items.withUnsafeBufferPointer { b in
                oldOpen.removeAll(keepingCapacity: true)
                newOpen.removeAll(keepingCapacity: true)
                let n = min(oc, nc)
                var i = 0
                // Pairwise while both lists have items (all of them when the lengths are equal).
                while i < n {
                    Self.close(&oldOpen, at: i); Self.close(&newOpen, at: i)
                    if oc == nc, b[i].isBackdrop { beneath.append((i, box.pixels(within: whole))) }
                    if !same(a[i], old.clips, b[i], new.clips) {
                        if oc != nc { break }
                        if !(oldOpen.isEmpty && newOpen.isEmpty && addSurfaceChange(a[i], b[i], new, whole, into: &box)) {
                            add(a, i, old, oldOpen, whole, into: &box)
                            add(b, i, new, newOpen, whole, into: &box)
                        }
                        // Everything is damaged already (a scene that all moves): stop bounding.
                        if box.covers(whole) { return }
                    }
                    Self.open(a, i, &oldOpen); Self.open(b, i, &newOpen)
                    i += 1
                }
                guard oc != nc else { return }
                // Different lengths: `i` ends the common prefix; it must not lie inside a group
                // (a group's items would change around it), so go back to the outermost open one.
                var start = i
                if let outer = Self.outermostStart(a, oldOpen) { start = min(start, outer) }
                if let outer = Self.outermostStart(b, newOpen) { start = min(start, outer) }
                // The common suffix, after `start`, shortened until no group of either list is
                // open across its first item.
                var s = 0
                while s < n - start, same(a[oc - 1 - s], old.clips, b[nc - 1 - s], new.clips) { s += 1 }
                if s > 0 {
                    let crossedA = Self.crossed(a), crossedB = Self.crossed(b)
                    while s > 0, crossedA[oc - s] || crossedB[nc - s] { s -= 1 }
                }
                addRange(a, start..<(oc - s), old, whole, into: &box)
                addRange(b, start..<(nc - s), new, whole, into: &box)
            }
        }
        return box.pixels(within: whole)
    }

    /// A list patched from `old` (`DrawList.delta`): only the items in `ranges` can differ, with
    /// no group open anywhere (no markers) and every clip chain outside them unchanged (a clip
    /// changes only with its layer, whose items and sublayers' are in the ranges). The same
    /// rectangle as the full comparison, for the work of the changed items.
    private mutating func damage(_ old: DrawList, _ new: DrawList, only ranges: [Range<Int>],
                                 _ whole: PixelRect) -> PixelRect {
        markChangedClips(old.clips, new.clips)
        var box = Box()
        old.items.withUnsafeBufferPointer { a in
            new.items.withUnsafeBufferPointer { b in
                for range in ranges {
                    for i in range where !same(a[i], old.clips, b[i], new.clips) {
                        if addSurfaceChange(a[i], b[i], new, whole, into: &box) { continue }
                        add(a, i, old, [], whole, into: &box)
                        add(b, i, new, [], whole, into: &box)
                        if box.covers(whole) { return }
                    }
                }
            }
        }
        return box.pixels(within: whole)
    }

    // MARK: Comparing

    /// Whether two items draw the same thing (with the same clips): every value equal (a mesh
    /// by its `MeshID`; an image by its identity, geometry, filters and mode — an image's
    /// pixels never change under its identity, and a glyph atlas takes a new base when it
    /// evicts: TextDrawing.endFrame), and the clip chain unchanged.
    private func same(_ x: DrawItem, _ xClips: [Clip], _ y: DrawItem, _ yClips: [Clip]) -> Bool {
        guard x.drawsSame(as: y) else { return false }
        return !(x.clip >= 0 && (x.clip >= clipChanged.count || clipChanged[x.clip]))
    }

    /// Per clip of the new list: whether it (or an ancestor) differs from the old list's clip
    /// at the same index.
    private mutating func markChangedClips(_ old: [Clip], _ new: [Clip]) {
        clipChanged.removeAll(keepingCapacity: true)
        for (j, c) in new.enumerated() {
            var changed = j >= old.count
            if !changed {
                let o = old[j]
                changed = o.parent != c.parent || o.transform != c.transform || o.rect != c.rect || o.radii != c.radii
            }
            if !changed, c.parent >= 0 { changed = c.parent >= j || clipChanged[c.parent] }
            if !changed, c.parent < -1 { changed = true }
            clipChanged.append(changed)
        }
    }

    // MARK: Bounding

    /// A union of device-space boxes.
    struct Box {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        mutating func add(_ b: (minX: Double, minY: Double, maxX: Double, maxY: Double)) {
            minX = Swift.min(minX, b.minX); minY = Swift.min(minY, b.minY)
            maxX = Swift.max(maxX, b.maxX); maxY = Swift.max(maxY, b.maxY)
        }
        func covers(_ whole: PixelRect) -> Bool {
            minX <= Double(whole.minX) && minY <= Double(whole.minY) && maxX >= Double(whole.maxX) && maxY >= Double(whole.maxY)
        }
        func pixels(within whole: PixelRect) -> PixelRect {
            guard minX <= maxX, minY <= maxY else { return PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0) }
            let limit = Swift.max(whole.maxX, whole.maxY) + 8
            let r = PixelRect(minX: FramePlanner.pixel(minX, .down, within: limit),
                              minY: FramePlanner.pixel(minY, .down, within: limit),
                              maxX: FramePlanner.pixel(maxX, .up, within: limit),
                              maxY: FramePlanner.pixel(maxY, .up, within: limit)).intersection(whole)
            return r.isEmpty ? PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0) : r
        }
    }

    /// When `y` differs from `x` only by showing a newer version of the same surface (a surface
    /// layer's next buffer, outside any group), adds what that version changed — the damaged
    /// rectangles the client attached (`SurfaceStorage.damage(since:)`) mapped through the
    /// contents geometry and the transform, one texel wider for filtering (to the frame's edge
    /// where a rectangle meets the buffer's), with the anti-aliasing margin, cut by the clip —
    /// and returns true; false (nothing added) when not, or when the log no longer reaches back.
    private func addSurfaceChange(_ x: DrawItem, _ y: DrawItem, _ list: DrawList, _ whole: PixelRect,
                                  into box: inout Box) -> Bool {
        guard x.clip == y.clip, !(y.clip >= 0 && (y.clip >= clipChanged.count || clipChanged[y.clip])),
              let (old, new) = x.surfaceVersions(of: y), let surface = new.image.surface, new.geometry.slices == nil,
              let rects = surface.damage(since: old.image.surfaceVersion) else { return false }
        let f = new.geometry.frame, s = new.geometry.source
        guard f.width > 0, f.height > 0, s.width > 0, s.height > 0 else { return false }
        let w = Double(surface.width), h = Double(surface.height), m = y.transform
        var clipBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = nil
        if y.clip >= 0 {
            guard y.clip < list.clips.count, let c = Self.clipBounds(list.clips[y.clip], whole) else { return false }
            clipBox = c
        }
        var added = Box()
        for r in rects where r.width > 0 && r.height > 0 {
            let minX = r.x <= 0 ? f.minX : max(f.minX, f.minX + (Double(r.x - 1) / w - s.minX) / s.width * f.width)
            let maxX = r.x + r.width >= surface.width ? f.maxX
                : min(f.maxX, f.minX + (Double(r.x + r.width + 1) / w - s.minX) / s.width * f.width)
            let minY = r.y <= 0 ? f.minY : max(f.minY, f.minY + (Double(r.y - 1) / h - s.minY) / s.height * f.height)
            let maxY = r.y + r.height >= surface.height ? f.maxY
                : min(f.maxY, f.minY + (Double(r.y + r.height + 1) / h - s.minY) / s.height * f.height)
            guard minX < maxX, minY < maxY else { continue }
            var b = Box()
            for (px, py) in [(minX, minY), (maxX, minY), (minX, maxY), (maxX, maxY)] {
                let q = px * m.m14 + py * m.m24 + m.m44
                guard q > 1e-9 else { return false }
                let dx = (px * m.m11 + py * m.m21 + m.m41) / q, dy = (px * m.m12 + py * m.m22 + m.m42) / q
                b.add((dx, dy, dx, dy))
            }
            // The anti-aliasing margin and half a pixel for rounding, as `add`.
            var e = (minX: b.minX - 2, minY: b.minY - 2, maxX: b.maxX + 2, maxY: b.maxY + 2)
            if let c = clipBox {
                e = (max(e.minX, c.minX), max(e.minY, c.minY), min(e.maxX, c.maxX), min(e.maxY, c.maxY))
                guard e.minX <= e.maxX, e.minY <= e.maxY else { continue }
            }
            added.add(e)
        }
        if added.minX <= added.maxX { box.add((added.minX, added.minY, added.maxX, added.maxY)) }
        return true
    }

    /// Adds what item `i` of `list` can touch as drawn: its own bounds (a group's: its items')
    /// cut by its clip, grown by the blur of each open blurred shadow (`open`).
    private func add(_ items: UnsafeBufferPointer<DrawItem>, _ i: Int, _ list: DrawList,
                     _ open: [OpenGroup], _ whole: PixelRect, into box: inout Box) {
        // A group's marker spans its members; any other item only itself (its kind is not
        // made: a mesh item's would copy the mesh).
        let members = items[i].groupCount
        let span = max(members ?? 0, 0)
        // Inside a rasterized subtree: its marker (a new version) and composite bound the change.
        for o in open where o.atlas { return }
        let end = min(i + 1 + span, items.count)
        var groupBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        // Whether the item composites a group (no clip of its own applies, below).
        var isGroup = false
        if members == nil {
            groupBox = FramePlanner.deviceBounds(items, i..<end, width: whole.maxX, height: whole.maxY)
        } else {
            let kind = items[i].kind
            switch kind {
            case .group, .blend, .mask: groupBox = Self.clippedBounds(items, (i + 1)..<end, list, whole)
            default: groupBox = FramePlanner.deviceBounds(items, i..<end, width: whole.maxX, height: whole.maxY)
            }
            switch kind { case .mask, .blend, .filter, .raster: isGroup = true; default: break }
        }
        guard var b = groupBox else { return }
        if members != nil, case .shadowGroup(_, let sigma, _) = items[i].kind {
            let g = Self.blurGrow(sigma)
            b = (b.minX - g, b.minY - g, b.maxX + g, b.maxY + g)
        }
        // (A filter group's blur reach is in its bounds: `FramePlanner.deviceBounds`.)
        // Its innermost clip (the chain only narrows it further); a group's composite has none,
        // but a `.group` marker may carry the clip all its items lie within (a moving
        // CATransition's: DrawListBuilder+ContentTransition.swift).
        let clip = items[i].clip
        if !isGroup, clip >= 0, clip < list.clips.count, let c = Self.clipBounds(list.clips[clip], whole) {
            b = (max(b.minX, c.minX), max(b.minY, c.minY), min(b.maxX, c.maxX), min(b.maxY, c.maxY))
            guard b.minX <= b.maxX, b.minY <= b.maxY else { return }
        }
        var grow = 0.0
        for o in open { grow += o.grow }
        // A margin of half a pixel beyond what the planner allows, for rounding.
        grow += 0.5
        box.add((b.minX - grow, b.minY - grow, b.maxX + grow, b.maxY + grow))
    }

    /// What the items of `range` (a group's, a blend's or a mask's members) can touch: the
    /// union of each drawing item's device bounds cut by its own clip — a group composites
    /// nothing outside what its members draw, so members moved past their clip (a moving
    /// CATransition's renderings) do not widen it. A blurring filter group, a blurred shadow
    /// or a rasterized subtree inside counts whole, as `FramePlanner.deviceBounds` bounds it.
    static func clippedBounds(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, _ list: DrawList,
                              _ whole: PixelRect) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        func add(_ b: (minX: Double, minY: Double, maxX: Double, maxY: Double)) {
            guard let o = box else { box = b; return }
            box = (min(o.minX, b.minX), min(o.minY, b.minY), max(o.maxX, b.maxX), max(o.maxY, b.maxY))
        }
        var k = range.lowerBound
        while k < range.upperBound {
            let item = items[k]
            switch item.kind {
            case .group, .blend, .mask:
                k += 1  // its members follow, each cut by its clip
                continue
            case .filter(_, _, let count), .shadowGroup(_, _, let count):
                let end = min(k + 1 + max(count, 0), range.upperBound)
                if var b = FramePlanner.deviceBounds(items, k..<end, width: whole.maxX, height: whole.maxY) {
                    if case .shadowGroup(_, let sigma, _) = item.kind {
                        let g = blurGrow(sigma)
                        b = (b.minX - g, b.minY - g, b.maxX + g, b.maxY + g)
                    }
                    add(b)
                }
                k = end
                continue
            case .raster(let r):
                let end = min(k + 1 + max(r.count, 0), range.upperBound)
                if let b = FramePlanner.deviceBounds(items, k..<end, width: whole.maxX, height: whole.maxY) { add(b) }
                k = end
                continue
            default:
                break
            }
            k += 1
            guard var b = FramePlanner.deviceBounds(items, (k - 1)..<k, width: whole.maxX, height: whole.maxY) else { continue }
            let clip = item.clip
            if clip >= 0, clip < list.clips.count, let c = clipBounds(list.clips[clip], whole) {
                b = (max(b.minX, c.minX), max(b.minY, c.minY), min(b.maxX, c.maxX), min(b.maxY, c.maxY))
                guard b.minX <= b.maxX, b.minY <= b.maxY else { continue }
            }
            add(b)
        }
        return box
    }

    /// Adds every item of `range` (as `add`), walking `list` from its start for the open groups.
    private mutating func addRange(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, _ list: DrawList,
                                   _ whole: PixelRect, into box: inout Box) {
        guard !range.isEmpty else { return }
        oldOpen.removeAll(keepingCapacity: true)
        for i in 0..<range.upperBound {
            Self.close(&oldOpen, at: i)
            if i >= range.lowerBound { add(items, i, list, oldOpen, whole, into: &box) }
            Self.open(items, i, &oldOpen)
        }
    }

    /// How far a blurred shadow of σ reaches beyond its source's box (the planner's ⌈3σ⌉ + 1).
    static func blurGrow(_ sigma: Double) -> Double {
        let s = min(sigma.isFinite ? max(sigma, 0) : 0, 100_000)
        return (3 * s).rounded(.up) + 1
    }

    private static func clipBounds(_ clip: Clip, _ whole: PixelRect) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        let item = DrawItem(transform: clip.transform, bounds: clip.rect, backgroundColor: .clear)
        return [item].withUnsafeBufferPointer { FramePlanner.deviceBounds($0, 0..<1, width: whole.maxX, height: whole.maxY) }
    }

    // MARK: Open groups

    private static func close(_ open: inout [OpenGroup], at i: Int) {
        while let last = open.last, last.end <= i { open.removeLast() }
    }

    private static func open(_ items: UnsafeBufferPointer<DrawItem>, _ i: Int, _ open: inout [OpenGroup]) {
        // Most items open nothing: tell them by their storage, without making their kind.
        guard items[i].groupCount != nil else { return }
        switch items[i].kind {
        case .group(_, let count), .mask(let count), .blend(_, _, let count):
            open.append(OpenGroup(start: i, end: i + 1 + max(count, 0), grow: 0))
        case .shadowGroup(_, let sigma, let count):
            open.append(OpenGroup(start: i, end: i + 1 + max(count, 0), grow: blurGrow(sigma)))
        case .filter(let filters, _, let count):
            open.append(OpenGroup(start: i, end: i + 1 + max(count, 0), grow: Double(FramePlanner.reach(filters))))
        case .raster(let r):
            open.append(OpenGroup(start: i, end: i + 1 + max(r.count, 0), grow: 0, atlas: true))
        default: break
        }
    }

    /// The marker of the outermost group open in `open`, if any.
    private static func outermostStart(_ items: UnsafeBufferPointer<DrawItem>, _ open: [OpenGroup]) -> Int? {
        open.first?.start
    }

    /// Per index of `items` (and one past the end): whether some group starts before it and
    /// ends after it (its items continue there), for every index in one pass.
    private static func crossed(_ items: UnsafeBufferPointer<DrawItem>) -> [Bool] {
        var out = [Bool](repeating: false, count: items.count + 1)
        var reach = 0  // the furthest end of a group begun so far
        for i in 0..<items.count {
            out[i] = reach > i
            if let count = items[i].groupCount { reach = max(reach, i + 1 + max(count, 0)) }
        }
        out[items.count] = reach > items.count
        return out
    }
}
