import LaminaModel
import LaminaGeometry

/// A rectangle of whole device pixels, `min` inclusive, `max` exclusive.
public struct PixelRect: Sendable, Hashable {
    public var minX: Int, minY: Int, maxX: Int, maxY: Int

    public init(minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }

    public var isEmpty: Bool { maxX <= minX || maxY <= minY }

    public func intersection(_ other: PixelRect) -> PixelRect {
        PixelRect(minX: max(minX, other.minX), minY: max(minY, other.minY),
                  maxX: min(maxX, other.maxX), maxY: min(maxY, other.maxY))
    }
}

/// One render pass of a frame: what it draws into, the part of that image it clears and
/// draws, its steps and the passes whose images it samples (which come before it).
public struct FramePass: Sendable, Hashable {
    /// What a pass draws into.
    public enum Target: Sendable, Hashable {
        /// The frame's image (the offscreen target or, later, a window's swapchain image).
        case frame
        /// Offscreen image `n` of the frame (target-sized; `FramePlan.imageCount` of them). An
        /// image is reused within the frame once the pass that samples it is done.
        case image(Int)
        /// Page `n` of the raster atlas (`DrawList.rasterAtlas`, the target's size), kept between
        /// frames: the pass clears and draws only its area (a rasterized subtree's region) and
        /// leaves the rest of the page as it was.
        case atlas(Int)
    }

    public var target: Target
    /// Cleared and drawn (render area and scissor): the whole target, a group's items' device
    /// box (the composite reads only that), a mask's group's area, or a blurred shadow's
    /// box on it.
    public var area: PixelRect
    /// `FramePlan.steps[steps]`, in order.
    public var steps: Range<Int>
    /// `FramePlan.dependencies[dependencies]`: indices of the passes whose images this pass
    /// samples (all before it in `FramePlan.passes`).
    public var dependencies: Range<Int>
    /// Cleared to the frame's clear color instead of transparent (an image that holds a
    /// frame pass's content so far: the backdrop of a blend in the frame pass).
    public var clearsToFrameColor = false
    /// An `.atlas` pass: the version of the drawing it makes in its area (`RasterDraw.version`).
    /// A backend whose page holds that version in that area already may leave the pass out.
    public var rasterVersion: UInt64 = 0
    /// The pass continues an earlier pass of the same target that was cut (`copyOut`): its
    /// target holds that pass's pixels, which it keeps (not cleared) and draws over.
    public var loads = false
    /// After the pass: part of its target copied into an offscreen image (background filters'
    /// backdrop, or a blend's), and the pass goes on in a later pass that `loads`.
    public var copyOut: CopyOut? = nil

    /// Part of a pass's target copied into offscreen image `image` once the pass is done.
    public struct CopyOut: Sendable, Hashable {
        /// The offscreen image written (target-sized; only `area` of it).
        public var image: Int
        /// The pixels copied, at the same place in the image.
        public var area: PixelRect
        /// What reads the copy: a pixel of `box` (written by the continuing pass) reads it
        /// within `reach` pixels (a backdrop's blurs; 0: the same pixel, a blend). A backend that
        /// draws only part of the continuing pass (the frame's damage) must have drawn the pass
        /// before the copy right within that part of `box` grown by `reach`.
        public var box: PixelRect
        public var reach: Int

        public init(image: Int, area: PixelRect, box: PixelRect, reach: Int) {
            self.image = image; self.area = area; self.box = box; self.reach = reach
        }
    }
    /// The parts of `area` the pass clears when not all of it: a batch's members' regions
    /// (`FramePlanner`'s batches; each within `area`). The rest of `area` keeps whatever the
    /// image held: nothing reads it — each member's steps draw within its region, and whatever
    /// reads the image (the parent's `.region` and `.maskRegion` steps, the next filter step)
    /// reads only within the members' regions. Nil: all of `area`.
    public var clears: [PixelRect]? = nil
}

/// One step of a pass, in painter's order.
public enum PassStep: Sendable, Hashable {
    /// Items `range` of `DrawList.items` (no group or shadow-group markers among them).
    case items(Range<Int>)
    /// Offscreen image `image` drawn over the pass with `opacity` (a group's content).
    case composite(image: Int, opacity: Double)
    /// Offscreen image `image` through a 4×5 color `matrix` (row by row, on unpremultiplied
    /// values, each result clamped to [0, 1]: a filter group's color filter), times `opacity`,
    /// drawn over the pass (source-over) within the box of the pass that drew the image.
    case filtered(image: Int, matrix: [Double], opacity: Double)
    /// What the pass drew so far multiplied by offscreen image `image`'s alpha (a mask's
    /// composited content: destination-in over the whole pass area).
    case mask(image: Int)
    /// `area` of offscreen image `image` (a batched group's region of an image its batch shares:
    /// `FramePlanner`), through the 4×5 color `matrix` when there is one (as `.filtered`), times
    /// `opacity`, drawn over the pass (source-over) within `area`.
    case region(image: Int, area: PixelRect, matrix: [Double]?, opacity: Double)
    /// What the pass drew so far within `area` (a batched group's region) multiplied by offscreen
    /// image `image`'s alpha there (a batched mask: destination-in over `area`).
    case maskRegion(image: Int, area: PixelRect)
    /// The steps after it, up to the next `.within`, draw only within `area` (cut to the pass's
    /// area): a batched pass's member (`FramePlanner`'s batches) draws within its region, as its
    /// own pass would, so nothing of it (a mask's or blend's unclipped items, a filter group
    /// reaching past it, a mask's destination-in) touches another member's region.
    case within(PixelRect)
    /// Offscreen image `source` (a blend group's content) times `opacity`, blended with `mode`
    /// over offscreen image `backdrop` (what the pass drew before it), written over the whole
    /// pass area in place of what is there (no blending).
    case blend(source: Int, backdrop: Int, mode: BlendMode, opacity: Double)
    /// Offscreen image `image` written in place of the pass's pixels (the pass so far, moved
    /// into an image to free the images it held: `FramePlanner.maxLiveImages`).
    case copy(image: Int)
    /// One direction of a blurred shadow's separable Gaussian: image `source`'s alpha blurred
    /// by `sigma` device pixels along x (along y when `vertical`), reads clamped to `valid` (the
    /// part of `source` its pass cleared), drawn over `valid` scissored to `scissor`. The
    /// vertical step draws in the color, opacity and clip of the `.shadowGroup` item
    /// `DrawList.items[marker]`; the horizontal one draws the blurred alpha in black. When the
    /// marker is a `.filter` group's, both directions blur all four channels (premultiplied)
    /// and draw them as they are (a filter's Gaussian blur).
    ///
    /// `readScale` (filters' and background filters' blurs only): the source is read at the
    /// pixel's position times it — 2 reads the [1 3 3 1] filter around twice the position (a
    /// half-size copy, `sigma` 0), ½ reads a half-size image bilinearly (its upsampling, `sigma` 0).
    case blur(source: Int, marker: Int, vertical: Bool, sigma: Double, valid: PixelRect, scissor: PixelRect,
              readScale: Double = 1)
    /// Background filters' result (the `.backdrop` item `DrawList.items[marker]`): image
    /// `source` (the filtered backdrop) blurred vertically by `sigma` device pixels (0: read as
    /// it is), reads clamped to `valid`, written over `scissor` (the item's device box) in
    /// place of the pass's pixels as the mix of image `backdrop` (what the pass drew before
    /// the item) and it by the item's coverage (its bounds cut by its clip) × its opacity.
    /// `readScale` ½: `source` is a half-size image (a downsampled blur), read bilinearly.
    case backdrop(source: Int, backdrop: Int, marker: Int, sigma: Double, valid: PixelRect, scissor: PixelRect,
                  readScale: Double = 1)
}

