import Foundation
import LaminaWire

// Layer effects (`ef`) that Lamina's own layers can draw: drop shadow as the layer shadow,
// Gaussian blur as a blur filter, fill and tint as colour matrices. Each is one wrapper layer
// around the layer's content and masks (After Effects renders masks, then effects in order,
// then the transform), the first effect innermost. Their constants are ThorVG's and
// lottie-web's readings of the effect values (ThorVG `tvgLottieBuilder.cpp` and its software
// renderer's post effects): σ = 0.3 × blurriness or softness, a drop shadow's opacity in
// 0…255 and its direction in degrees clockwise from up, fill's opacity in 0…1, tint's amount
// in percent and luminance 0.2126 R + 0.7152 G + 0.0722 B.

extension Mapper {
    /// ThorVG's and lottie-web's factor from After Effects' blurriness (and a drop shadow's
    /// softness) to the Gaussian's standard deviation.
    static let blurToSigma = 0.3

    /// The layer's effects as wrapper layers, innermost first (each without sublayers yet);
    /// the ones Lamina cannot draw are left out with a warning naming them.
    /// `skipping`: the index of an effect already drawn by the content (`solidFill`).
    mutating func effects(_ list: Node, _ tm: TimeMap, skipping: Int? = nil) throws(SceneError) -> [Out] {
        var out: [Out] = []
        for (i, e, ty) in try drawnEffects(list) where i != skipping {
            let name = (try? e["nm"]?.string()) ?? (try? e["mn"]?.string()) ?? "effect"
            switch ty {
            case 25: if let w = try dropShadow(e, tm) { out.append(w) }
            case 29: if let w = try gaussianBlur(e, tm) { out.append(w) }
            case 21: if let w = try fillEffect(e) { out.append(w) }
            case 20: if let w = try tintEffect(e) { out.append(w) }
            default:
                let mn = (try? e["mn"]?.string()).map { " (\($0))" } ?? ""
                warnings.add(e.path, "effect \"\(name)\"\(mn), type \(ty)", "not mapped (drawn without it)")
            }
        }
        return out
    }

    /// The effects that draw something, with their indices and types: the enabled ones that
    /// are not expression controls (slider, angle, colour, point, checkbox, dropdown, layer).
    func drawnEffects(_ list: Node) throws(SceneError) -> [(Int, Node, Int)] {
        guard case .array = list.json else { return [] }
        var out: [(Int, Node, Int)] = []
        for (i, e) in try list.array().enumerated() {
            _ = try e.object()
            if let en = e["en"], (try? en.number()) == 0 || en.bool() == false { continue }
            let ty = try e.number("ty", default: -1).clampedInt
            if [0, 1, 2, 3, 4, 6, 7, 10].contains(ty) { continue }
            out.append((i, e, ty))
        }
        return out
    }

    /// A solid's first drawn effect when it is a Fill the solid's own paint can take: a
    /// static colour and opacity, no fill mask, all masks, invert or feathers. Fill paints
    /// every pixel its colour c at opacity o × the pixel's alpha (`fillEffect`); a solid, or
    /// a solid under a mask drawn as one fill (`solidMasked`), is one paint whose alpha is
    /// its coverage, so that is the paint in c at opacity o — without the effect's colour
    /// matrix group (an offscreen pass). Nil when the first effect is anything else.
    func solidFill(_ list: Node) throws(SceneError) -> (index: Int, color: [Double], opacity: Double)? {
        guard options.solidMasksAsFills, let (i, e, ty) = try drawnEffects(list).first, ty == 21 else { return nil }
        for k in [0, 1, 3, 4, 5] {
            if let p = try effectValue(e, k), p.keys.contains(where: { ($0.v.first ?? 0) != 0 }) { return nil }
        }
        let color = try effectValue(e, 2) ?? Prop(constant: [1, 0, 0, 1])
        let opacity = try effectValue(e, 6) ?? Prop(constant: [1])
        guard color.isStatic, opacity.isStatic else { return nil }
        let c = color.first
        func ch(_ i: Int) -> Double { min(max(c.count > i ? c[i] : 0, 0), 1) }
        return (i, [ch(0), ch(1), ch(2)], min(max(opacity.first.first ?? 1, 0), 1))
    }

    /// Value `i` of an effect (`ef[i].v`): an animatable property or a bare number; nil
    /// when it is missing.
    func effectValue(_ e: Node, _ i: Int, mult: Double = 1) throws(SceneError) -> Prop? {
        guard let values = e["ef"], case .array(let a) = values.json, i < a.count, let v = try values.array()[i]["v"] else { return nil }
        if case .object = v.json { return try Prop(numbers: v, warnings, mult: mult) }
        return Prop(constant: [try v.number() * mult])
    }

    /// Drop shadow (25): colour (0), opacity 0…255 (1), direction (2, degrees clockwise from
    /// up), distance (3), softness (4), shadow only (5, not mapped) as the wrapper's
    /// shadowColor, shadowOpacity, shadowOffset (d sin θ, −d cos θ) and shadowRadius
    /// (σ = 0.3 × softness), each keyframed when it animates.
    mutating func dropShadow(_ e: Node, _ tm: TimeMap) throws(SceneError) -> Out? {
        let w = try newLayer()
        let color = Signal(try effectValue(e, 0) ?? Prop(constant: [0, 0, 0, 1]))
        let opacity = Signal(try effectValue(e, 1) ?? Prop(constant: [127.5]))
        let direction = Signal(try effectValue(e, 2, mult: .pi / 180) ?? Prop(constant: [.pi * 0.75]))
        let distance = Signal(try effectValue(e, 3) ?? Prop(constant: [5]))
        let softness = Signal(try effectValue(e, 4) ?? Prop(constant: [0]))
        if let only = try effectValue(e, 5), only.keys.contains(where: { ($0.v.first ?? 0) != 0 }) {
            warnings.add(e.path, "drop shadow's \"shadow only\"", "not mapped (the layer is drawn with its shadow)")
        }
        try animate(w, "shadowColor", color, tm) { colorJSON($0, alpha: 1) }
        try animate(w, "shadowOpacity", opacity, tm) { num(min(max(($0.first ?? 0) / 255, 0), 1)) }
        try animate(w, "shadowRadius", softness, tm) { num(max(($0.first ?? 0) * Mapper.blurToSigma, 0)) }
        let offset = Signal.combine([direction, distance], affine: false) { v in
            let a = v[0].first ?? 0, d = v[1].first ?? 0
            return [d * sin(a), -d * cos(a)]
        }
        try animate(w, "shadowOffset", offset, tm) { nums($0) }
        return w
    }

