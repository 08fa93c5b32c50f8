import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaImage
import LaminaRender
import LaminaTree
import LaminaModel

/// `lamina-bench frames [--layers N] [--size WxH] [--seconds S] [--mix KIND] [--drive animations|commits]`:
/// the render thread's work per
/// frame, offscreen through the real Vulkan device (lavapipe without a GPU), on the real clock,
/// unpaced (as fast as frames go) so that fps is the reachable rate.
///
/// The scene: N layers in a grid, a mix of plain layers (40 %), rounded layers with a border
/// and a shadow (25 %), shape layers with a fill and a stroke (20 %, three shared paths) and
/// axial gradient layers (15 %). Each layer's position, rotation and opacity animate: by
/// default (`--drive animations`) through explicit repeating animations evaluated into the
/// presentation tree each frame, as the render thread does with no client taking part; with
/// `--drive commits`, by one commit a frame that sets the 3 properties of every layer, as a
/// client driving its own motion would. The draw list is built from the presentation tree and
/// rendered.
///
/// `LAMINA_SHAPE_ATLAS=0` draws shapes from their meshes every frame (no shape atlas).
/// `LAMINA_BENCH_RASTERIZE=1` sets `shouldRasterize` on every top-level layer (each drawn from
/// the raster cache while only its position, rotation and opacity move); the JSON's `raster`
/// gives the cache's hits, misses and evictions summed over the measured frames, its entries
/// (`auto_entries`: the automatic cache's) and atlas bytes at the last frame.
/// `LAMINA_BENCH_RASTER_AUTO=1` turns the automatic raster cache on (off by default, as the
/// frame driver has it); `LAMINA_BENCH_RASTER_EFFECTS=0` turns its part for masked and
/// filtered subtrees off (on, as the daemon has it).
/// `LAMINA_BENCH_IMAGE_ATLAS=0` gives every image a texture of its own (the small-image atlas
/// off); the JSON's `image_atlas` gives the atlas' placements, entries, pages and entry bytes,
/// `draws_last_frame` the draws the last frame issued.
/// `LAMINA_BENCH_OVERLAYS=inspector|blended|all` draws the viewer's inspector (the pointer at
/// the canvas centre, the layer there pinned: outline, label and panel each frame), its
/// blended-layers view, or both over every frame, as the render loop does while they are on.
///
/// Prints JSON: fps, frame-interval p50/p99 in ms, mean CPU ms per phase, CPU ms per frame
/// (everything but waiting for the GPU) p50/p99, GPU wait and GPU time. The phases are wall
/// times: on a machine with few cores lavapipe's rasterizer threads, busy with the frames
/// before, share the cores with them. `render_thread_cpu_ms` is the render thread's own CPU
/// time from evaluation to submission (p50/p99; waiting for the GPU sleeps, counting nothing),
/// and its p50 per part (`render_thread_cpu_ms_p50_parts`: evaluation, draw list, render).
func runFramesBench(_ arguments: [String]) {
    let bench = SceneBench("frames", arguments, layers: 1000,
                           accepting: ["--layers", "--size", "--seconds", "--mix", "--drive"])
    let (layers, width, height, seconds, mix, drive) = (bench.layers, bench.width, bench.height, bench.seconds,
                                                        bench.mix, bench.drive)
    func fail(_ message: String) -> Never { bench.fail(message) }

    // The scene.
    var tree = bench.makeTree()
    let rasterize = ProcessInfo.processInfo.environment["LAMINA_BENCH_RASTERIZE"] == "1"
    if rasterize, let top = tree[.clientRoot(1)]?.sublayers {
        let ops: [LayerChange] = top.map { .set($0.local, keyPath: "shouldRasterize", value: .bool(true)) }
        do { try tree.apply(Commit(client: 1, content: .operations(ops))) } catch { fail("rasterize: \(error)") }
    }
    var rasterTotals = RasterStats()
    var presentation = LayerTree()
    var builder = bench.makeBuilder()
    // LAMINA_SHAPE_ATLAS=0: shapes always drawn from their meshes (to compare in one build).
    builder.usesShapeAtlas = ProcessInfo.processInfo.environment["LAMINA_SHAPE_ATLAS"] != "0"
    // LAMINA_PREFETCH=0: the frame's loops prefetch nothing (`DriverProfile.prefetches` off).
    builder.prefetches = ProcessInfo.processInfo.environment["LAMINA_PREFETCH"] != "0"
    tree.prefetches = builder.prefetches
    // LAMINA_BENCH_BATCHES=0: every offscreen group in passes of its own (`FramePlanner.batches` off).
    builder.batchesGroups = ProcessInfo.processInfo.environment["LAMINA_BENCH_BATCHES"] != "0"
    // LAMINA_BENCH_BACKDROP_COPY=0: background filters draw the steps so far again into their
    // backdrop image instead of copying it out of the cut pass (`FramePlanner.copiesBackdrops` off).
    builder.copiesBackdrops = ProcessInfo.processInfo.environment["LAMINA_BENCH_BACKDROP_COPY"] != "0"
    // LAMINA_BENCH_SHAPE_MASKS=0: every mask an offscreen group (`DrawListBuilder.clipsShapeMasks` off).
    builder.clipsShapeMasks = ProcessInfo.processInfo.environment["LAMINA_BENCH_SHAPE_MASKS"] != "0"
    // LAMINA_BENCH_RASTER_AUTO=1: the automatic raster cache on (off, as the frame driver has it).
    builder.rasterizesAutomatically = ProcessInfo.processInfo.environment["LAMINA_BENCH_RASTER_AUTO"] == "1"
    // LAMINA_BENCH_RASTER_EFFECTS=0: masked and filtered subtrees drawn directly (on, as the daemon has it).
    builder.rasterizesEffects = ProcessInfo.processInfo.environment["LAMINA_BENCH_RASTER_EFFECTS"] != "0"
    let renderer: OffscreenRenderer
    do { renderer = try OffscreenRenderer(width: width, height: height, validation: false) } catch { fail("\(error)") }
    // LAMINA_BENCH_IMAGE_ATLAS=0: every image a texture of its own (the small-image atlas off).
    if ProcessInfo.processInfo.environment["LAMINA_BENCH_IMAGE_ATLAS"] == "0" { renderer.imageAtlasLimit = 0 }
    // Shapes the atlas does not take drawn from coverage made in the frame where the daemon does
    // (a CPU rasterizer; LAMINA_FRAME_COVERAGE=0: their meshes, as before).
    builder.rasterizesNewShapes = renderer.driverProfile.rasterizesNewShapes
    let overlayName = ProcessInfo.processInfo.environment["LAMINA_BENCH_OVERLAYS"] ?? "none"
    let overlaySettings: OverlaySettings
    switch overlayName {
    case "none": overlaySettings = OverlaySettings()
    case "inspector": overlaySettings = OverlaySettings(inspector: true)
    case "blended": overlaySettings = OverlaySettings(blendedLayers: true)
    case "all": overlaySettings = OverlaySettings(inspector: true, blendedLayers: true)
    default: fail("LAMINA_BENCH_OVERLAYS=inspector|blended|all")
    }
    var overlays = FrameOverlays()
    let centre = Point(Double(width) / 2, Double(height) / 2)

    var phases: [[Double]] = []   // apply, evaluate, tessellate, upload, record, submit, gpuWait
    var intervals: [Double] = []
    var gpuTimes: [Double] = []
    var threadCPU: [Double] = []  // the render thread's CPU time from evaluation to submission
    var threadParts: [[Double]] = []  // of it: evaluation, draw list, render (upload, record, submit)
    let cpuNow = SceneBench.threadCPUTime
    let start = now()
    var previous = start
    var frameTime = 0.0
    // A short warm-up (first tessellation, ring growth, pipeline first use) is not measured.
    // Then `seconds` of measured frames, at least 5.
    let warmup = 3
    var frame = 0
    var measureStart = start
    while true {
        let t0 = now()
        if frame == warmup { measureStart = t0 }
        if frame >= warmup + 5 && t0 - measureStart > seconds { break }
        frameTime = t0 - start
        if drive == "commits" {
            do {
                try tree.apply(Commit(client: 1, content: .operations(FramesScene.animate(layers: layers, width: width,
                                                                                              height: height, time: frameTime, mix: mix))))
            } catch { fail("animate: \(error)") }
        }
        let t1 = now()
        let c1 = cpuNow()
        // Evaluate the presentation tree at the frame time, as the render thread does.
        tree.updatePresentation(&presentation, at: frameTime)
        let ce = cpuNow()
        var list = builder.build(presentation)
        if !overlaySettings.isEmpty {
            list = overlays.apply(overlaySettings, to: list, presentation: presentation, render: tree, at: frameTime, scale: 1,
                                  pointer: centre, pinned: presentation.hitTest(centre))
        }
        let t2 = now()
        let cb = cpuNow()
        let timing: FrameTiming
        do { timing = try renderer.render(list) } catch { fail("render: \(error)") }
        let c2 = cpuNow()
        if frame >= warmup {
            rasterTotals.hits += list.rasterStats.hits
            rasterTotals.misses += list.rasterStats.misses
            rasterTotals.uncached += list.rasterStats.uncached
            rasterTotals.entries = list.rasterStats.entries
            rasterTotals.autoEntries = list.rasterStats.autoEntries
            rasterTotals.evicted += list.rasterStats.evicted
            rasterTotals.bytes = list.rasterStats.bytes
            threadCPU.append(c2 - c1)
            threadParts.append([ce - c1, cb - ce, c2 - cb])
            phases.append([t1 - t0, t2 - t1 - builder.lastTessellateSeconds, builder.lastTessellateSeconds,
                           timing.upload, timing.record, timing.submit, timing.gpuWait])
            intervals.append(t0 - previous)
            if let gpu = timing.gpu { gpuTimes.append(gpu) }
        }
        previous = t0
        frame += 1
    }
    _ = try? renderer.readPixels()  // wait for the last frame
    let elapsed = now() - measureStart
    let measured = phases.count
    let measuredSeconds = intervals.reduce(0, +)

    let ms = SceneBench.ms
    func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
    }
    let names = FramePhases.names
    var phaseMeans: [String] = []
    for (k, name) in names.enumerated() {
        let mean = phases.map { $0[k] }.reduce(0, +) / Double(max(measured, 1))
        phaseMeans.append("\"\(name)\": \(ms(mean))")
    }
    let cpu = phases.map { $0[0..<6].reduce(0, +) }
    let wait = phases.map { $0[6] }.reduce(0, +) / Double(max(measured, 1))
    let gpu = gpuTimes.isEmpty ? "null" : "\(ms(percentile(gpuTimes, 0.5)))"
    print("""
    {"layers": \(layers), "size": "\(width)x\(height)", "seconds": \(ms(elapsed) / 1000), "frames": \(measured), \
    "device": "\(renderer.deviceName)", "mix": "\(mix)", "drive": "\(drive)", "overlays": "\(overlayName)", "draw_items": \(builder.build(presentation).items.count), \
    "fps": \((Double(measured) / max(measuredSeconds, 1e-9) * 10).rounded() / 10), \
    "frame_ms": {"p50": \(ms(percentile(intervals, 0.5))), "p99": \(ms(percentile(intervals, 0.99)))}, \
    "cpu_ms_per_phase_mean": {\(phaseMeans.joined(separator: ", "))}, \
    "cpu_ms": {"p50": \(ms(percentile(cpu, 0.5))), "p99": \(ms(percentile(cpu, 0.99)))}, \
    "render_cpu_ms_without_apply": {"p50": \(ms(percentile(phases.map { $0[1..<6].reduce(0, +) }, 0.5)))}, \
    "render_thread_cpu_ms": {"p50": \(ms(percentile(threadCPU, 0.5))), "p99": \(ms(percentile(threadCPU, 0.99)))}, \
    "render_thread_cpu_ms_p50_parts": {"evaluate": \(ms(percentile(threadParts.map { $0[0] }, 0.5))), \
    "draw_list": \(ms(percentile(threadParts.map { $0[1] }, 0.5))), "render": \(ms(percentile(threadParts.map { $0[2] }, 0.5)))}, \
    "gpu_wait_ms_mean": \(ms(wait)), "gpu_ms_p50": \(gpu), \
    "raster": {"rasterize": \(rasterize), "automatic": \(builder.rasterizesAutomatically), "effects": \(builder.rasterizesEffects), "hits": \(rasterTotals.hits), \
    "misses": \(rasterTotals.misses), "uncached": \(rasterTotals.uncached), "evicted": \(rasterTotals.evicted), \
    "entries": \(rasterTotals.entries), "auto_entries": \(rasterTotals.autoEntries), "bytes": \(rasterTotals.bytes)}, \
    "draws_last_frame": \(renderer.lastFrameDraws), \
    "image_atlas": {"limit": \(renderer.imageAtlasLimit), "placements": \(renderer.imageAtlasPlacements), \
    "entries": \(renderer.imageAtlasEntries), "pages": \(renderer.imageAtlasPages), "bytes": \(renderer.imageAtlasBytes)}}
    """)
}

