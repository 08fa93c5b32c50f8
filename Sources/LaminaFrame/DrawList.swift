import LaminaModel
import LaminaGeometry
import LaminaImage

/// One frame's output as plain data: what to draw, back to front, with no Vulkan types.
///
/// The render thread builds it from the presentation tree; `OffscreenRenderer` (and later
/// the window target) turns it into GPU work. It is a value, so it can be built on one
/// thread, inspected in tests, and handed over whole.
public struct DrawList: Sendable {
    /// Target width in device pixels.
    public var width: Int { didSet { replan() } }
    /// Target height in device pixels.
    public var height: Int { didSet { replan() } }
    /// Color the target is cleared to: sRGB-encoded, straight alpha.
    public var clearColor: Color
    /// Items in painter's order: the first is drawn first (furthest back).
    public var items: [DrawItem] { didSet { replan(); delta = nil } }
    /// Clip shapes that items refer to by index (`DrawItem.clip`), each with its parent.
    public var clips: [Clip]
    /// The frame's passes (from the items' group markers), kept in step with `items`, `width`
    /// and `height`.
    public private(set) var plan: FramePlan
    /// This list's number from its builder (distinct for every list a builder makes); 0 for
    /// a list made by hand.
    public var serial: UInt64 = 0
    /// What changed since an earlier list (`Damage.since`) the backend may still hold as
    /// drawn: it may redraw only `damage.rect` when its image holds exactly that list. Nil:
    /// redraw everything.
    public var damage: Damage? = nil
    /// The glyph atlas text items draw (their `ImageDraw.image` is `textAtlas.base`) and its
    /// writes since that base: the backend copies in the writes it has not applied. Nil when
    /// no text is drawn.
    public var textAtlas: TextAtlasState? = nil
    /// Set by a build that patched the builder's previous list (`DrawListPatcher`): where this
    /// list can differ from list `delta.base`, so damage compares those items alone and the
    /// renderer writes only their instances. Nil for a full build, and once `items` is changed
    /// by hand.
    public internal(set) var delta: FrameDelta? = nil
    /// The shape atlas that `.shape` image items draw (their image is `shapeAtlas.base`) and its
    /// writes since that base, as `textAtlas`. Nil when no shape drew from it.
    public var shapeAtlas: TextAtlasState? = nil
    /// The frame page that `.shape` items of coverage made in the frame draw (their image is
    /// `framePage.base`, a blank image: the backend clears it and copies in every write it has
    /// not applied). Nil when no shape drew from coverage made in the frame.
    public var framePage: TextAtlasState? = nil
    /// The raster atlas `.raster` items draw into and their composites draw from (nil when no
    /// layer is rasterized), and what the raster cache did this frame.
    public var rasterAtlas: RasterAtlasState? = nil
    public var rasterStats = RasterStats()

    public init(width: Int, height: Int, clearColor: Color = .clear, items: [DrawItem] = [], clips: [Clip] = []) {
        self.init(width: width, height: height, clearColor: clearColor, items: items, clips: clips,
                  plan: FramePlanner.plan(items, width: width, height: height))
    }

    /// A list whose plan was made with the items (`DrawListBuilder`, from its own planner).
    init(width: Int, height: Int, clearColor: Color, items: [DrawItem], clips: [Clip], plan: FramePlan) {
        self.width = width
        self.height = height
        self.clearColor = clearColor
        self.items = items
        self.clips = clips
        self.plan = plan
    }

    private mutating func replan() { plan = FramePlanner.plan(items, width: width, height: height) }

    /// The list planned with or without batches (`FramePlanner.batches`; on by default), for
    /// tests and measurements.
    public func planned(batches: Bool, copiesBackdrops: Bool = true) -> DrawList {
        var list = self
        list.plan = FramePlanner.plan(items, width: width, height: height, batches: batches,
                                      copiesBackdrops: copiesBackdrops)
        return list
    }
}

/// A rounded-rect clip (`masksToBounds`): the part of a layer's plane inside `rect` with
/// `radii`, seen through `transform` (the layer's local → device-pixel map, perspective
/// allowed). Clips nest through `parent` (an index into `DrawList.clips`, or -1), which must
/// come before the clip itself in `DrawList.clips` (the renderer's shader walks the chain
/// towards lower indices; `DrawListBuilder` appends a clip after its ancestors').
public struct Clip: Sendable {
    public var transform: Transform3D
    public var rect: Rect
    public var radii: CornerRadii
    public var parent: Int

