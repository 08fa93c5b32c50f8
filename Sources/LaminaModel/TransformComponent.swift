import Foundation
import LaminaGeometry

/// One of Core Animation's transform sub-key-paths (`transform.rotation.z`,
/// `transform.scale`, `transform.translation.x`, …), with CA's meaning: reading decomposes
/// the matrix, writing recomposes it with that component replaced.
///
/// Rotations are Euler angles in radians with x applied first, then y, then z
/// (M = Rx·Ry·Rz in row-vector order); `rotation` alone is `rotation.z`. `scale` alone is the
/// mean of the three scale factors (CA: "average of all three") and sets all three;
/// `translation` alone is a size (x, y).
public enum TransformComponent: String, Hashable, Sendable, CaseIterable {
    case rotationX = "rotation.x", rotationY = "rotation.y", rotationZ = "rotation.z", rotation = "rotation"
    case scaleX = "scale.x", scaleY = "scale.y", scaleZ = "scale.z", scale = "scale"
    case translationX = "translation.x", translationY = "translation.y", translationZ = "translation.z"
    case translation = "translation"

    /// A value of this component: a number, or a size for `translation`.
    public var isSize: Bool { self == .translation }

    /// Euler angles (x, y, z) of a rotation matrix M = Rx·Ry·Rz (row vectors).
    package static func eulerAngles(_ r: Transform3D) -> Vector3 {
        let sy = min(max(-r.m13, -1), 1)
        let b = asin(sy)
        if abs(sy) < 0.999_999_9 {
            return Vector3(atan2(r.m23, r.m33), b, atan2(r.m12, r.m11))
        }
        // Gimbal lock: put the whole remaining rotation in x.
        return Vector3(atan2(-r.m32, r.m22), b, 0)
    }

    package static func rotation(euler e: Vector3) -> Quaternion {
        let q = Transform3D.rotation(e.x, 1, 0, 0)
            .concatenating(.rotation(e.y, 0, 1, 0))
            .concatenating(.rotation(e.z, 0, 0, 1))
        return quaternion(fromRotationMatrix: q)
    }

