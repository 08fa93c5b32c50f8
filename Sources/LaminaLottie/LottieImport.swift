import Foundation
import LaminaWire

/// Lottie (Bodymovin) JSON mapped onto Lamina's own layers and compositor animations, once:
/// the result is scene-file JSON (docs/scene-format.md) that `Scene` reads, with every
/// animation a keyframe animation the render thread plays (no per-frame work anywhere else).
///
/// Scene time 0 is the file's frame `ip`; the whole animation is one group animation per
/// layer lasting (op − ip) / fr seconds, repeated forever unless `loops` is false (then it
/// holds its last frame). A part of the file Lamina cannot map yet is left out with a
/// warning naming its JSON path; a malformed file is a `SceneError` naming the field.
public struct LottieImport: Sendable {
    /// The scene JSON (`Scene(json:)`'s input).
    public var scene: JSON
    /// The parts left out (`layers[2].masksProperties: masks not mapped yet, left out`).
    public var warnings: [String]
    /// Embedded images (data URIs), by the name `contents` shows them under.
    public var imageData: [String: [UInt8]]

    /// Limits that keep a hostile file from exhausting memory or time.
    public struct Limits: Sendable {
        public var maxLayers = 20_000
        public var maxPrecompDepth = 16
        public var maxParentDepth = 64
        /// Numbers in all the keyframe values emitted (sampled ones included; a path counts
        /// 6 per vertex).
        public var maxValues = 4_000_000
        /// Samples of one property that cannot map keyframe to keyframe.
        public var maxSamplesPerProperty = 1_000
        public init() {}
    }

    /// Choices of mapping that draw the same pixels (kept switchable to compare old and new).
    public struct Options: Sendable {
        /// A solid layer under one mask is a fill of the mask's path clipped to the solid's
        /// rect where that is exact (`Mapper.solidMasked`), instead of a mask layer, and a
        /// solid's first Fill effect its own colour (`Mapper.solidFill`), instead of a colour
        /// matrix group: no offscreen pass for either. On unless the environment has
        /// `LAMINA_LOTTIE_SOLID_MASKS=0`.
        public var solidMasksAsFills = ProcessInfo.processInfo.environment["LAMINA_LOTTIE_SOLID_MASKS"] != "0"
        public init() {}
    }

    /// Whether a parsed JSON document is a Lottie file: its top level has "v", "fr", "ip",
    /// "op", "w", "h" and "layers".
    public static func isLottie(_ json: JSON) -> Bool {
        guard case .object(let m) = json else { return false }
        let keys = Set(m.map(\.key))
        return ["v", "fr", "ip", "op", "w", "h", "layers"].allSatisfy(keys.contains)
    }

    /// How it plays (loop mode, range, autoplay).
    public var playback: LottiePlayback
    /// The file's frame rate, and the played range's first frame and length in seconds.
    public var frameRate: Double
    public var rangeStartFrame: Double
    public var rangeDuration: Double
    /// The file's markers: name → (start frame, duration in frames).
    public var markers: [String: (frame: Double, duration: Double)]
    /// The named scene layers that Lottie key paths reach (dynamic properties).
    public var targets: [LottieTarget]
    /// The root layer holding the whole animation: its `speed`, `timeOffset` and
    /// `beginTime` are the playback clock (`LottieClock`), and its animation under the key
    /// `lottie` (an empty group with the range's timing) ends — `animationStopped`,
    /// finished 1 — when a playOnce or repeat range completes.
    public static let rootName = "lottie"

    public init(json root: JSON, loops: Bool = true, limits: Limits = Limits()) throws(SceneError) {
        try self.init(json: root, playback: LottiePlayback(loopMode: loops ? .loop : .playOnce), limits: limits)
    }

    public init(json root: JSON, playback: LottiePlayback, limits: Limits = Limits(),
                options: Options = Options()) throws(SceneError) {
        var m = Mapper(limits: limits, playback: playback, options: options)
        scene = try m.run(Node(root, ""))
        warnings = m.warnings.list
        imageData = m.imageData
        self.playback = playback
        frameRate = m.fr
        rangeStartFrame = m.rangeFrom
        rangeDuration = (m.rangeTo - m.rangeFrom) / m.fr
        markers = m.markers
        targets = m.targets
    }
}

/// A scene layer being built.
final class Out {
    var name: String?
    var type = "layer"
    var props: [(String, JSON)] = []
    var anims: [JSON] = []
    var sublayers: [Out] = []
    /// The layer's `mask` (a Lottie mask or track matte).
    var mask: Out? = nil
    init(_ type: String = "layer") { self.type = type }
}

/// Local frames of a composition → frames of the root composition: root = scale · local + offset.
struct TimeMap {
    var scale = 1.0, offset = 0.0
    func root(_ f: Double) -> Double { scale * f + offset }
}

