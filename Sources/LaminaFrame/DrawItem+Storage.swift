import LaminaGeometry
import LaminaModel
import LaminaImage

/// `DrawItem`'s storage (see its documentation in DrawList.swift): the compact value types and
/// the shared payload boxes, and what the builder and the damage tracker do with them.
extension DrawItem {
    /// Four `Float`s with 4-byte alignment (a `SIMD4<Float>` would pad the item to 16 bytes).
    @usableFromInline struct Float4: Sendable, Equatable {
        @usableFromInline var x, y, z, w: Float
        @inlinable init(_ x: Float, _ y: Float, _ z: Float, _ w: Float) { self.x = x; self.y = y; self.z = z; self.w = w }
        @inlinable init(_ c: Color) { self.init(Float(c.red), Float(c.green), Float(c.blue), Float(c.alpha)) }
        @inlinable var color: Color { Color(Double(x), Double(y), Double(z), Double(w)) }
        static let zero = Float4(0, 0, 0, 0)
    }

    /// 16 bytes that hold two `Double`s, a `Double` and a count, or a `Float4`.
    @usableFromInline struct Aux: Sendable, Equatable {
        @usableFromInline var a: UInt64, b: UInt64
        @inlinable init(_ first: Double, _ second: Double) { a = first.bitPattern; b = second.bitPattern }
        @inlinable init(_ first: Double, count: Int) { a = first.bitPattern; b = UInt64(bitPattern: Int64(count)) }
        @inlinable init(_ c: Float4) {
            a = UInt64(c.x.bitPattern) | UInt64(c.y.bitPattern) << 32
            b = UInt64(c.z.bitPattern) | UInt64(c.w.bitPattern) << 32
        }
        @inlinable var first: Double { Double(bitPattern: a) }
        @inlinable var second: Double { Double(bitPattern: b) }
        @inlinable var count: Int { Int(Int64(bitPattern: b)) }
        @inlinable var float4: Float4 {
            Float4(Float(bitPattern: UInt32(truncatingIfNeeded: a)), Float(bitPattern: UInt32(truncatingIfNeeded: a >> 32)),
                   Float(bitPattern: UInt32(truncatingIfNeeded: b)), Float(bitPattern: UInt32(truncatingIfNeeded: b >> 32)))
        }
    }

    /// The kind, with what only some kinds use behind a shared reference (8 bytes: the case
    /// lives in the reference's spare bits).
    @usableFromInline enum Payload: Sendable {
        case rect, shadow, group, shadowGroup, mask, blend, raster
        case filter(FilterBox)
        /// Background filters (`Kind.backdrop`).
        case backdrop(FilterBox)
        case gradient(GradientBox)
        case mesh(MeshBox)
        case image(ImageBox)
    }

    /// A filter group's filters (radii in device pixels).
    @usableFromInline final class FilterBox: Sendable {
        @usableFromInline let filters: [LayerFilter]
        @usableFromInline init(_ filters: [LayerFilter]) { self.filters = filters }
    }

    @usableFromInline final class GradientBox: Sendable {
        @usableFromInline let fill: GradientFill
        @usableFromInline init(_ fill: GradientFill) { self.fill = fill }
    }

    /// A mesh and its id (the color is the item's, the trim its `aux`); one per mesh, shared by
    /// the items drawing it (the builder keeps it with its shape memo).
    @usableFromInline final class MeshBox: Sendable {
        @usableFromInline let id: MeshID
        @usableFromInline let mesh: Mesh
        @usableFromInline init(id: MeshID, mesh: Mesh) { self.id = id; self.mesh = mesh }
    }

