@testable import LaminaRender
import LaminaFrame
import Testing

/// The render thread's wait for a frame slot (`FrameTiming.gpuWait`) reaches the frame's phases
/// and the published statistics as its own sum (`FrameStats.gpuWaitSeconds`), apart from the
/// CPU phases. Times are sums of powers of two, so the sums are exact in binary.
@Suite struct SlotWaitStatsTests {
    /// The render loop merges the backend's timing into the frame's phases: the slot wait comes
    /// along with the backend's own phases, and the driver's phases stay as they were.
    @Test func mergeCarriesTheSlotWait() {
        var phases = FramePhases()
        phases.evaluate = 0.5
        var timing = FrameTiming(frameNumber: 3, upload: 0.125, record: 0.0625, submit: 0.03125, gpu: 0.25,
                                 gpuFrameNumber: 1)
        timing.gpuWait = 0.375
        phases.merge(timing)
        #expect(phases.gpuWait == 0.375)
        #expect(phases.upload == 0.125 && phases.record == 0.0625 && phases.submit == 0.03125 && phases.gpu == 0.25)
        #expect(phases.evaluate == 0.5)
        // The wait is no CPU phase: the phase list the stats and traces name leaves it out.
        #expect(phases.values == [0, 0.5, 0, 0.125, 0.0625, 0.03125])
    }

    /// The statistics sum every recorded frame's slot wait since start (not a window's mean), as
    /// they sum its wall time (`busySeconds`), and the JSON carries the sum.
    @Test func statsSumTheSlotWaitSinceStart() {
        var collector = FrameStatsCollector()
        for (i, (total, wait)) in [(0.5, 0.25), (0.25, 0.0), (0.75, 0.125)].enumerated() {
            var p = FramePhases()
            p.total = total
            p.gpuWait = wait
            collector.record(start: Double(i), phases: p)
        }
        let stats = collector.summary(targetFPS: 60, time: 2, layers: 1)
        #expect(stats.gpuWaitSeconds == 0.375)
        #expect(stats.busySeconds == 1.5)
        #expect(stats.json.contains(#""gpuWaitSeconds": 0.3750"#))
        #expect(FrameStatsCollector().summary(targetFPS: 60, time: 0, layers: 0).gpuWaitSeconds == 0)
    }
}