struct Mapper {
    /// Frame numbers (keyframe times, start times, ip) stay within this, so time arithmetic stays finite.
    static let maxFrame = 1e9
    let limits: LottieImport.Limits
    let playback: LottiePlayback
    let options: LottieImport.Options
    /// The played range in frames, and the markers.
    var rangeFrom = 0.0, rangeTo = 0.0
    var markers: [String: (frame: Double, duration: Double)] = [:]
    /// Lottie key paths of the named scene layers (`LottieImport.targets`), and the names of
    /// the enclosing precomp layers and shape groups while mapping.
    var targets: [LottieTarget] = []
    var keyStack: [String] = []
    let warnings = Warnings()
    var imageData: [String: [UInt8]] = [:]
    var imageFiles: [String: String] = [:]
    var assets: [String: Node] = [:]
    var fonts: [String: String] = [:]
    var fr = 30.0, ip = 0.0, op = 0.0
    var duration: Double { (op - ip) / fr }
    var layerCount = 0
    var valueCount = 0
    var usedNames: Set<String> = []

    init(limits: LottieImport.Limits, playback: LottiePlayback, options: LottieImport.Options) {
        self.limits = limits; self.playback = playback; self.options = options
    }

    mutating func run(_ root: Node) throws(SceneError) -> JSON {
        _ = try root.object()
        fr = try root.required("fr").number()
        guard fr > 0, fr <= 1000 else { throw SceneError(path: "fr", "must be in 0…1000 (exclusive of 0)") }
        ip = try root.required("ip").number()
        op = try root.required("op").number()
        guard abs(ip) <= Mapper.maxFrame else { throw SceneError(path: "ip", "must be within ±\(Int(Mapper.maxFrame)) frames") }
        guard op > ip else { throw SceneError(path: "op", "must be after ip") }
        guard duration <= 86_400 else { throw SceneError(path: "op", "the animation must last at most a day") }
        let w = try root.required("w").number(), h = try root.required("h").number()
        guard w > 0, h > 0, w <= 16384, h <= 16384 else { throw SceneError(path: "w", "w and h must be in 1…16384") }
        if let list = root["assets"] {
            for a in try list.array() {
                _ = try a.object()
                guard let idNode = a["id"] else { throw SceneError(path: a.at("id"), "is required") }
                let id: String
                if case .number(let v) = idNode.json { id = JSON.format(v) } else { id = try idNode.string() }
                guard assets[id] == nil else { throw SceneError(path: idNode.path, "the asset id \"\(id)\" is used twice") }
                assets[id] = a
            }
        }
        if let list = root["fonts"]?["list"] {
            for f in try list.array() {
                guard let name = try f["fName"]?.string(), let family = try f["fFamily"]?.string() else { continue }
                let style = (try f["fStyle"]?.string() ?? "").lowercased()
                var pattern = family
                if style.contains("bold") { pattern += ":bold" }
                if style.contains("italic") { pattern += ":italic" }
                fonts[name] = pattern
            }
        }
        try range(root)
        usedNames.insert(LottieImport.rootName)
        if let list = root["chars"], case .array(let c) = list.json, !c.isEmpty { warnings.add("chars", "glyph shapes", "not mapped (text uses fonts)") }
        let layers = try composition(try root.required("layers").array(), TimeMap(), depth: 0, compPath: "layers")
        var top: [(String, JSON)] = [("size", nums([w, h])), ("background", nums([0, 0, 0, 0]))]
        var images: [JSON.Member] = []
        for (k, v) in imageFiles.sorted(by: { $0.key < $1.key }) { images.append(JSON.Member(key: k, value: .string(v))) }
        if !images.isEmpty { top.append(("images", .object(images))) }
        // One root layer holds everything: its layer time is the playback clock, its `lottie`
        // animation (an empty group with the range's timing) the completion.
        let rootLayer = Out()
        rootLayer.name = LottieImport.rootName
        // Empty bounds at the origin: its sublayers keep the canvas' coordinates, and it is never hit.
        if !playback.autoplay { rootLayer.props.append(("speed", num(0))) }
        rootLayer.sublayers = layers
        var rootJSON = emit(rootLayer)
        if case .object(var members) = rootJSON {
            members.append(JSON.Member(key: "animations", value: obj([(LottieImport.rootName, group([]))])))
            rootJSON = .object(members)
        }
        top.append(("layers", .array([rootJSON])))
        return obj(top)
    }

    // MARK: Layers

    /// A composition's layers bottom to top (Lottie lists them top first).
    mutating func composition(_ layers: [Node], _ tm: TimeMap, depth: Int, compPath: String) throws(SceneError) -> [Out] {
        guard depth <= limits.maxPrecompDepth else {
            throw SceneError(path: compPath, "precomps nest deeper than \(limits.maxPrecompDepth) (or an asset contains itself)")
        }
        var byIndex: [Int: Node] = [:]
        for l in layers {
            _ = try l.object()
            if let i = l["ind"] {
                let v = try i.number()
                guard abs(v) < 1e9 else { throw SceneError(path: i.path, "must be an integer index") }
                byIndex[v.clampedInt] = l
            }
        }
        var out: [Out] = []
        for (i, l) in layers.enumerated().reversed() {
            // A track matte is the layer `tp` names, or else the one listed just before.
            var matte: Node? = nil
            if let tt = l["tt"], try tt.number() != 0 {
                if let tp = l["tp"] { matte = byIndex[try tp.number().clampedInt] }
                else if i > 0, layers[i - 1]["td"]?.bool() == true { matte = layers[i - 1] }
                if matte == nil { warnings.add(tt.path, "track matte without a matte layer", "left out") }
            }
            if let o = try layer(l, tm, byIndex, depth: depth, matte: matte) { out.append(o) }
        }
        return out
    }

