import LaminaFrame
import LaminaGeometry
import LaminaImage
import Testing
import TestSupport
@testable import LaminaRender

/// GPU images: uploaded once and shared by every item showing them, freed (through the
/// LifetimeTracker, so the device's live objects come back down) once no item has drawn them
/// for `ImageResidency.idleFrames` frames; pixels through the textured path by hand.
@Suite struct ImageResidencyTests {
    /// A 2 × 2 image: red, green / blue, half-transparent white (premultiplied).
    static func checker() throws -> Image {
        try ImageDecoder.raw([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 128, 128, 128, 128], width: 2, height: 2)
    }

    static func item(_ image: Image, at origin: Point, size: Double = 8, filter: ImageDraw.Filter = .nearest,
                     opacity: Double = 1) -> DrawItem {
        let bounds = Rect(0, 0, size, size)
        let geometry = ContentsGeometry(bounds: bounds, imageWidth: image.width, imageHeight: image.height,
                                        gravity: .resize, contentsRect: Rect(0, 0, 1, 1),
                                        contentsCenter: Rect(0, 0, 1, 1), contentsScale: 1)!
        return DrawItem(transform: .translation(origin.x, origin.y), bounds: bounds, backgroundColor: .clear,
                        opacity: opacity,
                        kind: .image(ImageDraw(image: image, geometry: geometry, minification: filter, magnification: filter)))
    }

    @Test func nearestMagnificationCopiesTexels() throws {
        // 2 × 2 texels drawn 8 × 8 at (4, 4): each texel a 4 × 4 block; black background.
        let image = try Self.checker()
        let pixels = try renderImage(DrawList(width: 16, height: 16, clearColor: Color(0, 0, 0), items: [
            Self.item(image, at: Point(4, 4)),
        ]))
        func px(_ x: Int, _ y: Int) -> [Int] { let p = pixels[x, y]; return [Int(p.0), Int(p.1), Int(p.2), Int(p.3)] }
        #expect(px(5, 5) == [255, 0, 0, 255])
        #expect(px(10, 5) == [0, 255, 0, 255])
        #expect(px(5, 10) == [0, 0, 255, 255])
        // 50 % white over opaque black: 128 + 0 × (1 − 0.5).
        #expect(px(10, 10) == [128, 128, 128, 255])
        #expect(px(2, 2) == [0, 0, 0, 255])
        #expect(px(13, 13) == [0, 0, 0, 255])
    }

    /// A 64 × 64 image of white columns every 4 pixels (x % 4 == 0) on black, drawn 4 × 4
    /// (16:1). Nearest samples texel 8 (white: 255); linear without mipmaps blends texels 7 and 8
    /// (128); trilinear reads mip level 4, where every texel averages a quarter white (64).
    @Test(arguments: [(ImageDraw.Filter.nearest, 255), (.linear, 128), (.trilinear, 64)])
    func filtersWhenMinifying(filter: ImageDraw.Filter, expected: Int) throws {
        var bytes: [UInt8] = []
        for _ in 0..<64 {
            for x in 0..<64 { bytes += x % 4 == 0 ? [255, 255, 255, 255] : [0, 0, 0, 255] }
        }
        let image = try ImageDecoder.raw(bytes, width: 64, height: 64)
        let pixels = try renderImage(DrawList(width: 8, height: 8, clearColor: Color(1, 0, 0), items: [
            Self.item(image, at: Point(2, 2), size: 4, filter: filter),
        ]))
        for y in 2..<6 {
            for x in 2..<6 {
                let p = pixels[x, y]
                #expect(abs(Int(p.0) - expected) <= 2 && p.0 == p.1 && p.1 == p.2, "(\(x), \(y)): \(p)")
            }
        }
    }

    /// An A8 image (coverage 255, 128 / 0, 64) in coverage mode with a red color: red × coverage.
    @Test func coverageModeDrawsAnA8ImageInAColor() throws {
        let atlas = Image(width: 2, height: 2, format: .a8, pixels: [255, 128, 0, 64])
        var item = Self.item(atlas, at: Point(4, 4))
        guard case .image(var draw) = item.kind else { return }
        draw.mode = .coverage(Color(1, 0, 0))
        item.kind = .image(draw)
        let pixels = try renderImage(DrawList(width: 16, height: 16, clearColor: .clear, items: [item]))
        for (x, y, a) in [(5, 5, 255), (10, 5, 128), (5, 10, 0), (10, 10, 64)] {
            let p = pixels[x, y]
            #expect([Int(p.0), Int(p.1), Int(p.2), Int(p.3)] == [a, 0, 0, a], "(\(x), \(y))")
        }
    }

    @Test func halfOpacityHalvesEveryChannel() throws {
        let image = try Self.checker()
        let pixels = try renderImage(DrawList(width: 16, height: 16, clearColor: .clear, items: [
            Self.item(image, at: Point(4, 4), opacity: 0.5),
        ]))
        let p = pixels[5, 5]
        #expect(abs(Int(p.0) - 128) <= 1 && p.1 == 0 && p.2 == 0 && abs(Int(p.3) - 128) <= 1)
    }

    @Test func uploadedOnceSharedAndFreedWhenIdle() throws {
        let renderer = try makeRenderer(width: 32, height: 32)
        renderer.textures.atlasLimit = 0  // textures of their own (ImageAtlasTests: the atlas)
        let image = try Self.checker()
        let other = try Self.checker()
        let shared = DrawList(width: 32, height: 32, items: [
            Self.item(image, at: Point(0, 0)), Self.item(image, at: Point(10, 0), filter: .linear),
            Self.item(other, at: Point(0, 10)),
        ])
        // Two frames: both frame slots have made their buffers.
        try renderer.render(shared)
        try renderer.render(shared)
        _ = try renderer.readPixels()
        let live = renderer.liveObjectCount
        #expect(renderer.imageUploads == 2)
        #expect(renderer.gpuImageCount == 2)
        #expect(renderer.gpuImageBytes == 2 * 16)
        // Drawn again: nothing uploaded, nothing new on the device.
        for _ in 0..<5 { try renderer.render(shared) }
        _ = try renderer.readPixels()
        #expect(renderer.imageUploads == 2)
        #expect(renderer.liveObjectCount == live)
        // Only `image` from now on: `other` goes after idleFrames frames, and its objects (image,
        // memory, its two views: every level and level 0 alone; its descriptor set goes back to
        // its pool) once those frames have finished.
        let one = DrawList(width: 32, height: 32, items: [Self.item(image, at: Point(0, 0))])
        for _ in 0..<(Int(ImageResidency.idleFrames) + 10) { try renderer.render(one) }
        _ = try renderer.readPixels()
        try renderer.render(one)
        _ = try renderer.readPixels()
        #expect(renderer.gpuImageCount == 1)
        #expect(renderer.gpuImageBytes == 16)
        #expect(renderer.imageUploads == 2)
        if live > 0 { #expect(renderer.liveObjectCount == live - 4) }  // debug builds count objects
        #expect(renderer.validationMessages.isEmpty, "\(renderer.validationMessages)")
    }
}
