import Foundation

/// Radii of a rounded rect's four corners, in points (y down: top is minY).
public struct CornerRadii: Hashable, Sendable {
    public var topLeft: Double
    public var topRight: Double
    public var bottomRight: Double
    public var bottomLeft: Double

    public init(topLeft: Double, topRight: Double, bottomRight: Double, bottomLeft: Double) {
        self.topLeft = topLeft; self.topRight = topRight
        self.bottomRight = bottomRight; self.bottomLeft = bottomLeft
    }
    public init(_ radius: Double) { self.init(topLeft: radius, topRight: radius, bottomRight: radius, bottomLeft: radius) }
}

extension Path {
    /// The end point of the last element, or nil for an empty path. After `close`, the start
    /// of that subpath (as Core Graphics).
    public var currentPoint: Point? {
        var start: Point? = nil
        var current: Point? = nil
        for e in elements {
            switch e {
            case .move(let p): start = p; current = p
            case .line(let p): current = p; if start == nil { start = p }
            case .quad(_, let p), .cubic(_, _, let p): current = p; if start == nil { start = p }
            case .close: current = start
            }
        }
        return current
    }

    /// Starts a new subpath at `p`.
    public mutating func move(to p: Point) { elements.append(.move(p)) }
    /// A straight line from the current point to `p`.
    public mutating func addLine(to p: Point) { elements.append(.line(p)) }
    /// A quadratic Bézier curve to `p` with one control point.
    public mutating func addQuadCurve(to p: Point, control: Point) { elements.append(.quad(control, p)) }
    /// A cubic Bézier curve to `p` with two control points.
    public mutating func addCurve(to p: Point, control1: Point, control2: Point) {
        elements.append(.cubic(control1, control2, p))
    }
    /// Closes the current subpath with a straight line to its start.
    public mutating func closeSubpath() { elements.append(.close) }

    /// A polygon through `points`, closed when `closed`.
    public mutating func addPolygon(_ points: [Point], closed: Bool = true) {
        guard let first = points.first else { return }
        move(to: first)
        for p in points.dropFirst() { addLine(to: p) }
        if closed { closeSubpath() }
    }

    /// A circular arc as cubic Béziers (at most 90° each).
    ///
    /// Angles are in radians from +x toward +y (y down, so increasing angles turn clockwise on
    /// screen, as UIKit's `UIBezierPath(arcCenter:…)`). `clockwise` true sweeps with increasing
    /// angle. A line joins the current point to the arc's start; without one the arc starts a
    /// subpath.
    public mutating func addArc(center: Point, radius: Double, startAngle: Double, endAngle: Double,
                                clockwise: Bool) {
        var sweep = endAngle - startAngle
        let twoPi = 2 * Double.pi
        if clockwise {
            if sweep < 0 { sweep = sweep.truncatingRemainder(dividingBy: twoPi) + twoPi }
            if sweep > twoPi { sweep = twoPi }
        } else {
            if sweep > 0 { sweep = sweep.truncatingRemainder(dividingBy: twoPi) - twoPi }
            if sweep < -twoPi { sweep = -twoPi }
        }
        let start = Point(center.x + radius * cos(startAngle), center.y + radius * sin(startAngle))
        // No current point (an empty path) or a closed subpath: the arc starts a new one. (O(1):
        // `currentPoint` is nil only for an empty path.)
        if elements.last == nil || elements.last == .close { move(to: start) } else { addLine(to: start) }
        appendArcCurves(center: center, rx: radius, ry: radius, rotation: 0, startAngle: startAngle, sweep: sweep)
    }

