import Foundation
import LaminaAnimation
import LaminaGeometry
import LaminaRender
import LaminaTree
import LaminaModel

/// `lamina-bench tree`: the layer tree's costs, as JSON.
///
/// - `commitNsPerProperty`: one commit that sets one property on each of 10,000 layers, per
///   property: the server's model tree validating it into a packet, and the render tree
///   applying the packet with implicit animations on (each set makes an animation from the
///   presentation value).
/// - `presentationNsPerLayer`: `updatePresentation` for 10,000 layers each running one
///   animation (opacity; position; transform.rotation.z), per layer per frame.
/// - `bytesPerLayer`: resident memory growth of 100,000 plain layers in this process's model
///   tree and render tree, per layer (the whole daemon's figure is `lamina-bench memory`);
///   `sharedBytesPerLayer`: the same once the model shares the render tree's nodes, as an idle
///   daemon's does (`ModelTree.shareNodes(with:)`).
/// - `tree share`: sharing's own costs (ShareBench.swift).
func runTreeBench(_ arguments: [String]) {
    if arguments.first == "share" { return runShareBench(Array(arguments.dropFirst())) }
    let n = 10_000
    func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    // Thread CPU time: the dev box is shared, wall time counts other processes' slices.
    func cpuNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    func build(_ count: Int) -> (ModelTree, LayerTree) {
        var model = ModelTree()
        var t = LayerTree()
        t.apply(try! model.validate(Commit(client: 1, content: .connect)), at: 0)
        var ops: [LayerChange] = []
        ops.reserveCapacity(count * 4)
        for i in 1...count {
            let id = UInt32(i)
            ops += [.create(id, .layer), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 10, 10))),
                    .set(id, keyPath: "position", value: .point(Point(Double(i % 100) * 10, Double(i / 100) * 10))),
                    .addSublayer(parent: 0, child: id)]
        }
        t.apply(try! model.validate(Commit(client: 1, content: .operations(ops)), at: 0), at: 0)
        return (model, t)
    }

    // Commit cost per changed property: validating it into a packet (model tree), and applying
    // the packet (render tree, implicit animations on).
    func commitCost() -> (model: Double, render: Double) {
        var best = (model: Double.infinity, render: Double.infinity)
        for round in 0..<5 {
            var (model, t) = build(n)
            let ops: [LayerChange] = (1...n).map { .set(UInt32($0), keyPath: "opacity", value: .number(0.5 + Double(round) * 0.01)) }
            let commit = Commit(client: 1, content: .operations(ops))
            let t0 = now()
            let packet = try! model.validate(commit, at: 1)
            let t1 = now()
            t.apply(packet, at: 1)
            best.model = min(best.model, Double(t1 - t0) / Double(n))
            best.render = min(best.render, Double(now() - t1) / Double(n))
        }
        return best
    }
    let (modelCommit, renderCommit) = commitCost()

    // Presentation evaluation per animated layer.
    func presentationCost(_ animation: Animation) -> Double {
        var (model, t) = build(n)
        let ops: [LayerChange] = (1...n).map { .addAnimation(UInt32($0), key: "a", animation: animation) }
        t.apply(try! model.validate(Commit(client: 1, content: .operations(ops)), at: 0), at: 0)
        var p = LayerTree()
        t.updatePresentation(&p, at: 0)          // the first call copies the tree
        var best = Double.infinity
        for frame in 1...30 {
            let time = Double(frame) / 120
            let t0 = cpuNow()
            t.advance(to: time)
            t.updatePresentation(&p, at: time)
            best = min(best, Double(cpuNow() - t0) / Double(n))
        }
        return best
    }
    let forever = AnimationTiming(duration: 1, repeatCount: .infinity)
    // `lamina-bench tree presentation`: only the per-frame evaluation (quick; for callgrind).
    if arguments.contains("presentation") {
        let o = presentationCost(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: forever)))
        let p = presentationCost(.basic(BasicAnimation(keyPath: "position", from: .point(.zero), to: .point(Point(100, 50)), timing: forever)))
        let r = presentationCost(.basic(BasicAnimation(keyPath: "transform.rotation.z", from: .double(0), to: .double(6.28), timing: forever)))
        print(#"{"bench": "tree", "layers": \#(n), "presentationNsPerLayer": {"opacity": \#(String(format: "%.1f", o)), "position": \#(String(format: "%.1f", p)), "transform.rotation.z": \#(String(format: "%.1f", r))}}"#)
        return
    }
    // Breakdown for the opacity case: reading the nodes, and the animation engine alone.
    var breakdown: (lookup: Double, engine: Double) = (0, 0)
    do {
        var (model, t) = build(n)
        let a = Animation.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: forever))
        t.apply(try! model.validate(Commit(client: 1, content: .operations((1...n).map { .addAnimation(UInt32($0), key: "a", animation: a) })), at: 0), at: 0)
        let ids = Array(t.animatedLayers)
        var sink = 0.0
        var t0 = now()
        for id in ids { sink += t.nodes[id]!.properties.opacity }
        breakdown.lookup = Double(now() - t0) / Double(n)
        let compiled = ids.map { t.nodes[$0]!.animations[0].compiled }
        t0 = now()
        for c in compiled {
            if case .double(let v)? = c.value(forKeyPathAt: 0, at: 0.3, underlying: .double(1)) { sink += v }
        }
        breakdown.engine = Double(now() - t0) / Double(n)
        if sink == 42 { print("") }
    }
    let opacity = presentationCost(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: forever)))
    let position = presentationCost(.basic(BasicAnimation(keyPath: "position", from: .point(.zero), to: .point(Point(100, 50)), timing: forever)))
    let rotation = presentationCost(.basic(BasicAnimation(keyPath: "transform.rotation.z", from: .double(0), to: .double(6.28), timing: forever)))

    // Memory per plain layer: both trees the daemon keeps, as resident growth and as live heap
    // bytes (glibc's mallinfo2: allocated chunks, no fragmentation), each tree's share apart.
    func residentBytes() -> Int {
        HeapTrim.trim()   // freed heap back first: what stays is live
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = s.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
    let m = 100_000
    // The memory bench's layer: 8 × 8, a position, a background, hidden.
    var ops: [LayerChange] = []
    ops.reserveCapacity(m * 6)
    for i in 1...m {
        let id = UInt32(i)
        ops += [.create(id, .layer), .set(id, keyPath: "bounds", value: .rect(Rect(0, 0, 8, 8))),
                .set(id, keyPath: "position", value: .point(Point(Double(i % 160) * 8 + 4, Double(i / 160 % 90) * 8 + 4))),
                .set(id, keyPath: "backgroundColor", value: .color(Color(Double(i % 7) / 7, 0.5, 1))),
                .set(id, keyPath: "hidden", value: .bool(true)),
                .addSublayer(parent: 0, child: id)]
    }
    let commit = Commit(client: 1, content: .operations(ops))
    ops = []
    var model = ModelTree()
    var render = LayerTree()
    render.apply(try! model.validate(Commit(client: 1, content: .connect)), at: 0)
    let before = residentBytes()
    let heap0 = HeapTrim.bytesInUse()
    var packet: CommitPacket? = try! model.validate(commit)
    let heapPacket = HeapTrim.bytesInUse()
    render.apply(packet!, at: 0)
    packet = nil
    let heapRender = HeapTrim.bytesInUse()
    var presentation = LayerTree()
    render.updatePresentation(&presentation, at: 0)   // shares the render tree's storage until patched
    let after = residentBytes()
    let heapAll = HeapTrim.bytesInUse()
    let perLayer = Double(after - before) / Double(m)
    guard model.shareNodes(with: presentation) else { benchFail("tree: the model and render trees differ") }
    let sharedPerLayer = Double(residentBytes() - before) / Double(m)
    withExtendedLifetime((model, render, presentation, commit)) {}   // the commit too: its release would count
    let heap = (model: Double(heapPacket - heap0) / Double(m), render: Double(heapRender - heapPacket) / Double(m),
                all: Double(heapAll - heap0) / Double(m))

    func f(_ v: Double) -> String { String(format: "%.1f", v) }
    print("""
    {"bench": "tree", "layers": \(n),
     "commitNsPerProperty": {"modelTree": \(f(modelCommit)), "renderTreeWithImplicitAnimations": \(f(renderCommit))},
     "presentationNsPerLayer": {"opacity": \(f(opacity)), "position": \(f(position)), "transform.rotation.z": \(f(rotation))},
     "opacityBreakdownNsPerLayer": {"nodeLookup": \(f(breakdown.lookup)), "animationEngine": \(f(breakdown.engine))},
     "presentationMsPerFrameFor10000": {"opacity": \(String(format: "%.3f", opacity * Double(n) / 1e6)), "position": \(String(format: "%.3f", position * Double(n) / 1e6))},
     "bytesPerLayer": \(f(perLayer)), "sharedBytesPerLayer": \(f(sharedPerLayer)), "bytesPerLayerNote": "resident growth of 100000 plain layers (8x8, position, background, hidden) in the model and render trees",
     "heapBytesPerLayer": {"modelTreeWithPacket": \(f(heap.model)), "renderTree": \(f(heap.render)), "all": \(f(heap.all))},
     "layerPropertiesSize": \(MemoryLayout<LayerProperties>.stride), "layerNodeSize": \(MemoryLayout<LayerNode>.stride)}
    """)
}

