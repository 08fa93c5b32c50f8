import LaminaGeometry

/// Why a property could not be read or set.
public enum PropertyError: Error, Hashable, Sendable, CustomStringConvertible {
    case unknownKeyPath(String)
    case wrongType(keyPath: String, expected: String, got: String)
    case notFinite(keyPath: String)
    case outOfRange(keyPath: String, reason: String)
    /// The key path is a property that layers of this kind do not have (`fillColor` on a
    /// plain layer).
    case notAProperty(keyPath: String, kind: LayerKind)

    public var description: String {
        switch self {
        case .unknownKeyPath(let k): "unknown key path '\(k)'"
        case .wrongType(let k, let e, let g): "\(k): expected \(e), got \(g)"
        case .notFinite(let k): "\(k): must be finite"
        case .outOfRange(let k, let r): "\(k): \(r)"
        case .notAProperty(let k, let kind): "\(k): \(Self.notAPropertyReason(kind))"
        }
    }

    /// What `notAProperty` says after the key path.
    public static func notAPropertyReason(_ kind: LayerKind) -> String {
        "not a property of a layer of type \(kind.name)"
    }
}

extension LayerProperties {
    /// The model value at a Core Animation key path (`position`, `position.x`,
    /// `bounds.size.width`, `custom.phase`, …), or nil for an unknown key path.
    public func value(forKeyPath keyPath: String) -> PropertyValue? {
        if let v = tableValue(forKeyPath: keyPath) { return v }
        if keyPath == "frame" { return .rect(frame) }
        if keyPath.hasPrefix("custom.") {
            let name = String(keyPath.dropFirst(7))
            guard let v = custom[name] else { return nil }
            return v.count == 1 ? .number(v[0]) : .numbers(v)
        }
        if let f = FilterField(keyPath: keyPath) { return filterFieldValue(f).map { .number($0) } }
        return nil
    }

    /// Sets the model value at a key path, checking its type and range. On error nothing changes.
    /// (Which layer kinds have the property is `PropertyTable.check`'s business: these values
    /// do not know their layer's kind.)
    public mutating func setValue(_ value: PropertyValue, forKeyPath keyPath: String) throws(PropertyError) {
        guard value.isFinite else { throw .notFinite(keyPath: keyPath) }
        if case .template(let source) = value { try setTemplate(source, forKeyPath: keyPath); return }
        let v = PropertyInput(keyPath: keyPath, value: value)
        if try setTableValue(v) { clearTemplate(forKeyPath: keyPath); return }
        if keyPath == "frame" {
            // CALayer's frame setter: keeps the transform, sets bounds.size and position so the
            // untransformed frame is the given rect.
            // Its size follows bounds' rule (≥ 0): a negative one is refused, not normalised.
            let s = try v.rect()
            guard s.size.width >= 0, s.size.height >= 0 else {
                throw .outOfRange(keyPath: keyPath, reason: "width and height must be ≥ 0")
            }
            bounds.size = s.size
            position = Point(s.origin.x + anchorPoint.x * s.size.width, s.origin.y + anchorPoint.y * s.size.height)
            return
        }
        if keyPath.hasPrefix("custom.") {
            let name = String(keyPath.dropFirst(7))
            guard !name.isEmpty, !name.contains(".") else { throw .unknownKeyPath(keyPath) }
            switch value {
            case .number(let n): custom[name] = [n]
            case .numbers(let n): custom[name] = n
            default: throw v.wrong("number or number list")
            }
            return
        }
        if let f = FilterField(keyPath: keyPath) {
            guard case .number(let n) = value else { throw v.wrong("number") }
            guard filterFieldValue(f) != nil else {
                throw .outOfRange(keyPath: keyPath, reason: "no filter named \"\(f.name)\" with \(f.isAmount ? "an amount" : "a radius") in \(f.background ? "backgroundFilters" : "filters")")
            }
            guard n >= 0 else { throw .outOfRange(keyPath: keyPath, reason: "must be ≥ 0") }
            writeFilterField(f, n)
            return
        }
        throw .unknownKeyPath(keyPath)
    }
}

/// A value being set at a key path, read as the type the key path needs (the generated
/// setters call these), with the table's range rules.
struct PropertyInput {
    let keyPath: String
    let value: PropertyValue

    func wrong(_ expected: String) -> PropertyError {
        .wrongType(keyPath: keyPath, expected: expected, got: value.typeName)
    }
    func range(_ reason: String) -> PropertyError { .outOfRange(keyPath: keyPath, reason: reason) }
    /// A number as an error names it: whole numbers without a fraction.
    static func shown(_ v: Double) -> String { v.rounded() == v && abs(v) < 1e15 ? String(Int(v)) : "\(v)" }

