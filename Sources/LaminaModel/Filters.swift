/// One entry of a layer's `filters` or `backgroundFilters` (CALayer's CIFilter list, by the
/// CSS Filter Effects Level 1 and SVG `feColorMatrix` meanings).
public struct LayerFilter: Hashable, Sendable {
    /// What a filter does.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// A Gaussian blur, `radius` its standard deviation in points (CSS `blur()`).
        case gaussianBlur
        /// A 4×5 matrix (`matrix`, row by row) on unpremultiplied values (SVG `feColorMatrix`).
        case colorMatrix
        /// The CSS filter functions of one `amount`.
        case saturate, brightness, contrast, grayscale, invert, opacity
    }

    /// Optional; unique within its list (key paths `filters.NAME.radius`, `filters.NAME.amount`).
    public var name: String?
    public var kind: Kind
    /// `gaussianBlur`'s standard deviation in points (≥ 0).
    public var radius: Double
    /// The CSS functions' amount (≥ 0; grayscale, invert and opacity take at most 1).
    public var amount: Double
    /// `colorMatrix`'s 20 numbers (empty for the other kinds).
    public var matrix: [Double]

    public init(name: String? = nil, kind: Kind, radius: Double = 0, amount: Double = 1, matrix: [Double] = []) {
        self.name = name; self.kind = kind; self.radius = radius; self.amount = amount; self.matrix = matrix
    }

    public static func gaussianBlur(_ radius: Double, name: String? = nil) -> LayerFilter {
        LayerFilter(name: name, kind: .gaussianBlur, radius: radius)
    }

    /// Why the filter is not valid, nil when it is.
    public var problem: String? {
        switch kind {
        case .gaussianBlur:
            guard radius.isFinite, radius >= 0 else { return "radius must be a finite number ≥ 0" }
        case .colorMatrix:
            guard matrix.count == 20 else { return "matrix must have 20 numbers (4×5, row by row)" }
            guard matrix.allSatisfy(\.isFinite) else { return "matrix entries must be finite" }
        case .saturate, .brightness, .contrast, .grayscale, .invert, .opacity:
            guard amount.isFinite, amount >= 0 else { return "amount must be a finite number ≥ 0" }
        }
        return nil
    }

    /// The 4×5 matrix (row by row: R′ = m[0]·R + m[1]·G + m[2]·B + m[3]·A + m[4], …) the filter
    /// applies to unpremultiplied values, each result clamped to [0, 1]; nil for a blur. The
    /// CSS Filter Effects Level 1 definitions: `saturate` and `grayscale` as `feColorMatrix`
    /// (grayscale with 1 − amount as its saturation, the spec's four-digit coefficients),
    /// `brightness` and `contrast` as linear transfer functions, `invert` and `opacity` as
    /// table transfer functions of two entries; amounts above 1 clamp to 1 where CSS does.
    public var colorMatrix: [Double]? {
        switch kind {
        case .gaussianBlur: return nil
        case .colorMatrix: return matrix
        case .saturate:
            let s = amount
            return [0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s, 0, 0,
                    0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s, 0, 0,
                    0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s, 0, 0,
                    0, 0, 0, 1, 0]
        case .grayscale:
            let g = 1 - min(amount, 1)
            return [0.2126 + 0.7874 * g, 0.7152 - 0.7152 * g, 0.0722 - 0.0722 * g, 0, 0,
                    0.2126 - 0.2126 * g, 0.7152 + 0.2848 * g, 0.0722 - 0.0722 * g, 0, 0,
                    0.2126 - 0.2126 * g, 0.7152 - 0.7152 * g, 0.0722 + 0.9278 * g, 0, 0,
                    0, 0, 0, 1, 0]
        case .brightness:
            let a = amount
            return [a, 0, 0, 0, 0, 0, a, 0, 0, 0, 0, 0, a, 0, 0, 0, 0, 0, 1, 0]
        case .contrast:
            let a = amount, b = 0.5 - 0.5 * a
            return [a, 0, 0, 0, b, 0, a, 0, 0, b, 0, 0, a, 0, b, 0, 0, 0, 1, 0]
        case .invert:
            // tableValues="a 1−a": C′ = a + (1 − 2a)·C.
            let a = min(amount, 1), d = 1 - 2 * a
            return [d, 0, 0, 0, a, 0, d, 0, 0, a, 0, 0, d, 0, a, 0, 0, 0, 1, 0]
        case .opacity:
            let a = min(amount, 1)
            return [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, a, 0]
        }
    }

    /// `rgba` (unpremultiplied, each 0…1) through `colorMatrix`, clamped to [0, 1]; the value
    /// itself for a blur.
    public func apply(_ rgba: (Double, Double, Double, Double)) -> (Double, Double, Double, Double) {
        guard let m = colorMatrix else { return rgba }
        let v = [rgba.0, rgba.1, rgba.2, rgba.3]
        func row(_ r: Int) -> Double {
            let x = m[5 * r] * v[0] + m[5 * r + 1] * v[1] + m[5 * r + 2] * v[2] + m[5 * r + 3] * v[3] + m[5 * r + 4]
            return min(max(x, 0), 1)
        }
        return (row(0), row(1), row(2), row(3))
    }

    /// How far (points) the filters in `list` spread what they filter: the sum of their blurs'
    /// 3σ (a blur of a blur is a blur of σ = √(σ₁² + σ₂²) ≤ σ₁ + σ₂).
    public static func reach(_ list: [LayerFilter]) -> Double {
        list.reduce(0) { $0 + ($1.kind == .gaussianBlur ? 3 * $1.radius : 0) }
    }

    /// Why `list` is not a valid filter list (an invalid entry, a repeated name), nil when it is.
    public static func problem(_ list: [LayerFilter]) -> String? {
        var names = Set<String>()
        for (i, f) in list.enumerated() {
            if let p = f.problem { return "filter \(i): \(p)" }
            if let n = f.name {
                guard !n.isEmpty, !n.contains(".") else { return "filter \(i): name must be non-empty without \".\"" }
                guard names.insert(n).inserted else { return "filter \(i): name \"\(n)\" is used twice" }
            }
        }
        return nil
    }
}

