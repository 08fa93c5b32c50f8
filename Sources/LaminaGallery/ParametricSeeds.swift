import LaminaGeometry
import LaminaModel
import LaminaWire

/// The parametric seeds of `examples/parametric.json` (arc, trapezoid, wave, polygon, petal
/// flower): the same path-template programs, custom inputs and ANIMATION JSON, so the
/// gallery's page animates exactly what the example file does.
enum ParametricSeeds {
    struct Seed {
        var name: String
        var size: Double
        var custom: [(String, Double)]
        var template: String
        var style: [(String, PropertyValue)]
        var animations: [String]
    }

    /// The addAnimation operation an ANIMATION JSON stands for (nil if it does not decode).
    static func animation(_ json: String, layer: UInt32, key: String) -> LayerChange? {
        try? AnimationJSON.operation(layer: layer, key: key, text: json)
    }

    static let all: [Seed] = [
        Seed(name: "arc", size: 180.0, custom: [("startAngle", 0.0), ("endAngle", 1.5)],
             template: "arc(rect.midX, rect.midY, rect.width / 2, startAngle, endAngle, 1)",
             style: [("fillColor", .color(nil)), ("strokeColor", .color(Color(0.2902, 0.8510, 1.0000))), ("lineWidth", .number(12.0)), ("lineCap", .string("round"))],
             animations: ["{\"type\":\"basic\",\"keyPath\":\"custom.endAngle\",\"from\":0.5,\"to\":6.0,\"duration\":2.0,\"autoreverses\":true,\"repeatCount\":\"infinity\",\"timingFunction\":\"easeInEaseOut\"}"]),
        Seed(name: "trapezoid", size: 200.0, custom: [("insetAmount", 50.0)],
             template: "move(0, rect.maxY)\nline(insetAmount, rect.minY)\nline(rect.maxX - insetAmount, rect.minY)\nline(rect.maxX, rect.maxY)\nclose()",
             style: [("fillColor", .color(Color(1.0000, 0.4196, 0.2902)))],
             animations: ["{\"type\":\"basic\",\"keyPath\":\"custom.insetAmount\",\"from\":10,\"to\":90,\"duration\":1.5,\"autoreverses\":true,\"repeatCount\":\"infinity\",\"timingFunction\":\"easeInEaseOut\"}"]),
        Seed(name: "wave", size: 200.0, custom: [("amplitude", 30.0), ("frequency", 2.0), ("phase", 0.0)],
             template: "for x in 0 ..< floor(rect.width) + 1 {\n  let y = rect.midY + amplitude * sin(2 * pi * frequency * x / rect.width + phase)\n  if x == 0 { move(x, y) } else { line(x, y) }\n}",
             style: [("fillColor", .color(nil)), ("strokeColor", .color(Color(0.9608, 0.9490, 0.9176))), ("lineWidth", .number(3.0))],
             animations: ["{\"type\":\"basic\",\"keyPath\":\"custom.phase\",\"from\":0,\"to\":6.283185307179586,\"duration\":1.0,\"repeatCount\":\"infinity\"}"]),
        Seed(name: "polygon", size: 200.0, custom: [("sides", 3.0), ("scale", 0.9), ("rotation", 0.0)],
             template: "let n = max(floor(sides), 3)\nlet r = min(rect.width, rect.height) / 2 * scale\nfor i in 0 ..< n {\n  let a = 2 * pi * i / n - pi / 2 + rotation\n  if i == 0 { move(rect.midX + r * cos(a), rect.midY + r * sin(a)) }\n  else { line(rect.midX + r * cos(a), rect.midY + r * sin(a)) }\n}\nclose()",
             style: [("fillColor", .color(Color(0.5451, 0.8784, 0.4784)))],
             animations: ["{\"type\":\"basic\",\"keyPath\":\"custom.sides\",\"from\":3,\"to\":9,\"duration\":3.0,\"autoreverses\":true,\"repeatCount\":\"infinity\",\"timingFunction\":\"linear\"}"]),
        Seed(name: "flower", size: 200.0, custom: [("petalCount", 5.0), ("innerRadius", 30.0), ("outerRadius", 90.0), ("rotationOffset", 0.0)],
             template: "let n = max(floor(petalCount), 2)\nfor i in 0 ..< n {\n  let a = 2 * pi * i / n + rotationOffset\n  move(rect.midX, rect.midY)\n  quad(rect.midX + innerRadius * cos(a - pi / n), rect.midY + innerRadius * sin(a - pi / n),\n       rect.midX + outerRadius * cos(a), rect.midY + outerRadius * sin(a))\n  quad(rect.midX + innerRadius * cos(a + pi / n), rect.midY + innerRadius * sin(a + pi / n),\n       rect.midX, rect.midY)\n}",
             style: [("fillColor", .color(Color(1.0000, 0.8235, 0.2902)))],
             animations: ["{\"type\":\"basic\",\"keyPath\":\"custom.rotationOffset\",\"from\":0,\"to\":6.283185307179586,\"duration\":6.0,\"repeatCount\":\"infinity\"}", "{\"type\":\"basic\",\"keyPath\":\"custom.outerRadius\",\"from\":60,\"to\":95,\"duration\":1.2,\"autoreverses\":true,\"repeatCount\":\"infinity\",\"timingFunction\":\"easeInEaseOut\"}"]),
    ]
}
