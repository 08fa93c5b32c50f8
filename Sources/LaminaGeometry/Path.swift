/// A vector path as Core Graphics models it: subpaths of lines and Bézier curves.
/// Arcs, rects, rounded rects and ellipses are added as curves (see `Path+Building.swift`).
public struct Path: Hashable, Sendable {
    /// One drawing command. Points are absolute.
    public enum Element: Hashable, Sendable {
        case move(Point)
        case line(Point)
        case quad(Point, Point)           // control, end
        case cubic(Point, Point, Point)   // control1, control2, end
        case close
    }

    public var elements: [Element]

    public init(_ elements: [Element] = []) { self.elements = elements }

    public var isEmpty: Bool { elements.isEmpty }
}
