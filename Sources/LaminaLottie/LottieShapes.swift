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
}

extension Mapper {
    static let maxShapeDepth = 64

    /// A shape layer's items as scene layers, bottom to top.
    mutating func shapeItems(_ items: [Node], _ tm: TimeMap, baseName: String) throws(SceneError) -> [Out] {
        try shapeGroup(items, tm, baseName, depth: 0).nodes.reversed()
    }

    /// A group's items front to back (Lottie lists the frontmost first), and its paths for the
    /// styles of enclosing groups.
    mutating func shapeGroup(_ items: [Node], _ tm: TimeMap, _ baseName: String, depth: Int) throws(SceneError)
        -> (nodes: [Out], paths: [PathSource]) {
        guard depth <= Mapper.maxShapeDepth else {
            throw SceneError(path: items.first?.path ?? "shapes", "shape groups nest deeper than \(Mapper.maxShapeDepth)")
        }
        var nodes: [Out] = []
        var paths: [PathSource] = []
        for item in items {
            _ = try item.object()
            if item["hd"]?.bool() == true { continue }
            let ty = try item.required("ty").string()
            // Direction 3 draws rectangles, ellipses and stars the other way round (`d` of a
            // stroke is its dashes).
            let direction = ["rc", "el", "sr"].contains(ty) ? try item.number("d", default: 1) : 1
            let reversed = direction == 3
            switch ty {
            case "sh":
                let prop = try Prop(item.required("ks"), warnings) { v throws(SceneError) in try BezPath.read(v) }
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
                let inputs = [try prop("p", 0), try prop("pt", 5), try prop("r", 0), try prop("or", 0), try prop("ir", 0)]
                for k in ["os", "is"] {
                    if let n = item[k], try Prop(numbers: n, warnings).keys.contains(where: { ($0.v.first ?? 0) != 0 }) {
                        warnings.add(n.path, "polystar roundness")
                    }
                }
                guard (inputs[1].eval(0).first ?? 0) <= 1000 else { throw SceneError(path: item.at("pt"), "at most 1000 points") }
                paths.append(PathSource(signal: Signal.combine(inputs, affine: false) { v in
                    BezPath.star(v[0], points: v[1].first ?? 0, rotation: v[2].first ?? 0, outer: v[3].first ?? 0,
                                 inner: v[4].first ?? 0, polygon: polygon, reversed: reversed)
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
                let sub = try shapeGroup(content, tm, baseName, depth: depth + 1)
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
            case "tm":
                let trim = Trim(s: Signal(try item["s"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0])),
                                e: Signal(try item["e"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [100])),
                                o: Signal(try item["o"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0])),
                                individually: try item.number("m", default: 1) == 2, path: item.path)
                for i in paths.indices {
                    if paths[i].trim != nil { warnings.add(item.path, "a second trim of the same path") }
                    paths[i].trim = trim
                }
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
            case "mm": warnings.add(item.path, "merge paths")
            case "op": warnings.add(item.path, "offset path")
            case "pb": warnings.add(item.path, "pucker/bloat")
            case "zz": warnings.add(item.path, "zig-zag")
            case "tw": warnings.add(item.path, "twist")
            default: warnings.add(item.path, "shape item \"\(ty)\"")
            }
        }
        return (nodes, paths)
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
        if !cProp.isStatic { warnings.add(item.at("c"), "animated repeater copies", "not mapped yet (the first value is used)") }
        if !oProp.isStatic { warnings.add(item.at("o"), "animated repeater offset", "not mapped yet (the first value is used)") }
        let copies = (cProp.first.first ?? 1).rounded(.down)
        guard copies <= 10_000 else { throw SceneError(path: item.at("c"), "at most 10000 copies") }
        if copies < 1 { return try newLayer() }
        var offset = oProp.first.first ?? 0
        if offset != offset.rounded() { warnings.add(item.at("o"), "fractional repeater offset", "rounded"); offset.round() }
        guard abs(offset) <= 10_000 else { throw SceneError(path: item.at("o"), "must be within ±10000") }
        if try item.number("m", default: 1) == 2 { warnings.add(item.at("m"), "repeater composite below", "not mapped (copies are stacked above)") }
        let tr = try item.required("tr")
        let a = try prop(tr["a"], [0, 0])
        if !a.isStatic { warnings.add(tr.at("a"), "animated repeater anchor", "not mapped yet (the first value is used)") }
        let p = Signal(try prop(tr["p"], [0, 0])), s = Signal(try prop(tr["s"], [100, 100], 0.01))
        let r = Signal(try prop(tr["r"], [0], .pi / 180))
        let so = Signal(try prop(tr["so"], [100], 0.01)), eo = Signal(try prop(tr["eo"], [100], 0.01))
        let step = Signal.combine([s, r, p], affine: false) { v in
            Affine.scale(v[0].first ?? 1, v[0].count > 1 ? v[0][1] : v[0].first ?? 1).then(.rotate(v[1].first ?? 0))
                .then(.translate(v[2].first ?? 0, v[2].count > 1 ? v[2][1] : 0)).json.numbers
        }
        let ax = a.first.first ?? 0, ay = a.first.count > 1 ? a.first[1] : 0
        let rep = try newLayer("replicator")
        rep.props = [("bounds", nums([ax, ay, 0, 0])), ("position", nums([ax, ay])), ("instanceCount", num(copies))]
        try animate(rep, "instanceTransform", step, tm) { nums($0) }
        let n = copies
        let color = Signal.combine([so]) { v in [1, 1, 1, min(max(v[0].first ?? 1, 0), 1)] }
        try animate(rep, "instanceColor", color, tm) { colorJSON($0, alpha: $0[3]) }
        let alphaStep = Signal.combine([so, eo]) { v in [n > 1 ? ((v[1].first ?? 1) - (v[0].first ?? 1)) / (n - 1) : 0] }
        try animate(rep, "instanceAlphaOffset", alphaStep, tm) { num($0[0]) }
        let content = try newLayer()
        content.sublayers = nodes.reversed()
        if offset != 0 {
            content.props = [("bounds", nums([ax, ay, 0, 0])), ("position", nums([ax, ay]))]
            let times = Int(abs(offset))
            let moved = Signal.combine([step], affine: false) { v in
                let m = v[0]
                var one = Affine(a: m[0], b: m[1], c: m[4], d: m[5], e: m[12], f: m[13])
                if offset < 0 {
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
        let opacity = Signal(try item["o"].map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: 0.01) } ?? Prop(constant: [1]))
        if ty == "gf", paths.count == 1, let layer = try gradientLayer(item, paths[0], opacity, tm, baseName) { return [layer] }
        var color: Signal
        if ty == "gf" || ty == "gs" {
            warnings.add(item.path, ty == "gf" ? "gradient fill on a path other than one rectangle or circle" : "gradient stroke",
                         "not mapped yet (drawn in the mean colour of its stops)")
            let g = try item.required("g")
            let count = (try g.number("p", default: 0).clampedInt)
            guard count >= 0, count <= 1000 else { throw SceneError(path: g.at("p"), "must be in 0…1000") }
            let stops = Signal(try Prop(numbers: g.required("k"), warnings))
            color = Signal.combine([stops]) { v in
                let s = v[0]
                var sum = [0.0, 0.0, 0.0]
                let n = min(count, s.count / 4)
                guard n > 0 else { return [0, 0, 0] }
                for i in 0..<n { for c in 0..<3 { sum[c] += s[4 * i + 1 + c] } }
                return sum.map { $0 / Double(n) }
            }
        } else {
            color = Signal(try Prop(numbers: item.required("c"), warnings))
        }
        let rgba = Signal.combine([color, opacity]) { v in
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
        for set in sets {
            let layer = try newLayer("shape")
            layer.name = uniqueName(baseName + "/" + styleName)
            if let n = layer.name {
                targets.append(LottieTarget(keyPath: keyStack + [try item["nm"]?.string() ?? ty], layer: n, kind: stroke ? .stroke : .fill))
            }
            let sources = set.map { p in Signal.combine([p.signal]) { v in BezPath.transform(v[0], p.matrix) } }
            let path = Signal.combine(sources) { v in v.flatMap { $0 } }
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
                if let d = item["d"] { try dashes(layer, d) }
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
        return out
    }

    /// A gradient fill of one static rectangle or circle as a gradient layer: its frame the
    /// box (rounded by cornerRadius, clipped by masksToBounds), its colour stops with the
    /// alpha stops interpolated at them, start and end points (`s`, `e`) in unit coordinates of
    /// the box; radial as a circle of radius |e − s| about s. Nil when the box's group
    /// transforms are not axis-aligned (then the mean colour is used).
    mutating func gradientLayer(_ item: Node, _ source: PathSource, _ opacity: Signal, _ tm: TimeMap,
                                _ baseName: String) throws(SceneError) -> Out? {
        guard let b = source.box, source.frozenGroup == nil else { return nil }
        let m = source.matrix
        guard m.b == 0, m.c == 0, b.radius == 0 || abs(m.a) == abs(m.d) else { return nil }
        let g = try item.required("g")
        let count = (try g.number("p", default: 0).clampedInt)
        guard count >= 1, count <= 1000 else { throw SceneError(path: g.at("p"), "must be in 1…1000") }
        let stopsProp = try Prop(numbers: g.required("k"), warnings)
        let sProp = try Prop(numbers: item.required("s"), warnings), eProp = try Prop(numbers: item.required("e"), warnings)
        for (prop, k) in [(stopsProp, "g"), (sProp, "s"), (eProp, "e")] where !prop.isStatic {
            warnings.add(item.at(k), "animated gradient", "not mapped yet (its first value is used)")
        }
        if let h = item["h"], try Prop(numbers: h, warnings).first.first ?? 0 != 0 { warnings.add(h.path, "radial highlight") }
        let stops = stopsProp.first
        guard stops.count >= 4 * count else { throw SceneError(path: g.at("k"), "needs 4 numbers per colour stop (\(count))") }
        let alphas = stride(from: 4 * count, to: stops.count - 1, by: 2).map { (stops[$0], stops[$0 + 1]) }
        func alpha(at x: Double) -> Double {
            guard let first = alphas.first else { return 1 }
            if x <= first.0 { return first.1 }
            for i in 1..<alphas.count where x <= alphas[i].0 {
                let (x0, a0) = alphas[i - 1], (x1, a1) = alphas[i]
                return x1 > x0 ? a0 + (a1 - a0) * (x - x0) / (x1 - x0) : a1
            }
            return alphas.last!.1
        }
        var colors: [JSON] = [], locations: [Double] = []
        for i in 0..<count {
            let pos = min(max(stops[4 * i], 0), 1)
            colors.append(colorJSON([stops[4 * i + 1], stops[4 * i + 2], stops[4 * i + 3]], alpha: alpha(at: pos)))
            locations.append(locations.last.map { max($0, pos) } ?? pos)
        }
        // The box and the points through the (axis-aligned) group transforms.
        let (x0, y0) = m.apply(b.cx - b.w / 2, b.cy - b.h / 2), (x1, y1) = m.apply(b.cx + b.w / 2, b.cy + b.h / 2)
        let frame = [min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)]
        guard frame[2] > 0, frame[3] > 0 else { return nil }
        let sv = sProp.first, ev = eProp.first
        let (sx, sy) = m.apply(sv.first ?? 0, sv.count > 1 ? sv[1] : 0), (ex, ey) = m.apply(ev.first ?? 0, ev.count > 1 ? ev[1] : 0)
        let start = [(sx - frame[0]) / frame[2], (sy - frame[1]) / frame[3]]
        let radial = try item.number("t", default: 1) == 2
        let end: [Double]
        if radial {
            let r = ((ex - sx) * (ex - sx) + (ey - sy) * (ey - sy)).squareRoot()
            end = [start[0] + r / frame[2], start[1] + r / frame[3]]
        } else {
            end = [(ex - frame[0]) / frame[2], (ey - frame[1]) / frame[3]]
        }
        let layer = try newLayer("gradient")
        layer.name = uniqueName(baseName + "/" + (try item["nm"]?.string() ?? "gf"))
        layer.props = [("frame", nums(frame)), ("colors", .array(colors)), ("locations", nums(locations)),
                       ("startPoint", nums(start)), ("endPoint", nums(end)),
                       ("gradientType", .string(radial ? "radial" : "axial"))]
        if b.radius > 0 { layer.props += [("cornerRadius", num(b.radius * abs(m.a))), ("masksToBounds", .bool(true))] }
        try animate(layer, "opacity", opacity, tm) { num(min(max($0.first ?? 1, 0), 1)) }
        return layer
    }

    /// A stroke's dash pattern (`d`: dashes `d`, gaps `g`, the offset `o`).
    mutating func dashes(_ layer: Out, _ d: Node) throws(SceneError) {
        var pattern: [Double] = [], phase = 0.0
        for e in try d.array() {
            let n = try e["n"]?.string() ?? ""
            let p = try Prop(numbers: e.required("v"), warnings)
            if !p.isStatic { warnings.add(e.path, "animated dash", "not mapped yet (its first value is used)") }
            let v = max(p.first.first ?? 0, 0)
            if n == "o" { phase = v } else { pattern.append(v) }
        }
        guard pattern.count <= 64 else { throw SceneError(path: d.path, "at most 64 dashes and gaps") }
        if pattern.count % 2 == 1 { pattern += pattern }
        if pattern.contains(where: { $0 > 0 }) {
            layer.props.append(("lineDashPattern", nums(pattern)))
            layer.props.append(("lineDashPhase", num(phase)))
        }
    }

    /// Trim paths as strokeStart and strokeEnd: start and end in percent, the offset in
    /// degrees (a whole turn is the path's length). The range moved by the offset is
    /// [lo, hi] with lo in 0…1 and hi up to 2: part 0 strokes [lo, min(hi, 1)], part 1 the
    /// rest from the path's start, [0, max(hi − 1, 0)].
    mutating func trim(_ layer: Out, _ t: Trim, _ tm: TimeMap, part: Int) throws(SceneError) {
        let offset = !t.o.isStatic || (t.o.eval(0).first ?? 0) != 0
        // Without an offset the range is affine in start and end (keyed alike: exact keyframes).
        let range = Signal.combine([t.s, t.e, t.o], affine: !offset) { v in
            let a = (v[0].first ?? 0) / 100, b = (v[1].first ?? 100) / 100, o = (v[2].first ?? 0) / 360
            var lo = min(max(min(a, b), 0), 1), hi = min(max(max(a, b), 0), 1)
            let shift = o - o.rounded(.down)
            lo += shift; hi += shift
            if lo >= 1 { lo -= 1; hi -= 1 }
            return part == 0 ? [lo, min(hi, 1)] : [0, max(hi - 1, 0)]
        }
        try animate(layer, "strokeStart", Signal.combine([range]) { [$0[0][0]] }, tm) { num($0[0]) }
        try animate(layer, "strokeEnd", Signal.combine([range]) { [$0[0][1]] }, tm) { num($0[0]) }
    }
}
