/// A parsed JSON value. Objects keep their members in document order (a scene's animations
/// apply in the order written).
public enum JSON: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([Member])

    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSON
        public init(key: String, value: JSON) { self.key = key; self.value = value }
    }

    /// The JSON type's name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a bool"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }

    /// Parses JSON text (RFC 8259). Duplicate keys are an error.
    public static func parse(_ text: String) throws(SceneError) -> JSON {
        var p = JSONParser(Array(text.utf8))
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == p.b.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }
}

/// A problem in scene or animation JSON: the JSON path of the field and what is wrong
/// (`layers[2].animations.fade.duration: must be ≥ 0`).
public struct SceneError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, _ message: String) { self.path = path; self.message = message }
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

struct JSONParser {
    let b: [UInt8]
    var i = 0
    init(_ b: [UInt8]) { self.b = b }

    func error(_ m: String) -> SceneError {
        // Line and column of the offset.
        var line = 1, col = 1
        for c in b[0..<min(i, b.count)] { if c == 10 { line += 1; col = 1 } else { col += 1 } }
        return SceneError(path: "", "invalid JSON at line \(line), column \(col): \(m)")
    }

    mutating func skipSpace() {
        while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 10 || b[i] == 13 { i += 1 }
    }

    mutating func value(depth: Int) throws(SceneError) -> JSON {
        guard depth < 256 else { throw error("nested too deeply") }
        guard i < b.count else { throw error("unexpected end") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [JSON.Member] = []
            var keys = Set<String>()
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw error("expected a string key") }
                let k = try string()
                guard keys.insert(k).inserted else { throw error("duplicate key \"\(k)\"") }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw error("expected ':'") }
                i += 1; skipSpace()
                members.append(JSON.Member(key: k, value: try value(depth: depth + 1)))
                skipSpace()
                guard i < b.count else { throw error("unexpected end") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
                throw error("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSON] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < b.count else { throw error("unexpected end") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw error("expected ',' or ']'")
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return .number(try number())
        }
    }

    mutating func literal(_ s: String) throws(SceneError) {
        let u = Array(s.utf8)
        guard i + u.count <= b.count, Array(b[i..<i + u.count]) == u else { throw error("unexpected character") }
        i += u.count
    }

    mutating func number() throws(SceneError) -> Double {
        let start = i
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        func digits() -> Int { let s = i; while i < b.count, (48...57).contains(b[i]) { i += 1 }; return i - s }
        guard digits() > 0 else { throw error("unexpected character") }
        if i < b.count, b[i] == UInt8(ascii: ".") { i += 1; guard digits() > 0 else { throw error("bad number") } }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw error("bad number") }
        }
        guard let v = Double(String(decoding: b[start..<i], as: UTF8.self)), v.isFinite else { throw error("bad number") }
        return v
    }

    mutating func hex4() throws(SceneError) -> UInt32 {
        guard i + 4 <= b.count else { throw error("bad \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let d = Character(UnicodeScalar(b[i])).hexDigitValue else { throw error("bad \\u escape") }
            v = v * 16 + UInt32(d); i += 1
        }
        return v
    }

    mutating func string() throws(SceneError) -> String {
        i += 1
        var out: [UInt8] = []
        while true {
            guard i < b.count else { throw error("unterminated string") }
            let c = b[i]; i += 1
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw error("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); continue }
            guard i < b.count else { throw error("unterminated string") }
            let e = b[i]; i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar), i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") {
                    i += 2
                    let low = try hex4()
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = UnicodeScalar(scalar) else { throw error("bad \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw error("bad escape")
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension JSON {
    /// Compact JSON text (numbers in the shortest form that round-trips).
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let v): return v ? "true" : "false"
        case .number(let v): return JSON.format(v)
        case .string(let s): return JSON.quote(s)
        case .array(let a): return "[" + a.map(\.text).joined(separator: ", ") + "]"
        case .object(let m): return "{" + m.map { JSON.quote($0.key) + ": " + $0.value.text }.joined(separator: ", ") + "}"
        }
    }

    public static func format(_ v: Double) -> String {
        if v == v.rounded(), abs(v) < 1e15 { return String(Int(v)) }
        return "\(v)"
    }

    public static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16) }
                else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}
