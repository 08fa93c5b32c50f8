import LaminaGeometry
import LaminaModel
import LaminaTree

/// Analytic blurs (`DrawListBuilder.drawsAnalyticBlurs`): a filter group whose only content is
/// one rounded rect of one color is drawn as one `.shadow` item — the closed-form Gaussian of
/// the rect that rect.frag already computes for Core Animation's shadows — with no offscreen
/// image and no blur passes (as Skia and Flutter draw blurred rects and rounded rects).
///
/// Why it is the same picture: a filter group draws the layer into an image at full opacity,
/// blurs that image by the filter's σ in device pixels (`deviceFilters`: points times the
/// transform's area scale) and composites it at the layer's opacity. When the layer draws
/// only its background — a `.layer` without sublayers, contents, border, shadow or mask, not
/// clipping (`masksToBounds`), no clip of an ancestor in effect (the group's content would be
/// cut by it before the blur), wholly on the canvas (its image holds nothing past the canvas's
/// edge) — the image is the background's premultiplied color times the
/// coverage of the rounded bounds, and the Gaussian is linear: the result is that color times
/// the blurred coverage. Under a similarity transform (rotation, uniform scale, translation, a
/// mirror; no perspective) a Gaussian of σ·s device pixels is the Gaussian of σ points in the
/// layer's own plane, which is where the `.shadow` item evaluates it (σ in local units): the
/// erf product for a rect (exact), Evan Wallace's per-row integral for rounded corners (see
/// rect.frag's `blurredRoundedRect`). Under any other transform the device-space blur is not
/// the local one (it would be an ellipse in the layer's plane) and the group is drawn as before.
extension DrawListBuilder {
    /// The `.shadow` item that draws the filter group of the layer at `slot` with `filters`,
    /// or nil when the group is not one blurred rounded rect (see above).
    func analyticBlurItem(_ slot: Int, _ maskSlot: Int?, _ filters: [LayerFilter],
                          _ nodes: UnsafeBufferPointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                          clip: Int) -> DrawItem? {
        guard drawsAnalyticBlurs, rasterDepth == 0, clip < 0, maskSlot == nil, filters.count == 1,
              filters[0].kind == .gaussianBlur, filters[0].radius.isFinite, filters[0].radius > 0,
              Self.isSimilarity(toPixels)
        else { return nil }
        let address = nodes.baseAddress! + slot
        // Borrowed in place, as in `visit`.
        var node: LayerNode { _read { yield address.pointee } }
        var p: LayerProperties { _read { yield address.pointee.properties } }
        guard node.kind == .layer, node.sublayers.isEmpty, !node.hasContentsFade, p.contents == nil,
              !p.masksToBounds, p.mask == 0,
              let background = p.backgroundColor, background.alpha > 0,
              !(p.borderWidth > 0 && (p.borderColor?.alpha ?? 0) > 0),
              !(p.shadowOpacity > 0 && (p.shadowColor?.alpha ?? 0) > 0),
              contentTransitions.isEmpty || contentTransitions[node.id] == nil,
              p.bounds.width > 0, p.bounds.height > 0,
              // Wholly on the canvas (a pixel in from its edges, past the anti-aliased edge):
              // the group's image holds only what lies on the canvas, so content cut off by
              // its edge does not blur back in, where the closed form would bring it back.
              let box = Self.affineBox(p.bounds, toPixels), box.minX >= 1, box.minY >= 1,
              box.maxX <= Double(pixelWidth) - 1, box.maxY <= Double(pixelHeight) - 1
        else { return nil }
        return DrawItem(transform: toPixels, bounds: p.bounds, backgroundColor: background, opacity: opacity,
                        cornerRadii: Self.radii(p.cornerRadius, p.maskedCorners),
                        kind: .shadow(sigma: min(filters[0].radius, 100_000)), clip: -1)
    }

    /// Whether `m` maps the layer's plane to the device by a similarity: affine (no
    /// perspective: x, y's w column is 0, 0, 1) and its 2 × 2 part a rotation times a uniform
    /// scale, mirrored or not (to a millionth of the scale).
    public static func isSimilarity(_ m: Transform3D) -> Bool {
        guard m.m14 == 0, m.m24 == 0, m.m44 == 1 else { return false }
        let scale = (abs(m.m11 * m.m22 - m.m12 * m.m21)).squareRoot()
        guard scale.isFinite, scale > 0 else { return false }
        let tolerance = 1e-6 * scale
        let rotation = abs(m.m11 - m.m22) <= tolerance && abs(m.m12 + m.m21) <= tolerance
        let mirrored = abs(m.m11 + m.m22) <= tolerance && abs(m.m12 - m.m21) <= tolerance
        return rotation || mirrored
    }
}
