import Glibc
import LaminaGeometry
import LaminaImage

/// Shape layers' coverage kept as a texture while it does not change: a shape whose fill and
/// stroke meshes (by `MeshID`) were drawn at the same device scale in the previous frame is
/// rasterized once into this RGBA8 atlas — red the fill's coverage, green the stroke's, each
/// the coverage meshes' exact computation (`CoverageMesh.rasterize`) of a one-device-pixel
/// box at the layer's scale, sampled every half pixel — and drawn from then on as one `.shape` image item (one
/// textured quad in the fill and stroke colors, `piece.frag`, the `shape` pipeline) instead of two mesh items
/// whose fragment shader integrates the edges of every pixel. Colors, opacity, position and
/// rotation may animate without touching the atlas; a new path, style or scale makes new
/// meshes and so a new entry (after it has held for a frame; until then the meshes draw).
///
/// Exactness: an unrotated layer at a whole-pixel offset samples texel centres, so it gets
/// the mesh shader's coverage (quantized to 8 bits); other placements interpolate the pixel
/// box's coverage bilinearly between samples half a pixel apart (a quarter of the error of
/// pixel-spaced samples; within the pixel rule of the goldens). Only layers whose transform is a similarity (no
/// perspective, no skew, equal axis scales) use the atlas.
///
/// The backend sees it as the glyph atlas is seen: `DrawList.shapeAtlas` (a base image and
/// the dirty rectangles written since). Entries are packed in shelves; when the atlas is full
/// and most of its entries have not drawn for `resetInterval` frames it starts over empty at
/// the next frame (at most once every `resetInterval` frames; the meshes draw meanwhile).
/// Render thread only.
final class ShapeAtlas {
    static let width = 1024
    static let height = 1024
    /// Largest entry side in texels, half-pixel samples (larger shapes draw their meshes).
    static let maxEntrySide = 512
    /// Texels rasterized per frame at most (the rest wait for a later frame).
    static let texelBudget = 1 << 18
    /// Fewest frames between two restarts of a full atlas.
    static let resetInterval: UInt64 = 60

    struct Key: Hashable {
        var fill: MeshID?
        var stroke: MeshID?
    }

    /// An entry: texel (i, j), stored at atlas (x + i, y + j), is the coverage of the device
    /// pixel box (at `scale`) centred at ((x0 + i) / 2, (y0 + j) / 2) device pixels of the
    /// layer's local plane; its outer texels are zero (the grid reaches past the shape's
    /// bounds), and a gutter of zero texels surrounds it in the atlas.
    struct Entry {
        var scale: Double
        /// Its slot in `lastUsed`.
        var slot: Int
        var x: Int, y: Int, x0: Int, y0: Int, width: Int, height: Int
        /// The item's quad in the layer's plane and its place in the atlas: fixed for the
        /// entry's life, so a frame drawing it computes neither.
        var frameRect: Rect
        var geometry: ContentsGeometry
        /// What its items hold (made once per base: every item drawing it shares it).
        var box: DrawItem.ImageBox?
    }

    private var entries: [Key: Entry] = [:]
    /// Shapes seen once at a scale, this frame and the previous one: rasterized when seen
    /// again in the next frame. Two maps that alternate (no map is made per frame).
    private var candidates: [Key: Double] = [:]
    private var previousCandidates: [Key: Double] = [:]
    private var pixels = [UInt8](repeating: 0, count: width * height * 4)
    private var shelfX = 0, shelfY = 0, shelfHeight = 0
    private var state: TextAtlasState?
    private var writtenBytes = 0
    private var frame: UInt64 = 0
    private var budget = 0
    /// Whether an entry did not fit in this frame's budget.
    private var budgetSpent = false
    private var resetPending = false
    /// Whether an entry found the atlas full this frame (the reset rule is checked once).
    private var fullThisFrame = false
    private var lastReset: UInt64 = 0
    /// The frame each entry (by `Entry.slot`) last drew.
    /// (Written by `touch` for every moved shape: no dynamic exclusivity check, the render
    /// thread alone uses an atlas.)
    @exclusivity(unchecked) private var lastUsed: [UInt64] = []
    /// Entries rasterized so far (tests, stats).
    private(set) var rasterized = 0