/// A frame's explicit passes, children before the passes that sample their images; the last
/// pass draws into the frame. Made from a draw list's items by `FramePlanner` (the builder
/// does it as it builds the list), so a backend only records passes and never reads the
/// group structure from the items.
public struct FramePlan: Sendable, Hashable {
    public var passes: [FramePass] = []
    public var steps: [PassStep] = []
    public var dependencies: [Int] = []
    /// Offscreen images the frame needs at once (at most).
    public var imageCount = 0

    public init() {}

    /// The passes a backend leaves out when its atlas pages hold the `.atlas` passes marked in
    /// `held` (a rasterized subtree drawn before): those, and every offscreen pass that no pass
    /// drawn samples — the groups, masks and filters inside a held subtree, which only its atlas
    /// pass reads. Drawn: the frame's passes, the atlas passes not held, passes that continue a
    /// cut pass or copy out of theirs, and every pass a drawn pass samples (dependencies lie
    /// before their reader, so one walk back decides them).
    public func passesLeftOut(held: [Bool]) -> [Bool] {
        var drawn = [Bool](repeating: false, count: passes.count)
        var out = [Bool](repeating: false, count: passes.count)
        for index in passes.indices.reversed() {
            let pass = passes[index]
            switch pass.target {
            case .frame: drawn[index] = true
            case .atlas: drawn[index] = !(index < held.count && held[index])
            case .image: drawn[index] = drawn[index] || pass.loads || pass.copyOut != nil
            }
            if drawn[index] {
                for d in dependencies[pass.dependencies] where d >= 0 && d < index { drawn[d] = true }
            } else {
                out[index] = true
            }
        }
        return out
    }
}

/// Turns a draw list's items (with their `.group` and `.shadowGroup` markers) into a
/// `FramePlan`. Keeps its buffers between frames (render thread: one per builder).
///
/// A group with opacity > 0 and items becomes a pass into an image of its own, composited
/// over its parent's pass. A mask becomes a pass into an image of its own, and a `.mask` step
/// of its group's pass after the content (an empty mask clears the content). A blurred shadow becomes three steps: its items drawn into an
/// image over their device bounding box grown by ⌈3σ⌉ + 1 (clamped to the target), the
/// horizontal blur of that into a second image, and the vertical blur drawn in the parent's
/// pass; a shadow that draws nothing (no items, an empty box, zero opacity or alpha) is left
/// out with its items. Images are handed out lowest free first in the order the passes are
/// opened and are free again once the pass that samples them is complete.
///
/// Batches: the groups, filter groups and masks that are direct children of one pass (of all
/// the regions of a batched pass: one nesting level) and whose regions — the areas their
/// passes would clear — do not overlap share images: each kind (groups; masks; filter groups
/// with the same sequence of filter kinds) is dealt greedily into at most `maxBatches` images
/// in painter's order, each region where it lies on the target (an image is target-sized, so
/// a region needs no other coordinates and its items are drawn as they are). A batch of two or
/// more is drawn by one pass per step — its members' contents in one pass over their regions'
/// union, each filter step one pass with a step per member (its own σ or matrix, read and
/// drawn within its region), the masks' contents in one pass — and each member is drawn in its
/// parent's pass by a `.region` (or `.maskRegion`) step at its place in painter's order. So a
/// frame's passes grow with its nesting depth and how much its groups overlap, not with how
/// many groups it has. A member's pixels are those of its own pass: its steps in the shared pass
/// follow a `.within` of its region (the recorder's scissor, as its own pass's area would be),
/// nothing else is drawn in its region, and every read is clamped to it. A batch's pass clears
/// only its members' regions (`FramePass.clears`), not their union: what lies between them is
/// never read.
public struct FramePlanner {
    private var plan = FramePlan()
    /// Per nesting depth: the steps and dependencies of the pass being collected.
    private var stepStack: [[PassStep]] = []
    private var dependencyStack: [[Int]] = []
    /// Per nesting depth: whether the pass being collected continues one cut before it (`loads`).
    private var continuingStack: [Bool] = []
    private var freeImages: [Int] = []
    /// Images live at once beyond which a pass that holds several (sibling groups, masks,
    /// shadows: each image held until the pass that samples it is complete) is cut before its
    /// next group: its steps so far go into one image, and the pass starts again with a
    /// `.copy` of it, so it holds one. Keeps a frame within the renderer's images
    /// (`OffscreenRenderer.maxGroups`, 128) for any number of sibling groups.
    public static let maxLiveImages = 64
    /// Shared images one pass's batches may hold at most (all kinds together); members that fit
    /// in none keep passes of their own. No batches are made while `batchLiveLimit` images are
    /// live (deep nesting), so batches add at most that many to `maxLiveImages`.
    public static let maxBatches = 24
    public static let batchLiveLimit = 32
    /// Side of the cells (device pixels) in which a batch notes the regions it holds.
    static let batchCell = 8
    /// True (the default): batches (see above). False: every group in passes of its own (for
    /// tests and measurements); both draw the same bytes.
    public var batches = true
    /// True (the default): background filters copy their backdrop out of the pass, which is cut
    /// there (`FramePass.copyOut`). False: the pass's steps so far are drawn again into the
    /// backdrop image, as an atlas page's pass always does (for tests and measurements); both
    /// draw the same bytes.
    public var copiesBackdrops = true

    public init(batches: Bool = true, copiesBackdrops: Bool = true) {
        self.batches = batches
        self.copiesBackdrops = copiesBackdrops
    }

    /// The plan of `items` on a `width` × `height` target.
    public static func plan(_ items: [DrawItem], width: Int, height: Int, batches: Bool = true,
                            copiesBackdrops: Bool = true) -> FramePlan {
        var planner = FramePlanner(batches: batches, copiesBackdrops: copiesBackdrops)
        return planner.plan(items, width: width, height: height)
    }

    /// The plan of `items` on a `width` × `height` target, reusing this planner's buffers.
    public mutating func plan(_ items: [DrawItem], width: Int, height: Int) -> FramePlan {
        plan.passes.removeAll(keepingCapacity: true)
        plan.steps.removeAll(keepingCapacity: true)
        plan.dependencies.removeAll(keepingCapacity: true)
        plan.imageCount = 0
        freeImages.removeAll(keepingCapacity: true)
        let whole = PixelRect(minX: 0, minY: 0, maxX: max(width, 0), maxY: max(height, 0))
        items.withUnsafeBufferPointer { items in
            _ = collect(items, [Segment(range: 0..<items.count, area: whole)], target: .frame, area: whole, whole: whole,
                        depth: 0)
        }
        return plan
    }

