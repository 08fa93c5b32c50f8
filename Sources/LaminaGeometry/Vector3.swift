/// A 3D vector (or homogeneous 4D vector below).
public struct Vector3: Hashable, Sendable {
    public var x: Double, y: Double, z: Double
    @inlinable public init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }
    public static let zero = Vector3(0, 0, 0)
    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public func dot(_ o: Vector3) -> Double { x * o.x + y * o.y + z * o.z }
    @inlinable public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }
    @inlinable public var length: Double { dot(self).squareRoot() }
    @inlinable public var normalized: Vector3 { let l = length; return l > 0 ? self * (1 / l) : .zero }
}

/// A homogeneous 4D vector.
public struct Vector4: Hashable, Sendable {
    public var x: Double, y: Double, z: Double, w: Double
    @inlinable public init(_ x: Double, _ y: Double, _ z: Double, _ w: Double) {
        self.x = x; self.y = y; self.z = z; self.w = w
    }
}
