import LaminaWire

/// A path of a shape group: its value over frames (flat, `BezPath`), the matrix of the
/// groups between it and the style that draws it, and the trim applied to it.
struct PathSource {
    var signal: Signal
    var matrix = Affine.identity
    var trim: Trim? = nil
    /// A rectangle rebuilt with rounded corners (`rd`).
    var rounded: ((Signal) -> Signal)? = nil
    /// The JSON path of a group whose animated transform is frozen when an outer style draws it.
    var frozenGroup: String? = nil
    /// A static rectangle (or circle: a rounded square) as a box centre, size and corner
    /// radius, in the path's coordinates: what a gradient layer can fill without a mask.
    var box: Box? = nil
}

struct Box { var cx, cy, w, h, radius: Double }

struct Trim {
    var s: Signal, e: Signal, o: Signal
    var individually: Bool
    var path: String

    /// The range a trim keeps from start `s` and end `e` (percent) and offset `o` (degrees:
    /// a whole turn is the path's length), as fractions of the path's length: [lo, hi] with
    /// lo in 0…1 and hi up to 2 (past 1 the range wraps onto the path's start).
    static func range(_ s: [Double], _ e: [Double], _ o: [Double]) -> (Double, Double) {
        let a = (s.first ?? 0) / 100, b = (e.first ?? 100) / 100, off = (o.first ?? 0) / 360
        var lo = min(max(min(a, b), 0), 1), hi = min(max(max(a, b), 0), 1)
        let shift = off - off.rounded(.down)
        lo += shift; hi += shift
        if lo >= 1 { lo -= 1; hi -= 1 }
        return (lo, hi)
    }
}

extension Mapper {
    static let maxShapeDepth = 64

    /// A shape layer's items as scene layers, bottom to top.
    mutating func shapeItems(_ items: [Node], _ tm: TimeMap, baseName: String) throws(SceneError) -> [Out] {
        try shapeGroup(items, tm, baseName, depth: 0, trim: nil).nodes.reversed()
    }

