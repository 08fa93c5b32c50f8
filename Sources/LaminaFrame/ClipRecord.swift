import LaminaGeometry

/// One `Clip` as the fragment shaders read it: element `i` of the frame's clip buffer
/// (`ClipData clips[]` in `common.frag.glsl`, std430) is `DrawList.clips[i]`.
///
/// Items point at their innermost clip (`RectInstance.params.w`); the shader multiplies the
/// coverage of that clip and of every ancestor, following `parent` — so any nesting depth
/// applies. Plain data: no Vulkan types.
package struct ClipRecord: Equatable {
    /// Rows of the pixel → clip-local homography: [px py 1] × H⁻¹ = (x·w, y·w, w).
    /// `h0.w`: the parent's index + 1 (0 = no parent); always below this clip's own index + 1.
    package var h0: SIMD4<Float>
    package var h1: SIMD4<Float>
    package var h2: SIMD4<Float>
    /// The clip rect in its layer's plane: minX, minY, maxX, maxY. An empty clip (or one seen
    /// edge-on) is stored as maxX < minX, which the shader reads as "covers nothing".
    package var rect: SIMD4<Float>
    /// Corner radii, clamped to half the smaller side (as `RectInstance.radii`).
    package var radii: SIMD4<Float>

    /// The record of `clips[index]`.
    /// - Precondition: the parent comes before the clip (`parent < index`), as
    ///   `DrawListBuilder` appends them; this keeps the shader's walk finite.
    package init(_ clips: [Clip], at index: Int) {
        let clip = clips[index]
        let parent = clip.parent >= 0 && clip.parent < clips.count ? clip.parent : -1
        precondition(parent < index, "Clip \(index) has parent \(clip.parent): a clip's parent must come before it in DrawList.clips")
        let m = clip.transform
        // Local (x, y, 1) → pixel homogeneous (X, Y, W): rows (m11 m12 m14), (m21 m22 m24), (m41 m42 m44).
        let a = m.m11, b = m.m12, c = m.m14, d = m.m21, e = m.m22, f = m.m24, g = m.m41, h = m.m42, k = m.m44
        let det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
        let r = clip.rect.standardized
        let parentField = Float(parent + 1)
        guard abs(det) > 1e-12, r.width > 0, r.height > 0 else {
            // Edge-on or empty: an empty rect clips everything away.
            h0 = SIMD4(1, 0, 0, parentField); h1 = SIMD4(0, 1, 0, 0); h2 = SIMD4(0, 0, 1, 0)
            rect = SIMD4(0, 0, -1, -1); radii = .zero
            return
        }
        let inv = 1 / det
        // Inverse (adjugate / det), as rows of the row-vector matrix.
        h0 = SIMD4(Float((e * k - f * h) * inv), Float((c * h - b * k) * inv), Float((b * f - c * e) * inv), parentField)
        h1 = SIMD4(Float((f * g - d * k) * inv), Float((a * k - c * g) * inv), Float((c * d - a * f) * inv), 0)
        h2 = SIMD4(Float((d * h - e * g) * inv), Float((b * g - a * h) * inv), Float((a * e - b * d) * inv), 0)
        rect = SIMD4(Float(r.minX), Float(r.minY), Float(r.maxX), Float(r.maxY))
        radii = RectInstance.clampedRadii(clip.radii, r)
    }
}
