@testable import LaminaRender
import Testing

/// The render loop's idle memory ladder as a pure value (no GPU, no clock): idle time in,
/// releases out. Expected values come from the documented delays: 250 ms idle, then 750 ms
/// more (one second in all).
@Suite struct IdlePolicyTests {
    typealias Release = IdlePolicy.Release

    @Test func theDefaultLadder() {
        let policy = IdlePolicy()
        #expect(policy.atSleep == .spareSlots)
        #expect(policy.rungs == [IdlePolicy.Rung(delay: 0.25, releases: [.appliedPackets, .driverScratch, .heapTrim]),
                                 IdlePolicy.Rung(delay: 0.75, releases: [.lastSlot, .heapTrim])])
        #expect(policy.dueTimes == [0.25, 1.0])
        #expect(RenderLoop.idleReleaseDelay == 0.25)
        #expect(RenderLoop.idleRingReleaseDelay == 0.75)
    }

    @Test func whatIsReleasedAfterHowLongIdle() {
        let policy = IdlePolicy()
        let first: Release = [.spareSlots, .appliedPackets, .driverScratch, .heapTrim]
        #expect(policy.released(afterIdle: 0) == .spareSlots)
        #expect(policy.released(afterIdle: 0.2499) == .spareSlots)
        #expect(policy.released(afterIdle: 0.25) == first)
        #expect(policy.released(afterIdle: 0.9999) == first)
        #expect(policy.released(afterIdle: 1.0) == first.union(.lastSlot))
        #expect(policy.released(afterIdle: 3600) == first.union(.lastSlot))
    }

    @Test func rungsInOrderThenSleepUntilWoken() {
        let policy = IdlePolicy()
        #expect(policy.rung(after: 0)?.delay == 0.25)
        #expect(policy.rung(after: 1)?.delay == 0.75)
        #expect(policy.rung(after: 2) == nil)
    }

    @Test func withoutDriverScratchReleaseTheFirstRungStillDropsPacketsAndTrims() {
        let policy = IdlePolicy(releasesDriverScratch: false)
        #expect(policy.rungs.first?.releases == [.appliedPackets, .heapTrim])
        #expect(!policy.released(afterIdle: 3600).contains(.driverScratch))
        #expect(policy.released(afterIdle: 3600).contains(.lastSlot))
    }

    @Test func withoutIdleRingReleaseTheLadderEndsAtTheFirstRung() {
        let policy = IdlePolicy(releasesIdleRings: false)
        #expect(policy.dueTimes == [0.25])
        #expect(policy.rung(after: 1) == nil)
        #expect(policy.released(afterIdle: 3600) == [.spareSlots, .appliedPackets, .driverScratch, .heapTrim])
    }

    @Test func delaysAreTheCallersToChoose() {
        let policy = IdlePolicy(releaseDelay: 0.5, ringReleaseDelay: 2)
        #expect(policy.dueTimes == [0.5, 2.5])
        #expect(policy.released(afterIdle: 2.4) == [.spareSlots, .appliedPackets, .driverScratch, .heapTrim])
        #expect(policy.released(afterIdle: 2.5).contains(.lastSlot))
    }
}
