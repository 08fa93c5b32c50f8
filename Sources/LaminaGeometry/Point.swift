/// A point or 2D vector in points (or pixels where stated), y down.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    @inlinable public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    @inlinable public init(x: Double, y: Double) { self.x = x; self.y = y }

    public static let zero = Point(0, 0)

    @inlinable public static func + (a: Point, b: Point) -> Point { Point(a.x + b.x, a.y + b.y) }
    @inlinable public static func - (a: Point, b: Point) -> Point { Point(a.x - b.x, a.y - b.y) }
    @inlinable public static func * (a: Point, s: Double) -> Point { Point(a.x * s, a.y * s) }
    @inlinable public static func * (s: Double, a: Point) -> Point { Point(a.x * s, a.y * s) }
    @inlinable public static func / (a: Point, s: Double) -> Point { Point(a.x / s, a.y / s) }
    @inlinable public static prefix func - (a: Point) -> Point { Point(-a.x, -a.y) }
    @inlinable public static func += (a: inout Point, b: Point) { a = a + b }
    @inlinable public static func -= (a: inout Point, b: Point) { a = a - b }

    /// Dot product.
    @inlinable public func dot(_ o: Point) -> Double { x * o.x + y * o.y }
    /// z of the 3D cross product (positive when `o` turns clockwise from self in y-down space).
    @inlinable public func cross(_ o: Point) -> Double { x * o.y - y * o.x }
    @inlinable public var length: Double { (x * x + y * y).squareRoot() }
    @inlinable public var lengthSquared: Double { x * x + y * y }
    /// Unit vector in the same direction, or zero for the zero vector.
    @inlinable public var normalized: Point { let l = length; return l > 0 ? self / l : .zero }
    /// The vector turned by +90° (x, y) → (−y, x).
    @inlinable public var perpendicular: Point { Point(-y, x) }
    @inlinable public func distance(to o: Point) -> Double { (self - o).length }
    @inlinable public func lerp(to o: Point, _ t: Double) -> Point { Point(x + (o.x - x) * t, y + (o.y - y) * t) }
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite }

    public var description: String { "(\(x), \(y))" }
}

/// A width and height.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    @inlinable public init(_ width: Double, _ height: Double) { self.width = width; self.height = height }
    @inlinable public init(width: Double, height: Double) { self.width = width; self.height = height }
    public static let zero = Size(0, 0)
    public var description: String { "\(width)×\(height)" }
}

/// An origin and a size, like `CGRect`. Sizes may be negative as in Core Graphics;
/// `standardized` flips them.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    @inlinable public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    @inlinable public init(_ x: Double, _ y: Double, _ w: Double, _ h: Double) {
        origin = Point(x, y); size = Size(w, h)
    }
    @inlinable public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(x, y, width, height)
    }
    public static let zero = Rect(0, 0, 0, 0)

    @inlinable public var minX: Double { Swift.min(origin.x, origin.x + size.width) }
    @inlinable public var maxX: Double { Swift.max(origin.x, origin.x + size.width) }
    @inlinable public var minY: Double { Swift.min(origin.y, origin.y + size.height) }
    @inlinable public var maxY: Double { Swift.max(origin.y, origin.y + size.height) }
    @inlinable public var midX: Double { origin.x + size.width / 2 }
    @inlinable public var midY: Double { origin.y + size.height / 2 }
    @inlinable public var width: Double { abs(size.width) }
    @inlinable public var height: Double { abs(size.height) }
    @inlinable public var isEmpty: Bool { size.width == 0 || size.height == 0 }
    @inlinable public var standardized: Rect { Rect(minX, minY, width, height) }

    @inlinable public func contains(_ p: Point) -> Bool {
        p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY
    }
    /// Smallest rect containing both.
    @inlinable public func union(_ o: Rect) -> Rect {
        let x0 = Swift.min(minX, o.minX), y0 = Swift.min(minY, o.minY)
        return Rect(x0, y0, Swift.max(maxX, o.maxX) - x0, Swift.max(maxY, o.maxY) - y0)
    }
    /// Overlap of both, or nil when they do not overlap.
    @inlinable public func intersection(_ o: Rect) -> Rect? {
        let x0 = Swift.max(minX, o.minX), y0 = Swift.max(minY, o.minY)
        let x1 = Swift.min(maxX, o.maxX), y1 = Swift.min(maxY, o.maxY)
        return x1 > x0 && y1 > y0 ? Rect(x0, y0, x1 - x0, y1 - y0) : nil
    }
    public var description: String { "(\(origin.x), \(origin.y), \(size.width), \(size.height))" }
}
