import Foundation

/// A 4×4 matrix with `CATransform3D`'s layout and convention: row vectors, so a point is
/// transformed as `[x y z 1] × M`, translation lives in `m41 m42 m43`, and perspective in
/// `m34` (−1/d). `a.concatenating(b)` applies `a` first, then `b` (`CATransform3DConcat`).
public struct Transform3D: Hashable, Sendable, CustomStringConvertible {
    public var m11, m12, m13, m14: Double
    public var m21, m22, m23, m24: Double
    public var m31, m32, m33, m34: Double
    public var m41, m42, m43, m44: Double

    @inlinable public init(
        m11: Double, m12: Double, m13: Double, m14: Double,
        m21: Double, m22: Double, m23: Double, m24: Double,
        m31: Double, m32: Double, m33: Double, m34: Double,
        m41: Double, m42: Double, m43: Double, m44: Double
    ) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13; self.m14 = m14
        self.m21 = m21; self.m22 = m22; self.m23 = m23; self.m24 = m24
        self.m31 = m31; self.m32 = m32; self.m33 = m33; self.m34 = m34
        self.m41 = m41; self.m42 = m42; self.m43 = m43; self.m44 = m44
    }

    /// From 16 numbers, row by row (m11, m12, … m44).
    public init?(rowMajor v: [Double]) {
        guard v.count == 16 else { return nil }
        self.init(m11: v[0], m12: v[1], m13: v[2], m14: v[3],
                  m21: v[4], m22: v[5], m23: v[6], m24: v[7],
                  m31: v[8], m32: v[9], m33: v[10], m34: v[11],
                  m41: v[12], m42: v[13], m43: v[14], m44: v[15])
    }

    /// The 16 numbers row by row.
    public var rowMajor: [Double] {
        [m11, m12, m13, m14, m21, m22, m23, m24, m31, m32, m33, m34, m41, m42, m43, m44]
    }

    public static let identity = Transform3D(
        m11: 1, m12: 0, m13: 0, m14: 0, m21: 0, m22: 1, m23: 0, m24: 0,
        m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)

    public var isIdentity: Bool { self == .identity }

    /// `CATransform3DMakeTranslation`.
    public static func translation(_ tx: Double, _ ty: Double, _ tz: Double = 0) -> Transform3D {
        var t = identity; t.m41 = tx; t.m42 = ty; t.m43 = tz; return t
    }
    /// `CATransform3DMakeScale`.
    public static func scale(_ sx: Double, _ sy: Double, _ sz: Double = 1) -> Transform3D {
        var t = identity; t.m11 = sx; t.m22 = sy; t.m33 = sz; return t
    }
    /// `CATransform3DMakeRotation(angle, x, y, z)`: rotation by `angle` radians about the axis.
    /// About z, a positive angle turns +x toward +y (clockwise on a y-down screen).
    public static func rotation(_ angle: Double, _ x: Double, _ y: Double, _ z: Double) -> Transform3D {
        let axis = Vector3(x, y, z)
        let len = axis.length
        guard len > 0 else { return identity }
        let (ux, uy, uz) = (x / len, y / len, z / len)
        let c = cos(angle), s = sin(angle), t = 1 - c
        return Transform3D(
            m11: t * ux * ux + c, m12: t * ux * uy + s * uz, m13: t * ux * uz - s * uy, m14: 0,
            m21: t * ux * uy - s * uz, m22: t * uy * uy + c, m23: t * uy * uz + s * ux, m24: 0,
            m31: t * ux * uz + s * uy, m32: t * uy * uz - s * ux, m33: t * uz * uz + c, m34: 0,
            m41: 0, m42: 0, m43: 0, m44: 1)
    }
    /// Rotation about z.
    public static func rotation(_ angle: Double) -> Transform3D { rotation(angle, 0, 0, 1) }
    /// A perspective projection with the eye at distance `d` (m34 = −1/d).
    public static func perspective(_ d: Double) -> Transform3D {
        var t = identity; if d != 0 { t.m34 = -1 / d }; return t
    }
    /// Skew along x by `angle` (CSS `skewX`): x' = x + tan(angle)·y.
    public static func skewX(_ angle: Double) -> Transform3D { var t = identity; t.m21 = tan(angle); return t }
    /// Skew along y by `angle` (CSS `skewY`): y' = y + tan(angle)·x.
    public static func skewY(_ angle: Double) -> Transform3D { var t = identity; t.m12 = tan(angle); return t }

    /// Self applied first, then `other` (`CATransform3DConcat(self, other)` = self × other).
    @inlinable public func concatenating(_ b: Transform3D) -> Transform3D {
        let a = self
        return Transform3D(
            m11: a.m11 * b.m11 + a.m12 * b.m21 + a.m13 * b.m31 + a.m14 * b.m41,
            m12: a.m11 * b.m12 + a.m12 * b.m22 + a.m13 * b.m32 + a.m14 * b.m42,
            m13: a.m11 * b.m13 + a.m12 * b.m23 + a.m13 * b.m33 + a.m14 * b.m43,
            m14: a.m11 * b.m14 + a.m12 * b.m24 + a.m13 * b.m34 + a.m14 * b.m44,
            m21: a.m21 * b.m11 + a.m22 * b.m21 + a.m23 * b.m31 + a.m24 * b.m41,
            m22: a.m21 * b.m12 + a.m22 * b.m22 + a.m23 * b.m32 + a.m24 * b.m42,
            m23: a.m21 * b.m13 + a.m22 * b.m23 + a.m23 * b.m33 + a.m24 * b.m43,
            m24: a.m21 * b.m14 + a.m22 * b.m24 + a.m23 * b.m34 + a.m24 * b.m44,
            m31: a.m31 * b.m11 + a.m32 * b.m21 + a.m33 * b.m31 + a.m34 * b.m41,
            m32: a.m31 * b.m12 + a.m32 * b.m22 + a.m33 * b.m32 + a.m34 * b.m42,
            m33: a.m31 * b.m13 + a.m32 * b.m23 + a.m33 * b.m33 + a.m34 * b.m43,
            m34: a.m31 * b.m14 + a.m32 * b.m24 + a.m33 * b.m34 + a.m34 * b.m44,
            m41: a.m41 * b.m11 + a.m42 * b.m21 + a.m43 * b.m31 + a.m44 * b.m41,
            m42: a.m41 * b.m12 + a.m42 * b.m22 + a.m43 * b.m32 + a.m44 * b.m42,
            m43: a.m41 * b.m13 + a.m42 * b.m23 + a.m43 * b.m33 + a.m44 * b.m43,
            m44: a.m41 * b.m14 + a.m42 * b.m24 + a.m43 * b.m34 + a.m44 * b.m44)
    }

    /// `[x y z w] × M`.
    @inlinable public func apply(_ v: Vector4) -> Vector4 {
        Vector4(v.x * m11 + v.y * m21 + v.z * m31 + v.w * m41,
                v.x * m12 + v.y * m22 + v.z * m32 + v.w * m42,
                v.x * m13 + v.y * m23 + v.z * m33 + v.w * m43,
                v.x * m14 + v.y * m24 + v.z * m34 + v.w * m44)
    }

    /// Maps a 2D point (z = 0) with the perspective divide.
    @inlinable public func apply(_ p: Point) -> Point {
        let v = apply(Vector4(p.x, p.y, 0, 1))
        return v.w == 1 || v.w == 0 ? Point(v.x, v.y) : Point(v.x / v.w, v.y / v.w)
    }

    /// The inverse, or nil when the matrix is singular (`CATransform3DInvert` returns the
    /// input unchanged in that case; callers decide).
    public var inverted: Transform3D? {
        let s0 = m11 * m22 - m21 * m12, s1 = m11 * m23 - m21 * m13, s2 = m11 * m24 - m21 * m14
        let s3 = m12 * m23 - m22 * m13, s4 = m12 * m24 - m22 * m14, s5 = m13 * m24 - m23 * m14
        let c5 = m33 * m44 - m43 * m34, c4 = m32 * m44 - m42 * m34, c3 = m32 * m43 - m42 * m33
        let c2 = m31 * m44 - m41 * m34, c1 = m31 * m43 - m41 * m33, c0 = m31 * m42 - m41 * m32
        let det = s0 * c5 - s1 * c4 + s2 * c3 + s3 * c2 - s4 * c1 + s5 * c0
        guard det != 0, det.isFinite else { return nil }
        let i = 1 / det
        return Transform3D(
            m11: (m22 * c5 - m23 * c4 + m24 * c3) * i,
            m12: (-m12 * c5 + m13 * c4 - m14 * c3) * i,
            m13: (m42 * s5 - m43 * s4 + m44 * s3) * i,
            m14: (-m32 * s5 + m33 * s4 - m34 * s3) * i,
            m21: (-m21 * c5 + m23 * c2 - m24 * c1) * i,
            m22: (m11 * c5 - m13 * c2 + m14 * c1) * i,
            m23: (-m41 * s5 + m43 * s2 - m44 * s1) * i,
            m24: (m31 * s5 - m33 * s2 + m34 * s1) * i,
            m31: (m21 * c4 - m22 * c2 + m24 * c0) * i,
            m32: (-m11 * c4 + m12 * c2 - m14 * c0) * i,
            m33: (m41 * s4 - m42 * s2 + m44 * s0) * i,
            m34: (-m31 * s4 + m32 * s2 - m34 * s0) * i,
            m41: (-m21 * c3 + m22 * c1 - m23 * c0) * i,
            m42: (m11 * c3 - m12 * c1 + m13 * c0) * i,
            m43: (-m41 * s3 + m42 * s1 - m43 * s0) * i,
            m44: (m31 * s3 - m32 * s1 + m33 * s0) * i)
    }

    public var description: String { "Transform3D(\(rowMajor))" }
}