    func number() throws(PropertyError) -> Double {
        if case .number(let v) = value { return v }
        throw wrong("number")
    }
    func nonNegativeNumber() throws(PropertyError) -> Double {
        let v = try number()
        guard v >= 0 else { throw range("must be ≥ 0") }
        return v
    }
    /// The table's `range LO...HI` rule for a number.
    func number(in bounds: ClosedRange<Double>) throws(PropertyError) -> Double {
        let v = try number()
        guard bounds.contains(v) else { throw range("must be in \(Self.shown(bounds.lowerBound))…\(Self.shown(bounds.upperBound)) (got \(Self.shown(v)))") }
        return v
    }
    func point() throws(PropertyError) -> Point {
        if case .point(let v) = value { return v }
        throw wrong("point")
    }
    func size() throws(PropertyError) -> Size {
        if case .size(let v) = value { return v }
        throw wrong("size")
    }
    func nonNegativeSize() throws(PropertyError) -> Size {
        let s = try size()
        guard s.width >= 0, s.height >= 0 else { throw range("must be ≥ 0") }
        return s
    }
    /// The table's `range LO...HI` rule for a size: its width and height.
    func size(in bounds: ClosedRange<Double>) throws(PropertyError) -> Size {
        let s = try size()
        guard bounds.contains(s.width), bounds.contains(s.height) else {
            throw range("width and height must be in \(Self.shown(bounds.lowerBound))…\(Self.shown(bounds.upperBound)) (got \(Self.shown(s.width)) × \(Self.shown(s.height)))")
        }
        return s
    }
    func rect() throws(PropertyError) -> Rect {
        if case .rect(let v) = value { return v }
        throw wrong("rect")
    }
    func rectWithNonNegativeSize() throws(PropertyError) -> Rect {
        let r = try rect()
        guard r.size.width >= 0, r.size.height >= 0 else { throw range("size must be ≥ 0") }
        return r
    }
    func color() throws(PropertyError) -> Color? {
        if case .color(let v) = value { return v }
        throw wrong("color")
    }
    func colors() throws(PropertyError) -> [Color] {
        if case .colors(let v) = value { return v }
        throw wrong("color list")
    }
    func transform() throws(PropertyError) -> Transform3D {
        if case .transform(let v) = value { return v }
        throw wrong("transform")
    }
    func bool() throws(PropertyError) -> Bool {
        if case .bool(let v) = value { return v }
        throw wrong("bool")
    }
    func path() throws(PropertyError) -> Path? {
        if case .path(let v) = value { return v }
        throw wrong("path")
    }
    func filters() throws(PropertyError) -> [LayerFilter] {
        guard case .filters(let v) = value else { throw wrong("filter list") }
        if let problem = LayerFilter.problem(v) { throw range(problem) }
        return v
    }
    func emitterCells() throws(PropertyError) -> [EmitterCell] {
        guard case .emitterCells(let v) = value else { throw wrong("emitter cell list") }
        if let problem = EmitterCell.problem(v) { throw range(problem) }
        return v
    }
    func numbers() throws(PropertyError) -> [Double] {
        if case .numbers(let v) = value { return v }
        throw wrong("number list")
    }
    func nonNegativeNumbers() throws(PropertyError) -> [Double] {
        let v = try numbers()
        guard v.allSatisfy({ $0 >= 0 }) else { throw range("entries must be ≥ 0") }
        return v
    }
    /// A number list where the empty list means nil (`locations`: evenly spaced).
    func optionalNumbers() throws(PropertyError) -> [Double]? {
        let v = try numbers()
        return v.isEmpty ? nil : v
    }
    func string() throws(PropertyError) -> String {
        if case .string(let v) = value { return v }
        throw wrong("string")
    }
    /// A string of at most `PropertyTable.shortStringLimit` bytes of UTF-8 (the table's
    /// `short` rule: `name`).
    func shortString() throws(PropertyError) -> String {
        let s = try string()
        let limit = PropertyTable.shortStringLimit
        guard s.utf8.count <= limit else { throw range("must be at most \(limit) bytes of UTF-8 (got \(s.utf8.count))") }
        return s
    }
    /// Plain text (a string) or styled runs; run sizes ≥ 0.
    func text() throws(PropertyError) -> StyledText {
        switch value {
        case .string(let s): return StyledText(s)
        case .text(let t):
            guard t.isValid else { throw range("run font sizes must be ≥ 0") }
            return t
        default: throw wrong("string or styled text")
        }
    }
    /// An image's name (`contents`): a string, "" for none; at most 256 UTF-8 bytes.
    func imageName() throws(PropertyError) -> String? {
        guard case .string(let s) = value else { throw wrong("string") }
        guard s.utf8.count <= 256 else { throw range("must be an image name of at most 256 bytes") }
        return s.isEmpty ? nil : s
    }
    /// A layer of the same client by its id (`mask`): a whole number 0…2³²−1, 0 for none.
    func layerID() throws(PropertyError) -> UInt32 {
        let v = try number()
        guard v >= 0, v <= Double(UInt32.max), v == v.rounded() else { throw range("must be a layer id (a whole number ≥ 0)") }
        return UInt32(v)
    }
    func cornerMask() throws(PropertyError) -> CornerMask {
        let v = try number()
        guard v >= 0, v <= 15, v == v.rounded() else { throw range("must be a corner mask 0…15") }
        return CornerMask(rawValue: UInt8(v))
    }
    func named<E: RawRepresentable & CaseIterable>(_: E.Type) throws(PropertyError) -> E where E.RawValue == String {
        guard case .string(let s) = value else { throw wrong("string") }
        guard let e = E(rawValue: s) else {
            throw range("must be one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
        }
        return e
    }
    /// `t` with a transform component set to this value (a size for `translation`).
    func setting(_ c: TransformComponent, in t: Transform3D) throws(PropertyError) -> Transform3D {
        c.isSize ? c.setting(try size(), in: t) : c.setting(try number(), in: t)
    }
}

extension TransformComponent {
    /// The component named by `keyPath` after `prefix` (`transform.` + `rotation.z`), or nil.
    init?(_ keyPath: String, under prefix: StaticString) {
        let p = prefix.description
        guard keyPath.hasPrefix(p) else { return nil }
        self.init(rawValue: String(keyPath.dropFirst(p.count)))
    }

    /// The component's value in `t`, as a key path reads it.
    func value(of t: Transform3D) -> PropertyValue {
        isSize ? .size(size(of: t)) : .number(number(of: t))
    }
}
