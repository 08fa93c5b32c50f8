import Foundation
import LaminaAnimation
import LaminaExpression
import LaminaGeometry
import LaminaLottie
import LaminaModel
import LaminaWire

/// A scene file (docs/scene-format.md) loaded and validated: the canvas, the layers to build at
/// scene time 0, and the transactions to apply at later times, all as protocol operations.
///
/// Every field is checked when loading; an unknown or ill-typed field throws a `SceneError`
/// naming its JSON path (`layers[2].animations.fade.duration: must be ≥ 0`).
public struct Scene: Sendable {
    /// Canvas in points (default 800×600), device pixels per point, clear color.
    public var size: Size
    public var scale: Double
    public var background: Color
    /// Layer names and the local ids the scene gives them (1, 2, … in document order).
    public var names: [String: UInt32]
    /// Every layer's local id → name (nil for unnamed layers).
    public var layerNames: [UInt32: String]
    /// How many layers the scene builds (named or not): they have the local ids 1 … layerCount.
    public var layerCount = 0
    /// The operations that build the scene (one commit at scene time 0): create, set
    /// properties, attach, add the layers' animations.
    public var initialOperations: [LayerChange]
    /// The scene's transactions in time order (stable for equal times).
    public var transactions: [TimedTransaction]
    /// The top level's `images`: each name `contents` may show → its file (PNG, JPEG or
    /// WebP), relative to the scene file's folder as written there, resolved against it when
    /// the scene was loaded from a file.
    public var images: [String: String]
    /// Images carried in the file itself (a Lottie file's data URIs): name → PNG/JPEG bytes.
    public var imageData: [String: [UInt8]] = [:]
    /// The parts of a Lottie file left out (one line per feature per JSON path); empty for
    /// scene files.
    public var warnings: [String] = []
    /// Whether the file was a Lottie file (mapped by LaminaLottie).
    public var isLottie = false
    /// For a Lottie file: the playback clock of its root layer (`LottieImport.rootName`),
    /// as loaded at scene time 0 (`LottieClock`; `LottiePlayer` drives it in a daemon).
    public var lottieClock: LottieClock?
    /// For a Lottie file: its import (key paths for dynamic properties, markers, the range).
    public var lottie: LottieImport?
    /// The builder as the scene left it: later transactions are read against its layers.
    var builder = Builder()

    public struct TimedTransaction: Sendable, Hashable {
        /// Scene time in seconds.
        public var at: Double
        /// Starts with `.setTransaction`, then the changes in document order.
        public var operations: [LayerChange]
    }