    /// The parent chain of a layer: its parent, grandparent, … (a cycle is an error).
    func parents(_ l: Node, _ byIndex: [Int: Node]) throws(SceneError) -> [Node] {
        var chain: [Node] = []
        var seen: Set<Int> = []
        if let i = l["ind"] { seen.insert(try i.number().clampedInt) }
        var current = l
        while let p = current["parent"] {
            let pi = try p.number().clampedInt
            guard !seen.contains(pi) else {
                throw SceneError(path: p.path, "parenting cycle (layer ind \(pi) is its own ancestor)")
            }
            seen.insert(pi)
            guard let parent = byIndex[pi] else {
                warnings.add(p.path, "parent", "names no layer's ind; ignored")
                break
            }
            chain.append(parent)
            guard chain.count <= limits.maxParentDepth else {
                throw SceneError(path: p.path, "parent chain longer than \(limits.maxParentDepth)")
            }
            current = parent
        }
        return chain
    }

    /// A layer's scene layers (nil when it is not drawn). `matte`: its track matte's layer;
    /// `asMatte`: the layer is being mapped as another layer's matte (a `td` layer is not
    /// drawn otherwise).
    mutating func layer(_ l: Node, _ tm: TimeMap, _ byIndex: [Int: Node], depth: Int, matte: Node? = nil,
                        asMatte: Bool = false) throws(SceneError) -> Out? {
        let ty = (try l.required("ty").number().clampedInt)
        if l["hd"]?.bool() == true && !asMatte { return nil }
        // A track matte's source is not drawn itself.
        if l["td"]?.bool() == true && !asMatte { return nil }
        if l["tm"] != nil && ty != 0 { warnings.add(l.at("tm"), "time remapping of a layer that is not a precomp", "ignored") }
        let st = try l.number("st", default: 0)
        guard abs(st) <= Mapper.maxFrame else { throw SceneError(path: l.at("st"), "must be within ±\(Int(Mapper.maxFrame)) frames") }
        var sr = try l.number("sr", default: 1)
        if sr <= 0 { warnings.add(l.at("sr"), "time stretch ≤ 0", "not supported; 1 used"); sr = 1 }
        guard sr <= 1000 else { throw SceneError(path: l.at("sr"), "must be at most 1000") }
        // The layer's own properties (transform, shapes, masks, a remap) run in its composition's
        // time: `st` and `sr` shift and stretch only a precomp's content (rlottie and ThorVG;
        // lottie-web shifts the layer's own keyframes too).
        let own = tm
        let inner: Out, outer: Out
        (outer, inner) = try transformLayers(l.required("ks"), own, opacity: true, owner: l)
        outer.name = uniqueName(try l["nm"]?.string() ?? "")
        let lottieName = try l["nm"]?.string() ?? ""
        if let n = outer.name { targets.append(LottieTarget(keyPath: keyStack + [lottieName], layer: n, kind: .layer)) }
        keyStack.append(lottieName)
        defer { keyStack.removeLast() }
        // Whether the content already draws the layer's masks (`solidMasked`), and which
        // effect it draws (`solidFill`).
        var maskDone = false, filled: Int? = nil
        switch ty {
        case 0:
            let refId: String
            let r = try l.required("refId")
            if case .number(let v) = r.json { refId = JSON.format(v) } else { refId = try r.string() }
            guard let asset = assets[refId] else { throw SceneError(path: r.path, "no asset has the id \"\(refId)\"") }
            guard let sub = asset["layers"] else { throw SceneError(path: asset.path, "is not a precomposition (no layers)") }
            let w = try l.number("w", default: try asset.number("w", default: 0))
            let h = try l.number("h", default: try asset.number("h", default: 0))
            let clip = try newLayer()
            clip.name = outer.name.flatMap { uniqueName($0 + "/precomp") }
            clip.props = [("frame", nums([0, 0, max(w, 0), max(h, 0)])), ("masksToBounds", .bool(w > 0 && h > 0))]
            if let remap = l["tm"] {
                // Time remapping: the content runs in its own seconds, which groups per
                // remap segment take from the layer's time (`remapTime`).
                clip.sublayers = try composition(try sub.array(), TimeMap(scale: 1, offset: ip), depth: depth + 1, compPath: sub.path)
                try remapTime(clip.sublayers, remap, own)
            } else {
                let contentTime = TimeMap(scale: tm.scale * sr, offset: tm.root(st))
                clip.sublayers = try composition(try sub.array(), contentTime, depth: depth + 1, compPath: sub.path)
            }
            inner.sublayers.append(clip)
        case 1:
            var c = hexColor(try l["sc"]?.string() ?? "#000000") ?? [0, 0, 0], alpha = 1.0
            let w = max(try l.number("sw", default: 0), 0), h = max(try l.number("sh", default: 0), 0)
            // A first Fill effect is the solid's own colour and opacity.
            if let ef = l["ef"], let fill = try solidFill(ef) { (c, alpha, filled) = (fill.color, fill.opacity, fill.index) }
            // A solid under one mask: the mask's region filled, clipped to the solid, when exact.
            if let mp = l["masksProperties"], case .array(let a) = mp.json, !a.isEmpty,
               let fill = try solidMasked(try mp.array(), color: c, alpha: alpha, width: w, height: h, own) {
                fill.name = outer.name.flatMap { uniqueName($0 + "/solid") }
                inner.sublayers.append(fill)
                maskDone = true
            } else {
                let solid = try newLayer()
                solid.name = outer.name.flatMap { uniqueName($0 + "/solid") }
                solid.props = [("frame", nums([0, 0, w, h])), ("backgroundColor", colorJSON(c, alpha: alpha))]
                inner.sublayers.append(solid)
            }
        case 2:
            let r = try l.required("refId")
            let id = try r.string()
            guard let asset = assets[id] else { throw SceneError(path: r.path, "no asset has the id \"\(id)\"") }
            if let name = try image(asset) {
                let img = try newLayer()
                img.name = outer.name.flatMap { uniqueName($0 + "/image") }
                img.props = [("frame", nums([0, 0, max(try asset.number("w", default: 0), 0), max(try asset.number("h", default: 0), 0)])),
                             ("contents", .string(name))]
                inner.sublayers.append(img)
            }
        case 3: break
        case 4:
            inner.sublayers += try shapeItems(try l.required("shapes").array(), own, baseName: outer.name ?? "shape")
        case 5:
            if let t = try text(l) {
                t.name = outer.name.flatMap { uniqueName($0 + "/text") }
                inner.sublayers.append(t)
            }
        default:
            warnings.add(l.at("ty"), "layer type \(ty)")
            return nil
        }
        if !maskDone, let mp = l["masksProperties"], case .array(let a) = mp.json, !a.isEmpty {
            let (mask, factors) = try masks(try mp.array(), own)
            inner.mask = mask
            // Each trailing subtract or intersect: a wrapper around the content with that
            // mask (same coordinates as `inner`), nested as layers, not masks in masks.
            for factor in factors.reversed() {
                let wrap = try newLayer()
                wrap.sublayers = inner.sublayers
                wrap.mask = factor
                inner.sublayers = [wrap]
            }
        }
        // Effects (LottieEffects.swift): wrappers around the masked content, first innermost.
        if let ef = l["ef"] {
            let fx = try effects(ef, own, skipping: filled)
            if !fx.isEmpty {
                let body = try newLayer()
                body.sublayers = inner.sublayers
                body.mask = inner.mask
                inner.mask = nil
                var current = body
                for w in fx { w.sublayers = [current]; current = w }
                inner.sublayers = [current]
            }
        }
        // Parents lend their transforms only (not opacity or visibility).
        var top = outer
        let vis = try visibility(l, tm)
        if let vis { vis.sublayers = [top]; top = vis }
        for p in try parents(l, byIndex) {
            let (po, pi) = try transformLayers(p.required("ks"), tm, opacity: false, owner: p)
            pi.sublayers = [top]
            top = po
        }
        if let matte, let tt = l["tt"] {
            // The matte's key path is its own, beside this layer's.
            let own = keyStack.removeLast()
            top = try matted(top, matte, mode: try tt.number().clampedInt, path: tt.path, tm, byIndex, depth: depth)
            keyStack.append(own)
        }
        if let bm = l["bm"], let mode = try blendMode(bm) { top.props.append(("compositingFilter", .string(mode))) }
        return top
    }

