import LaminaAnimation
import LaminaGeometry
import Testing

// The typed entry points and `apply(forKeyPathAt:at:to:)` answer exactly what
// `value(forKeyPathAt:at:underlying:)` does.

@Test func typedEntryPointsMatchValue() throws {
    let timing = AnimationTiming(duration: 1, timingFunction: .easeInEaseOut, repeatCount: 3, autoreverses: true,
                                 fillMode: .both, cumulative: true)
    let opacity = try compiled(.basic(BasicAnimation(keyPath: "opacity", to: .double(0.2), timing: timing)))
    let position = try compiled(.spring(SpringAnimation(keyPath: "position", from: .point(Point(5, 5)), to: .point(Point(100, 0)),
                                                        spring: .bouncy, timing: AnimationTiming(additive: true))))
    let size = try compiled(.keyframe(KeyframeAnimation(keyPath: "bounds.size", values: [.size(Size(1, 2)), .size(Size(30, 4)), .size(Size(5, 60))],
                                                        calculationMode: .cubic, timing: timing)))
    let rect = try compiled(.basic(BasicAnimation(keyPath: "bounds", from: .rect(Rect(0, 0, 10, 10)), by: .rect(Rect(5, 5, 5, 5)), timing: timing)))
    let color = try compiled(.basic(BasicAnimation(keyPath: "backgroundColor", from: .color(Color(1, 0, 0, 0.5)), timing: timing)))
    let transform = try compiled(.basic(BasicAnimation(keyPath: "transform", from: .transform(.rotation(0.3)),
                                                       to: .transform(Transform3D.scale(2, 3).concatenating(.translation(4, 5))),
                                                       timing: AnimationTiming(duration: 1, additive: true))))
    let u = (d: 0.7, p: Point(3, 4), s: Size(7, 8), r: Rect(1, 2, 3, 4), c: Color(0, 0.5, 1, 0.8),
             m: Transform3D.translation(10, 0).concatenating(.rotation(0.2)))
    for k in -10..<400 {
        let t = Double(k) / 57
        #expect(opacity.doubleValue(forKeyPathAt: 0, at: t, underlying: u.d).map { .double($0) }
                == opacity.value(forKeyPathAt: 0, at: t, underlying: .double(u.d)))
        #expect(position.pointValue(forKeyPathAt: 0, at: t, underlying: u.p).map { .point($0) }
                == position.value(forKeyPathAt: 0, at: t, underlying: .point(u.p)))
        #expect(size.sizeValue(forKeyPathAt: 0, at: t, underlying: u.s).map { .size($0) }
                == size.value(forKeyPathAt: 0, at: t, underlying: .size(u.s)))
        #expect(rect.rectValue(forKeyPathAt: 0, at: t, underlying: u.r).map { .rect($0) }
                == rect.value(forKeyPathAt: 0, at: t, underlying: .rect(u.r)))
        #expect(color.colorValue(forKeyPathAt: 0, at: t, underlying: u.c).map { .color($0) }
                == color.value(forKeyPathAt: 0, at: t, underlying: .color(u.c)))
        #expect(transform.transformValue(forKeyPathAt: 0, at: t, underlying: u.m).map { .transform($0) }
                == transform.value(forKeyPathAt: 0, at: t, underlying: .transform(u.m)))
        var v = AnimatableValue.color(u.c)
        let applied = color.apply(forKeyPathAt: 0, at: t, to: &v)
        let expected = color.value(forKeyPathAt: 0, at: t, underlying: .color(u.c))
        #expect(applied == (expected != nil))
        #expect(v == expected ?? .color(u.c))
    }
    // The wrong kind, a bad index or a NaN time: nil, never a trap.
    #expect(opacity.pointValue(forKeyPathAt: 0, at: 0.5, underlying: .zero) == nil)
    #expect(opacity.doubleValue(forKeyPathAt: 1, at: 0.5, underlying: 0) == nil)
    #expect(opacity.doubleValue(forKeyPathAt: 0, at: .nan, underlying: 0) == nil)
}
