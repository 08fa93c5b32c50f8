import Foundation
import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaTree
import LaminaModel

/// `lamina-bench templates [--frames F]`: path templates on the render thread, no GPU.
///
/// - `waves`: 100 shape layers, each a stroked wave template of 200 segments (201 points)
///   whose `phase` animates (explicit, repeating): every frame re-runs every template.
/// - `polygons`: 1,000 filled polygon templates whose `sides` animates 3 → 12 (repeating):
///   every frame re-runs every template; the path changes only when floor(sides) does.
/// - `steady`: the polygon scene a full cycle later: the fraction of shape meshes served
///   without tessellating (the builder's per-layer memo, then the mesh cache's hits).
///
/// Per frame (p50 and mean): `presentation` = advance + updatePresentation (animations, then
/// the templates; thread CPU time), `tessellate` = the builder's own measure of its mesh work
/// (`lastTessellateSeconds`: cache lookups and misses, wall clock), `build_total` = the whole
/// `DrawListBuilder.build` (thread CPU time, tessellation included); `program_steps_per_frame`
/// = the steps templates and expressions spent per frame (against the frame's budget,
/// `maxProgramStepsPerFrame`). Prints JSON.
func runTemplatesBench(_ arguments: [String]) {
    var frames = 120
    if let i = arguments.firstIndex(of: "--frames"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n > 0 { frames = n }
    let wave = """
        for x in 0 ..< floor(rect.width) + 1 {
          let y = rect.midY + amplitude * sin(2 * pi * frequency * x / rect.width + phase)
          if x == 0 { move(x, y) } else { line(x, y) }
        }
        """
    let polygon = """
        let n = max(floor(sides), 3)
        let r = min(rect.width, rect.height) / 2 * scale
        for i in 0 ..< n {
          let a = 2 * pi * i / n - pi / 2 + rotation
          if i == 0 { move(rect.midX + r * cos(a), rect.midY + r * sin(a)) }
          else { line(rect.midX + r * cos(a), rect.midY + r * sin(a)) }
        }
        close()
        """
    func repeating(_ keyPath: String, _ from: Double, _ to: Double, _ duration: Double, offset: Double) -> Animation {
        .basic(BasicAnimation(keyPath: keyPath, from: .double(from), to: .double(to),
                              timing: AnimationTiming(duration: duration, repeatCount: .infinity, timeOffset: offset)))
    }
    func makeTree(count: Int, size: Size, columns: Int, _ layer: (UInt32) -> [LayerChange]) -> LayerTree {
        var tree = LayerTree()
        try! tree.apply(Commit(client: 1, content: .connect))
        var ops: [LayerChange] = []
        for i in 0 ..< count {
            let id = UInt32(i + 1)
            ops += [.create(id, .shape), .addSublayer(parent: 0, child: id),
                    .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, size.width, size.height))),
                    .set(id, keyPath: "position", value: .point(Point(size.width * (Double(i % columns) + 0.5),
                                                                      size.height * (Double(i / columns) + 0.5))))]
            ops += layer(id)
        }
        try! tree.apply(Commit(client: 1, content: .operations(ops)), at: 0)
        return tree
    }
    struct Result { var presentation: [Double] = []; var build: [Double] = []; var tessellate: [Double] = []
                    var evaluations = 0; var hits = 0; var misses = 0; var meshes = 0; var steps = 0 }
    func run(_ tree: inout LayerTree, width: Double, height: Double, from: Int, frames: Int) -> Result {
        var presentation = LayerTree()
        var builder = DrawListBuilder(widthPoints: width, heightPoints: height, scale: 1, background: .black)
        let cpu = SceneBench.threadCPUTime
        var r = Result()
        var evaluations = 0, hits = 0, misses = 0
        for frame in 0 ..< (from + frames) {
            let time = Double(frame) / 60
            if frame == from {
                evaluations = tree.templateEvaluations; hits = builder.meshCache.hits; misses = builder.meshCache.misses
            }
            let t0 = cpu()
            tree.advance(to: time)
            tree.updatePresentation(&presentation, at: time)
            let t1 = cpu()
            let list = builder.build(presentation)
            let t2 = cpu()
            guard frame >= from else { continue }
            r.presentation.append(t1 - t0)
            r.build.append(t2 - t1)
            r.tessellate.append(builder.lastTessellateSeconds)
            r.steps += tree.lastProgramEvaluation.steps
            r.meshes += list.items.count
        }
        r.evaluations = tree.templateEvaluations - evaluations
        r.hits = builder.meshCache.hits - hits
        r.misses = builder.meshCache.misses - misses
        return r
    }
    func json(_ name: String, _ layers: Int, _ r: Result, frames: Int) -> String {
        "\"\(name)\": {\"layers\": \(layers), \"template_runs_per_frame\": \(Double(r.evaluations) / Double(frames)), "
            + "\"program_steps_per_frame\": \(r.steps / frames), "
            + "\"cpu_ms_per_frame\": {\(SceneBench.phase("presentation", r.presentation)), "
            + "\(SceneBench.phase("tessellate", r.tessellate)), \(SceneBench.phase("build_total", r.build)), "
            + "\(SceneBench.phase("evaluate_plus_tessellate", zip(r.presentation, r.tessellate).map { $0 + $1 }))}}"
    }

    var waves = makeTree(count: 100, size: Size(200, 100), columns: 5) { id in
        [.set(id, keyPath: "custom.amplitude", value: .number(30)), .set(id, keyPath: "custom.frequency", value: .number(2)),
         .set(id, keyPath: "custom.phase", value: .number(0)), .set(id, keyPath: "fillColor", value: .color(nil)),
         .set(id, keyPath: "strokeColor", value: .color(Color(1, 1, 1))), .set(id, keyPath: "lineWidth", value: .number(2)),
         .set(id, keyPath: "path", value: .template(wave)),
         .addAnimation(id, key: "travel", animation: repeating("custom.phase", 0, 2 * Double.pi, 1, offset: Double(id) * 0.01))]
    }
    let w = run(&waves, width: 1000, height: 2000, from: 3, frames: frames)

    var polygons = makeTree(count: 1000, size: Size(40, 40), columns: 40) { id in
        [.set(id, keyPath: "custom.sides", value: .number(3)), .set(id, keyPath: "custom.scale", value: .number(0.9)),
         .set(id, keyPath: "custom.rotation", value: .number(0)),
         .set(id, keyPath: "fillColor", value: .color(Color(0.5, 0.9, 0.5))),
         .set(id, keyPath: "path", value: .template(polygon)),
         .addAnimation(id, key: "morph", animation: repeating("custom.sides", 3, 12, 2, offset: Double(id % 60) / 30))]
    }
    let p = run(&polygons, width: 1600, height: 1000, from: 3, frames: frames)
    // A full 2 s cycle later: every (layer, side count) shape has been tessellated once.
    var steadyTree = polygons
    let s = run(&steadyTree, width: 1600, height: 1000, from: 120, frames: frames)
    let served = s.meshes > 0 ? Double(s.meshes - s.misses) / Double(s.meshes) : 0
    let cacheRate = s.hits + s.misses > 0 ? Double(s.hits) / Double(s.hits + s.misses) : 0
    print("""
    {"bench": "templates", "frames": \(frames), \(json("waves", 100, w, frames: frames)), \
    \(json("polygons", 1000, p, frames: frames)), \
    "steady": {"layers": 1000, "meshes": \(s.meshes), "tessellated": \(s.misses), "served_without_tessellating": \(served), \
    "mesh_cache_lookups": \(s.hits + s.misses), "mesh_cache_hit_rate": \(cacheRate), \
    "cpu_ms_per_frame": {\(SceneBench.phase("presentation", s.presentation)), \(SceneBench.phase("tessellate", s.tessellate))}}}
    """)
}
