import LaminaAnimation
import LaminaRender
import Synchronization
import Testing
import TestSupport

/// The present-mode rule (LaminaRender README, "Window target") and the clock's rate, which
/// the viewer's Space and S keys set. Pure: no window, no GPU.
struct PacingAndClockTests {
    @Test func fifoOnlyWhereTheDisplayRunsAtTheConfiguredRate() {
        let all: Set<PresentMode> = [.fifo, .mailbox, .immediate]
        #expect(PresentPacing.choose(offered: all, displayHz: 120, fps: 120) == .fifo)
        #expect(PresentPacing.choose(offered: all, displayHz: 119.88, fps: 120) == .fifo)      // within 1 %
        #expect(PresentPacing.choose(offered: all, displayHz: 60, fps: 120) == .mailbox)       // FIFO would halve it
        #expect(PresentPacing.choose(offered: all, displayHz: nil, fps: 120) == .mailbox)      // unknown rate
        #expect(PresentPacing.choose(offered: [.fifo, .immediate], displayHz: 60, fps: 120) == .immediate)
        #expect(PresentPacing.choose(offered: [.fifo], displayHz: 60, fps: 120) == .fifoCapped)
        #expect(!PresentPacing.fifo.renderThreadPaces)
        #expect(PresentPacing.mailbox.renderThreadPaces && PresentPacing.immediate.renderThreadPaces
                && PresentPacing.fifoCapped.renderThreadPaces)
    }

    /// A realtime clock on a fake monotonic source: time runs at the rate, stays continuous
    /// at each change, and `realSeconds` ignores the rate.
    @Test func clockRatePausesAndSlowsCompositorTimeContinuously() {
        let manual = ManualClock()
        let clock = manual.clock
        func advance(_ seconds: Double) { manual.advance(seconds) }
        #expect(clock.now == 0 && clock.rate == 1)
        advance(2)
        #expect(clock.now == 2)
        clock.setRate(0)                       // Space: paused at 2
        advance(5)
        #expect(clock.now == 2 && clock.realSeconds == 7)
        clock.setRate(0.1)                     // S while paused → slow from 2
        advance(10)
        #expect(abs(clock.now - 3) < 1e-12)    // 2 + 10 × 0.1
        clock.setRate(1)
        advance(1)
        #expect(abs(clock.now - 4) < 1e-12 && clock.realSeconds == 18)
    }
}
