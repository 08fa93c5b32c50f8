#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaTree
import Testing
import TestSupport

/// Tiled layers (CATiledLayer): level of detail and visible tiles worked out by hand, the
/// builder's items before and after tiles are ready, the coarser fallback, the fade, the
/// memory budget and bad input.
@Suite("Tiled layers")
struct TiledLayerTests {
    /// ℓ = ⌊−log2 scale⌋ clamped to [−bias, levelsOfDetail − 1].
    @Test func levelFromScale() {
        #expect(TiledDrawing.level(scale: 1, levelsOfDetail: 4, bias: 0) == 0)
        #expect(TiledDrawing.level(scale: 0.5, levelsOfDetail: 4, bias: 0) == 1)   // −log2 = 1
        #expect(TiledDrawing.level(scale: 0.3, levelsOfDetail: 4, bias: 0) == 1)   // 1.74
        #expect(TiledDrawing.level(scale: 0.2, levelsOfDetail: 4, bias: 0) == 2)   // 2.32
        #expect(TiledDrawing.level(scale: 0.12, levelsOfDetail: 4, bias: 0) == 3)  // 3.06
        #expect(TiledDrawing.level(scale: 0.12, levelsOfDetail: 3, bias: 0) == 2)  // clamped to levels − 1
        #expect(TiledDrawing.level(scale: 0.01, levelsOfDetail: 1, bias: 0) == 0)  // the default: one level
        #expect(TiledDrawing.level(scale: 2, levelsOfDetail: 4, bias: 0) == 0)     // no magnified level
        #expect(TiledDrawing.level(scale: 2, levelsOfDetail: 4, bias: 2) == -1)    // −log2 2 = −1
        #expect(TiledDrawing.level(scale: 1.5, levelsOfDetail: 4, bias: 2) == -1)  // −0.58
        #expect(TiledDrawing.level(scale: 5, levelsOfDetail: 4, bias: 2) == -2)    // −2.32 → −3, clamped to −2
        // Huge values are clamped, not trusted.
        #expect(TiledDrawing.level(scale: 1e-30, levelsOfDetail: 1e9, bias: 0) == TiledDrawing.maxLevels - 1)
        #expect(TiledDrawing.tileSide(0) == 16 && TiledDrawing.tileSide(1e9) == 4096 && TiledDrawing.tileSide(.nan) == 256)
    }

    /// Device scale: the layer's image pixels per point and the transform's scale.
    @Test func deviceScale() {
        // 2 image pixels per point, the layer scaled by 3 (x) and 0.5 (y): 1.5 and 0.25 → 1.5.
        let m = Transform3D.scale(3, 0.5, 1)
        #expect(abs(TiledDrawing.deviceScale(m, at: Point(10, 10), pixelsPerPoint: 2, 2) - 1.5) < 1e-12)
        // Rotated 90°: lengths unchanged.
        let r = Transform3D.rotation(.pi / 2)
        #expect(abs(TiledDrawing.deviceScale(r, at: Point(0, 0), pixelsPerPoint: 4, 4) - 0.25) < 1e-12)
    }

    /// A 1000 × 600 image in bounds 500 × 300 (2 px per point); in view (100, 50)–(300, 150)
    /// points = pixels x 200…600, y 100…300.
    @Test func visibleTiles() {
        let bounds = Rect(0, 0, 500, 300), visible = Rect(100, 50, 200, 100)
        let l0 = TiledDrawing.tiles(visible: visible, bounds: bounds, width: 1000, height: 600, level: 0,
                                    tileWidth: 256, tileHeight: 256)
        #expect(l0.columns == 0..<3 && l0.rows == 0..<2)  // ⌊200/256⌋…⌈600/256⌉, 0…⌈300/256⌉
        let l1 = TiledDrawing.tiles(visible: visible, bounds: bounds, width: 1000, height: 600, level: 1,
                                    tileWidth: 256, tileHeight: 256)
        #expect(l1.columns == 0..<2 && l1.rows == 0..<1)  // tiles of 512 image pixels
        let magnified = TiledDrawing.tiles(visible: visible, bounds: bounds, width: 1000, height: 600, level: -1,
                                           tileWidth: 256, tileHeight: 256)
        #expect(magnified.columns == 1..<5 && magnified.rows == 0..<3)  // tiles of 128: 200/128 = 1.6 … 600/128 = 4.7
        // The inverse of an affine map: scale 2 and move (−100, 0): device (0…200) is layer 50…150.
        let m = Transform3D.scale(2, 2, 1).concatenating(.translation(-100, 0, 0))
        let v = TiledDrawing.visible(bounds, through: m, in: Rect(0, 0, 200, 100))
        #expect(v == Rect(50, 0, 100, 50))
    }