    private mutating func allocateImage() -> Int {
        if let image = freeImages.popLast() { return image }
        plan.imageCount += 1
        return plan.imageCount - 1
    }

    /// A blur filter's standard deviation in device pixels, made finite and ≥ 0 (at most 100,000).
    static func sigma(_ f: LayerFilter) -> Double { min(f.radius.isFinite ? max(f.radius, 0) : 0, 100_000) }

    /// One step of a filter group's chain: a color matrix (`last`: the group's last filter, drawn
    /// by the composite in the parent's pass) or a blur of σ > 0 (a blur of 0 is no step).
    enum FilterOp: Hashable {
        case matrix([Double], last: Bool)
        case blur(Double)

        /// What a batch's members must share: the kind, and for a blur the size it is done at.
        var shape: UInt8 {
            switch self {
            case .matrix(_, let last): last ? 1 : 2
            case .blur(let sigma): 2 + UInt8(FramePlanner.downsampling(sigma))  // 3, 4 or 6
            }
        }
    }

    static func ops(_ filters: [LayerFilter]) -> [FilterOp] {
        var ops: [FilterOp] = []
        for (i, f) in filters.enumerated() {
            if let m = f.colorMatrix {
                ops.append(.matrix(m, last: i == filters.count - 1))
            } else if sigma(f) > 0 {
                ops.append(.blur(sigma(f)))
            }
        }
        return ops
    }

    /// A chain of filter passes (a filter group's, a batch of filter groups', or background
    /// filters'): each pass draws one step per member into a fresh image, reading the image the
    /// one before drew.
    private struct FilterChain {
        /// The image the next step reads and the pass that drew it.
        var current: Int
        var source: Int
        /// Per member: where the image the next step reads is valid.
        var valid: [PixelRect]
        /// Per member: where its steps draw (a filter group's box: its region).
        let regions: [PixelRect]
        /// Where a pass draws: the regions' union.
        let area: PixelRect
        /// An image the chain reads first but does not own (not freed once read): a backdrop.
        let borrowed: Int?
    }

    /// Appends a pass drawing `step(member, image read, where it is valid)` for each member into
    /// a fresh image over the chain's area (at 1/`scale` size: the pixels of that size that cover
    /// it, each member's valid area those of its region), which the chain reads next.
    private mutating func filterPass(_ chain: inout FilterChain, scale: Int = 1,
                                     _ step: (_ member: Int, _ source: Int, _ valid: PixelRect) -> PassStep) {
        let next = allocateImage()
        let first = plan.steps.count
        for i in chain.regions.indices { plan.steps.append(step(i, chain.current, chain.valid[i])) }
        plan.dependencies.append(chain.source)
        var pass = FramePass(target: .image(next), area: Self.scaled(chain.area, scale), steps: first..<plan.steps.count,
                             dependencies: (plan.dependencies.count - 1)..<plan.dependencies.count)
        // A batch's pass clears only its members' regions (at the pass's size).
        if chain.regions.count > 1 { pass.clears = chain.regions.map { Self.scaled($0, scale) } }
        plan.passes.append(pass)
        if chain.current != chain.borrowed { freeImages.append(chain.current) }
        chain.current = next
        chain.source = plan.passes.count - 1
        for i in chain.valid.indices { chain.valid[i] = Self.scaled(chain.regions[i], scale) }
    }

    /// A Gaussian blur of `sigmas[member]` device pixels of the chain's image (member i item
    /// `markers[i]`'s; all members blur at the same size: their ops' shapes agree): the two
    /// separable passes, or above `downsampleAbove` at half size (the [1 3 3 1] downsampling, the blur of
    /// √(σ² − 3/2)/2 both ways, the bilinear upsampling: the downsampling and the upsampling add
    /// a variance of 3/2), above `quarterAbove` at quarter size (two downsamplings, the blur of
    /// √(σ² − 13/2)/4, the upsampling). `leavingLast`: the last pass (the vertical blur, or the upsampling) is
    /// left to the caller's own step, which takes the returned sigma (the first member's) and
    /// read scale. `rows`: per member, the part of its region outside which the chain's image is
    /// transparent (its content's rows), to which the horizontal direction at full size is cut.
    private mutating func blurPasses(_ chain: inout FilterChain, markers: [Int], sigmas: [Double],
                                     leavingLast: Bool, rows: [PixelRect]? = nil) -> (sigma: Double, readScale: Double) {
        let regions = chain.regions
        let scale = Self.downsampling(sigmas[0])
        if scale > 1 {
            // [1 3 3 1] downsamplings into half size (and again into quarter size).
            var level = 1
            while level < scale {
                level *= 2
                let size = level
                filterPass(&chain, scale: size) { i, source, valid in
                    .blur(source: source, marker: markers[i], vertical: false, sigma: 0, valid: valid,
                          scissor: Self.scaled(regions[i], size), readScale: 2)
                }
            }
            for vertical in [false, true] {
                filterPass(&chain, scale: scale) { i, source, valid in
                    .blur(source: source, marker: markers[i], vertical: vertical,
                          sigma: Self.downsampledSigma(sigmas[i], scale: scale), valid: valid,
                          scissor: Self.scaled(regions[i], scale))
                }
            }
            if leavingLast { return (0, 1 / Double(scale)) }
            filterPass(&chain) { i, source, valid in
                .blur(source: source, marker: markers[i], vertical: false, sigma: 0, valid: valid, scissor: regions[i],
                      readScale: 1 / Double(scale))
            }
            return (0, 1)
        }
        // The horizontal direction only over the rows where the source is not transparent (the
        // rest of its image is cleared, as the blur of transparent pixels would leave it).
        filterPass(&chain) { i, source, valid in
            .blur(source: source, marker: markers[i], vertical: false, sigma: sigmas[i], valid: valid,
                  scissor: rows?[i] ?? regions[i])
        }
        if leavingLast { return (sigmas[0], 1) }
        filterPass(&chain) { i, source, valid in
            .blur(source: source, marker: markers[i], vertical: true, sigma: sigmas[i], valid: valid, scissor: regions[i])
        }
        return (0, 1)
    }

    /// Part of a pass: items `range` (a group's content, or the frame's items), drawn within
    /// `area` (the whole pass area, or a batched member's region).
    struct Segment {
        var range: Range<Int>
        var area: PixelRect
    }

    /// A direct offscreen child of a pass that may share an image with others (`planBatches`).
    private struct Member {
        enum Kind: Hashable {
            case group, mask
            case filter([UInt8])
        }
        var kind: Kind
        var marker: Int
        /// Its items (the marker's).
        var range: Range<Int>
        var region: PixelRect
        var opacity: Double
        var ops: [FilterOp] = []
        /// A filter group's: its items' device box (the region before the blurs' reach), where
        /// its content can be other than transparent.
        var content: PixelRect? = nil
    }

    /// A filter group's region: its items' device box grown by its blurs' reach (not cut to the
    /// parent's area: what lies outside it blurs into it).
    static func filterBox(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, filters: [LayerFilter],
                          whole: PixelRect) -> PixelRect? {
        box(items, range, whole: whole, margin: 1 + reach(filters))
    }