    /// An independent copy in the same state (tests: a reference build from the same state).
    func copy() -> ShapeAtlas {
        let c = ShapeAtlas()
        c.entries = entries; c.candidates = candidates; c.previousCandidates = previousCandidates
        c.pixels = pixels; c.shelfX = shelfX; c.shelfY = shelfY; c.shelfHeight = shelfHeight
        c.state = state; c.writtenBytes = writtenBytes; c.frame = frame; c.budget = budget
        c.resetPending = resetPending; c.fullThisFrame = fullThisFrame; c.lastReset = lastReset
        c.lastUsed = lastUsed; c.rasterized = rasterized; c.budgetSpent = budgetSpent
        c.replaced = replaced; c.patchCandidates = patchCandidates
        c.frameTexels = frameTexels; c.packsFramePage = packsFramePage
        c.frameCoverage = frameCoverage; c.previousFrameCoverage = previousFrameCoverage
        c.reusesFrameCoverage = reusesFrameCoverage; c.frameCoverageReused = frameCoverageReused
        c.page = page; c.pageShelfX = pageShelfX; c.pageShelfY = pageShelfY; c.pageShelfHeight = pageShelfHeight
        return c
    }

    /// Starts frame `frame` (increasing; the same again when a build follows a patch that
    /// gave up: the candidates move on only when the frame does).
    func beginFrame(_ frame: UInt64) {
        if frame != self.frame {
            swap(&candidates, &previousCandidates)
            candidates.removeAll(keepingCapacity: true)
        }
        self.frame = frame
        budget = Self.texelBudget
        frameTexels = 0
        budgetSpent = false
        fullThisFrame = false
        replaced = false
        patchCandidates.removeAll(keepingCapacity: true)
        if resetPending {
            resetPending = false
            lastReset = frame
            entries.removeAll(keepingCapacity: true)
            lastUsed.removeAll(keepingCapacity: true)
            pixels = [UInt8](repeating: 0, count: Self.width * Self.height * 4)
            shelfX = 0; shelfY = 0; shelfHeight = 0
            state = nil
        } else if writtenBytes > pixels.count / 4 {
            takeBase()
        }
    }

    /// The state for the backend once any shape drew from the atlas: every list carries it,
    /// since a patched list keeps earlier frames' atlas items without drawing them anew (and
    /// a list the backend skipped may have brought writes the next one must bring again).
    func endFrame() -> TextAtlasState? {
        if !patchCandidates.isEmpty {
            for (key, scale) in patchCandidates { candidates[key] = scale }
            patchCandidates.removeAll(keepingCapacity: true)
        }
        return state
    }

    private func takeBase() {
        state = TextAtlasState(base: Image(width: Self.width, height: Self.height, format: .rgba8, pixels: pixels),
                               writes: [])
        writtenBytes = 0
    }

    /// What `item` answers.
    enum Answer {
        /// Draw this item (from the atlas).
        case item(DrawItem)
        /// Draw the meshes.
        case meshes
        /// Draw the meshes for now: the shape may get an entry next frame (first seen at its
        /// scale, or this frame's budget spent), if it is then drawn at the same scale.
        case meshesPending
        /// Patching: a full build would draw the shape from an entry it does not have yet (it
        /// was seen at this scale last frame), so the patch must give way to one.
        case needsFullBuild
    }

    /// Whether a build now could keep the shape items of the last full build that it does not
    /// redraw, as far as the atlas decides: no restart and no new base due (they name the
    /// current base and its entries).
    var isSettled: Bool { !resetPending && !replaced && writtenBytes <= pixels.count / 4 }

    /// Whether this frame replaced an entry with one at another scale (shapes sharing meshes
    /// drawn at other scales): items made earlier in the frame no longer name an entry.
    private var replaced = false
    /// Candidates a patch noted this frame (kept apart, so that a patch that gives up leaves
    /// none; they become the frame's candidates when it completes, as a full build's would).
    private var patchCandidates: [Key: Double] = [:]

