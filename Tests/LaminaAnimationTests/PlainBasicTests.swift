import LaminaAnimation
import LaminaGeometry
import Testing
import TestSupport

// `CompiledAnimation.plainBasic(forKeyPathAt:)` is the render thread's fast path for one
// plain basic animation per key path. It must answer exactly (bit for bit) what the typed
// entry points answer, over random timings, easings, kinds and times.

private let easings: [TimingFunction] = [
    .linear, .easeIn, .easeOut, .easeInEaseOut, .default, .cubicBezier(0.1, -0.6, 0.9, 1.6),
    .steps(4, .start), .spring(.bouncy), .cubicBezier(0.3, 0.3, 0.7, 0.7),
]

private func randomTiming(_ r: inout SeededRandom) -> AnimationTiming {
    var t = AnimationTiming()
    t.beginTime = [0, 0, 0.3, -0.7][r.below(4)]
    t.duration = [0.25, 1, 1.5, 2.75, 0][r.below(5)]
    t.repeatCount = [0, .infinity, 2.5, 1][r.below(4)]
    if r.below(5) == 0 { t.repeatCount = 0; t.repeatDuration = r.uniform(0.5, 4) }
    t.autoreverses = r.below(2) == 0
    t.fillMode = FillMode.allCases[r.below(4)]
    t.removedOnCompletion = r.below(2) == 0
    t.speed = [1, 1, 2, 0.5, -1, 0][r.below(6)]
    t.timeOffset = r.below(2) == 0 ? 0 : r.uniform(-3, 3)
    t.timingFunction = easings[r.below(easings.count)]
    return t
}

@Test func plainBasicMatchesTheTypedEntryPointsBitForBit() throws {
    var r = SeededRandom(seed: 0x51A1_2B)
    var plainCount = 0
    for _ in 0..<400 {
        let timing = randomTiming(&r)
        let which = r.below(5)
        let animation: Animation
        switch which {
        case 0: animation = .basic(BasicAnimation(keyPath: "opacity", from: .double(r.uniform(-2, 2)),
                                                  to: .double(r.uniform(-2, 2)), timing: timing))
        case 1: animation = .basic(BasicAnimation(keyPath: "position", from: .point(Point(r.uniform(-9, 9), r.uniform(-9, 9))),
                                                  to: .point(Point(r.uniform(-9, 9), r.uniform(-9, 9))), timing: timing))
        case 2: animation = .basic(BasicAnimation(keyPath: "bounds.size", from: .size(Size(r.uniform(0, 9), r.uniform(0, 9))),
                                                  to: .size(Size(r.uniform(0, 9), r.uniform(0, 9))), timing: timing))
        case 3: animation = .basic(BasicAnimation(keyPath: "bounds", from: .rect(Rect(1, 2, 3, 4)),
                                                  to: .rect(Rect(r.uniform(-9, 9), 0, r.uniform(0, 9), 7)), timing: timing))
        default: animation = .basic(BasicAnimation(keyPath: "backgroundColor", from: .color(Color(1, 0.5, 0, 0.8)),
                                                   to: .color(Color(r.uniform(0, 1), 0.2, 1, r.uniform(0, 1))), timing: timing))
        }
        let c = try compiled(animation)
        let plain = try #require(c.plainBasic(forKeyPathAt: 0))
        plainCount += 1
        #expect(plain.kind == c.kinds[0])
        for _ in 0..<40 {
            let t = r.below(10) == 0 ? [Double.nan, .infinity, -.infinity, 0][r.below(4)] : r.uniform(-2, 12)
            let fast = plain.lanes(at: t)
            switch which {
            case 0:
                let v = c.doubleValue(forKeyPathAt: 0, at: t, underlying: 3)
                #expect(fast.map { $0.x }?.bitPattern == v?.bitPattern, "t=\(t) \(timing)")
            case 1:
                let v = c.pointValue(forKeyPathAt: 0, at: t, underlying: Point(3, 4))
                #expect(fast.map { Point($0.x, $0.y) } == v, "t=\(t) \(timing)")
            case 2:
                let v = c.sizeValue(forKeyPathAt: 0, at: t, underlying: Size(3, 4))
                #expect(fast.map { Size($0.x, $0.y) } == v, "t=\(t) \(timing)")
            case 3:
                let v = c.rectValue(forKeyPathAt: 0, at: t, underlying: Rect(0, 0, 1, 1))
                #expect(fast.map { Rect($0.x, $0.y, $0.z, $0.w) } == v, "t=\(t) \(timing)")
            default:
                let v = c.colorValue(forKeyPathAt: 0, at: t, underlying: .clear)
                #expect(fast.map { Color.fromPremultiplied($0.x, $0.y, $0.z, $0.w) } == v, "t=\(t) \(timing)")
            }
        }
    }
    #expect(plainCount == 400)
}

@Test func onlyPlainBasicsTakeTheFastPath() throws {
    let timing = AnimationTiming(duration: 1)
    var additive = timing; additive.additive = true
    var cumulative = timing; cumulative.cumulative = true
    let notPlain: [Animation] = [
        .basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: nil, timing: timing)),
        .basic(BasicAnimation(keyPath: "opacity", from: nil, to: nil, by: .double(1), timing: timing)),
        .basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: additive)),
        .basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: cumulative)),
        .basic(BasicAnimation(keyPath: "transform", from: .transform(.identity), to: .transform(.rotation(1)), timing: timing)),
        .keyframe(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .double(1)], timing: timing)),
        .group(AnimationGroup(animations: [.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1)))],
                              timing: timing)),
    ]
    for a in notPlain { #expect(try compiled(a).plainBasic(forKeyPathAt: 0) == nil) }
    let plain = try compiled(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: timing)))
    #expect(plain.plainBasic(forKeyPathAt: 0) != nil)
    #expect(plain.plainBasic(forKeyPathAt: 1) == nil)
    #expect(plain.plainBasic(forKeyPathAt: -1) == nil)
}

@Test func preparedTimingAnswersWhatMediaTimingAnswers() {
    var r = SeededRandom(seed: 77)
    for _ in 0..<2000 {
        let m = MediaTiming(beginTime: r.uniform(-1, 1), duration: [0, 0.5, 1.25][r.below(3)], speed: [1, -2, 0, 0.5][r.below(4)],
                            timeOffset: r.uniform(-2, 2), repeatCount: [0, 2.5, .infinity][r.below(3)],
                            repeatDuration: r.below(4) == 0 ? r.uniform(0, 3) : 0, autoreverses: r.below(2) == 0,
                            fillMode: FillMode.allCases[r.below(4)])
        let p = PreparedTiming(m)
        for _ in 0..<10 {
            let t = r.uniform(-3, 8)
            let s = m.state(at: t)
            #expect(p.state(at: t) == s)
            #expect(p.fraction(at: t)?.bitPattern == (s.hasEffect ? s.fraction.bitPattern : nil))
        }
    }
}
