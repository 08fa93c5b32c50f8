#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import Testing
import LaminaGeometry
import LaminaPNG
import LaminaTree
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

/// Drives `driver` for `frames` frames (frame k at k × 0.09 s), each drawn twice — limited to
/// its damage, over the previous frame, in one renderer, and whole in another — and expects the
/// two equal byte for byte, at least one frame limited to its damage, and no validation message.
/// `initial`: the packets of frame 0; `before(k)`: more packets applied with frame k; `check`:
/// looks at each frame's list; `after(k)`: packets for frame k + 1.
func expectDamageLimitedFramesEqualFullRedraws(_ driver: inout FrameDriver, size: Int, frames: Int,
                                               initial: [CommitPacket], label: String,
                                               before: (Int) throws -> [CommitPacket] = { _ in [] },
                                               check: (DrawList) -> Void = { _ in },
                                               after: (Int) throws -> [CommitPacket] = { _ in [] },
                                               sourceLocation: SourceLocation = #_sourceLocation) throws {
    let damaged = try makeRenderer(width: size, height: size)
    let whole = try makeRenderer(width: size, height: size)
    var pending = initial
    var partialFrames = 0
    for frame in 0..<frames {
        pending += try before(frame)
        let f = driver.frame(applying: pending, at: Double(frame) * 0.09)
        pending = []
        if let d = f.drawList.damage, d.fraction(width: size, height: size) < 1 { partialFrames += 1 }
        check(f.drawList)
        try damaged.render(f.drawList)
        var full = f.drawList
        full.damage = nil
        try whole.render(full)
        let a = try damaged.readPixels(), b = try whole.readPixels()
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(differing == 0, "\(label) frame \(frame): \(differing) bytes differ (damage \(String(describing: f.drawList.damage)))",
                sourceLocation: sourceLocation)
        pending += try after(frame)
    }
    #expect(partialFrames > 0, "no frame was limited to its damage", sourceLocation: sourceLocation)
    #expect(damaged.validationMessages.isEmpty, "\(damaged.validationMessages)", sourceLocation: sourceLocation)
}
