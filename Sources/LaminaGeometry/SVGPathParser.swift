import Foundation

/// A syntax error in SVG path data: the byte offset where parsing stopped and why.
public struct SVGPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Offset in UTF-8 bytes from the start of the string.
    public var offset: Int
    public var reason: String
    public init(offset: Int, reason: String) { self.offset = offset; self.reason = reason }
    public var description: String { "SVG path data, offset \(offset): \(reason)" }
}

extension Path {
    /// Parses SVG path data (SVG 1.1 / SVG 2 `d` grammar): M L H V C S Q T A Z in absolute and
    /// relative forms, implicit repeated commands, compact numbers (`1.5.5`, `-1-2`, `1e-3`),
    /// arc flags without separators. Arcs become cubics. An empty string is an empty path.
    ///
    /// - Throws: `SVGPathError` with the byte offset and the reason.
    public init(svg data: String) throws(SVGPathError) {
        var parser = SVGPathParser(Array(data.utf8))
        self = try parser.parse()
    }
}

struct SVGPathParser {
    let s: [UInt8]
    var i = 0
    var path = Path()
    var current = Point.zero
    var subpathStart = Point.zero
    var hasCurrent = false
    var lastCubicControl: Point? = nil   // for S
    var lastQuadControl: Point? = nil    // for T
    var needsMove = false                // after Z: the next drawing command starts a subpath

    init(_ s: [UInt8]) { self.s = s }

    mutating func parse() throws(SVGPathError) -> Path {
        skipSpace()
        if i == s.count { return path }
        var command: UInt8 = 0
        var first = true
        while true {
            skipSpace()
            if i == s.count { break }
            let c = s[i]
            if isCommand(c) {
                command = c; i += 1
                if first && c != UInt8(ascii: "M") && c != UInt8(ascii: "m") {
                    throw SVGPathError(offset: i - 1, reason: "path data must start with M or m")
                }
                first = false
                if c == UInt8(ascii: "Z") || c == UInt8(ascii: "z") { close(); continue }
                try runCommand(command, first: true)
            } else if isNumberStart(c) {
                if first { throw SVGPathError(offset: i, reason: "path data must start with M or m") }
                if command == UInt8(ascii: "Z") || command == UInt8(ascii: "z") {
                    throw SVGPathError(offset: i, reason: "number after Z without a command")
                }
                // Implicit repetition: after M the pairs are L (m → l).
                let repeated: UInt8 = command == UInt8(ascii: "M") ? UInt8(ascii: "L")
                    : command == UInt8(ascii: "m") ? UInt8(ascii: "l") : command
                command = repeated
                try runCommand(command, first: false)
            } else {
                throw SVGPathError(offset: i, reason: "unexpected character '\(Character(Unicode.Scalar(c)))'")
            }
        }
        return path
    }

