import CVulkan
import LaminaFrame
import LaminaGeometry

/// One draw of a pass as the recorder issues it.
enum RecordedDraw {
    /// Consecutive instances of one variant (kind and clipping), one instanced draw.
    case rects(first: Int, count: Int, variant: PipelineVariant)
    /// SAFETY: unretained (a draw list's meshes would cost a retain and release each); the
    /// `MeshResidency` holds every mesh a frame draws until after the frame is recorded (a mesh
    /// is forgotten only after `MeshResidency.idleFrames` frames without use).
    case mesh(Unmanaged<MeshResidency.GPUMesh>, instance: Int, clipped: Bool)
    /// Consecutive image pieces drawn with one image and sampler (`set`, the image variant's
    /// set 1), one instanced draw.
    /// (`variant`: kind `.image`, or `.shape` for shape atlas items.)
    case image(first: Int, count: Int, variant: PipelineVariant, set: VkDescriptorSet)
    /// Offscreen image `image` over the pass with `opacity`.
    case composite(image: Int, opacity: Float)
    /// One pass of a shadow's blur: the quad of `instance` (device pixels) reading image
    /// `source`'s alpha along x (or y when `vertical`) within `valid` (the part of `source` its
    /// pass cleared), scissored to `scissor`.
    case blur(source: Int, instance: Int, vertical: Bool, sigma: Float, valid: PixelRect, scissor: PixelRect)
}

/// Turns a frame's plan into the draws of each pass, writing the items' instances in place
/// (`RectInstance.write`) and making their meshes resident. Keeps its buffers between frames,
/// so a frame allocates nothing once they have grown. Render thread only.
struct FrameEncoder {
    /// This frame's draws; pass `i` of the plan issues `draws[passDraws[i]]`.
    private(set) var draws: [RecordedDraw] = []
    private(set) var passDraws: [Range<Int>] = []

    /// Encodes `list`'s passes into `span` (grown by `grow`, which gives the span a larger
    /// buffer holding what it had, when an item does not fit); `mesh` makes a mesh resident;
    /// `image` makes an image resident and gives the set that draws it with the item's filters
    /// (nil: not drawn).
    mutating func encode(_ list: DrawList, into span: inout RectInstance.Span,
                         grow: (inout RectInstance.Span, Int) throws(RenderError) -> Void,
                         mesh: (MeshDraw) throws(RenderError) -> MeshResidency.GPUMesh,
                         image: (ImageDraw) throws(RenderError) -> VkDescriptorSet?) throws(RenderError) {
        draws.removeAll(keepingCapacity: true)
        passDraws.removeAll(keepingCapacity: true)
        // Locals in the per-item loop (no exclusivity checks on properties).
        let clipCount = list.clips.count, width = list.width, height = list.height
        var draws = self.draws
        self.draws = []
        defer { self.draws = draws }
        /// Writes `item`'s instances at the end of `span`, growing it when full.
        func write(_ item: UnsafePointer<DrawItem>) throws(RenderError) -> RectInstance.Written {
            let written = RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span)
            guard case .needsRoom(let room) = written else { return written }
            try grow(&span, room)
            return RectInstance.write(item, clipCount: clipCount, width: width, height: height, to: &span)
        }
        let plan = list.plan
        try list.items.withUnsafeBufferPointer { (items) throws(RenderError) in
            for pass in plan.passes {
                let first = draws.count
                for stepIndex in pass.steps {
                    switch plan.steps[stepIndex] {
                    case .items(let range):
                        for k in range {
                            let item = items.baseAddress! + k
                            let instance = span.count
                            if case .mesh(let meshDraw) = item.pointee.kind {
                                guard case .drawn(_, let variant) = try write(item) else { continue }
                                draws.append(.mesh(Unmanaged.passUnretained(try mesh(meshDraw)), instance: instance,
                                                   clipped: variant.clipped))
                                continue
                            }
                            if case .image(let imageDraw) = item.pointee.kind {
                                guard case .drawn(let added, let variant) = try write(item) else { continue }
                                guard let set = try image(imageDraw) else { span.count = instance; continue }
                                if draws.count > first, case .image(let runFirst, let runCount, let runVariant, let runSet) = draws[draws.count - 1],
                                   runVariant == variant, runSet == set, runFirst + runCount == instance {
                                    draws[draws.count - 1] = .image(first: runFirst, count: runCount + added, variant: variant, set: set)
                                } else {
                                    draws.append(.image(first: instance, count: added, variant: variant, set: set))
                                }
                                continue
                            }
                            guard case .drawn(let added, let variant) = try write(item) else { continue }
                            // An item's instances (gradient segments) share kind and clip, so one variant.
                            if draws.count > first, case .rects(let runFirst, let runCount, let runVariant) = draws[draws.count - 1],
                               runVariant == variant {
                                draws[draws.count - 1] = .rects(first: runFirst, count: runCount + added, variant: variant)
                            } else {
                                draws.append(.rects(first: instance, count: added, variant: variant))
                            }
                        }
                    case .composite(let image, let opacity):
                        draws.append(.composite(image: image, opacity: Float(opacity)))
                    case .blur(let source, let marker, let vertical, let sigma, let valid, let scissor):
                        let quad = Rect(Double(valid.minX), Double(valid.minY),
                                        Double(valid.maxX - valid.minX), Double(valid.maxY - valid.minY))
                        var quadItem: DrawItem
                        if vertical, case .shadowGroup(let color, _, _) = items[marker].kind {
                            // The shadow color, opacity and clips.
                            quadItem = DrawItem(bounds: quad, backgroundColor: color, opacity: items[marker].opacity,
                                                clip: items[marker].clip)
                        } else {
                            quadItem = DrawItem(bounds: quad, backgroundColor: Color(0, 0, 0))
                        }
                        let instance = span.count
                        guard case .drawn(1, _) = try write(&quadItem) else { continue }
                        draws.append(.blur(source: source, instance: instance, vertical: vertical, sigma: Float(sigma),
                                           valid: valid, scissor: scissor))
                    }
                }
                passDraws.append(first..<draws.count)
            }
        }
    }
}