private func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The benchmark scene: creation and per-frame changes.
enum FramesScene {
    static let layerSize = Size(48, 32)

    static func basePosition(_ i: Int, layers: Int, width: Int, height: Int) -> Point {
        let columns = max(1, Int((Double(layers) * Double(width) / Double(height)).squareRoot().rounded(.up)))
        let rows = max(1, (layers + columns - 1) / columns)
        let cx = Double(i % columns) + 0.5, cy = Double(i / columns) + 0.5
        return Point(cx * Double(width) / Double(columns), cy * Double(height) / Double(rows))
    }

    static func paths() -> [Path] {
        var star = Path()
        star.addPolygon((0..<5).map { k in
            let a = -Double.pi / 2 + Double(k) * 4 * .pi / 5
            return Point(24 + 15 * cos(a), 16 + 15 * sin(a))
        })
        return [star, .ellipse(in: Rect(8, 2, 32, 28)), .roundedRect(Rect(4, 4, 40, 24), radius: 8)]
    }

    /// The images of the "image" mix: two 96 × 64 gradients with a pattern, premultiplied.
    static let images: [String: Image] = {
        var out: [String: Image] = [:]
        for k in 0..<2 {
            var bytes: [UInt8] = []
            for y in 0..<64 {
                for x in 0..<96 {
                    let stripe: UInt8 = (x / 8 + y / 8 + k) % 2 == 0 ? 40 : 0
                    bytes += [UInt8(x * 2) &+ stripe, UInt8(y * 3), UInt8(200 - x), 255]
                }
            }
            out["photo\(k)"] = Image(width: 96, height: 64, premultipliedPixels: bytes)
        }
        return out
    }()

