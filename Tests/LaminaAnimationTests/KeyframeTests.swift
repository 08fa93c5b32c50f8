import LaminaAnimation
import LaminaGeometry
import Testing

// Every expected value below is worked out by hand from CAKeyframeAnimation's rules
// (docs/scene-format.md and KeyframeAnimation's doc), for a 1 s animation with linear timing,
// so the overall fraction equals t.

func keyframes(_ values: [AnimatableValue], keyTimes: [Double]? = nil, timingFunctions: [TimingFunction]? = nil,
               mode: CalculationMode = .linear, keyPath: String = "opacity", path: Path? = nil) throws -> CompiledAnimation {
    try compiled(.keyframe(KeyframeAnimation(keyPath: keyPath, values: values, path: path, keyTimes: keyTimes,
                                             timingFunctions: timingFunctions, calculationMode: mode,
                                             timing: AnimationTiming(duration: 1, fillMode: .forwards))))
}

func point(_ c: CompiledAnimation, _ t: Double) -> Point? {
    guard case .point(let p)? = c.value(forKeyPathAt: 0, at: t, underlying: .point(.zero)) else { return nil }
    return p
}

@Test func linearWithKeyTimes() throws {
    // Values 0, 10, 20 at 0, 0.25, 1: t 0.125 is halfway through segment 0 → 5;
    // t 0.625 is (0.625 − 0.25)/0.75 = ½ through segment 1 → 15.
    let a = try keyframes([.double(0), .double(10), .double(20)], keyTimes: [0, 0.25, 1])
    #expect(near(double(a, 0.125), 5))
    #expect(near(double(a, 0.625), 15))
    #expect(near(double(a, 5), 20))
    // Without keyTimes they are evenly spaced: 0, ½, 1 → t 0.25 → 5.
    #expect(near(double(try keyframes([.double(0), .double(10), .double(20)]), 0.25), 5))
}

@Test func perSegmentTimingFunctions() throws {
    // Segment 0 eased in: at s = 0.6575 easeIn gives ½ (x(½) of (0.42, 0, 1, 1)), so
    // t = 0.6575/2 → 5. Segment 1 linear: t 0.75 → 15.
    let a = try keyframes([.double(0), .double(10), .double(20)], timingFunctions: [.easeIn, .linear])
    #expect(near(double(a, 0.6575 / 2), 5, 1e-5))
    #expect(near(double(a, 0.75), 15))
}

@Test func discreteHoldsEachValue() throws {
    // Three values, no keyTimes: they hold from 0, ⅓, ⅔.
    let a = try keyframes([.double(1), .double(2), .double(3)], mode: .discrete)
    #expect(double(a, 0.2) == 1)
    #expect(double(a, 0.5) == 2)
    #expect(double(a, 0.9) == 3)
    // Core Animation's form: one more key time, the last ending the last value.
    let b = try keyframes([.double(1), .double(2), .double(3)], keyTimes: [0, 0.5, 0.75, 1], mode: .discrete)
    #expect(double(b, 0.6) == 2)
    #expect(double(b, 0.8) == 3)
    #expect(double(b, 2) == 3)
    // As many key times as values.
    let c = try keyframes([.double(1), .double(2), .double(3)], keyTimes: [0, 0.1, 0.2], mode: .discrete)
    #expect(double(c, 0.15) == 2)
    #expect(double(c, 0.5) == 3)
}

@Test func pacedOnUnequalSegments() throws {
    // 0 → 10 → 40: distances 10 and 30 of 40, so key times become 0, ¼, 1 and the speed is
    // constant 40/s: t ½ → 20, t 0.25 → 10, t 0.1 → 4. keyTimes and timing functions ignored.
    let a = try keyframes([.double(0), .double(10), .double(40)], keyTimes: [0, 0.9, 1],
                          timingFunctions: [.easeIn, .easeOut], mode: .paced)
    #expect(near(double(a, 0.5), 20, 1e-9))
    #expect(near(double(a, 0.25), 10, 1e-9))
    #expect(near(double(a, 0.1), 4, 1e-9))
    // Points: (0,0) → (30,40) → (30,0): lengths 50 and 40 of 90; t ½ → 45 along → (27, 36).
    let p = try keyframes([.point(.zero), .point(Point(30, 40)), .point(Point(30, 0))], mode: .paced, keyPath: "position")
    #expect(near(try #require(point(p, 0.5)), Point(27, 36), 1e-9))
}

