import LaminaGeometry

/// One glyph placed in the layer: its font, its id in that font, its pen position on the
/// baseline (layer points, y down, the bounds' origin at 0,0), its size and color.
public struct PositionedGlyph: Hashable, Sendable {
    public var font: FontID
    public var glyph: UInt32
    public var position: Point
    /// The font size in points.
    public var fontSize: Double
    public var color: Color
    /// The UTF-16 offset, in the whole string, of the first character of its cluster.
    public var cluster: Int
}

/// One laid-out line.
public struct TextLine: Hashable, Sendable {
    /// The characters it shows, as UTF-16 offsets into the whole string (before truncation;
    /// a truncated line keeps the range of the text it stands for).
    public var range: Range<Int>
    /// The baseline's y, in layer points.
    public var baseline: Double
    public var ascent: Double
    public var descent: Double
    /// Where its first glyph's pen starts (after alignment), and its width.
    public var x: Double
    public var width: Double
    /// Its glyphs in `TextLayout.glyphs`, left to right.
    public var glyphs: Range<Int>
    public var isTruncated: Bool
    /// True when the paragraph it belongs to runs right to left.
    public var isRightToLeft: Bool
}

/// Text laid out in a box: lines with their baselines, glyphs in layer points, the size used.
public struct TextLayout: Hashable, Sendable {
    public var lines: [TextLine]
    public var glyphs: [PositionedGlyph]
    /// The width of the widest line and the height of all lines.
    public var usedSize: Size

    public static let empty = TextLayout(lines: [], glyphs: [], usedSize: Size(0, 0))
}
