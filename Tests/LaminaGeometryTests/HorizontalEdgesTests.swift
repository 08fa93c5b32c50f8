import Foundation
import Testing
import TestSupport
@testable import LaminaGeometry

/// `CoverageMesh.horizontalEdges`, the boundary's horizontal pieces, found by a sweep over the
/// rows: against values worked out by hand, and against the definition evaluated directly
/// (every sloped edge tested at every row) on random polygons full of horizontal edges.
@Suite struct HorizontalEdgesTests {
    typealias Edge = CoverageMesh.Edge

    /// (x0, y0, x1, y1, sign) of each edge, for comparing.
    static func tuples(_ edges: [Edge]) -> [[Double]] {
        edges.map { [$0.x0, $0.y0, $0.x1, $0.y1, Double($0.sign)] }
    }

    /// The definition: on each distinct row holding a horizontal edge, the winding just above
    /// and just below from every sloped edge whose closed y range holds the row, summed left to
    /// right; a piece wherever inside above differs from inside below.
    static func direct(_ polygons: [[Point]], rule: FillRule) -> [Edge] {
        var rows = Set<Double>()
        for poly in polygons where poly.count >= 2 {
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                if a.y == b.y && a.x != b.x { rows.insert(a.y) }
            }
        }
        var out: [Edge] = []
        for y in rows.sorted() {
            var byX: [Double: (above: Int32, below: Int32)] = [:]
            for poly in polygons where poly.count >= 2 {
                for i in poly.indices {
                    let a = poly[i], b = poly[(i + 1) % poly.count]
                    let lo = min(a.y, b.y), hi = max(a.y, b.y)
                    guard a.y != b.y, lo <= y, y <= hi else { continue }
                    let dir: Int32 = a.y < b.y ? 1 : -1
                    let x = a.y == y ? a.x : (b.y == y ? b.x : a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y))
                    var w = byX[x] ?? (0, 0)
                    if lo < y { w.above += dir }
                    if y < hi { w.below += dir }
                    byX[x] = w
                }
            }
            let xs = byX.keys.sorted()
            var above: Int32 = 0, below: Int32 = 0
            for (k, x) in xs.enumerated() where k + 1 < xs.count {
                above += byX[x]!.above
                below += byX[x]!.below
                let inAbove = rule.isInside(above), inBelow = rule.isInside(below)
                if inAbove != inBelow {
                    out.append(Edge(x0: x, y0: y, x1: xs[k + 1], y1: y, sign: inBelow ? 1 : -1))
                }
            }
        }
        return out
    }

    @Test func aRectanglesTopAndBottom() {
        // [0, 2] × [0, 1], y down: inside lies below the row y = 0 (sign +1) and above y = 1 (−1).
        let square = [[Point(0, 0), Point(2, 0), Point(2, 1), Point(0, 1)]]
        for rule in FillRule.allCases {
            var out: [Edge] = []
            CoverageMesh.horizontalEdges(square, rule: rule, into: &out)
            #expect(Self.tuples(out) == [[0, 0, 2, 0, 1], [0, 1, 2, 1, -1]])
        }
    }

    @Test func aHoleUnderEachRule() {
        // Outer [0, 4]², inner [1, 3]² wound the same way: even-odd has a hole, non-zero none.
        let outer = [Point(0, 0), Point(4, 0), Point(4, 4), Point(0, 4)]
        let inner = [Point(1, 1), Point(3, 1), Point(3, 3), Point(1, 3)]
        var evenOdd: [Edge] = [], nonZero: [Edge] = []
        CoverageMesh.horizontalEdges([outer, inner], rule: .evenOdd, into: &evenOdd)
        CoverageMesh.horizontalEdges([outer, inner], rule: .nonZero, into: &nonZero)
        // Even-odd: the hole's top edge bounds inside above (−1), its bottom inside below (+1).
        #expect(Self.tuples(evenOdd) == [[0, 0, 4, 0, 1], [1, 1, 3, 1, -1], [1, 3, 3, 3, 1], [0, 4, 4, 4, -1]])
        // Non-zero: winding 2 inside the inner square, inside on both sides of its edges.
        #expect(Self.tuples(nonZero) == [[0, 0, 4, 0, 1], [0, 4, 4, 4, -1]])
    }

    @Test(arguments: 0..<40)
    func sweepEqualsTheDefinition(seed: Int) {
        var r = SeededRandom(seed: UInt64(seed) &* 7_919 &+ 1)
        var polygons: [[Point]] = []
        // Dash-like axis-aligned rectangles (many rows, each crossed by few edges) and random
        // polygons on a coarse grid (shared rows, vertices on rows, crossings at one x).
        for _ in 0..<r.int(1..<30) {
            let x = Double(r.int(0..<40)), y = Double(r.int(0..<40))
            let w = Double(r.int(1..<6)), h = Double(r.int(1..<6))
            let rect = [Point(x, y), Point(x + w, y), Point(x + w, y + h), Point(x, y + h)]
            polygons.append(r.below(2) == 0 ? rect : rect.reversed())
        }
        for _ in 0..<r.int(0..<6) {
            polygons.append((0..<r.int(3..<12)).map { _ in Point(Double(r.int(0..<20)) * 2, Double(r.int(0..<10)) * 4) })
        }
        for rule in FillRule.allCases {
            var out: [Edge] = []
            CoverageMesh.horizontalEdges(polygons, rule: rule, into: &out)
            #expect(Self.tuples(out) == Self.tuples(Self.direct(polygons, rule: rule)), "seed \(seed), \(rule)")
        }
    }
}