    /// An image draw less its mode's colors (the item's): one per shape atlas entry and base,
    /// shared by every shape drawing it.
    @usableFromInline final class ImageBox: Sendable {
        @usableFromInline let image: Image
        @usableFromInline let geometry: ContentsGeometry
        @usableFromInline let minification: ImageDraw.Filter
        @usableFromInline let magnification: ImageDraw.Filter
        /// 0 `.color`, 1 `.coverage`, 2 `.shape`, 3 `.glyphs` (the run in `glyphs`), 4
        /// `.maskedGradient` (the gradient in `gradient`).
        @usableFromInline let mode: UInt8
        /// A text layer's glyphs (mode 3), else nil.
        @usableFromInline let glyphs: GlyphRun?
        /// A masked gradient's gradient (mode 4), else nil.
        @usableFromInline let gradient: MaskedGradient?
        /// `ImageDraw.sharpEdges` (a tiled layer's tile).
        @usableFromInline let sharpEdges: UInt8
        /// A shape atlas entry's scale, its meshes' scale bucket and its slot (`ShapeAtlas.Entry`),
        /// else 0, 0 and -1.
        let atlasScale: Double
        let atlasBucket: Int
        let atlasSlot: Int
        @usableFromInline init(image: Image, geometry: ContentsGeometry, minification: ImageDraw.Filter,
                               magnification: ImageDraw.Filter, mode: UInt8, glyphs: GlyphRun? = nil, atlasScale: Double = 0,
                               atlasBucket: Int = 0, atlasSlot: Int = -1, sharpEdges: UInt8 = 0,
                               gradient: MaskedGradient? = nil) {
            self.image = image; self.geometry = geometry
            self.sharpEdges = sharpEdges
            self.minification = minification; self.magnification = magnification; self.mode = mode
            self.glyphs = glyphs
            self.gradient = gradient
            self.atlasScale = atlasScale; self.atlasBucket = atlasBucket; self.atlasSlot = atlasSlot
        }
        convenience init(_ draw: ImageDraw) {
            var glyphs: GlyphRun? = nil
            var gradient: MaskedGradient? = nil
            let mode: UInt8
            switch draw.mode {
            case .color: mode = 0
            case .coverage: mode = 1
            case .shape: mode = 2
            case .glyphs(let run): mode = 3; glyphs = run
            case .maskedGradient(let g): mode = 4; gradient = g
            }
            self.init(image: draw.image, geometry: draw.geometry, minification: draw.minification,
                      magnification: draw.magnification, mode: mode, glyphs: glyphs, sharpEdges: draw.sharpEdges,
                      gradient: gradient)
        }
    }

    /// Sets the transform and opacity alone (a moved leaf in a patch).
    @inline(__always)
    mutating func place(_ m: Transform3D, opacity: Double) {
        m11 = m.m11; m12 = m.m12; m14 = m.m14; m21 = m.m21; m22 = m.m22; m24 = m.m24; m41 = m.m41; m42 = m.m42; m44 = m.m44
        self.opacity = opacity
    }

    /// Whether two items draw the same (their clips aside): every stored value equal, the
    /// payloads the same reference or equal (an image by identity, geometry and filters — an
    /// `Image`'s pixels never change —, a mesh by its id).
    func drawsSame(as o: DrawItem) -> Bool {
        guard m41 == o.m41, m42 == o.m42, m11 == o.m11, m12 == o.m12, m21 == o.m21, m22 == o.m22,
              m14 == o.m14, m24 == o.m24, m44 == o.m44, opacity == o.opacity, aux == o.aux, rect == o.rect,
              fill == o.fill, radii == o.radii, clipIndex == o.clipIndex, border == o.border else { return false }
        switch (payload, o.payload) {
        case (.rect, .rect), (.shadow, .shadow), (.group, .group), (.shadowGroup, .shadowGroup), (.mask, .mask),
             (.blend, .blend), (.raster, .raster): return true
        case (.filter(let a), .filter(let b)), (.backdrop(let a), .backdrop(let b)): return a === b || a.filters == b.filters
        case (.gradient(let f), .gradient(let g)): return f === g || f.fill == g.fill
        case (.mesh(let m), .mesh(let n)): return m === n || m.id == n.id
        case (.image(let a), .image(let b)):
            return a === b || (a.image === b.image && a.geometry == b.geometry && a.minification == b.minification
                               && a.magnification == b.magnification && a.mode == b.mode && a.glyphs == b.glyphs
                               && a.sharpEdges == b.sharpEdges && a.gradient == b.gradient)
        default: return false
        }
    }