    /// A wrapper whose opacity shows the layer from its in point to its out point (nil when
    /// it is shown the whole animation).
    mutating func visibility(_ l: Node, _ tm: TimeMap) throws(SceneError) -> Out? {
        let lip = try l.number("ip", default: -Double.infinity), lop = try l.number("op", default: .infinity)
        let a = (lip.isFinite ? tm.root(lip) : -Double.infinity), b = (lop.isFinite ? tm.root(lop) : .infinity)
        if a <= ip && b >= op { return nil }
        let v = try newLayer()
        // In seconds; a content under time remapping may be shown past the animation's end.
        let d = duration
        let sa = a.isFinite ? (a - ip) / fr : -Double.infinity, sb = b.isFinite ? (b - ip) / fr : .infinity
        let lo = min(0, sa.isFinite ? sa : 0), hi = max(d, sb.isFinite ? sb : d)
        let ka = min(max((sa - lo) / (hi - lo), 0), 1), kb = min(max((sb - lo) / (hi - lo), ka), 1)
        v.props = [("opacity", num(sa <= 0 && sb > 0 ? 1 : 0))]
        var m: [(String, JSON)] = [("type", .string("keyframe")), ("keyPath", .string("opacity")),
                                   ("calculationMode", .string("discrete")), ("values", nums([0, 1, 0])),
                                   ("keyTimes", nums([0, ka, kb, 1])), ("duration", num(hi - lo))]
        if lo != 0 || hi != d { m += [("beginTime", num(lo)), ("fillMode", .string("both"))] }
        v.anims.append(obj(m))
        valueCount += 3
        return v
    }

