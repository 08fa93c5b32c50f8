import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaPNG
import Testing
import TestSupport
@testable import LaminaRender

/// The small-image atlas (`ImageAtlas`): its shelf packing, and small images drawn from shared
/// pages — one draw for consecutive items showing different images, the same pixels as images
/// of their own (edges with contrasting neighbours), entries freed when idle and their space
/// reused, empty pages freed.
@Suite struct ImageAtlasTests {
    @Test func shelfPackingPlacesFreesAndReuses() {
        var packer = ShelfPacker(size: 64)
        // Heights round up to multiples of 4: 10 → a 12-row shelf at y 0.
        #expect(packer.allocate(width: 20, height: 10)! == (0, 0))
        #expect(packer.allocate(width: 20, height: 9)! == (20, 0))
        #expect(packer.allocate(width: 20, height: 12)! == (40, 0))
        // No room left on the shelf (4 columns): a new shelf below it.
        #expect(packer.allocate(width: 8, height: 8)! == (0, 12))
        #expect(packer.top == 20)
        // A short image does not take a tall shelf's room (12 > 2 × 3 + 4): its own shelf.
        #expect(packer.allocate(width: 4, height: 3)! == (8, 12))
        #expect(packer.allocate(width: 60, height: 5)! == (0, 20))
        #expect(packer.top == 28)
        // The middle span freed: too narrow for 30 (a new shelf), taken again by 20.
        packer.free(x: 20, y: 0, width: 20)
        #expect(packer.allocate(width: 30, height: 10)! == (0, 28))
        #expect(packer.allocate(width: 20, height: 10)! == (20, 0))
        // Two neighbours freed: one span of 40.
        packer.free(x: 0, y: 0, width: 20)
        packer.free(x: 20, y: 0, width: 20)
        #expect(packer.allocate(width: 30, height: 10)! == (0, 0))
        // Too wide, or no rows left.
        #expect(packer.allocate(width: 65, height: 1) == nil)
        #expect(packer.allocate(width: 64, height: 40) == nil)
        // Everything freed: the shelves go and the rows come back.
        packer.free(x: 0, y: 20, width: 60)
        packer.free(x: 0, y: 12, width: 8)
        packer.free(x: 8, y: 12, width: 4)
        packer.free(x: 0, y: 0, width: 30)
        packer.free(x: 40, y: 0, width: 20)
        #expect(packer.top == 40)
        packer.free(x: 0, y: 28, width: 30)
        #expect(packer.top == 0)
        #expect(packer.shelves.isEmpty)
        #expect(packer.allocate(width: 64, height: 64)! == (0, 0))
    }

    /// A `size` × `size` image of one opaque color.
    static func solid(_ rgb: (UInt8, UInt8, UInt8), size: Int = 3) throws -> Image {
        try ImageDecoder.raw((0..<(size * size)).flatMap { _ in [rgb.0, rgb.1, rgb.2, 255] }, width: size, height: size)
    }

    static func item(_ image: Image, at origin: Point, size: Double, filter: ImageDraw.Filter = .linear) -> DrawItem {
        ImageResidencyTests.item(image, at: origin, size: size, filter: filter)
    }

    /// Four 3 × 3 images of one color each (red, green, blue, white: packed side by side, each
    /// the others' neighbour), drawn 12 × 12 (linear, magnified 4×) one after another: one
    /// atlas page, four entries, one draw; and every pixel inside each layer is exactly its
    /// image's color — a neighbour's texel read at an edge would mix another color in.
    @Test func neighboursDoNotBleedAndShareOneDraw() throws {
        let colors: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
        let images = try colors.map { try Self.solid($0) }
        let renderer = try makeRenderer(width: 64, height: 16)
        let list = DrawList(width: 64, height: 16, clearColor: Color(0, 0, 0), items: images.enumerated().map { k, image in
            Self.item(image, at: Point(Double(2 + 16 * k), 2), size: 12)
        })
        try renderer.render(list)
        let pixels = RGBAImage(width: 64, height: 16, pixels: try renderer.readPixels())
        #expect(renderer.imageAtlasEntries == 4)
        #expect(renderer.imageAtlasPages == 1)
        #expect(renderer.imageAtlasBytes == 4 * 9 * 4)
        let slot = renderer.encoders.firstIndex { !$0.draws.isEmpty }
        #expect(slot.map { renderer.encoders[$0].draws.count } == 1, "one instanced draw for the four images")
        for (k, c) in colors.enumerated() {
            for y in 2..<14 {
                for x in (2 + 16 * k)..<(14 + 16 * k) {
                    let p = pixels[x, y]
                    #expect(p.0 == c.0 && p.1 == c.1 && p.2 == c.2 && p.3 == 255, "image \(k) at (\(x), \(y)): \(p)")
                }
            }
        }
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }

