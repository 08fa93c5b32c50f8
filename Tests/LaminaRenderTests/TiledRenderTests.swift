#if canImport(Glibc)
import Glibc
#endif
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaModel
import LaminaPNG
import LaminaTree
import Testing
import TestSupport
@testable import LaminaRender

/// A tiled layer over a 4096 × 4096 PNG generated here (decoded region by region by the tile
/// store's worker), rendered at several zooms once its tiles are ready, against the pattern's
/// formula evaluated at each device pixel's centre (an independent reference: the pattern is
/// smooth — periods of 450 and 600 pixels — so the box filters of the levels and the GPU's
/// bilinear sampling change it by far less than the rule allows).
@Suite("Tiled layers rendered")
struct TiledRenderTests {
    static let side = 4096
    static let tolerance = PixelTolerance.independent(mean: 1, percent: 0.5, threshold: 64)

    /// The pattern at image position (u, v) (pixel i's centre is u = i + 0.5).
    static func pattern(_ u: Double, _ v: Double) -> (Double, Double, Double) {
        (128 + 100 * sin(2 * .pi * u / 600), 128 + 100 * sin(2 * .pi * v / 450),
         40 + 170 * (u + v) / Double(2 * side))
    }

    /// Writes the pattern PNG once per process (64 MiB of pixels; not committed).
    static let path: String = {
        let path = "/tmp/lamina-tiled-\(getpid()).png"
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        let rows = (0..<side).map { pattern(Double($0) + 0.5, Double($0) + 0.5) }
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<side {
                let g = UInt8(rows[y].1.rounded())
                for x in 0..<side {
                    let i = (y * side + x) * 4
                    p[i] = UInt8(rows[x].0.rounded())
                    p[i + 1] = g
                    p[i + 2] = UInt8((40 + 170 * (Double(x + y) + 1) / Double(2 * side)).rounded())
                }
            }
        }
        try! PNG.write(RGBAImage(width: side, height: side, pixels: pixels), path: path)
        return path
    }()

    /// The expected image: the layer's frame (ox, oy, side·z, side·z), device pixel (X, Y)
    /// shows the pattern at ((X + ½ − ox) / z, (Y + ½ − oy) / z).
    static func expected(width: Int, height: Int, ox: Double, oy: Double, zoom z: Double) -> RGBAImage {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pattern((Double(x) + 0.5 - ox) / z, (Double(y) + 0.5 - oy) / z)
                let i = (y * width + x) * 4
                pixels[i] = UInt8(r.rounded()); pixels[i + 1] = UInt8(g.rounded()); pixels[i + 2] = UInt8(b.rounded())
            }
        }
        return RGBAImage(width: width, height: height, pixels: pixels)
    }

    func tree(ox: Double, oy: Double, zoom: Double, bias: Double) throws -> LayerTree {
        let s = Double(Self.side) * zoom
        return try TestScene.tree(TestScene.layer(1, .tiled, frame: Rect(ox, oy, s, s), [
            ("contents", .string("big")), ("levelsOfDetail", .number(6)), ("levelsOfDetailBias", .number(bias)),
        ]))
    }

    @Test(arguments: [(1.0, -1000.3, -2000.6, 0.0), (0.25, -300.5, -100.25, 0.0), (0.1, -20, -30, 0.0),
                      (2.0, -3000, -5000, 1.0), (3.0, -4000.5, -7000, 0.0)])
    func zoomsMatchThePattern(zoom: Double, ox: Double, oy: Double, bias: Double) throws {
        let compositor = try HeadlessCompositor(widthPoints: 160, heightPoints: 160, scale: 1, background: .black)
        compositor.tileSources = ["big": try TileSource(pngFile: Self.path)]
        let pixels = try compositor.render(try tree(ox: ox, oy: oy, zoom: zoom, bias: bias))
        let actual = RGBAImage(width: 160, height: 160, pixels: pixels)
        let comparison = PixelComparator.compare(actual, Self.expected(width: 160, height: 160, ox: ox, oy: oy, zoom: zoom),
                                                 tolerance: Self.tolerance)
        #expect(comparison.passed, "zoom \(zoom): \(comparison)")
        #expect(compositor.tileStore.residentBytes <= TileStore.defaultBudget)
    }

    /// The first frame over a file nobody has decoded yet shows nothing of it (and takes no
    /// longer than a frame: the worker starts after it); once the worker is done the tiles fade
    /// in over fadeDuration, frames pending until they are in.
    @Test func firstFrameDoesNotWait() throws {
        var builder = DrawListBuilder(widthPoints: 160, heightPoints: 160, scale: 1, background: .black)
        builder.tileSources = ["big": try TileSource(pngFile: Self.path)]
        builder.tileStore = TileStore()
        let tree = try tree(ox: 0, oy: 0, zoom: 1, bias: 0)
        let clock = ContinuousClock()
        let start = clock.now
        var list = builder.build(tree)
        #expect(clock.now - start < .milliseconds(500))
        #expect(!list.items.contains { if case .image = $0.kind { true } else { false } })
        #expect(builder.tilesPending)
        #expect(builder.tileStore.waitUntilIdle(seconds: 60))
        // Ready: first shown at 10, fading in from nothing (fadeDuration 0.25) — full at 10.25.
        builder.time = 10
        list = builder.build(tree)
        #expect(!list.items.contains { if case .image = $0.kind { true } else { false } })
        builder.time = 10.125
        list = builder.build(tree)
        #expect(list.items.contains { if case .image = $0.kind { true } else { false } })
        #expect(list.items.allSatisfy { if case .image = $0.kind { abs($0.opacity - 0.5) < 1e-9 } else { true } })
        #expect(builder.tilesPending)
        builder.time = 10.25
        list = builder.build(tree)
        #expect(list.items.allSatisfy { if case .image = $0.kind { $0.opacity == 1 } else { true } })
        #expect(!builder.tilesPending)
    }

    /// A truncated PNG: the header opens, the rows fail; the error names the file and the
    /// daemon side carries on (nothing drawn for it).
    @Test func truncatedFile() throws {
        let bytes = try PNG.encode(RGBAImage(width: 512, height: 512, pixels: [UInt8](repeating: 200, count: 512 * 512 * 4)))
        let path = "/tmp/lamina-tiled-cut-\(getpid()).png"
        guard let f = fopen(path, "wb") else { return }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, min($0.count, 120), f) }
        fclose(f)
        let source = try TileSource(pngFile: path)
        var builder = DrawListBuilder(widthPoints: 64, heightPoints: 64, scale: 1, background: .black)
        builder.tileSources = ["big": source]
        let tree = try TestScene.tree(TestScene.layer(1, .tiled, frame: Rect(0, 0, 512, 512), [("contents", .string("big"))]))
        _ = builder.build(tree)
        #expect(builder.tileStore.waitUntilIdle(seconds: 30))
        let error = try #require(builder.tileStore.error(source))
        #expect(error.message.contains(path))
        let list = builder.build(tree)
        #expect(!list.items.contains { if case .image = $0.kind { true } else { false } })
    }
}