    mutating func newLayer(_ type: String = "layer") throws(SceneError) -> Out {
        layerCount += 1
        guard layerCount <= limits.maxLayers else {
            throw SceneError(path: "layers", "the animation maps to more than \(limits.maxLayers) layers")
        }
        return Out(type)
    }

    func uniqueNameCandidate(_ raw: String) -> String {
        var s = String(raw.map { $0 == "." ? "_" : $0 })
        while s.utf8.count > 200 { s.removeLast() }
        return s
    }

    mutating func uniqueName(_ raw: String) -> String? {
        let base = uniqueNameCandidate(raw)
        guard !base.isEmpty else { return nil }
        var name = base, i = 2
        while usedNames.contains(name) { name = "\(base)#\(i)"; i += 1 }
        usedNames.insert(name)
        return name
    }

    // MARK: Transforms

    /// The layers for a transform (`ks`, or a group's `tr`): the outer one has position,
    /// rotation (and opacity); content goes into the inner one, whose bounds origin is the
    /// anchor. One layer without skew; with skew, a layer between them carries it.
    mutating func transformLayers(_ ks: Node, _ tm: TimeMap, opacity: Bool, owner: Node) throws(SceneError) -> (Out, Out) {
        _ = try ks.object()
        let outer = try newLayer()
        let a = try ks["a"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0, 0])
        let s = try ks["s"].map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: 0.01) } ?? Prop(constant: [1, 1])
        let r = try (ks["r"] ?? ks["rz"]).map { n throws(SceneError) in try Prop(numbers: n, warnings, mult: .pi / 180) } ?? Prop(constant: [0])
        // A 3D layer's (`ddd`) rotations about x and y, projected as rlottie projects them.
        let is3D = owner["ddd"]?.bool() == true
        func turn(_ k: String) throws(SceneError) -> Prop {
            guard let n = ks[k] else { return Prop(constant: [0]) }
            guard is3D else { warnings.add(ks.at(k), "3D rotation of a layer that is not 3D (ddd)", "ignored"); return Prop(constant: [0]) }
            return try Prop(numbers: n, warnings, mult: .pi / 180)
        }
        let rx = try turn("rx"), ry = try turn("ry")
        if let or = ks["or"], case let o = try Prop(numbers: or, warnings), !o.isStatic || o.first.contains(where: { $0 != 0 }) {
            warnings.add(ks.at("or"), "3D orientation", "not mapped (drawn without it)")
        }
        let has3D = [rx, ry].contains { !$0.isStatic || $0.first.first != 0 }
        let sk = try ks["sk"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0])
        let sa = try ks["sa"].map { n throws(SceneError) in try Prop(numbers: n, warnings) } ?? Prop(constant: [0])
        let hasSkew = !sk.isStatic || sk.first.first != 0 || has3D
        let inner = hasSkew ? try newLayer() : outer
        // Auto-orient (`ao` of a layer): the rotation adds the direction the position moves in.
        var path: ((Double) -> [Double], Double, Double)? = nil
        // Position: one point, or x and y split.
        if let p = ks["p"] {
            if p["s"]?.bool() == true {
                let start = (ip - tm.offset) / tm.scale
                let x0 = try Prop(numbers: p.required("x"), warnings).value(at: start).first ?? 0
                let y0 = try Prop(numbers: p.required("y"), warnings).value(at: start).first ?? 0
                outer.props.append(("position", nums([x0, y0])))
                let px = Signal(try Prop(numbers: p.required("x"), warnings)), py = Signal(try Prop(numbers: p.required("y"), warnings))
                if let (lo, hi) = Signal.combine([px, py]) { $0[0] + $0[1] }.span {
                    path = ({ t in [px.eval(t).first ?? 0, py.eval(t).first ?? 0] }, lo, hi)
                }
                try animate(outer, "position.x", Signal(Prop(numbers: p.required("x"), warnings)), tm) { num($0[0]) }
                try animate(outer, "position.y", Signal(Prop(numbers: p.required("y"), warnings)), tm) { num($0[0]) }
            } else {
                let pp = try Prop(numbers: p, warnings)
                guard pp.first.count >= 2 else { throw SceneError(path: p.path, "must be a point [x, y]") }
                let sig = Signal(pp)
                if let (lo, hi) = sig.span { path = (sig.eval, lo, hi) }
                if case .sampled = sig.keys, pp.keys.allSatisfy({ $0.to == nil && $0.ti == nil }) {
                    // Easing differs per dimension: x and y as their own animations.
                    let p0 = sig.eval((ip - tm.offset) / tm.scale)
                    outer.props.append(("position", nums([p0[0], p0[1]])))
                    try animate(outer, "position.x", Signal(pp.component(0)), tm) { num($0[0]) }
                    try animate(outer, "position.y", Signal(pp.component(1)), tm) { num($0[0]) }
                } else {
                    try animate(outer, "position", sig, tm) { nums([$0[0], $0.count > 1 ? $0[1] : 0]) }
                }
            }
        }
        // Anchor: the inner layer's bounds origin (a zero-size bounds at the anchor).
        let asig = Signal(a)
        inner.props.append(("bounds", nums([a.first.first ?? 0, a.first.count > 1 ? a.first[1] : 0, 0, 0])))
        if !asig.isStatic {
            try animate(inner, "bounds.origin", asig, tm, setModel: false) { nums([$0[0], $0.count > 1 ? $0[1] : 0]) }
        }
        // Scale and rotation as transform components (the model transform has the static ones).
        let s0 = s.first, r0 = r.first.first ?? 0
        let sx = s0.first ?? 1, sy = s0.count > 1 ? s0[1] : sx
        let scaleLayer = inner
        let rotated = outer
        if hasSkew {
            rotated.props.append(("transform", .array([obj([("rotate", num(r.isStatic ? r0 : 0))])])))
            scaleLayer.props.append(("transform", .array([obj([("scale", nums(s.isStatic ? [sx, sy, 1] : [1, 1, 1]))])])))
            let mid = try newLayer()
            // Skew, then the 3D turns (the identity where there are none).
            let skSig = Signal.combine([Signal(sk), Signal(sa), Signal(rx), Signal(ry)], affine: false) { v in
                Affine.skew(v[0].first ?? 0, axis: v[1].first ?? 0).json.numbers
                    .projected(rx: v[2].first ?? 0, ry: v[3].first ?? 0)
            }
            mid.props.append(("transform", nums(skSig.eval((ip - tm.offset) / tm.scale))))
            if !skSig.isStatic { try animate(mid, "transform", skSig, tm, setModel: false) { nums($0) } }
            mid.sublayers = [inner]
            outer.sublayers = [mid]
        } else {
            outer.props.append(("transform", .array([obj([("rotate", num(r.isStatic ? r0 : 0))]),
                                                     obj([("scale", nums(s.isStatic ? [sx, sy, 1] : [1, 1, 1]))])])))
        }
        if owner["ao"]?.bool() == true || (try? owner["ao"]?.number()) == 1, let (move, lo, hi) = path {
            // lottie-web's reading: the angle of p(t) − p(t − 0.01 frame), and at the ends
            // the direction into the first key or out of the last.
            let rs = Signal(r)
            let span = rs.span.map { (min($0.0, lo), max($0.1, hi)) } ?? (lo, hi)
            let orient = Signal(keys: .sampled(span.0, span.1)) { t in
                let u = min(max(t, lo + 0.01), hi)
                let a = move(u), b = move(u - 0.01)
                let angle = a[0] == b[0] && a[1] == b[1] ? 0 : atan2(a[1] - b[1], a[0] - b[0])
                return [(rs.eval(t).first ?? 0) + angle]
            }
            try animate(rotated, "transform.rotation.z", orient, tm, setModel: false) { num($0[0]) }
        } else if !r.isStatic { try animate(rotated, "transform.rotation.z", Signal(r), tm, setModel: false) { num($0[0]) } }
        if !s.isStatic {
            try animate(scaleLayer, "transform.scale.x", Signal(s.component(0)), tm, setModel: false) { num($0[0]) }
            try animate(scaleLayer, "transform.scale.y", Signal(s.first.count > 1 ? s.component(1) : s.component(0)), tm, setModel: false) { num($0[0]) }
        }
        if opacity, let o = ks["o"] {
            try animate(outer, "opacity", Signal(Prop(numbers: o, warnings, mult: 0.01)), tm) { num(min(max($0[0], 0), 1)) }
        }
        return (outer, inner)
    }

    // MARK: Animations

    /// Sets a property's value (at scene time 0) and, when the signal changes, adds its
    /// keyframe animation in root seconds: keyframe to keyframe when exact, else sampled.
    mutating func animate(_ layer: Out, _ keyPath: String, _ sig: Signal, _ tm: TimeMap, setModel: Bool = true,
                          _ value: ([Double]) -> JSON) throws(SceneError) {
        let startLocal = (ip - tm.offset) / tm.scale
        if setModel, !keyPath.contains(".") { layer.props.append((keyPath, value(sig.eval(startLocal)))) }
        var frames: [Double], easings: [Easing]
        switch sig.keys {
        case .constant: return
        case .exact(let t, let e): frames = t; easings = e
        case .sampled(let lo, let hi):
            // Every whole frame between the ends (what players draw), or, past the limit, an
            // even grid.
            if hi - lo + 2 <= Double(limits.maxSamplesPerProperty) {
                frames = [lo] + stride(from: lo.rounded(.down) + 1, to: hi, by: 1).map { $0 } + [hi]
            } else {
                let n = max(1, limits.maxSamplesPerProperty)
                frames = (0...n).map { lo + (hi - lo) * Double($0) / Double(n) }
            }
            easings = Array(repeating: .linear, count: frames.count - 1)
        }
        let secs = frames.map { (tm.root($0) - ip) / fr }
        let begin = secs.first!, span = secs.last! - begin
        // Counted in numbers before any value is made (a path is 6 per vertex).
        valueCount += frames.count * max(sig.eval(frames[0]).count, 1)
        guard valueCount <= limits.maxValues else {
            throw SceneError(path: "layers", "the animation maps to more than \(limits.maxValues) keyframe numbers")
        }
        guard span > 0 else {
            if !setModel { layer.props.append((keyPath, value(sig.eval(frames.last!)))) }
            return
        }
        let values = frames.map { value(sig.eval($0)) }
        // Paths of different structures (vertex counts, open or closed) cannot morph: each run
        // of keyframes of one structure is its own animation, and the next run takes over at
        // its first keyframe (lottie-web and rlottie morph what they can).
        if keyPath == "path" {
            let shapes = values.map { v -> String in if case .string(let d) = v { return d.filter(\.isLetter) }; return "" }
            if Set(shapes).count > 1 {
                // A path sampled once per frame (a polystar whose point count animates) is
                // drawn exactly at every frame: only keyframes' morphs are left out.
                if case .sampled = sig.keys {} else {
                    warnings.add(layer.name ?? "layers", "shape morph between paths of different vertex counts", "not mapped (the path changes at the keyframe)")
                }
                var runs: [[Int]] = []
                for i in values.indices {
                    if let last = runs.last?.last, shapes[last] == shapes[i] { runs[runs.count - 1].append(i) } else { runs.append([i]) }
                }
                for (r, run) in runs.enumerated() {
                    let b = secs[run.first!], e = run.count > 1 ? secs[run.last!] : b + 1e-3
                    var m: [(String, JSON)] = [("type", .string("keyframe")), ("keyPath", .string(keyPath))]
                    if run.count > 1 {
                        m += [("values", .array(run.map { values[$0] })), ("keyTimes", nums(run.map { (secs[$0] - b) / (e - b) }))]
                        let es = run.dropLast().map { easings[$0] }
                        if !es.allSatisfy({ $0 == .linear }) { m.append(("timingFunctions", .array(es.map(\.json)))) }
                    } else {
                        m += [("values", .array([values[run[0]], values[run[0]]])), ("keyTimes", nums([0, 1]))]
                    }
                    m += [("beginTime", num(b)), ("duration", num(e - b)), ("fillMode", .string(r == 0 ? "both" : "forwards"))]
                    layer.anims.append(obj(m))
                }
                return
            }
        }
        var members: [(String, JSON)] = [("type", .string("keyframe")), ("keyPath", .string(keyPath)),
                                         ("values", .array(values)),
                                         ("keyTimes", nums(secs.map { min(max(($0 - begin) / span, 0), 1) }))]
        if !easings.allSatisfy({ $0 == .linear }) { members.append(("timingFunctions", .array(easings.map(\.json)))) }
        members += [("beginTime", num(begin)), ("duration", num(span)), ("fillMode", .string("both"))]
        layer.anims.append(obj(members))
    }

    /// The scene JSON of a built layer: its animations in one group that lasts the whole
    /// animation and loops (or holds at the end).
    func emit(_ o: Out) -> JSON {
        var m: [(String, JSON)] = []
        if let n = o.name { m.append(("name", .string(n))) }
        if o.type != "layer" { m.append(("type", .string(o.type))) }
        m += o.props
        if !o.anims.isEmpty { m.append(("animations", obj([("lottie", group(o.anims))]))) }
        if !o.sublayers.isEmpty { m.append(("sublayers", .array(o.sublayers.map(emit)))) }
        if let mask = o.mask { m.append(("mask", emit(mask))) }
        return obj(m)
    }

    /// The `lottie` group of a layer's animations: the played range's length, the loop
    /// mode's repeats, its keyframes (made in seconds from `ip`) started at the range's start.
    func group(_ anims: [JSON]) -> JSON {
        let from = (rangeFrom - ip) / fr, length = (rangeTo - rangeFrom) / fr
        var children = anims
        if from != 0, !anims.isEmpty {
            children = [obj([("type", .string("group")), ("beginTime", num(-from)), ("duration", num(duration)),
                             ("fillMode", .string("both")), ("animations", .array(anims))])]
        }
        return obj([("type", .string("group")), ("duration", num(length))] + playback.groupTiming(length: length)
                   + [("animations", .array(children))])
    }

    /// The markers, and the played range (frames within ip … op; markers override frames).
    mutating func range(_ root: Node) throws(SceneError) {
        if let list = root["markers"] {
            for mk in try list.array() {
                guard let name = try mk["cm"]?.string() else { continue }
                let t = try mk.number("tm", default: 0), d = try mk.number("dr", default: 0)
                guard abs(t) <= Mapper.maxFrame, abs(d) <= Mapper.maxFrame else { throw SceneError(path: mk.at("tm"), "must be within ±\(Int(Mapper.maxFrame)) frames") }
                markers[name] = (t, max(d, 0))
            }
        }
        var from = playback.fromFrame ?? ip, to = playback.toFrame ?? op
        if let name = playback.fromMarker {
            guard let m = markers[name] else { throw SceneError(path: "markers", "no marker is named \"\(name)\"") }
            from = m.frame
            to = m.frame + m.duration
            if let end = playback.toMarker {
                guard let e = markers[end] else { throw SceneError(path: "markers", "no marker is named \"\(end)\"") }
                to = e.frame
            }
        }
        from = min(max(from, ip), op); to = min(max(to, ip), op)
        guard to > from else { throw SceneError(path: "markers", "the played range (frames \(JSON.format(from))…\(JSON.format(to))) is empty") }
        rangeFrom = from; rangeTo = to
    }

    // MARK: Images and text

    /// An image asset's name for `contents` (nil, with a warning, when it cannot be shown).
    mutating func image(_ asset: Node) throws(SceneError) -> String? {
        let id = try asset.required("id").string()
        let p = try asset["p"]?.string() ?? ""
        if p.hasPrefix("data:") {
            guard let comma = p.firstIndex(of: ","), p[..<comma].hasSuffix(";base64"),
                  let data = Data(base64Encoded: String(p[p.index(after: comma)...]), options: .ignoreUnknownCharacters) else {
                throw SceneError(path: asset.at("p"), "must be a base64 data URI")
            }
            imageData[id] = [UInt8](data)
            return id
        }
        guard !p.isEmpty else { warnings.add(asset.at("p"), "image without data"); return nil }
        imageFiles[id] = (try asset["u"]?.string() ?? "") + p
        return id
    }

    /// A text layer's first document: its text, size, fill colour and justification.
    mutating func text(_ l: Node) throws(SceneError) -> Out? {
        guard let t = l["t"], let d = t["d"], let k = d["k"] else { throw SceneError(path: l.at("t.d.k"), "is required") }
        let docs = try k.array()
        guard let first = docs.first else { return nil }
        if docs.count > 1 { warnings.add(k.path, "text keyframes", "not mapped yet (the first text is shown)") }
        if let a = t["a"], case .array(let list) = a.json, !list.isEmpty { warnings.add(a.path, "text animators") }
        if let p = t["p"], case .object(let m) = p.json, !m.isEmpty { warnings.add(p.path, "text on a path") }
        let s = try first.required("s")
        let string = (try s["t"]?.string() ?? "").replacingOccurrences(of: "\r", with: "\n").replacingOccurrences(of: "\u{3}", with: "\n")
        let size = try s.number("s", default: 12)
        guard size >= 0, size <= 10_000 else { throw SceneError(path: s.at("s"), "must be in 0…10000") }
        let fc = try s["fc"]?.numbers() ?? [0, 0, 0]
        let j = (try s.number("j", default: 0).clampedInt)
        let out = try newLayer("text")
        let lines = Double(string.split(separator: "\n", omittingEmptySubsequences: false).count)
        let lh = try s.number("lh", default: size * 1.2)
        let align = j == 1 ? "right" : j == 2 ? "center" : "left"
        var frame: [Double]
        if let sz = try s["sz"]?.numbers(), sz.count >= 2 {
            let ps = try s["ps"]?.numbers() ?? [0, 0]
            frame = [ps.first ?? 0, ps.count > 1 ? ps[1] : 0, max(sz[0], 0), max(sz[1], 0)]
            out.props.append(("isWrapped", .bool(true)))
        } else {
            // Point text: the first baseline at y = 0, starting (or centred, or ending) at x = 0.
            // The baseline sits the font's ascent below the top: about 0.93 em (DejaVu Sans).
            let width = 8192.0, height = max(lh, size * 1.2) * lines + size
            let x = align == "left" ? 0 : align == "right" ? -width : -width / 2
            frame = [x, -size * 0.928, width, height]
        }
        out.props += [("frame", nums(frame)), ("string", .string(string)), ("fontSize", num(size)),
                      ("foregroundColor", colorJSON(fc, alpha: 1)), ("alignmentMode", .string(align))]
        if let f = try s["f"]?.string(), let pattern = fonts[f] { out.props.append(("font", .string(pattern))) }
        return out
    }
}

extension JSON {
    var isEmptyObject: Bool { if case .object(let m) = self { return m.isEmpty }; return false }
    var numbers: [Double] {
        if case .array(let a) = self { return a.compactMap { if case .number(let v) = $0 { return v }; return nil } }
        return []
    }
}
