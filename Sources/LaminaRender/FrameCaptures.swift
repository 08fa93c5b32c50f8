import LaminaFrame

/// One capture asked of the render thread: the frame at compositor time `time` (nil: the
/// frame it draws next), answered under `tag`.
struct CaptureRequest: Sendable {
    var time: Double?
    var tag: UInt64
}

/// Captures: the requests a frame drained from the inbox (`RenderLoop.capture` queues them
/// under the inbox's lock, in order), read back after that frame is drawn.
///
/// - **The frame's own time** (or no time): the image the frame just drew is read back as it
///   is.
/// - **Another time**: that time's list is built (`FrameDriver.drawList(at:)`) and drawn over
///   the image without presenting (a window keeps showing the frame's time), then read back.
///   The image now holds that list, so it becomes the damage baseline: the driver's next
///   frame takes its damage relative to it (a damage relative to the frame would leave the
///   captured time's pixels outside it), and the renderer draws in full when the serials do
///   not match.
///
/// Render thread only (it draws through the renderer).
struct FrameCaptures {
    var requests: [CaptureRequest]

    var isEmpty: Bool { requests.isEmpty }

    /// Reads back every request after the frame at `frameTime` was drawn, in order.
    /// `frameList` is the frame's own list when the target holds something else (the frame
    /// with the viewer's overlays): a capture of the frame's time draws it first, so captures
    /// never include the overlays.
    func read(after frameTime: Double, driver: inout FrameDriver,
                       renderer: OffscreenRenderer, frameList: DrawList? = nil) -> [RenderLoop.CaptureResult] {
        var frameList = frameList
        return requests.map { capture in
            // The frame just rendered is read back as it is; another time renders its own.
            var other = capture.time.flatMap { $0 == frameTime ? nil : driver.drawList(at: $0) }
            let withoutOverlays = other == nil && frameList != nil
            if withoutOverlays {
                // The frame without the overlays, drawn once (the target holds it from then on).
                other = frameList
                frameList = nil
            }
            let result = Self.read(renderer: renderer, list: other, time: capture.time ?? frameTime,
                                   width: driver.builder.pixelWidth, height: driver.builder.pixelHeight)
            // Not presented: the window keeps the overlays, so the next frame draws (and presents) whole.
            if withoutOverlays { renderer.forgetDrawnList() }
            return RenderLoop.CaptureResult(tag: capture.tag, result: result)
        }
    }

    /// Every request failed with `error` (the frame failed, or the thread stopped).
    func failed(_ error: RenderLoopError) -> [RenderLoop.CaptureResult] {
        requests.map { RenderLoop.CaptureResult(tag: $0.tag, result: .failure(error)) }
    }

    /// Reads back a frame: the one just rendered when `list` is nil, else `list` drawn first
    /// (without presenting).
    private static func read(renderer: OffscreenRenderer, list: DrawList?, time: Double,
                             width: Int, height: Int) -> Result<CapturedFrame, RenderLoopError> {
        do {
            if let list { _ = try renderer.render(list, present: false) }
            let pixels = try renderer.readPixels(alpha: .straight)
            return .success(CapturedFrame(time: time, width: width, height: height, rgba: pixels))
        } catch {
            return .failure(.render("capture failed: \(error)"))
        }
    }
}
