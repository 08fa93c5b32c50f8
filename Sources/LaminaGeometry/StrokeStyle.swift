/// How the ends of open subpaths and dashes are drawn, as `CAShapeLayerLineCap`.
public enum LineCap: String, Hashable, Sendable, CaseIterable { case butt, round, square }
/// How segments meet, as `CAShapeLayerLineJoin`.
public enum LineJoin: String, Hashable, Sendable, CaseIterable { case miter, round, bevel }

/// A shape layer's stroke properties, with Core Animation's names and defaults.
public struct StrokeStyle: Hashable, Sendable {
    /// Width in points; 0 is a hairline (one device pixel).
    public var lineWidth: Double
    public var lineCap: LineCap
    public var lineJoin: LineJoin
    /// Longest miter, as a multiple of the line width, before a miter join becomes a bevel.
    public var miterLimit: Double
    /// Alternating on/off lengths in points; empty for a solid line. An odd count repeats.
    public var dashPattern: [Double]
    /// Offset into the dash pattern at the start of each subpath, in points.
    public var dashPhase: Double
    /// Fraction of the total length where the stroke starts (0…1).
    public var strokeStart: Double
    /// Fraction of the total length where the stroke ends (0…1).
    public var strokeEnd: Double

    public init(lineWidth: Double = 1, lineCap: LineCap = .butt, lineJoin: LineJoin = .miter,
                miterLimit: Double = 10, dashPattern: [Double] = [], dashPhase: Double = 0,
                strokeStart: Double = 0, strokeEnd: Double = 1) {
        self.lineWidth = lineWidth; self.lineCap = lineCap; self.lineJoin = lineJoin
        self.miterLimit = miterLimit; self.dashPattern = dashPattern; self.dashPhase = dashPhase
        self.strokeStart = strokeStart; self.strokeEnd = strokeEnd
    }

    /// Whether any trimming applies.
    public var isTrimmed: Bool { strokeStart > 0 || strokeEnd < 1 }

    /// The style with strokeStart/strokeEnd reset: the cache key of a mesh trimmed in the shader.
    public var untrimmed: StrokeStyle { var s = self; s.strokeStart = 0; s.strokeEnd = 1; return s }

    /// Dash pattern in even form, or nil when the line is solid (empty, negative, non-finite
    /// or all-zero patterns draw solid, as Core Graphics).
    var normalizedDashes: [Double]? {
        guard !dashPattern.isEmpty, dashPattern.allSatisfy({ $0 >= 0 && $0.isFinite }) else { return nil }
        let pattern = dashPattern.count % 2 == 1 ? dashPattern + dashPattern : dashPattern
        return pattern.reduce(0, +) > 0 ? pattern : nil
    }
}