    /// The item drawing a shape's `fill` and `stroke` (mesh, color; either may be nil) through
    /// `toPixels` from the atlas, or `.meshes` / `.meshesPending` when it cannot (yet).
    /// `lookingUp` (a patch): entries and candidates are looked up, none is noted and nothing is
    /// rasterized (so a patch leaves the atlas as it was), and where a full build would make
    /// an entry the answer is `.needsFullBuild`.
    func item(fill: (id: MeshID, mesh: Mesh, color: Color)?, stroke: (id: MeshID, mesh: Mesh, color: Color)?,
              toPixels m: Transform3D, scale: Double, opacity: Double, clip: Int, lookingUp: Bool = false) -> Answer {
        guard fill != nil || stroke != nil, Self.isSimilarity(m, scale: scale),
              let grid = Self.grid(fill?.mesh, stroke?.mesh, scale: scale) else { return .meshes }
        let key = Key(fill: fill?.id, stroke: stroke?.id)
        var entry = entries[key]
        if let e = entry, !Self.sameScale(e.scale, scale) { entry = nil }
        if entry == nil {
            // A patch notes candidates as a full build of the frame would (a later shape with
            // the same meshes at the same scale would find it), apart.
            guard let seen = (lookingUp ? patchCandidates[key] : candidates[key]) ?? previousCandidates[key],
                  Self.sameScale(seen, scale) else {
                if lookingUp { patchCandidates[key] = scale; return .meshes }
                candidates[key] = scale
                return .meshesPending
            }
            if lookingUp {
                // A full build would rasterize it, unless the atlas has no room (no rasterizing
                // happened before in this frame, else the patch would have given way).
                return hasRoom(grid) ? .needsFullBuild : .meshes
            }
            guard let made = rasterize(fill?.mesh, stroke?.mesh, grid, scale: scale) else {
                return budgetSpent ? .meshesPending : .meshes
            }
            candidates[key] = nil
            previousCandidates[key] = nil
            if entries[key] != nil { replaced = true }
            entries[key] = made
            entry = made
        }
        guard var e = entry, let base = state?.base else { return .meshes }
        lastUsed[e.slot] = frame
        if e.box?.image !== base {
            e.box = DrawItem.ImageBox(image: base, geometry: e.geometry, minification: .linear, magnification: .linear,
                                      mode: 2, atlasScale: e.scale, atlasBucket: MeshCache.bucket(forScale: e.scale),
                                      atlasSlot: e.slot)
            entries[key] = e
        }
        return .item(DrawItem(transform: m, bounds: e.frameRect, fill: DrawItem.Float4(fill?.color ?? .clear), opacity: opacity,
                              aux: DrawItem.Aux(DrawItem.Float4(stroke?.color ?? .clear)), payload: .image(e.box!), clip: clip))
    }

    /// Texels (device pixels) of the frame's coverage images (`frameItem`) so far this frame.
    private var frameTexels = 0
    /// Most texels of coverage images made in one frame (the rest draw their meshes).
    static let frameTexelBudget = 1 << 20
    /// Largest side of a coverage image made in the frame, in device pixels (an entry's): a
    /// larger shape — chiefly an inverted mask's square cut to its window, whose mesh tiles
    /// are nearly all inside, cheap for the mesh shader — draws its meshes.
    static let maxFrameSide = maxEntrySide / 2

