#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import TestSupport
@testable import LaminaRender

/// A renderer with the validation layer on (LAMINA_VALIDATION=1, as every render test uses).
func makeRenderer(width: Int, height: Int) throws -> OffscreenRenderer {
    setenv("LAMINA_VALIDATION", "1", 1)
    let renderer = try OffscreenRenderer(width: width, height: height)
    #expect(renderer.validationEnabled)
    return renderer
}

/// Renders `list` once through a fresh renderer and returns its pixels. Expects that the
/// validation layer reported nothing, during the frame or during shutdown.
func renderImage(_ list: DrawList, alpha: PixelAlpha = .premultiplied,
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> RGBAImage {
    let log: ValidationLog
    let pixels: [UInt8]
    do {
        let renderer = try makeRenderer(width: list.width, height: list.height)
        log = renderer.validationLog
        try renderer.render(list)
        pixels = try renderer.readPixels(alpha: alpha)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)", sourceLocation: sourceLocation)
    }
    // The renderer is gone: shutdown messages (leaked objects…) are in the log too.
    #expect(log.messages.isEmpty, "\(log.messages)", sourceLocation: sourceLocation)
    return RGBAImage(width: list.width, height: list.height, pixels: pixels)
}

/// A pixel as integers, for readable expectations.
struct RGBA: Equatable, CustomStringConvertible {
    var r: Int, g: Int, b: Int, a: Int
    init(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) { self.r = r; self.g = g; self.b = b; self.a = a }
    var description: String { "(\(r), \(g), \(b), \(a))" }

    /// Whether every channel is within `tolerance` of `other`.
    func isClose(to other: RGBA, tolerance: Int) -> Bool {
        abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance
            && abs(b - other.b) <= tolerance && abs(a - other.a) <= tolerance
    }
}

extension RGBAImage {
    func pixel(_ x: Int, _ y: Int) -> RGBA {
        let p = self[x, y]
        return RGBA(Int(p.0), Int(p.1), Int(p.2), Int(p.3))
    }
}

/// Expects the pixel at (x, y) to be `expected` within `tolerance` per channel.
func expectPixel(_ image: RGBAImage, _ x: Int, _ y: Int, _ expected: RGBA, tolerance: Int = 0,
                 _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    let actual = image.pixel(x, y)
    #expect(actual.isClose(to: expected, tolerance: tolerance),
            "pixel (\(x), \(y)) is \(actual), expected \(expected) ±\(tolerance) \(comment)",
            sourceLocation: sourceLocation)
}

let red = Color(1, 0, 0)
let green = Color(0, 1, 0)
let blue = Color(0, 0, 1)
