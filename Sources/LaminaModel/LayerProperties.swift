import LaminaGeometry

/// Which corners `cornerRadius` rounds (`CACornerMask`).
public struct CornerMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let minXMinY = CornerMask(rawValue: 1)
    public static let maxXMinY = CornerMask(rawValue: 2)
    public static let minXMaxY = CornerMask(rawValue: 4)
    public static let maxXMaxY = CornerMask(rawValue: 8)
    public static let all: CornerMask = [.minXMinY, .maxXMinY, .minXMaxY, .maxXMaxY]

    /// Scene-format names, in bit order.
    public static let names: [(String, CornerMask)] = [
        ("minXMinY", .minXMinY), ("maxXMinY", .maxXMinY), ("minXMaxY", .minXMaxY), ("maxXMaxY", .maxXMaxY),
    ]
}

/// `CAGradientLayerType`.
public enum GradientType: String, Hashable, Sendable, CaseIterable { case axial, radial, conic }

/// Geometry derived from the stored properties (which `LayerProperties+Generated.swift` declares,
/// one per row of `Properties.table`).
extension LayerProperties {
    /// The stroke style of a shape layer.
    @inlinable @inline(__always) public var strokeStyle: StrokeStyle {
        StrokeStyle(lineWidth: lineWidth, lineCap: lineCap, lineJoin: lineJoin, miterLimit: miterLimit,
                    dashPattern: lineDashPattern, dashPhase: lineDashPhase, strokeStart: strokeStart, strokeEnd: strokeEnd)
    }

    /// `frame` as CALayer derives it (for an identity or affine transform: the bounding box of
    /// the transformed bounds in the superlayer's coordinates).
    public var frame: Rect {
        let m = transformToSuperlayer
        let a = m.apply(Point(bounds.minX, bounds.minY)), b = m.apply(Point(bounds.maxX, bounds.minY))
        let c = m.apply(Point(bounds.minX, bounds.maxY)), d = m.apply(Point(bounds.maxX, bounds.maxY))
        let minX = min(min(a.x, b.x), min(c.x, d.x)), maxX = max(max(a.x, b.x), max(c.x, d.x))
        let minY = min(min(a.y, b.y), min(c.y, d.y)), maxY = max(max(a.y, b.y), max(c.y, d.y))
        return Rect(minX, minY, maxX - minX, maxY - minY)
    }

    /// The transform from this layer's bounds coordinates into its superlayer's bounds
    /// coordinates (before the superlayer's `sublayerTransform`): the anchor point is moved to
    /// the origin, `transform` applied about it, and the anchor placed at `position`.
    @inlinable @inline(__always) public var transformToSuperlayer: Transform3D {
        transformToSuperlayer(anchorPointZ: anchorPointZ, zPosition: zPosition)
    }

    /// Whether some rarely set property (zPosition, anchorPointZ, the shadow's fields, …) is not
    /// its default: false means they all are, without following the pointer to their box.
    @inlinable public var hasRareValues: Bool { rare.box != nil }

    /// `transformToSuperlayer` with the layer's `anchorPointZ` and `zPosition` given (the
    /// draw-list builder keeps them for layers that do not animate them: both live in the
    /// rare-properties box, a pointer away).
    @inlinable @inline(__always)
    public func transformToSuperlayer(anchorPointZ az: Double, zPosition pz: Double) -> Transform3D {
        let ax = bounds.origin.x + anchorPoint.x * bounds.size.width
        let ay = bounds.origin.y + anchorPoint.y * bounds.size.height
        // translation(-a) × transform × translation(position), without the two general 4×4
        // products: the first only changes the fourth row, the second adds each row's w times
        // the position. The sums are the general products' in their order with the terms that
        // multiply by 0 left out (the same values; at most a zero's sign differs).
        let t = transformStorage.value   // through the stored reference: no copy of `self`
        var m = t
        m.m41 = -ax * t.m11 + -ay * t.m21 + -az * t.m31 + t.m41
        m.m42 = -ax * t.m12 + -ay * t.m22 + -az * t.m32 + t.m42
        m.m43 = -ax * t.m13 + -ay * t.m23 + -az * t.m33 + t.m43
        m.m44 = -ax * t.m14 + -ay * t.m24 + -az * t.m34 + t.m44
        let px = position.x, py = position.y
        m.m11 += m.m14 * px; m.m12 += m.m14 * py; m.m13 += m.m14 * pz
        m.m21 += m.m24 * px; m.m22 += m.m24 * py; m.m23 += m.m24 * pz
        m.m31 += m.m34 * px; m.m32 += m.m34 * py; m.m33 += m.m34 * pz
        m.m41 += m.m44 * px; m.m42 += m.m44 * py; m.m43 += m.m44 * pz
        return m
    }

    /// The transform this layer applies to its sublayers' coordinates (`sublayerTransform`
    /// about the anchor point), identity when none is set.
    @inlinable @inline(__always) public var sublayerTransformAboutAnchor: Transform3D {
        if sublayerTransform.isIdentity { return .identity }
        let a = Point(bounds.origin.x + anchorPoint.x * bounds.size.width,
                      bounds.origin.y + anchorPoint.y * bounds.size.height)
        return Transform3D.translation(-a.x, -a.y, -anchorPointZ)
            .concatenating(sublayerTransform)
            .concatenating(.translation(a.x, a.y, anchorPointZ))
    }

    /// Sublayer coordinates → this layer's plane: `sublayerTransform` about the anchor point,
    /// then z dropped. Core Animation flattens a (non-transform) layer's sublayers into its
    /// plane: what the sublayers' 3D transforms (and this sublayerTransform's perspective)
    /// produce is drawn into the plane, and this layer's own transform then moves that plane.
    /// Without the flattening a sublayer's z would pass through this layer's 3D transform.
    ///
    /// The sublayer → pixels map is `child.transformToSuperlayer × sublayerSpace ×
    /// toPixels` (row vectors); flattening zeroes the third column (z′ = 0).
    @inlinable @inline(__always) public var sublayerSpace: Transform3D {
        var m = sublayerTransformAboutAnchor
        m.m13 = 0; m.m23 = 0; m.m33 = 0; m.m43 = 0
        return m
    }
}