    /// The frame page's side in texels: it holds `frameTexelBudget` texels less the packing's waste.
    static let pageSide = 1024
    /// Whether coverage made in the frame is packed into the frame page (`LAMINA_COVERAGE_PAGE=0`:
    /// each shape an image of its own, as before the page; the same binary measures both).
    var packsFramePage = getenv("LAMINA_COVERAGE_PAGE").map { String(cString: $0) } != "0"
    /// The frame page: this build's coverage images made in the frame (`frameItem`), packed in
    /// shelves into one RGBA8 image of `pageSide` texels a side — a blank image
    /// (`Image(blankWidth:height:format:)`: the backend clears its texture) and the images
    /// as its writes, each with a gutter of zero texels, so that the backend uploads them all
    /// in one copy and draws them through one descriptor set, consecutive ones in one
    /// instanced draw. A full build starts a new page (`beginPage`): every item it makes is
    /// new, and the last page's items may still be drawn by a frame in flight or kept by
    /// damage, so a page's texels never change once written (as an image's pixels never change
    /// under its identity). A patch adds to the page of the full build it patches (its
    /// list keeps that build's items), in free space.
    private var page: TextAtlasState?
    private var pageShelfX = 0, pageShelfY = 0, pageShelfHeight = 0

    /// Starts a new frame page (a full build; `page`): the next coverage made in the frame goes
    /// into a new blank image.
    func beginPage() {
        page = nil
        pageShelfX = 0; pageShelfY = 0; pageShelfHeight = 0
        swap(&frameCoverage, &previousFrameCoverage)
        frameCoverage.removeAll(keepingCapacity: true)
    }

    /// What a coverage image made in the frame is a function of: the meshes (a `MeshID`
    /// names one mesh for the process's life), the affine map from their plane to the image's
    /// pixels (the transform less the image's whole-pixel origin) and the image's size and
    /// gutter — `CoverageMesh.accumulate` of the same meshes through the same map gives the
    /// same bytes, so a shape that only moved by whole pixels, or not at all, needs no new ones.
    struct FrameCoverageKey: Hashable {
        var fill: MeshID?
        var stroke: MeshID?
        var a, b, c, d, tx, ty: Double
        var width, height, gutter: Int
    }

    /// The coverage bytes (gutter included) made by `frameItem` since the last `beginPage`, and
    /// in the build before it: a shape drawn from coverage made in the frame whose key is
    /// unchanged (not a similarity, cut to a window, the atlas full — but still) takes last
    /// frame's bytes (shared, not copied) instead of accumulating them again. Two maps that
    /// alternate, as the candidates do; together at most two frames' budget of texels.
    /// `LAMINA_FRAME_COVERAGE_REUSE=0` accumulates every image anew (the same binary measures both).
    private var frameCoverage: [FrameCoverageKey: [UInt8]] = [:]
    private var previousFrameCoverage: [FrameCoverageKey: [UInt8]] = [:]
    var reusesFrameCoverage = getenv("LAMINA_FRAME_COVERAGE_REUSE").map { String(cString: $0) } != "0"
    /// Coverage images made in the frame from bytes made before (tests, stats).
    private(set) var frameCoverageReused = 0

    /// The frame page (`page`) for the backend, with every write made into it so far: a list
    /// brings it up to date whichever lists the backend skipped. Nil when no shape of this
    /// build or its patches drew from coverage made in the frame.
    var framePage: TextAtlasState? { page }

    /// The place of a `width` × `height` image (its gutter not counted) in the frame page's
    /// shelves, taken; nil when the page has no room left for it.
    private func placeInPage(width: Int, height: Int) -> (x: Int, y: Int)? {
        let w = width + 2, h = height + 2
        var x = pageShelfX, y = pageShelfY, shelf = pageShelfHeight
        if x + w > Self.pageSide { y += shelf; x = 0; shelf = 0 }
        guard y + h <= Self.pageSide else { return nil }
        pageShelfX = x + w; pageShelfY = y; pageShelfHeight = max(shelf, h)
        return (x + 1, y + 1)
    }

