import LaminaAnimation

/// A set of layer kinds (which layers have a property). `all` holds every kind, those to come
/// included; a kind's member (`LayerKinds.shape`) is generated for each kind the table names.
public struct LayerKinds: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ kind: LayerKind) { rawValue = 1 << UInt32(kind.rawValue) }
    public static let all = LayerKinds(rawValue: .max)

    public func contains(_ kind: LayerKind) -> Bool { contains(LayerKinds(kind)) }

    /// "shape", "shape and gradient", … (`LayerKind.name`s; "every" for `all`).
    public var names: String {
        if self == .all { return "every" }
        let names = LayerKind.allCases.filter { contains($0) }.map(\.name)
        return names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }
}

/// The value type of a key path as the wire and scene files carry it.
public enum PropertyType: Hashable, Sendable {
    case number, point, size, rect, transform, bool, numbers
    /// A color or none.
    case color
    /// A list of colors (none not allowed).
    case colors
    /// A path or none.
    case path
    /// `CACornerMask`: a number 0…15 on the wire, a list of corner names in scene files.
    case cornerMask
    /// One of these strings.
    case name([String])
    /// Any string (a font pattern).
    case string
    /// A text layer's `string`: a string, or styled runs.
    case text
    /// An image's name (`contents`), or none: a string on the wire ("" for none), a string or
    /// null in scene files.
    case image
    /// Another layer of the same client by its id (`mask`): a number on the wire (0 for none),
    /// an inline layer object or null in scene files.
    case layer
    /// A list of `LayerFilter` (`filters`, `backgroundFilters`): a list of FILTER objects in
    /// scene files, tag 15 on the wire.
    case filters
    /// An emitter layer's `emitterCells`: a list of CELL objects in scene files, tag 16 on the
    /// wire (the same JSON as text).
    case emitterCells
}

/// The layer properties of `Properties.table` as data: each row's key path, type, which layer
/// kinds have it and how it animates, and every key path a row derives (sub-key-paths such as
/// `bounds.size.width` and `transform.rotation.z`). Scene files, the client library and the
/// trees' kind check read it; the per-property code is generated from the same table
/// (`scripts/gen-properties`).
public enum PropertyTable {
    /// The most bytes of UTF-8 a string of the table's `short` rule (`name`) may have
    /// (scripts/gen-properties' SHORT_BYTES, which writes it into docs/protocol.md).
    public static let shortStringLimit = 256

    /// One row of the table.
    public struct Row: Sendable {
        /// Core Animation's key path.
        public let keyPath: String
        public let type: PropertyType
        /// The layer kinds that have the property.
        public let layers: LayerKinds
        /// Animatable (explicitly at least).
        public let animates: Bool
        /// Changing it inside a transaction animates it implicitly (CALayer's default action).
        public let implicitAction: Bool
        /// The table's `range LO...HI` rule: the interval a number (a size's width and height)
        /// must lie in, or nil (setting a value outside it is `PropertyError.outOfRange`).
        public var bounds: ClosedRange<Double>? = nil
    }

    /// A key path of the table: its row and its value type.
    public struct Entry: Sendable {
        public let row: Row
        public let type: PropertyType
    }

    /// Every key path of the table (rows and their sub-key-paths); not `frame` or `custom.NAME`,
    /// which every layer has.
    public static let keyPaths: [String: Entry] = {
        var t: [String: Entry] = [:]
        for r in rows { t[r.keyPath] = Entry(row: r, type: r.type) }
        for (k, row, type) in subKeyPaths { t[k] = Entry(row: t[row]!.row, type: type) }
        for row in transformRows {
            for c in TransformComponent.allCases {
                t[row + "." + c.rawValue] = Entry(row: t[row]!.row, type: c.isSize ? .size : .number)
            }
        }
        return t
    }()

    /// The row of a property (not of a sub-key-path), or nil.
    public static func row(_ keyPath: String) -> Row? {
        guard let e = keyPaths[keyPath], e.row.keyPath == keyPath else { return nil }
        return e.row
    }

    /// Checks that layers of `kind` have the property at `keyPath` (`fillColor` belongs to shape
    /// layers only). Key paths that are not the table's pass (`frame`, `custom.NAME`, unknown
    /// ones: setting them reports what is wrong).
    /// - Throws: `PropertyError.notAProperty` naming the key path and the kind.
    public static func check(keyPath: String, kind: LayerKind) throws(PropertyError) {
        guard let e = keyPaths[keyPath], !e.row.layers.contains(kind) else { return }
        throw .notAProperty(keyPath: keyPath, kind: kind)
    }

    /// `check(keyPath:kind:)` for a commit's `set` operation at `index`.
    /// - Throws: `CommitError` `invalidProperty`.
    package static func check(_ keyPath: String, of kind: LayerKind, index: Int) throws(CommitError) {
        do { try check(keyPath: keyPath, kind: kind) } catch {
            throw CommitError(code: .invalidProperty, index: index, message: error.description)
        }
    }

    /// `check(keyPath:kind:)` for every key path an animation (`key`) drives.
    /// - Throws: `CommitError` `invalidAnimation`.
    package static func check(_ animation: CompiledAnimation, key: String, of kind: LayerKind, index: Int) throws(CommitError) {
        for k in animation.keyPaths {
            do { try check(keyPath: k, kind: kind) } catch {
                throw CommitError(code: .invalidAnimation, index: index, message: "animation '\(key)': \(error.description)")
            }
        }
    }
}
