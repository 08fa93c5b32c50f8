import Foundation
import LaminaGeometry
import LaminaText
import TestSupport
import Testing

/// One case written by scripts/text-references: its input and Pango's layout of it.
struct PangoCase: CustomTestStringConvertible, Sendable {
    struct Line { var text: String; var baseline: Double; var x: Double; var width: Double }
    struct Glyph { var font: String; var glyph: UInt32; var x: Double; var y: Double }

    var name: String
    var text: AttributedText
    var style: TextStyle
    var bounds: Size
    var scale: Double
    var background: Color
    var lines: [Line]
    var glyphs: [Glyph]
    var size: Size

    var testDescription: String { name }

    static let directory = PixelComparator.referencePath("x").split(separator: "/").dropLast().joined(separator: "/")

    /// Every case in References/, by name.
    static func all() -> [PangoCase] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/" + directory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().compactMap { load("/" + directory + "/" + $0) }
    }

    static func color(_ any: Any?) -> Color? {
        guard let c = any as? [Double], c.count == 4 else { return nil }
        return Color(c[0], c[1], c[2], c[3])
    }

    static func load(_ path: String) -> PangoCase? {
        guard let data = FileManager.default.contents(atPath: path),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let reference = json["reference"] as? [String: Any] else { return nil }
        let size = json["size"] as! Double
        var style = TextStyle(font: json["font"] as! String, fontSize: size, foregroundColor: color(json["color"])!)
        style.alignment = TextAlignment(rawValue: json["alignment"] as? String ?? "natural")!
        style.truncation = TextTruncation(rawValue: json["truncation"] as? String ?? "none")!
        style.isWrapped = json["wrapped"] as? Bool ?? false
        var text = AttributedText(json["string"] as? String ?? "")
        if let runs = json["runs"] as? [[String: Any]] {
            text = AttributedText(runs: runs.map {
                TextRun($0["text"] as! String, font: $0["font"] as? String, fontSize: $0["fontSize"] as? Double,
                        foregroundColor: color($0["foregroundColor"]))
            })
        }
        let b = json["bounds"] as! [Double]
        let lines = (reference["lines"] as! [[String: Any]]).map {
            Line(text: $0["text"] as! String, baseline: $0["baseline"] as! Double, x: $0["x"] as! Double,
                 width: $0["width"] as! Double)
        }
        let glyphs = (reference["glyphs"] as! [[String: Any]]).map {
            Glyph(font: $0["font"] as! String, glyph: ($0["glyph"] as! NSNumber).uint32Value,
                  x: $0["x"] as! Double, y: $0["y"] as! Double)
        }
        let used = reference["size"] as! [Double]
        return PangoCase(name: json["name"] as! String, text: text, style: style, bounds: Size(b[0], b[1]),
                         scale: json["scale"] as? Double ?? 1, background: color(json["background"])!,
                         lines: lines, glyphs: glyphs, size: Size(used[0], used[1]))
    }
}
