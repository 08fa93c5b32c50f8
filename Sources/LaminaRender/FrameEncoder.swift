import CVulkan
import LaminaFrame
import LaminaGeometry

extension PipelineVariant {
    /// Equality, inlined (the synthesized `==` is another module's, called through its
    /// witness: a tenth of the encoding's instructions when run per item).
    @inline(__always)
    func same(_ other: PipelineVariant) -> Bool {
        // A payload-free enum is its case index, one byte.
        unsafeBitCast(kind, to: UInt8.self) == unsafeBitCast(other.kind, to: UInt8.self) && clipped == other.clipped
            && additive == other.additive
    }
}

/// One draw of a pass as the recorder issues it. Instances are where they start in the ring,
/// in bytes (`first`, `instance`), each kind at its own stride (`RectInstance.stride`); a
/// draw's first instance is aligned to its stride, so the recorder binds the ring once (at
/// 0) and draws from instance `first / stride`.
enum RecordedDraw: Equatable {
    /// Consecutive instances of one variant (kind, clipping, additive), one instanced draw.
    case rects(first: Int, count: Int, variant: PipelineVariant)
    /// SAFETY: unretained (a draw list's meshes would cost a retain and release each); the
    /// `MeshResidency` holds every mesh a frame draws until after the frame is recorded (a mesh
    /// is forgotten only after `MeshResidency.idleFrames` frames without use).
    case mesh(Unmanaged<MeshResidency.GPUMesh>, instance: Int, clipped: Bool)
    /// Consecutive image pieces drawn with one image and sampler (`set`, the image variant's
    /// set 1, of `texture`), one instanced draw.
    /// (`variant`: kind `.image` or `.imageSharp`, `.shape` for shape atlas items, `.maskedAxial` or
    /// `.maskedRadial` for masked gradients.)
    /// SAFETY: `texture` unretained, as a mesh: resident while a frame draws it.
    case image(first: Int, count: Int, variant: PipelineVariant, set: VkDescriptorSet, texture: Unmanaged<TextureImage>)
    /// Offscreen image `image` over the pass with `opacity`.
    /// (`area`: the box of the pass that drew the image, the draw's scissor.)
    case composite(image: Int, opacity: Float, area: PixelRect)
    /// Offscreen image `image` through a color matrix (`constants`: opacity, then the four rows'
    /// first four entries, then the offsets, as the filter pipeline's push constants), over the
    /// pass within `area` (a filter group's color filter).
    case filtered(image: Int, constants: [Float], area: PixelRect)
    /// The pass so far multiplied by offscreen image `image`'s alpha (a mask), within `area`
    /// when given (a batched mask's region), else over the whole pass.
    case mask(image: Int, area: PixelRect?)
    /// Offscreen image `source` × `opacity` blended by `mode` (`BlendMode.index`) over image
    /// `backdrop`, replacing the pass's pixels.
    case blend(source: Int, backdrop: Int, mode: UInt32, opacity: Float)
    /// One pass of a shadow's blur: the quad of `instance` (device pixels) reading image
    /// `source`'s alpha along x (or y when `vertical`) within `valid` (the part of `source` its
    /// pass cleared), scissored to `scissor`; all four channels when `color` (a filter's blur).
    case blur(source: Int, instance: Int, vertical: Bool, sigma: Float, valid: PixelRect, scissor: PixelRect,
              color: Bool, readScale: Float = 1)
    /// Background filters' last step: image `source` blurred vertically by `sigma` (0: as it
    /// is) within `valid`, mixed with image `backdrop` by the coverage of `instance` (the item's
    /// opacity and clips over its device box), written in place of the pass's pixels within
    /// `scissor`.
    case backdrop(source: Int, backdrop: Int, instance: Int, sigma: Float, valid: PixelRect, scissor: PixelRect,
                  readScale: Float = 1)
    /// The draws after it, up to the next `scissor`, cut to `area` within the pass's area (a
    /// batched member's region: `PassStep.within`).
    case scissor(PixelRect)

