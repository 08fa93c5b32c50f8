import LaminaFrame

/// The pipeline table: for each `PipelineVariant`, the SPIR-V modules its pipeline uses and the
/// specialization constants that pick the kind's code in them. The rows come from
/// `shaders/variants.list` (`row(_:)` and `Shaders` are generated from it at build time by
/// scripts/gen-shaders, run by the ShaderCompiler plugin), so the list is the one place that
/// names the permutations: the GLSL compilation and `VulkanPipeline` both follow it.
enum ShaderTable {
    /// One `pipeline` line of the list.
    struct Row {
        var vertexName: String
        var vertex: [UInt32]
        var fragmentName: String
        var fragment: [UInt32]
        /// Specialization constant 0 (`KIND` in the GLSL): the kind the shaders draw (a sharp
        /// gradient's type: 2, 3 or 4).
        var kindConstant: UInt32
        /// Specialization constant 1 (`SHARP`): gradients on sharp rects.
        var sharp: Bool
        /// The `RectInstance` fields (locations) the vertex module reads: the pipeline's
        /// attributes (the module's `inputs=` in the list).
        var instanceLocations: Set<UInt32>
    }

    /// The specialization constants of `variant`'s pipeline, by constant_id: 0 `KIND`, 1
    /// `SHARP` (each 4 bytes: an int or a VkBool32). (Clipping is a module of its own: it
    /// adds a descriptor set.)
    static func specialization(_ variant: PipelineVariant) -> [UInt32] {
        let row = row(variant)
        return [row.kindConstant, row.sharp ? 1 : 0]
    }
}