    /// A group's region: its items' device box (its mask's left out: `deviceBounds`), cut to its
    /// parent's `area`.
    static func groupBox(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, area: PixelRect,
                         whole: PixelRect) -> PixelRect? {
        guard let b = box(items, range, whole: whole, margin: 1)?.intersection(area), !b.isEmpty else { return nil }
        return b
    }

    /// Deals the direct groups, filter groups and masks of `segments` into shared images (see the
    /// type's notes) and plans every batch of two or more. Returns, per batched marker, the step
    /// that draws it in this pass and the pass it depends on; and the shared images, which this
    /// pass holds until it is complete.
    private mutating func planBatches(_ items: UnsafeBufferPointer<DrawItem>, _ segments: [Segment], whole: PixelRect,
                                      depth: Int) -> (steps: [Int: (step: PassStep, pass: Int)], held: [Int]) {
        guard batches, plan.imageCount - freeImages.count < Self.batchLiveLimit else { return ([:], []) }
        var members: [Member] = []
        for segment in segments {
            var k = segment.range.lowerBound
            while k < segment.range.upperBound {
                let item = items[k]
                guard let end = Self.markerEnd(item, at: k, within: segment.range) else {
                    k += 1
                    continue
                }
                defer { k = end }
                switch item.kind {
                case .group(let opacity, _):
                    if opacity > 0, end > k + 1, let b = Self.groupBox(items, (k + 1)..<end, area: segment.area, whole: whole) {
                        members.append(Member(kind: .group, marker: k, range: (k + 1)..<end, region: b,
                                              opacity: min(opacity, 1)))
                    }
                case .mask:
                    if !segment.area.isEmpty {
                        members.append(Member(kind: .mask, marker: k, range: (k + 1)..<end, region: segment.area, opacity: 1))
                    }
                case .filter(let filters, let opacity, _):
                    if opacity > 0, end > k + 1,
                       let b = Self.filterBox(items, (k + 1)..<end, filters: filters, whole: whole), !b.isEmpty {
                        let ops = Self.ops(filters)
                        members.append(Member(kind: .filter(ops.map(\.shape)), marker: k, range: (k + 1)..<end, region: b,
                                              opacity: min(opacity, 1), ops: ops,
                                              content: Self.box(items, (k + 1)..<end, whole: whole, margin: 1)))
                    }
                default: break
                }
            }
        }
        guard members.count >= 2 else { return ([:], []) }
        // Greedy: each member into the first batch of its kind none of whose cells its region
        // (grown by a pixel: half-size pixels of neighbours stay apart) touches.
        let cell = Self.batchCell
        let columns = (whole.maxX + cell - 1) / cell, rows = (whole.maxY + cell - 1) / cell
        var batches: [(kind: Member.Kind, members: [Int], cells: [Bool])] = []
        for (index, member) in members.enumerated() {
            let r = member.region
            let c0 = max(r.minX - 1, 0) / cell, c1 = min((r.maxX + cell) / cell, columns)
            let r0 = max(r.minY - 1, 0) / cell, r1 = min((r.maxY + cell) / cell, rows)
            func free(_ cells: [Bool]) -> Bool {
                for y in r0..<r1 { for x in c0..<c1 where cells[y * columns + x] { return false } }
                return true
            }
            var chosen = batches.firstIndex { $0.kind == member.kind && free($0.cells) }
            if chosen == nil, batches.count < Self.maxBatches {
                batches.append((member.kind, [], Array(repeating: false, count: columns * rows)))
                chosen = batches.count - 1
            }
            guard let b = chosen else { continue }
            batches[b].members.append(index)
            for y in r0..<r1 { for x in c0..<c1 { batches[b].cells[y * columns + x] = true } }
        }
        var steps: [Int: (step: PassStep, pass: Int)] = [:]
        var held: [Int] = []
        for batch in batches where batch.members.count >= 2 {
            let group = batch.members.map { members[$0] }
            let area = group.dropFirst().reduce(group[0].region) { u, m in
                PixelRect(minX: min(u.minX, m.region.minX), minY: min(u.minY, m.region.minY),
                          maxX: max(u.maxX, m.region.maxX), maxY: max(u.maxY, m.region.maxY))
            }
            let image = allocateImage()
            let pass = collect(items, group.map { Segment(range: $0.range, area: $0.region) }, target: .image(image),
                               area: area, whole: whole, depth: depth + 1)
            switch batch.kind {
            case .group:
                for m in group { steps[m.marker] = (.region(image: image, area: m.region, matrix: nil, opacity: m.opacity), pass) }
                held.append(image)
            case .mask:
                for m in group { steps[m.marker] = (.maskRegion(image: image, area: m.region), pass) }
                held.append(image)
            case .filter:
                let (finals, last) = filterChain(group, content: image, contentPass: pass, area: area)
                for (m, step) in zip(group, finals) { steps[m.marker] = (step, last.pass) }
                held.append(last.image)
            }
        }
        return (steps, held)
    }

    /// The filter passes of filter groups `members` (one, or a batch: their ops' shapes agree)
    /// whose contents image `content` holds (drawn by pass `contentPass` over `area`). Returns each
    /// member's step in its parent's pass (for one member a `.composite` or `.filtered` of the
    /// image, for a batch `.region`s) and the image they read and the pass that drew it.
    private mutating func filterChain(_ members: [Member], content: Int, contentPass: Int, area: PixelRect)
        -> (steps: [PassStep], last: (image: Int, pass: Int)) {
        let regions = members.map(\.region)
        var chain = FilterChain(current: content, source: contentPass, valid: regions, regions: regions, area: area,
                                borrowed: nil)
        let batched = members.count > 1
        for (j, op) in members[0].ops.enumerated() {
            switch op {
            case .matrix(_, last: true): break  // drawn by the composite
            case .matrix:
                filterPass(&chain) { i, source, _ in
                    guard case .matrix(let m, _) = members[i].ops[j] else { return .copy(image: source) }
                    return batched ? .region(image: source, area: regions[i], matrix: m, opacity: 1)
                        : .filtered(image: source, matrix: m, opacity: 1)
                }
            case .blur:
                let sigmas = members.map { m -> Double in if case .blur(let s) = m.ops[j] { s } else { 0 } }
                // The first filter a blur: the content is transparent outside its items' rows.
                let rows = j == 0 ? members.map { m in m.content.map { Self.rows($0, of: m.region) } ?? m.region } : regions
                _ = blurPasses(&chain, markers: members.map(\.marker), sigmas: sigmas, leavingLast: false, rows: rows)
            }
        }
        let steps = members.indices.map { i -> PassStep in
            let m: [Double]? = if case .matrix(let m, true) = members[i].ops.last { m } else { nil }
            if batched { return .region(image: chain.current, area: regions[i], matrix: m, opacity: members[i].opacity) }
            if let m { return .filtered(image: chain.current, matrix: m, opacity: members[i].opacity) }
            return .composite(image: chain.current, opacity: members[i].opacity)
        }
        return (steps, (chain.current, chain.source))
    }

