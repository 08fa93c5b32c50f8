import LaminaGeometry
import LaminaText
import LaminaModel

/// `measureText`'s answers: the size a string needs (LaminaText's `measure`: the widest
/// line and the lines' height, wrapped at a width or one line per paragraph), laid out as the
/// render thread lays a text layer out. Its engine (fontconfig, HarfBuzz) is made at the first
/// request. Server thread only (LaminaText's engines belong to one thread each).
final class TextMeasurer {
    private var engine: TextLayoutEngine?

    func measure(_ text: StyledText, font: String, fontSize: Double, width: Double?) -> Size {
        if engine == nil { engine = TextLayoutEngine() }
        let attributed = AttributedText(runs: text.runs.map {
            TextRun($0.text, font: $0.font, fontSize: $0.fontSize, foregroundColor: $0.foregroundColor)
        })
        let style = TextStyle(font: font, fontSize: fontSize, isWrapped: width != nil)
        return engine!.measure(attributed, style: style, width: width)
    }
}