    /// `mix`: "all" (the mix above) or one kind only, to see what each costs; "shadow" (not
    /// in "all"): the shape layers with a shadow too, blurred on the GPU (`.shadowGroup`);
    /// "image" (not in "all"): layers showing an image (`contents`, resizeAspectFill, clipped);
    /// "text" (not in "all"): text layers, a 12-point label each (so positions, rotations and
    /// opacities animate text; rotation keeps the glyphs' size bucket); "mask" (not in "all"):
    /// the plain layers each masked by a 48×32 capsule (a layer with cornerRadius 16 and an
    /// opaque background, CALayer.mask: drawn as a clip of each layer, or with
    /// LAMINA_BENCH_SHAPE_MASKS=0 every layer an offscreen group with its mask's image),
    /// as `bench/peers`' mask mix; "blur" (not in "all"): the plain layers each with
    /// `filters: [gaussianBlur radius 2]`, as the peers' blur mix; "backdrop" (not in "all"):
    /// the plain layers under a full-width frosted panel, as the peers' backdrop mix.
    static func create(layers: Int, width: Int, height: Int, mix: String = "all") -> [LayerChange] {
        if mix == "cards" { return cards(layers: layers, width: width, height: height) }
        if mix == "replicator" { return spinners(layers: layers, width: width, height: height) }
        if mix == "mask" {
            var ops = create(layers: layers, width: width, height: height, mix: "plain")
            for i in 0..<layers {
                let id = UInt32(i + 1), mask = UInt32(layers + i + 1)
                ops += [.create(mask, .layer), .set(mask, keyPath: "bounds", value: .rect(Rect(0, 0, 48, 32))),
                        .set(mask, keyPath: "position", value: .point(Point(layerSize.width / 2, layerSize.height / 2))),
                        .set(mask, keyPath: "cornerRadius", value: .number(16)),
                        .set(mask, keyPath: "backgroundColor", value: .color(Color(0, 0, 0))),
                        .set(id, keyPath: "mask", value: .number(Double(mask)))]
            }
            return ops
        }
        if mix == "backdrop" {
            // bench/peers' backdrop mix: a full-width frosted panel (y 260, height 200, white at
            // 0.3 alpha, its backdrop blurred by σ 10 points) over the plain mix's layers.
            var ops = create(layers: layers, width: width, height: height, mix: "plain")
            let panel = UInt32(layers + 1)
            ops += [.create(panel, .layer), .addSublayer(parent: 0, child: panel),
                    .set(panel, keyPath: "bounds", value: .rect(Rect(0, 0, Double(width), 200))),
                    .set(panel, keyPath: "position", value: .point(Point(Double(width) / 2, 260 + 100))),
                    .set(panel, keyPath: "backgroundColor", value: .color(Color(1, 1, 1, 0.3))),
                    .set(panel, keyPath: "backgroundFilters", value: .filters([.gaussianBlur(10)]))]
            return ops
        }
        if mix == "blur" {
            var ops = create(layers: layers, width: width, height: height, mix: "plain")
            for i in 0..<layers {
                ops.append(.set(UInt32(i + 1), keyPath: "filters", value: .filters([.gaussianBlur(2)])))
            }
            return ops
        }
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        let shapes = paths()
        for i in 0..<layers {
            let id = UInt32(i + 1)
            let kindIndex = switch mix {
            case "plain": 0
            case "rounded": 8
            case "shape": 13
            case "gradient": 17
            case "shadow": 20
            case "image": 21
            case "text": 22
            default: i % 20
            }
            let kind: LayerKind = kindIndex == 22 ? .text : kindIndex == 20 || (13..<17).contains(kindIndex) ? .shape
                : kindIndex >= 17 ? .gradient : .layer
            ops.append(.create(id, kind))
            ops.append(.addSublayer(parent: 0, child: id))
            ops.append(.set(id, keyPath: "bounds", value: .rect(Rect(origin: .zero, size: layerSize))))
            ops.append(.set(id, keyPath: "position", value: .point(basePosition(i, layers: layers, width: width, height: height))))
            let hue = Double(i % 12) / 12
            let color = Color(0.5 + 0.5 * cos(2 * .pi * hue), 0.5 + 0.5 * cos(2 * .pi * (hue - 1.0 / 3)),
                              0.5 + 0.5 * cos(2 * .pi * (hue - 2.0 / 3)))
            switch kindIndex {
            case 0..<8:
                ops.append(.set(id, keyPath: "backgroundColor", value: .color(color)))
            case 8..<13:
                ops.append(.set(id, keyPath: "backgroundColor", value: .color(color)))
                ops.append(.set(id, keyPath: "cornerRadius", value: .number(8)))
                ops.append(.set(id, keyPath: "borderWidth", value: .number(2)))
                ops.append(.set(id, keyPath: "borderColor", value: .color(Color(1, 1, 1, 0.8))))
                ops.append(.set(id, keyPath: "shadowOpacity", value: .number(0.4)))
                ops.append(.set(id, keyPath: "shadowRadius", value: .number(4)))
                ops.append(.set(id, keyPath: "shadowOffset", value: .size(Size(0, 3))))
            case 21:
                // A photo-like image (two, alternating), filling the layer (`FramesScene.images`).
                ops.append(.set(id, keyPath: "contents", value: .string("photo\(i % 2)")))
                ops.append(.set(id, keyPath: "contentsGravity", value: .string("resizeAspectFill")))
                ops.append(.set(id, keyPath: "masksToBounds", value: .bool(true)))
            case 22:
                // A label: a word and the layer's number in 12-point DejaVu Sans, in its color.
                ops.append(.set(id, keyPath: "string", value: .string("Label \(i)")))
                ops.append(.set(id, keyPath: "font", value: .string("DejaVu Sans")))
                ops.append(.set(id, keyPath: "fontSize", value: .number(12)))
                ops.append(.set(id, keyPath: "foregroundColor", value: .color(color)))
            case 13..<17, 20:
                ops.append(.set(id, keyPath: "path", value: .path(shapes[i % shapes.count])))
                ops.append(.set(id, keyPath: "fillColor", value: .color(color)))
                ops.append(.set(id, keyPath: "strokeColor", value: .color(Color(0.1, 0.1, 0.1))))
                ops.append(.set(id, keyPath: "lineWidth", value: .number(2)))
                if kindIndex == 20 {
                    ops.append(.set(id, keyPath: "shadowOpacity", value: .number(0.4)))
                    ops.append(.set(id, keyPath: "shadowRadius", value: .number(4)))
                    ops.append(.set(id, keyPath: "shadowOffset", value: .size(Size(0, 3))))
                }
            default:
                ops.append(.set(id, keyPath: "colors", value: .colors([color, Color(1, 1, 1), Color(0.2, 0.2, 0.3)])))
                ops.append(.set(id, keyPath: "startPoint", value: .point(Point(0, 0))))
                ops.append(.set(id, keyPath: "endPoint", value: .point(Point(1, 1))))
            }
        }
        return ops
    }

