import LaminaGeometry

/// One frame's output as plain data: what to draw, back to front, with no Vulkan types.
///
/// The render thread builds it from the presentation tree; `OffscreenRenderer` (and later
/// the window target) turns it into GPU work. It is a value, so it can be built on one
/// thread, inspected in tests, and handed over whole.
public struct DrawList: Sendable {
    /// Target width in device pixels.
    public var width: Int
    /// Target height in device pixels.
    public var height: Int
    /// Color the target is cleared to: sRGB-encoded, straight alpha.
    public var clearColor: Color
    /// Items in painter's order: the first is drawn first (furthest back).
    public var items: [DrawItem]

    public init(width: Int, height: Int, clearColor: Color = .clear, items: [DrawItem] = []) {
        self.width = width
        self.height = height
        self.clearColor = clearColor
        self.items = items
    }
}

/// The radius of each corner of a rounded rectangle, in the layer's local units (points),
/// named by the corner's position in y-down local coordinates (Core Animation's
/// `CACornerMask` names: `minXMinY` is the top-left corner on screen with an identity
/// transform).
///
/// A radius is clamped at draw time to half the rect's smaller side, so that a large
/// `cornerRadius` gives a capsule as in Core Animation.
public struct CornerRadii: Hashable, Sendable {
    public var minXMinY: Double
    public var maxXMinY: Double
    public var minXMaxY: Double
    public var maxXMaxY: Double

    public init(minXMinY: Double, maxXMinY: Double, minXMaxY: Double, maxXMaxY: Double) {
        self.minXMinY = minXMinY
        self.maxXMinY = maxXMinY
        self.minXMaxY = minXMaxY
        self.maxXMaxY = maxXMaxY
    }

    /// The same radius on every corner (`CALayer.cornerRadius`).
    public init(_ radius: Double) {
        self.init(minXMinY: radius, maxXMinY: radius, minXMaxY: radius, maxXMaxY: radius)
    }

    public static let zero = CornerRadii(0)

    public var isZero: Bool { self == .zero }
}

/// One thing to draw: today a layer's background rect with rounded corners and a border.
///
/// Room to grow: shadows, gradients, tessellated meshes for shape layers and clips will be
/// added as further stored properties with defaults that draw nothing (e.g. `shadow: Shadow?`,
/// `mesh: MeshID?`, `clip: ClipID?`), so existing producers keep compiling and an item that
/// does not use a feature pays nothing for it.
public struct DrawItem: Sendable {
    /// Maps the layer's local bounds coordinates (points) to canvas device pixels, y down,
    /// origin at the top-left. `CATransform3D` convention: `[x y z 1] × transform`. It may
    /// hold perspective (`m34`); the divide by w happens on the GPU, after clipping, so
    /// parts behind the eye are cut off rather than mirrored. z is dropped (painter's order).
    public var transform: Transform3D
    /// The local rect to fill: the layer's `bounds`. Negative sizes are standardized.
    public var bounds: Rect
    /// Fill color, sRGB-encoded, straight alpha (`CALayer.backgroundColor`).
    public var backgroundColor: Color
    /// Opacity in 0…1, already multiplied down the tree.
    public var opacity: Double
    /// Corner radii in local units (`CALayer.cornerRadius`, per corner).
    public var cornerRadii: CornerRadii
    /// Border width in local units, drawn inside the bounds over the background
    /// (`CALayer.borderWidth`). The inner corner radius is `radius − borderWidth`, not below 0.
    public var borderWidth: Double
    /// Border color, sRGB-encoded, straight alpha (`CALayer.borderColor`).
    public var borderColor: Color

    public init(
        transform: Transform3D = .identity,
        bounds: Rect,
        backgroundColor: Color,
        opacity: Double = 1,
        cornerRadii: CornerRadii = .zero,
        borderWidth: Double = 0,
        borderColor: Color = .black
    ) {
        self.transform = transform
        self.bounds = bounds
        self.backgroundColor = backgroundColor
        self.opacity = opacity
        self.cornerRadii = cornerRadii
        self.borderWidth = borderWidth
        self.borderColor = borderColor
    }
}
