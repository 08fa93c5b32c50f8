import Foundation
import LaminaAnimation
import LaminaGeometry

/// `lamina-bench animation [--layers N] [--frames F] [--batches B]`: nanoseconds per evaluation of each
/// animation kind, and per frame for N layers (default 10,000) with three animated
/// properties each (position spring, opacity basic, transform keyframes). Prints JSON.
///
/// The box this runs on is shared and noisy, so times are this thread's CPU time (time
/// spent preempted does not count) and each figure is the best of several batches; the
/// layer case also reports the median frame.
func runAnimationBench(_ arguments: [String]) {
    var layers = 10_000
    var frames = 120
    var batches = 20
    var i = 0
    while i < arguments.count {
        switch arguments[i] {
        case "--layers" where i + 1 < arguments.count: layers = Int(arguments[i + 1]) ?? layers; i += 1
        case "--frames" where i + 1 < arguments.count: frames = Int(arguments[i + 1]) ?? frames; i += 1
        case "--batches" where i + 1 < arguments.count: batches = max(1, Int(arguments[i + 1]) ?? batches); i += 1
        default:
            FileHandle.standardError.write(Data("usage: lamina-bench animation [--layers N] [--frames F] [--batches B]\n".utf8)); exit(2)
        }
        i += 1
    }
    let kinds: (String) -> AnimatableValue.Kind? = { key in
        switch key {
        case "opacity", "position.x": .double
        case "position": .point
        case "backgroundColor": .color
        case "transform": .transform
        case "bounds": .rect
        default: nil
        }
    }
    func make(_ a: Animation) -> CompiledAnimation {
        do { return try a.compile(kindOf: kinds) } catch { fatalError("bench animation rejected: \(error)") }
    }
    let timing = AnimationTiming(duration: 1.3, timingFunction: .easeInEaseOut, repeatCount: .infinity, autoreverses: true)
    let cases: [(String, CompiledAnimation, AnimatableValue)] = [
        ("basic.double", make(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: timing))), .double(1)),
        ("basic.point", make(.basic(BasicAnimation(keyPath: "position", from: .point(.zero), to: .point(Point(100, 50)), timing: timing))), .point(.zero)),
        ("basic.rect", make(.basic(BasicAnimation(keyPath: "bounds", from: .rect(.zero), to: .rect(Rect(0, 0, 100, 50)), timing: timing))), .rect(.zero)),
        ("basic.color", make(.basic(BasicAnimation(keyPath: "backgroundColor", from: .color(.black), to: .color(Color(1, 0.5, 0, 0.5)), timing: timing))), .color(.black)),
        ("basic.transform", make(.basic(BasicAnimation(keyPath: "transform", from: .transform(.identity),
                                                       to: .transform(Transform3D.rotation(2, 0, 1, 1).concatenating(.translation(10, 20, 0))), timing: timing))), .transform(.identity)),
        ("basic.additiveByOnly", make(.basic(BasicAnimation(keyPath: "opacity", by: .double(1),
                                                            timing: AnimationTiming(duration: 1.3, repeatCount: .infinity, additive: true)))), .double(0.5)),
        ("keyframe.linear8", make(.keyframe(KeyframeAnimation(keyPath: "opacity", values: (0..<8).map { .double(Double($0 % 3)) },
                                                              timingFunctions: Array(repeating: .easeIn, count: 7), timing: timing))), .double(0)),
        ("keyframe.cubicPaced.point", make(.keyframe(KeyframeAnimation(keyPath: "position", values: [.point(.zero), .point(Point(100, 0)), .point(Point(100, 100)), .point(Point(0, 30))],
                                                                       calculationMode: .cubicPaced, timing: timing))), .point(.zero)),
        ("keyframe.path.paced", make(.keyframe(KeyframeAnimation(keyPath: "position", path: Path([.move(.zero), .cubic(Point(50, 0), Point(100, 50), Point(100, 100)), .line(Point(0, 100)), .close]),
                                                                 calculationMode: .paced, timing: timing))), .point(.zero)),
        ("spring.double", make(.spring(SpringAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                                       timing: AnimationTiming(repeatCount: .infinity)))), .double(0)),
        ("spring.point.velocity", make(.spring(SpringAnimation(keyPath: "position", from: .point(.zero), to: .point(Point(100, 0)), spring: .bouncy,
                                                               velocity: .point(Point(0, 300)), timing: AnimationTiming(repeatCount: .infinity)))), .point(.zero)),
        ("group.3children", make(.group(AnimationGroup(animations: [
            .basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: AnimationTiming(duration: 1))),
            .basic(BasicAnimation(keyPath: "opacity", by: .double(0.1), timing: AnimationTiming(beginTime: 0.5, duration: 1, additive: true))),
            .basic(BasicAnimation(keyPath: "position", to: .point(Point(5, 5)), timing: AnimationTiming(duration: 2))),
        ], timing: AnimationTiming(duration: 2, repeatCount: .infinity)))), .double(0)),
        ("keyframeTracks", make(.keyframeTracks(KeyframeTracksAnimation(tracks: [
            KeyframeTrack(keyPath: "opacity", keyframes: [.linear(.double(1), duration: 0.3), .cubic(.double(0.2), duration: 0.4),
                                                          .cubic(.double(0.8), duration: 0.4), .spring(.double(1), duration: 0.5, bounce: 0.2)]),
        ], timing: AnimationTiming(repeatCount: .infinity)))), .double(0)),
        ("phases", make(.phases(PhaseAnimation(phases: [
            Phase(values: ["opacity": .double(0)], curve: .easeInEaseOut, duration: 0.3),
            Phase(values: ["opacity": .double(1)], curve: .snappy),
            Phase(values: ["opacity": .double(0.5)], curve: .linear, duration: 0.2),
        ]))), .double(0)),
    ]

    var results: [String] = []
    var sink = 0.0
    func consume(_ v: AnimatableValue?) {
        switch v {
        case .double(let d)?: sink += d
        case .point(let p)?: sink += p.x
        case .rect(let r)?: sink += r.size.width
        case .color(let c)?: sink += c.red
        case .transform(let t)?: sink += t.m11
        default: sink += 1
        }
    }
    let perBatch = 20_000
    for (name, anim, underlying) in cases {
        // Warm up, then time evaluations at advancing times (1/120 s apart).
        for k in 0..<10_000 { consume(anim.value(forKeyPathAt: 0, at: Double(k) / 120, underlying: underlying)) }
        var best = Double.infinity
        for b in 0..<batches {
            let start = threadCPUNanoseconds()
            for k in b * perBatch..<(b + 1) * perBatch {
                consume(anim.value(forKeyPathAt: 0, at: Double(k) * (1.0 / 120.0), underlying: underlying))
            }
            best = min(best, Double(threadCPUNanoseconds() - start) / Double(perBatch))
        }
        results.append("    \"\(name)\": \(String(format: "%.1f", best))")
    }

    // N layers × 3 properties: a position spring, an opacity basic, a transform keyframe
    // animation, each layer's animations added at a different time.
    let position = make(.spring(SpringAnimation(keyPath: "position", from: .point(.zero), to: .point(Point(200, 100)),
                                                spring: .snappy, timing: AnimationTiming(repeatCount: .infinity))))
    let opacity = make(.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1), timing: timing)))
    let transform = make(.keyframe(KeyframeAnimation(keyPath: "transform", values: [
        .transform(.identity), .transform(.rotation(1)), .transform(Transform3D.scale(1.5, 1.5).concatenating(.rotation(2))),
    ], timingFunctions: [.easeIn, .easeOut], timing: timing)))
    let added = (0..<layers).map { Double($0 % 997) / 997 }
    var frameTimes: [Double] = []
    for f in 0..<frames {
        let now = 1 + Double(f) / 120
        let frameStart = threadCPUNanoseconds()
        for l in 0..<layers {
            let t = now - added[l]
            consume(position.value(forKeyPathAt: 0, at: t, underlying: .point(.zero)))
            consume(opacity.value(forKeyPathAt: 0, at: t, underlying: .double(1)))
            consume(transform.value(forKeyPathAt: 0, at: t, underlying: .transform(.identity)))
        }
        frameTimes.append(Double(threadCPUNanoseconds() - frameStart))
    }
    frameTimes.sort()

    // The same layers through the typed entry points (no AnimatableValue built or copied).
    var typedTimes: [Double] = []
    for f in 0..<frames {
        let now = 1 + Double(f) / 120
        let frameStart = threadCPUNanoseconds()
        for l in 0..<layers {
            let t = now - added[l]
            sink += position.pointValue(forKeyPathAt: 0, at: t, underlying: .zero)?.x ?? 1
            sink += opacity.doubleValue(forKeyPathAt: 0, at: t, underlying: 1) ?? 1
            sink += transform.transformValue(forKeyPathAt: 0, at: t, underlying: .identity)?.m11 ?? 1
        }
        typedTimes.append(Double(threadCPUNanoseconds() - frameStart))
    }
    typedTimes.sort()

    let perFrame = frameTimes[0]
    let median = frameTimes[frameTimes.count / 2]
    let perEval = perFrame / Double(layers * 3)

    print("""
    {
      "benchmark": "animation",
      "nsPerEvaluation": {
    \(results.joined(separator: ",\n"))
      },
      "layers": {
        "count": \(layers),
        "propertiesPerLayer": 3,
        "properties": ["position (spring)", "opacity (basic, easeInEaseOut)", "transform (keyframes, 3 values)"],
        "frames": \(frames),
        "msPerFrame": \(String(format: "%.3f", perFrame / 1e6)),
        "msPerFrameMedian": \(String(format: "%.3f", median / 1e6)),
        "nsPerEvaluation": \(String(format: "%.1f", perEval)),
        "shareOf120HzFrame": \(String(format: "%.3f", perFrame / 1e9 * 120))
      },
      "layersTypedEntryPoints": {
        "api": "pointValue / doubleValue / transformValue(forKeyPathAt:at:underlying:)",
        "msPerFrame": \(String(format: "%.3f", typedTimes[0] / 1e6)),
        "msPerFrameMedian": \(String(format: "%.3f", typedTimes[typedTimes.count / 2] / 1e6)),
        "nsPerEvaluation": \(String(format: "%.1f", typedTimes[0] / Double(layers * 3))),
        "shareOf120HzFrame": \(String(format: "%.3f", typedTimes[0] / 1e9 * 120))
      },
      "checksum": \(String(format: "%.3f", sink.truncatingRemainder(dividingBy: 1e6)))
    }
    """)
}

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) in nanoseconds.
private func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
