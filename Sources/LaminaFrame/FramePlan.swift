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
    /// pixel's position times it — 2 reads the 2 × 2 box at twice the position (a half-size
    /// copy, `sigma` 0), ½ reads a half-size image bilinearly (its upsampling, `sigma` 0).
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
public struct FramePlanner {
    private var plan = FramePlan()
    /// Per nesting depth: the steps and dependencies of the pass being collected.
    private var stepStack: [[PassStep]] = []
    private var dependencyStack: [[Int]] = []
    private var freeImages: [Int] = []
    /// Images live at once beyond which a pass that holds several (sibling groups, masks,
    /// shadows: each image held until the pass that samples it is complete) is cut before its
    /// next group: its steps so far go into one image, and the pass starts again with a
    /// `.copy` of it, so it holds one. Keeps a frame within the renderer's images
    /// (`OffscreenRenderer.maxGroups`, 128) for any number of sibling groups.
    public static let maxLiveImages = 64

    public init() {}

    /// The plan of `items` on a `width` × `height` target.
    public static func plan(_ items: [DrawItem], width: Int, height: Int) -> FramePlan {
        var planner = FramePlanner()
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
            _ = collect(items, 0..<items.count, target: .frame, area: whole, whole: whole, depth: 0)
        }
        return plan
    }

    private mutating func allocateImage() -> Int {
        if let image = freeImages.popLast() { return image }
        plan.imageCount += 1
        return plan.imageCount - 1
    }

    /// Collects `range` into a pass for `target` over `area`; nested groups and shadows first,
    /// so passes come out children before parents. Returns the pass's index.
    /// A blur filter's standard deviation in device pixels, made finite and ≥ 0 (at most 100,000).
    static func sigma(_ f: LayerFilter) -> Double { min(f.radius.isFinite ? max(f.radius, 0) : 0, 100_000) }

    /// A chain of filter passes (a filter group's, or background filters'): each pass draws one
    /// step into a fresh image, reading the image the one before drew.
    private struct FilterChain {
        /// The image the next step reads, the pass that drew it, and where it is valid.
        var current: Int
        var source: Int
        var valid: PixelRect
        /// Where a pass draws unless it says otherwise.
        let area: PixelRect
        /// An image the chain reads first but does not own (not freed once read): a backdrop.
        let borrowed: Int?
    }

    /// Appends a pass drawing `step` into a fresh image over `passArea` (the chain's area by
    /// default), which the chain reads next.
    private mutating func filterPass(_ chain: inout FilterChain, _ step: PassStep, area passArea: PixelRect? = nil) {
        let next = allocateImage()
        plan.steps.append(step)
        plan.dependencies.append(chain.source)
        plan.passes.append(FramePass(target: .image(next), area: passArea ?? chain.area,
                                     steps: (plan.steps.count - 1)..<plan.steps.count,
                                     dependencies: (plan.dependencies.count - 1)..<plan.dependencies.count))
        if chain.current != chain.borrowed { freeImages.append(chain.current) }
        chain.current = next
        chain.source = plan.passes.count - 1
        chain.valid = passArea ?? chain.area
    }

    /// A Gaussian blur of `sigma` device pixels of the chain's image (item `marker`'s): the two
    /// separable passes, or above `downsampleAbove` at half size (the 2 × 2 box, the blur of
    /// √(σ² − 1)/2 both ways, the bilinear upsampling: the box and the upsampling add a
    /// variance of 1). `leavingLast`: the last pass (the vertical blur, or the upsampling) is
    /// left to the caller's own step, which takes the returned sigma and read scale.
    private mutating func blurPasses(_ chain: inout FilterChain, marker: Int, sigma: Double,
                                     leavingLast: Bool) -> (sigma: Double, readScale: Double) {
        if sigma > Self.downsampleAbove {
            let half = Self.half(chain.area), s = Self.halfSigma(sigma)
            filterPass(&chain, .blur(source: chain.current, marker: marker, vertical: false, sigma: 0, valid: chain.valid,
                                     scissor: half, readScale: 2), area: half)
            filterPass(&chain, .blur(source: chain.current, marker: marker, vertical: false, sigma: s, valid: half,
                                     scissor: half), area: half)
            filterPass(&chain, .blur(source: chain.current, marker: marker, vertical: true, sigma: s, valid: half,
                                     scissor: half), area: half)
            if leavingLast { return (0, 0.5) }
            filterPass(&chain, .blur(source: chain.current, marker: marker, vertical: false, sigma: 0, valid: half,
                                     scissor: chain.area, readScale: 0.5))
            return (0, 1)
        }
        filterPass(&chain, .blur(source: chain.current, marker: marker, vertical: false, sigma: sigma, valid: chain.valid,
                                 scissor: chain.area))
        if leavingLast { return (sigma, 1) }
        filterPass(&chain, .blur(source: chain.current, marker: marker, vertical: true, sigma: sigma, valid: chain.valid,
                                 scissor: chain.area))
        return (0, 1)
    }

    private mutating func collect(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, target: FramePass.Target,
                                  area: PixelRect, whole: PixelRect, depth: Int) -> Int {
        if stepStack.count <= depth { stepStack.append([]); dependencyStack.append([]) }
        stepStack[depth].removeAll(keepingCapacity: true)
        dependencyStack[depth].removeAll(keepingCapacity: true)
        var reads: [Int] = []
        var run = range.lowerBound  // start of the current run of drawable items
        var k = range.lowerBound
        func closeRun(at end: Int) {
            if end > run { stepStack[depth].append(.items(run..<end)) }
        }
        /// Moves the pass so far into an image of its own (cleared as the pass is) and starts
        /// the pass again with a copy of it; returns that image.
        func moveSoFar() -> Int {
            let image = allocateImage()
            let steps = plan.steps.count
            plan.steps.append(contentsOf: stepStack[depth])
            let dependencies = plan.dependencies.count
            plan.dependencies.append(contentsOf: dependencyStack[depth])
            var pass = FramePass(target: .image(image), area: area, steps: steps..<plan.steps.count,
                                 dependencies: dependencies..<plan.dependencies.count)
            pass.clearsToFrameColor = target == .frame
            plan.passes.append(pass)
            freeImages.append(contentsOf: reads)
            reads.removeAll()
            stepStack[depth].removeAll(keepingCapacity: true)
            dependencyStack[depth].removeAll(keepingCapacity: true)
            dependencyStack[depth].append(plan.passes.count - 1)
            reads.append(image)
            return image
        }
        /// Background filters (`.backdrop` item `marker`): the pass so far moves into an image
        /// (its backdrop; the pass starts again with a copy of it), which goes through the filters
        /// over the item's device box grown by the blurs' reach (cut to the pass's area: a blur
        /// reads the backdrop as if clamped at its edges), each filter a pass into a fresh image as
        /// a filter group's; the last step, in this pass, writes the result (the last blur's
        /// vertical direction done in it) over the box by the item's coverage and opacity in place
        /// of the backdrop (`.backdrop`). Nothing when the box is empty, the item's opacity is 0
        /// or no filter changes anything.
        func planBackdrop(marker: Int, _ filters: [LayerFilter]) {
            let effective = filters.filter { $0.colorMatrix != nil || Self.sigma($0) > 0 }
            guard !effective.isEmpty, items[marker].opacity > 0,
                  let box = Self.box(items, marker..<(marker + 1), whole: whole, margin: 1)?.intersection(area), !box.isEmpty
            else { return }
            let grown = PixelRect(minX: box.minX - Self.reach(effective), minY: box.minY - Self.reach(effective),
                                  maxX: box.maxX + Self.reach(effective), maxY: box.maxY + Self.reach(effective))
                .intersection(area)
            let backdrop = moveSoFar()
            stepStack[depth].append(.copy(image: backdrop))
            var chain = FilterChain(current: backdrop, source: plan.passes.count - 1, valid: area, area: grown,
                                    borrowed: backdrop)
            var last = (sigma: 0.0, readScale: 1.0)
            for (i, f) in effective.enumerated() {
                if let m = f.colorMatrix {
                    filterPass(&chain, .filtered(image: chain.current, matrix: m, opacity: 1))
                } else {
                    last = blurPasses(&chain, marker: marker, sigma: Self.sigma(f), leavingLast: i == effective.count - 1)
                }
            }
            stepStack[depth].append(.backdrop(source: chain.current, backdrop: backdrop, marker: marker, sigma: last.sigma,
                                              valid: chain.valid, scissor: box, readScale: last.readScale))
            dependencyStack[depth].append(chain.source)
            reads.append(chain.current)
        }
        while k < range.upperBound {
            let item = items.baseAddress! + k
            if item.pointee.isMarker, reads.count >= 2, plan.imageCount - freeImages.count >= Self.maxLiveImages {
                closeRun(at: k)
                run = k
                stepStack[depth].append(.copy(image: moveSoFar()))
            }
            switch item.pointee.kind {
            case .group(let opacity, let count):
                closeRun(at: k)
                let end = min(k + 1 + max(count, 0), range.upperBound)
                // Its pass clears and draws only its items' device box (its mask's included): the
                // recorder scissors the composite to the box of the pass that drew the image.
                if opacity > 0, end > k + 1,
                   let box = Self.box(items, (k + 1)..<end, whole: whole, margin: 1)?.intersection(area), !box.isEmpty {
                    let image = allocateImage()
                    let pass = collect(items, (k + 1)..<end, target: .image(image), area: box, whole: whole,
                                       depth: depth + 1)
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
                let contentPass = collect(items, (marker + 1)..<end, target: .image(content), area: grown,
                                          whole: whole, depth: depth + 1)
                let blurred = allocateImage()
                plan.steps.append(.blur(source: content, marker: marker, vertical: false, sigma: sigma,
                                        valid: grown, scissor: grown))
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
                let pass = collect(items, (k + 1)..<end, target: .image(image), area: area, whole: whole,
                                   depth: depth + 1)
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
                      let box = Self.box(items, (marker + 1)..<end, whole: whole, margin: 1 + Self.reach(filters))
                else { continue }
                let content = allocateImage()
                var chain = FilterChain(current: content,
                                        source: collect(items, (marker + 1)..<end, target: .image(content), area: box,
                                                        whole: whole, depth: depth + 1),
                                        valid: box, area: box, borrowed: nil)
                var final: PassStep = .composite(image: 0, opacity: min(opacity, 1))
                for (i, f) in filters.enumerated() {
                    if let m = f.colorMatrix {
                        if i == filters.count - 1 {
                            final = .filtered(image: 0, matrix: m, opacity: min(opacity, 1))
                        } else {
                            filterPass(&chain, .filtered(image: chain.current, matrix: m, opacity: 1))
                        }
                    } else {
                        guard Self.sigma(f) > 0 else { continue }
                        _ = blurPasses(&chain, marker: marker, sigma: Self.sigma(f), leavingLast: false)
                    }
                }
                switch final {
                case .filtered(_, let m, let o): stepStack[depth].append(.filtered(image: chain.current, matrix: m, opacity: o))
                default: stepStack[depth].append(.composite(image: chain.current, opacity: min(opacity, 1)))
                }
                dependencyStack[depth].append(chain.source)
                reads.append(chain.current)
            case .blend(let mode, let opacity, let count):
                closeRun(at: k)
                let start = k + 1
                let end = min(start + max(count, 0), range.upperBound)
                k = end
                run = k
                guard opacity > 0, end > start else { continue }
                // The pass so far (its backdrop) goes into an image of its own, this pass
                // starting over with the blend of the group's image over it.
                let backdrop = moveSoFar()
                let source = allocateImage()
                let sourcePass = collect(items, start..<end, target: .image(source), area: whole, whole: whole,
                                         depth: depth + 1)
                stepStack[depth].append(.blend(source: source, backdrop: backdrop, mode: mode, opacity: min(opacity, 1)))
                dependencyStack[depth].append(sourcePass)
                reads.append(source)
            case .raster(let r):
                closeRun(at: k)
                let end = min(k + 1 + max(r.count, 0), range.upperBound)
                // The subtree into its region of the atlas page; the composite item after it (a
                // plain `.image` item of this pass) reads the page.
                if end > k + 1, r.page >= 0, !r.region.isEmpty {
                    let pass = collect(items, (k + 1)..<end, target: .atlas(r.page), area: r.region.intersection(whole),
                                       whole: whole, depth: depth + 1)
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
        let steps = plan.steps.count
        plan.steps.append(contentsOf: stepStack[depth])
        let dependencies = plan.dependencies.count
        plan.dependencies.append(contentsOf: dependencyStack[depth])
        plan.passes.append(FramePass(target: target, area: area, steps: steps..<plan.steps.count,
                                     dependencies: dependencies..<plan.dependencies.count))
        freeImages.append(contentsOf: reads)
        return plan.passes.count - 1
    }

    /// How far (device pixels) a filter group's blurs spread its content: ⌈3σ⌉ + 1 for each
    /// blur (a blur of a blur reaches at most the sum), 4 more for one done at half size (the
    /// 2 × 2 box, the half-size taps' rounding and the bilinear upsampling).
    public static func reach(_ filters: [LayerFilter]) -> Int {
        var r = 0
        for f in filters where f.kind == .gaussianBlur {
            let sigma = min(f.radius.isFinite ? max(f.radius, 0) : 0, 100_000)
            if sigma > 0 { r += Int((3 * sigma).rounded(.up)) + 1 + (sigma > downsampleAbove ? 4 : 0) }
        }
        return r
    }

    /// A blur of σ above this many device pixels (filters' and background filters') is done at
    /// half size: within the pixel rule against the exact Gaussian (SceneGoldenTests'
    /// large blurs), an eighth of the work (a quarter of the pixels, half the taps each).
    public static let downsampleAbove = 6.0

    /// The half-size pixels that cover `r` (the half-size image of a downsampled blur lies at
    /// half the coordinates in its target-sized image).
    static func half(_ r: PixelRect) -> PixelRect {
        PixelRect(minX: r.minX >> 1, minY: r.minY >> 1, maxX: (r.maxX + 1) >> 1, maxY: (r.maxY + 1) >> 1)
    }

    /// The half-size σ whose blur, between the 2 × 2 box (variance ⅓) and the bilinear
    /// upsampling (variance ⅔), makes a blur of `sigma` full-size pixels.
    static func halfSigma(_ sigma: Double) -> Double { (max(sigma * sigma - 1, 0)).squareRoot() / 2 }

    /// The device-pixel box of what the items in `range` can touch, grown by `margin` pixels
    /// (clamped to the target's neighbourhood, NaN to all of it), cut to the target; nil when
    /// they touch nothing.
    static func box(_ items: UnsafeBufferPointer<DrawItem>, _ range: Range<Int>, whole: PixelRect,
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