@Test func cubicIsCatmullRom() throws {
    // (0,0), (10,0), (10,10), evenly timed. Segment 0 at s = ½ (t ¼), with the end point
    // doubled as its outer neighbour: Catmull-Rom weights at ½ are (−1/16, 9/16, 9/16, −1/16)
    // over P0, P0, P1, P2 → x = 9/16·10 − 1/16·10 = 5, y = −1/16·10 = −0.625.
    let a = try keyframes([.point(.zero), .point(Point(10, 0)), .point(Point(10, 10))], mode: .cubic, keyPath: "position")
    #expect(near(try #require(point(a, 0.25)), Point(5, -0.625), 1e-9))
    // Through the key values exactly.
    #expect(near(try #require(point(a, 0.5)), Point(10, 0), 1e-9))
    #expect(near(try #require(point(a, 1)), Point(10, 10), 1e-9))
}

@Test func cubicPacedTravelsAtConstantSpeed() throws {
    // Collinear values 0, 10, 40 on x: the Catmull-Rom curve stays on the segment
    // and is monotonic, so constant speed puts t ½ at x = 20 (half of 40).
    let a = try keyframes([.point(.zero), .point(Point(10, 0)), .point(Point(40, 0))], mode: .cubicPaced, keyPath: "position")
    let p = try #require(point(a, 0.5))
    #expect(abs(p.x - 20) < 0.05 && p.y == 0)
    #expect(abs(try #require(point(a, 0.25)).x - 10) < 0.05)
}

@Test func pathInsteadOfValues() throws {
    // M0,0 L10,0 L10,30: two segments, evenly timed → t ¼ → (5, 0), t ¾ → (10, 15).
    let path = Path([.move(.zero), .line(Point(10, 0)), .line(Point(10, 30))])
    let a = try keyframes([], mode: .linear, keyPath: "position", path: path)
    #expect(near(try #require(point(a, 0.25)), Point(5, 0)))
    #expect(near(try #require(point(a, 0.75)), Point(10, 15)))
    // Paced: 40 long, t ½ → 20 along → (10, 10).
    let b = try keyframes([], mode: .paced, keyPath: "position", path: path)
    #expect(near(try #require(point(b, 0.5)), Point(10, 10), 1e-9))
    // Discrete: the vertices (0,0), (10,0), (10,30) held from 0, ⅓, ⅔.
    let c = try keyframes([], mode: .discrete, keyPath: "position", path: path)
    #expect(try #require(point(c, 0.5)) == Point(10, 0))
    // A quadratic follows the curve: M0,0 Q10,10 20,0 at s ½ → ¼P0 + ½C + ¼P1 = (10, 5).
    let q = try keyframes([], mode: .linear, keyPath: "position", path: Path([.move(.zero), .quad(Point(10, 10), Point(20, 0))]))
    #expect(near(try #require(point(q, 0.5)), Point(10, 5)))
}

@Test func keyframeErrorsNameTheField() {
    func err(_ k: KeyframeAnimation) -> String? { compileError(.keyframe(k)) }
    #expect(err(KeyframeAnimation(keyPath: "opacity", values: [])) == "values: must not be empty")
    #expect(err(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .double(1), .double(2)],
                                  keyTimes: [0, 0.6, 0.5])) == "keyTimes: must be ascending")
    #expect(err(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .double(1), .double(2)],
                                  keyTimes: [0, 1])) == "keyTimes: must have as many entries as values (3)")
    #expect(err(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .double(1)], keyTimes: [0, 0.5, 1]))
            == "keyTimes: must have as many entries as values (2)")
    #expect(err(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .point(.zero)]))
            == "values[1]: must be a number (got a point)")
    #expect(err(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .double(1)], timingFunctions: [.linear, .linear]))
            == "timingFunctions: must have one entry per segment (1)")
    #expect(err(KeyframeAnimation(keyPath: "opacity", path: Path([.move(.zero), .line(Point(1, 1))])))
            == "path: only animates point properties")
}