    /// The same four images minified (3 × 3 texels onto 2 × 2 pixels, linear: level 0's bilinear
    /// taps reach the edge texels) and drawn with a contentsRect of each one's right column
    /// (magnified, its outer edge the image's): still exactly each image's color.
    @Test func edgesHoldWhenMinifiedAndCut() throws {
        let colors: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
        let images = try colors.map { try Self.solid($0) }
        var items: [DrawItem] = []
        for (k, image) in images.enumerated() {
            items.append(Self.item(image, at: Point(Double(2 + 16 * k), 2), size: 2))
            let bounds = Rect(0, 0, 8, 8)
            let geometry = ContentsGeometry(bounds: bounds, imageWidth: 3, imageHeight: 3, gravity: .resize,
                                            contentsRect: Rect(2.0 / 3, 0, 1.0 / 3, 1), contentsCenter: Rect(0, 0, 1, 1),
                                            contentsScale: 1)!
            items.append(DrawItem(transform: .translation(Double(6 + 16 * k), 6), bounds: bounds, backgroundColor: .clear,
                                  kind: .image(ImageDraw(image: image, geometry: geometry))))
        }
        let pixels = try renderImage(DrawList(width: 64, height: 16, clearColor: Color(0, 0, 0), items: items))
        for (k, c) in colors.enumerated() {
            for (x0, y0, side) in [(2 + 16 * k, 2, 2), (6 + 16 * k, 6, 8)] {
                for y in y0..<(y0 + side) {
                    for x in x0..<(x0 + side) {
                        let p = pixels[x, y]
                        #expect(p.0 == c.0 && p.1 == c.1 && p.2 == c.2 && p.3 == 255, "image \(k) at (\(x), \(y)): \(p)")
                    }
                }
            }
        }
    }

    /// Entries no item has drawn for `idleFrames` frames are freed and their space reused; a
    /// page left empty is freed with its objects; trilinear and large images keep textures of
    /// their own.
    @Test func idleEntriesFreedSpaceReusedPagesFreed() throws {
        let renderer = try makeRenderer(width: 32, height: 32)
        let a = try Self.solid((255, 0, 0)), b = try Self.solid((0, 255, 0)), c = try Self.solid((0, 0, 255))
        let large = try Self.solid((9, 9, 9), size: ImageAtlas.maxSide + 1)
        let both = DrawList(width: 32, height: 32, items: [Self.item(a, at: Point(0, 0), size: 8),
                                                          Self.item(b, at: Point(10, 0), size: 8)])
        try renderer.render(both)
        try renderer.render(both)
        _ = try renderer.readPixels()
        let live = renderer.liveObjectCount
        let placeOfB = try #require(renderer.textures.atlas.entry(b.id))
        #expect((placeOfB.x, placeOfB.y) == (3, 0))
        // Only `a` from now on: `b` goes; `c`, placed afterwards, takes its place.
        let one = DrawList(width: 32, height: 32, items: [Self.item(a, at: Point(0, 0), size: 8)])
        for _ in 0..<(Int(ImageResidency.idleFrames) + 10) { try renderer.render(one) }
        #expect(renderer.imageAtlasEntries == 1)
        try renderer.render(DrawList(width: 32, height: 32, items: [
            Self.item(a, at: Point(0, 0), size: 8), Self.item(c, at: Point(10, 0), size: 8),
        ]))
        let placeOfC = try #require(renderer.textures.atlas.entry(c.id))
        #expect((placeOfC.x, placeOfC.y) == (3, 0))
        let pixels = RGBAImage(width: 32, height: 32, pixels: try renderer.readPixels())
        #expect(pixels[14, 4].0 == 0 && pixels[14, 4].2 == 255, "c drawn from b's old place: \(pixels[14, 4])")
        #expect(renderer.imageAtlasPlacements == 3)
        // Trilinear and large images: textures of their own.
        let own = DrawList(width: 32, height: 32, items: [Self.item(a, at: Point(0, 0), size: 8, filter: .trilinear),
                                                         Self.item(large, at: Point(10, 0), size: 8)])
        try renderer.render(own)
        #expect(renderer.textures.textures.count == 2)
        #expect(renderer.imageAtlasEntries == 2)
        // Nothing from the atlas any more: its entries and then its page go.
        for _ in 0..<(Int(ImageResidency.idleFrames) + 10) { try renderer.render(own) }
        _ = try renderer.readPixels()
        try renderer.render(own)
        _ = try renderer.readPixels()
        #expect(renderer.imageAtlasEntries == 0)
        #expect(renderer.imageAtlasPages == 0)
        // (Debug builds count objects: the page's image, memory and view went; the two own
        // textures came, 4 objects each: image, memory, two views.)
        if live > 0 { #expect(renderer.liveObjectCount == live - 3 + 8) }
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
