import LaminaWire

// Layer masks, track mattes, blend modes and time remapping, as Lamina's `mask`,
// `compositingFilter`, `filters` and nested animation groups.

extension Mapper {
    /// Half the side of the square that stands for "everywhere" (an inverted mask's outside,
    /// a subtraction's start), in layer coordinates.
    static let everywhere = 100_000.0
    /// How deep the renderer draws masks inside masks (`DrawListBuilder.maxMaskNesting`,
    /// LaminaFrame, which this target does not depend on; a test checks they agree).
    static let rendererMaskNesting = 4
    /// The most trailing subtract/intersect masks mapped as wrappers: each is an offscreen
    /// group pair while it draws (`DrawListBuilder.maxNestedGroups` 32 at once, for the whole
    /// tree), so past 12 the rest are left out with a warning.
    static let maxMaskFactors = 12

    /// Lottie's blend modes (`bm`) as `compositingFilter`s (nil for normal; a warning for
    /// the ones Lamina has not).
    func blendMode(_ bm: Node) throws(SceneError) -> String? {
        let modes = ["multiplyBlendMode", "screenBlendMode", "overlayBlendMode", "darkenBlendMode", "lightenBlendMode",
                     "colorDodgeBlendMode", "colorBurnBlendMode", "hardLightBlendMode", "softLightBlendMode",
                     "differenceBlendMode", "exclusionBlendMode", "hueBlendMode", "saturationBlendMode",
                     "colorBlendMode", "luminosityBlendMode", "plusLighter"]
        let v = try bm.number().clampedInt
        if v == 0 { return nil }
        guard v >= 1, v <= modes.count else { warnings.add(bm.path, "blend mode \(v)", "not mapped (drawn as normal)"); return nil }
        return modes[v - 1]
    }

    /// A black shape layer filling `path` (a flat path signal) in layer coordinates; with
    /// `hole`, the square standing for everywhere with the path cut out (even-odd).
    mutating func maskShape(_ path: Signal, hole: Bool, _ tm: TimeMap) throws(SceneError) -> Out {
        let layer = try newLayer("shape")
        let e = Mapper.everywhere
        let square: [Double] = [1, 4, -e, -e, 0, 0, 0, 0, e, -e, 0, 0, 0, 0, e, e, 0, 0, 0, 0, -e, e, 0, 0, 0, 0]
        let sig = hole ? Signal.combine([path]) { square + $0[0] } : path
        try animate(layer, "path", sig, tm) { v in
            let d = BezPath.svg(v)
            return d.isEmpty ? .null : .string(d)
        }
        layer.props += [("fillColor", colorJSON([0, 0, 0], alpha: 1)), ("strokeColor", .null),
                        ("fillRule", .string(hole ? "evenOdd" : "nonZero"))]
        return layer
    }

