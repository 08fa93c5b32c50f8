import LaminaWire

/// Reading Lottie's loosely typed JSON: every error names the JSON path.
struct Node {
    let json: JSON
    let path: String
    init(_ json: JSON, _ path: String) { self.json = json; self.path = path }

    func at(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
    subscript(_ key: String) -> Node? {
        guard case .object(let m) = json, let v = m.first(where: { $0.key == key })?.value else { return nil }
        return Node(v, at(key))
    }
    var isObject: Bool { if case .object = json { return true }; return false }
    var keys: [String] { if case .object(let m) = json { return m.map(\.key) }; return [] }

    func object() throws(SceneError) -> Node {
        guard isObject else { throw SceneError(path: path, "must be an object (got \(json.typeName))") }
        return self
    }
    func array() throws(SceneError) -> [Node] {
        guard case .array(let a) = json else { throw SceneError(path: path, "must be a list (got \(json.typeName))") }
        return a.enumerated().map { Node($0.element, "\(path)[\($0.offset)]") }
    }
    func number() throws(SceneError) -> Double {
        switch json {
        case .number(let v):
            guard v.isFinite else { throw SceneError(path: path, "must be finite") }
            return v
        case .bool(let b): return b ? 1 : 0
        // A one-number list where a number is expected (exporters write both).
        case .array(let a) where a.count == 1: return try Node(a[0], path + "[0]").number()
        default: throw SceneError(path: path, "must be a number (got \(json.typeName))")
        }
    }
    func numbers() throws(SceneError) -> [Double] {
        switch json {
        case .number: return [try number()]
        case .array(let a):
            var out: [Double] = []
            out.reserveCapacity(a.count)
            for (i, v) in a.enumerated() { out.append(try Node(v, "\(path)[\(i)]").number()) }
            return out
        default: throw SceneError(path: path, "must be a number or a list of numbers (got \(json.typeName))")
        }
    }
    func string() throws(SceneError) -> String {
        guard case .string(let s) = json else { throw SceneError(path: path, "must be a string (got \(json.typeName))") }
        return s
    }
    func bool() -> Bool {
        switch json {
        case .bool(let b): return b
        case .number(let v): return v != 0
        default: return false
        }
    }

    func number(_ key: String, default d: Double) throws(SceneError) -> Double { try self[key]?.number() ?? d }
    func required(_ key: String) throws(SceneError) -> Node {
        guard let n = self[key] else { throw SceneError(path: at(key), "is required") }
        return n
    }
}

/// Building the scene JSON that `Scene` reads.
func obj(_ members: [(String, JSON)]) -> JSON { .object(members.map { JSON.Member(key: $0.0, value: $0.1) }) }
func num(_ v: Double) -> JSON { .number(v) }
func nums(_ v: [Double]) -> JSON { .array(v.map { .number($0) }) }

/// A Lottie color (0…1 components; a 0…255 file is recognised by a component above 1) as
/// scene RGBA.
func colorJSON(_ c: [Double], alpha: Double) -> JSON {
    let scale = c.prefix(3).contains(where: { $0 > 1 }) ? 1.0 / 255 : 1.0
    func ch(_ i: Int) -> Double { i < c.count ? min(max(c[i] * scale, 0), 1) : 0 }
    return nums([ch(0), ch(1), ch(2), min(max(alpha, 0), 1)])
}

/// "#rrggbb" (a solid's `sc`) as 0…1 components.
func hexColor(_ s: String) -> [Double]? {
    var h = Substring(s)
    if h.hasPrefix("#") { h = h.dropFirst() }
    guard h.count == 6 || h.count == 8, let v = UInt64(h, radix: 16) else { return nil }
    let shift = h.count == 8 ? 8 : 0
    return [Double((v >> (16 + shift)) & 255) / 255, Double((v >> (8 + shift)) & 255) / 255, Double((v >> shift) & 255) / 255]
}

/// The parts of a file left out, one warning per feature per JSON path.
final class Warnings {
    private(set) var list: [String] = []
    private var seen: Set<String> = []
    func add(_ path: String, _ feature: String, _ detail: String = "not mapped yet, left out") {
        let line = "\(path.isEmpty ? "(top level)" : path): \(feature) \(detail)"
        if seen.insert(line).inserted { list.append(line) }
    }
}

extension Double {
    /// The integer toward zero, clamped to ±10⁹ (NaN is 0): Lottie's integers (types,
    /// indices, counts, enums) from any number without trapping.
    var clampedInt: Int { isNaN ? 0 : Int(Swift.max(Swift.min(self, 1e9), -1e9)) }
}
