/// What one `OffscreenRenderer.render(_:)` call measured, in seconds.
public struct FrameTiming: Sendable, Hashable {
    /// The frame these CPU times belong to (counts `render` calls from 1).
    public var frameNumber: UInt64
    /// Converting the draw list to instance data, copying it into the frame's ring buffer and
    /// uploading new meshes (not counting `gpuWait`).
    public var upload: Double
    /// Waiting for the frame slot's previous use to finish on the GPU (back-pressure, not CPU work).
    public var gpuWait: Double = 0
    /// Recording the command buffer.
    public var record: Double
    /// `vkQueueSubmit`.
    public var submit: Double
    /// GPU time of an *earlier* frame, `gpuFrameNumber`, the latest one known to have
    /// finished (timestamps are read only once a frame's fence has passed, so it lags by up
    /// to the number of frames in flight). Nil until one has finished or when the device's
    /// queue cannot write timestamps.
    public var gpu: Double?
    /// The frame `gpu` belongs to.
    public var gpuFrameNumber: UInt64?

    public init(frameNumber: UInt64, upload: Double, record: Double, submit: Double,
                gpu: Double? = nil, gpuFrameNumber: UInt64? = nil) {
        self.frameNumber = frameNumber
        self.upload = upload
        self.record = record
        self.submit = submit
        self.gpu = gpu
        self.gpuFrameNumber = gpuFrameNumber
    }
}

/// How `OffscreenRenderer.readPixels(alpha:)` returns alpha.
public enum PixelAlpha: Sendable {
    /// As the target holds it: color already multiplied by alpha.
    case premultiplied
    /// Divided back out (what PNG expects); transparent pixels read as 0, 0, 0, 0.
    case straight
}