    /// When the two differ only in their image being a newer version of the same surface
    /// (`Image(surface:)`: a surface layer's next buffer), the image draws of both; else nil.
    func surfaceVersions(of o: DrawItem) -> (old: ImageBox, new: ImageBox)? {
        guard case .image(let a) = payload, case .image(let b) = o.payload, a !== b, let surface = b.image.surface,
              a.image.surface === surface, a.image.surfaceVersion <= b.image.surfaceVersion,
              m41 == o.m41, m42 == o.m42, m11 == o.m11, m12 == o.m12, m21 == o.m21, m22 == o.m22,
              m14 == o.m14, m24 == o.m24, m44 == o.m44, opacity == o.opacity, aux == o.aux, rect == o.rect,
              fill == o.fill, radii == o.radii, clipIndex == o.clipIndex, border == o.border,
              a.geometry == b.geometry, a.minification == b.minification, a.magnification == b.magnification,
              a.mode == b.mode, a.glyphs == b.glyphs, a.sharpEdges == b.sharpEdges, a.gradient == b.gradient
        else { return nil }
        return (a, b)
    }

    /// `kind.writeCase` read from the storage (no `Kind` is made).
    @inlinable
    package var writeCase: Kind.WriteCase {
        switch payload {
        case .rect: .rect
        case .shadow: .shadow
        case .gradient: .gradient
        case .group, .shadowGroup, .mask, .blend, .filter, .raster, .backdrop: .group
        case .image: .image
        case .mesh: .mesh
        }
    }

    /// A shape atlas piece's entry — its slot, its meshes' scale bucket and its scale — read
    /// in place (the item borrowed: no retain of its box); slot -1 for any other item.
    @inline(__always)
    var atlasEntry: (slot: Int, bucket: Int, scale: Double) {
        if case .image(let box) = payload { return (box.atlasSlot, box.atlasBucket, box.atlasScale) }
        return (-1, 0, 0)
    }

    /// Whether the item is a layer's contents image (`DrawListBuilder.contentsItem`: mode
    /// `.color`, neither a shape atlas entry nor a glyph run), read in place (no retain of its
    /// box). In a list a patch works on, only a layer's contents make such items (tiles,
    /// particles and raster composites come with lists that are not patched), and all they
    /// hold but the transform and opacity follows from the layer's model values (bounds,
    /// contents, contentsRect, contentsCenter, contentsGravity, contentsScale, filters).
    @inline(__always)
    var isContentsImage: Bool {
        if case .image(let box) = payload { return box.mode == 0 && box.atlasSlot < 0 && box.glyphs == nil }
        return false
    }

    /// A glyph run's layout scale (`GlyphRun.scale`) read in place; 0 for any other item.
    @inline(__always)
    var glyphScale: Double {
        if case .image(let box) = payload, let run = box.glyphs { return run.scale }
        return 0
    }

    /// How many items follow a group's marker as its members (`.group`, `.shadowGroup`,
    /// `.mask`, `.blend`, `.filter`, `.raster`: the count `kind` carries), read from the
    /// storage; nil for every other item. No `Kind` is made: a mesh item's would copy its mesh.
    @inlinable
    package var groupCount: Int? {
        switch payload {
        case .group, .shadowGroup, .mask, .blend, .filter, .raster: aux.count
        case .rect, .shadow, .gradient, .mesh, .image, .backdrop: nil
        }
    }

    /// Whether the item is a `.backdrop` (background filters), read from the storage.
    @inlinable
    package var isBackdrop: Bool {
        if case .backdrop = payload { return true }
        return false
    }

    /// Whether the item is a `.filter` group's marker or a `.backdrop` (whose blurs filter all
    /// four channels).
    public var isFilterMarker: Bool {
        switch payload {
        case .filter, .backdrop: true
        default: false
        }
    }

    /// `kind.shadowSigma` read from the storage.
    @inlinable
    package var shadowSigma: Double {
        if case .shadow = payload { return aux.first }
        return 0
    }
}
