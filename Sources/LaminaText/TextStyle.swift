import LaminaGeometry

/// How lines sit horizontally in the bounds (CATextLayer's `alignmentMode`).
public enum TextAlignment: String, Sendable, CaseIterable {
    /// Left for a left-to-right paragraph, right for a right-to-left one.
    case natural
    case left
    case right
    case center
    /// Every line but a paragraph's last is stretched to the bounds' width at its spaces;
    /// the last line is natural.
    case justified
}

/// Where "…" replaces text that does not fit (CATextLayer's `truncationMode`).
public enum TextTruncation: String, Sendable, CaseIterable {
    case none, start, middle, end
}

/// A stretch of text with its own attributes; a nil attribute takes the layer's.
public struct TextRun: Hashable, Sendable {
    public var text: String
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

/// A text layer's `string`: plain text (one run) or styled runs.
public struct AttributedText: Hashable, Sendable, ExpressibleByStringLiteral {
    public var runs: [TextRun]

    public init(runs: [TextRun]) { self.runs = runs }
    public init(_ string: String) { self.runs = [TextRun(string)] }
    public init(stringLiteral value: String) { self.init(value) }

    /// The characters of every run, in order.
    public var string: String { runs.map(\.text).joined() }
}

/// The layer-wide text attributes, with CATextLayer's defaults.
public struct TextStyle: Hashable, Sendable {
    /// A fontconfig pattern: `"DejaVu Sans:bold"`, `"serif"`, `"monospace:size=12"`
    /// (a size in the pattern is ignored; `fontSize` rules).
    public var font: String = "sans-serif"
    /// In points.
    public var fontSize: Double = 36
    public var foregroundColor: Color = Color(1, 1, 1, 1)
    public var alignment: TextAlignment = .natural
    public var isWrapped: Bool = false
    public var truncation: TextTruncation = .none

    public init(font: String = "sans-serif", fontSize: Double = 36, foregroundColor: Color = Color(1, 1, 1, 1),
                alignment: TextAlignment = .natural, isWrapped: Bool = false, truncation: TextTruncation = .none) {
        self.font = font
        self.fontSize = fontSize
        self.foregroundColor = foregroundColor
        self.alignment = alignment
        self.isWrapped = isWrapped
        self.truncation = truncation
    }
}