    public init(transform: Transform3D, rect: Rect, radii: CornerRadii = .zero, parent: Int = -1) {
        self.transform = transform
        self.rect = rect
        self.radii = radii
        self.parent = parent
    }
}

/// A gradient fill (`CAGradientLayer`) in the item's local units.
///
/// - `axial`: t is the projection of the point on the line from `start` to `end`.
/// - `radial`: the ellipse centered at `start` whose half-axes are `|end.x − start.x|` and
///   `|end.y − start.y|` is t = 1 (CA: "width and height (endPoint − startPoint) × 2").
/// - `conic`: t is the angle around `start`, from the direction towards `end`, turning
///   clockwise on screen (y down), divided by 2π.
/// Colors interpolate in sRGB-encoded space (straight alpha), then are premultiplied;
/// beyond the first and last location the end colors extend.
public struct GradientFill: Sendable, Hashable {
    public var type: GradientType
    public var start: Point
    public var end: Point
    /// Colors, sRGB-encoded, straight alpha.
    public var colors: [Color]
    /// One location per color in 0…1, non-decreasing; nil spreads them evenly (CA).
    public var locations: [Double]?

    public init(type: GradientType, start: Point, end: Point, colors: [Color], locations: [Double]? = nil) {
        self.type = type
        self.start = start
        self.end = end
        self.colors = colors
        self.locations = locations
    }

    public enum GradientType: Sendable, Hashable { case axial, radial, conic }
}

/// The gradient of a `.maskedGradient` image item, in the item's local units (its coverage
/// entry's plane): the gradient's own coordinate at local point (x, y) is
/// `u = x·map[0] + y·map[1] + map[2]`, `v = x·map[3] + y·map[4] + map[5]` — the gradient
/// layer's plane mapped so that an axial gradient's t is u (start at 0, end at 1) and a radial
/// one's t is the length of (u, v) (its ellipse's half-axes the unit circle). Colors and
/// locations as `GradientFill`'s.
public struct MaskedGradient: Sendable, Hashable {
    public var type: GradientFill.GradientType
    public var map: [Double]
    /// Colors, sRGB-encoded, straight alpha.
    public var colors: [Color]
    public var locations: [Double]?

    public init(type: GradientFill.GradientType, map: [Double], colors: [Color], locations: [Double]?) {
        self.type = type
        self.map = map
        self.colors = colors
        self.locations = locations
    }
}

/// A tessellated mesh to draw (shape layers' fills and strokes): `mesh` in the item's local
/// units, kept on the GPU under `id` (`MeshCache`'s id: an unchanged shape is not uploaded
/// again; ids are never reused, so one id always means one mesh).
public struct MeshDraw: Sendable {
    public var id: MeshID
    public var mesh: Mesh
    /// Fill or stroke color, sRGB-encoded, straight alpha.
    public var color: Color
    /// strokeStart/strokeEnd as fractions, applied by the shader on `distance` (0…1 = all).
    public var trimStart: Double
    public var trimEnd: Double

    public init(id: MeshID, mesh: Mesh, color: Color, trimStart: Double = 0, trimEnd: Double = 1) {
        self.id = id
        self.mesh = mesh
        self.color = color
        self.trimStart = trimStart
        self.trimEnd = trimEnd
    }
}

/// A textured item: `image` placed by `geometry` (one to nine pieces; `ContentsGeometry`),
/// sampled with `minification` / `magnification` filters. `.color` draws the image's
/// premultiplied pixels × the item's opacity (layer contents); `.coverage(color)` draws the
/// image's first channel as coverage × `color` (straight, sRGB-encoded; an A8 atlas, e.g.
/// glyphs); `.shape(fill:stroke:)` draws a shape atlas entry (`ShapeAtlas`: first channel the
/// fill's coverage, second the stroke's) in the two colors, the stroke over the fill (one
/// piece, sampled at level 0); `.glyphs(run)` draws a text layer's glyphs from the glyph atlas
/// (`GlyphRun`: one quad per glyph, each its atlas rectangle's coverage × its own color; the
/// geometry is the run's frame, one piece, which the quads replace). The GPU keeps one copy of
/// an image per `Image.id`, shared by every item showing it. `.maskedGradient(g)` draws a
/// shape atlas entry or frame page image as `.shape` does, with the mask's alpha (the stroke's
/// coverage over the fill's) times the gradient `g` at each pixel instead of two flat colors:
/// a gradient layer masked by a shape layer (`DrawListBuilder.visitCoverageMasked`).
public struct ImageDraw: Sendable {
    public enum Mode: Sendable, Equatable {
        case color
        case coverage(Color)
        case shape(fill: Color, stroke: Color)
        case glyphs(GlyphRun)
        case maskedGradient(MaskedGradient)
    }

