import Testing
import LaminaGeometry
import LaminaImage
import TestSupport
@testable import LaminaFrame
@testable import LaminaRender

/// The instance ring packs each instance at its kind's stride (session 6): a plain sharp rect
/// or a mesh takes six vec4s, a rect with a border or radii eight, a shadow nine, an image or
/// shape piece eleven, a gradient segment fourteen; each draw's first instance is aligned to
/// its stride and drawn as instance `first / stride`. Scenes that interleave every kind (so runs of one kind start at all sorts of
/// offsets) are drawn in cells that do not overlap and compared, byte for byte, with each item
/// drawn alone (at the ring's start, where no offset or stride of an earlier run matters);
/// then items change kind, and items move or change in patched frames. The bytes written are
/// counted against the strides worked out by hand.
@Suite("Instances packed at their kinds' strides")
struct PackedInstanceTests {
    static let size = 128, cell = 16, columns = 8

    enum Kind: CaseIterable {
        case sharp, bordered, rounded, shadow, axial, manyStops, image, nineSlice, mesh, clippedSharp, clippedGradient
    }

    /// Bytes an item of `kind` writes whole, by hand: vec4s × 16 per instance. Sharp rects and
    /// meshes: motion (3), bounds, color, params; bordered or rounded rects: and radii, border
    /// color; shadows: and the cover rect; image pieces: and cover, the piece's rect and source
    /// (11); gradients: all 14, one instance per chunk of stops (6 stops: 2).
    static func bytes(_ kind: Kind) -> Int {
        switch kind {
        case .sharp, .mesh, .clippedSharp: 6 * 16
        case .bordered, .rounded: 8 * 16
        case .shadow: 9 * 16
        case .axial, .clippedGradient: 14 * 16
        case .manyStops: 2 * 14 * 16
        case .image: 11 * 16
        case .nineSlice: 9 * 11 * 16
        }
    }

    /// Instances an item of `kind` draws.
    static func instances(_ kind: Kind) -> Int {
        switch kind {
        case .manyStops: 2
        case .nineSlice: 9
        default: 1
        }
    }

    /// One clip, cutting the sixth row of cells across.
    static let clips = [Clip(transform: .identity, rect: Rect(0, 0, Double(size), 88))]

    /// An 8 × 8 image whose texels all differ (a piece sampling the wrong part shows).
    static let picture: Image = {
        var pixels: [UInt8] = []
        for k in 0..<64 {
            let r = UInt8(k * 4), g = UInt8(255 - k * 3), b = UInt8((k * 37) % 256)
            pixels += [r, g, b, 255]
        }
        return Image(width: 8, height: 8, premultipliedPixels: pixels)
    }()

