import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaTree

/// A compositor without a daemon or threads, for `laminactl render` and tests: it renders a
/// presentation tree into an offscreen image on the calling thread through the same draw
/// list builder and Vulkan renderer as the daemon's render thread.
///
/// Not thread-safe: use it from the thread that made it (its Vulkan objects stay there).
public final class HeadlessCompositor {
    public let renderer: OffscreenRenderer
    private var builder: DrawListBuilder

    /// - Throws: `RenderError` when no Vulkan device can be opened.
    public init(widthPoints: Double, heightPoints: Double, scale: Double, background: Color) throws(RenderError) {
        builder = DrawListBuilder(widthPoints: widthPoints, heightPoints: heightPoints, scale: scale, background: background)
        renderer = try OffscreenRenderer(width: max(1, builder.pixelWidth), height: max(1, builder.pixelHeight))
        builder.fadesTiles = false  // a still: ready tiles at full strength
        builder.rasterizesNewShapes = renderer.driverProfile.rasterizesNewShapes   // as the daemon's frame driver
    }

    /// Tiled layers' file-backed sources (a scene's PNG images, read region by region), by name.
    public var tileSources: [String: TileSource] {
        get { builder.tileSources }
        set { builder.tileSources = newValue }
    }

    /// The tiles' store (its budget, what it holds).
    public var tileStore: TileStore {
        get { builder.tileStore }
        set { builder.tileStore = newValue }
    }

    /// A tile source for each PNG file of a scene's `images` (header read only), so tiled layers
    /// show them at any size; files that are not PNG are left out.
    public static func loadTileSources(_ files: [String: String]) -> [String: TileSource] {
        var sources: [String: TileSource] = [:]
        for (name, path) in files { sources[name] = try? TileSource(pngFile: path) }
        return sources
    }

    /// The images layers' `contents` may name (a scene's `images`, decoded).
    public var images: [String: Image] {
        get { builder.images }
        set { builder.images = newValue }
    }

    /// Decodes a scene's `images` (name → file); the error names the image and its file.
    public static func loadImages(_ files: [String: String], data: [String: [UInt8]] = [:],
                                  limits: ImageLimits = .standard) throws(ImageError) -> [String: Image] {
        var images: [String: Image] = [:]
        for (name, bytes) in data.sorted(by: { $0.key < $1.key }) {
            do { images[name] = try ImageDecoder.decode(bytes, limits: limits) } catch {
                throw ImageError(error.kind, "image \"\(name)\": \(error.message)")
            }
        }
        for (name, path) in files.sorted(by: { $0.key < $1.key }) {
            do { images[name] = try ImageDecoder.read(path: path, limits: limits) } catch {
                // Too large to decode whole: left to tiled layers (`loadTileSources`).
                if error.kind == .tooLarge, (try? TileSource(pngFile: path)) != nil { continue }
                throw ImageError(error.kind, "image \"\(name)\": \(error.message)")
            }
        }
        return images
    }

    /// Whether a filter group that is one blurred rounded rect draws by its closed form
    /// (`DrawListBuilder.drawsAnalyticBlurs`, on by default).
    public var drawsAnalyticBlurs: Bool {
        get { builder.drawsAnalyticBlurs }
        set { builder.drawsAnalyticBlurs = newValue }
    }

    /// Whether a layer masked by one shape drawn from coverage is one item
    /// (`DrawListBuilder.drawsMasksFromCoverage`, on unless `LAMINA_MASK_COVERAGE=0`).
    public var drawsMasksFromCoverage: Bool {
        get { builder.drawsMasksFromCoverage }
        set { builder.drawsMasksFromCoverage = newValue }
    }

    public var pixelWidth: Int { builder.pixelWidth }
    public var pixelHeight: Int { builder.pixelHeight }

    /// Renders a presentation tree (`LayerTree.presentation(at:)`) and returns straight-alpha
    /// RGBA8 pixels, rows top to bottom. `time`: the compositor time the tree was presented
    /// at (`presentation(at:)`), which emitters' particles and contents cross-fades read.
    /// Tiled layers are drawn once their tiles are ready (made on the store's worker, waited
    /// for here: a still, not a frame of the daemon).
    public func render(_ presentation: LayerTree, at time: Double = 0) throws(RenderError) -> [UInt8] {
        builder.time = time
        var list = builder.build(presentation)
        var rounds = 0
        while builder.tilesPending, rounds < 8 {
            builder.tileStore.waitUntilIdle()
            list = builder.build(presentation)
            rounds += 1
        }
        lastRasterStats = list.rasterStats
        lastPlan = list.plan
        _ = try renderer.render(list)
        return try renderer.readPixels(alpha: .straight)
    }

    /// The automatic raster cache (`DrawListBuilder.rasterizesAutomatically`): off here (a
    /// still is one frame, before any layer is stable); tests turn it on and render again.
    public var rasterizesAutomatically: Bool {
        get { builder.rasterizesAutomatically }
        set { builder.rasterizesAutomatically = newValue }
    }

    /// The automatic raster cache for masked and filtered subtrees
    /// (`DrawListBuilder.rasterizesEffects`): off here, as `rasterizesAutomatically`.
    public var rasterizesEffects: Bool {
        get { builder.rasterizesEffects }
        set { builder.rasterizesEffects = newValue }
    }

    /// What the raster cache did in the last `render`.
    public private(set) var lastRasterStats = RasterStats()
    /// The passes of the last `render`'s draw list.
    public private(set) var lastPlan = FramePlan()
}