    static func == (a: RecordedDraw, b: RecordedDraw) -> Bool {
        switch (a, b) {
        case let (.rects(f1, c1, v1), .rects(f2, c2, v2)): f1 == f2 && c1 == c2 && v1.same(v2)
        case let (.mesh(m1, i1, c1), .mesh(m2, i2, c2)): m1.toOpaque() == m2.toOpaque() && i1 == i2 && c1 == c2
        case let (.image(f1, c1, v1, s1, t1), .image(f2, c2, v2, s2, t2)):
            f1 == f2 && c1 == c2 && v1.same(v2) && s1 == s2 && t1.toOpaque() == t2.toOpaque()
        case let (.composite(i1, o1, a1), .composite(i2, o2, a2)): i1 == i2 && o1 == o2 && a1 == a2
        case let (.mask(i1, a1), .mask(i2, a2)): i1 == i2 && a1 == a2
        case let (.scissor(a1), .scissor(a2)): a1 == a2
        case let (.blend(s1, b1, m1, o1), .blend(s2, b2, m2, o2)): s1 == s2 && b1 == b2 && m1 == m2 && o1 == o2
        case let (.filtered(i1, c1, a1), .filtered(i2, c2, a2)): i1 == i2 && c1 == c2 && a1 == a2
        case let (.blur(s1, i1, v1, g1, a1, b1, c1, r1), .blur(s2, i2, v2, g2, a2, b2, c2, r2)):
            s1 == s2 && i1 == i2 && v1 == v2 && g1 == g2 && a1 == a2 && b1 == b2 && c1 == c2 && r1 == r2
        case let (.backdrop(s1, d1, i1, g1, a1, b1, r1), .backdrop(s2, d2, i2, g2, a2, b2, r2)):
            s1 == s2 && d1 == d2 && i1 == i2 && g1 == g2 && a1 == a2 && b1 == b2 && r1 == r2
        default: false
        }
    }
}

/// One frame slot's encoding: turns a frame's plan into the draws of each pass, writing the
/// items' instances in place into the slot's instance ring (`RectInstance.write`) and making
/// their meshes and images resident. Keeps its buffers between frames, so a frame allocates
/// nothing once they have grown. Render thread only.
///
/// It remembers what the ring holds (`Held`: the list's serial, size, clip and item counts)
/// and, for a list whose items are all drawn in one pass in order (no groups or blurred
/// shadows), where each item's instances start (bytes: each instance takes its kind's
/// `RectInstance.stride`, the ring being a packed `RectInstance.Span`; an item that begins a
/// draw is moved up to a multiple of its stride, the gap its `lead`). When the next list of this slot differs from
/// the one it holds only within known item ranges (`encode(_:delta:…)`: the union of the
/// deltas since, `DrawList.delta`), only those items are written again, in place — provided
/// each writes as many instances of the same variant (and image set, or mesh) as before, so
/// the draws stay as they were; otherwise, and for any other list, every instance is written.
/// Items that only moved or faded since (the patches' motion ranges) get only the motion part
/// of their instances written (`RectInstance.writeMotion`) when their transform was and is
/// affine (`ItemLayout.isAffine`); the others in those ranges are written whole, as above.
struct FrameEncoder {
    /// This frame's draws; pass `i` of the plan issues `draws[passDraws[i]]`.
    private(set) var draws: [RecordedDraw] = []
    private(set) var passDraws: [Range<Int>] = []
    /// The previous encoding's draws (compared with the new ones; buffers kept).
    private var previousDraws: [RecordedDraw] = []
    private var previousPassDraws: [Range<Int>] = []
    /// Per item of a one-pass list in item order, the byte its instances start at (items + 1
    /// entries, the last the bytes used); empty for other lists.
    private var itemStarts: [UInt32] = []
    /// Per item of a one-pass list: how its instances lie in the ring (`ItemLayout`).
    private var itemLayouts: [ItemLayout] = []
    /// The image residency's `changes` after this slot's draws were last made or checked
    /// (`noteImageEpoch`): while it holds, an image item that only moved draws with the same
    /// set, unchecked.
    private var imageEpoch: UInt64?
    /// The small-image atlas entries the ring's instances were placed in (marked used on every
    /// frame that patches the ring instead of asking for each image again).
    private var atlasEntries: [AtlasEntry] = []
    /// What the ring holds, nil when unknown (nothing encoded, or the ring was replaced).
    private(set) var held: Held?
    /// Bytes of instances in the ring.
    private(set) var instanceBytes = 0