    /// Collects `segments` (one, or a batch's members) into a pass for `target` over `area`;
    /// nested groups and shadows first, so passes come out children before parents. Returns
    /// the pass's index.
    private mutating func collect(_ items: UnsafeBufferPointer<DrawItem>, _ segments: [Segment],
                                  target: FramePass.Target, area passArea: PixelRect, whole: PixelRect,
                                  depth: Int) -> Int {
        let (batched, held) = planBatches(items, segments, whole: whole, depth: depth)
        while stepStack.count <= depth { stepStack.append([]); dependencyStack.append([]); continuingStack.append(false) }
        stepStack[depth].removeAll(keepingCapacity: true)
        dependencyStack[depth].removeAll(keepingCapacity: true)
        continuingStack[depth] = false
        var reads: [Int] = []
        // A batch's pass clears only its members' regions (nothing outside them is read).
        let clears = segments.count > 1 ? segments.map { $0.area.intersection(passArea) } : nil
        for segment in segments {
            collectSegment(items, segment.range, area: segment.area, pass: (target, passArea, clears), whole: whole,
                           depth: depth, batched: batched, reads: &reads)
        }
        let steps = plan.steps.count
        plan.steps.append(contentsOf: stepStack[depth])
        let dependencies = plan.dependencies.count
        plan.dependencies.append(contentsOf: dependencyStack[depth])
        var pass = FramePass(target: target, area: passArea, steps: steps..<plan.steps.count,
                             dependencies: dependencies..<plan.dependencies.count)
        pass.loads = continuingStack[depth]
        continuingStack[depth] = false
        pass.clears = pass.loads ? nil : clears
        plan.passes.append(pass)
        freeImages.append(contentsOf: reads)
        freeImages.append(contentsOf: held)
        return plan.passes.count - 1
    }