    /// The item of `kind` in cell `index` (12 × 12 at 2 pixels in, or 8 × 8 at 4 for a shadow,
    /// whose blur reaches 3 pixels out), shifted by `nudge` pixels and with `tint` in its color.
    static func item(_ kind: Kind, cell index: Int, tint: Double, nudge: Double = 0,
                     meshes: inout MeshCache) throws -> DrawItem {
        let x = Double(index % columns * cell) + 2 + nudge, y = Double(index / columns * cell) + 2
        let at = Transform3D.translation(x, y)
        let box = Rect(0, 0, 12, 12)
        let color = Color(tint, 0.6, 1 - tint, 0.9)
        switch kind {
        case .sharp:
            return DrawItem(transform: at, bounds: box, backgroundColor: color, opacity: 0.8)
        case .clippedSharp:
            return DrawItem(transform: at, bounds: box, backgroundColor: color, clip: 0)
        case .bordered:
            return DrawItem(transform: at, bounds: box, backgroundColor: color, borderWidth: 2,
                            borderColor: Color(1, 1, tint))
        case .rounded:
            return DrawItem(transform: at, bounds: box, backgroundColor: color, cornerRadii: CornerRadii(3))
        case .shadow:
            return DrawItem(transform: .translation(x + 2, y + 2), bounds: Rect(0, 0, 8, 8), backgroundColor: color,
                            kind: .shadow(sigma: 1))
        case .axial, .clippedGradient:
            let fill = GradientFill(type: .axial, start: Point(0, 0), end: Point(12, 12),
                                    colors: [color, Color(1, tint, 0)])
            return DrawItem(transform: at, bounds: box, backgroundColor: .clear, kind: .gradient(fill),
                            clip: kind == .clippedGradient ? 0 : -1)
        case .manyStops:
            let fill = GradientFill(type: .radial, start: Point(6, 6), end: Point(12, 6), colors: [
                color, Color(1, 0, 0), Color(0, 1, 0), Color(0, 0, 1), Color(1, 1, tint), Color(tint, 0, 1),
            ])
            return DrawItem(transform: at, bounds: box, backgroundColor: .clear, kind: .gradient(fill))
        case .image, .nineSlice:
            let center = kind == .image ? Rect(0, 0, 1, 1) : Rect(0.25, 0.25, 0.5, 0.5)
            let geometry = try #require(ContentsGeometry(bounds: box, imageWidth: 8, imageHeight: 8, gravity: .resize,
                                                         contentsRect: Rect(0, 0, 1, 1), contentsCenter: center,
                                                         contentsScale: 1))
            return DrawItem(transform: at, bounds: box, backgroundColor: .clear, opacity: 0.5 + tint / 2,
                            kind: .image(ImageDraw(image: picture, geometry: geometry)))
        case .mesh:
            let (id, mesh) = try meshes.entry(for: .ellipse(in: box), style: .fill(.nonZero), scale: 1)
            return DrawItem(transform: at, bounds: mesh.bounds, backgroundColor: .clear,
                            kind: .mesh(MeshDraw(id: id, mesh: mesh, color: color)))
        }
    }

    /// What the scene must look like: each item drawn alone by `alone` (so at the ring's
    /// start), its cell copied into an image of the clear color.
    static func expected(_ items: [DrawItem], alone: OffscreenRenderer) throws -> [UInt8] {
        var image: [UInt8] = []
        for (index, item) in items.enumerated() {
            try alone.render(DrawList(width: size, height: size, clearColor: background, items: [item], clips: clips))
            let pixels = try alone.readPixels()
            if image.isEmpty { image = pixels }  // (the clear color outside this cell)
            let x0 = index % columns * cell, y0 = index / columns * cell
            for y in y0..<(y0 + cell) {
                let row = (y * size + x0) * 4
                image.replaceSubrange(row..<(row + cell * 4), with: pixels[row..<(row + cell * 4)])
            }
        }
        return image
    }

    static let background = Color(0.2, 0.2, 0.25)

    /// Random kinds in every cell (runs of one kind now and then), drawn and compared; then a
    /// third of the items change kind and the frame is drawn and compared again. Every
    /// instance is written each time (hand-made lists), in exactly the bytes the kinds take.
    @Test(arguments: [UInt64(1), 2, 3])
    func mixedScenesEqualTheirItemsDrawnAlone(seed: UInt64) throws {
        var r = SeededRandom(seed: seed)
        var meshes = MeshCache()
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        let alone = try makeRenderer(width: Self.size, height: Self.size)
        alone.reusesWork = false
        let all = Kind.allCases
        var kinds: [Kind] = []
        for _ in 0..<(Self.columns * Self.columns) {
            // A run of the previous kind half the time.
            kinds.append(kinds.last.flatMap { r.bool(0.5) ? $0 : nil } ?? all[r.below(all.count)])
        }
        for round in 0..<3 {
            if round > 0 {
                for index in kinds.indices where r.below(3) == 0 { kinds[index] = all[r.below(all.count)] }
            }
            let items = try kinds.enumerated().map { index, kind in
                try Self.item(kind, cell: index, tint: Double(index) / 64, meshes: &meshes)
            }
            let before = renderer.instanceBytesWritten
            let instancesBefore = renderer.instancesWritten
            try renderer.render(DrawList(width: Self.size, height: Self.size, clearColor: Self.background, items: items,
                                         clips: Self.clips))
            let pixels = try renderer.readPixels()
            let expected = try Self.expected(items, alone: alone)
            let differing = stride(from: 0, to: pixels.count, by: 4).filter { pixels[$0..<($0 + 4)] != expected[$0..<($0 + 4)] }
            #expect(differing.count == 0, "seed \(seed), round \(round): \(differing.count) pixels differ, first at pixel \(differing.first.map { $0 / 4 } ?? 0)")
            #expect(renderer.instanceBytesWritten - before == kinds.map(Self.bytes).reduce(0, +), "round \(round)")
            #expect(renderer.instancesWritten - instancesBefore == kinds.map(Self.instances).reduce(0, +))
        }
        #expect(Set(kinds).count > 5, "the scene mixes kinds")
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
        #expect(alone.validationMessages.isEmpty, "\(alone.validationMessages)")
    }

    /// Patched lists by hand over a scene of every kind in turn: the slot's ring holds the list
    /// of two frames before; a frame that moves a nine-slice image, a many-stop gradient and a
    /// mesh writes 48 bytes (the motion part) per instance of theirs, and one that recolors a
    /// bordered rect and a shadow writes their strides — at their places among the other
    /// strides, so the pixels equal those of each item drawn alone.
    @Test func patchedFramesWriteTheirItemsBytesInPlace() throws {
        var meshes = MeshCache()
        let renderer = try makeRenderer(width: Self.size, height: Self.size)
        let alone = try makeRenderer(width: Self.size, height: Self.size)
        alone.reusesWork = false
        let all = Kind.allCases
        // Every kind in runs of two.
        let kinds = (0..<(Self.columns * Self.columns)).map { all[($0 / 2 * 5) % all.count] }
        var nudges = [Double](repeating: 0, count: kinds.count)
        var tints = kinds.indices.map { Double($0) / 64 }
        func list(serial: UInt64, base: UInt64?, whole: [Int], moved: [Int]) throws -> DrawList {
            let items = try kinds.enumerated().map { index, kind in
                try Self.item(kind, cell: index, tint: tints[index], nudge: nudges[index], meshes: &meshes)
            }
            var list = DrawList(width: Self.size, height: Self.size, clearColor: Self.background, items: items,
                                clips: Self.clips)
            list.serial = serial
            let changed = (whole + moved).sorted().map { $0..<($0 + 1) }
            list.delta = base.map { FrameDelta(base: $0, rewritten: changed, motionOnly: moved.sorted().map { $0..<($0 + 1) },
                                                   hasMarkers: false) }
            return list
        }
        func draw(_ list: DrawList) throws -> Int {
            let before = renderer.instanceBytesWritten
            try renderer.render(list)
            let pixels = try renderer.readPixels()
            #expect(pixels == (try Self.expected(list.items, alone: alone)), "list \(list.serial)")
            return renderer.instanceBytesWritten - before
        }
        let everything = kinds.map(Self.bytes).reduce(0, +)
        #expect(try draw(try list(serial: 1, base: nil, whole: [], moved: [])) == everything)
        #expect(try draw(try list(serial: 2, base: 1, whole: [], moved: [])) == everything)  // the other slot: empty
        // Moved a pixel right: a nine-slice image, a many-stop gradient, a mesh.
        let moved = [kinds.firstIndex(of: .nineSlice)!, kinds.firstIndex(of: .manyStops)!, kinds.firstIndex(of: .mesh)!]
        for index in moved { nudges[index] = 1 }
        #expect(try draw(try list(serial: 3, base: 2, whole: [], moved: moved)) == 48 * (9 + 2 + 1))
        // Recolored: a bordered rect and a shadow (the slot holds list 2: list 3's moves too).
        let recolored = [kinds.firstIndex(of: .bordered)!, kinds.lastIndex(of: .shadow)!]
        for index in recolored { tints[index] = 1 - tints[index] }
        #expect(try draw(try list(serial: 4, base: 3, whole: recolored, moved: [])) == 48 * (9 + 2 + 1) + 8 * 16 + 9 * 16)
        #expect(renderer.framesPatched == 2)
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
