/// An sRGB-encoded color with straight (not premultiplied) alpha, components in 0…1.
/// Blending happens in sRGB-encoded space with premultiplied alpha, as Core Animation does.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    @inlinable public init(_ red: Double, _ green: Double, _ blue: Double, _ alpha: Double = 1) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }
    @inlinable public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.init(red, green, blue, alpha)
    }

    public static let clear = Color(0, 0, 0, 0)
    public static let black = Color(0, 0, 0, 1)
    public static let white = Color(1, 1, 1, 1)

    /// Premultiplied components (r·a, g·a, b·a, a).
    @inlinable public var premultiplied: (Double, Double, Double, Double) {
        (red * alpha, green * alpha, blue * alpha, alpha)
    }

    /// From premultiplied components; a zero alpha gives transparent black.
    @inlinable public static func fromPremultiplied(_ r: Double, _ g: Double, _ b: Double, _ a: Double) -> Color {
        a > 0 ? Color(r / a, g / a, b / a, a) : .clear
    }

    /// Parses `#RGB`, `#RRGGBB` or `#RRGGBBAA`.
    public init?(hex: String) {
        guard hex.first == "#" else { return nil }
        let digits = Array(hex.dropFirst())
        func nibble(_ c: Character) -> Int? { c.hexDigitValue }
        var values: [Int] = []
        switch digits.count {
        case 3:
            for c in digits { guard let n = nibble(c) else { return nil }; values.append(n * 17) }
            values.append(255)
        case 6, 8:
            var i = 0
            while i < digits.count {
                guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return nil }
                values.append(hi * 16 + lo); i += 2
            }
            if values.count == 3 { values.append(255) }
        default: return nil
        }
        self.init(Double(values[0]) / 255, Double(values[1]) / 255, Double(values[2]) / 255, Double(values[3]) / 255)
    }

    public var isFinite: Bool { red.isFinite && green.isFinite && blue.isFinite && alpha.isFinite }

    public var description: String { "Color(\(red), \(green), \(blue), \(alpha))" }
}