    /// Appends cubics for the elliptical arc (center form); the current point must be its start.
    mutating func appendArcCurves(center: Point, rx: Double, ry: Double, rotation: Double,
                                  startAngle: Double, sweep: Double) {
        guard sweep != 0, sweep.isFinite else { return }
        let count = max(1, Int((abs(sweep) / (Double.pi / 2) - 1e-9).rounded(.up)))
        let step = sweep / Double(count)
        let k = 4.0 / 3.0 * tan(step / 4)
        let cr = cos(rotation), sr = sin(rotation)
        func map(_ x: Double, _ y: Double) -> Point {
            Point(center.x + rx * x * cr - ry * y * sr, center.y + rx * x * sr + ry * y * cr)
        }
        var a = startAngle
        for i in 0 ..< count {
            let b = i == count - 1 ? startAngle + sweep : a + step
            let ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b)
            elements.append(.cubic(map(ca - k * sa, sa + k * ca), map(cb + k * sb, sb - k * cb), map(cb, sb)))
            a = b
        }
    }

    /// A rectangle as a closed subpath (clockwise on screen, starting at minX, minY).
    public mutating func addRect(_ r: Rect) {
        let s = r.standardized
        addPolygon([Point(s.minX, s.minY), Point(s.maxX, s.minY), Point(s.maxX, s.maxY), Point(s.minX, s.maxY)])
    }

    /// A rounded rectangle with one circular radius per corner. Radii are clamped to be
    /// non-negative and scaled down together when they do not fit (as CSS border-radius).
    public mutating func addRoundedRect(_ r: Rect, cornerRadii radii: CornerRadii) {
        let s = r.standardized
        var tl = max(0, radii.topLeft), tr = max(0, radii.topRight)
        var br = max(0, radii.bottomRight), bl = max(0, radii.bottomLeft)
        var f = 1.0
        if tl + tr > s.width { f = min(f, s.width / (tl + tr)) }
        if bl + br > s.width { f = min(f, s.width / (bl + br)) }
        if tl + bl > s.height { f = min(f, s.height / (tl + bl)) }
        if tr + br > s.height { f = min(f, s.height / (tr + br)) }
        tl *= f; tr *= f; br *= f; bl *= f
        if tl == 0 && tr == 0 && br == 0 && bl == 0 { addRect(s); return }
        let k = 0.5522847498307936  // 4/3 (√2 − 1): a quarter circle as one cubic
        let x0 = s.minX, y0 = s.minY, x1 = s.maxX, y1 = s.maxY
        move(to: Point(x0 + tl, y0))
        addLine(to: Point(x1 - tr, y0))
        if tr > 0 { addCurve(to: Point(x1, y0 + tr), control1: Point(x1 - tr + k * tr, y0), control2: Point(x1, y0 + tr - k * tr)) }
        addLine(to: Point(x1, y1 - br))
        if br > 0 { addCurve(to: Point(x1 - br, y1), control1: Point(x1, y1 - br + k * br), control2: Point(x1 - br + k * br, y1)) }
        addLine(to: Point(x0 + bl, y1))
        if bl > 0 { addCurve(to: Point(x0, y1 - bl), control1: Point(x0 + bl - k * bl, y1), control2: Point(x0, y1 - bl + k * bl)) }
        addLine(to: Point(x0, y0 + tl))
        if tl > 0 { addCurve(to: Point(x0 + tl, y0), control1: Point(x0, y0 + tl - k * tl), control2: Point(x0 + tl - k * tl, y0)) }
        closeSubpath()
    }

    /// An ellipse inscribed in `r`, as four cubics.
    public mutating func addEllipse(in r: Rect) {
        let s = r.standardized
        let c = Point(s.midX, s.midY)
        move(to: Point(s.maxX, s.midY))
        appendArcCurves(center: c, rx: s.width / 2, ry: s.height / 2, rotation: 0, startAngle: 0, sweep: 2 * .pi)
        closeSubpath()
    }

    /// Appends another path's elements.
    public mutating func addPath(_ other: Path) { elements.append(contentsOf: other.elements) }

    public static func rect(_ r: Rect) -> Path { var p = Path(); p.addRect(r); return p }
    public static func roundedRect(_ r: Rect, radius: Double) -> Path {
        var p = Path(); p.addRoundedRect(r, cornerRadii: CornerRadii(radius)); return p
    }
    public static func roundedRect(_ r: Rect, cornerRadii: CornerRadii) -> Path {
        var p = Path(); p.addRoundedRect(r, cornerRadii: cornerRadii); return p
    }
    public static func ellipse(in r: Rect) -> Path { var p = Path(); p.addEllipse(in: r); return p }
    public static func polygon(_ points: [Point]) -> Path { var p = Path(); p.addPolygon(points); return p }

    /// Every point mapped through `f` (affine maps keep curves exact).
    public func mapPoints(_ f: (Point) -> Point) -> Path {
        Path(elements.map { e in
            switch e {
            case .move(let p): .move(f(p))
            case .line(let p): .line(f(p))
            case .quad(let c, let p): .quad(f(c), f(p))
            case .cubic(let c1, let c2, let p): .cubic(f(c1), f(c2), f(p))
            case .close: .close
            }
        })
    }

    /// Rotated by `angle` radians about `center`.
    public func rotated(by angle: Double, around center: Point = .zero) -> Path {
        let c = cos(angle), s = sin(angle)
        return mapPoints { p in
            let d = p - center
            return Point(center.x + d.x * c - d.y * s, center.y + d.x * s + d.y * c)
        }
    }

    /// Index of the first element with a NaN or infinite coordinate, or nil.
    public var firstNonFiniteElement: Int? {
        for (i, e) in elements.enumerated() {
            switch e {
            case .move(let p), .line(let p): if !p.isFinite { return i }
            case .quad(let a, let b): if !a.isFinite || !b.isFinite { return i }
            case .cubic(let a, let b, let c): if !a.isFinite || !b.isFinite || !c.isFinite { return i }
            case .close: break
            }
        }
        return nil
    }
}
