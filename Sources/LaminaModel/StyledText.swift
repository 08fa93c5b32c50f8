import LaminaGeometry

/// A text layer's `string` (CATextLayer's): plain text, or styled runs each of which may set
/// its own `font`, `fontSize` and `foregroundColor` (nil: the layer's). LaminaText lays it out.
public struct StyledText: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public struct Run: Hashable, Sendable {
        public var text: String
        /// A fontconfig pattern (`"DejaVu Sans:bold"`).
        public var font: String?
        public var fontSize: Double?
        public var foregroundColor: Color?

        public init(_ text: String, font: String? = nil, fontSize: Double? = nil, foregroundColor: Color? = nil) {
            self.text = text
            self.font = font
            self.fontSize = fontSize
            self.foregroundColor = foregroundColor
        }
    }

    public var runs: [Run]

    public init(runs: [Run]) { self.runs = runs }
    public init(_ string: String) { runs = string.isEmpty ? [] : [Run(string)] }
    public init(stringLiteral value: String) { self.init(value) }

    /// The characters of every run.
    public var string: String { runs.map(\.text).joined() }
    /// True when no run sets an attribute (plain text).
    public var isPlain: Bool { runs.allSatisfy { $0.font == nil && $0.fontSize == nil && $0.foregroundColor == nil } }
    public var description: String { isPlain ? string.debugDescription : "\(runs.count) styled runs" }

    /// Every run's size is finite and ≥ 0 and every color finite.
    public var isValid: Bool {
        runs.allSatisfy { r in
            (r.fontSize.map { $0.isFinite && $0 >= 0 } ?? true) && (r.foregroundColor?.isFinite ?? true)
        }
    }
}

/// CATextLayer's `alignmentMode`.
public enum TextAlignmentMode: String, Hashable, Sendable, CaseIterable {
    case natural, left, right, center, justified
}

/// CATextLayer's `truncationMode`.
public enum TextTruncationMode: String, Hashable, Sendable, CaseIterable {
    case none, start, middle, end
}