    /// The item drawing a shape's `fill` and `stroke` (meshes drawn through `toPixels`, the
    /// target `width` × `height` pixels) from coverage made now, in device space: each texel
    /// the exact area of its device pixel inside the shape (`CoverageMesh.accumulate` through
    /// the transform's affine part), red the fill's, green the stroke's, drawn as one `.shape`
    /// quad on the pixel grid — for a shape the atlas does not draw this frame (new meshes: a
    /// morphing path; first seen at this scale; not a similarity; cut to a window; the atlas
    /// full) on a CPU rasterizer, where one textured quad costs far less than the mesh
    /// shader's integral per pixel. The coverage goes into the frame page (`page`), or with
    /// `packsFramePage` off into an image of its own. nil for a perspective transform, a mesh
    /// without a boundary, a device box over `maxFrameSide` pixels a side, once this frame's
    /// `frameTexelBudget` is spent or when the page is full. Touches nothing of the atlas.
    func frameItem(fill: (id: MeshID, mesh: Mesh, color: Color)?, stroke: (id: MeshID, mesh: Mesh, color: Color)?,
                   toPixels m: Transform3D, width: Int, height: Int, opacity: Double, clip: Int) -> DrawItem? {
        guard fill != nil || stroke != nil, fill?.mesh.boundary.isEmpty != true, stroke?.mesh.boundary.isEmpty != true,
              m.m14 == 0, m.m24 == 0, m.m44 == 1, var bounds = fill?.mesh.bounds ?? stroke?.mesh.bounds else { return nil }
        if let fill, let stroke { bounds = fill.mesh.bounds.union(stroke.mesh.bounds) }
        // The device box of the meshes' quads (their bounds hold the shape and a margin), cut to the target.
        guard let device = DrawListBuilder.affineBox(bounds, m) else { return nil }
        let minX = device.minX, minY = device.minY, maxX = device.maxX, maxY = device.maxY
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else { return nil }
        let x0 = max(0, min(Double(width), minX.rounded(.down))), y0 = max(0, min(Double(height), minY.rounded(.down)))
        let x1 = max(0, min(Double(width), maxX.rounded(.up))), y1 = max(0, min(Double(height), maxY.rounded(.up)))
        let w = Int(x1 - x0), h = Int(y1 - y0)
        guard w > 0, h > 0, w <= Self.maxFrameSide, h <= Self.maxFrameSide,
              frameTexels + w * h <= Self.frameTexelBudget else { return nil }
        let rect = Rect(x0, y0, Double(w), Double(h))
        // Its place in the page first (a full page makes no coverage); taken, it stays taken.
        var place: (x: Int, y: Int)? = nil
        if packsFramePage {
            guard let p = placeInPage(width: w, height: h) else { return nil }
            place = p
        }
        // In the page: the image and a gutter of zero texels around it (its write's rectangle);
        // apart: the image alone.
        let gutter = packsFramePage ? 1 : 0
        let key = FrameCoverageKey(fill: fill?.id, stroke: stroke?.id, a: m.m11, b: m.m12, c: m.m21, d: m.m22,
                                   tx: m.m41 - x0, ty: m.m42 - y0, width: w, height: h, gutter: gutter)
        let pixels: [UInt8]
        if reusesFrameCoverage, let made = frameCoverage[key] ?? previousFrameCoverage[key] {
            pixels = made
            frameCoverageReused += 1
        } else {
            let rowBytes = (w + 2 * gutter) * 4
            var fresh = [UInt8](repeating: 0, count: rowBytes * (h + 2 * gutter))
            let drawn = fresh.withUnsafeMutableBufferPointer { p in
                var all = true
                let origin = p.baseAddress! + gutter * rowBytes + gutter * 4
                for (k, part) in [fill?.mesh, stroke?.mesh].enumerated() {
                    guard let part else { continue }
                    all = all && CoverageMesh.accumulate(part, a: key.a, b: key.b, c: key.c, d: key.d, tx: key.tx,
                                                         ty: key.ty, box: 1, width: w, height: h,
                                                         into: origin + k, rowStride: rowBytes, pixelStride: 4)
                }
                return all
            }
            guard drawn else { return nil }   // (a singular transform)
            pixels = fresh
        }
        if reusesFrameCoverage { frameCoverage[key] = pixels }
        let box: DrawItem.ImageBox
        if let (px, py) = place {
            let side = Double(Self.pageSide)
            guard let geometry = ContentsGeometry(bounds: rect, imageWidth: Self.pageSide, imageHeight: Self.pageSide,
                                                  gravity: .resize,
                                                  contentsRect: Rect(Double(px) / side, Double(py) / side,
                                                                     Double(w) / side, Double(h) / side),
                                                  contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1) else { return nil }
            if page == nil {
                page = TextAtlasState(base: Image(blankWidth: Self.pageSide, height: Self.pageSide, format: .rgba8),
                                      writes: [])
            }
            page!.writes.append(AtlasWrite(x: px - 1, y: py - 1, width: w + 2, height: h + 2, bytes: pixels))
            box = DrawItem.ImageBox(image: page!.base, geometry: geometry, minification: .linear, magnification: .linear,
                                    mode: 2)
        } else {
            guard let geometry = ContentsGeometry(bounds: rect, imageWidth: w, imageHeight: h, gravity: .resize,
                                                  contentsRect: Rect(0, 0, 1, 1), contentsCenter: Rect(0, 0, 1, 1),
                                                  contentsScale: 1) else { return nil }
            box = DrawItem.ImageBox(image: Image(width: w, height: h, format: .rgba8, pixels: pixels),
                                    geometry: geometry, minification: .linear, magnification: .linear, mode: 2)
        }
        frameTexels += w * h
        return DrawItem(transform: .identity, bounds: rect, fill: DrawItem.Float4(fill?.color ?? .clear), opacity: opacity,
                        aux: DrawItem.Aux(DrawItem.Float4(stroke?.color ?? .clear)), payload: .image(box), clip: clip)
    }

