import Foundation
import LaminaGeometry

/// Issue 15's `polygon` seed shape, shared by the template tests of several targets: its
/// template source, and its vertices computed independently from the words
/// (n = max(floor(sides), 3) vertices at angle 2πi/n − π/2 + rotation, radius
/// min(width, height)/2·scale about the centre).
public enum SeedPolygon {
    public static let template = """
        let n = max(floor(sides), 3)
        let r = min(rect.width, rect.height) / 2 * scale
        for i in 0 ..< n {
          let a = 2 * pi * i / n - pi / 2 + rotation
          if i == 0 { move(rect.midX + r * cos(a), rect.midY + r * sin(a)) }
          else { line(rect.midX + r * cos(a), rect.midY + r * sin(a)) }
        }
        close()
        """

    public static func vertices(in b: Rect, sides: Double, scale: Double, rotation: Double) -> [Point] {
        let n = max(sides.rounded(.down), 3)
        let r = min(b.size.width, b.size.height) / 2 * scale
        return (0 ..< Int(n)).map { i in
            let a = 2 * Double.pi * Double(i) / n - Double.pi / 2 + rotation
            return Point(b.origin.x + b.size.width / 2 + r * cos(a), b.origin.y + b.size.height / 2 + r * sin(a))
        }
    }
}
