import Foundation
import LaminaAnimation
import LaminaGeometry
import Testing

func basic(_ from: AnimatableValue? = nil, _ to: AnimatableValue? = nil, by: AnimatableValue? = nil,
           keyPath: String = "opacity", timing: AnimationTiming = AnimationTiming(duration: 1)) throws -> CompiledAnimation {
    try compiled(.basic(BasicAnimation(keyPath: keyPath, from: from, to: to, by: by, timing: timing)))
}

@Test func fromToByCombinations() throws {
    // CABasicAnimation's rules, underlying 100, t = ¼ of a 1 s linear animation:
    #expect(near(double(try basic(.double(0), .double(10)), 0.25), 2.5))                 // 0 → 10
    #expect(near(double(try basic(.double(0), by: .double(10)), 0.25), 2.5))             // 0 → 0 + 10
    #expect(near(double(try basic(nil, .double(30), by: .double(10)), 0.25), 22.5))      // 20 → 30
    #expect(near(double(try basic(.double(0)), 0.25), 25))                               // 0 → 100
    #expect(near(double(try basic(nil, .double(10)), 0.25), 77.5))                       // 100 → 10
    #expect(near(double(try basic(by: .double(10)), 0.25), 102.5))                      // 100 → 110
}

@Test func additiveAddsToTheUnderlyingValue() throws {
    let a = try basic(.double(0), .double(10), timing: AnimationTiming(duration: 1, additive: true))
    #expect(near(double(a, 0.25, underlying: 100), 102.5))
}

@Test func cumulativeRepeatsStartWhereTheLastEnded() throws {
    // 0 → 10, three repeats: iteration i adds i·10; t 2.5 → 5 + 20 = 25.
    let a = try basic(.double(0), .double(10), timing: AnimationTiming(duration: 1, repeatCount: 3, cumulative: true))
    #expect(near(double(a, 0.5), 5))
    #expect(near(double(a, 1.5), 15))
    #expect(near(double(a, 2.5), 25))
    // Points too: (0,0) → (10, 5), iteration 1 at ½ → (5, 2.5) + (10, 5).
    let p = try basic(.point(.zero), .point(Point(10, 5)), keyPath: "position",
                      timing: AnimationTiming(duration: 1, repeatCount: 2, cumulative: true))
    #expect(p.value(forKeyPathAt: 0, at: 1.5, underlying: .point(.zero)) == .point(Point(15, 7.5)))
}

@Test func colorsInterpolatePremultiplied() throws {
    // Opaque red → transparent blue at ½: premultiplied (1,0,0,1) and (0,0,0,0) average to
    // (½, 0, 0, ½), i.e. straight (1, 0, 0, ½) — no blue fringe, unlike a straight lerp.
    let a = try basic(.color(Color(1, 0, 0, 1)), .color(Color(0, 0, 1, 0)), keyPath: "backgroundColor")
    #expect(a.value(forKeyPathAt: 0, at: 0.5, underlying: .color(.clear)) == .color(Color(1, 0, 0, 0.5)))
    // Both opaque: plain sRGB-encoded average.
    let b = try basic(.color(Color(1, 0, 0)), .color(Color(0, 0, 1)), keyPath: "backgroundColor")
    #expect(b.value(forKeyPathAt: 0, at: 0.5, underlying: .color(.clear)) == .color(Color(0.5, 0, 0.5, 1)))
}

@Test func pointsSizesRectsAndLists() throws {
    let r = try basic(.rect(Rect(0, 0, 10, 10)), .rect(Rect(10, 20, 30, 50)), keyPath: "bounds")
    #expect(r.value(forKeyPathAt: 0, at: 0.5, underlying: .rect(.zero)) == .rect(Rect(5, 10, 20, 30)))
    let s = try basic(.size(Size(0, 10)), .size(Size(10, 30)), keyPath: "bounds.size")
    #expect(s.value(forKeyPathAt: 0, at: 0.25, underlying: .size(.zero)) == .size(Size(2.5, 15)))
    let d = try basic(.doubles([0, 10]), .doubles([10, 30]), keyPath: "lineDashPattern")
    #expect(d.value(forKeyPathAt: 0, at: 0.5, underlying: .doubles([])) == .doubles([5, 20]))
    let c = try basic(.colors([.black, .white]), .colors([.white, .black]), keyPath: "colors")
    #expect(c.value(forKeyPathAt: 0, at: 0.5, underlying: .colors([]))
            == .colors([Color(0.5, 0.5, 0.5), Color(0.5, 0.5, 0.5)]))
}

