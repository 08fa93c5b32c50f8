/// `CALayerContentsGravity`: where a layer's `contents` go in its bounds when their sizes
/// differ. The canvas is y-down, so `top` is the visual top (minY), as on iOS.
public enum ContentsGravity: String, Hashable, Sendable, CaseIterable {
    case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight
    /// Stretched to the bounds (Core Animation's default).
    case resize
    /// Scaled to fit inside the bounds, keeping the aspect ratio, centred.
    case resizeAspect
    /// Scaled to fill the bounds, keeping the aspect ratio, centred (may reach past them).
    case resizeAspectFill
}

/// `CALayerContentsFilter`: how contents are sampled when drawn smaller (minification) or
/// larger (magnification) than their pixels.
public enum ContentsFilter: String, Hashable, Sendable, CaseIterable {
    case linear, nearest
    /// Linear within and between mipmap levels (minification; as linear when magnifying).
    case trilinear
}