    public var image: Image
    public var geometry: ContentsGeometry
    public var minification: Filter
    public var magnification: Filter
    public var mode: Mode
    /// Sides of the frame drawn without anti-aliasing (bits: 1 minX, 2 minY, 4 maxX, 8 maxY):
    /// a tiled layer's tile where it meets the next tile, so the two join without a seam.
    public var sharpEdges: UInt8 = 0

    /// The sampling filters (`CALayerContentsFilter`).
    public enum Filter: Int, Sendable, Hashable {
        case linear = 0, nearest = 1, trilinear = 2
    }

    public init(image: Image, geometry: ContentsGeometry, minification: Filter = .linear,
                magnification: Filter = .linear, mode: Mode = .color) {
        self.image = image
        self.geometry = geometry
        self.minification = minification
        self.magnification = magnification
        self.mode = mode
    }

    /// Which of the renderer's samplers: minification × 2 + magnification (trilinear
    /// magnifies as linear).
    @inlinable
    public var samplerIndex: Int { minification.rawValue * 2 + (magnification == .nearest ? 1 : 0) }
}

/// The radius of each corner of a rounded rectangle, in the layer's local units (points),
/// named by the corner's position in y-down local coordinates (Core Animation's
/// `CACornerMask` names: `minXMinY` is the top-left corner on screen with an identity
/// transform).
///
/// A radius is clamped at draw time to half the rect's smaller side, so that a large
/// `cornerRadius` gives a capsule as in Core Animation.
public struct CornerRadii: Hashable, Sendable {
    public var minXMinY: Double
    public var maxXMinY: Double
    public var minXMaxY: Double
    public var maxXMaxY: Double

    public init(minXMinY: Double, maxXMinY: Double, minXMaxY: Double, maxXMaxY: Double) {
        self.minXMinY = minXMinY
        self.maxXMinY = maxXMinY
        self.minXMaxY = minXMaxY
        self.maxXMaxY = maxXMaxY
    }

    /// The same radius on every corner (`CALayer.cornerRadius`).
    public init(_ radius: Double) {
        self.init(minXMinY: radius, maxXMinY: radius, minXMaxY: radius, maxXMaxY: radius)
    }

    public static let zero = CornerRadii(0)

    public var isZero: Bool { self == .zero }
}

/// One thing to draw: a layer's background rect with rounded corners and a border, a shadow,
/// a gradient, a mesh, an image, or a group marker (`Kind`).
///
/// 160 bytes, stored compactly (the retained list rewrites the changed layers' items every
/// frame, and the daemon keeps a list of them): the transform's nine entries that map the
/// layer's plane (z = 0, z dropped), the opacity and the kind's numbers as `Double`; bounds,
/// colors and corner radii as `Float` (the GPU takes them as `Float`); what only some kinds
/// use — a gradient's fill, a mesh, an image and its geometry — behind one shared reference
/// (`Payload`); the kind's colors in the color fields (a mesh's, an image mode's, a blurred
/// shadow's color is its `backgroundColor`; a shape image's stroke color its border color).
/// The properties below read and write that storage; what a kind does not use reads as its
/// default.
public struct DrawItem: Sendable {
    // Storage, in this order (no padding): 9 × 8 + 8 + 16 + 8 + 4 × 16 + 4 + 4 = 160 bytes.
    @usableFromInline var m11, m12, m14, m21, m22, m24, m41, m42, m44: Double
    /// Opacity in 0…1, already multiplied down the tree.
    public var opacity: Double
    /// `.rect`: the border color (`Float4` bits); `.shadow`: sigma; `.group`: opacity, count;
    /// `.shadowGroup`: sigma, count; `.mesh`: trim start, end; `.image` in `.shape` mode: the
    /// stroke color.
    @usableFromInline var aux: Aux
    @usableFromInline var payload: Payload
    /// Bounds: x, y, width, height.
    @usableFromInline var rect: Float4
    /// `backgroundColor`, or the kind's color (see above).
    @usableFromInline var fill: Float4
    @usableFromInline var radii: Float4
    /// The clip + 1 in bits 0…29 (0: none), `additive` in bit 30.
    @usableFromInline var clipIndex: Int32
    @usableFromInline var border: Float