/// A named filter's number as an animatable key path (Core Animation's `filters.NAME.radius`):
/// `filters.NAME.radius` or `.amount`, `backgroundFilters.NAME.radius` or `.amount`. `radius`
/// is a blur's, `amount` a CSS function's (saturate, brightness, contrast, grayscale, invert,
/// opacity); a color matrix has neither.
public struct FilterField: Hashable, Sendable {
    /// In `backgroundFilters` (else `filters`).
    public var background: Bool
    /// The filter's `name` in its list.
    public var name: String
    /// `amount` (else `radius`).
    public var isAmount: Bool

    public init(background: Bool, name: String, isAmount: Bool) {
        self.background = background; self.name = name; self.isAmount = isAmount
    }

    /// The field a key path names, or nil when it names none (`filters.NAME.FIELD`).
    public init?(keyPath: String) {
        let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "filters" || parts[0] == "backgroundFilters", !parts[1].isEmpty,
              parts[2] == "radius" || parts[2] == "amount" else { return nil }
        self.init(background: parts[0] == "backgroundFilters", name: String(parts[1]), isAmount: parts[2] == "amount")
    }

    public var keyPath: String {
        (background ? "backgroundFilters." : "filters.") + name + (isAmount ? ".amount" : ".radius")
    }

    /// Whether `filter` has this field (a blur a radius, a CSS function an amount).
    func applies(to filter: LayerFilter) -> Bool {
        switch filter.kind {
        case .gaussianBlur: !isAmount
        case .colorMatrix: false
        case .saturate, .brightness, .contrast, .grayscale, .invert, .opacity: isAmount
        }
    }
}

extension LayerProperties {
    /// The value of a named filter's field, nil when the list has no filter of that name with
    /// that field.
    public func filterFieldValue(_ field: FilterField) -> Double? {
        let list = field.background ? backgroundFilters : filters
        guard let f = list.first(where: { $0.name == field.name }), field.applies(to: f) else { return nil }
        return field.isAmount ? f.amount : f.radius
    }

    /// Writes an animated value into the named filter (presentation only): kept finite and ≥ 0
    /// (an overshooting spring or extrapolation may leave the valid range); nothing when the
    /// list has no such filter.
    public mutating func setFilterField(_ field: FilterField, _ value: Double) {
        let v = value.isFinite ? max(value, 0) : 0
        writeFilterField(field, field.isAmount ? v : min(v, 100_000))
    }

    /// Writes `value` as it is into the named filter (the model's `set` checks it first);
    /// nothing when the list has no such filter.
    mutating func writeFilterField(_ field: FilterField, _ value: Double) {
        func set(_ list: inout [LayerFilter]) {
            guard let i = list.firstIndex(where: { $0.name == field.name }), field.applies(to: list[i]) else { return }
            if field.isAmount { list[i].amount = value } else { list[i].radius = value }
        }
        if field.background { set(&backgroundFilters) } else { set(&filters) }
    }
}