@Test func transformsInterpolateByDecompositionNotMatrixLerp() throws {
    // Identity → 90° about z at ½ is 45° (a matrix lerp would give m11 = ½, a shrink).
    let a = try basic(.transform(.identity), .transform(.rotation(.pi / 2)), keyPath: "transform")
    guard case .transform(let m)? = a.value(forKeyPathAt: 0, at: 0.5, underlying: .transform(.identity)) else {
        Issue.record("no transform"); return
    }
    #expect(abs(m.m11 - cos(Double.pi / 4)) < 1e-12 && abs(m.m12 - sin(Double.pi / 4)) < 1e-12)
    // Scale 1 → scale 3 with translation 10: at ½ scale 2, translation 5.
    let b = try basic(.transform(.identity), .transform(Transform3D.scale(3, 3).concatenating(.translation(10, 0))),
                      keyPath: "transform")
    guard case .transform(let n)? = b.value(forKeyPathAt: 0, at: 0.5, underlying: .transform(.identity)) else { return }
    #expect(abs(n.m11 - 2) < 1e-12 && abs(n.m22 - 2) < 1e-12 && abs(n.m41 - 5) < 1e-12)
}

@Test func pathsInterpolatePointByPoint() throws {
    let from = Path([.move(Point(0, 0)), .line(Point(10, 0)), .close])
    let to = Path([.move(Point(0, 10)), .line(Point(20, 10)), .close])
    let a = try basic(.path(from), .path(to), keyPath: "path")
    #expect(a.value(forKeyPathAt: 0, at: 0.5, underlying: .path(Path()))
            == .path(Path([.move(Point(0, 5)), .line(Point(15, 5)), .close])))
    // Known ends that do not match are rejected when built…
    let other = Path([.move(.zero), .quad(Point(1, 1), Point(2, 0))])
    #expect(compileError(.basic(BasicAnimation(keyPath: "path", from: .path(from), to: .path(other))))
            == "to: path must have the same elements as from")
    // …and a mismatch found at run time (to-only over a different model path) is discrete.
    let b = try basic(nil, .path(to), keyPath: "path")
    #expect(b.value(forKeyPathAt: 0, at: 0.4, underlying: .path(other)) == .path(other))
    #expect(b.value(forKeyPathAt: 0, at: 0.6, underlying: .path(other)) == .path(to))
}

@Test func implicitAnimationHelper() throws {
    // CALayer's default action: presentation → model, 0.25 s easeInEaseOut (symmetric → ½ at ½).
    let a = try compiled(.basic(.implicit(keyPath: "opacity", from: .double(0), to: .double(1))))
    #expect(near(a.endTime, 0.25))
    #expect(near(double(a, 0.125), 0.5, 1e-7))
    #expect(a.removedOnCompletion)
}

@Test func buildErrorsNameTheField() {
    func e(_ t: AnimationTiming) -> String? { compileError(ramp(t)) }
    #expect(e(AnimationTiming(duration: -1)) == "duration: must be ≥ 0")
    #expect(e(AnimationTiming(duration: .nan)) == "duration: must be ≥ 0")
    #expect(e(AnimationTiming(repeatCount: -1)) == "repeatCount: must be ≥ 0")
    #expect(e(AnimationTiming(timingFunction: .cubicBezier(1.5, 0, 0.5, 1))) == "timingFunction: x1 and x2 must be in 0…1")
    #expect(compileError(.basic(BasicAnimation(keyPath: "opacity", from: .point(.zero), to: .double(1))))
            == "from: must be a number (got a point)")
    #expect(compileError(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .color(.white))))
            == "to: must be a number (got a color)")
    #expect(compileError(.basic(BasicAnimation(keyPath: "nope", to: .double(1)))) == "keyPath: unknown key path 'nope'")
    #expect(compileError(.spring(SpringAnimation(keyPath: "opacity", to: .double(1), spring: Spring(mass: 0))))
            == "mass: must be > 0")
    #expect(compileError(.spring(SpringAnimation(keyPath: "opacity", to: .double(1), spring: Spring(stiffness: -5))))
            == "stiffness: must be > 0")
    #expect(compileError(.group(AnimationGroup(animations: [ramp(AnimationTiming()), ramp(AnimationTiming(duration: -2))])))
            == "animations[1].duration: must be ≥ 0")
}
