import LaminaGeometry
import LaminaImage
import LaminaTree
import LaminaModel

extension DrawListBuilder {
    /// The layer's `contents` image (named in `images`), placed by its gravity, contentsRect,
    /// contentsCenter and contentsScale (`ContentsGeometry`), clipped by `clip` (its own
    /// masksToBounds included); nil when it names no image or draws nothing.
    /// `name`: the image drawn (the layer's `contents`, or the old image of a cross-fade).
    @inline(never)
    /// - Parameter crop: where the contents are cut (the layer's bounds, for a `masksToBounds`
    ///   without corner radius: `ContentsGeometry.cropped(to:)`), or nil.
    func contentsItem(_ node: UnsafePointer<LayerNode>, name: String?, toPixels: Transform3D, opacity: Double,
                      clip: Int, crop: Rect? = nil) -> DrawItem? {
        // Borrowed in place, as in `visit`.
        var p: LayerProperties { _read { yield node.pointee.properties } }
        guard let name, let image = images[name],
              var geometry = ContentsGeometry(bounds: p.bounds, imageWidth: image.width, imageHeight: image.height,
                                              gravity: p.contentsGravity, contentsRect: p.contentsRect,
                                              contentsCenter: p.contentsCenter, contentsScale: p.contentsScale)
        else { return nil }
        if let crop {
            guard let cut = geometry.cropped(to: crop) else { return nil }
            geometry = cut
        }
        return DrawItem(transform: toPixels, bounds: geometry.frame, backgroundColor: .clear, opacity: opacity,
                        kind: .image(ImageDraw(image: image, geometry: geometry, minification: .init(p.minificationFilter),
                                               magnification: .init(p.magnificationFilter))),
                        clip: clip)
    }

    /// The layer's contents while it cross-fades (`LayerNode.contentsFade`, progress `f` at
    /// this build's `time`): the old image at the layer's opacity, the new one at opacity × f
    /// over it — exactly the blend (1 − f)·old + f·new where the old image is opaque; where it
    /// is not, the old image shows under the new one at full strength until the fade ends (a
    /// group blend would need an offscreen pass per fading layer). The tree makes no fade to
    /// no image; were there one, the old image would fade out (opacity × (1 − f)).
    @inline(never)
    mutating func appendFadingContents(_ node: UnsafePointer<LayerNode>, _ fade: ContentsFade, toPixels: Transform3D,
                                       opacity: Double, clip: Int, crop: Rect?) {
        // A patch never draws a fade (the tree's changed slots are unknown while one runs).
        if forPatch { refuse(.contentsFade); return }
        let f = fade.progress(at: time)
        let new = node.pointee.properties.contents
        let oldOpacity = new == nil ? opacity * (1 - f) : opacity
        if let item = contentsItem(node, name: fade.from, toPixels: toPixels, opacity: oldOpacity, clip: clip, crop: crop) {
            emit(item)
        }
        if let item = contentsItem(node, name: new, toPixels: toPixels, opacity: opacity * f, clip: clip, crop: crop) {
            emit(item)
        }
    }
}

extension ImageDraw.Filter {
    /// The sampler filter of a `CALayerContentsFilter` (layer contents, emitter cells).
    init(_ f: ContentsFilter) {
        switch f { case .linear: self = .linear; case .nearest: self = .nearest; case .trilinear: self = .trilinear }
    }
}