    func isCommand(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "M"), UInt8(ascii: "m"), UInt8(ascii: "L"), UInt8(ascii: "l"),
             UInt8(ascii: "H"), UInt8(ascii: "h"), UInt8(ascii: "V"), UInt8(ascii: "v"),
             UInt8(ascii: "C"), UInt8(ascii: "c"), UInt8(ascii: "S"), UInt8(ascii: "s"),
             UInt8(ascii: "Q"), UInt8(ascii: "q"), UInt8(ascii: "T"), UInt8(ascii: "t"),
             UInt8(ascii: "A"), UInt8(ascii: "a"), UInt8(ascii: "Z"), UInt8(ascii: "z"): true
        default: false
        }
    }
    func isNumberStart(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
    }
    func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0C }

    mutating func skipSpace() { while i < s.count && isSpace(s[i]) { i += 1 } }
    /// Whitespace and at most one comma.
    mutating func skipSeparator() {
        skipSpace()
        if i < s.count && s[i] == UInt8(ascii: ",") { i += 1; skipSpace() }
    }

    mutating func number(_ what: String) throws(SVGPathError) -> Double {
        skipSeparator()
        let start = i
        guard i < s.count else { throw SVGPathError(offset: i, reason: "expected \(what), found end of data") }
        if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < s.count && s[i] >= 48 && s[i] <= 57 { i += 1; digits += 1 }
        if i < s.count && s[i] == UInt8(ascii: ".") {
            i += 1
            while i < s.count && s[i] >= 48 && s[i] <= 57 { i += 1; digits += 1 }
        }
        if digits == 0 {
            i = start
            let found = i < s.count ? "'\(Character(Unicode.Scalar(s[i])))'" : "end of data"
            throw SVGPathError(offset: start, reason: "expected \(what), found \(found)")
        }
        if i < s.count && (s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E")) {
            var j = i + 1
            if j < s.count && (s[j] == UInt8(ascii: "+") || s[j] == UInt8(ascii: "-")) { j += 1 }
            var expDigits = 0
            while j < s.count && s[j] >= 48 && s[j] <= 57 { j += 1; expDigits += 1 }
            if expDigits == 0 { throw SVGPathError(offset: i, reason: "exponent without digits") }
            i = j
        }
        let text = String(decoding: s[start ..< i], as: UTF8.self)
        guard let v = Double(text), v.isFinite else {
            throw SVGPathError(offset: start, reason: "number out of range")
        }
        return v
    }

    mutating func flag(_ what: String) throws(SVGPathError) -> Bool {
        skipSeparator()
        guard i < s.count else { throw SVGPathError(offset: i, reason: "expected \(what) flag, found end of data") }
        switch s[i] {
        case UInt8(ascii: "0"): i += 1; return false
        case UInt8(ascii: "1"): i += 1; return true
        default: throw SVGPathError(offset: i, reason: "\(what) flag must be 0 or 1")
        }
    }

    mutating func point(_ relative: Bool, _ what: String) throws(SVGPathError) -> Point {
        let x = try number("\(what) x"), y = try number("\(what) y")
        return relative ? Point(current.x + x, current.y + y) : Point(x, y)
    }

    mutating func ensureSubpath() {
        if needsMove { path.elements.append(.move(current)); needsMove = false }
    }

    mutating func close() {
        if hasCurrent { path.elements.append(.close); current = subpathStart; needsMove = true }
        lastCubicControl = nil; lastQuadControl = nil
    }

    mutating func runCommand(_ c: UInt8, first: Bool) throws(SVGPathError) {
        let rel = c >= UInt8(ascii: "a")
        let upper = rel ? c - 32 : c
        var cubicControl: Point? = nil
        var quadControl: Point? = nil
        switch upper {
        case UInt8(ascii: "M"):
            let p = try point(rel && hasCurrent, "moveto")
            path.elements.append(.move(p)); current = p; subpathStart = p; hasCurrent = true; needsMove = false
        case UInt8(ascii: "L"):
            let p = try point(rel, "lineto"); ensureSubpath()
            path.elements.append(.line(p)); current = p
        case UInt8(ascii: "H"):
            let x = try number("horizontal lineto x"); ensureSubpath()
            current = Point(rel ? current.x + x : x, current.y); path.elements.append(.line(current))
        case UInt8(ascii: "V"):
            let y = try number("vertical lineto y"); ensureSubpath()
            current = Point(current.x, rel ? current.y + y : y); path.elements.append(.line(current))
        case UInt8(ascii: "C"):
            let c1 = try point(rel, "curveto control 1"), c2 = try point(rel, "curveto control 2")
            let p = try point(rel, "curveto end"); ensureSubpath()
            path.elements.append(.cubic(c1, c2, p)); current = p; cubicControl = c2
        case UInt8(ascii: "S"):
            let c1 = lastCubicControl.map { Point(2 * current.x - $0.x, 2 * current.y - $0.y) } ?? current
            let c2 = try point(rel, "smooth curveto control 2"), p = try point(rel, "smooth curveto end")
            ensureSubpath()
            path.elements.append(.cubic(c1, c2, p)); current = p; cubicControl = c2
        case UInt8(ascii: "Q"):
            let c1 = try point(rel, "quadratic control"), p = try point(rel, "quadratic end"); ensureSubpath()
            path.elements.append(.quad(c1, p)); current = p; quadControl = c1
        case UInt8(ascii: "T"):
            let c1 = lastQuadControl.map { Point(2 * current.x - $0.x, 2 * current.y - $0.y) } ?? current
            let p = try point(rel, "smooth quadratic end"); ensureSubpath()
            path.elements.append(.quad(c1, p)); current = p; quadControl = c1
        case UInt8(ascii: "A"):
            let rx = try number("arc rx"), ry = try number("arc ry"), rot = try number("arc x-axis-rotation")
            let large = try flag("large-arc"), sweep = try flag("sweep")
            let p = try point(rel, "arc end"); ensureSubpath()
            path.addSVGArc(from: current, rx: rx, ry: ry, xAxisRotation: rot * .pi / 180,
                           largeArc: large, sweep: sweep, to: p)
            current = p
        default:
            throw SVGPathError(offset: i - 1, reason: "unknown command")
        }
        lastCubicControl = cubicControl
        lastQuadControl = quadControl
    }
}

extension Path {
    /// An SVG elliptical arc (endpoint form, SVG 1.1 F.6) from `from` to `to`, as cubics.
    /// Zero radii give a line; radii too small are scaled up as the specification says.
    public mutating func addSVGArc(from: Point, rx: Double, ry: Double, xAxisRotation phi: Double,
                                   largeArc: Bool, sweep: Bool, to: Point) {
        if from == to { return }
        var rx = abs(rx), ry = abs(ry)
        if rx == 0 || ry == 0 { elements.append(.line(to)); return }
        let cp = cos(phi), sp = sin(phi)
        let dx = (from.x - to.x) / 2, dy = (from.y - to.y) / 2
        let x1 = cp * dx + sp * dy, y1 = -sp * dx + cp * dy
        let lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry)
        if lambda > 1 { let r = lambda.squareRoot(); rx *= r; ry *= r }
        let num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1
        let den = rx * rx * y1 * y1 + ry * ry * x1 * x1
        var coef = den > 0 ? (max(0, num) / den).squareRoot() : 0
        if largeArc == sweep { coef = -coef }
        let cx1 = coef * rx * y1 / ry, cy1 = -coef * ry * x1 / rx
        let center = Point(cp * cx1 - sp * cy1 + (from.x + to.x) / 2, sp * cx1 + cp * cy1 + (from.y + to.y) / 2)
        func angle(_ ux: Double, _ uy: Double, _ vx: Double, _ vy: Double) -> Double { atan2(ux * vy - uy * vx, ux * vx + uy * vy) }
        let theta1 = angle(1, 0, (x1 - cx1) / rx, (y1 - cy1) / ry)
        var dTheta = angle((x1 - cx1) / rx, (y1 - cy1) / ry, (-x1 - cx1) / rx, (-y1 - cy1) / ry)
        if !sweep && dTheta > 0 { dTheta -= 2 * .pi } else if sweep && dTheta < 0 { dTheta += 2 * .pi }
        let before = elements.count
        appendArcCurves(center: center, rx: rx, ry: ry, rotation: phi, startAngle: theta1, sweep: dTheta)
        // Land exactly on the requested end point.
        if elements.count > before, case .cubic(let a, let b, _) = elements[elements.count - 1] {
            elements[elements.count - 1] = .cubic(a, b, to)
        }
    }
}