    /// The steps of items `range` drawn within `area` (the pass's, or a batched member's region),
    /// appended to the pass being collected at `depth` (`pass`: its target, area and clears); `batched`:
    /// the steps of markers planned in batches; `reads`: the images the pass samples so far.
    private mutating func collectSegment(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, area: PixelRect,
                                         pass: (target: FramePass.Target, area: PixelRect, clears: [PixelRect]?),
                                         whole: PixelRect, depth: Int,
                                         batched: [Int: (step: PassStep, pass: Int)], reads: inout [Int]) {
        var run = range.lowerBound  // start of the current run of drawable items
        var k = range.lowerBound
        func closeRun(at end: Int) {
            if end > run { stepStack[depth].append(.items(run..<end)) }
        }
        // A batched member's region (not the whole pass): its steps draw within it only.
        let restricted = area != pass.area
        if restricted { stepStack[depth].append(.within(area)) }
        /// Moves the pass so far into an image of its own (cleared as the pass is) and starts
        /// the pass again with a copy of it; returns that image.
        func moveSoFar() -> Int {
            let image = allocateImage()
            let steps = plan.steps.count
            plan.steps.append(contentsOf: stepStack[depth])
            let dependencies = plan.dependencies.count
            plan.dependencies.append(contentsOf: dependencyStack[depth])
            var moved = FramePass(target: .image(image), area: pass.area, steps: steps..<plan.steps.count,
                                  dependencies: dependencies..<plan.dependencies.count)
            moved.clearsToFrameColor = pass.target == .frame
            moved.clears = pass.clears
            plan.passes.append(moved)
            freeImages.append(contentsOf: reads)
            reads.removeAll()
            stepStack[depth].removeAll(keepingCapacity: true)
            dependencyStack[depth].removeAll(keepingCapacity: true)
            dependencyStack[depth].append(plan.passes.count - 1)
            reads.append(image)
            return image
        }
        /// Whether the pass may be cut (`cut`): not an atlas page's (a page's pass is left out
        /// whole when the page holds its drawing).
        let cuttable: Bool = if case .atlas = pass.target { false } else { true }
        /// Ends the pass so far (its steps drawn into its target as they are) and goes on with a
        /// pass of the same target that keeps its pixels (`loads`); with `copy`, `copy.area` of the
        /// target is copied into a fresh image once the pass so far is done (`FramePass.CopyOut`,
        /// whose image this returns). Frees the images the pass so far read.
        func cut(copying copy: (area: PixelRect, box: PixelRect, reach: Int)?) -> Int? {
            let image = copy.map { _ in allocateImage() }
            let steps = plan.steps.count
            plan.steps.append(contentsOf: stepStack[depth])
            let dependencies = plan.dependencies.count
            plan.dependencies.append(contentsOf: dependencyStack[depth])
            var done = FramePass(target: pass.target, area: pass.area, steps: steps..<plan.steps.count,
                                 dependencies: dependencies..<plan.dependencies.count)
            done.loads = continuingStack[depth]
            done.clears = done.loads ? nil : pass.clears
            if let copy, let image {
                done.copyOut = FramePass.CopyOut(image: image, area: copy.area, box: copy.box, reach: copy.reach)
            }
            plan.passes.append(done)
            freeImages.append(contentsOf: reads)
            reads.removeAll()
            stepStack[depth].removeAll(keepingCapacity: true)
            dependencyStack[depth].removeAll(keepingCapacity: true)
            continuingStack[depth] = true
            if restricted { stepStack[depth].append(.within(area)) }
            if let image { reads.append(image) }
            return image
        }
        /// Background filters (`.backdrop` item `marker`): the pass is cut there (`cut`) and the
        /// item's device box grown by the blurs' reach (cut to the segment's area: a blur reads
        /// the backdrop as if clamped at its edges; the result over the box reads nothing beyond
        /// the reach) copied out of its target into an image (its backdrop) — in an atlas page's
        /// pass, which is not cut, the pass's steps so far are drawn again into that image over
        /// that box instead. The backdrop goes through the filters, each filter a pass into a
        /// fresh image as a filter group's; the last step, in the pass that goes on, writes the
        /// result (the last blur's vertical direction done in it) over the box by the item's
        /// coverage and opacity in place of the backdrop (`.backdrop`). Nothing when the box is
        /// empty, the item's opacity is 0 or no filter changes anything.
        func planBackdrop(marker: Int, _ filters: [LayerFilter]) {
            let effective = filters.filter { $0.colorMatrix != nil || Self.sigma($0) > 0 }
            guard !effective.isEmpty, items[marker].opacity > 0,
                  let box = Self.box(items, marker..<(marker + 1), whole: whole, margin: 1)?.intersection(area), !box.isEmpty
            else { return }
            let grown = PixelRect(minX: box.minX - Self.reach(effective), minY: box.minY - Self.reach(effective),
                                  maxX: box.maxX + Self.reach(effective), maxY: box.maxY + Self.reach(effective))
                .intersection(area)
            let backdrop: Int
            if cuttable, copiesBackdrops, let image = cut(copying: (grown, box, Self.reach(effective))) {
                backdrop = image
            } else {
                backdrop = allocateImage()
                let steps = plan.steps.count
                plan.steps.append(contentsOf: stepStack[depth])
                let dependencies = plan.dependencies.count
                plan.dependencies.append(contentsOf: dependencyStack[depth])
                var drawn = FramePass(target: .image(backdrop), area: grown, steps: steps..<plan.steps.count,
                                      dependencies: dependencies..<plan.dependencies.count)
                drawn.clearsToFrameColor = pass.target == .frame
                plan.passes.append(drawn)
                reads.append(backdrop)
            }
            var chain = FilterChain(current: backdrop, source: plan.passes.count - 1, valid: [grown], regions: [grown],
                                    area: grown, borrowed: backdrop)
            var last = (sigma: 0.0, readScale: 1.0)
            for (i, f) in effective.enumerated() {
                if let m = f.colorMatrix {
                    filterPass(&chain) { _, source, _ in .filtered(image: source, matrix: m, opacity: 1) }
                } else {
                    last = blurPasses(&chain, markers: [marker], sigmas: [Self.sigma(f)],
                                      leavingLast: i == effective.count - 1)
                }
            }
            stepStack[depth].append(.backdrop(source: chain.current, backdrop: backdrop, marker: marker, sigma: last.sigma,
                                              valid: chain.valid[0], scissor: box, readScale: last.readScale))
            dependencyStack[depth].append(chain.source)
            reads.append(chain.current)
        }
        while k < range.upperBound {
            let item = items.baseAddress! + k
            if item.pointee.isMarker, reads.count >= 2, plan.imageCount - freeImages.count >= Self.maxLiveImages {
                closeRun(at: k)
                run = k
                if continuingStack[depth] {
                    // A pass already cut (its target holds what it drew before): cut it again.
                    _ = cut(copying: nil)
                } else {
                    // (The copy over the whole pass: it restores every member drawn so far.)
                    stepStack[depth].append(.copy(image: moveSoFar()))
                    if restricted { stepStack[depth].append(.within(area)) }
                }
            }
            if let b = batched[k], let end = Self.markerEnd(item.pointee, at: k, within: range) {
                // Drawn from its batch's shared image.
                closeRun(at: k)
                stepStack[depth].append(b.step)
                dependencyStack[depth].append(b.pass)
                k = end
                run = k
                continue
            }
            switch item.pointee.kind {
            case .group(let opacity, let count):
                closeRun(at: k)
                let end = min(k + 1 + max(count, 0), range.upperBound)
                // Its pass clears and draws only its items' device box (its mask's left out): the
                // recorder scissors the composite to the box of the pass that drew the image.
                if opacity > 0, end > k + 1, let box = Self.groupBox(items, (k + 1)..<end, area: area, whole: whole) {
                    let image = allocateImage()
                    let pass = collect(items, [Segment(range: (k + 1)..<end, area: box)], target: .image(image), area: box,
                                       whole: whole, depth: depth + 1)
                    stepStack[depth].append(.composite(image: image, opacity: min(opacity, 1)))
                    dependencyStack[depth].append(pass)
                    reads.append(image)
                }
                k = end
                run = k
            case .shadowGroup(let color, let sigmaValue, let count):
                closeRun(at: k)
                let marker = k
                let end = min(k + 1 + max(count, 0), range.upperBound)
                k = end
                run = k
                let sigma = min(sigmaValue.isFinite ? max(sigmaValue, 0) : 0, 100_000)
                let radius = Int((3 * sigma).rounded(.up))
                // The content's bounding box grown by the blur, on the target (coordinates far
                // outside it, infinite or NaN — a hostile transform — clamp to the target's
                // neighbourhood, NaN to the whole of it).
                guard end > marker + 1,
                      let box = Self.deviceBounds(items, (marker + 1)..<end, width: whole.maxX, height: whole.maxY)
                else { continue }
                let margin = radius + 1
                let limit = max(whole.maxX, whole.maxY) + 2 * margin + 4
                let grown = PixelRect(minX: Self.pixel(box.minX, .down, within: limit) - margin,
                                      minY: Self.pixel(box.minY, .down, within: limit) - margin,
                                      maxX: Self.pixel(box.maxX, .up, within: limit) + margin,
                                      maxY: Self.pixel(box.maxY, .up, within: limit) + margin)
                    .intersection(whole)
                // The vertical step draws the shadow's color at the marker's opacity: nothing
                // to draw, no passes.
                guard !grown.isEmpty, item.pointee.opacity > 0,
                      mapPremultiplied(color, opacity: item.pointee.opacity).w > 0 else { continue }
                // Content into one image, its horizontal blur into another, whose vertical
                // blur this pass draws.
                let content = allocateImage()
                let contentPass = collect(items, [Segment(range: (marker + 1)..<end, area: grown)],
                                          target: .image(content), area: grown, whole: whole, depth: depth + 1)
                let blurred = allocateImage()
                // The horizontal direction only over the content's rows (transparent elsewhere).
                let rows = PixelRect(minX: grown.minX, minY: max(grown.minY, Self.pixel(box.minY, .down, within: limit) - 1),
                                     maxX: grown.maxX, maxY: min(grown.maxY, Self.pixel(box.maxY, .up, within: limit) + 1))
                plan.steps.append(.blur(source: content, marker: marker, vertical: false, sigma: sigma,
                                        valid: grown, scissor: rows))
                plan.dependencies.append(contentPass)
                plan.passes.append(FramePass(target: .image(blurred), area: grown,
                                             steps: (plan.steps.count - 1)..<plan.steps.count,
                                             dependencies: (plan.dependencies.count - 1)..<plan.dependencies.count))
                freeImages.append(content)
                stepStack[depth].append(.blur(source: blurred, marker: marker, vertical: true, sigma: sigma,
                                              valid: grown, scissor: grown.intersection(area)))
                dependencyStack[depth].append(plan.passes.count - 1)
                reads.append(blurred)
            case .mask(let count):
                closeRun(at: k)
                let end = min(k + 1 + max(count, 0), range.upperBound)
                let image = allocateImage()
                // Over its group's whole area: where the mask draws nothing, the group is cleared.
                let pass = collect(items, [Segment(range: (k + 1)..<end, area: area)], target: .image(image), area: area,
                                   whole: whole, depth: depth + 1)
                stepStack[depth].append(.mask(image: image))
                dependencyStack[depth].append(pass)
                reads.append(image)
                k = end
                run = k
            case .filter(let filters, let opacity, let count):
                closeRun(at: k)
                let marker = k
                let end = min(k + 1 + max(count, 0), range.upperBound)
                k = end
                run = k
                // The content over its device box grown by the blurs' reach (not cut to this
                // pass's area: what lies outside it blurs into it), then one pass per color
                // filter and two per blur, each into a fresh image; the last color filter, or a
                // composite, draws the result in this pass.
                guard opacity > 0, end > marker + 1,
                      let box = Self.filterBox(items, (marker + 1)..<end, filters: filters, whole: whole), !box.isEmpty
                else { continue }  // (off the target: nothing to draw)
                let content = allocateImage()
                let contentPass = collect(items, [Segment(range: (marker + 1)..<end, area: box)], target: .image(content),
                                          area: box, whole: whole, depth: depth + 1)
                let member = Member(kind: .filter([]), marker: marker, range: (marker + 1)..<end, region: box,
                                    opacity: min(opacity, 1), ops: Self.ops(filters),
                                    content: Self.box(items, (marker + 1)..<end, whole: whole, margin: 1))
                let (finals, last) = filterChain([member], content: content, contentPass: contentPass, area: box)
                stepStack[depth].append(finals[0])
                dependencyStack[depth].append(last.pass)
                reads.append(last.image)
            case .blend(let mode, let opacity, let count):
                closeRun(at: k)
                let start = k + 1
                let end = min(start + max(count, 0), range.upperBound)
                k = end
                run = k
                guard opacity > 0, end > start else { continue }
                // The pass so far (its backdrop) goes into an image of its own, this pass
                // starting over with the blend of the group's image over it; in a pass already
                // cut (its target holds what it drew before the cut), the pass is cut again and
                // its pixels copied out.
                let backdrop: Int
                if cuttable, continuingStack[depth], let copied = cut(copying: (pass.area, pass.area, 0)) {
                    backdrop = copied
                } else {
                    backdrop = moveSoFar()
                    if restricted {
                        // In a batched pass: the pass so far restored over all of it, the blend
                        // written over this member's region only.
                        stepStack[depth].append(.copy(image: backdrop))
                        stepStack[depth].append(.within(area))
                    }
                }
                let source = allocateImage()
                let sourcePass = collect(items, [Segment(range: start..<end, area: whole)], target: .image(source),
                                         area: whole, whole: whole, depth: depth + 1)
                stepStack[depth].append(.blend(source: source, backdrop: backdrop, mode: mode, opacity: min(opacity, 1)))
                dependencyStack[depth].append(sourcePass)
                reads.append(source)
            case .raster(let r):
                closeRun(at: k)
                let end = min(k + 1 + max(r.count, 0), range.upperBound)
                // The subtree into its region of the atlas page; the composite item after it (a
                // plain `.image` item of this pass) reads the page.
                if end > k + 1, r.page >= 0, !r.region.isEmpty {
                    let region = r.region.intersection(whole)
                    let pass = collect(items, [Segment(range: (k + 1)..<end, area: region)], target: .atlas(r.page),
                                       area: region, whole: whole, depth: depth + 1)
                    plan.passes[pass].rasterVersion = r.version
                    dependencyStack[depth].append(pass)
                }
                k = end
                run = k
            case .backdrop(let filters):
                closeRun(at: k)
                planBackdrop(marker: k, filters)
                k += 1
                run = k
            case .rect, .shadow, .gradient, .mesh, .image:
                k += 1
            }
        }
        closeRun(at: range.upperBound)
    }

