import Testing
import LaminaFrame
import LaminaGeometry
import LaminaModel

/// Contents placement against values worked out by hand from Core Animation's rules (see
/// `ContentsGeometry`): bounds (10, 20, 100, 50) and a 40 × 20 pixel image unless stated.
@Suite struct ContentsGeometryTests {
    static let bounds = Rect(10, 20, 100, 50)

    static func geometry(_ gravity: ContentsGravity, width: Int = 40, height: Int = 20, rect: Rect = Rect(0, 0, 1, 1),
                         center: Rect = Rect(0, 0, 1, 1), scale: Double = 1, bounds: Rect = bounds) -> ContentsGeometry? {
        ContentsGeometry(bounds: bounds, imageWidth: width, imageHeight: height, gravity: gravity, contentsRect: rect,
                         contentsCenter: center, contentsScale: scale)
    }

    @Test(arguments: [
        // Natural size 40 × 20 in (10, 20, 100, 50): midX 60, midY 45, maxX 110, maxY 70.
        (ContentsGravity.center, Rect(40, 35, 40, 20)),
        (.top, Rect(40, 20, 40, 20)),           // the visual top: minY
        (.bottom, Rect(40, 50, 40, 20)),
        (.left, Rect(10, 35, 40, 20)),
        (.right, Rect(70, 35, 40, 20)),
        (.topLeft, Rect(10, 20, 40, 20)),
        (.topRight, Rect(70, 20, 40, 20)),
        (.bottomLeft, Rect(10, 50, 40, 20)),
        (.bottomRight, Rect(70, 50, 40, 20)),
        (.resize, Rect(10, 20, 100, 50)),
        // Aspect 2:1 into 100 × 50: fits exactly both ways.
        (.resizeAspect, Rect(10, 20, 100, 50)),
        (.resizeAspectFill, Rect(10, 20, 100, 50)),
    ])
    func gravity(_ gravity: ContentsGravity, expected: Rect) throws {
        let g = try #require(Self.geometry(gravity))
        #expect(g.frame == expected)
        #expect(g.pieces == [ContentsGeometry.Piece(destination: expected, source: Rect(0, 0, 1, 1))])
    }

    @Test func aspectWhenShapesDiffer() throws {
        // A 20 × 40 image (1:2) in 100 × 50: fit scales by min(100/20, 50/40) = 1.25 → 25 × 50,
        // centred at x 60 → (47.5, 20); fill scales by 5 → 100 × 200, centred at y 45 → (10, −55).
        let fit = try #require(Self.geometry(.resizeAspect, width: 20, height: 40))
        #expect(fit.frame == Rect(47.5, 20, 25, 50))
        let fill = try #require(Self.geometry(.resizeAspectFill, width: 20, height: 40))
        #expect(fill.frame == Rect(10, -55, 100, 200))
    }

