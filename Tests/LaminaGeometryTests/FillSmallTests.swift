import Foundation
import Testing
import TestSupport
@testable import LaminaGeometry

/// The small-input path (`SmallFillSweep`) against the general sweep and the references: it
/// must take small self-intersecting inputs such as the pentagram, and wherever it answers,
/// agree with the general sweep on area and with the winding reference point by point.
@Suite struct FillSmallTests {
    static func general(_ polys: [[Point]], _ rule: FillRule) -> TriangleList {
        var sweep = FillSweep(rule: rule, collectBoundary: false)
        sweep.build(polys)
        sweep.run()
        return sweep.out
    }

    @Test(arguments: FillCase.allCases, FillRule.allCases)
    func smallPathMatchesReferenceOnNamedCases(_ c: FillCase, _ rule: FillRule) throws {
        for angle in rotations {
            let polys = rotate(c.polygons, angle)
            guard let small = FillTessellator.smallFill(polys, rule: rule) else { continue }
            let expected = Reference.area(polys, rule)
            let scale = polys.flatMap { $0 }.reduce(0.0) { max($0, abs($1.x), abs($1.y)) }
            #expect(abs(small.area - expected) <= max(1e-9 * scale * scale, 1e-9 * expected),
                    "\(c) \(rule) rot \(angle): \(small.area) vs \(expected)")
            if angle == rotations[0] || angle == rotations[1] {
                let v = small.validate(against: polys, rule: rule, grid: 32)
                #expect(v.indicesInRange && v.maxCoverage <= 1 && v.mismatches == 0,
                        "\(c) \(rule) rot \(angle): coverage \(v.maxCoverage), \(v.mismatches) mismatches")
            }
        }
    }

    /// The general sweep alone on every named case (small ones no longer reach it through
    /// `triangulate`).
    @Test(arguments: FillCase.allCases, FillRule.allCases)
    func generalSweepMatchesReferenceOnNamedCases(_ c: FillCase, _ rule: FillRule) throws {
        for angle in rotations {
            let polys = rotate(c.polygons, angle)
            let tri = Self.general(polys, rule)
            let expected = Reference.area(polys, rule)
            let scale = polys.flatMap { $0 }.reduce(0.0) { max($0, abs($1.x), abs($1.y)) }
            #expect(abs(tri.area - expected) <= max(1e-9 * scale * scale, 1e-9 * expected),
                    "\(c) \(rule) rot \(angle): \(tri.area) vs \(expected)")
            if c != .starThousand && c != .spiral && (angle == rotations[0] || angle == rotations[1]) {
                let v = tri.validate(against: polys, rule: rule, grid: 32)
                #expect(v.indicesInRange && v.maxCoverage <= 1 && v.mismatches == 0, "\(c) \(rule) rot \(angle)")
            }
        }
    }

    @Test func smallPathTakesSelfIntersectingShapes() {
        // (Rotated by π/2, the overlapping squares' horizontal edges are a few ulps off, too close to call.)
        for c in [FillCase.pentagram, .bowtie, .manyCrossings, .square, .concaveArrow] {
            for rule in FillRule.allCases {
                for angle in rotations {
                    #expect(FillTessellator.smallFill(rotate(c.polygons, angle), rule: rule) != nil, "\(c) \(rule) rot \(angle)")
                }
            }
        }
        let big = [star(points: 40, inner: 4, outer: 10)]
        #expect(FillTessellator.smallFill(big, rule: .nonZero) == nil)
    }

    /// Random small polygons: free, snapped to a coarse grid (coincident vertices and edges,
    /// T-junctions), and stars drawn with a step (regular self-intersections).
    @Test(arguments: 0 ..< 120)
    func smallPathMatchesGeneralSweepOnRandomInputs(_ seed: Int) throws {
        var r = SeededRandom(seed: UInt64(seed) &* 6_364_136_223 &+ 17)
        var polys: [[Point]] = []
        switch seed % 4 {
        case 0, 1:
            let snap = seed % 4 == 1
            for _ in 0 ..< Int.random(in: 1 ... 3, using: &r) {
                let n = Int.random(in: 2 ... 12, using: &r)
                polys.append((0 ..< n).map { _ in
                    let x = Double.random(in: 0 ... 20, using: &r), y = Double.random(in: 0 ... 20, using: &r)
                    return snap ? Point((x / 4).rounded() * 4, (y / 4).rounded() * 4) : Point(x, y)
                })
            }
        case 2:
            let n = Int.random(in: 5 ... 13, using: &r)
            let step = Int.random(in: 2 ... (n - 1) / 2, using: &r)
            let phase = Double.random(in: 0 ... 1, using: &r)
            polys.append((0 ..< n).map { k in
                let a = Double(k * step) * 2 * .pi / Double(n) + phase
                return Point(10 * cos(a), 10 * sin(a))
            })
        default:
            for i in 0 ..< Int.random(in: 2 ... 4, using: &r) {
                let x = Double.random(in: 0 ... 10, using: &r), y = Double.random(in: 0 ... 10, using: &r)
                let w = Double.random(in: 2 ... 10, using: &r), h = Double.random(in: 2 ... 10, using: &r)
                let rect = [Point(x, y), Point(x + w, y), Point(x + w, y + h), Point(x, y + h)]
                polys.append(i % 2 == 0 ? rect : rect.reversed())
            }
        }
        for angle in [0.0, 0.37] {
            let p = rotate(polys, angle)
            for rule in FillRule.allCases {
                guard let small = FillTessellator.smallFill(p, rule: rule) else { continue }
                let expected = Reference.area(p, rule)
                let general = Self.general(p, rule)
                #expect(abs(small.area - expected) <= 1e-9 * max(1, expected), "seed \(seed) \(rule): \(small.area) vs \(expected)")
                #expect(abs(small.area - general.area) <= 1e-9 * max(1, expected), "seed \(seed) \(rule): \(small.area) vs general \(general.area)")
                let v = small.validate(against: p, rule: rule, grid: 24)
                #expect(v.indicesInRange && v.maxCoverage <= 1 && v.mismatches == 0,
                        "seed \(seed) \(rule) rot \(angle): coverage \(v.maxCoverage), \(v.mismatches) mismatches")
            }
        }
    }
}
