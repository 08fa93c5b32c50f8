import LaminaGeometry
import LaminaTree
import LaminaModel

extension DrawListBuilder {
    /// A text layer's glyphs (CATextLayer): its layout (cached while the string, font, size,
    /// bounds' size, alignment, wrapping and truncation stay the same) as one item, a
    /// `GlyphRun` of the shared atlas (one quad per glyph, each glyph's coverage × its color:
    /// the layer's `foregroundColor` for runs without their own), at the layer's device scale
    /// (the atlas rasterizes at that size: crisp as the scale animates), clipped to the bounds
    /// (a text layer's backing store) and by `clip`. A patch moves the item while that scale
    /// stays (`GlyphRun.layoutScale`, `DrawListPatcher.moveItems`).
    @inline(never)
    mutating func appendText(_ node: UnsafePointer<LayerNode>, toPixels: Transform3D, opacity: Double, clip: Int) {
        var p: LayerProperties { node.pointee.properties }
        guard !p.string.runs.isEmpty, p.bounds.width != 0, p.bounds.height != 0 else { return }
        // A patch leaves the atlas and the layouts alone: a text layer that changed (or sits
        // under one) needs a full build.
        if forPatch { refuse(.text); return }
        if textDrawing == nil { textDrawing = TextDrawing() }
        let text = textDrawing!
        let layout = text.layout(node.pointee.id, node.pointee.properties)
        text.appendItems(node.pointee.id, layout, scale: GlyphRun.layoutScale(Self.pixelScale(toPixels)), bounds: p.bounds, color: p.foregroundColor,
                         toPixels: toPixels, opacity: opacity, clip: clip, to: &items)
    }

    /// Ends the build's text: the atlas state for the backend (nil when no text drew), the
    /// items pointed at a new base when the atlas took one during the build.
    mutating func endText() -> TextAtlasState? {
        // (A patch keeps the last full build's atlas state: it draws no glyph.)
        guard let text = textDrawing else { return nil }
        let old = text.buildBase
        guard let state = text.endFrame() else { return nil }
        if let old, old !== state.base { TextDrawing.retarget(&items, from: old, to: state.base) }
        return state
    }
}