    /// An entry drew this frame without a lookup (a patch moving its item: `DrawListPatcher+Motion.swift`).
    func touch(_ slot: Int) {
        if slot >= 0, slot < lastUsed.count { lastUsed[slot] = frame }
    }

    /// The sample grid of an entry for the meshes at `scale` (half-pixel samples, from the
    /// meshes' bounds — the outline grown by their margin, over 0.84 device pixels at this
    /// scale: `MeshCache` buckets are quarter octaves — to their bounds: the outer samples'
    /// boxes, half a pixel each way, miss the outline, so they are zero, and every pixel whose
    /// box meets the shape has its centre in the frame); nil when it is too large for an entry.
    private static func grid(_ fill: Mesh?, _ stroke: Mesh?, scale: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        guard var bounds = fill?.bounds ?? stroke?.bounds else { return nil }
        if let fill, let stroke { bounds = bounds.union(fill.bounds).union(stroke.bounds) }
        let minX = (bounds.minX * 2 * scale).rounded(.down), minY = (bounds.minY * 2 * scale).rounded(.down)
        let maxX = (bounds.maxX * 2 * scale).rounded(.up), maxY = (bounds.maxY * 2 * scale).rounded(.up)
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite,
              maxX - minX < Double(Self.maxEntrySide), maxY - minY < Double(Self.maxEntrySide) else { return nil }
        return (minX, minY, maxX, maxY)
    }

