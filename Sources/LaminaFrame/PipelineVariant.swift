/// Which pipeline draws an instance: its kind and whether it has clips. Each variant is the
/// same GLSL compiled with `KIND` (and `CLIPPED`) defined, so a pixel runs only its own kind's
/// code — llvmpipe executes every branch of a shader over its SIMD block, so one uber shader
/// made every pixel pay for shadows, gradients and clips.
///
/// Consecutive instances of the same variant are one instanced draw; a change of variant is
/// a pipeline bind between draws, so painter's order is kept exactly.
package struct PipelineVariant: Hashable {
    package var kind: RectInstance.Kind
    package var clipped: Bool

    /// The variant that draws `instance`.
    package init(_ instance: RectInstance) {
        kind = RectInstance.Kind(rawValue: instance.params.y) ?? .rect
        clipped = instance.params.w != 0
    }

    @inlinable
    package init(kind: RectInstance.Kind, clipped: Bool) {
        self.kind = kind
        self.clipped = clipped
    }

    /// Position in `all`.
    package var index: Int { Int(kind.rawValue) * 2 + (clipped ? 1 : 0) }

    /// Every variant, in `index` order.
    package static let all: [PipelineVariant] = [
        RectInstance.Kind.rect, .shadow, .axial, .radial, .conic, .mesh, .image, .shape, .sharp,
        .axialSharp, .radialSharp, .conicSharp, .imageSharp,
    ].flatMap {
        [PipelineVariant(kind: $0, clipped: false), PipelineVariant(kind: $0, clipped: true)]
    }
}
