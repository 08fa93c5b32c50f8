import LaminaGeometry
import LaminaImage
import LaminaTree

extension DrawListBuilder {
    /// The layer's `contents` image (named in `images`), placed by its gravity, contentsRect,
    /// contentsCenter and contentsScale (`ContentsGeometry`), clipped by `clip` (its own
    /// masksToBounds included); nil when it names no image or draws nothing.
    @inline(never)
    func contentsItem(_ node: UnsafePointer<LayerNode>, toPixels: Transform3D, opacity: Double,
                      clip: Int) -> DrawItem? {
        // Borrowed in place, as in `visit`.
        var p: LayerProperties { _read { yield node.pointee.properties } }
        guard let name = p.contents, let image = images[name],
              let geometry = ContentsGeometry(bounds: p.bounds, imageWidth: image.width, imageHeight: image.height,
                                              gravity: p.contentsGravity, contentsRect: p.contentsRect,
                                              contentsCenter: p.contentsCenter, contentsScale: p.contentsScale)
        else { return nil }
        func filter(_ f: ContentsFilter) -> ImageDraw.Filter {
            switch f { case .linear: .linear; case .nearest: .nearest; case .trilinear: .trilinear }
        }
        return DrawItem(transform: toPixels, bounds: geometry.frame, backgroundColor: .clear, opacity: opacity,
                        kind: .image(ImageDraw(image: image, geometry: geometry, minification: filter(p.minificationFilter),
                                               magnification: filter(p.magnificationFilter))),
                        clip: clip)
    }
}
