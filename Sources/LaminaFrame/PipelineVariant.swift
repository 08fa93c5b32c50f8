/// Which pipeline draws an instance: its kind, whether it has clips, and whether it adds
/// (`additive`: an additive emitter's particles, drawn with fixed-function ONE/ONE blending,
/// plusLighter per particle, clamped by the UNORM target; only `additiveKinds` have it). Each variant is the
/// same GLSL compiled with `KIND` (and `CLIPPED`) defined, so a pixel runs only its own kind's
/// code — llvmpipe executes every branch of a shader over its SIMD block, so one uber shader
/// made every pixel pay for shadows, gradients and clips.
///
/// Consecutive instances of the same variant are one instanced draw; a change of variant is
/// a pipeline bind between draws, so painter's order is kept exactly.
package struct PipelineVariant: Hashable {
    package var kind: RectInstance.Kind
    package var clipped: Bool
    /// Blended with ONE/ONE (premultiplied source plus destination, clamped) instead of
    /// source-over.
    package var additive: Bool = false

    /// The kinds an additive variant exists for (a particle is a rect, sharp rect or image).
    package static let additiveKinds: [RectInstance.Kind] = [.rect, .sharp, .image, .imageSharp]

    /// The variant that draws `instance` (never additive: the instance does not say).
    package init(_ instance: RectInstance) {
        kind = RectInstance.Kind(rawValue: instance.params.y) ?? .rect
        clipped = instance.params.w != 0
    }

    @inlinable
    package init(kind: RectInstance.Kind, clipped: Bool, additive: Bool = false) {
        self.kind = kind
        self.clipped = clipped
        self.additive = additive
    }

    /// Position in `all`: the source-over variants by kind, then the additive ones in
    /// `additiveKinds` order.
    package var index: Int {
        let plain = Int(kind.rawValue) * 2 + (clipped ? 1 : 0)
        guard additive else { return plain }
        let slot: Int = switch kind {
        case .rect: 0
        case .sharp: 1
        case .image: 2
        default: 3
        }
        return Self.plainCount + slot * 2 + (clipped ? 1 : 0)
    }

    /// The source-over variants' count (every kind, unclipped and clipped).
    package static let plainCount = RectInstance.Kind.allCases.count * 2

    /// Every variant, in `index` order.
    package static let all: [PipelineVariant] = [
        RectInstance.Kind.rect, .shadow, .axial, .radial, .conic, .mesh, .image, .shape, .sharp,
        .axialSharp, .radialSharp, .conicSharp, .imageSharp, .maskedAxial, .maskedRadial,
    ].flatMap {
        [PipelineVariant(kind: $0, clipped: false), PipelineVariant(kind: $0, clipped: true)]
    } + additiveKinds.flatMap {
        [PipelineVariant(kind: $0, clipped: false, additive: true), PipelineVariant(kind: $0, clipped: true, additive: true)]
    }
}
