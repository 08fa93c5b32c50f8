import LaminaTree
import LaminaModel

extension ServerCore {
    /// The model tree as JSON (`getTree`): each layer's id, owner, kind, name (when it has one),
    /// depth, frame, sublayers.
    /// Written as bytes (a 10,000-layer tree is about 1.3 MB): one reply must cost the server
    /// thread little, whoever asks for it how often.
    static func treeJSON(_ model: ModelTree, names clientNames: [UInt32: String]) -> String {
        var w = JSONBytes(capacity: model.count * 140 + 16)
        // Each owner's name, escaped once; the last one looked up is kept at hand (a client's
        // layers come together in the walk).
        var names: [UInt32: [UInt8]] = [:]
        var lastOwner = UInt32.max
        var lastName: [UInt8] = []
        w.append("{\"layers\": [")
        var first = true
        model.visit { node, depth in
            if !first { w.append(", ") }
            first = false
            let f = node.properties.frame
            let owner = node.id.client
            w.append("{\"id\": \""); w.append(node.id)
            w.append("\", \"owner\": "); w.append(owner)
            w.append(", \"ownerName\": \"")
            if owner != lastOwner {
                if names[owner] == nil {
                    var escaped = JSONBytes(capacity: 32)
                    if owner == 0 { escaped.append("compositor") } else { escaped.appendEscaped(clientNames[owner] ?? "") }
                    names[owner] = escaped.array
                }
                lastOwner = owner
                lastName = names[owner]!
            }
            w.append(lastName)
            w.append("\", \"kind\": \""); w.append(node.kind.name)
            let name = node.properties.name
            if !name.isEmpty { w.append("\", \"name\": \""); w.appendEscaped(name) }
            w.append("\", \"depth\": "); w.append(UInt32(depth))
            w.append(", \"frame\": ["); w.append(f.origin.x); w.append(", "); w.append(f.origin.y); w.append(", ")
            w.append(f.size.width); w.append(", "); w.append(f.size.height)
            w.append("], \"sublayers\": [")
            var firstChild = true
            for child in node.sublayers {
                if !firstChild { w.append(", ") }
                firstChild = false
                w.byte(0x22); w.append(child); w.byte(0x22)
            }
            w.append("]}")
            return true
        }
        w.append("]}")
        return w.string
    }
}

/// JSON text as bytes, for the large replies (`treeJSON`): a growing buffer written through
/// a pointer (no per-byte array bookkeeping), read once as a String.
struct JSONBytes: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Room for `n` more bytes.
    @inline(__always) private mutating func reserve(_ n: Int) {
        guard count + n > capacity else { return }
        grow(n)
    }

    private mutating func grow(_ n: Int) {
        let grown = max(capacity * 2, count + n)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        new.update(from: base, count: count)
        base.deallocate()
        base = new
        capacity = grown
    }

    var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    mutating func append(_ b: [UInt8]) {
        reserve(b.count)
        b.withUnsafeBufferPointer { u in
            if let p = u.baseAddress { (base + count).update(from: p, count: u.count) }
        }
        count += b.count
    }
    /// Text that needs no escaping (identifiers).
    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { u in
            reserve(u.count)
            if let p = u.baseAddress { (base + count).update(from: p, count: u.count) }
            count += u.count
        }
    }

    mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }
    mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        (base + count).update(from: s.utf8Start, count: n)
        count += n
    }
    mutating func append(_ v: UInt32) {
        var digits = 1, n = v
        while n >= 10 { n /= 10; digits += 1 }
        reserve(digits)
        var rest = v
        for i in stride(from: count + digits - 1, through: count, by: -1) {
            base[i] = 0x30 &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        count += digits
    }
    mutating func append(_ id: LayerID) { append(id.client); byte(0x3A); append(id.local) }
    /// A number: whole ones as integers, others as Swift prints them (valid JSON: finite).
    mutating func append(_ v: Double) {
        if v == v.rounded() && abs(v) < 4e9 {
            if v < 0 { byte(0x2D) }
            append(UInt32(abs(v)))
        } else {
            for b in String(v).utf8 { byte(b) }
        }
    }
    /// A string's contents, escaped (quotes, backslashes, control characters).
    mutating func appendEscaped(_ s: String) {
        let hex: StaticString = "0123456789abcdef"
        for b in s.utf8 {
            switch b {
            case 0x5C, 0x22: byte(0x5C); byte(b)
            case 0..<0x20:
                append("\\u00")
                byte(hex.utf8Start[Int(b >> 4)]); byte(hex.utf8Start[Int(b & 15)])
            default: byte(b)
            }
        }
    }
}
