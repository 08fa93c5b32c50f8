/// `CALayerContentsGravity`: where a layer's `contents` go in its bounds when their sizes
/// differ. The first nine place the contents at their natural size (the canvas is y-down, so
/// `top` is the visual top, minY, as on iOS); `resize` (Core Animation's default) stretches
/// them to the bounds; `resizeAspect` fits them inside keeping their aspect ratio, centred;
/// `resizeAspectFill` fills the bounds keeping it, centred (reaching past them).
public enum ContentsGravity: String, Hashable, Sendable, CaseIterable {
    case center, top, bottom, left, right, topLeft, topRight, bottomLeft, bottomRight, resize, resizeAspect, resizeAspectFill
}

/// `CALayerContentsFilter`: how contents are sampled when drawn smaller (minification) or
/// larger (magnification) than their pixels; `trilinear` is linear within and between mipmap
/// levels (as linear when magnifying).
public enum ContentsFilter: String, Hashable, Sendable, CaseIterable {
    case linear, nearest, trilinear
}
