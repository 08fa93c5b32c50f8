import Foundation

// Decomposition of a `Transform3D` into translation, rotation (a unit quaternion), scale,
// skew and perspective, after CSS Transforms Level 2 §"Decomposing a 3D matrix" (the
// "unmatrix" algorithm of Graphics Gems II), written for `CATransform3D`'s row-vector
// layout. In that layout the CSS pseudo-code's `matrix[i][j]` is exactly `m(i+1)(j+1)`:
// translation is row 4 (m41 m42 m43) and perspective is column 4 (m14 m24 m34 m44).
//
// The model, in row-vector order (a point is transformed left to right):
//
//     M / m44 = N × P
//     N = [ S·K·R  0 ]     S = diag(scale), K = unit lower-triangular skew
//         [   t    1 ]     (K21 = xy, K31 = xz, K32 = yz), R = rotation (rows orthonormal)
//     P = identity with its fourth column replaced by `perspective`
//
// so a point is scaled, skewed, rotated, translated, then projected.
//
// Not every matrix decomposes: m44 = 0, or a singular upper-left 3×3 (a zero scale, a
// projection onto a plane). `decomposed()` returns nil for those, and
// `interpolated(to:_:)` then falls back to a discrete switch at t = 0.5 — CSS's rule for
// "the matrices cannot be decomposed" — rather than a matrix lerp.

/// A rotation as a unit quaternion (x, y, z, w). `(sin(θ/2)·axis, cos(θ/2))` rotates by θ
/// about `axis` with `Transform3D.rotation`'s sense.
public struct Quaternion: Hashable, Sendable, CustomStringConvertible {
    public var x: Double, y: Double, z: Double, w: Double

    @inlinable public init(_ x: Double, _ y: Double, _ z: Double, _ w: Double) {
        self.x = x; self.y = y; self.z = z; self.w = w
    }

    public static let identity = Quaternion(0, 0, 0, 1)

    /// Rotation by `angle` radians about the axis (x, y, z); the identity for a zero axis.
    public init(angle: Double, axis: Vector3) {
        let n = axis.normalized
        if n == .zero { self = .identity; return }
        let s = sin(angle / 2)
        self.init(n.x * s, n.y * s, n.z * s, cos(angle / 2))
    }

    @inlinable public func dot(_ o: Quaternion) -> Double { x * o.x + y * o.y + z * o.z + w * o.w }

    /// Spherical linear interpolation along the shorter arc (the second quaternion is
    /// negated when the dot product is negative: q and −q are the same rotation). Values of
    /// `t` outside 0…1 extrapolate along the same great circle.
    public func slerp(to other: Quaternion, _ t: Double) -> Quaternion {
        var b = other
        var d = dot(b)
        if d < 0 { b = Quaternion(-b.x, -b.y, -b.z, -b.w); d = -d }
        d = min(d, 1)
        if d > 0.9999995 {
            // Nearly the same rotation: a normalized lerp avoids dividing by sin θ ≈ 0.
            let r = Quaternion(x + (b.x - x) * t, y + (b.y - y) * t, z + (b.z - z) * t, w + (b.w - w) * t)
            let l = r.dot(r).squareRoot()
            return l > 0 ? Quaternion(r.x / l, r.y / l, r.z / l, r.w / l) : self
        }
        let theta = acos(d)
        let sinTheta = (1 - d * d).squareRoot()
        let wa = sin((1 - t) * theta) / sinTheta
        let wb = sin(t * theta) / sinTheta
        return Quaternion(x * wa + b.x * wb, y * wa + b.y * wb, z * wa + b.z * wb, w * wa + b.w * wb)
    }

    /// The rotation as a row-vector 3×3 matrix, in a `Transform3D` (no translation).
    public var rotationMatrix: Transform3D {
        // Column-vector matrix Rc from the quaternion, then transposed for row vectors.
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, xz = x * z, yz = y * z, xw = x * w, yw = y * w, zw = z * w
        return Transform3D(
            m11: 1 - 2 * (yy + zz), m12: 2 * (xy + zw), m13: 2 * (xz - yw), m14: 0,
            m21: 2 * (xy - zw), m22: 1 - 2 * (xx + zz), m23: 2 * (yz + xw), m24: 0,
            m31: 2 * (xz + yw), m32: 2 * (yz - xw), m33: 1 - 2 * (xx + yy), m34: 0,
            m41: 0, m42: 0, m43: 0, m44: 1)
    }