    /// Loads a scene file, or a Lottie file (which loops unless `lottieLoops` is false;
    /// `lottiePlayback`, when given, sets its loop mode, range and autoplay instead).
    public init(contentsOfFile path: String, lottieLoops: Bool = true, lottiePlayback: LottiePlayback? = nil) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw SceneError(path: "", "cannot read \(path): \(error.localizedDescription)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try self.init(json: String(decoding: data, as: UTF8.self), folder: folder, lottieLoops: lottieLoops,
                      lottiePlayback: lottiePlayback)
    }

    /// Parses and validates scene JSON text; `images` paths are resolved against `folder`
    /// (the scene file's; nil leaves them as written).
    /// A Lottie file (top-level "v", "fr", "ip", "op", "w", "h", "layers") is mapped onto
    /// layers and keyframe animations first (LaminaLottie); it loops unless `lottieLoops` is false.
    public init(json text: String, folder: String? = nil, lottieLoops: Bool = true,
                lottiePlayback: LottiePlayback? = nil) throws(SceneError) {
        var root = try JSON.parse(text)
        var lottie: LottieImport? = nil
        if LottieImport.isLottie(root) {
            let l = try LottieImport(json: root, playback: lottiePlayback ?? LottiePlayback(loopMode: lottieLoops ? .loop : .playOnce))
            root = l.scene
            lottie = l
        }
        try self.init(root: root, folder: folder, imageData: lottie?.imageData ?? [:])
        if let lottie { warnings = lottie.warnings; isLottie = true; lottieClock = LottieClock(lottie); self.lottie = lottie }
    }

    init(root: JSON, folder: String?, imageData: [String: [UInt8]]) throws(SceneError) {
        self.imageData = imageData
        let f = try SceneValues.Fields(root, "", allowed: ["size", "scale", "background", "images", "layers", "transactions"])
        size = Size(800, 600)
        if let v = f["size"] {
            size = try SceneValues.size(v, "size")
            guard size.width > 0, size.height > 0, size.width <= 16384, size.height <= 16384 else {
                throw SceneError(path: "size", "must be positive (at most 16384)")
            }
        }
        scale = 1
        if let v = f["scale"] {
            scale = try SceneValues.number(v, "scale")
            guard scale > 0, scale <= 8 else { throw SceneError(path: "scale", "must be > 0 (at most 8)") }
        }
        background = .black
        if let v = f["background"] {
            guard let c = try SceneValues.color(v, "background") else { throw SceneError(path: "background", "must be a color, not null") }
            background = c
        }
        var builder = Builder()
        images = [:]
        if let v = f["images"] {
            guard case .object(let entries) = v else { throw SceneError(path: "images", "must be an object of NAME: \"file\"") }
            for e in entries {
                let ep = "images." + e.key
                guard !e.key.isEmpty, e.key.utf8.count <= 256 else {
                    throw SceneError(path: ep, "an image name must be non-empty (at most 256 bytes)")
                }
                let file = try SceneValues.string(e.value, ep)
                guard !file.isEmpty else { throw SceneError(path: ep, "must be a file name") }
                images[e.key] = folder.map { file.hasPrefix("/") ? file : $0 + "/" + file } ?? file
            }
        }
        builder.imageNames = Set(images.keys).union(imageData.keys)
        if let v = f["layers"] {
            guard case .array(let layers) = v else { throw SceneError(path: "layers", "must be a list of layers") }
            builder.deferExpressions = true
            for (i, l) in layers.enumerated() { try builder.layer(l, "layers[\(i)]", parent: 0) }
            // Expression animations may name layers declared after their own.
            try builder.addDeferredExpressions()
        }
        initialOperations = builder.operations
        var txs: [TimedTransaction] = []
        if let v = f["transactions"] {
            guard case .array(let list) = v else { throw SceneError(path: "transactions", "must be a list of transactions") }
            for (i, t) in list.enumerated() { txs.append(try builder.transaction(t, "transactions[\(i)]")) }
        }
        // With the layers transactions add (`addSublayers`).
        names = builder.names
        layerCount = Int(builder.nextID) - 1
        layerNames = Dictionary(uniqueKeysWithValues: builder.names.map { ($0.value, $0.key) })
        self.builder = builder
        transactions = txs.enumerated().sorted { a, b in
            a.element.at != b.element.at ? a.element.at < b.element.at : a.offset < b.offset
        }.map(\.element)
    }

    /// The operations of a transaction (scene-file TX JSON, without `at`) applied to the
    /// scene's layers as they are after its own transactions: what a client sends to change
    /// a loaded scene.
    public mutating func operations(forTransaction j: JSON) throws(SceneError) -> [LayerChange] {
        try builder.transaction(j, "transaction").operations
    }

    /// Builds operations while checking every field (and tracking model values to check
    /// ranges and to know custom properties' kinds).
    struct Builder {
        var operations: [LayerChange] = []
        var names: [String: UInt32] = [:]
        var kinds: [UInt32: LayerKind] = [:]
        var properties: [UInt32: LayerProperties] = [:]
        var nextID: UInt32 = 1
        /// While building the initial layers: expression animations wait for every name.
        var deferExpressions = false
        var deferred: [(id: UInt32, key: String, expression: ExpressionAnimation, path: String)] = []
        /// The names of the top level's `images` (what `contents` may name).
        var imageNames: Set<String> = []
        /// The scene time a transaction's `addSublayers` creates each layer at (a layer exists
        /// for the transactions at or after it), and the time of the transaction being read.
        var createdAt: [UInt32: Double] = [:]
        var currentAt = 0.0
        /// While reading a transaction: its `transitions` not yet used, by layer name.
        var pendingTransitions: [String: (LayerTransitions, String)] = [:]


        /// Stages layer `j` and its sublayers (and its mask) under `parent`; nil: no superlayer
        /// (a mask).
        mutating func layer(_ j: JSON, _ path: String, parent: UInt32?) throws(SceneError) {
            guard case .object(let members) = j else { throw SceneError(path: path, "must be an object (got \(j.typeName))") }
            var kind = LayerKind.layer
            if let t = members.first(where: { $0.key == "type" }) {
                let s = try SceneValues.string(t.value, path + ".type")
                guard let k = LayerKind.allCases.first(where: { $0.name == s && $0 != .surface }) else {  // a surface's pixels come from a client
                    let names = LayerKind.allCases.filter { $0 != .surface }.map { "\"\($0.name)\"" }
                    throw SceneError(path: path + ".type",
                                     "must be \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")")
                }
                kind = k
            }
            let id = nextID
            nextID += 1
            operations.append(.create(id, kind))
            kinds[id] = kind
            var props = LayerProperties()
            var sublayers: [JSON] = []
            var animations: JSON? = nil
            // Custom properties first: a path template reads those that exist when it is set.
            for m in members.filter({ $0.key == "custom" }) + members.filter({ $0.key != "custom" }) {
                let fp = path + "." + m.key
                switch m.key {
                case "type": continue
                case "name":
                    let name = try SceneValues.string(m.value, fp)
                    guard !name.isEmpty, !name.contains(".") else { throw SceneError(path: fp, "must be non-empty and contain no dots") }
                    guard name.utf8.count <= PropertyTable.shortStringLimit else {
                        throw SceneError(path: fp, "must be at most \(PropertyTable.shortStringLimit) bytes of UTF-8")
                    }
                    guard names[name] == nil else { throw SceneError(path: fp, "the name \"\(name)\" is already used") }
                    names[name] = id
                    // The scene name is the layer's `name` property too (CALayer.name).
                    try set(&props, id, "name", .string(name), fp)
                case "custom":
                    guard case .object(let cm) = m.value else { throw SceneError(path: fp, "must be an object of named numbers") }
                    for c in cm {
                        let cp = fp + "." + c.key
                        guard !c.key.isEmpty, !c.key.contains(".") else { throw SceneError(path: cp, "a custom name must be non-empty and contain no dots") }
                        let v = try SceneValues.property("custom." + c.key, c.value, cp)
                        try set(&props, id, "custom." + c.key, v, cp)
                    }
                case "sublayers":
                    guard case .array(let subs) = m.value else { throw SceneError(path: fp, "must be a list of layers") }
                    sublayers = subs
                case "animations": animations = m.value
                case "compositingFilter" where m.value == .null:
                    // null: normal (source-over), as CALayer's nil compositingFilter.
                    try set(&props, id, m.key, .string(BlendMode.normalBlendMode.rawValue), fp)
                case "mask":
                    // An inline LAYER (created here, with no superlayer) or null.
                    if case .null = m.value { try set(&props, id, "mask", .number(0), fp); continue }
                    let mask = nextID
                    try layer(m.value, fp, parent: nil)
                    try set(&props, id, "mask", .number(Double(mask)), fp)
                default:
                    // A field is a property of the table (not a sub-key-path) or `frame`.
                    let row = PropertyTable.row(m.key)
                    guard row != nil || m.key == "frame" else { throw SceneError(path: fp, "unknown field") }
                    if let row, !row.layers.contains(kind) {
                        throw SceneError(path: fp, "only \(row.layers.names) layers have this property")
                    }
                    let v = try SceneValues.property(m.key, m.value, fp)
                    try set(&props, id, m.key, v, fp)
                }
            }
            properties[id] = props
            if currentAt > 0 { createdAt[id] = currentAt }
            if !pendingTransitions.isEmpty, let name = names.first(where: { $0.value == id })?.key,
               let (t, _) = pendingTransitions.removeValue(forKey: name) {
                operations.append(.setTransitions(id, t))
            }
            if let parent { operations.append(.addSublayer(parent: parent, child: id)) }
            if let animations { try addAnimations(animations, path + ".animations", id) }
            for (i, s) in sublayers.enumerated() { try layer(s, "\(path).sublayers[\(i)]", parent: id) }
        }

        /// Checks a property change against the tracked model values and stages it.
        mutating func set(_ props: inout LayerProperties, _ id: UInt32, _ keyPath: String, _ v: PropertyValue,
                          _ path: String) throws(SceneError) {
            if keyPath == "contents", case .string(let name) = v, !name.isEmpty, !imageNames.contains(name) {
                throw SceneError(path: path, "no image is named \"\(name)\" (the top level's \"images\")")
            }
            do { try props.setValue(v, forKeyPath: keyPath) } catch {
                switch error {
                case .unknownKeyPath: throw SceneError(path: path, "unknown property")
                case .wrongType(_, let expected, _): throw SceneError(path: path, "must be a \(expected)")
                case .notFinite: throw SceneError(path: path, "must be finite")
                case .outOfRange(_, let reason): throw SceneError(path: path, reason)
                case .notAProperty(_, let kind): throw SceneError(path: path, PropertyError.notAPropertyReason(kind))
                }
            }
            operations.append(.set(id, keyPath: keyPath, value: v))
        }

        mutating func addAnimations(_ j: JSON, _ path: String, _ id: UInt32) throws(SceneError) {
            guard case .object(let members) = j else { throw SceneError(path: path, "must be an object of named animations") }
            for m in members {
                let ap = path + "." + m.key
                guard !m.key.isEmpty else { throw SceneError(path: ap, "an animation key must not be empty") }
                if ExpressionJSON.isExpression(m.value) {
                    try addExpression(ExpressionJSON.decode(m.value, ap), key: m.key, id, ap)
                    continue
                }
                let animation = try AnimationJSON.decode(m.value, ap)
                let props = properties[id] ?? LayerProperties()
                let compiled: CompiledAnimation
                do {
                    compiled = try animation.compile { PropertySlot(keyPath: $0)?.kind(in: props) }
                } catch {
                    throw SceneError(path: ap + "." + error.field, error.message)
                }
                for k in compiled.keyPaths { try checkKind(k, id, ap) }
                operations.append(.addAnimation(id, key: m.key, animation: animation))
            }
        }

        /// Layers of `id`'s kind must have the property at `keyPath` (`PropertyTable.check`);
        /// the error names the key path unless `path` ends with it.
        func checkKind(_ keyPath: String, _ id: UInt32, _ path: String, pathNamesKeyPath: Bool = false) throws(SceneError) {
            do { try PropertyTable.check(keyPath: keyPath, kind: kinds[id]!) } catch {
                guard case .notAProperty(_, let kind) = error, pathNamesKeyPath else { throw SceneError(path: path, error.description) }
                throw SceneError(path: path, PropertyError.notAPropertyReason(kind))
            }
        }

        func layerID(_ name: String, _ path: String) throws(SceneError) -> UInt32 {
            guard let id = names[name] else { throw SceneError(path: path, "no layer is named \"\(name)\"") }
            if let t = createdAt[id], t > currentAt {
                throw SceneError(path: path, "the layer \"\(name)\" is added by a transaction at \(t), after this one")
            }
            return id
        }

        mutating func transaction(_ j: JSON, _ path: String) throws(SceneError) -> TimedTransaction {
            let f = try SceneValues.Fields(j, path, allowed: ["at", "duration", "timingFunction", "disableActions", "set", "add", "remove",
                                                                "addSublayers", "removeLayers", "transitions", "match", "transition"])
            let at = try f["at"].map { v throws(SceneError) in try SceneValues.nonNegative(v, f.at("at")) } ?? 0
            var settings = TransactionSettings()
            if let v = f["duration"] { settings.duration = try SceneValues.nonNegative(v, f.at("duration")) }
            if let v = f["timingFunction"] { settings.timingFunction = try SceneValues.timing(v, f.at("timingFunction")) }
            if let v = f["disableActions"] { settings.disableActions = try SceneValues.bool(v, f.at("disableActions")) }
            let saved = operations
            operations = [.setTransaction(settings)]
            currentAt = at
            defer { operations = saved; pendingTransitions = [:] }
            if let v = f["transitions"] {
                guard case .object(let entries) = v else { throw SceneError(path: f.at("transitions"), "must be an object of NAME: {\"insertion\": T, \"removal\": T}") }
                for e in entries {
                    let ep = f.at("transitions") + "." + e.key
                    pendingTransitions[e.key] = (try TransitionJSON.decode(e.value, ep), ep)
                }
            }
            for m in f.members {
                let fp = f.at(m.key)
                switch m.key {
                case "set":
                    guard case .object(let sets) = m.value else { throw SceneError(path: fp, "must be an object of NAME.KEYPATH: value") }
                    for s in sets {
                        let sp = fp + "." + s.key
                        guard let dot = s.key.firstIndex(of: ".") else { throw SceneError(path: sp, "must be NAME.KEYPATH") }
                        let id = try layerID(String(s.key[..<dot]), sp)
                        let keyPath = String(s.key[s.key.index(after: dot)...])
                        guard keyPath != "name" else {
                            throw SceneError(path: sp, "a layer's name is its scene name, set in the layer (not by a transaction)")
                        }
                        try checkKind(keyPath, id, sp, pathNamesKeyPath: true)
                        let v = try SceneValues.property(keyPath, s.value, sp)
                        var props = properties[id]!
                        try set(&props, id, keyPath, v, sp)
                        properties[id] = props
                    }
                case "add":
                    guard case .object(let adds) = m.value else { throw SceneError(path: fp, "must be an object of NAME: {KEY: ANIMATION}") }
                    for a in adds { try addAnimations(a.value, fp + "." + a.key, try layerID(a.key, fp + "." + a.key)) }
                case "remove":
                    guard case .object(let removes) = m.value else { throw SceneError(path: fp, "must be an object of NAME: [KEY, …]") }
                    for r in removes {
                        let rp = fp + "." + r.key
                        let id = try layerID(r.key, rp)
                        guard case .array(let keys) = r.value else { throw SceneError(path: rp, "must be a list of animation keys") }
                        for (i, k) in keys.enumerated() {
                            operations.append(.removeAnimation(id, key: try SceneValues.string(k, "\(rp)[\(i)]")))
                        }
                    }
                case "addSublayers":
                    guard case .object(let adds) = m.value else { throw SceneError(path: fp, "must be an object of PARENT: [LAYER, …]") }
                    for a in adds {
                        let ap = fp + "." + a.key
                        let parent = a.key.isEmpty ? 0 : try layerID(a.key, ap)
                        guard case .array(let layers) = a.value else { throw SceneError(path: ap, "must be a list of layers") }
                        for (i, l) in layers.enumerated() { try layer(l, "\(ap)[\(i)]", parent: parent) }
                    }
                case "removeLayers":
                    guard case .array(let list) = m.value else { throw SceneError(path: fp, "must be a list of layer names") }
                    for (i, n) in list.enumerated() {
                        let np = "\(fp)[\(i)]"
                        let name = try SceneValues.string(n, np)
                        let id = try layerID(name, np)
                        if let (t, _) = pendingTransitions.removeValue(forKey: name) { operations.append(.setTransitions(id, t)) }
                        operations.append(.removeFromSuperlayer(id))
                    }
                default: continue
                }
            }
            if let v = f["match"] {
                // After every other change: `to`'s own values are final.
                let mp = f.at("match")
                guard case .array(let pairs) = v else { throw SceneError(path: mp, "must be a list of {\"from\": NAME, \"to\": NAME}") }
                for (i, pair) in pairs.enumerated() {
                    let pp = "\(mp)[\(i)]"
                    let pf = try SceneValues.Fields(pair, pp, allowed: ["from", "to"])
                    guard let fj = pf["from"] else { throw SceneError(path: pf.at("from"), "is required") }
                    guard let tj = pf["to"] else { throw SceneError(path: pf.at("to"), "is required") }
                    let from = try layerID(try SceneValues.string(fj, pf.at("from")), pf.at("from"))
                    let to = try layerID(try SceneValues.string(tj, pf.at("to")), pf.at("to"))
                    guard from != to else { throw SceneError(path: pp, "from and to must be different layers") }
                    operations.append(.match(from: from, to: to))
                }
            }
            if let v = f["transition"] {
                let tp = f.at("transition")
                let (name, t) = try TransitionJSON.contentTransition(v, tp, settings: settings)
                operations.append(.transition(try layerID(name, tp + ".layer"), t))
            }
            if let (name, (_, ep)) = pendingTransitions.first {
                throw SceneError(path: ep, "the layer \"\(name)\" is neither added nor removed by this transaction")
            }
            return TimedTransaction(at: at, operations: operations)
        }
    }
}