    static func image(_ width: Int, _ height: Int) -> Image {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                pixels[(y * width + x) * 4] = UInt8(x % 256)
                pixels[(y * width + x) * 4 + 1] = UInt8(y % 256)
            }
        }
        return Image(width: width, height: height, premultipliedPixels: pixels)
    }

    func tiledTree(frame: Rect, _ extra: [(String, PropertyValue)] = []) throws -> LayerTree {
        try TestScene.tree(TestScene.layer(1, .tiled, frame: frame, [("contents", .string("big")),
                                                                   ("tileSize", .size(Size(64, 64)))] + extra))
    }

    static func tileItems(_ list: DrawList) -> [(DrawItem, ImageDraw)] {
        list.items.compactMap { item in if case .image(let d) = item.kind { (item, d) } else { nil } }
    }

    /// Nothing before the tiles are ready (the build does not wait); then one item per tile in
    /// view at the level of the layer's scale; zoomed in, the coarser tiles' parts stand in
    /// until the finer ones are ready; a new tile fades in over fadeDuration.
    @Test func tilesArriveWithoutWaiting() throws {
        var builder = DrawListBuilder(widthPoints: 200, heightPoints: 100, scale: 1, background: .black)
        builder.images = ["big": Self.image(512, 256)]
        builder.tileStore = TileStore()
        // 512 × 256 image in 256 × 128 points: scale 0.5 → level 1 (256 × 128 pixels: 4 × 2 tiles
        // of 64); 200 × 100 in view → columns 0..<4 (200 pt = 400 px → ⌈400/128⌉ = 4), rows 0..<2.
        let tree = try tiledTree(frame: Rect(0, 0, 256, 128), [("levelsOfDetail", .number(3)), ("fadeDuration", .number(1))])
        builder.time = 0
        var list = builder.build(tree)
        #expect(Self.tileItems(list).isEmpty)
        #expect(builder.tilesPending)
        #expect(builder.tileStore.waitUntilIdle(seconds: 30))
        builder.time = 0.25
        list = builder.build(tree)
        // First shown at 0.25: strength 0, nothing under it yet.
        #expect(Self.tileItems(list).isEmpty)
        builder.time = 0.75
        list = builder.build(tree)
        var items = Self.tileItems(list)
        #expect(items.count == 8)
        #expect(items.allSatisfy { abs($0.0.opacity - 0.5) < 1e-9 && $0.1.image.width == 64 && $0.1.image.height == 64 })
        builder.time = 2
        list = builder.build(tree)
        items = Self.tileItems(list)
        #expect(items.count == 8 && items.allSatisfy { $0.0.opacity == 1 })
        #expect(!builder.tilesPending)
        // Level 1 tile (1, 0) holds image pixels 128…256 × 0…128 at half size: pixel (0, 0) is
        // the mean of image pixels (128…129, 0…1): red (128 + 129) / 2 = 128.5 → 129, green 0.5 → 1
        // (blue and alpha 255 throughout).
        let tile = items.first { $0.0.bounds.minX == 64 && $0.0.bounds.minY == 0 }!.1.image
        #expect(tile[0, 0] == (129, 1, 255, 255))
        // Inner sides are sharp (no seam), outer ones anti-aliased.
        let corner = items.first { $0.0.bounds.minX == 0 && $0.0.bounds.minY == 0 }!.1
        #expect(corner.sharpEdges == 4 | 8)

        // Zoom to scale 1 (the layer 512 × 256 points): level 0 not ready → level 1 parts.
        let zoomed = try tiledTree(frame: Rect(0, 0, 512, 256), [("levelsOfDetail", .number(3)), ("fadeDuration", .number(1))])
        list = builder.build(zoomed)
        items = Self.tileItems(list)
        // Level 0 in view: 200 × 100 px → columns 0..<4, rows 0..<2 of 64; each drawn from its level-1 tile's quarter.
        #expect(items.count == 8)
        #expect(items.allSatisfy { $0.1.image.width == 64 && $0.1.geometry.source.width == 0.5 && $0.0.opacity == 1 })
        let second = items.first { $0.0.bounds.minX == 64 && $0.0.bounds.minY == 0 }!.1
        #expect(second.geometry.source == Rect(0.5, 0, 0.5, 0.5))
        #expect(builder.tilesPending)
    }

    /// The tiles kept stay under the budget while the view pans over an image many times the
    /// budget (the tiles in view fit it).
    @Test func memoryStaysUnderBudget() throws {
        var builder = DrawListBuilder(widthPoints: 128, heightPoints: 128, scale: 1, background: .black)
        builder.images = ["big": Self.image(1024, 1024)]  // 4 MiB, 256 tiles of 64 × 64 (16 KiB)
        let budget = 40 * 64 * 64 * 4  // 40 tiles; a view needs at most 9 (+ their band's neighbours)
        builder.tileStore = TileStore(budgetBytes: budget)
        builder.fadesTiles = false
        for step in 0..<8 {
            let tree = try tiledTree(frame: Rect(-Double(step) * 110, -Double(step) * 110, 1024, 1024))
            _ = builder.build(tree)
            builder.tileStore.waitUntilIdle(seconds: 30)
            let list = builder.build(tree)
            #expect(!Self.tileItems(list).isEmpty)
            #expect(builder.tileStore.residentBytes <= budget)
        }
        #expect(builder.tileStore.tilesMade > 40)  // more made than kept: eviction ran
        #expect(builder.tileStore.peakBytes <= budget + 16 * 64 * 64 * 4)  // at most one band over, for a moment
    }

    /// A file that is missing or not a PNG is an error naming it.
    @Test func badSources() {
        #expect { try TileSource(pngFile: "/nonexistent/big.png") } throws: { e in
            (e as? ImageError)?.message.contains("/nonexistent/big.png") == true
        }
        let path = "/tmp/lamina-tiled-not-png-\(getpid()).png"
        FileManagerless.write(path, [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect { try TileSource(pngFile: path) } throws: { e in
            (e as? ImageError)?.kind == .unsupported && (e as? ImageError)?.message.contains("not a PNG") == true
        }
    }
}

/// A file written with the C library (no Foundation here).
enum FileManagerless {
    static func write(_ path: String, _ bytes: [UInt8]) {
        guard let f = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
    }
}