    /// The end of marker `item`'s items (at `k`, cut to `range`); nil for an item that is not a marker.
    static func markerEnd(_ item: DrawItem, at k: Int, within range: Range<Int>) -> Int? {
        let count: Int
        switch item.kind {
        case .group(_, let c), .mask(let c), .filter(_, _, let c), .shadowGroup(_, _, let c), .blend(_, _, let c): count = c
        case .raster(let r): count = r.count
        case .rect, .shadow, .gradient, .mesh, .image, .backdrop: return nil
        }
        return min(k + 1 + max(count, 0), range.upperBound)
    }

    /// How far (device pixels) a filter group's blurs spread its content: ⌈3σ⌉ + 1 for each
    /// blur (a blur of a blur reaches at most the sum), 4 more for one done at half size (the
    /// downsampling's 1.5 pixels, the half-size taps' rounding, 1, and the bilinear upsampling's
    /// 1.5: ⌈3σ⌉ + 5 in all, as 2⌈3√(σ² − 3/2)/2⌉ ≤ 3σ + 2), 16 more for one at quarter size
    /// (at most 1.5 + 3 for the downsamplings, 4 for the taps' rounding and 3.5 for the
    /// upsampling).
    public static func reach(_ filters: [LayerFilter]) -> Int {
        var r = 0
        for f in filters where f.kind == .gaussianBlur {
            let sigma = min(f.radius.isFinite ? max(f.radius, 0) : 0, 100_000)
            if sigma > 0 {
                let scale = downsampling(sigma)
                r += Int((3 * sigma).rounded(.up)) + 1 + (scale == 4 ? 16 : scale == 2 ? 4 : 0)
            }
        }
        return r
    }

    /// A blur of σ above this many device pixels (filters' and background filters') is done at
    /// half size: an eighth of the work (a quarter of the pixels, half the taps each). The
    /// lowest σ that stays within the pixel rule against the exact Gaussian for the hardest
    /// content — sharp black-and-white stripes 4–5 pixels wide over the whole image, whose
    /// frequencies a half-size image holds worst — with the [1 3 3 1] downsampling (mean
    /// error 0.78/255 there at σ 3, 1.2/255 at 2.5; with a 2 × 2 box it needed σ 6):
    /// SceneGoldenTests' `blurThresholds` (`filters-threshold.json`, σ 3.01 and 8.01 on such
    /// stripes and checks) and large blurs; docs/performance.md has the measurement.
    public static let downsampleAbove = 3.0
    /// Above this many device pixels, at quarter size (two [1 3 3 1] downsamplings): a
    /// sixty-fourth of the full-size work, within the pixel rule on the same content (mean
    /// error 0.36/255 at σ 8, 0.77/255 at 6).
    public static let quarterAbove = 8.0

    /// The size a blur of `sigma` device pixels is done at: 1 (full), 2 (half) or 4 (quarter).
    static func downsampling(_ sigma: Double) -> Int {
        sigma > quarterAbove ? 4 : sigma > downsampleAbove ? 2 : 1
    }

    /// The pixels of 1/`scale` size (1, 2 or 4) that cover `r` (a downsampled image lies at
    /// those coordinates in its target-sized image).
    static func scaled(_ r: PixelRect, _ scale: Int) -> PixelRect {
        scale == 1 ? r : scaled(half(r), scale / 2)
    }

    /// `region` cut to the rows of `content` (a blur's horizontal direction of a source that is
    /// transparent outside `content`).
    static func rows(_ content: PixelRect, of region: PixelRect) -> PixelRect {
        PixelRect(minX: region.minX, minY: max(region.minY, content.minY), maxX: region.maxX,
                  maxY: min(region.maxY, content.maxY))
    }

    /// The half-size pixels that cover `r` (the half-size image of a downsampled blur lies at
    /// half the coordinates in its target-sized image).
    static func half(_ r: PixelRect) -> PixelRect {
        PixelRect(minX: r.minX >> 1, minY: r.minY >> 1, maxX: (r.maxX + 1) >> 1, maxY: (r.maxY + 1) >> 1)
    }

    /// The σ at 1/`scale` size whose blur, between the [1 3 3 1]/8 downsamplings (variance ¾
    /// pixel² of the image it reads: ¾ full-size pixel² into half size, ¾ + 4 × ¾ into quarter
    /// size) and the bilinear upsampling (reads at ¼ and ¾ between half-size pixels: variance
    /// 3/16 half-size pixel², ¾ full-size; from quarter size 11/64 quarter-size pixel², 11/4),
    /// makes a blur of `sigma` full-size pixels: they add a variance of 3/2 at half size, 13/2
    /// at quarter size.
    static func downsampledSigma(_ sigma: Double, scale: Int) -> Double {
        let added = scale == 4 ? 6.5 : scale == 2 ? 1.5 : 0
        return (max(sigma * sigma - added, 0)).squareRoot() / Double(scale)
    }