    /// A solid layer's content (colour `color` at `alpha`) under its masks as one fill, when
    /// that is exact; nil (the masks mapped by `masks`) otherwise. A solid is one colour over
    /// its rect, so under one mask (the others `n`, none) at opacity o, without expansion:
    /// - add (or lighten, or a lone intersect, darken or difference, which are the mask
    ///   itself) covers the mask's region (the path, or its outside when inverted) at o:
    ///   the region filled in the solid's colour at opacity o, clipped to the solid's rect;
    /// - subtract at o = 1 covers the other region.
    /// The path's outside, cut to the rect, is the rect and the path as two contours filled
    /// even-odd (rect XOR path) under the clip. The fill sits in a layer of the solid's frame
    /// with `masksToBounds` (a rect clip, drawn in the frame's pass), not under a mask layer
    /// (an offscreen pass, a mask pass and a composite). The path animates as the mask's
    /// would. Chains of masks stay masks (add then subtract is not one fill in general).
    mutating func solidMasked(_ list: [Node], color: [Double], alpha: Double, width: Double, height: Double,
                              _ tm: TimeMap) throws(SceneError) -> Out? {
        guard options.solidMasksAsFills else { return nil }
        var used: [Node] = []
        for m in list {
            _ = try m.object()
            if try m["mode"]?.string() ?? "a" != "n" { used.append(m) }
        }
        guard used.count == 1, let m = used.first else { return nil }
        let mode = try m["mode"]?.string() ?? "a"
        guard ["a", "s", "i", "l", "d", "f"].contains(mode) else { return nil }
        if let x = m["x"], try Prop(numbers: x, warnings).keys.contains(where: { ($0.v.first ?? 0) != 0 }) { return nil }
        let opacity = try m["o"].map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: 0.01) } ?? Prop(constant: [1])
        if mode == "s", !opacity.isStatic || (opacity.first.first ?? 1) < 1 { return nil }
        let outside = (m["inv"]?.bool() == true) != (mode == "s")
        let path = Signal(try Prop(path: m.required("pt"), warnings))
        let clip = try newLayer()
        clip.props = [("frame", nums([0, 0, width, height])), ("masksToBounds", .bool(true))]
        let fill = try newLayer("shape")
        let rect: [Double] = [1, 4, 0, 0, 0, 0, 0, 0, width, 0, 0, 0, 0, 0, width, height, 0, 0, 0, 0, 0, height, 0, 0, 0, 0]
        try animate(fill, "path", outside ? Signal.combine([path]) { rect + $0[0] } : path, tm) { v in
            let d = BezPath.svg(v)
            return d.isEmpty ? .null : .string(d)
        }
        fill.props += [("fillColor", colorJSON(color, alpha: alpha)), ("strokeColor", .null),
                       ("fillRule", .string(outside ? "evenOdd" : "nonZero"))]
        if mode != "s" {
            try animate(fill, "opacity", Signal(opacity), tm) { num(min(max($0.first ?? 1, 0), 1)) }
        }
        clip.sublayers = [fill]
        return clip
    }

    /// A layer's masks (`masksProperties`) as one mask layer, in the layer's coordinates:
    /// each mask's value v is its opacity times its path's coverage (or the coverage of
    /// everything outside the path when inverted); add is the union (source-over), subtract
    /// multiplies by 1 − v (a mask of the path cut out of everywhere, and the path at
    /// 1 − opacity), intersect multiplies by v (a mask of a mask); lighten and darken are add
    /// and intersect (exact for opaque masks); a first difference is the mask itself. A first
    /// subtract starts from everywhere, as in rlottie and lottie-web. Expansion (`x` ≥ 0, not inverted, not subtracted) strokes the
    /// path 2x wide with mitred joins.
    ///
    /// The masks after the last add-like one (add, lighten, difference) only multiply what
    /// came before (subtract by 1 − v, intersect and darken by v): those are returned apart,
    /// in `factors`, each one mask for a wrapper layer of its own around the content, so that
    /// they nest as layers, not as masks inside masks (the renderer draws masks inside masks
    /// 4 levels deep, `DrawListBuilder.maxMaskNesting`). Subtracts and intersects before an add
    /// still nest inside the mask: past 3 of them the deeper ones are left out, with a warning.
    mutating func masks(_ list: [Node], _ tm: TimeMap) throws(SceneError) -> (mask: Out?, factors: [Out]) {
        let modes = list.map { (try? $0["mode"]?.string()) ?? "a" }
        let lastAdd = modes.lastIndex(where: { !["s", "i", "d", "n"].contains($0) })
        var result: Out? = nil
        var factors: [Out] = []
        var nested = 0
        for (index, m) in list.enumerated() {
            _ = try m.object()
            let mode = try m["mode"]?.string() ?? "a"
            if mode == "n" { continue }
            let inverted = m["inv"]?.bool() == true
            let path = Signal(try Prop(path: m.required("pt"), warnings))
            let opacity = Signal(try m["o"].map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: 0.01) } ?? Prop(constant: [1]))
            var expansion: Signal? = nil
            if let x = m["x"] {
                let p = try Prop(numbers: x, warnings)
                if p.keys.contains(where: { ($0.v.first ?? 0) != 0 }) {
                    if inverted || mode == "s" || p.keys.contains(where: { ($0.v.first ?? 0) < 0 }) {
                        warnings.add(x.path, "mask expansion", "not mapped for inverted, subtracted or contracted masks; left out")
                    } else {
                        expansion = Signal(p)
                    }
                }
            }
            // Difference with nothing before it is the mask itself (|0 − v|), as add.
            if mode == "f", result != nil { warnings.add(m.at("mode"), "mask mode difference after another mask", "not mapped yet (drawn as add)") }
            else if !["a", "s", "i", "l", "d", "f"].contains(mode) { warnings.add(m.at("mode"), "mask mode \"\(mode)\"", "not mapped (drawn as add)") }
            /// The mask's value: the path (or its outside) at the mask's opacity.
            func value(_ me: inout Mapper) throws(SceneError) -> Out {
                let shape = try me.maskShape(path, hole: inverted, tm)
                if let expansion {
                    shape.props += [("strokeColor", colorJSON([0, 0, 0], alpha: 1)), ("lineJoin", .string("miter")),
                                    ("miterLimit", num(4))]
                    try me.animate(shape, "lineWidth", expansion, tm) { num(max(2 * ($0.first ?? 0), 0)) }
                }
                try me.animate(shape, "opacity", opacity, tm) { num(min(max($0.first ?? 1, 0), 1)) }
                return shape
            }
            /// 1 − value: the other region opaque, the mask's own region at 1 − opacity.
            func complement(_ me: inout Mapper) throws(SceneError) -> Out {
                let group = try me.newLayer()
                let other = try me.maskShape(path, hole: !inverted, tm)
                let own = try me.maskShape(path, hole: inverted, tm)
                try me.animate(own, "opacity", opacity, tm) { num(min(max(1 - ($0.first ?? 1), 0), 1)) }
                group.sublayers = [other, own]
                return group
            }
            // After the last add-like mask, a factor of its own (a wrapper's mask).
            if lastAdd.map({ index > $0 }) ?? true, ["s", "i", "d"].contains(mode) {
                guard factors.count < Mapper.maxMaskFactors else {
                    warnings.add(m.path, "more than \(Mapper.maxMaskFactors) subtract or intersect masks after the last add", "not mapped (left out)")
                    continue
                }
                factors.append(mode == "s" ? try complement(&self) : try value(&self))
                continue
            }
            if ["s", "i", "d"].contains(mode), result != nil {
                nested += 1
                if nested > Mapper.rendererMaskNesting - 1 {
                    warnings.add(m.path, "a subtract or intersect mask nested \(nested + 1) deep (before a later add)",
                                 "not mapped (the renderer draws masks inside masks \(Mapper.rendererMaskNesting) deep; left out)")
                    continue
                }
            }
            switch (mode, result) {
            case ("s", nil): result = try complement(&self)
            case ("s", let r?):
                let g = try newLayer(); g.sublayers = [r]; g.mask = try complement(&self); result = g
            case ("i", let r?), ("d", let r?):
                let g = try newLayer(); g.sublayers = [r]; g.mask = try value(&self); result = g
            case (_, nil): result = try value(&self)
            case (_, let r?):
                let g = try newLayer(); g.sublayers = [r, try value(&self)]; result = g
            }
        }
        return (result, factors)
    }

    /// A layer (its whole tree `top`, in composition coordinates) under a track matte: a
    /// layer holding it whose mask is the matte layer mapped as any layer. Alpha (1) is the
    /// matte itself; inverted alpha (2) is the matte through a colour matrix A′ = 1 − A (a
    /// filter group covers the whole canvas, so the matte's outside becomes opaque); luma (3)
    /// and inverted luma (4) composite the matte over an opaque black square standing for
    /// everywhere and turn the result's colour into alpha with a colour matrix: luma as
    /// 0.2126 R + 0.7152 G + 0.0722 B of the premultiplied matte (lottie-web's reading of a
    /// matte's luminance, SVG's luminanceToAlpha), inverted as 1 − that.
    mutating func matted(_ top: Out, _ matteNode: Node, mode: Int, path: String, _ tm: TimeMap,
                         _ byIndex: [Int: Node], depth: Int) throws(SceneError) -> Out {
        guard (1...4).contains(mode) else { warnings.add(path, "track matte mode \(mode)"); return top }
        guard let matte = try layer(matteNode, tm, byIndex, depth: depth, asMatte: true) else { return top }
        let holder = try newLayer()
        holder.sublayers = [top]
        if mode == 1 { holder.mask = matte; return holder }
        let mask = try newLayer()
        if mode == 2 {
            mask.props = [("filters", .array([colorMatrix([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 1])]))]
            mask.sublayers = [matte]
        } else {
            let e = Mapper.everywhere
            let black = try newLayer()
            black.props = [("frame", nums([-e, -e, 2 * e, 2 * e])), ("backgroundColor", colorJSON([0, 0, 0], alpha: 1))]
            let s = mode == 4 ? -1.0 : 1.0
            mask.props = [("filters", .array([colorMatrix([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                           s * 0.2126, s * 0.7152, s * 0.0722, 0, mode == 4 ? 1 : 0])]))]
            mask.sublayers = [black, matte]
        }
        holder.mask = mask
        return holder
    }

    func colorMatrix(_ m: [Double]) -> JSON { obj([("type", .string("colorMatrix")), ("matrix", nums(m))]) }

    /// Time remapping (`tm`, seconds of the precomp's content against the layer's frames):
    /// the content's animations, made in content seconds, are wrapped per remap segment in a
    /// group of the segment's span (its easing the group's timing function) holding a group
    /// whose speed and time offset turn the segment's progress into content seconds — so the
    /// content runs forwards, backwards or held as the remap says, all in the compositor.
    mutating func remapTime(_ layers: [Out], _ node: Node, _ tm: TimeMap) throws(SceneError) {
        let prop = try Prop(numbers: node, warnings)
        let values = prop.keys.map { max($0.v.first ?? 0, 0) }
        guard let top = values.max(), top <= 86_400 else { throw SceneError(path: node.path, "must be within 0…86400 seconds") }
        let span = top + 1
        func inner(_ from: Double, _ speed: Double, _ children: [JSON]) -> JSON {
            obj([("type", .string("group")), ("duration", num(span)), ("speed", num(speed)),
                 ("timeOffset", num(speed < 0 ? from - span : from)), ("fillMode", .string("both")),
                 ("animations", .array(children))])
        }
        let secs = prop.keys.map { (tm.root($0.t) - ip) / fr }
        func wrap(_ children: [JSON]) -> [JSON] {
            guard prop.keys.count > 1 else { return [inner(values[0], 0, children)] }
            var out: [JSON] = []
            for i in 0..<(prop.keys.count - 1) {
                let length = secs[i + 1] - secs[i]
                guard length > 0 else { continue }
                let ease = prop.keys[i].ease.first ?? .linear
                let speed = ease == .hold ? 0 : (values[i + 1] - values[i]) / length
                var m: [(String, JSON)] = [("type", .string("group")), ("beginTime", num(secs[i])), ("duration", num(length)),
                                           ("fillMode", .string(out.isEmpty ? "both" : "forwards"))]
                if case .bezier = ease { m.append(("timingFunction", ease.json)) }
                m.append(("animations", .array([inner(values[i], speed, children)])))
                out.append(obj(m))
            }
            return out.isEmpty ? [inner(values[0], 0, children)] : out
        }
        func visit(_ o: Out) {
            if !o.anims.isEmpty { o.anims = wrap(o.anims) }
            o.sublayers.forEach(visit)
            if let m = o.mask { visit(m) }
        }
        layers.forEach(visit)
    }
}