    /// The list whose instances the ring holds.
    struct Held: Equatable {
        var serial: UInt64
        var width: Int, height: Int
        var clipCount: Int, itemCount: Int
    }

    /// What an encoding did.
    struct Outcome {
        /// Whether `draws` or `passDraws` differ from the previous encoding's.
        var drawsChanged: Bool
        /// Instances written whole (all of them, or the patched items').
        var written: Int
        /// Instances whose motion part alone was written.
        var motionWritten = 0
        /// Bytes written into the ring: instances whole at their strides, 48 per motion part.
        var bytesWritten = 0
        /// Whether only the changed items were written.
        var patched: Bool
    }

    /// Forgets what the ring holds (it was replaced or released).
    mutating func forgetHeld() { held = nil }

    /// Notes the image residency's `changes` after an encoding (see `imageEpoch`).
    mutating func noteImageEpoch(_ epoch: UInt64) { imageEpoch = epoch }

    /// Encodes `list`'s passes into `span` (grown by `grow`, which gives the span a buffer of at
    /// least the bytes it is given holding what it had, when an item does not fit: those the
    /// list's items will take at the rate of those written so far, or more when the item needs
    /// them); `mesh` makes a mesh resident;
    /// `image` makes an image resident and gives the set that draws it with the item's filters,
    /// and the texture (nil: not drawn). `delta`: when the ring holds list `delta.base`, where
    /// `list`'s items can differ from that list's (`rewritten`: in any way; `motionOnly`: in
    /// transform and opacity only; each ascending and disjoint, and disjoint from each other);
    /// only those are written when the ring's mapping of items to instances still holds.
    /// Resident meshes and images the draws use are marked used in `frame` either way.
    mutating func encode(_ list: DrawList, delta: FrameDelta?, frame: UInt64, imageEpoch: UInt64,
                         into span: inout RectInstance.Span,
                         grow: (inout RectInstance.Span, Int) throws(RenderError) -> Void,
                         mesh: (MeshDraw) throws(RenderError) -> MeshResidency.GPUMesh,
                         image: (ImageDraw) throws(RenderError) -> ImageResidency.Binding?)
        throws(RenderError) -> Outcome {
        let key = Held(serial: list.serial, width: list.width, height: list.height, clipCount: list.clips.count,
                       itemCount: list.items.count)
        // Unknown until this encoding succeeds (an error on the way leaves the ring mixed).
        let held = self.held
        self.held = nil
        if let delta, let held, held.serial == delta.base, held.serial != 0,
           Held(serial: held.serial, width: key.width, height: key.height, clipCount: key.clipCount,
                itemCount: key.itemCount) == held,
           itemStarts.count == key.itemCount + 1, itemLayouts.count == key.itemCount, span.packed,
           span.capacity >= instanceBytes,
           let written = try patch(list, whole: delta.rewritten, motion: delta.motionOnly, base: span.bytes,
                                   capacity: span.capacity, checkImages: imageEpoch != self.imageEpoch,
                                   ringEpoch: self.imageEpoch ?? 0, mesh: mesh, image: image) {
            for draw in draws {
                switch draw {
                case .mesh(let m, _, _): m.takeUnretainedValue().lastFrame = frame
                case .image(_, _, _, _, let t): t.takeUnretainedValue().lastUsed = frame
                default: break
                }
            }
            for entry in atlasEntries { entry.lastUsed = frame }
            span.used = instanceBytes
            self.held = key
            return Outcome(drawsChanged: false, written: written.whole, motionWritten: written.motion,
                           bytesWritten: written.bytes, patched: true)
        }
        swap(&draws, &previousDraws)
        swap(&passDraws, &previousPassDraws)
        let written = try encodeAll(list, into: &span, grow: grow, mesh: mesh, image: image)
        instanceBytes = span.used
        self.held = itemStarts.count == key.itemCount + 1 ? key : nil
        return Outcome(drawsChanged: draws != previousDraws || passDraws != previousPassDraws,
                       written: written.instances, bytesWritten: written.bytes, patched: false)
    }

