#if canImport(Glibc)
import Glibc
#endif
import LaminaPNG
import Testing

/// A pixel as integers, for readable expectations.
public struct RGBA: Equatable, Sendable, CustomStringConvertible {
    public var r: Int, g: Int, b: Int, a: Int
    public init(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) { self.r = r; self.g = g; self.b = b; self.a = a }
    public var description: String { "(\(r), \(g), \(b), \(a))" }

    /// Whether every color channel is within `tolerance` of `other`, and alpha within
    /// `alphaTolerance` (by default `tolerance` too).
    public func isClose(to other: RGBA, tolerance: Int, alphaTolerance: Int? = nil) -> Bool {
        abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance
            && abs(b - other.b) <= tolerance && abs(a - other.a) <= (alphaTolerance ?? tolerance)
    }
}

extension RGBAImage {
    /// The pixel at (x, y) as integers.
    public func pixel(_ x: Int, _ y: Int) -> RGBA {
        let p = self[x, y]
        return RGBA(Int(p.0), Int(p.1), Int(p.2), Int(p.3))
    }
}

/// Expects the pixel at (x, y) to be `expected` within `tolerance` per color channel and
/// `alphaTolerance` (by default `tolerance`) in alpha.
public func expectPixel(_ image: RGBAImage, _ x: Int, _ y: Int, _ expected: RGBA, tolerance: Int = 0,
                        alphaTolerance: Int? = nil, _ comment: String = "",
                        sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = image.pixel(x, y)
    #expect(actual.isClose(to: expected, tolerance: tolerance, alphaTolerance: alphaTolerance),
            "pixel (\(x), \(y)) is \(actual), expected \(expected) ±\(tolerance) \(comment)",
            sourceLocation: sourceLocation)
}

/// Compares `image` with the reference at `referencePath` (``PixelComparator/compare(_:referencePath:tolerance:regenerate:)``)
/// and expects it to pass; with `LAMINA_WRITE_ACTUAL=1` prints the comparison of passing ones too.
public func expectMatchesReference(_ image: RGBAImage, _ referencePath: String, _ tolerance: PixelTolerance,
                                   name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let result = try PixelComparator.compare(image, referencePath: referencePath, tolerance: tolerance)
    #expect(result.passed, "\(name): \(result)", sourceLocation: sourceLocation)
    if getenv("LAMINA_WRITE_ACTUAL").map({ String(cString: $0) == "1" }) ?? false { print("\(name): \(result)") }
}
