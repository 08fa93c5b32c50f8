// `lamina-bench tessellate`: what draws a shape today — its coverage mesh prepared from its
// path (`FillTessellator.coverageMesh`: flattening at `CoverageMesh.tolerance`, the sweep's
// boundary, the tiled edges) — against GLU's tessellator and libtess2 triangulating the same
// inputs, in the same process; strokes' coverage meshes (no peer strokes). Prints JSON.
//
// Lamina starts from the path, so its time includes the flattening; the peers get the same
// path flattened once outside the timed region (the same tolerance and scale: the polygons
// coverageMesh sweeps), libtess2 as Float, as its API requires. Each side reports the area it
// covers: the peers' triangles summed, Lamina's mesh rasterized once (one sample per device
// pixel, outside the timed region).
import CGLU
import CTess2
import Foundation
import LaminaGeometry

func runTessellateBench(_ arguments: [String]) {
    var minSeconds = arguments.contains("--quick") ? 0.05 : 0.3
    if let i = arguments.firstIndex(of: "--seconds"), i + 1 < arguments.count, let s = Double(arguments[i + 1]) { minSeconds = s }
    // `--only NAME` times one fill input (for profiling); `--lamina-only` skips the peers.
    let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    let laminaOnly = arguments.contains("--lamina-only")
    // `--only NAME --count N --side lamina|glu|libtess2`: runs one side N times, prints nothing
    // (for instruction counts under `perf stat`, stable on a loaded machine).
    if let i = arguments.firstIndex(of: "--count"), i + 1 < arguments.count, let count = Int(arguments[i + 1]) {
        let side = arguments.firstIndex(of: "--side").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? "lamina"
        var sink = 0
        for input in tessFillInputs() where only == nil || input.name == only {
            for rule in input.rules where arguments.contains(rule.rawValue) || !arguments.contains(where: { $0 == "nonZero" || $0 == "evenOdd" }) {
                for _ in 0 ..< count {
                    switch side {
                    case "glu": sink &+= gluTriangulate(input.polygons, rule).count
                    case "libtess2": sink &+= tess2Triangulate(input.polygons, rule).count
                    default: sink &+= laminaCoverageMesh(input, rule).vertices.count
                    }
                }
            }
        }
        if sink == -1 { print(sink) }
        return
    }
    var fills: [[String: Any]] = []
    for input in tessFillInputs() where only == nil || input.name == only {
        for rule in input.rules {
            var entry: [String: Any] = ["name": input.name, "rule": rule.rawValue, "scale": input.scale,
                                        "vertices": input.polygons.reduce(0) { $0 + $1.count }]
            let mesh = laminaCoverageMesh(input, rule)
            let lamina = tessTime(minSeconds) { laminaCoverageMesh(input, rule).vertices.count }
            let peerSeconds = laminaOnly ? 0 : minSeconds
            let glu = tessTime(peerSeconds) { gluTriangulate(input.polygons, rule).count / 3 }
            let gluArea = trianglesArea(gluTriangulate(input.polygons, rule))
            let tess2 = tessTime(peerSeconds) { tess2Triangulate(input.polygons, rule).count / 3 }
            let tess2Area = trianglesArea(tess2Triangulate(input.polygons, rule))
            func side(_ t: (perSecond: Double, count: Int), _ area: Double) -> [String: Any] {
                ["paths_per_s": t.perSecond.rounded(), "triangles_per_s": (t.perSecond * Double(t.count)).rounded(),
                 "triangles": t.count, "area": area]
            }
            entry["lamina_coverage_mesh"] = ["paths_per_s": lamina.perSecond.rounded(),
                                             "records": mesh.vertices.count, "bytes": mesh.byteCount,
                                             "area": coverageArea(mesh, scale: input.scale)] as [String: Any]
            entry["glu"] = side(glu, gluArea)
            entry["libtess2"] = side(tess2, tess2Area)
            entry["lamina_vs_glu"] = (lamina.perSecond / glu.perSecond * 100).rounded() / 100
            entry["lamina_vs_libtess2"] = (lamina.perSecond / tess2.perSecond * 100).rounded() / 100
            fills.append(entry)
        }
    }
    var strokes: [[String: Any]] = []
    for input in tessStrokeInputs() where only == nil {
        let segments = input.segments
        let t = tessTime(minSeconds) {
            (try? StrokeTessellator.coverageMesh(input.path, style: input.style, scale: 2))?.vertices.count ?? 0
        }
        strokes.append(["name": input.name, "segments": segments,
                        "segments_per_s": (t.perSecond * Double(segments)).rounded(),
                        "paths_per_s": t.perSecond.rounded(), "records": t.count])
    }
    let report: [String: Any] = [
        "benchmark": "tessellate",
        "note": "lamina: the coverage mesh the renderer draws, prepared from the path (flattening included, tolerance \(CoverageMesh.tolerance) px); peers: GLU (libGLU, Double) and libtess2 (tulip 5.4, Float) triangulating the same path flattened once outside the timed region; areas: peers' triangles, lamina's mesh rasterized at one sample per device pixel; strokes: coverage meshes at scale 2, no peer",
        "fills": fills, "strokes": strokes,
    ]
    let data = try! JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

/// A fill input: a path at a device scale, and the polygons the peers triangulate (the path
/// flattened as `coverageMesh` flattens it).
struct TessFillInput {
    var name: String
    var path: Path
    var scale: Double
    var rules: [FillRule]
    var polygons: [[Point]]

    init(name: String, path: Path, scale: Double, rules: [FillRule]) {
        self.name = name; self.path = path; self.scale = scale; self.rules = rules
        polygons = ((try? Flattener.flatten(path, scale: scale, tolerance: CoverageMesh.tolerance)) ?? []).map(\.points)
    }
}

struct TessStrokeInput { var name: String; var path: Path; var style: StrokeStyle; var segments: Int }

/// What the renderer draws for the fill: the coverage mesh prepared from the path.
func laminaCoverageMesh(_ input: TessFillInput, _ rule: FillRule) -> Mesh {
    (try? FillTessellator.coverageMesh(input.path, rule: rule, scale: input.scale)) ?? Mesh()
}

/// The area a coverage mesh covers (local units²): its coverage sampled once per device pixel
/// over its bounds, by boxes of one device pixel.
func coverageArea(_ mesh: Mesh, scale: Double) -> Double {
    let step = 1 / scale
    let b = mesh.bounds
    let width = Int((b.size.width / step).rounded(.up)) + 1, height = Int((b.size.height / step).rounded(.up)) + 1
    guard width > 0, height > 0, width * height < 1 << 26 else { return .nan }
    var bytes = [UInt8](repeating: 0, count: width * height)
    bytes.withUnsafeMutableBufferPointer { out in
        CoverageMesh.rasterize(mesh, origin: Point(b.origin.x + step / 2, b.origin.y + step / 2), spacing: step, box: step,
                               width: width, height: height, into: out.baseAddress!, rowStride: width, pixelStride: 1)
    }
    return Double(bytes.reduce(0) { $0 + Int($1) }) / 255 * step * step
}

func tessFillInputs() -> [TessFillInput] {
    var rng = BenchRandom(seed: 42)
    let star = (0 ..< 1000).map { k -> Point in
        let a = Double(k) * 2 * .pi / 1000, r = k % 2 == 0 ? 100.0 : 60.0
        return Point(r * cos(a), r * sin(a))
    }
    let pentagram = (0 ..< 5).map { k -> Point in
        let a = Double(k * 2) * 2 * .pi / 5 - .pi / 2
        return Point(100 * cos(a), 100 * sin(a))
    }
    // Glyph-like rings: an "O" and an "8"-like pair of counters, from cubic ellipses, at scale 4.
    var glyph = Path()
    for i in 0 ..< 4 {
        let x = Double(i) * 60
        glyph.addEllipse(in: Rect(x, 0, 50, 70))
        glyph.addPath(Path.ellipse(in: Rect(x + 12, 10, 26, 22)).reversedForBench())
        glyph.addPath(Path.ellipse(in: Rect(x + 12, 38, 26, 22)).reversedForBench())
    }
    // A random walk: 10,000 segments with local self-crossings.
    var walk: [Point] = [Point(0, 0)]
    for _ in 0 ..< 10_000 {
        let last = walk.last!
        walk.append(Point(last.x + rng.uniform(-10, 10), last.y + rng.uniform(-10, 10)))
    }
    return [
        TessFillInput(name: "star-1000", path: .polygon(star), scale: 1, rules: [.nonZero]),
        TessFillInput(name: "pentagram", path: .polygon(pentagram), scale: 1, rules: [.nonZero, .evenOdd]),
        TessFillInput(name: "glyph-rings-cubic", path: glyph, scale: 4, rules: [.nonZero, .evenOdd]),
        TessFillInput(name: "random-polyline-10000", path: .polygon(walk), scale: 1, rules: [.nonZero, .evenOdd]),
        TessFillInput(name: "rounded-rect", path: .roundedRect(Rect(0, 0, 300, 200), radius: 24), scale: 2, rules: [.nonZero]),
    ]
}

func tessStrokeInputs() -> [TessStrokeInput] {
    var rng = BenchRandom(seed: 7)
    var zigzag = Path()
    zigzag.move(to: .zero)
    for i in 1 ... 1000 { zigzag.addLine(to: Point(Double(i) * 3, i % 2 == 0 ? 0 : 10 + rng.uniform(0, 5))) }
    var out: [TessStrokeInput] = []
    for join in LineJoin.allCases {
        out.append(TessStrokeInput(name: "zigzag-1000-\(join.rawValue)", path: zigzag,
                                   style: StrokeStyle(lineWidth: 4, lineCap: .round, lineJoin: join), segments: 1000))
    }
    out.append(TessStrokeInput(name: "zigzag-1000-dashed", path: zigzag,
                               style: StrokeStyle(lineWidth: 4, lineCap: .butt, lineJoin: .miter, dashPattern: [6, 3]), segments: 1000))
    out.append(TessStrokeInput(name: "zigzag-1000-dots", path: zigzag,
                               style: StrokeStyle(lineWidth: 4, lineCap: .round, dashPattern: [0, 8]), segments: 1000))
    return out
}


extension Path {
    /// The polygon points in reverse order (a hole for nonZero). Only for closed, line/cubic paths.
    func reversedForBench() -> Path {
        guard let pl = try? flattened(scale: 4, tolerance: CoverageMesh.tolerance).first else { return self }
        return Path.polygon(pl.points.reversed())
    }
}

/// Runs `body` repeatedly for at least `seconds` (best of three batches) and returns the rate.
func tessTime(_ seconds: Double, _ body: () -> Int) -> (perSecond: Double, count: Int) {
    var triangles = body()
    var best = 0.0
    for _ in 0 ..< 3 {
        var iterations = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed = 0.0
        repeat {
            triangles = body()
            iterations += 1
            elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        } while elapsed < seconds / 3
        best = max(best, Double(iterations) / elapsed)
    }
    return (best, triangles)
}

func trianglesArea(_ t: [Point]) -> Double {
    var sum = 0.0
    var i = 0
    while i + 2 < t.count { sum += abs((t[i + 1] - t[i]).cross(t[i + 2] - t[i])); i += 3 }
    return sum / 2
}

// MARK: - libtess2

func tess2Triangulate(_ polygons: [[Point]], _ rule: FillRule) -> [Point] {
    guard let tess = tessNewTess(nil) else { return [] }
    defer { tessDeleteTess(tess) }
    for poly in polygons where poly.count >= 3 {
        var coords = [Float]()
        coords.reserveCapacity(poly.count * 2)
        for p in poly { coords.append(Float(p.x)); coords.append(Float(p.y)) }
        coords.withUnsafeBytes { raw in
            tessAddContour(tess, 2, raw.baseAddress, Int32(2 * MemoryLayout<Float>.stride), Int32(poly.count))
        }
    }
    let winding = rule == .nonZero ? Int32(TESS_WINDING_NONZERO.rawValue) : Int32(TESS_WINDING_ODD.rawValue)
    guard tessTesselate(tess, winding, Int32(TESS_POLYGONS.rawValue), 3, 2, nil) != 0 else { return [] }
    let count = Int(tessGetElementCount(tess))
    guard let verts = tessGetVertices(tess), let elems = tessGetElements(tess) else { return [] }
    var out: [Point] = []
    out.reserveCapacity(count * 3)
    for i in 0 ..< count * 3 {
        let v = Int(elems[i])
        if v < 0 { continue }
        out.append(Point(Double(verts[2 * v]), Double(verts[2 * v + 1])))
    }
    return out
}

// MARK: - GLU

/// Collects GLU's triangles. Only touched by the callbacks of one gluTessEndPolygon call.
final class GLUCollector {
    var coords: [Double] = []       // every vertex, original and combined: x, y, z
    var triangles: [Int32] = []
}

func gluTriangulate(_ polygons: [[Point]], _ rule: FillRule) -> [Point] {
    guard let tess = gluNewTess() else { return [] }
    defer { gluDeleteTess(tess) }
    let collector = GLUCollector()
    let total = polygons.reduce(0) { $0 + $1.count }
    collector.coords.reserveCapacity(total * 3 + 64)
    for poly in polygons { for p in poly { collector.coords += [p.x, p.y, 0] } }
    let vertex: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { data, user in
        let c = Unmanaged<GLUCollector>.fromOpaque(user!).takeUnretainedValue()
        c.triangles.append(Int32(Int(bitPattern: data) - 1))
    }
    let begin: @convention(c) (GLenum, UnsafeMutableRawPointer?) -> Void = { _, _ in }
    let edgeFlag: @convention(c) (GLboolean, UnsafeMutableRawPointer?) -> Void = { _, _ in }
    let combine: @convention(c) (UnsafeMutablePointer<GLdouble>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                 UnsafeMutablePointer<GLfloat>?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                                 UnsafeMutableRawPointer?) -> Void = { coords, _, _, out, user in
        let c = Unmanaged<GLUCollector>.fromOpaque(user!).takeUnretainedValue()
        let index = c.coords.count / 3
        c.coords += [coords![0], coords![1], 0]
        out!.pointee = UnsafeMutableRawPointer(bitPattern: index + 1)
    }
    gluTessCallback(tess, GLenum(GLU_TESS_VERTEX_DATA), unsafeBitCast(vertex, to: _GLUfuncptr.self))
    gluTessCallback(tess, GLenum(GLU_TESS_BEGIN_DATA), unsafeBitCast(begin, to: _GLUfuncptr.self))
    gluTessCallback(tess, GLenum(GLU_TESS_EDGE_FLAG_DATA), unsafeBitCast(edgeFlag, to: _GLUfuncptr.self))
    gluTessCallback(tess, GLenum(GLU_TESS_COMBINE_DATA), unsafeBitCast(combine, to: _GLUfuncptr.self))
    gluTessProperty(tess, GLenum(GLU_TESS_WINDING_RULE),
                    rule == .nonZero ? Double(GLU_TESS_WINDING_NONZERO) : Double(GLU_TESS_WINDING_ODD))
    gluTessNormal(tess, 0, 0, 1)
    // GLU keeps the vertex pointers until gluTessEndPolygon: one buffer that outlives the call.
    let input = UnsafeMutablePointer<Double>.allocate(capacity: max(1, total * 3))
    defer { input.deallocate() }
    for i in 0 ..< total * 3 { input[i] = collector.coords[i] }
    let user = Unmanaged.passUnretained(collector).toOpaque()
    withExtendedLifetime(collector) {
        gluTessBeginPolygon(tess, user)
        var index = 0
        for poly in polygons {
            gluTessBeginContour(tess)
            for _ in poly {
                gluTessVertex(tess, input + 3 * index, UnsafeMutableRawPointer(bitPattern: index + 1))
                index += 1
            }
            gluTessEndContour(tess)
        }
        gluTessEndPolygon(tess)
    }
    return collector.triangles.map { i in
        let k = Int(i) * 3
        return Point(collector.coords[k], collector.coords[k + 1])
    }
}