    public var description: String { "Quaternion(\(x), \(y), \(z), \(w))" }
}

/// The parts of a decomposed `Transform3D` (see the file comment for the model).
public struct DecomposedTransform3D: Hashable, Sendable {
    public var translation: Vector3
    public var scale: Vector3
    /// Shear factors: x is XY, y is XZ, z is YZ (CSS's `skew[0…2]`).
    public var skew: Vector3
    /// The fourth column of the normalized matrix, solved for (identity: 0, 0, 0, 1).
    public var perspective: Vector4
    public var rotation: Quaternion

    public init(translation: Vector3 = .zero, scale: Vector3 = Vector3(1, 1, 1), skew: Vector3 = .zero,
                perspective: Vector4 = Vector4(0, 0, 0, 1), rotation: Quaternion = .identity) {
        self.translation = translation; self.scale = scale; self.skew = skew
        self.perspective = perspective; self.rotation = rotation
    }

    public static let identity = DecomposedTransform3D()

    /// The matrix these parts describe (CSS "recomposing to a 3D matrix").
    public func recomposed() -> Transform3D {
        let r = rotation.rotationMatrix
        // Rows of R.
        let r0 = Vector3(r.m11, r.m12, r.m13), r1 = Vector3(r.m21, r.m22, r.m23), r2 = Vector3(r.m31, r.m32, r.m33)
        // Rows of S·K·R.
        let a0 = r0 * scale.x
        let a1 = (r1 + r0 * skew.x) * scale.y
        let a2 = (r2 + r0 * skew.y + r1 * skew.z) * scale.z
        let p = perspective, t = translation
        return Transform3D(
            m11: a0.x, m12: a0.y, m13: a0.z, m14: a0.x * p.x + a0.y * p.y + a0.z * p.z,
            m21: a1.x, m22: a1.y, m23: a1.z, m24: a1.x * p.x + a1.y * p.y + a1.z * p.z,
            m31: a2.x, m32: a2.y, m33: a2.z, m34: a2.x * p.x + a2.y * p.y + a2.z * p.z,
            m41: t.x, m42: t.y, m43: t.z, m44: t.x * p.x + t.y * p.y + t.z * p.z + p.w)
    }

    /// Component-wise interpolation (CSS "interpolation of decomposed 3D matrix values"):
    /// translation, scale, skew and perspective linearly, rotation by `Quaternion.slerp`.
    /// `t` outside 0…1 extrapolates.
    public func interpolated(to o: DecomposedTransform3D, _ t: Double) -> DecomposedTransform3D {
        @inline(__always) func mix(_ a: Vector3, _ b: Vector3) -> Vector3 { a + (b - a) * t }
        let p = perspective, q = o.perspective
        return DecomposedTransform3D(
            translation: mix(translation, o.translation),
            scale: mix(scale, o.scale),
            skew: mix(skew, o.skew),
            perspective: Vector4(p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t,
                                 p.z + (q.z - p.z) * t, p.w + (q.w - p.w) * t),
            rotation: rotation.slerp(to: o.rotation, t))
    }
}