    /// The unit quaternion of a row-vector rotation matrix (inverse of `Quaternion.rotationMatrix`).
    package static func quaternion(fromRotationMatrix m: Transform3D) -> Quaternion {
        let trace = m.m11 + m.m22 + m.m33
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            return Quaternion((m.m23 - m.m32) / s, (m.m31 - m.m13) / s, (m.m12 - m.m21) / s, 0.25 * s)
        } else if m.m11 > m.m22 && m.m11 > m.m33 {
            let s = (1 + m.m11 - m.m22 - m.m33).squareRoot() * 2
            return Quaternion(0.25 * s, (m.m12 + m.m21) / s, (m.m13 + m.m31) / s, (m.m23 - m.m32) / s)
        } else if m.m22 > m.m33 {
            let s = (1 + m.m22 - m.m11 - m.m33).squareRoot() * 2
            return Quaternion((m.m12 + m.m21) / s, 0.25 * s, (m.m23 + m.m32) / s, (m.m31 - m.m13) / s)
        } else {
            let s = (1 + m.m33 - m.m11 - m.m22).squareRoot() * 2
            return Quaternion((m.m13 + m.m31) / s, (m.m23 + m.m32) / s, 0.25 * s, (m.m12 - m.m21) / s)
        }
    }

    /// Reads the component (0 or identity parts for a matrix that does not decompose).
    public func number(of t: Transform3D) -> Double {
        // Fast paths for the common 2D case avoid a full decomposition.
        let d = t.decomposed() ?? DecomposedTransform3D(scale: Vector3(0, 0, 0))
        switch self {
        case .rotationX: return Self.eulerAngles(d.rotation.rotationMatrix).x
        case .rotationY: return Self.eulerAngles(d.rotation.rotationMatrix).y
        case .rotationZ, .rotation: return Self.eulerAngles(d.rotation.rotationMatrix).z
        case .scaleX: return d.scale.x
        case .scaleY: return d.scale.y
        case .scaleZ: return d.scale.z
        case .scale: return (d.scale.x + d.scale.y + d.scale.z) / 3
        case .translationX: return d.translation.x
        case .translationY: return d.translation.y
        case .translationZ: return d.translation.z
        case .translation: return d.translation.x
        }
    }

    /// `translation` as a size.
    public func size(of t: Transform3D) -> Size {
        let d = t.decomposed() ?? DecomposedTransform3D()
        return Size(d.translation.x, d.translation.y)
    }

    /// Returns `t` with this component replaced by `v` (recomposed from its decomposition;
    /// a matrix that does not decompose is treated as the identity).
    public func setting(_ v: Double, in t: Transform3D) -> Transform3D {
        setting(v, in: Prepared(self, t))
    }

    /// What `number(of:)` and `setting(_:in:)` compute from a transform before the new value
    /// is known (the render thread keeps it for a model transform that does not change).
    @usableFromInline package struct Prepared: Sendable {
        /// `number(of: t)`.
        @usableFromInline package var number: Double
        /// `t.decomposed() ?? .identity`.
        @usableFromInline package var decomposition: DecomposedTransform3D
        /// The Euler angles of `decomposition.rotation` (rotation components only).
        @usableFromInline package var euler: Vector3

        package init(_ c: TransformComponent, _ t: Transform3D, number: Bool = false) {
            decomposition = t.decomposed() ?? .identity
            switch c {
            case .rotationX, .rotationY, .rotationZ, .rotation: euler = TransformComponent.eulerAngles(decomposition.rotation.rotationMatrix)
            default: euler = .zero
            }
            self.number = number ? c.number(of: t) : 0
        }
    }

    /// `setting(_:in:)` from the transform's prepared decomposition. A rotation builds its
    /// matrix directly from the Euler angles (Rx·Ry·Rz in closed form; a purely 2D
    /// decomposition, x and y angles 0, costs one sine and one cosine) and recomposes with
    /// it, instead of going through a quaternion: the same matrix up to rounding (a test
    /// compares it with `settingByQuaternion`).
    @inlinable @inline(__always)
    package func setting(_ v: Double, in prepared: Prepared) -> Transform3D {
        switch self {
        case .rotationX, .rotationY, .rotationZ, .rotation:
            // Reads the prepared decomposition in place (no copy of its ~170 bytes).
            var e = prepared.euler
            switch self {
            case .rotationX: e.x = v
            case .rotationY: e.y = v
            default: e.z = v
            }
            return Self.recomposed(prepared.decomposition, rotation: Self.rotationMatrix(euler: e))
        default: return settingComponent(v, in: prepared)
        }
    }

    /// `setting(_:in:)` for the scale and translation components.
    @usableFromInline package func settingComponent(_ v: Double, in prepared: Prepared) -> Transform3D {
        var d = prepared.decomposition
        switch self {
        case .rotationX, .rotationY, .rotationZ, .rotation: return setting(v, in: prepared)
        case .scaleX: d.scale.x = v
        case .scaleY: d.scale.y = v
        case .scaleZ: d.scale.z = v
        case .scale: d.scale = Vector3(v, v, v)
        case .translationX, .translation: d.translation.x = v
        case .translationY: d.translation.y = v
        case .translationZ: d.translation.z = v
        }
        return d.recomposed()
    }

    /// The previous `setting(_:in:)` for rotations (Euler angles → matrix → quaternion →
    /// recomposition), kept as the reference the direct form is tested against.
    package func settingByQuaternion(_ v: Double, in prepared: Prepared) -> Transform3D {
        var d = prepared.decomposition
        var e = prepared.euler
        switch self {
        case .rotationX: e.x = v
        case .rotationY: e.y = v
        case .rotationZ, .rotation: e.z = v
        default: return setting(v, in: prepared)
        }
        d.rotation = Self.rotation(euler: e)
        return d.recomposed()
    }

    /// Rows of Rx(e.x)·Ry(e.y)·Rz(e.z) (row vectors; `Transform3D.rotation`'s convention).
    /// A zero angle takes sin 0 and cos 1 without computing them (the same values); each
    /// other angle one `SinCos.sinCos` (within 1 ulp of libm's `sin` and `cos`).
    @inlinable @inline(__always)
    package static func rotationMatrix(euler e: Vector3) -> (Vector3, Vector3, Vector3) {
        let (sc, cc) = SinCos.sinCos(e.z)
        if e.x == 0 && e.y == 0 {
            return (Vector3(cc, sc, 0), Vector3(-sc, cc, 0), Vector3(0, 0, 1))
        }
        let (sa, ca) = e.x == 0 ? (0, 1) : SinCos.sinCos(e.x)
        let (sb, cb) = e.y == 0 ? (0, 1) : SinCos.sinCos(e.y)
        return (Vector3(cb * cc, cb * sc, -sb),
                Vector3(sa * sb * cc - ca * sc, sa * sb * sc + ca * cc, sa * cb),
                Vector3(ca * sb * cc + sa * sc, ca * sb * sc - sa * cc, ca * cb))
    }

    /// `DecomposedTransform3D.recomposed()` with the rotation given as the rows of its
    /// matrix (the same arithmetic after the rotation).
    @inlinable @inline(__always)
    package static func recomposed(_ d: DecomposedTransform3D, rotation r: (Vector3, Vector3, Vector3)) -> Transform3D {
        let (r0, r1, r2) = r
        let a0 = r0 * d.scale.x
        let a1 = (r1 + r0 * d.skew.x) * d.scale.y
        let a2 = (r2 + r0 * d.skew.y + r1 * d.skew.z) * d.scale.z
        let p = d.perspective, t = d.translation
        return Transform3D(
            m11: a0.x, m12: a0.y, m13: a0.z, m14: a0.x * p.x + a0.y * p.y + a0.z * p.z,
            m21: a1.x, m22: a1.y, m23: a1.z, m24: a1.x * p.x + a1.y * p.y + a1.z * p.z,
            m31: a2.x, m32: a2.y, m33: a2.z, m34: a2.x * p.x + a2.y * p.y + a2.z * p.z,
            m41: t.x, m42: t.y, m43: t.z, m44: t.x * p.x + t.y * p.y + t.z * p.z + p.w)
    }

    public func setting(_ s: Size, in t: Transform3D) -> Transform3D {
        var d = t.decomposed() ?? .identity
        d.translation.x = s.width; d.translation.y = s.height
        return d.recomposed()
    }
}
