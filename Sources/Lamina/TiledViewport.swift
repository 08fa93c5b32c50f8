import LaminaGeometry

/// Pan and zoom over a large image shown by a tiled layer (what `lamina-viewer --tiled` does
/// with the pointer and keys): the image pixel at the view's top left (`origin`) and the view
/// points per image pixel (`scale`). The layer — anchor (0, 0), bounds the image's size — goes
/// at `position` with a uniform `scale` transform, so image pixel p shows at
/// (p − origin) × scale. Zoom keeps the image point under its centre where it was; the scale
/// stays in [`minScale`, `maxScale`].
public struct TiledViewport: Sendable, Equatable {
    public var origin: Point
    public var scale: Double
    public var minScale: Double
    public var maxScale: Double

    public init(origin: Point = Point(0, 0), scale: Double = 1, minScale: Double = 1.0 / 1024, maxScale: Double = 16) {
        self.origin = origin
        self.minScale = minScale
        self.maxScale = maxScale
        self.scale = min(max(scale, minScale), maxScale)
    }

    /// The whole image (`width` × `height` pixels) fitted into a `viewWidth` × `viewHeight`
    /// view, centred.
    public static func fit(width: Double, height: Double, viewWidth: Double, viewHeight: Double) -> TiledViewport {
        let s = min(viewWidth / width, viewHeight / height)
        var v = TiledViewport(scale: s)
        v.origin = Point(width / 2 - viewWidth / 2 / v.scale, height / 2 - viewHeight / 2 / v.scale)
        return v
    }

    /// The image point shown at view point `p`.
    public func imagePoint(at p: Point) -> Point { Point(origin.x + p.x / scale, origin.y + p.y / scale) }

    /// Moves the image by `delta` view points (a drag of the image itself).
    public mutating func pan(by delta: Point) {
        origin = Point(origin.x - delta.x / scale, origin.y - delta.y / scale)
    }

    /// Multiplies the scale by `factor` (clamped), keeping the image point at view point `centre`.
    public mutating func zoom(by factor: Double, about centre: Point) {
        guard factor.isFinite, factor > 0 else { return }
        let q = imagePoint(at: centre)
        scale = min(max(scale * factor, minScale), maxScale)
        origin = Point(q.x - centre.x / scale, q.y - centre.y / scale)
    }

    /// The layer's `position` (its anchor at (0, 0)).
    public var position: Point { Point(-origin.x * scale, -origin.y * scale) }
}