    /// Writes the items of `whole` again in place, and the motion part of those of `motion`
    /// (`base`: the ring, `capacity` bytes), checking each item written whole against the
    /// draw that issues its instances (and with `checkImages` the image set of those moved, and
    /// that an atlas entry they are drawn from was placed by `ringEpoch`, so is the one their
    /// instances point into). Returns the instances written whole and in motion only and the bytes written, or nil
    /// when an item no longer fits its place (then some instances may have been written over:
    /// the caller writes them all).
    private mutating func patch(_ list: DrawList, whole: [Range<Int>], motion: [Range<Int>],
                                base: UnsafeMutableRawPointer, capacity: Int, checkImages: Bool, ringEpoch: UInt64,
                                mesh: (MeshDraw) throws(RenderError) -> MeshResidency.GPUMesh,
                                image: (ImageDraw) throws(RenderError) -> ImageResidency.Binding?)
        throws(RenderError) -> (whole: Int, motion: Int, bytes: Int)? {
        let clipCount = list.clips.count, width = list.width, height = list.height
        let scale = RectInstance.clipScale(width, height)
        var written = 0, motionWritten = 0, bytesWritten = 0
        // Locals (no exclusivity checks on properties in the loops).
        var affine = self.itemLayouts
        self.itemLayouts = []
        defer { self.itemLayouts = affine }
        let starts = itemStarts
        let draws = self.draws
        return try list.items.withUnsafeBufferPointer { (items) throws(RenderError) -> (whole: Int, motion: Int, bytes: Int)? in
            try affine.withUnsafeMutableBufferPointer { (affine) throws(RenderError) -> (whole: Int, motion: Int, bytes: Int)? in
                /// Item `k` written whole in place, its draw found from `cursor` (items ascend, and so
                /// do their draws); false when it no longer fits its place.
                func writeWhole(_ k: Int, _ cursor: inout Int) throws(RenderError) -> Bool {
                    let lead = affine[k].lead
                    let start = Int(starts[k]) + lead, bytes = Int(starts[k + 1]) - start
                    // (The item's place in the ring as the held encoding left it.)
                    checkHostWrite("instance ring (patch)", offset: start, length: bytes, capacity: capacity)
                    let item = items.baseAddress! + k
                    var span = RectInstance.Span(packed: base + start, capacity: capacity - start)
                    switch RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span) {
                    case .nothing:
                        guard bytes == 0 else { return false }
                        affine[k] = .none
                    case .needsRoom:
                        return false
                    case .drawn(let n, let variant):
                        // As many bytes, and (below) the same variant, so as many instances.
                        guard span.used == bytes, let d = Self.drawIndex(draws, containing: start, from: cursor) else {
                            return false
                        }
                        cursor = d
                        switch (item.pointee.kind, draws[d]) {
                        case (.mesh(let meshDraw), .mesh(let drawn, let instance, let clipped)):
                            guard instance == start, clipped == variant.clipped,
                                  try mesh(meshDraw) === drawn.takeUnretainedValue() else { return false }
                        case (.image(let imageDraw), .image(_, _, let drawnVariant, let set, _)):
                            guard drawnVariant.same(variant), let binding = try image(imageDraw), binding.set == set
                            else { return false }
                            if let entry = binding.entry {
                                // (Bounded: a list patched on and on is encoded whole now and then.)
                                guard atlasEntries.count < 2 * items.count + 64 else { return false }
                                checkHostWrite("instance ring (atlas placement)", offset: start,
                                               length: n * RectInstance.stride(variant.kind), capacity: capacity)
                                RectInstance.placeInAtlas(base + start, count: n, stride: RectInstance.stride(variant.kind),
                                                          region: entry.region, clamp: entry.clamp)
                                atlasEntries.append(entry)
                            }
                        case (.mesh, _), (.image, _):
                            return false
                        case (_, .rects(_, _, let drawnVariant)):
                            guard drawnVariant.same(variant) else { return false }
                        default:
                            return false
                        }
                        affine[k] = ItemLayout(item, variant, lead: lead)
                        written += n
                        bytesWritten += bytes
                    }
                    return true
                }
                var cursor = 0
                for range in whole {
                    guard range.lowerBound >= 0, range.upperBound <= items.count else { return nil }
                    for k in range {
                        guard try writeWhole(k, &cursor) else { return nil }
                    }
                }
                cursor = 0
                for range in motion {
                    guard range.lowerBound >= 0, range.upperBound <= items.count else { return nil }
                    for k in range {
                        let layout = affine[k]
                        let start = Int(starts[k]) + layout.lead, bytes = Int(starts[k + 1]) - start
                        let stride = layout.stride, count = RectInstance.instances(inBytes: bytes, stride: stride)
                        let item = items.baseAddress! + k
                        checkHostWrite("instance ring (motion)", offset: start, length: count * stride, capacity: capacity)
                        // Still affine and drawn: only the motion part (the content, and so the
                        // variant, is as the ring holds it).
                        guard layout.isAffine,
                              RectInstance.writeMotion(item, scale: scale, to: base + start, count: count, stride: stride)
                        else {
                            guard try writeWhole(k, &cursor) else { return nil }
                            continue
                        }
                        if layout.isImage && checkImages {
                            // An image piece: the set that draws it must be the same (the atlas kept).
                            guard case .image(let imageDraw) = item.pointee.kind,
                                  let d = Self.drawIndex(draws, containing: start, from: cursor),
                                  case .image(_, _, _, let set, _) = draws[d],
                                  let binding = try image(imageDraw), binding.set == set,
                                  (binding.entry?.placed ?? 0) <= ringEpoch else { return nil }
                            cursor = d
                        }
                        motionWritten += count
                        bytesWritten += count * Self.motionBytes
                    }
                }
                return (written, motionWritten, bytesWritten)
            }
        }
    }

    /// Bytes of an instance's motion part (its first three fields, in every stride).
    static let motionBytes = 48

    /// The draw whose instances include the one at byte `instance`, at `from` or after it
    /// (draws of a one-pass list are in instance order).
    private static func drawIndex(_ draws: [RecordedDraw], containing instance: Int, from: Int) -> Int? {
        var d = from
        while d < draws.count {
            let (first, bytes): (Int, Int) = switch draws[d] {
            case .rects(let f, let c, let v): (f, c * RectInstance.stride(v.kind))
            case .image(let f, let c, let v, _, _): (f, c * RectInstance.stride(v.kind))
            case .mesh(_, let i, _): (i, RectInstance.stride(.mesh))
            case .blur, .composite, .mask, .blend, .filtered, .backdrop, .scissor: (Int.max, 0)
            }
            if instance < first { return nil }
            if instance < first + bytes { return d }
            d += 1
        }
        return nil
    }

    /// Consecutive instances collected into one draw: rects, or with `set` an image's pieces
    /// (`first` a byte offset).
    private struct Run {
        var first = 0, count = 0
        var variant = PipelineVariant(kind: .rect, clipped: false)
        var set: VkDescriptorSet? = nil
        var texture: Unmanaged<TextureImage>? = nil

        /// Appends the run's draw (when it has instances) and empties it.
        mutating func end(into draws: inout [RecordedDraw]) {
            guard count > 0 else { return }
            if let set, let texture {
                draws.append(.image(first: first, count: count, variant: variant, set: set, texture: texture))
            } else {
                draws.append(.rects(first: first, count: count, variant: variant))
            }
            count = 0
        }
    }

    /// Encodes every pass, writing every instance from the span's start. Returns the
    /// instances written and their bytes (without the leads that align draws).
    private mutating func encodeAll(_ list: DrawList, into span: inout RectInstance.Span,
                                    grow: (inout RectInstance.Span, Int) throws(RenderError) -> Void,
                                    mesh: (MeshDraw) throws(RenderError) -> MeshResidency.GPUMesh,
                                    image: (ImageDraw) throws(RenderError) -> ImageResidency.Binding?)
        throws(RenderError) -> (instances: Int, bytes: Int) {
        draws.removeAll(keepingCapacity: true)
        passDraws.removeAll(keepingCapacity: true)
        itemStarts.removeAll(keepingCapacity: true)
        itemLayouts.removeAll(keepingCapacity: true)
        atlasEntries.removeAll(keepingCapacity: true)
        // Locals in the per-item loop (no exclusivity checks on properties).
        let clipCount = list.clips.count, width = list.width, height = list.height
        var draws = self.draws
        self.draws = []
        defer { self.draws = draws }
        let plan = list.plan
        // One pass drawing every item in order: each item's first instance is kept (patching).
        var starts = self.itemStarts
        self.itemStarts = []
        defer { self.itemStarts = starts }
        let inOrder = plan.passes.count == 1 && plan.steps.count == 1 && plan.steps[0] == .items(0..<list.items.count)
        var affine = self.itemLayouts
        self.itemLayouts = []
        defer { self.itemLayouts = affine }
        var instanceBytes = 0
        if inOrder {
            starts.append(contentsOf: repeatElement(0, count: list.items.count + 1))
            affine.append(contentsOf: repeatElement(.none, count: list.items.count))
        }
        // SAFETY: `starts` holds items + 1 entries and `affine` items when `inOrder`, and they are
        // not otherwise touched until the loop is done (pointers, not appends and their
        // uniqueness checks per item).
        let startsPointer = starts.withUnsafeMutableBufferPointer { $0.baseAddress }
        let affinePointer = affine.withUnsafeMutableBufferPointer { $0.baseAddress }
        var run = Run()
        var instances = 0
        var visited = 0  // items visited so far (the growth's projection)
        let itemCount = list.items.count
        /// Writes `item`'s instances at the end of `span`, growing it when full.
        func write(_ item: UnsafePointer<DrawItem>) throws(RenderError) -> RectInstance.Written {
            let written = RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span)
            guard case .needsRoom(let room) = written else { return written }
            // (`room` instances: at most the largest stride each.) Projected, so that the next
            // frame of the same list finds the ring neither too small nor far too large.
            let atLeast = span.used + room * MemoryLayout<RectInstance>.stride
            try grow(&span, max(atLeast, visited > 0 ? span.used / visited * itemCount : 0))
            return RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span)
        }
        /// Moves the `bytes` just written at `from` (the span's end) up to the next multiple of
        /// `stride`: the first instance of a draw, which the recorder draws as instance
        /// `first / stride` of the ring bound once. Returns where they are now.
        func align(_ from: Int, _ bytes: Int, _ stride: Int) throws(RenderError) -> Int {
            let to = RectInstance.instances(inBytes: from + stride - 1, stride: stride) * stride
            guard to != from else { return from }
            if to + bytes > span.capacity {
                try grow(&span, max(to + bytes, span.used / max(visited, 1) * itemCount))
            }
            // (Overlapping when the lead is shorter than the bytes: a memmove.)
            checkHostWrite("instance ring (align)", offset: to, length: bytes, capacity: span.capacity)
            (span.bytes + to).copyMemory(from: span.bytes + from, byteCount: bytes)
            span.used = to + bytes
            return to
        }
        /// Writes `quad` as one sharp-rect instance (the stride the blur and backdrop pipelines
        /// read: a quad at the identity without radii or border) and aligns it as a draw's first:
        /// its offset, or nil (nothing kept) when it does not draw as one.
        func sharpQuad(_ quad: inout DrawItem) throws(RenderError) -> Int? {
            let instance = span.used
            guard case .drawn(1, let variant) = try write(&quad), variant.kind == .sharp else {
                span.used = instance
                return nil
            }
            let stride = RectInstance.stride(.sharp)
            let at = try align(instance, stride, stride)
            instances += 1
            instanceBytes += stride
            return at
        }
        // The area each offscreen image was last drawn over (a composite reads only that).
        var imageAreas: [Int: PixelRect] = [:]
        try list.items.withUnsafeBufferPointer { (items) throws(RenderError) in
            for pass in plan.passes {
                defer {
                    if case .image(let image) = pass.target { imageAreas[image] = pass.area }
                    if let copy = pass.copyOut { imageAreas[copy.image] = copy.area }
                }
                let first = draws.count
                for stepIndex in pass.steps {
                    switch plan.steps[stepIndex] {
                    case .items(let range):
                        for k in range {
                            let item = items.baseAddress! + k
                            let instance = span.used
                            visited += 1
                            if inOrder { startsPointer.unsafelyUnwrapped[k] = UInt32(truncatingIfNeeded: instance) }
                            // The variant tells the kind (no copy of the item's kind for the others).
                            guard case .drawn(let added, let variant) = try write(item) else { continue }
                            let stride = RectInstance.stride(variant.kind), bytes = added * stride
                            var at = instance  // where its instances end up (a new draw's aligned)
                            switch variant.kind {
                            case .mesh:
                                guard case .mesh(let meshDraw) = item.pointee.kind else { continue }
                                run.end(into: &draws)
                                at = try align(instance, bytes, stride)
                                draws.append(.mesh(Unmanaged.passUnretained(try mesh(meshDraw)), instance: at,
                                                   clipped: variant.clipped))
                            case .image, .shape, .imageSharp, .maskedAxial, .maskedRadial:
                                guard case .image(let imageDraw) = item.pointee.kind else { continue }
                                guard let binding = try image(imageDraw) else {
                                    span.used = instance
                                    continue
                                }
                                let set = binding.set, texture = binding.texture
                                if let entry = binding.entry {
                                    // Its sources moved into the entry's page (before `align` moves them).
                                    checkHostWrite("instance ring (atlas placement)", offset: instance, length: bytes,
                                                   capacity: span.capacity)
                                    RectInstance.placeInAtlas(span.bytes + instance, count: added, stride: stride,
                                                              region: entry.region, clamp: entry.clamp)
                                    if atlasEntries.last !== entry { atlasEntries.append(entry) }
                                }
                                if run.count > 0, run.set == set, run.variant.same(variant),
                                   run.first + run.count * stride == instance {
                                    run.count += added
                                } else {
                                    run.end(into: &draws)
                                    at = try align(instance, bytes, stride)
                                    run = Run(first: at, count: added, variant: variant, set: set,
                                              texture: .passUnretained(texture))
                                }
                            default:
                                // An item's instances (gradient segments) share kind and clip, so one variant.
                                if run.count > 0, run.set == nil, run.variant.same(variant) {
                                    run.count += added
                                } else {
                                    run.end(into: &draws)
                                    at = try align(instance, bytes, stride)
                                    run = Run(first: at, count: added, variant: variant)
                                }
                            }
                            instances += added
                            instanceBytes += bytes
                            if inOrder {
                                affinePointer.unsafelyUnwrapped[k] = ItemLayout(item, variant, lead: at - instance)
                            }
                        }
                        run.end(into: &draws)
                    case .composite(let image, let opacity):
                        draws.append(.composite(image: image, opacity: Float(opacity),
                                                area: imageAreas[image] ?? PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0)))
                    case .filtered(let image, let m, let opacity):
                        draws.append(.filtered(image: image, constants: Self.matrixConstants(m, opacity: opacity),
                                               area: imageAreas[image] ?? PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0)))
                    case .region(let image, let area, let m, let opacity):
                        // Within the region only (the image's pass drew over the batch's union).
                        let drawn = (imageAreas[image] ?? PixelRect(minX: 0, minY: 0, maxX: 0, maxY: 0)).intersection(area)
                        if let m {
                            draws.append(.filtered(image: image, constants: Self.matrixConstants(m, opacity: opacity),
                                                   area: drawn))
                        } else {
                            draws.append(.composite(image: image, opacity: Float(opacity), area: drawn))
                        }
                    case .mask(let image):
                        draws.append(.mask(image: image, area: nil))
                    case .maskRegion(let image, let area):
                        draws.append(.mask(image: image, area: area))
                    case .within(let area):
                        draws.append(.scissor(area))
                    case .copy(let image):
                        // The blend step with nothing blended: the image itself, replacing.
                        draws.append(.blend(source: image, backdrop: image, mode: 0, opacity: 0))
                    case .blend(let source, let backdrop, let mode, let opacity):
                        draws.append(.blend(source: source, backdrop: backdrop, mode: UInt32(mode.index),
                                            opacity: Float(opacity)))
                    case .blur(let source, let marker, let vertical, let sigma, let valid, let scissor, let readScale):
                        // Over the source's valid area (a resampling: over what it writes, in other units).
                        let over = readScale == 1 ? valid : scissor
                        let quad = Rect(Double(over.minX), Double(over.minY),
                                        Double(over.maxX - over.minX), Double(over.maxY - over.minY))
                        var quadItem: DrawItem
                        var color = false
                        if items[marker].isFilterMarker {
                            // A filter's blur: all channels, drawn as they are (opaque black: alpha 1).
                            color = true
                            quadItem = DrawItem(bounds: quad, backgroundColor: Color(0, 0, 0))
                        } else if vertical, case .shadowGroup(let color, _, _) = items[marker].kind {
                            // The shadow color, opacity and clips.
                            quadItem = DrawItem(bounds: quad, backgroundColor: color, opacity: items[marker].opacity,
                                                clip: items[marker].clip)
                        } else {
                            quadItem = DrawItem(bounds: quad, backgroundColor: Color(0, 0, 0))
                        }
                        guard let at = try sharpQuad(&quadItem) else { continue }
                        draws.append(.blur(source: source, instance: at, vertical: vertical, sigma: Float(sigma),
                                           valid: valid, scissor: scissor, color: color, readScale: Float(readScale)))
                    case .backdrop(let source, let backdrop, let marker, let sigma, let valid, let scissor, let readScale):
                        // A quad over the box in device pixels with the item's opacity and clips.
                        let quad = Rect(Double(scissor.minX), Double(scissor.minY),
                                        Double(scissor.maxX - scissor.minX), Double(scissor.maxY - scissor.minY))
                        var quadItem = DrawItem(bounds: quad, backgroundColor: Color(0, 0, 0),
                                                opacity: items[marker].opacity, clip: items[marker].clip)
                        guard let at = try sharpQuad(&quadItem) else { continue }
                        draws.append(.backdrop(source: source, backdrop: backdrop, instance: at, sigma: Float(sigma),
                                               valid: valid, scissor: scissor, readScale: Float(readScale)))
                    }
                }
                passDraws.append(first..<draws.count)
            }
        }
        if inOrder { startsPointer?[list.items.count] = UInt32(truncatingIfNeeded: span.used) }
        return (instances, instanceBytes)
    }
}

