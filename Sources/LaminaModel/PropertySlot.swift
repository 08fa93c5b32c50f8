import LaminaAnimation
import LaminaGeometry

extension PropertySlot {
    /// The slot of an animatable key path, or nil (unknown, or not animatable: `hidden`,
    /// `masksToBounds`, `maskedCorners`, `fillRule`, `lineCap`, `lineJoin`, `gradientType`,
    /// `frame`). The slots themselves are generated from `Properties.table`
    /// (`PropertySlot+Generated.swift`).
    public init?(keyPath: String) {
        if let s = Self.table[keyPath] { self = s; return }
        if keyPath.hasPrefix("custom.") {
            let name = keyPath.dropFirst(7)
            guard !name.isEmpty, !name.contains(".") else { return nil }
            self = .custom(String(name)); return
        }
        if let f = FilterField(keyPath: keyPath) { self = .filterField(f); return }
        return nil
    }
}

extension AnimatableValue {
    /// The value as a `PropertyValue` (what queries report).
    public var propertyValue: PropertyValue {
        switch self {
        case .double(let v): .number(v)
        case .point(let v): .point(v)
        case .size(let v): .size(v)
        case .rect(let v): .rect(v)
        case .color(let v): .color(v)
        case .transform(let v): .transform(v)
        case .doubles(let v): .numbers(v)
        case .colors(let v): .colors(v)
        case .path(let v): .path(v)
        }
    }
}

extension PropertyValue {
    /// The value as an animation value, or nil for kinds that do not animate (bool, string).
    /// No color becomes clear and no path an empty path.
    public var animatableValue: AnimatableValue? {
        switch self {
        case .number(let v): .double(v)
        case .point(let v): .point(v)
        case .size(let v): .size(v)
        case .rect(let v): .rect(v)
        case .color(let v): .color(v ?? .clear)
        case .transform(let v): .transform(v)
        case .numbers(let v): .doubles(v)
        case .colors(let v): .colors(v)
        case .path(let v): .path(v ?? Path())
        case .bool, .string, .template, .text, .filters, .emitterCells: nil
        }
    }
}