    /// Maps the layer's local bounds coordinates (points) to canvas device pixels, y down,
    /// origin at the top-left. `CATransform3D` convention: `[x y z 1] × transform`. It may
    /// hold perspective (`m34`); the divide by w happens on the GPU, after clipping, so
    /// parts behind the eye are cut off rather than mirrored. z is dropped (painter's order):
    /// only the entries that map the plane z = 0 to x, y and w are kept (the others read as
    /// the identity's).
    public var transform: Transform3D {
        @inlinable get {
            Transform3D(m11: m11, m12: m12, m13: 0, m14: m14, m21: m21, m22: m22, m23: 0, m24: m24,
                        m31: 0, m32: 0, m33: 1, m34: 0, m41: m41, m42: m42, m43: 0, m44: m44)
        }
        @inlinable set {
            m11 = newValue.m11; m12 = newValue.m12; m14 = newValue.m14
            m21 = newValue.m21; m22 = newValue.m22; m24 = newValue.m24
            m41 = newValue.m41; m42 = newValue.m42; m44 = newValue.m44
        }
    }
    /// The local rect to fill: the layer's `bounds`. Negative sizes are standardized.
    public var bounds: Rect {
        @inlinable get { Rect(Double(rect.x), Double(rect.y), Double(rect.z), Double(rect.w)) }
        @inlinable set {
            rect = Float4(Float(newValue.origin.x), Float(newValue.origin.y), Float(newValue.size.width),
                          Float(newValue.size.height))
        }
    }
    /// Fill color, sRGB-encoded, straight alpha (`CALayer.backgroundColor`); a mesh's color, an
    /// image mode's (first) color, a blurred shadow's color.
    public var backgroundColor: Color {
        @inlinable get { fill.color }
        @inlinable set { fill = Float4(newValue) }
    }
    /// Corner radii in local units (`CALayer.cornerRadius`, per corner).
    public var cornerRadii: CornerRadii {
        @inlinable get {
            CornerRadii(minXMinY: Double(radii.x), maxXMinY: Double(radii.y), minXMaxY: Double(radii.z),
                        maxXMaxY: Double(radii.w))
        }
        @inlinable set {
            radii = Float4(Float(newValue.minXMinY), Float(newValue.maxXMinY), Float(newValue.minXMaxY),
                           Float(newValue.maxXMaxY))
        }
    }
    /// Border width in local units, drawn inside the bounds over the background
    /// (`CALayer.borderWidth`). The inner corner radius is `radius − borderWidth`, not below 0.
    public var borderWidth: Double {
        @inlinable get { Double(border) }
        @inlinable set { border = Float(newValue) }
    }
    /// Border color, sRGB-encoded, straight alpha (`CALayer.borderColor`): `.rect` items
    /// (clear for other kinds; setting it on them changes nothing).
    public var borderColor: Color {
        @inlinable get {
            if case .rect = payload { return aux.float4.color }
            return .clear
        }
        @inlinable set { if case .rect = payload { aux = Aux(Float4(newValue)) } }
    }
    /// Index of the innermost clip in `DrawList.clips`, or -1 for none.
    public var clip: Int {
        @inlinable get { Int(clipIndex & Self.clipBits) - 1 }
        @inlinable set { clipIndex = (clipIndex & Self.additiveBit) | Self.clipField(newValue) }
    }
    /// Drawn with plusLighter against what lies beneath, each item on its own (an additive
    /// emitter's particle: `PipelineVariant.additive`); rect and image items only.
    public var additive: Bool {
        @inlinable get { clipIndex & Self.additiveBit != 0 }
        @inlinable set { clipIndex = newValue ? clipIndex | Self.additiveBit : clipIndex & ~Self.additiveBit }
    }
    @usableFromInline static let clipBits: Int32 = (1 << 30) - 1
    @usableFromInline static let additiveBit: Int32 = 1 << 30
    /// `clip` + 1 in `clipBits` (-1 and below: 0, none; clamped above).
    @inlinable static func clipField(_ clip: Int) -> Int32 { Int32(min(max(clip, -1), Int(clipBits) - 1) + 1) }