extension Scene {
    /// The client id scene playback uses for its layers.
    public static let client: UInt32 = 1

    /// The layer id in a tree built by `tree(at:)` (LaminaSceneTree) for a layer name.
    public func layerID(named name: String) -> LayerID? {
        names[name].map { LayerID(client: Self.client, local: $0) }
    }
}

extension PropertyValue {
    /// The value as query output JSON.
    public var json: JSON {
        func nums(_ v: [Double]) -> JSON { .array(v.map { .number($0) }) }
        switch self {
        case .number(let v): return .number(v)
        case .point(let p): return nums([p.x, p.y])
        case .size(let s): return nums([s.width, s.height])
        case .rect(let r): return nums([r.origin.x, r.origin.y, r.size.width, r.size.height])
        case .color(let c): return c.map { nums([$0.red, $0.green, $0.blue, $0.alpha]) } ?? .null
        case .transform(let t): return nums(t.rowMajor)
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .numbers(let v): return nums(v)
        case .path(let p): return p.map { .string($0.svgData) } ?? .null
        case .colors(let cs): return .array(cs.map { nums([$0.red, $0.green, $0.blue, $0.alpha]) })
        case .template(let source): return .object([JSON.Member(key: "template", value: .string(source))])
        case .emitterCells(let cells): return SceneValues.json(cells)
        case .filters(let list):
            return .array(list.map { f in
                var m: [JSON.Member] = []
                if let n = f.name { m.append(JSON.Member(key: "name", value: .string(n))) }
                m.append(JSON.Member(key: "type", value: .string(f.kind.rawValue)))
                switch f.kind {
                case .gaussianBlur: m.append(JSON.Member(key: "radius", value: .number(f.radius)))
                case .colorMatrix: m.append(JSON.Member(key: "matrix", value: nums(f.matrix)))
                default: m.append(JSON.Member(key: "amount", value: .number(f.amount)))
                }
                return .object(m)
            })
        case .text(let t):
            // The scene format's styled runs: each with only the attributes it sets.
            return .array(t.runs.map { run in
                var m = [JSON.Member(key: "text", value: .string(run.text))]
                if let f = run.font { m.append(JSON.Member(key: "font", value: .string(f))) }
                if let s = run.fontSize { m.append(JSON.Member(key: "fontSize", value: .number(s))) }
                if let c = run.foregroundColor {
                    m.append(JSON.Member(key: "foregroundColor", value: nums([c.red, c.green, c.blue, c.alpha])))
                }
                return .object(m)
            })
        }
    }
}