    /// A new entry for the meshes at `scale` on sample grid `grid`, written into the atlas; nil
    /// when this frame's budget is spent (`budgetSpent`: the shape is pending) or the atlas is full (then it
    /// starts over next frame when most entries are stale).
    private func rasterize(_ fill: Mesh?, _ stroke: Mesh?, _ grid: (minX: Double, minY: Double, maxX: Double, maxY: Double),
                           scale: Double) -> Entry? {
        guard !fullThisFrame else { return nil }
        let (minX, minY, maxX, maxY) = grid
        let width = Int(maxX - minX) + 1, height = Int(maxY - minY) + 1
        guard width * height <= budget else { budgetSpent = true; return nil }
        guard hasRoom(grid) else { return nil }
        // Shelf packing with a one-texel gutter on every side.
        let w = width + 2, h = height + 2
        if shelfX + w > Self.width { shelfY += shelfHeight; shelfX = 0; shelfHeight = 0 }
        // Texel i's centre is sample x0 + i: the texels span samples x0 − ½ … x0 + width − ½.
        let unit = 0.5 / scale
        let x = shelfX + 1, y = shelfY + 1
        let frameRect = Rect((minX - 0.5) * unit, (minY - 0.5) * unit, Double(width) * unit, Double(height) * unit)
        let source = Rect(Double(x) / Double(Self.width), Double(y) / Double(Self.height),
                          Double(width) / Double(Self.width), Double(height) / Double(Self.height))
        guard let geometry = ContentsGeometry(bounds: frameRect, imageWidth: Self.width, imageHeight: Self.height,
                                              gravity: .resize, contentsRect: source, contentsCenter: Rect(0, 0, 1, 1),
                                              contentsScale: 1) else { return nil }
        if state == nil { takeBase() }
        let entry = Entry(scale: scale, slot: lastUsed.count, x: x, y: y, x0: Int(minX), y0: Int(minY),
                          width: width, height: height, frameRect: frameRect, geometry: geometry)
        lastUsed.append(frame)
        shelfX += w
        shelfHeight = max(shelfHeight, h)
        budget -= width * height
        // The gutter and the unused channels stay zero (the atlas started zeroed and no entry overlaps).
        let first = Point(minX * unit, minY * unit)
        pixels.withUnsafeMutableBufferPointer { p in
            let origin = p.baseAddress! + (entry.y * Self.width + entry.x) * 4
            if let fill {
                CoverageMesh.rasterize(fill, origin: first, spacing: unit, box: 1 / scale, width: width, height: height,
                                       into: origin, rowStride: Self.width * 4, pixelStride: 4)
            }
            if let stroke {
                CoverageMesh.rasterize(stroke, origin: first, spacing: unit, box: 1 / scale, width: width, height: height,
                                       into: origin + 1, rowStride: Self.width * 4, pixelStride: 4)
            }
        }
        var bytes = [UInt8](repeating: 0, count: w * h * 4)
        for row in 0..<h {
            let from = ((entry.y - 1 + row) * Self.width + entry.x - 1) * 4
            bytes.replaceSubrange(row * w * 4 ..< (row + 1) * w * 4, with: pixels[from ..< from + w * 4])
        }
        state!.writes.append(AtlasWrite(x: entry.x - 1, y: entry.y - 1, width: w, height: h, bytes: bytes))
        writtenBytes += bytes.count
        rasterized += 1
        return entry
    }

    /// Whether an entry on `grid` fits in the shelves; when it does not, the atlas is full for
    /// this frame and starts over at the next when most entries have not drawn lately (else
    /// the newcomers draw their meshes: a scene with more live shapes than the atlas holds does
    /// not rasterize them all again every `resetInterval` frames).
    private func hasRoom(_ grid: (minX: Double, minY: Double, maxX: Double, maxY: Double)) -> Bool {
        guard !fullThisFrame else { return false }
        let w = Int(grid.maxX - grid.minX) + 3, h = Int(grid.maxY - grid.minY) + 3
        let y = shelfX + w > Self.width ? shelfY + shelfHeight : shelfY
        if y + h <= Self.height { return true }
        if frame >= lastReset + Self.resetInterval,
           2 * lastUsed.filter({ $0 + Self.resetInterval >= frame }).count < lastUsed.count {
            resetPending = true
        }
        fullThisFrame = true
        return false
    }

    /// Whether `m` maps the plane by a rotation, uniform scale `scale` and translation (no
    /// perspective or skew), up to rounding.
    static func isSimilarity(_ m: Transform3D, scale: Double) -> Bool {
        guard m.m14 == 0, m.m24 == 0, m.m44 == 1 else { return false }
        let tolerance = 1e-6 * scale * scale
        let xx = m.m11 * m.m11 + m.m12 * m.m12, yy = m.m21 * m.m21 + m.m22 * m.m22
        let xy = m.m11 * m.m21 + m.m12 * m.m22
        return abs(xx - scale * scale) <= tolerance && abs(yy - scale * scale) <= tolerance && abs(xy) <= tolerance
    }

    static func sameScale(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-6 * max(a, b) }
}