    /// The device-pixel box of what the items in `range` can touch, grown by `margin` pixels
    /// (clamped to the target's neighbourhood, NaN to all of it), cut to the target; nil when
    /// they touch nothing.
    public static func box(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, whole: PixelRect,
                    margin: Int) -> PixelRect? {
        guard let b = deviceBounds(items, range, width: whole.maxX, height: whole.maxY) else { return nil }
        let limit = max(whole.maxX, whole.maxY) + 2 * margin + 4
        return PixelRect(minX: pixel(b.minX, .down, within: limit) - margin, minY: pixel(b.minY, .down, within: limit) - margin,
                         maxX: pixel(b.maxX, .up, within: limit) + margin, maxY: pixel(b.maxY, .up, within: limit) + margin)
            .intersection(whole)
    }

    /// A box edge as a whole pixel, rounded `down` (low edges) or `up` (high edges) and
    /// clamped to ±`limit`; NaN goes to the far side (-limit for a low edge, +limit for a high
    /// one), so a box with NaN covers everything.
    static func pixel(_ v: Double, _ rounding: FloatingPointRoundingRule, within limit: Int) -> Int {
        guard !v.isNaN else { return rounding == .down ? -limit : limit }
        return Int(min(max(v, -Double(limit)), Double(limit)).rounded(rounding))
    }

    /// The device-pixel bounding box of what the items in `range` can touch (AA fringe
    /// included), nil when there are none; the whole target when a corner lies behind the eye.
    /// A mask inside the range adds nothing (its items draw into the mask's image, which only
    /// takes away from what the items before it drew): a masked group bounds as its content,
    /// however far its mask reaches (an inverted mask's square standing for everywhere). A
    /// range that starts at a mask's marker bounds the mask's items.
    static func deviceBounds(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, width: Int, height: Int)
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        var box: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
        func add(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) {
            guard let b = box else { box = (minX, minY, maxX, maxY); return }
            box = (min(b.minX, minX), min(b.minY, minY), max(b.maxX, maxX), max(b.maxY, maxY))
        }
        var k = range.lowerBound
        while k < range.upperBound {
            let item = items[k]
            k += 1
            let local: Rect
            switch item.kind {
            case .rect, .gradient, .backdrop: local = item.bounds.standardized
            case .shadow(let sigma):
                let b = item.bounds.standardized, g = 3 * (sigma.isFinite ? max(sigma, 0) : 0)
                local = Rect(b.minX - g, b.minY - g, b.width + 2 * g, b.height + 2 * g)
            case .mesh(let draw): local = draw.mesh.bounds.standardized
            case .image(let draw): local = draw.geometry.frame
            case .mask(let count) where k - 1 > range.lowerBound:
                k = min(k + max(count, 0), range.upperBound)
                continue
            case .group, .mask, .blend: continue  // its items follow
            case .raster(let r):
                // Its items lie in the atlas; it bounds as its composite (the item's own
                // transform and bounds).
                local = item.bounds.standardized
                k = min(k + max(r.count, 0), range.upperBound)
            case .filter(let filters, _, let count):
                // Its items grown by its blurs' reach (none without a blur).
                let g = Double(reach(filters))
                guard g > 0 else { continue }
                let end = min(k + max(count, 0), range.upperBound)
                if let inner = deviceBounds(items, k..<end, width: width, height: height) {
                    add(inner.minX - g, inner.minY - g, inner.maxX + g, inner.maxY + g)
                }
                k = end
                continue
            case .shadowGroup(_, let sigma, let count):
                let end = min(k + max(count, 0), range.upperBound)
                if let inner = deviceBounds(items, k..<end, width: width, height: height) {
                    let g = 3 * (sigma.isFinite ? max(sigma, 0) : 0)
                    add(inner.minX - g, inner.minY - g, inner.maxX + g, inner.maxY + g)
                }
                k = end
                continue
            }
            guard local.width > 0 || local.height > 0 else { continue }
            let m = item.transform
            for (x, y) in [(local.minX, local.minY), (local.maxX, local.minY), (local.minX, local.maxY),
                           (local.maxX, local.maxY)] {
                let w = x * m.m14 + y * m.m24 + m.m44
                guard w > 1e-9 else { return (0, 0, Double(width), Double(height)) }
                let px = (x * m.m11 + y * m.m21 + m.m41) / w, py = (x * m.m12 + y * m.m22 + m.m42) / w
                add(px, py, px, py)
            }
        }
        // The anti-aliasing margin (about a pixel).
        return box.map { ($0.minX - 1.5, $0.minY - 1.5, $0.maxX + 1.5, $0.maxY + 1.5) }
    }
}

extension PixelRect {
    /// The smallest rect holding both (an empty one adds nothing).
    public func union(_ other: PixelRect) -> PixelRect {
        if other.isEmpty { return self }
        if isEmpty { return other }
        return PixelRect(minX: min(minX, other.minX), minY: min(minY, other.minY),
                         maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    /// Grown by `margin` pixels on every side.
    public func grown(by margin: Int) -> PixelRect {
        PixelRect(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    /// The pixels of this rect outside `other`, as at most four disjoint rects (bands above and
    /// below it, then left and right of it).
    public func subtracting(_ other: PixelRect) -> [PixelRect] {
        let cut = intersection(other)
        guard !isEmpty else { return [] }
        guard !cut.isEmpty else { return [self] }
        return [PixelRect(minX: minX, minY: minY, maxX: maxX, maxY: cut.minY),
                PixelRect(minX: minX, minY: cut.maxY, maxX: maxX, maxY: maxY),
                PixelRect(minX: minX, minY: cut.minY, maxX: cut.minX, maxY: cut.maxY),
                PixelRect(minX: cut.maxX, minY: cut.minY, maxX: maxX, maxY: cut.maxY)].filter { !$0.isEmpty }
    }
}

extension FramePlan {
    /// Where each pass drawing into the frame draws when only `damage` of the frame is redrawn
    /// over the previous frame (by pass index; nil for the other passes, which draw their whole
    /// area). The last such pass draws `damage`; a pass cut for a copy (`FramePass.copyOut`: the
    /// frame so far copied out for background filters or a blend) draws also what the copy must
    /// hold right for the part of the next one it serves — the part of the copy's `box` that the
    /// next pass draws, grown by the copy's `reach` — so a backdrop under damage reads the frame
    /// as a full redraw would have drawn it, however little of its box is damaged. The first
    /// frame pass's area less `damage` is drawn only for the copies: a backend keeps the previous
    /// frame's pixels there and puts them back after the last pass.
    public func damagedFrameAreas(_ damage: PixelRect) -> [PixelRect?] {
        var areas = [PixelRect?](repeating: nil, count: passes.count)
        var need = damage
        for index in passes.indices.reversed() where passes[index].target == .frame {
            let pass = passes[index]
            if let copy = pass.copyOut {
                let served = need.intersection(copy.box)
                if !served.isEmpty { need = need.union(served.grown(by: copy.reach).intersection(copy.area)) }
            }
            areas[index] = need.intersection(pass.area)
        }
        return areas
    }
}