extension FrameEncoder {
    /// The color-matrix pipeline's push constants for 4×5 matrix `m` (row by row) at `opacity`:
    /// the opacity, then the four rows' first four entries, then the offsets.
    static func matrixConstants(_ m: [Double], opacity: Double) -> [Float] {
        var constants: [Float] = [Float(opacity), 0, 0, 0]
        for row in 0..<4 { for col in 0..<4 { constants.append(Float(m[5 * row + col])) } }
        for row in 0..<4 { constants.append(Float(m[5 * row + 4])) }
        return constants
    }
}

/// How one item's instances lie in a one-pass list's ring, and what a later frame may rewrite of
/// them (2 bytes an item, kept per item by `FrameEncoder`).
struct ItemLayout {
    /// Bit 0: written under an affine transform and drawn (the motion part alone may be written
    /// again); bit 1: an image or shape atlas piece (its image set is checked); bits 2–5: the
    /// instances' stride in vec4s; bits 6–: the lead in vec4s.
    private let bits: UInt16

    /// An item that draws nothing.
    static let none = ItemLayout(bits: 0)
    private init(bits: UInt16) { self.bits = bits }

    /// An item written as `variant`, its first instance `lead` bytes after its entry in
    /// `itemStarts` (the padding that aligns a draw's first instance to its stride).
    @inline(__always)
    init(_ item: UnsafePointer<DrawItem>, _ variant: PipelineVariant, lead: Int) {
        let m = item.pointee.transform
        let image: UInt16 = variant.kind.samplesImage ? 2 : 0
        let layout = UInt16(truncatingIfNeeded: RectInstance.stride(variant.kind) / 16) << 2
            | UInt16(truncatingIfNeeded: lead / 16) << 6
        bits = (m.m14 == 0 && m.m24 == 0 ? 1 | image : 0) | layout
    }

    /// Whether its instances were written under an affine transform and it draws.
    var isAffine: Bool { bits & 1 != 0 }
    /// Whether it is an image or shape atlas piece (drawn with an image set).
    var isImage: Bool { bits & 2 != 0 }
    /// Its instances' stride in bytes.
    var stride: Int { Int((bits >> 2) & 15) * 16 }
    /// Bytes from its entry in `itemStarts` to its first instance.
    var lead: Int { Int(bits >> 6) * 16 }
}