extension Transform3D {
    /// Decomposes the matrix (CSS Transforms 2 "unmatrix"), or nil when it does not
    /// decompose: m44 = 0 or a singular upper-left 3×3 (see the file comment).
    public func decomposed() -> DecomposedTransform3D? {
        guard m44 != 0, m44.isFinite else { return nil }
        let n = 1 / m44
        // The normalized matrix (kept in locals: decomposition allocates nothing).
        let m = Transform3D(m11: m11 * n, m12: m12 * n, m13: m13 * n, m14: m14 * n,
                            m21: m21 * n, m22: m22 * n, m23: m23 * n, m24: m24 * n,
                            m31: m31 * n, m32: m32 * n, m33: m33 * n, m34: m34 * n,
                            m41: m41 * n, m42: m42 * n, m43: m43 * n, m44: 1)
        // N: the matrix with its fourth column set to (0, 0, 0, 1).
        var pm = m
        pm.m14 = 0; pm.m24 = 0; pm.m34 = 0; pm.m44 = 1
        // The upper 3×3 must be invertible (its determinant equals N's).
        let det3 = pm.m11 * (pm.m22 * pm.m33 - pm.m23 * pm.m32)
            - pm.m12 * (pm.m21 * pm.m33 - pm.m23 * pm.m31)
            + pm.m13 * (pm.m21 * pm.m32 - pm.m22 * pm.m31)
        guard det3.isFinite, abs(det3) > 1e-12 else { return nil }
        guard m.m14.isFinite, m.m24.isFinite, m.m34.isFinite, m.m41.isFinite, m.m42.isFinite,
              m.m43.isFinite else { return nil }

        var perspective = Vector4(0, 0, 0, 1)
        if m.m14 != 0 || m.m24 != 0 || m.m34 != 0 {
            // Solve N × p = fourth column, i.e. p = N⁻¹ × rhs (column vector).
            guard let inv = pm.inverted else { return nil }
            let r = (m.m14, m.m24, m.m34, 1.0)
            perspective = Vector4(
                inv.m11 * r.0 + inv.m12 * r.1 + inv.m13 * r.2 + inv.m14 * r.3,
                inv.m21 * r.0 + inv.m22 * r.1 + inv.m23 * r.2 + inv.m24 * r.3,
                inv.m31 * r.0 + inv.m32 * r.1 + inv.m33 * r.2 + inv.m34 * r.3,
                inv.m41 * r.0 + inv.m42 * r.1 + inv.m43 * r.2 + inv.m44 * r.3)
        }
        let translation = Vector3(m.m41, m.m42, m.m43)

        var row0 = Vector3(m.m11, m.m12, m.m13)
        var row1 = Vector3(m.m21, m.m22, m.m23)
        var row2 = Vector3(m.m31, m.m32, m.m33)
        var scale = Vector3.zero, skew = Vector3.zero
        scale.x = row0.length
        row0 = row0 * (1 / scale.x)
        skew.x = row0.dot(row1)
        row1 = row1 - row0 * skew.x
        scale.y = row1.length
        guard scale.y > 0 else { return nil }
        row1 = row1 * (1 / scale.y)
        skew.x /= scale.y
        skew.y = row0.dot(row2)
        row2 = row2 - row0 * skew.y
        skew.z = row1.dot(row2)
        row2 = row2 - row1 * skew.z
        scale.z = row2.length
        guard scale.z > 0 else { return nil }
        row2 = row2 * (1 / scale.z)
        skew.y /= scale.z
        skew.z /= scale.z

        // A left-handed basis (a reflection) is folded into negative scales.
        if row0.dot(row1.cross(row2)) < 0 {
            scale = scale * -1
            row0 = row0 * -1; row1 = row1 * -1; row2 = row2 * -1
        }

        // Quaternion from the rotation (Shepperd's method on Rc = Rᵀ, the column-vector
        // form: Rc[i][j] = row j, component i). More robust than CSS's sign rule near 180°.
        let c00 = row0.x, c11 = row1.y, c22 = row2.z
        let c10 = row0.y, c01 = row1.x, c20 = row0.z, c02 = row2.x, c21 = row1.z, c12 = row2.y
        let trace = c00 + c11 + c22
        var q: Quaternion
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = Quaternion((c21 - c12) / s, (c02 - c20) / s, (c10 - c01) / s, s / 4)
        } else if c00 > c11 && c00 > c22 {
            let s = (1 + c00 - c11 - c22).squareRoot() * 2
            q = Quaternion(s / 4, (c01 + c10) / s, (c02 + c20) / s, (c21 - c12) / s)
        } else if c11 > c22 {
            let s = (1 + c11 - c00 - c22).squareRoot() * 2
            q = Quaternion((c01 + c10) / s, s / 4, (c12 + c21) / s, (c02 - c20) / s)
        } else {
            let s = (1 + c22 - c00 - c11).squareRoot() * 2
            q = Quaternion((c02 + c20) / s, (c12 + c21) / s, s / 4, (c10 - c01) / s)
        }
        if q.w < 0 { q = Quaternion(-q.x, -q.y, -q.z, -q.w) }
        let l = q.dot(q).squareRoot()
        q = Quaternion(q.x / l, q.y / l, q.z / l, q.w / l)
        return DecomposedTransform3D(translation: translation, scale: scale, skew: skew,
                                     perspective: perspective, rotation: q)
    }

    /// Interpolates by decomposition (never a matrix lerp). When either matrix does not
    /// decompose, the result switches discretely from `self` to `other` at t = 0.5 (CSS).
    public func interpolated(to other: Transform3D, _ t: Double) -> Transform3D {
        if t == 0 { return self }
        if t == 1 { return other }
        guard let a = decomposed(), let b = other.decomposed() else { return t < 0.5 ? self : other }
        return a.interpolated(to: b, t).recomposed()
    }
}
