import LaminaAnimation
import Testing

@Test func keyframeTracksLastAsLongAsTheLongestTrack() throws {
    // opacity: from the model value (0.5) to 1 over 0.5 s, then to 0 over 0.5 s (ends at 1 s);
    // position.x: jump to 10, then to 20 over 2 s. The whole lasts 2 s.
    let a = try compiled(.keyframeTracks(KeyframeTracksAnimation(tracks: [
        KeyframeTrack(keyPath: "opacity", keyframes: [.linear(.double(1), duration: 0.5), .linear(.double(0), duration: 0.5)]),
        KeyframeTrack(keyPath: "position.x", keyframes: [.move(.double(10)), .linear(.double(20), duration: 2)]),
    ], timing: AnimationTiming(fillMode: .forwards))))
    #expect(near(a.endTime, 2))
    #expect(a.keyPaths == ["opacity", "position.x"])
    func v(_ k: Int, _ t: Double, _ u: Double) -> Double? {
        guard case .double(let x)? = a.value(forKeyPathAt: k, at: t, underlying: .double(u)) else { return nil }
        return x
    }
    #expect(near(v(0, 0.25, 0.5), 0.75))    // 0.5 + (1 − 0.5)·½
    #expect(near(v(0, 0.75, 0.5), 0.5))     // 1 + (0 − 1)·½
    #expect(near(v(0, 1.5, 0.5), 0))        // track ended: holds its last value
    #expect(near(v(1, 0, 3), 10))           // move keyframe: immediately 10
    #expect(near(v(1, 1, 3), 15))           // 10 + 10·½
    #expect(near(v(1, 5, 3), 20))           // filled forwards
}

@Test func cubicAndSpringKeyframes() throws {
    // Cubic keyframes 10 then 20 from 0 (1 s each): segment 0 at ½ uses neighbours
    // (0, 0, 10, 20) with weights (−1/16, 9/16, 9/16, −1/16) → 90/16 − 20/16 = 4.375.
    let a = try compiled(.keyframeTracks(KeyframeTracksAnimation(tracks: [
        KeyframeTrack(keyPath: "opacity", keyframes: [.cubic(.double(10), duration: 1), .cubic(.double(20), duration: 1)]),
    ])))
    #expect(near(double(a, 0.5, underlying: 0), 4.375))
    #expect(near(double(a, 1, underlying: 0), 10))
    // A spring keyframe reaches its value at the end of its duration and is a spring curve
    // before: the spring (d 1, bounce 0.3) over its settling time, scaled to 1 s.
    let b = try compiled(.keyframeTracks(KeyframeTracksAnimation(tracks: [
        KeyframeTrack(keyPath: "opacity", keyframes: [.spring(.double(10), duration: 1, bounce: 0.3)]),
    ], timing: AnimationTiming(fillMode: .forwards))))
    let s = Spring(perceptualDuration: 1, bounce: 0.3)
    #expect(near(double(b, 0.3, underlying: 0), 10 * s.value(at: 0.3 * s.settlingDuration), 1e-9))
    #expect(near(double(b, 1, underlying: 0), 10))
}

@Test func phasesStepThroughAndLoop() throws {
    // A (opacity 0) → B (1, linear 1 s) → C (0.5, linear 0.5 s) → back to A (linear 0.25 s):
    // a 1.75 s cycle, looping.
    let phases = [
        Phase(values: ["opacity": .double(0)], curve: .linear, duration: 0.25),
        Phase(values: ["opacity": .double(1)], curve: .linear, duration: 1),
        Phase(values: ["opacity": .double(0.5)], curve: .linear, duration: 0.5),
    ]
    let a = try compiled(.phases(PhaseAnimation(phases: phases)))
    #expect(a.endTime == .infinity)
    #expect(near(double(a, 0), 0))                  // starts at the first phase
    #expect(near(double(a, 0.5), 0.5))              // A→B halfway
    #expect(near(double(a, 1.25), 0.75))            // B→C: 1 + (0.5 − 1)·½
    #expect(near(double(a, 1.625), 0.25))           // C→A: 0.5 − 0.5·½
    #expect(near(double(a, 1.75 + 0.5), 0.5))       // second cycle
    // Once per trigger: one cycle, then it ends back at the first phase.
    let once = try compiled(.phases(PhaseAnimation(phases: phases, repeats: false,
                                                   timing: AnimationTiming(fillMode: .forwards))))
    #expect(near(once.endTime, 1.75))
    #expect(near(double(once, 3), 0))
    // A spring transition without a duration lasts its settling duration.
    let sp = try compiled(.phases(PhaseAnimation(phases: [
        Phase(values: ["opacity": .double(0)], curve: .linear, duration: 0),
        Phase(values: ["opacity": .double(1)], curve: .spring(Spring(mass: 1, stiffness: 100, damping: 10))),
    ], repeats: false)))
    #expect(abs(sp.endTime - 1.4727) < 5e-5)
}
