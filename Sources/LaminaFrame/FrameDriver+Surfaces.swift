import LaminaImage
import LaminaTree

extension FrameDriver {
    /// A packet's surface updates (docs/protocol.md, Surfaces), applied right after its
    /// changes: each copies its damaged rectangles from the client's shared memory (or GPU
    /// image, read back) into the
    /// surface's storage (a new storage when the buffer's size changed: then all of it), and
    /// the layer's image becomes a new `Image` over it, so this frame redraws the layer and
    /// the GPU copy takes only the damage. A buffer of none shows nothing. The server
    /// removes a surface's image (`setImage(name, nil)`) when its layer or client goes.
    mutating func applySurfaces(_ updates: [SurfaceUpdate]) {
        for update in updates {
            guard update.showsBuffer else {
                setImage(update.name, nil)
                continue
            }
            var storage = surfaces[update.name]
            var u = update
            if storage == nil || storage!.width != u.layout.width || storage!.height != u.layout.height {
                storage = SurfaceStorage(width: u.layout.width, height: u.layout.height)
                u.damage = []   // a new size: the whole buffer
                surfaces[update.name] = storage
            }
            storage!.apply(u)
            setImage(update.name, Image(surface: storage!))
        }
    }
}