    /// A group's items front to back (Lottie lists the frontmost first), and its paths for the
    /// styles of enclosing groups.
    mutating func shapeGroup(_ items: [Node], _ tm: TimeMap, _ baseName: String, depth: Int, trim outer: Trim?) throws(SceneError)
        -> (nodes: [Out], paths: [PathSource]) {
        guard depth <= Mapper.maxShapeDepth else {
            throw SceneError(path: items.first?.path ?? "shapes", "shape groups nest deeper than \(Mapper.maxShapeDepth)")
        }
        var nodes: [Out] = []
        var paths: [PathSource] = []
        // Trim paths (`tm`) cut every path listed before them, in their group and in the groups
        // before them (whichever style draws it, before or after the trim): the nearest trim
        // after each item, else the enclosing group's.
        var trims: [Trim?] = Array(repeating: nil, count: items.count)
        var next: Trim? = nil
        for i in items.indices.reversed() {
            trims[i] = next ?? outer
            let item = items[i]
            guard case .object = item.json, item["hd"]?.bool() != true, (try? item["ty"]?.string()) == "tm" else { continue }
            if next != nil || outer != nil { warnings.add(item.path, "a second trim of the same paths", "not mapped (the nearest trim is used)") }
            next = Trim(s: Signal(try item["s"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0])),
                        e: Signal(try item["e"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [100])),
                        o: Signal(try item["o"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0])),
                        individually: try item.number("m", default: 1) == 2, path: item.path)
        }
        for (index, item) in items.enumerated() {
            _ = try item.object()
            if item["hd"]?.bool() == true { continue }
            let pathCount = paths.count
            defer { for i in min(pathCount, paths.count)..<paths.count where paths[i].trim == nil { paths[i].trim = trims[index] } }
            let ty = try item.required("ty").string()
            // Direction 3 draws rectangles, ellipses and stars the other way round (`d` of a
            // stroke is its dashes).
            let direction = ["rc", "el", "sr"].contains(ty) ? try item.number("d", default: 1) : 1
            let reversed = direction == 3
            switch ty {
            case "sh":
                let prop = try Prop(path: item.required("ks"), warnings)
                paths.append(PathSource(signal: Signal(prop)))
            case "rc":
                let p = Signal(try Prop(numbers: item.required("p"), warnings))
                let s = Signal(try Prop(numbers: item.required("s"), warnings))
                let r = Signal(try item["r"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0]))
                let sig = Signal.combine([p, s, r]) { v in BezPath.rect(v[0], v[1], v[2].first ?? 0, reversed: reversed) }
                let rounded: (Signal) -> Signal = { rd in
                    Signal.combine([p, s, r, rd]) { v in BezPath.rect(v[0], v[1], max(v[2].first ?? 0, v[3].first ?? 0), reversed: reversed) }
                }
                var box: Box? = nil
                if p.isStatic, s.isStatic, r.isStatic {
                    let pv = p.eval(0), sv = s.eval(0)
                    let w = abs(sv.first ?? 0), h = abs(sv.count > 1 ? sv[1] : w)
                    box = Box(cx: pv.first ?? 0, cy: pv.count > 1 ? pv[1] : 0, w: w, h: h,
                              radius: max(0, min(r.eval(0).first ?? 0, min(w, h) / 2)))
                }
                paths.append(PathSource(signal: sig, rounded: rounded, box: box))
            case "el":
                let p = Signal(try Prop(numbers: item.required("p"), warnings))
                let s = Signal(try Prop(numbers: item.required("s"), warnings))
                var box: Box? = nil
                if p.isStatic, s.isStatic {
                    let pv = p.eval(0), sv = s.eval(0)
                    let w = abs(sv.first ?? 0), h = abs(sv.count > 1 ? sv[1] : w)
                    if w == h { box = Box(cx: pv.first ?? 0, cy: pv.count > 1 ? pv[1] : 0, w: w, h: h, radius: w / 2) }
                }
                paths.append(PathSource(signal: Signal.combine([p, s]) { v in BezPath.ellipse(v[0], v[1], reversed: reversed) }, box: box))
            case "sr":
                let polygon = try item.number("sy", default: 1) == 2
                func prop(_ k: String, _ d: Double) throws(SceneError) -> Signal {
                    Signal(try item[k].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [d]))
                }
                let inputs = [try prop("p", 0), try prop("pt", 5), try prop("r", 0), try prop("or", 0), try prop("ir", 0),
                              try prop("os", 0), try prop("is", 0)]
                guard (inputs[1].eval(0).first ?? 0) <= 1000 else { throw SceneError(path: item.at("pt"), "at most 1000 points") }
                paths.append(PathSource(signal: Signal.combine(inputs, affine: false) { v in
                    BezPath.star(v[0], points: v[1].first ?? 0, rotation: v[2].first ?? 0, outer: v[3].first ?? 0,
                                 inner: v[4].first ?? 0, outerRound: v[5].first ?? 0, innerRound: v[6].first ?? 0,
                                 polygon: polygon, reversed: reversed)
                }))
            case "gr":
                let its = try item["it"]?.array() ?? []
                let trNode = its.last(where: { (try? $0["ty"]?.string()) == "tr" })
                let content = its.filter { (try? $0["ty"]?.string()) != "tr" }
                let outer: Out, inner: Out
                var matrix = Affine.identity
                var animated = false
                if let trNode {
                    (outer, inner) = try transformLayers(trNode, tm, opacity: true, owner: item)
                    (matrix, animated) = try staticMatrix(trNode)
                } else {
                    outer = try newLayer(); inner = outer
                }
                keyStack.append(try item["nm"]?.string() ?? "")
                let sub = try shapeGroup(content, tm, baseName, depth: depth + 1, trim: trims[index])
                keyStack.removeLast()
                inner.sublayers = sub.nodes.reversed()
                nodes.append(outer)
                for var p in sub.paths {
                    p.matrix = p.matrix.then(matrix)
                    if animated, p.frozenGroup == nil { p.frozenGroup = trNode?.path }
                    paths.append(p)
                }
            case "fl", "st", "gf", "gs":
                nodes += try styleLayers(item, ty, paths, tm, baseName)
            case "tm": continue
            case "rd":
                let rd = Signal(try Prop(numbers: item.required("r"), warnings))
                for i in paths.indices {
                    if let b = paths[i].box {
                        if rd.isStatic { paths[i].box?.radius = max(b.radius, min(rd.eval(0).first ?? 0, min(b.w, b.h) / 2)) }
                        else { paths[i].box = nil }
                    }
                    if let f = paths[i].rounded { paths[i].signal = f(rd); paths[i].rounded = nil }
                    else { warnings.add(item.path, "rounded corners on a path that is not a rectangle") }
                }
            case "tr": continue
            case "rp":
                if !paths.isEmpty, items.drop(while: { $0.path != item.path }).contains(where: { n in
                    ["fl", "st", "gf", "gs"].contains((try? n["ty"]?.string()) ?? "") }) {
                    warnings.add(item.path, "repeater of paths drawn by a style after it", "not mapped (those paths are drawn once)")
                }
                if let r = try repeater(item, nodes, tm) { nodes = [r] }
            case "mm":
                // Mode 1, merge: the paths before it as one compound path, filled by its fill's
                // rule — what the styles after it draw already. Modes 2–5 (add, subtract,
                // intersect, exclude intersections): the paths before it, topmost (listed
                // first) first, each through its group matrices, combined in order as regions
                // (`PathBoolean`: subtract is the topmost less the others, as After Effects
                // defines it), one polygon path that every style after it fills or strokes.
                let mode = try item.number("mm", default: 1)
                guard mode != 1, !paths.isEmpty else { continue }
                guard [2, 3, 4, 5].contains(mode) else {
                    warnings.add(item.at("mm"), "merge paths mode \(JSON.format(mode))", "not mapped (drawn as merge: the paths together)")
                    continue
                }
                // A trim between a path and the merge (not the one after the merge, which
                // cuts the result) cuts the operand first: its geometry trimmed (`PathTrim`),
                // sampled once per frame when it animates. An individual trim (m 2) cuts the
                // operands it reaches as one run, one after another.
                let after = trims[index]?.path
                var seen: [String: Int] = [:]
                var operands: [Signal] = []
                for p in paths {
                    var sig = p.signal
                    if let t = p.trim, t.path != after {
                        let group = paths.filter { $0.trim?.path == t.path }
                        if t.individually, group.count > 1 {
                            let k = seen[t.path, default: 0]; seen[t.path] = k + 1
                            sig = Signal.combine(group.map(\.signal) + [t.s, t.e, t.o], affine: false) { v in
                                BezPath.trimmedRun(Array(v[0..<group.count]), k, Trim.range(v[group.count], v[group.count + 1], v[group.count + 2]))
                            }
                        } else {
                            sig = Signal.combine([sig, t.s, t.e, t.o], affine: false) { v in
                                BezPath.trimmed(v[0], Trim.range(v[1], v[2], v[3]))
                            }
                        }
                    }
                    operands.append(Signal.combine([sig]) { v in BezPath.transform(v[0], p.matrix) })
                }
                guard BezPath.merged(operands.map { $0.eval(0) }, mode: Int(mode)) != nil else {
                    warnings.add(item.path, "merge paths of more than \(BezPath.mergeEdgeLimit) edges", "not mapped (drawn as merge: the paths together)")
                    continue
                }
                let merged = Signal.combine(operands, affine: false) { v in BezPath.merged(v, mode: Int(mode)) ?? v.flatMap { $0 } }
                var source = PathSource(signal: merged)
                source.frozenGroup = paths.first(where: { $0.frozenGroup != nil })?.frozenGroup
                source.trim = trims[index]
                paths = [source]
            case "op":
                // Offset path: amount (animatable), line join (1 miter, 2 round, 3 bevel) and
                // miter limit; not affine in the amount (joins change with its sign), so an
                // animated amount is sampled once per frame.
                let amount = Signal(try Prop(numbers: item.required("a"), warnings))
                var limit = Signal.constant([4])
                if let n = item["ml"] {
                    if case .object = n.json { limit = Signal(try Prop(numbers: n, warnings)) } else { limit = .constant([try n.number()]) }
                }
                let join = try item.number("lj", default: 1).clampedInt
                modify(&paths, amount, limit, affine: false) { v in
                    BezPath.offset(v[0], amount: v[1].first ?? 0, join: join, miterLimit: max(v[2].first ?? 4, 1))
                }
            case "pb":
                let amount = Signal(try Prop(numbers: item.required("a"), warnings, mult: 0.01))
                modify(&paths, amount) { v in BezPath.puckerBloat(v[0], v[1].first ?? 0) }
            case "zz":
                func prop(_ k: String, _ d: Double) throws(SceneError) -> Signal {
                    Signal(try item[k].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [d]))
                }
                let size = try prop("s", 0), ridges = try prop("r", 0), type = try prop("pt", 1)
                modify(&paths, size, ridges, type) { v in
                    BezPath.zigZag(v[0], size: v[1].first ?? 0, ridges: v[2].first ?? 0, smooth: (v[3].first ?? 1) == 2)
                }
            case "tw":
                // Twist: no player implements it and After Effects does not publish it; Lamina's
                // own definition (`PathTwist`): each point turned about the centre `c` by the
                // angle `a` × its distance from the centre / the radius of its path's bounds.
                // Not affine in the angle: an animated twist is sampled once per frame.
                let angle = Signal(try item["a"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0]))
                let center = Signal(try item["c"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0, 0]))
                modify(&paths, angle, center, affine: false) { v in BezPath.twisted(v[0], degrees: v[1].first ?? 0, center: v[2]) }
            default: warnings.add(item.path, "shape item \"\(ty)\"")
            }
        }
        return (nodes, paths)
    }

    /// A shape modifier applied to every path before it in its group: `f` of the path's value
    /// and the modifier's parameters, at each keyframe of the path (exact when they share
    /// keys or only one animates; sampled once per frame otherwise). The path is no longer a
    /// plain rectangle or circle (no box, no rounding).
    func modify(_ paths: inout [PathSource], _ params: Signal..., affine: Bool = true, f: @escaping ([[Double]]) -> [Double]) {
        for i in paths.indices {
            paths[i].signal = Signal.combine([paths[i].signal] + params, affine: affine, f)
            paths[i].box = nil
            paths[i].rounded = nil
        }
    }

    /// A repeater (`rp`) of the items before it in its group (`nodes`, front to back) as a
    /// replicator layer: copy k (k = 0 … c − 1) has the repeater's transform applied k + o
    /// times — scale and rotation about the anchor `a`, then the position `p` (lottie-web's
    /// and rlottie's order) — and opacity so + (eo − so)·k/(c − 1). The replicator's centre
    /// is the anchor, so its instanceTransform is scale · rotate · translate(p); an offset o
    /// is the content's own transform, the same matrix o times.
    mutating func repeater(_ item: Node, _ nodes: [Out], _ tm: TimeMap) throws(SceneError) -> Out? {
        guard !nodes.isEmpty else { return nil }
        func prop(_ n: Node?, _ d: [Double], _ mult: Double = 1) throws(SceneError) -> Prop {
            try n.map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: mult) } ?? Prop(constant: d)
        }
        let cProp = try prop(item["c"], [1]), oProp = try prop(item["o"], [0])
        if !oProp.isStatic { warnings.add(item.at("o"), "animated repeater offset", "not mapped yet (the first value is used)") }
        let tr = try item.required("tr")
        let so = Signal(try prop(tr["so"], [100], 0.01)), eo = Signal(try prop(tr["eo"], [100], 0.01))
        // Animated copies (rlottie and ThorVG draw n = ⌊c(t)⌋ copies at each frame): the levels
        // n reaches at whole frames, n₁ < n₂ < …, each a replicator of copies [nᵢ₋₁, nᵢ) over
        // its own copy of the content (moved by the step nᵢ₋₁ times more), shown while n ≥ nᵢ
        // (opacity sampled once per frame). Only where every copy has one opacity (so = eo,
        // static), and for at most 64 levels.
        let countSignal = Signal(cProp)
        var levels: [Double]? = nil
        var copies = (cProp.first.first ?? 1).rounded(.down)
        if let (lo, hi) = countSignal.span {
            let frames = [lo] + stride(from: lo.rounded(.down) + 1, to: hi, by: 1).map { $0 } + [hi]
            let reached = Set(frames.map { min(max((countSignal.eval($0).first ?? 0).rounded(.down), 0), 10_001) }).subtracting([0]).sorted()
            if so.isStatic, eo.isStatic, so.eval(0) == eo.eval(0), reached.count <= 64 {
                levels = reached
                copies = reached.last ?? 0
            } else {
                warnings.add(item.at("c"), "animated repeater copies (with opacities that differ or animate, or more than 64 counts)", "not mapped yet (the first value is used)")
            }
        }
        guard copies <= 10_000 else { throw SceneError(path: item.at("c"), "at most 10000 copies") }
        if copies < 1 { return try newLayer() }
        var offset = oProp.first.first ?? 0
        if offset != offset.rounded() { warnings.add(item.at("o"), "fractional repeater offset", "rounded"); offset.round() }
        guard abs(offset) <= 10_000 else { throw SceneError(path: item.at("o"), "must be within ±10000") }
        if try item.number("m", default: 1) == 2 { warnings.add(item.at("m"), "repeater composite below", "not mapped (copies are stacked above)") }
        let a = try prop(tr["a"], [0, 0])
        if !a.isStatic { warnings.add(tr.at("a"), "animated repeater anchor", "not mapped yet (the first value is used)") }
        let p = Signal(try prop(tr["p"], [0, 0])), s = Signal(try prop(tr["s"], [100, 100], 0.01))
        let r = Signal(try prop(tr["r"], [0], .pi / 180))
        let step = Signal.combine([s, r, p], affine: false) { v in
            Affine.scale(v[0].first ?? 1, v[0].count > 1 ? v[0][1] : v[0].first ?? 1).then(.rotate(v[1].first ?? 0))
                .then(.translate(v[2].first ?? 0, v[2].count > 1 ? v[2][1] : 0)).json.numbers
        }
        let ax = a.first.first ?? 0, ay = a.first.count > 1 ? a.first[1] : 0
        let n = copies
        // Copies [first, first + count) of `items`.
        func segment(_ first: Double, _ count: Double, _ items: [Out]) throws(SceneError) -> Out {
            let rep = try newLayer("replicator")
            rep.props = [("bounds", nums([ax, ay, 0, 0])), ("position", nums([ax, ay])), ("instanceCount", num(count))]
            try animate(rep, "instanceTransform", step, tm) { nums($0) }
            let color = Signal.combine([so]) { v in [1, 1, 1, min(max(v[0].first ?? 1, 0), 1)] }
            try animate(rep, "instanceColor", color, tm) { colorJSON($0, alpha: $0[3]) }
            let alphaStep = Signal.combine([so, eo]) { v in [n > 1 ? ((v[1].first ?? 1) - (v[0].first ?? 1)) / (n - 1) : 0] }
            try animate(rep, "instanceAlphaOffset", alphaStep, tm) { num($0[0]) }
            let content = try newLayer()
            content.sublayers = items.reversed()
            let shift = offset + first
            if shift != 0 {
                content.props = [("bounds", nums([ax, ay, 0, 0])), ("position", nums([ax, ay]))]
                let times = Int(abs(shift))
                let moved = Signal.combine([step], affine: false) { v in
                    let m = v[0]
                    var one = Affine(a: m[0], b: m[1], c: m[4], d: m[5], e: m[12], f: m[13])
                    if shift < 0 {
                        let det = one.a * one.d - one.b * one.c
                        let ia = one.d / det, ib = -one.b / det, ic = -one.c / det, id = one.a / det
                        one = Affine(a: ia, b: ib, c: ic, d: id, e: -(one.e * ia + one.f * ic), f: -(one.e * ib + one.f * id))
                    }
                    var power = Affine.identity
                    for _ in 0..<times { power = power.then(one) }
                    return power.json.numbers
                }
                try animate(content, "transform", moved, tm) { nums($0) }
            }
            rep.sublayers = [content]
            return rep
        }
        guard let levels else { return try segment(0, copies, nodes) }
        let group = try newLayer()
        var previous = 0.0
        for level in levels {
            let seg = try segment(previous, level - previous, previous == 0 ? nodes : try copied(nodes))
            let shown = Signal.combine([countSignal], affine: false) { v in [(v[0].first ?? 0).rounded(.down) >= level ? 1 : 0] }
            try animate(seg, "opacity", shown, tm) { num($0[0]) }
            group.sublayers.append(seg)
            previous = level
        }
        return group
    }

    /// A copy of mapped layers (their names made unique again: `NAME#2`, …).
    mutating func copied(_ layers: [Out]) throws(SceneError) -> [Out] {
        var out: [Out] = []
        for o in layers {
            let c = try newLayer(o.type)
            c.name = o.name.flatMap { uniqueName($0) }
            c.props = o.props
            c.anims = o.anims
            c.sublayers = try copied(o.sublayers)
            c.mask = try o.mask.map { m throws(SceneError) in try copied([m])[0] }
            out.append(c)
        }
        return out
    }

    /// A group transform's matrix at the start (and whether it animates).
    func staticMatrix(_ tr: Node) throws(SceneError) -> (Affine, Bool) {
        func prop(_ k: String, _ d: [Double], _ mult: Double = 1) throws(SceneError) -> Prop {
            try tr[k].map { n throws(SceneError) in try Prop(numbers: n, Warnings(), mult: mult) } ?? Prop(constant: d)
        }
        let a = try prop("a", [0, 0]), p = try prop("p", [0, 0]), s = try prop("s", [100, 100], 0.01)
        let r = try prop("r", [0], .pi / 180), sk = try prop("sk", [0]), sa = try prop("sa", [0])
        let animated = [a, p, s, r, sk, sa].contains { !$0.isStatic }
        func v(_ x: Prop, _ i: Int, _ d: Double) -> Double { i < x.first.count ? x.first[i] : d }
        let m = Affine.translate(-v(a, 0, 0), -v(a, 1, 0))
            .then(.scale(v(s, 0, 1), v(s, 1, v(s, 0, 1))))
            .then(.skew(v(sk, 0, 0), axis: v(sa, 0, 0)))
            .then(.rotate(v(r, 0, 0)))
            .then(.translate(v(p, 0, 0), v(p, 1, 0)))
        return (m, animated)
    }

    /// The shape layers of a fill, stroke or gradient over the paths before it in its group.
    mutating func styleLayers(_ item: Node, _ ty: String, _ paths: [PathSource], _ tm: TimeMap,
                              _ baseName: String) throws(SceneError) -> [Out] {
        guard !paths.isEmpty else { return [] }
        for p in paths { if let g = p.frozenGroup { warnings.add(g, "animated group transform under an outer fill or stroke", "not mapped yet (its first frame is used)") } }
        let stroke = ty == "st" || ty == "gs"
        // A stroke of width 0 throughout draws nothing (rlottie, lottie-web).
        if stroke, let w = item["w"], try Prop(numbers: w, warnings).keys.allSatisfy({ ($0.v.first ?? 0) <= 0 }) { return [] }
        let opacity = Signal(try item["o"].map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: 0.01) } ?? Prop(constant: [1]))
        let gradient = ty == "gf" || ty == "gs"
        if ty == "gf", paths.count == 1, let layer = try boxGradient(item, paths[0], opacity, tm, baseName) { return [layer] }
        // A gradient of any other shape: a gradient layer masked by the shape drawn opaque.
        let rgba = gradient ? Signal.constant([1, 1, 1, 1]) : Signal.combine([Signal(try Prop(numbers: item.required("c"), warnings)), opacity]) { v in
            let c = v[0]
            let a = (c.count > 3 ? c[3] : 1) * (v[1].first ?? 1)
            return [c.count > 0 ? c[0] : 0, c.count > 1 ? c[1] : 0, c.count > 2 ? c[2] : 0, a]
        }
        // A simultaneous trim cuts each path on its own: one layer per path.
        var sets: [[PathSource]] = [paths]
        if stroke, let t = paths.first?.trim, !t.individually, paths.count > 1 { sets = paths.map { [$0] } }
        if !stroke, paths.contains(where: { $0.trim != nil }) { warnings.add(item.path, "trim paths on a fill") }
        var out: [Out] = []
        let styleName = try item["nm"]?.string() ?? ty
        var bounds: [Double]? = nil
        for set in sets {
            let layer = try newLayer("shape")
            if !gradient { layer.name = uniqueName(baseName + "/" + styleName) }
            if let n = layer.name {
                targets.append(LottieTarget(keyPath: keyStack + [try item["nm"]?.string() ?? ty], layer: n, kind: stroke ? .stroke : .fill))
            }
            let sources = set.map { p in Signal.combine([p.signal]) { v in BezPath.transform(v[0], p.matrix) } }
            let path = Signal.combine(sources) { v in v.flatMap { $0 } }
            if gradient { bounds = BezPath.union(bounds, pathBounds(path)) }
            try animate(layer, "path", path, tm) { v in
                let d = BezPath.svg(v)
                return d.isEmpty ? .null : .string(d)
            }
            if stroke {
                layer.props.append(("fillColor", .null))
                try animate(layer, "strokeColor", rgba, tm) { colorJSON($0, alpha: $0[3]) }
                let w = Signal(try item["w"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [1]))
                try animate(layer, "lineWidth", w, tm) { num(max($0.first ?? 0, 0)) }
                let lc = (try item.number("lc", default: 2).clampedInt), lj = (try item.number("lj", default: 2).clampedInt)
                layer.props.append(("lineCap", .string(lc == 2 ? "round" : lc == 3 ? "square" : "butt")))
                layer.props.append(("lineJoin", .string(lj == 2 ? "round" : lj == 3 ? "bevel" : "miter")))
                let ml = try item.number("ml", default: 4)
                layer.props.append(("miterLimit", num(max(ml, 0))))
                if let d = item["d"] { try dashes(layer, d, tm) }
                if let t = set.first?.trim {
                    try trim(layer, t, tm, part: 0)
                    // An offset moves the range past the path's start: the part beyond it is a
                    // second stroke from the start.
                    if !t.o.isStatic || (t.o.eval(0).first ?? 0).truncatingRemainder(dividingBy: 360) != 0 {
                        let wrap = try newLayer("shape")
                        wrap.name = layer.name.flatMap { uniqueName($0 + "/wrap") }
                        wrap.props = layer.props.filter { $0.0 != "name" }
                        wrap.anims = layer.anims
                        try trim(wrap, t, tm, part: 1)
                        out.append(wrap)
                    }
                }
            } else {
                layer.props.append(("strokeColor", .null))
                try animate(layer, "fillColor", rgba, tm) { colorJSON($0, alpha: $0[3]) }
                let r = try item.number("r", default: 1)
                layer.props.append(("fillRule", .string(r == 2 ? "evenOdd" : "nonZero")))
            }
            out.append(layer)
        }
        guard gradient, let box = bounds else { return out }
        // The gradient fills the shapes' bounds (a stroke's reach added); the shapes mask it.
        var pad = 1.0
        if stroke {
            let w = try item["w"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [1])
            let widest = w.keys.map { abs($0.v.first ?? 0) }.max() ?? 1
            pad += widest / 2 * max(1, try item.number("ml", default: 4))
        }
        let frame = [box[0] - pad, box[1] - pad, box[2] - box[0] + 2 * pad, box[3] - box[1] + 2 * pad]
        let g = try gradientLayer(item, frame: frame, opacity, tm, name: uniqueName(baseName + "/" + styleName))
        if let n = g.name {
            targets.append(LottieTarget(keyPath: keyStack + [try item["nm"]?.string() ?? ty], layer: n, kind: .gradient))
        }
        if out.count == 1 { g.mask = out[0] } else {
            let m = try newLayer()
            m.sublayers = out
            g.mask = m
        }
        return [g]
    }

    /// The bounds [minX, minY, maxX, maxY] of a path's vertices and handles over its frames
    /// (each keyframe and every whole frame between; nil when it draws nothing).
    func pathBounds(_ path: Signal) -> [Double]? {
        var frames: [Double] = [0]
        if let (lo, hi) = path.span {
            let n = max(1, min(limits.maxSamplesPerProperty, (hi - lo).rounded(.up).clampedInt))
            frames = (0...n).map { lo + (hi - lo) * Double($0) / Double(n) }
            if case .exact(let t, _) = path.keys { frames += t }
        }
        var box: [Double]? = nil
        for f in frames { box = BezPath.union(box, BezPath.bounds(path.eval(f))) }
        return box
    }

    /// A gradient fill of one static rectangle or circle as a gradient layer of the box
    /// (rounded by cornerRadius, clipped by masksToBounds; no mask). Nil when the box's group
    /// transforms are not axis-aligned.
    mutating func boxGradient(_ item: Node, _ source: PathSource, _ opacity: Signal, _ tm: TimeMap,
                              _ baseName: String) throws(SceneError) -> Out? {
        guard let b = source.box, source.frozenGroup == nil else { return nil }
        let m = source.matrix
        guard m.b == 0, m.c == 0, b.radius == 0 || abs(m.a) == abs(m.d) else { return nil }
        let (x0, y0) = m.apply(b.cx - b.w / 2, b.cy - b.h / 2), (x1, y1) = m.apply(b.cx + b.w / 2, b.cy + b.h / 2)
        let frame = [min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)]
        guard frame[2] > 0, frame[3] > 0 else { return nil }
        let name = uniqueName(baseName + "/" + (try item["nm"]?.string() ?? "gf"))
        let layer = try gradientLayer(item, frame: frame, opacity, tm, name: name)
        if let n = name { targets.append(LottieTarget(keyPath: keyStack + [try item["nm"]?.string() ?? "gf"], layer: n, kind: .gradient)) }
        if b.radius > 0 { layer.props += [("cornerRadius", num(b.radius * abs(m.a))), ("masksToBounds", .bool(true))] }
        return layer
    }

    /// A gradient layer of `frame` (in the style's coordinates: its bounds' origin is the
    /// frame's, so a mask's paths need no offset) for a gradient fill or stroke: colour stops
    /// and alpha stops merged (every position of either, each colour and alpha interpolated
    /// there, as rlottie does), start and end points (`s`, `e`) in unit coordinates of the
    /// frame, radial as a circle of radius |e − s| about s; all animated as the file's are.
    mutating func gradientLayer(_ item: Node, frame: [Double], _ opacity: Signal, _ tm: TimeMap,
                                name: String?) throws(SceneError) -> Out {
        let g = try item.required("g")
        let count = (try g.number("p", default: 0).clampedInt)
        guard count >= 1, count <= 1000 else { throw SceneError(path: g.at("p"), "must be in 1…1000") }
        let stopsProp = try Prop(numbers: g.required("k"), warnings)
        guard stopsProp.keys.allSatisfy({ $0.v.count >= 4 * count }) else {
            throw SceneError(path: g.at("k"), "needs 4 numbers per colour stop (\(count))")
        }
        let stops = Signal(stopsProp)
        let s = Signal(try Prop(numbers: item.required("s"), warnings)), e = Signal(try Prop(numbers: item.required("e"), warnings))
        if let h = item["h"], try Prop(numbers: h, warnings).keys.contains(where: { ($0.v.first ?? 0) != 0 }) {
            warnings.add(h.path, "radial highlight", "not mapped (drawn without it)")
        }
        let layer = try newLayer("gradient")
        layer.name = name
        let radial = try item.number("t", default: 1) == 2
        layer.props = [("bounds", nums(frame)), ("position", nums([frame[0] + frame[2] / 2, frame[1] + frame[3] / 2])),
                       ("gradientType", .string(radial ? "radial" : "axial"))]
        let merged = Signal.combine([stops], affine: false) { v in BezPath.gradientStops(v[0], count: count) }
        try animate(layer, "colors", merged, tm) { v in
            .array(stride(from: 0, to: v.count - 4, by: 5).map { colorJSON([v[$0 + 1], v[$0 + 2], v[$0 + 3]], alpha: v[$0 + 4]) })
        }
        try animate(layer, "locations", merged, tm) { v in nums(stride(from: 0, to: v.count - 4, by: 5).map { v[$0] }) }
        func unit(_ x: Double, _ y: Double) -> [Double] { [(x - frame[0]) / frame[2], (y - frame[1]) / frame[3]] }
        try animate(layer, "startPoint", s, tm) { v in nums(unit(v.first ?? 0, v.count > 1 ? v[1] : 0)) }
        let end = Signal.combine([s, e], affine: !radial) { v in
            let sx = v[0].first ?? 0, sy = v[0].count > 1 ? v[0][1] : 0
            let ex = v[1].first ?? 0, ey = v[1].count > 1 ? v[1][1] : 0
            guard radial else { return [ex, ey] }
            let r = ((ex - sx) * (ex - sx) + (ey - sy) * (ey - sy)).squareRoot()
            return [sx + r, sy + r]
        }
        try animate(layer, "endPoint", end, tm) { v in nums(unit(v[0], v[1])) }
        try animate(layer, "opacity", opacity, tm) { num(min(max($0.first ?? 1, 0), 1)) }
        return layer
    }

    /// A stroke's dash pattern (`d`: dashes `d`, gaps `g`, the offset `o`); animated dashes,
    /// gaps and offset keyframe `lineDashPattern` and `lineDashPhase` (exact where they share
    /// their keys, else sampled once per frame).
    mutating func dashes(_ layer: Out, _ d: Node, _ tm: TimeMap) throws(SceneError) {
        var lengths: [Signal] = [], phase = Signal.constant([0])
        for e in try d.array() {
            let n = try e["n"]?.string() ?? ""
            let p = Signal(try Prop(numbers: e.required("v"), warnings))
            if n == "o" { phase = p } else { lengths.append(p) }
        }
        guard lengths.count <= 64 else { throw SceneError(path: d.path, "at most 64 dashes and gaps") }
        let pattern = Signal.combine(lengths) { v in
            let p = v.map { max($0.first ?? 0, 0) }
            return p.count % 2 == 1 ? p + p : p
        }
        // A pattern that is never anything but zeros draws a solid line.
        let probes = [0.0] + (pattern.span.map { [$0.0, ($0.0 + $0.1) / 2, $0.1] } ?? [])
        guard !lengths.isEmpty, probes.contains(where: { t in pattern.eval(t).contains { $0 > 0 } }) else { return }
        try animate(layer, "lineDashPattern", pattern, tm) { nums($0) }
        try animate(layer, "lineDashPhase", phase, tm) { num($0.first ?? 0) }
    }

    /// Trim paths as strokeStart and strokeEnd: start and end in percent, the offset in
    /// degrees (a whole turn is the path's length). The range moved by the offset is
    /// [lo, hi] with lo in 0…1 and hi up to 2: part 0 strokes [lo, min(hi, 1)], part 1 the
    /// rest from the path's start, [0, max(hi − 1, 0)].
    mutating func trim(_ layer: Out, _ t: Trim, _ tm: TimeMap, part: Int) throws(SceneError) {
        let offset = !t.o.isStatic || (t.o.eval(0).first ?? 0) != 0
        // Without an offset the range is affine in start and end (keyed alike: exact keyframes).
        let range = Signal.combine([t.s, t.e, t.o], affine: !offset) { v in
            let (lo, hi) = Trim.range(v[0], v[1], v[2])
            var r = part == 0 ? [lo, min(hi, 1)] : [0, max(hi - 1, 0)]
            // An empty range draws nothing in Lottie (lottie-web, rlottie, ThorVG), but a
            // stroke whose strokeStart equals its strokeEnd draws its round or square caps as
            // a dot: the end is put 10⁻⁷ before the start instead.
            if r[1] <= r[0] { if r[0] < 1 { r[0] = min(r[0] + 1e-7, 1) } else { r[1] = 1 - 1e-7 } }
            return r
        }
        try animate(layer, "strokeStart", Signal.combine([range]) { [$0[0][0]] }, tm) { num($0[0]) }
        try animate(layer, "strokeEnd", Signal.combine([range]) { [$0[0][1]] }, tm) { num($0[0]) }
    }
}
