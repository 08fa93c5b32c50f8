import LaminaAnimation
import LaminaGeometry
import LaminaModel

/// Decoders for the values of docs/scene-format.md (`POINT`, `COLOR`, `TRANSFORM`, `PATH`,
/// `TIMING`, property values by key path). Every error names the JSON path of the field.
public enum SceneValues {
    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }
    static func index(_ path: String, _ i: Int) -> String { "\(path)[\(i)]" }

    /// Reads an object's members, refusing unknown ones.
    /// A spring's parameters from an object's fields (a SPRING timing function, the `spring`
    /// animation kind): mass, stiffness, damping and initialVelocity (defaults 1, 100, 10, 0;
    /// mass and stiffness > 0, damping > 0 — an undamped spring never settles), or
    /// perceptualDuration and bounce (defaults 0.5, 0; d > 0, b in −1…1 exclusive, so damping
    /// stays > 0), not both.
    public static func spring(_ f: Fields) throws(SceneError) -> Spring {
        func num(_ k: String, _ d: Double) throws(SceneError) -> Double {
            try f[k].map { v throws(SceneError) in try number(v, f.at(k)) } ?? d
        }
        let velocity = try num("initialVelocity", 0)
        if f["perceptualDuration"] != nil || f["bounce"] != nil {
            for k in ["mass", "stiffness", "damping"] where f[k] != nil {
                throw SceneError(path: f.at(k), "cannot be given with perceptualDuration/bounce")
            }
            let d = try num("perceptualDuration", 0.5)
            guard d > 0 else { throw SceneError(path: f.at("perceptualDuration"), "must be > 0") }
            let b = try num("bounce", 0)
            guard b > -1, b < 1 else { throw SceneError(path: f.at("bounce"), "must be in −1…1 (exclusive)") }
            return Spring(perceptualDuration: d, bounce: b, initialVelocity: velocity)
        }
        for (k, d) in [("mass", 1.0), ("stiffness", 100.0), ("damping", 10.0)] {
            guard try num(k, d) > 0 else {
                throw SceneError(path: f.at(k), k == "damping" ? "must be > 0 (an undamped spring never settles)" : "must be > 0")
            }
        }
        return Spring(mass: try num("mass", 1), stiffness: try num("stiffness", 100), damping: try num("damping", 10),
                      initialVelocity: velocity)
    }

    public struct Fields {
        public let members: [JSON.Member]
        public let path: String
        public init(_ json: JSON, _ path: String, allowed: Set<String>) throws(SceneError) {
            guard case .object(let m) = json else { throw SceneError(path: path, "must be an object (got \(json.typeName))") }
            for member in m where !allowed.contains(member.key) {
                throw SceneError(path: SceneValues.join(path, member.key), "unknown field")
            }
            members = m; self.path = path
        }
        public subscript(_ key: String) -> JSON? { members.first { $0.key == key }?.value }
        public func at(_ key: String) -> String { SceneValues.join(path, key) }
    }

    public static func number(_ j: JSON, _ path: String) throws(SceneError) -> Double {
        guard case .number(let v) = j else { throw SceneError(path: path, "must be a number (got \(j.typeName))") }
        return v
    }
    public static func nonNegative(_ j: JSON, _ path: String) throws(SceneError) -> Double {
        let v = try number(j, path)
        guard v >= 0 else { throw SceneError(path: path, "must be ≥ 0") }
        return v
    }
    public static func bool(_ j: JSON, _ path: String) throws(SceneError) -> Bool {
        guard case .bool(let v) = j else { throw SceneError(path: path, "must be true or false (got \(j.typeName))") }
        return v
    }
    public static func string(_ j: JSON, _ path: String) throws(SceneError) -> String {
        guard case .string(let v) = j else { throw SceneError(path: path, "must be a string (got \(j.typeName))") }
        return v
    }
    public static func numbers(_ j: JSON, _ path: String, count: Int? = nil, what: String = "a list of numbers") throws(SceneError) -> [Double] {
        guard case .array(let a) = j, count == nil || a.count == count! else {
            throw SceneError(path: path, "must be \(what)")
        }
        var out: [Double] = []
        for (i, e) in a.enumerated() { out.append(try number(e, index(path, i))) }
        return out
    }
    public static func point(_ j: JSON, _ path: String) throws(SceneError) -> Point {
        let v = try numbers(j, path, count: 2, what: "a point [x, y]")
        return Point(v[0], v[1])
    }
    public static func size(_ j: JSON, _ path: String) throws(SceneError) -> Size {
        let v = try numbers(j, path, count: 2, what: "a size [width, height]")
        return Size(v[0], v[1])
    }
    public static func rect(_ j: JSON, _ path: String) throws(SceneError) -> Rect {
        let v = try numbers(j, path, count: 4, what: "a rect [x, y, width, height]")
        return Rect(v[0], v[1], v[2], v[3])
    }

    /// `COLOR`: "#RGB", "#RRGGBB", "#RRGGBBAA", [r, g, b], [r, g, b, a] or null (no color).
    public static func color(_ j: JSON, _ path: String) throws(SceneError) -> Color? {
        switch j {
        case .null: return nil
        case .string(let s):
            guard let c = Color(hex: s) else { throw SceneError(path: path, "must be a color \"#RGB\", \"#RRGGBB\" or \"#RRGGBBAA\" (got \"\(s)\")") }
            return c
        case .array(let a) where a.count == 3 || a.count == 4:
            let v = try numbers(j, path)
            for (i, x) in v.enumerated() where !(0...1).contains(x) {
                throw SceneError(path: index(path, i), "must be in 0…1")
            }
            return Color(v[0], v[1], v[2], v.count == 4 ? v[3] : 1)
        default:
            throw SceneError(path: path, "must be a color: \"#RRGGBB\", [r, g, b], [r, g, b, a] or null")
        }
    }
    static func nonNilColor(_ j: JSON, _ path: String) throws(SceneError) -> Color {
        guard let c = try color(j, path) else { throw SceneError(path: path, "must be a color, not null") }
        return c
    }

    /// `TRANSFORM`: 16 numbers (m11 … m44 row by row) or a list of CSS operations, the last
    /// applied to the point first.
    public static func transform(_ j: JSON, _ path: String) throws(SceneError) -> Transform3D {
        guard case .array(let a) = j else { throw SceneError(path: path, "must be 16 numbers or a list of operations") }
        if a.count == 16, a.allSatisfy({ if case .number = $0 { true } else { false } }) {
            return Transform3D(rowMajor: try numbers(j, path))!
        }
        var m = Transform3D.identity
        for (i, op) in a.enumerated().reversed() {
            let p = index(path, i)
            guard case .object(let members) = op, members.count == 1 else {
                throw SceneError(path: p, "must be one operation such as {\"rotate\": 0.5}")
            }
            let name = members[0].key, v = members[0].value, vp = join(p, name)
            let t: Transform3D
            switch name {
            case "translate":
                let n = try numbers(v, vp)
                guard n.count == 2 || n.count == 3 else { throw SceneError(path: vp, "must be [x, y] or [x, y, z]") }
                t = .translation(n[0], n[1], n.count == 3 ? n[2] : 0)
            case "rotate": t = .rotation(try number(v, vp), 0, 0, 1)
            case "rotateX": t = .rotation(try number(v, vp), 1, 0, 0)
            case "rotateY": t = .rotation(try number(v, vp), 0, 1, 0)
            case "scale":
                if case .number(let s) = v { t = .scale(s, s, 1) } else {
                    let n = try numbers(v, vp)
                    guard n.count == 2 || n.count == 3 else { throw SceneError(path: vp, "must be s, [sx, sy] or [sx, sy, sz]") }
                    t = .scale(n[0], n[1], n.count == 3 ? n[2] : 1)
                }
            case "skewX": t = .skewX(try number(v, vp))
            case "skewY": t = .skewY(try number(v, vp))
            case "perspective":
                let d = try number(v, vp)
                guard d > 0 else { throw SceneError(path: vp, "must be > 0") }
                t = .perspective(d)
            default: throw SceneError(path: vp, "unknown transform operation")
            }
            m = m.concatenating(t)
        }
        return m
    }

    /// `PATH`: SVG path data, {"rect": RECT}, {"roundedRect": RECT, "radius": r}, {"ellipse": RECT}.
    public static func path(_ j: JSON, _ path: String) throws(SceneError) -> Path? {
        switch j {
        case .null: return nil
        case .string(let s):
            do { return try Path(svg: s) } catch { throw SceneError(path: path, "bad SVG path data: \(error)") }
        case .object:
            let f = try Fields(j, path, allowed: ["rect", "roundedRect", "radius", "ellipse"])
            if let r = f["rect"], f.members.count == 1 { return .rect(try rect(r, f.at("rect"))) }
            if let e = f["ellipse"], f.members.count == 1 { return .ellipse(in: try rect(e, f.at("ellipse"))) }
            if let r = f["roundedRect"], f.members.count <= 2 {
                let radius = try f["radius"].map { v throws(SceneError) in try nonNegative(v, f.at("radius")) } ?? 0
                return .roundedRect(try rect(r, f.at("roundedRect")), radius: radius)
            }
            throw SceneError(path: path, "must be {\"rect\": RECT}, {\"roundedRect\": RECT, \"radius\": r} or {\"ellipse\": RECT}")
        default: throw SceneError(path: path, "must be SVG path data or a shape object")
        }
    }

    /// `TIMING`: a name, [x1, y1, x2, y2], or {"steps": n, "position": …}.
    public static func timing(_ j: JSON, _ path: String) throws(SceneError) -> TimingFunction {
        switch j {
        case .string(let s):
            guard let f = TimingFunction(named: s) else {
                throw SceneError(path: path, "unknown timing function \"\(s)\" (linear, easeIn, easeOut, easeInEaseOut, default)")
            }
            return f
        case .array:
            let v = try numbers(j, path, count: 4, what: "a cubic Bézier [x1, y1, x2, y2]")
            guard (0...1).contains(v[0]), (0...1).contains(v[2]) else { throw SceneError(path: path, "x1 and x2 must be in 0…1") }
            return .cubicBezier(v[0], v[1], v[2], v[3])
        case .object(let m) where m.first?.key == "spring":
            let f = try Fields(j, path, allowed: ["spring"])
            let sf = try Fields(f["spring"]!, f.at("spring"), allowed: ["mass", "stiffness", "damping", "initialVelocity", "perceptualDuration", "bounce"])
            let s = try spring(sf)
            return .spring(s)
        case .object:
            let f = try Fields(j, path, allowed: ["steps", "position"])
            guard let n = f["steps"] else { throw SceneError(path: f.at("steps"), "is required") }
            let count = try number(n, f.at("steps"))
            guard count == count.rounded(), count >= 1, count < 1e9 else { throw SceneError(path: f.at("steps"), "must be a whole number ≥ 1") }
            var position = TimingFunction.StepPosition.end
            if let p = f["position"] {
                let s = try string(p, f.at("position"))
                guard let pos = TimingFunction.StepPosition(rawValue: s) else {
                    throw SceneError(path: f.at("position"), "must be \"start\", \"end\", \"none\" or \"both\"")
                }
                position = pos
            }
            if position == .none && count < 2 { throw SceneError(path: f.at("steps"), "must be ≥ 2 for position none") }
            return .steps(Int(count), position)
        default: throw SceneError(path: path, "must be a timing function name, [x1, y1, x2, y2] or {\"steps\": n}")
        }
    }

    static func named<E: RawRepresentable & CaseIterable>(_ j: JSON, _ path: String, _: E.Type) throws(SceneError) -> E where E.RawValue == String {
        let s = try string(j, path)
        guard let e = E(rawValue: s) else {
            throw SceneError(path: path, "must be one of " + E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        return e
    }

    /// The value of a layer property by key path, for layer fields and a transaction's `set`:
    /// read as the type `PropertyTable` gives the key path (`frame`: a rect; `custom.NAME`: a
    /// number or a number list; a named filter's `filters.NAME.radius` or `.amount`: a number).
    public static func property(_ keyPath: String, _ j: JSON, _ path: String) throws(SceneError) -> PropertyValue {
        if keyPath == "frame" { return .rect(try rect(j, path)) }
        if keyPath.hasPrefix("custom.") {
            if case .array = j { return .numbers(try numbers(j, path)) }
            return .number(try number(j, path))
        }
        if FilterField(keyPath: keyPath) != nil { return .number(try number(j, path)) }
        guard let entry = PropertyTable.keyPaths[keyPath] else { throw SceneError(path: path, "unknown property") }
        switch entry.type {
        case .number: return .number(try number(j, path))
        case .point: return .point(try point(j, path))
        case .size: return .size(try size(j, path))
        case .rect: return .rect(try rect(j, path))
        case .transform: return .transform(try transform(j, path))
        case .bool: return .bool(try bool(j, path))
        case .numbers: return .numbers(try numbers(j, path))
        case .color: return .color(try color(j, path))
        case .colors: return .colors(try colors(j, path))
        case .path:
            // `{"template": "PROGRAM"}`: a path template (compiled where commits are validated).
            if case .object(let m) = j, m.count == 1, m[0].key == "template" {
                return .template(try string(m[0].value, path + ".template"))
            }
            return .path(try self.path(j, path))
        case .cornerMask:
            guard case .array(let a) = j else { throw SceneError(path: path, "must be a list of corner names") }
            var mask: UInt8 = 0
            for (i, e) in a.enumerated() {
                let s = try string(e, index(path, i))
                guard let c = CornerMask.names.first(where: { $0.0 == s }) else {
                    throw SceneError(path: index(path, i), "must be one of \"minXMinY\", \"maxXMinY\", \"minXMaxY\", \"maxXMaxY\"")
                }
                mask |= c.1.rawValue
            }
            return .number(Double(mask))
        case .image:
            if case .null = j { return .string("") }
            let s = try string(j, path)
            guard !s.isEmpty else { throw SceneError(path: path, "must be an image name or null") }
            return .string(s)
        case .name(let names):
            let s = try string(j, path)
            guard names.contains(s) else {
                throw SceneError(path: path, "must be one of " + names.map { "\"\($0)\"" }.joined(separator: ", "))
            }
            return .string(s)
        case .string: return .string(try string(j, path))
        case .text: return try text(j, path)
        case .filters: return .filters(try filters(j, path))
        case .emitterCells: return .emitterCells(try emitterCells(j, path))
        case .layer:
            // A scene's `mask` is an inline layer object, read by the scene itself.
            throw SceneError(path: path, "a mask is set only as a layer's \"mask\" field (an inline layer or null)")
        }
    }

    /// A text layer's `string`: a string, or styled runs `[{"text": …, "font": …, "fontSize": …,
    /// "foregroundColor": …}, …]` (only `text` required).
    static func text(_ j: JSON, _ path: String) throws(SceneError) -> PropertyValue {
        if case .string(let s) = j { return .string(s) }
        guard case .array(let a) = j else { throw SceneError(path: path, "must be a string or a list of runs") }
        var runs: [StyledText.Run] = []
        for (i, e) in a.enumerated() {
            let at = index(path, i)
            let f = try Fields(e, at, allowed: ["text", "font", "fontSize", "foregroundColor"])
            guard let t = f["text"] else { throw SceneError(path: f.at("text"), "is required") }
            var run = StyledText.Run(try string(t, f.at("text")))
            if let v = f["font"] { run.font = try string(v, f.at("font")) }
            if let v = f["fontSize"] { run.fontSize = try nonNegative(v, f.at("fontSize")) }
            if let v = f["foregroundColor"] { run.foregroundColor = try nonNilColor(v, f.at("foregroundColor")) }
            runs.append(run)
        }
        return .text(StyledText(runs: runs))
    }

    /// A list of FILTER objects: `{"name": n, "type": "gaussianBlur", "radius": r}`,
    /// `{"type": "colorMatrix", "matrix": [20 numbers]}`, `{"type": "saturate" | "brightness" |
    /// "contrast" | "grayscale" | "invert" | "opacity", "amount": a}` (`name` optional, unique).
    public static func filters(_ j: JSON, _ path: String) throws(SceneError) -> [LayerFilter] {
        guard case .array(let a) = j else { throw SceneError(path: path, "must be a list of filters") }
        var out: [LayerFilter] = []
        var names = Set<String>()
        for (i, e) in a.enumerated() {
            let at = index(path, i)
            let f = try Fields(e, at, allowed: ["name", "type", "radius", "amount", "matrix"])
            guard let t = f["type"] else { throw SceneError(path: f.at("type"), "is required") }
            let typeName = try string(t, f.at("type"))
            guard let kind = LayerFilter.Kind(rawValue: typeName) else {
                throw SceneError(path: f.at("type"), "must be one of "
                                 + LayerFilter.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
            }
            var filter = LayerFilter(kind: kind)
            if let v = f["name"] {
                let n = try string(v, f.at("name"))
                guard !n.isEmpty, !n.contains(".") else { throw SceneError(path: f.at("name"), "must be non-empty without \".\"") }
                guard names.insert(n).inserted else { throw SceneError(path: f.at("name"), "is used by another filter of the list") }
                filter.name = n
            }
            switch kind {
            case .gaussianBlur:
                guard let v = f["radius"] else { throw SceneError(path: f.at("radius"), "is required") }
                filter.radius = try nonNegative(v, f.at("radius"))
                guard f["amount"] == nil, f["matrix"] == nil else { throw SceneError(path: at, "a gaussianBlur takes only \"radius\"") }
            case .colorMatrix:
                guard let v = f["matrix"] else { throw SceneError(path: f.at("matrix"), "is required") }
                filter.matrix = try numbers(v, f.at("matrix"), count: 20, what: "a list of 20 numbers")
                guard f["amount"] == nil, f["radius"] == nil else { throw SceneError(path: at, "a colorMatrix takes only \"matrix\"") }
            case .saturate, .brightness, .contrast, .grayscale, .invert, .opacity:
                guard let v = f["amount"] else { throw SceneError(path: f.at("amount"), "is required") }
                filter.amount = try nonNegative(v, f.at("amount"))
                guard f["radius"] == nil, f["matrix"] == nil else { throw SceneError(path: at, "a \(typeName) takes only \"amount\"") }
            }
            if let problem = filter.problem { throw SceneError(path: at, problem) }
            out.append(filter)
        }
        return out
    }

    /// A list of colors (none not allowed).
    static func colors(_ j: JSON, _ path: String) throws(SceneError) -> [Color] {
        guard case .array(let a) = j else { throw SceneError(path: path, "must be a list of colors") }
        var out: [Color] = []
        for (i, e) in a.enumerated() { out.append(try nonNilColor(e, index(path, i))) }
        return out
    }

    /// An animation value of `kind`; nil kind (custom properties): a number or a number list.
    public static func animatable(_ kind: AnimatableValue.Kind?, _ j: JSON, _ path: String) throws(SceneError) -> AnimatableValue {
        guard let kind else {
            if case .array = j { return .doubles(try numbers(j, path)) }
            return .double(try number(j, path))
        }
        switch kind {
        case .double: return .double(try number(j, path))
        case .point: return .point(try point(j, path))
        case .size: return .size(try size(j, path))
        case .rect: return .rect(try rect(j, path))
        case .color: return .color(try color(j, path) ?? .clear)
        case .transform: return .transform(try transform(j, path))
        case .doubles: return .doubles(try numbers(j, path))
        case .colors: return .colors(try colors(j, path))
        case .path: return .path(try self.path(j, path) ?? Path())
        }
    }
}