    /// What the item draws; `.rect` by default.
    public var kind: Kind {
        @inlinable get {
            switch payload {
            case .rect: return .rect
            case .shadow: return .shadow(sigma: aux.first)
            case .group: return .group(opacity: aux.first, count: aux.count)
            case .mask: return .mask(count: aux.count)
            case .blend: return .blend(mode: BlendMode(index: Int(fill.x)), opacity: aux.first, count: aux.count)
            case .shadowGroup: return .shadowGroup(color: fill.color, sigma: aux.first, count: aux.count)
            case .filter(let f): return .filter(filters: f.filters, opacity: aux.first, count: aux.count)
            case .raster:
                return .raster(RasterDraw(page: Int(fill.x), region: PixelRect(minX: Int(radii.x), minY: Int(radii.y),
                                                                            maxX: Int(radii.z), maxY: Int(radii.w)),
                                          version: aux.a, count: aux.count))
            case .backdrop(let f): return .backdrop(filters: f.filters)
            case .gradient(let g): return .gradient(g.fill)
            case .mesh(let m): return .mesh(MeshDraw(id: m.id, mesh: m.mesh, color: fill.color, trimStart: aux.first,
                                                     trimEnd: aux.second))
            case .image(let i): return .image(imageDraw(i))
            }
        }
        set {
            // A `.rect` item's border color is kept in `aux`; other kinds put their values there.
            let borderColor = self.borderColor
            switch newValue {
            case .rect: payload = .rect; aux = Aux(Float4(borderColor))
            case .shadow(let sigma): payload = .shadow; aux = Aux(sigma, 0)
            case .group(let opacity, let count): payload = .group; aux = Aux(opacity, count: count)
            case .mask(let count): payload = .mask; aux = Aux(0, count: count)
            case .blend(let mode, let opacity, let count):
                payload = .blend; aux = Aux(opacity, count: count); fill = Float4(Float(mode.index), 0, 0, 0)
            case .filter(let filters, let opacity, let count):
                payload = .filter(FilterBox(filters)); aux = Aux(opacity, count: count)
            case .backdrop(let filters): payload = .backdrop(FilterBox(filters)); aux = Aux(0, 0)
            case .shadowGroup(let color, let sigma, let count):
                payload = .shadowGroup; fill = Float4(color); aux = Aux(sigma, count: count)
            case .raster(let r):
                payload = .raster
                fill = Float4(Float(r.page), 0, 0, 0)
                radii = Float4(Float(r.region.minX), Float(r.region.minY), Float(r.region.maxX), Float(r.region.maxY))
                aux = Aux(0, count: r.count); aux.a = r.version
            case .gradient(let g): payload = .gradient(GradientBox(g)); aux = Aux(0, 0)
            case .mesh(let m):
                payload = .mesh(MeshBox(id: m.id, mesh: m.mesh)); fill = Float4(m.color); aux = Aux(m.trimStart, m.trimEnd)
            case .image(let d):
                payload = .image(ImageBox(d))
                switch d.mode {
                case .color: aux = Aux(0, 0)
                case .coverage(let c): fill = Float4(c); aux = Aux(0, 0)
                case .shape(let f, let stroke): fill = Float4(f); aux = Aux(Float4(stroke))
                case .glyphs, .maskedGradient: fill = .zero; aux = Aux(0, 0)
                }
            }
        }
    }

    @inlinable func imageDraw(_ i: ImageBox) -> ImageDraw {
        let mode: ImageDraw.Mode = switch i.mode {
        case 0: .color
        case 1: .coverage(fill.color)
        case 3: .glyphs(i.glyphs!)
        case 4: .maskedGradient(i.gradient!)
        default: .shape(fill: fill.color, stroke: aux.float4.color)
        }
        var draw = ImageDraw(image: i.image, geometry: i.geometry, minification: i.minification,
                             magnification: i.magnification, mode: mode)
        draw.sharpEdges = i.sharpEdges
        return draw
    }

