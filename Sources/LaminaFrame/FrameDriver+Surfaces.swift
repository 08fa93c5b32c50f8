import LaminaImage
import LaminaTree

extension FrameDriver {
    /// A packet's surface updates (docs/protocol.md, Surfaces), applied right after its
    /// changes. A shared-memory buffer goes straight from the client's pages into the
    /// surface's GPU copy where `surfaceUploader` can take it (no CPU copy; the read is
    /// finished before the frame is published); otherwise its damaged rectangles (or a GPU
    /// buffer's, read back) are copied into the surface's storage on the CPU and the GPU copy
    /// takes only the damage. A new storage (then the whole buffer) when the buffer's size
    /// changed, or when a surface held on the GPU in one byte order gets a buffer the uploader
    /// does not take or of the other order. The layer's image becomes a new `Image` over the
    /// storage, so this frame redraws the layer. A buffer of none shows nothing. The server
    /// removes a surface's image (`setImage(name, nil)`) when its layer or client goes.
    mutating func applySurfaces(_ updates: [SurfaceUpdate]) {
        for update in updates {
            guard update.showsBuffer else {
                setImage(update.name, nil)
                continue
            }
            var u = update
            let direct = surfaceUploader != nil && u.pool != nil
            var storage = surfaces[update.name]
            if let s = storage, s.width != u.layout.width || s.height != u.layout.height
                || (s.directFormat != nil && (!direct || s.directFormat != u.layout.format)) {
                surfaceUploader?.dropped(s)
                storage = nil
            }
            if storage == nil {
                storage = SurfaceStorage(width: u.layout.width, height: u.layout.height)
                u.damage = []   // a new storage: the whole buffer
                surfaces[update.name] = storage
            }
            let s = storage!
            if direct, let uploader = surfaceUploader {
                let whole = SurfaceRect(x: 0, y: 0, width: s.width, height: s.height)
                let rects = u.damage.isEmpty ? [whole] : u.damage.compactMap { $0.clipped(width: s.width, height: s.height) }
                if uploader.upload(u, rects: rects, into: s) {
                    s.noteDirectUpload(rects, format: u.layout.format)
                    setImage(update.name, Image(surface: s))
                    continue
                }
                if s.directFormat != nil {
                    // Held on the GPU but not taken now: the whole buffer into a new storage.
                    uploader.dropped(s)
                    let fresh = SurfaceStorage(width: s.width, height: s.height)
                    u.damage = []
                    surfaces[update.name] = fresh
                    fresh.apply(u)
                    setImage(update.name, Image(surface: fresh))
                    continue
                }
            }
            s.apply(u)
            setImage(update.name, Image(surface: s))
        }
    }
}