    /// Gaussian blur (29): blurriness (0) as a `gaussianBlur` filter named `blur` of
    /// σ = 0.3 × blurriness (keyframed as `filters.blur.radius`); a blur in one dimension (1:
    /// 2 horizontal, 3 vertical) is drawn both ways and repeated edge pixels (2) are not
    /// mapped, with warnings.
    mutating func gaussianBlur(_ e: Node, _ tm: TimeMap) throws(SceneError) -> Out? {
        let w = try newLayer()
        let sigma = Signal(try effectValue(e, 0, mult: Mapper.blurToSigma) ?? Prop(constant: [0]))
        if let d = try effectValue(e, 1), d.keys.contains(where: { ($0.v.first ?? 1) != 1 }) {
            warnings.add(e.path, "Gaussian blur in one dimension", "not mapped (blurred both ways)")
        }
        if let r = try effectValue(e, 2), r.keys.contains(where: { ($0.v.first ?? 0) != 0 }) {
            warnings.add(e.path, "Gaussian blur's repeated edge pixels", "not mapped (the edges blur into transparency)")
        }
        let startLocal = (ip - tm.offset) / tm.scale
        w.props.append(("filters", .array([obj([("name", .string("blur")), ("type", .string("gaussianBlur")),
                                                ("radius", num(max(sigma.eval(startLocal).first ?? 0, 0)))])])))
        try animate(w, "filters.blur.radius", sigma, tm) { num(max($0.first ?? 0, 0)) }
        return w
    }

    /// A colour matrix filter layer (first values of animated inputs, with a warning).
    mutating func matrixLayer(_ e: Node, _ inputs: [Prop], _ what: String, _ m: ([[Double]]) -> [Double]) throws(SceneError) -> Out {
        if inputs.contains(where: { !$0.isStatic }) {
            warnings.add(e.path, "animated \(what) effect", "not mapped yet (its first values are used)")
        }
        let w = try newLayer()
        let matrix: JSON = nums(m(inputs.map(\.first)))
        w.props.append(("filters", JSON.array([obj([("type", JSON.string("colorMatrix")), ("matrix", matrix)])])))
        return w
    }

    /// Fill (21): colour (2) and opacity (6, 0…1) as a colour matrix that paints every pixel
    /// the colour at opacity × its alpha (ThorVG's and lottie-web's reading). Fill mask (0),
    /// all masks (1), invert (3) and feathers (4, 5) are not mapped (warnings).
    mutating func fillEffect(_ e: Node) throws(SceneError) -> Out? {
        for (i, what) in [(0, "fill mask"), (1, "all masks"), (3, "invert"), (4, "horizontal feather"), (5, "vertical feather")] {
            if let p = try effectValue(e, i), p.keys.contains(where: { ($0.v.first ?? 0) != 0 }) {
                warnings.add(e.path, "fill effect's \(what)", "not mapped (left out)")
            }
        }
        let color = try effectValue(e, 2) ?? Prop(constant: [1, 0, 0, 1])
        let opacity = try effectValue(e, 6) ?? Prop(constant: [1])
        return try matrixLayer(e, [color, opacity], "fill") { v in
            let c = v[0], o = min(max(v[1].first ?? 1, 0), 1)
            func ch(_ i: Int) -> Double { min(max(c.count > i ? c[i] : 0, 0), 1) }
            return [0, 0, 0, 0, ch(0), 0, 0, 0, 0, ch(1), 0, 0, 0, 0, ch(2), 0, 0, 0, o, 0]
        }
    }

    /// Tint (20): map black to (0) and white to (1) by the luminance
    /// l = 0.2126 R + 0.7152 G + 0.0722 B, mixed with the original by the amount (2, percent):
    /// C′ = (1 − i) C + i (black_C + (white_C − black_C) l), alpha kept — linear in R, G, B,
    /// so one colour matrix.
    mutating func tintEffect(_ e: Node) throws(SceneError) -> Out? {
        let black = try effectValue(e, 0) ?? Prop(constant: [0, 0, 0, 1])
        let white = try effectValue(e, 1) ?? Prop(constant: [1, 1, 1, 1])
        let amount = try effectValue(e, 2, mult: 0.01) ?? Prop(constant: [1])
        return try matrixLayer(e, [black, white, amount], "tint") { v in
            let i = min(max(v[2].first ?? 1, 0), 1)
            let luma = [0.2126, 0.7152, 0.0722]
            var m: [Double] = []
            for c in 0..<3 {
                let b = v[0].count > c ? v[0][c] : 0, wh = v[1].count > c ? v[1][c] : 1
                for k in 0..<3 { m.append(i * (wh - b) * luma[k] + (k == c ? 1 - i : 0)) }
                m += [0, i * b]
            }
            return m + [0, 0, 0, 1, 0]
        }
    }
}