    @Test func contentsScaleAndRect() throws {
        // contentsScale 2: 20 × 10 points; contentsRect (0.5, 0, 0.5, 0.5): 20 × 10 pixels shown,
        // at scale 2 → 10 × 5 points, centred at (60, 45).
        #expect(try #require(Self.geometry(.center, scale: 2)).frame == Rect(50, 40, 20, 10))
        let g = try #require(Self.geometry(.center, rect: Rect(0.5, 0, 0.5, 0.5), scale: 2))
        #expect(g.frame == Rect(55, 42.5, 10, 5))
        #expect(g.pieces == [ContentsGeometry.Piece(destination: Rect(55, 42.5, 10, 5), source: Rect(0.5, 0, 0.5, 0.5))])
        // Resize shows the part stretched over the bounds.
        #expect(try #require(Self.geometry(.resize, rect: Rect(0.25, 0.25, 0.5, 0.5))).pieces
                == [ContentsGeometry.Piece(destination: Self.bounds, source: Rect(0.25, 0.25, 0.5, 0.5))])
    }

    @Test func nineSlice() throws {
        // 40 × 20 pixels, contentsCenter (0.25, 0.25, 0.5, 0.5): corners of 10 × 5 pixels = points
        // at scale 1. Frame = bounds (10, 20, 100, 50): x cuts 10, 20, 100, 110; y cuts 20, 25, 65, 70;
        // source cuts u 0, 0.25, 0.75, 1 and v the same.
        let g = try #require(Self.geometry(.resize, center: Rect(0.25, 0.25, 0.5, 0.5)))
        let x = [10.0, 20, 100, 110], y = [20.0, 25, 65, 70], u = [0.0, 0.25, 0.75, 1]
        var expected: [ContentsGeometry.Piece] = []
        for j in 0..<3 {
            for i in 0..<3 {
                expected.append(.init(destination: Rect(x[i], y[j], x[i + 1] - x[i], y[j + 1] - y[j]),
                                      source: Rect(u[i], u[j], u[i + 1] - u[i], u[j + 1] - u[j])))
            }
        }
        #expect(g.pieces == expected)
    }

    @Test func nineSliceWithScaleAndShrinking() throws {
        // contentsScale 2 halves the corners: 5 × 2.5 points.
        let g = try #require(Self.geometry(.resize, center: Rect(0.25, 0.25, 0.5, 0.5), scale: 2))
        #expect(g.xCuts == SIMD4(10, 15, 105, 110))
        #expect(g.yCuts == SIMD4(20, 22.5, 67.5, 70))
        // Bounds 12 wide: the two 10-point corners shrink to 6 each, the middle column is empty.
        let narrow = try #require(Self.geometry(.resize, center: Rect(0.25, 0.25, 0.5, 0.5), bounds: Rect(0, 0, 12, 50)))
        #expect(narrow.xCuts == SIMD4(0, 6, 6, 12))
        #expect(narrow.pieces.count == 6)
        #expect(narrow.pieces.allSatisfy { $0.source.midX != 0.5 })
        // A zero-width centre (stretch one pixel column): x cuts 10, 30, 90, 110 for a centre
        // at u = 0.5, and the middle column samples u 0.5…0.5.
        let line = try #require(Self.geometry(.resize, center: Rect(0.5, 0, 0, 1)))
        #expect(line.xCuts == SIMD4(10, 30, 90, 110))
        #expect(line.pieces.map(\.source.width) == [0.5, 0, 0.5])
    }

    @Test func nothingToDraw() {
        #expect(Self.geometry(.resize, width: 0) == nil)
        #expect(Self.geometry(.resize, bounds: Rect(0, 0, 0, 10)) == nil)
        #expect(Self.geometry(.center, rect: Rect(0, 0, 0, 1)) == nil)
        #expect(Self.geometry(.center, rect: Rect(.nan, 0, 1, 1)) == nil)
    }

    /// Cut to a rect (a square `masksToBounds`): a 40 × 20 image aspect-filled into (0, 0, 60, 40)
    /// is 80 × 40 at x = -10; cut to the bounds it keeps x 0…60, which shows u (0 + 10)/80 =
    /// 0.125 to 70/80 = 0.875 of the image.
    @Test func croppedAspectFill() throws {
        let g = try #require(Self.geometry(.resizeAspectFill, bounds: Rect(0, 0, 60, 40)))
        #expect(g.frame == Rect(-10, 0, 80, 40))
        let cut = try #require(g.cropped(to: Rect(0, 0, 60, 40)))
        #expect(cut.frame == Rect(0, 0, 60, 40))
        #expect(cut.source == Rect(0.125, 0, 0.75, 1))
        #expect(cut.pieces == [ContentsGeometry.Piece(destination: Rect(0, 0, 60, 40), source: Rect(0.125, 0, 0.75, 1))])
        // A rect holding the whole frame leaves it as it was; one beside it leaves nothing.
        #expect(g.cropped(to: Rect(-20, -5, 200, 100)) == g)
        #expect(g.cropped(to: Rect(70, 0, 10, 40)) == nil)
        #expect(g.cropped(to: Rect(0, 40, 60, 10)) == nil)
    }

    /// A nine-slice cut through its pieces: the 12 × 12 image, contentsCenter (0.25, 0.25, 0.5,
    /// 0.5), contentsScale 0.25, topLeft in (0, 0, 40, 40): 48 × 48 with 12-point corners, cuts
    /// 0, 12, 36, 48 showing u 0, 0.25, 0.75, 1. Cut at 40, the last corner keeps 36…40, a
    /// third of its 12 points: u 0.75 + 0.25/3. Cut to (20, 0, 40, 40), the middle piece (12…36
    /// for u 0.25…0.75) starts at u 0.25 + 8/24 × 0.5; the first corner is gone.
    @Test func croppedNineSlice() throws {
        let g = try #require(Self.geometry(.topLeft, width: 12, height: 12, center: Rect(0.25, 0.25, 0.5, 0.5),
                                           scale: 0.25, bounds: Rect(0, 0, 40, 40)))
        #expect(g.xCuts == SIMD4(0, 12, 36, 48))
        let cut = try #require(g.cropped(to: Rect(0, 0, 40, 40)))
        #expect(cut.xCuts == SIMD4(0, 12, 36, 40))
        #expect(cut.yCuts == SIMD4(0, 12, 36, 40))
        let lastCorner: Double = 0.75 + 0.25 / 3
        #expect(abs(cut.uCuts[3] - lastCorner) < 1e-12)
        #expect(cut.uCuts[0] == 0 && cut.uCuts[1] == 0.25 && cut.uCuts[2] == 0.75)
        #expect(cut.frame == Rect(0, 0, 40, 40))
        #expect(cut.pieces.count == 9)
        let left = try #require(g.cropped(to: Rect(20, 0, 40, 40)))
        #expect(left.xCuts == SIMD4(20, 20, 36, 48), "the rect reaches to 60: the right edge stays")
        let expected: Double = 0.25 + 8.0 / 24 * 0.5
        #expect(abs(left.uCuts[0] - expected) < 1e-12)
        #expect(left.uCuts[0] == left.uCuts[1])
        #expect(left.pieces.count == 6, "the first column has no width left")
    }
}