    /// What an item draws. Every kind uses `transform`, `opacity` and `clip`.
    public enum Kind: Sendable {
        /// `bounds` filled with `backgroundColor`, `cornerRadii`, the inside border.
        case rect
        /// The Gaussian blur (standard deviation `sigma`, local units) of the rounded rect
        /// `bounds`/`cornerRadii` in `backgroundColor` (shadow color, shadowOpacity applied).
        case shadow(sigma: Double)
        /// `bounds` (with `cornerRadii`) filled with a gradient.
        case gradient(GradientFill)
        /// A tessellated shape (bounds unused).
        case mesh(MeshDraw)
        /// An image (layer contents), in `ImageDraw.geometry`'s pieces (bounds unused).
        case image(ImageDraw)
        /// Group opacity: the next `count` items (nested groups included) are drawn into an
        /// offscreen image of the target's size, which is then drawn over what is below with
        /// `opacity` — so overlapping children do not show through each other. Items inside
        /// carry their opacity relative to the group. Only `kind`'s values matter on this item.
        case group(opacity: Double, count: Int)
        /// A blurred shadow of arbitrary content (Core Animation's shadow of a layer's
        /// composited alpha, or of a `shadowPath` that is no rect, rounded rect or circle):
        /// the next `count` items (nested groups and shadows included, the shadow offset already
        /// in their transforms) are drawn offscreen, their alpha is blurred by a Gaussian of
        /// standard deviation `sigma` in device pixels (separable, over ±3σ), and the result is
        /// drawn over what is below as `color` (straight, shadowOpacity in its alpha) ×
        /// blurred alpha × this item's `opacity`, clipped by this item's `clip`. The items
        /// inside are not drawn otherwise; their clips should not include this item's.
        case shadowGroup(color: Color, sigma: Double, count: Int)
        /// A mask (CALayer.mask): the next `count` items (nested groups included) are drawn
        /// offscreen, and what the enclosing `.group` drew before this item is multiplied by
        /// their composited alpha. It is the last thing in its group (a masked layer is a
        /// group whose last items are its mask). Only `kind`'s values matter on this item.
        case mask(count: Int)
        /// A blend group (CALayer.compositingFilter): the next `count` items are drawn
        /// offscreen (at full opacity), and the result, times `opacity`, is blended with
        /// `mode` over what the enclosing pass drew before this item (its backdrop).
        case blend(mode: BlendMode, opacity: Double, count: Int)
        /// A filter group (CALayer.filters): the next `count` items are drawn offscreen (at full
        /// opacity), the image goes through `filters` in order (blur radii in device pixels),
        /// and the result is composited with `opacity` (source-over).
        case filter(filters: [LayerFilter], opacity: Double, count: Int)
        /// A rasterized subtree (CALayer.shouldRasterize, the raster cache): the next `count`
        /// items are the subtree drawn in the raster atlas' pixels (page `RasterDraw.page`, inside
        /// `RasterDraw.region`), not on the target; the item after them is the `.image` item
        /// that composites that region. This item's transform and bounds are the composite's
        /// (its layer's plane and the region's rect in it), so it bounds as the composite does.
        case raster(RasterDraw)
        /// Background filters (CALayer.backgroundFilters): what the enclosing pass drew before
        /// this item, read within `bounds` (at `transform`) cut by `clip` (the layer's rounded
        /// bounds and its ancestors' clips), goes through `filters` in order (blur radii in
        /// device pixels; a blur reads the pass's image as if clamped at its edges) and replaces
        /// what lies there, by coverage × `opacity`. No items of its own follow it.
        case backdrop(filters: [LayerFilter])
    }

    public init(
        transform: Transform3D = .identity,
        bounds: Rect,
        backgroundColor: Color,
        opacity: Double = 1,
        cornerRadii: CornerRadii = .zero,
        borderWidth: Double = 0,
        borderColor: Color = .black,
        kind: Kind = .rect,
        clip: Int = -1
    ) {
        self.init(transform: transform, bounds: bounds, fill: Float4(backgroundColor), opacity: opacity,
                  radii: cornerRadii, borderWidth: borderWidth, aux: Aux(Float4(borderColor)), payload: .rect, clip: clip)
        if case .rect = kind { return }
        self.kind = kind
    }

    /// An item from its storage (the builder's hot paths: no box is made).
    @inline(__always)
    init(transform m: Transform3D, bounds b: Rect, fill: Float4, opacity: Double, radii r: CornerRadii = .zero,
         borderWidth: Double = 0, aux: Aux = Aux(0, 0), payload: Payload, clip: Int) {
        m11 = m.m11; m12 = m.m12; m14 = m.m14; m21 = m.m21; m22 = m.m22; m24 = m.m24; m41 = m.m41; m42 = m.m42; m44 = m.m44
        self.opacity = opacity
        self.aux = aux
        self.payload = payload
        rect = Float4(Float(b.origin.x), Float(b.origin.y), Float(b.size.width), Float(b.size.height))
        self.fill = fill
        radii = Float4(Float(r.minXMinY), Float(r.maxXMinY), Float(r.minXMaxY), Float(r.maxXMaxY))
        clipIndex = Self.clipField(clip)
        border = Float(borderWidth)
    }
}
