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

let red = Color(1, 0, 0)
let green = Color(0, 1, 0)
let blue = Color(0, 0, 1)