    /// "cards": every fifth layer a card (rounded, bordered, clipping: `masksToBounds`) holding
    /// the next four as its sublayers (a rect, a gradient, a shape and a rounded rect, still);
    /// only the cards animate (position and rotation), so each frame moves containers and their
    /// contents follow (a scrolling list's or a dragged card's motion).
    static func isAnimated(_ i: Int, mix: String) -> Bool {
        mix == "cards" ? i % 5 == 0 : mix == "replicator" ? i % 2 == 0 : true
    }

    /// "replicator" (not in "all"): every second layer a spinner (a replicator of 12 instances,
    /// each turned 30° further about its centre and 1/12 more transparent) holding the next as
    /// its dot; only the replicators animate (position and rotation), so `--layers 200` is
    /// 100 spinners drawing 1200 dots from 200 model layers, every frame a full build.
    static func spinners(layers: Int, width: Int, height: Int) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        for i in 0..<layers {
            let id = UInt32(i + 1)
            if i % 2 == 0 {
                ops += [.create(id, .replicator), .addSublayer(parent: 0, child: id),
                        .set(id, keyPath: "bounds", value: .rect(Rect(origin: .zero, size: layerSize))),
                        .set(id, keyPath: "position", value: .point(basePosition(i, layers: layers, width: width, height: height))),
                        .set(id, keyPath: "instanceCount", value: .number(12)),
                        .set(id, keyPath: "instanceTransform", value: .transform(.rotation(.pi / 6))),
                        .set(id, keyPath: "instanceAlphaOffset", value: .number(-1.0 / 12))]
                continue
            }
            let hue = Double(i % 12) / 12
            let color = Color(0.5 + 0.5 * cos(2 * .pi * hue), 0.5 + 0.5 * cos(2 * .pi * (hue - 1.0 / 3)),
                              0.5 + 0.5 * cos(2 * .pi * (hue - 2.0 / 3)))
            ops += [.create(id, .layer), .addSublayer(parent: id - 1, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 4, 8))),
                    .set(id, keyPath: "position", value: .point(Point(layerSize.width / 2, 6))),
                    .set(id, keyPath: "cornerRadius", value: .number(2)),
                    .set(id, keyPath: "backgroundColor", value: .color(color))]
        }
        return ops
    }

    static func cards(layers: Int, width: Int, height: Int) -> [LayerChange] {
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        for i in 0..<layers {
            let id = UInt32(i + 1), k = i % 5
            let hue = Double(i % 12) / 12
            let color = Color(0.5 + 0.5 * cos(2 * .pi * hue), 0.5 + 0.5 * cos(2 * .pi * (hue - 1.0 / 3)),
                              0.5 + 0.5 * cos(2 * .pi * (hue - 2.0 / 3)))
            if k == 0 {
                ops += [.create(id, .layer), .addSublayer(parent: 0, child: id),
                        .set(id, keyPath: "bounds", value: .rect(Rect(origin: .zero, size: layerSize))),
                        .set(id, keyPath: "position", value: .point(basePosition(i, layers: layers, width: width, height: height))),
                        .set(id, keyPath: "backgroundColor", value: .color(Color(0.97, 0.97, 0.98))),
                        .set(id, keyPath: "cornerRadius", value: .number(6)),
                        .set(id, keyPath: "masksToBounds", value: .bool(true)),
                        .set(id, keyPath: "borderWidth", value: .number(1)),
                        .set(id, keyPath: "borderColor", value: .color(Color(0.3, 0.3, 0.35)))]
                continue
            }
            let kind: LayerKind = k == 2 ? .gradient : k == 3 ? .shape : .layer
            let card = UInt32(i - k + 1)
            ops += [.create(id, kind), .addSublayer(parent: card, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 12))),
                    .set(id, keyPath: "position", value: .point(Point(Double((k - 1) % 2) * 22 + 13, Double((k - 1) / 2) * 14 + 9)))]
            switch k {
            case 2:
                ops.append(.set(id, keyPath: "colors", value: .colors([color, Color(1, 1, 1)])))
            case 3:
                ops += [.set(id, keyPath: "path", value: .path(.ellipse(in: Rect(1, 1, 18, 10)))),
                        .set(id, keyPath: "fillColor", value: .color(color))]
            default:
                ops.append(.set(id, keyPath: "backgroundColor", value: .color(color)))
                if k == 4 { ops.append(.set(id, keyPath: "cornerRadius", value: .number(4))) }
            }
        }
        return ops
    }

    /// Explicit animations that run on the render thread with no client taking part: each
    /// layer's position (autoreversing), rotation (turning) and opacity (autoreversing), all
    /// repeating forever, out of phase with each other.
    static func animations(layers: Int, width: Int, height: Int, mix: String = "all") -> [LayerChange] {
        var ops: [LayerChange] = []
        ops.reserveCapacity(3 * layers)
        for i in 0..<layers where isAnimated(i, mix: mix) {
            let id = UInt32(i + 1)
            let phase = Double(i) * 0.37
            let base = basePosition(i, layers: layers, width: width, height: height)
            func timing(_ duration: Double, autoreverses: Bool) -> AnimationTiming {
                var t = AnimationTiming()
                t.duration = duration; t.repeatCount = .infinity; t.autoreverses = autoreverses
                t.timeOffset = phase; t.timingFunction = autoreverses ? .easeInEaseOut : .linear
                return t
            }
            ops.append(.addAnimation(id, key: "move", animation: .basic(BasicAnimation(
                keyPath: "position", from: .point(Point(base.x - 12, base.y - 8)), to: .point(Point(base.x + 12, base.y + 8)),
                timing: timing(1.5, autoreverses: true)))))
            ops.append(.addAnimation(id, key: "spin", animation: .basic(BasicAnimation(
                keyPath: "transform.rotation.z", from: .double(0), to: .double(2 * .pi),
                timing: timing(2 + Double(i % 7) * 0.5, autoreverses: false)))))
            // (Cards keep opacity 1: a translucent card is a group, and one reaching 1 is a new structure.)
            if mix == "cards" || mix == "replicator" { continue }
            ops.append(.addAnimation(id, key: "fade", animation: .basic(BasicAnimation(
                keyPath: "opacity", from: .double(1), to: .double(0.4), timing: timing(1.2, autoreverses: true)))))
        }
        return ops
    }

    /// Each layer's position, rotation and opacity at `time`.
    static func animate(layers: Int, width: Int, height: Int, time: Double, mix: String = "all") -> [LayerChange] {
        // Values set directly, no implicit animations (the bench computes the motion itself).
        var ops: [LayerChange] = [.setTransaction(TransactionSettings(disableActions: true))]
        ops.reserveCapacity(3 * layers + 1)
        for i in 0..<layers where isAnimated(i, mix: mix) {
            let id = UInt32(i + 1)
            let phase = Double(i) * 0.37
            let base = basePosition(i, layers: layers, width: width, height: height)
            ops.append(.set(id, keyPath: "position", value: .point(Point(base.x + 12 * sin(2 * time + phase),
                                                                          base.y + 8 * cos(2 * time + phase)))))
            ops.append(.set(id, keyPath: "transform", value: .transform(.rotation(time * (0.5 + Double(i % 7) * 0.2) + phase))))
            ops.append(.set(id, keyPath: "opacity", value: .number(0.6 + 0.4 * sin(time + phase))))
        }
        return ops
    }
}
