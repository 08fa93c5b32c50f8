@testable import LaminaRender
import Testing

/// The render loop's schedule as a pure value (no GPU, no clock): times in, steps out. The
/// rate is 64 frames a second, so the interval (1/64 s) and its multiples are exact in binary
/// and deadlines compare exactly. Expected deadlines are worked out from the documented rule:
/// each is one interval after the previous one.
@Suite struct FramePacingTests {
    static let fps = 64.0
    static let interval = 1.0 / 64
    static let start = 10.0

    static func offscreen(realtime: Bool = true) -> FramePacing {
        FramePacing(fps: fps, renderThreadPaces: nil, realtime: realtime, start: start)
    }

    @Test func deadlinesFollowEachOtherNotTheFramesEnd() {
        var p = Self.offscreen()
        // Each frame ends some time into its interval; the next deadline is still k intervals
        // after the start.
        for k in 1 ... 8 {
            let now = Self.start + Double(k - 1) * Self.interval + 0.004
            let step = p.afterFrame(rendered: true, minimized: false, now: now, packetsWaiting: false)
            #expect(step == .wait(until: Self.start + Double(k) * Self.interval, dropped: 0))
        }
    }

    @Test func aPacketThatMissedTheFrameGetsOneMoreFrameAtOnce() {
        var p = Self.offscreen()
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start + 0.001, packetsWaiting: true) == .catchUp)
        #expect(p.caughtUp)
        // The catch-up frame is not followed by another, and the schedule did not move.
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start + 0.002, packetsWaiting: true)
                == .wait(until: Self.start + Self.interval, dropped: 0))
        #expect(!p.caughtUp)
        // The next frame may catch up again.
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start + Self.interval + 0.001,
                             packetsWaiting: true) == .catchUp)
    }

    @Test func noCatchUpWithoutAFrameOrWithoutPackets() {
        var p = Self.offscreen()
        #expect(p.afterFrame(rendered: false, minimized: false, now: Self.start, packetsWaiting: true)
                == .wait(until: Self.start + Self.interval, dropped: 0))
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: false)
                == .wait(until: Self.start + 2 * Self.interval, dropped: 0))
    }

    @Test func theInboxIsReadOnlyWhenACatchUpIsPossible() {
        var p = Self.offscreen()
        var reads = 0
        func waiting() -> Bool { reads += 1; return true }
        _ = p.afterFrame(rendered: false, minimized: false, now: Self.start, packetsWaiting: waiting())
        #expect(reads == 0)
        _ = p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: waiting())   // catch-up
        #expect(reads == 1)
        _ = p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: waiting())   // caught up
        #expect(reads == 1)
        var manual = Self.offscreen(realtime: false)
        _ = manual.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: waiting())
        #expect(reads == 1)
    }

    @Test func aFrameMoreThanAnIntervalLateRestartsTheScheduleFromNow() {
        var p = Self.offscreen()
        // Deadline start + 1 interval; now is 3.5 intervals in: 2.5 intervals past the
        // deadline, so 2 deadlines were missed and the schedule restarts at now.
        let now = Self.start + 3.5 * Self.interval
        #expect(p.afterFrame(rendered: true, minimized: false, now: now, packetsWaiting: false)
                == .wait(until: now, dropped: 2))
        #expect(p.afterFrame(rendered: true, minimized: false, now: now + 0.001, packetsWaiting: false)
                == .wait(until: now + Self.interval, dropped: 0))
        // Late by less than an interval past the deadline: kept.
        var q = Self.offscreen()
        let late = Self.start + 1.5 * Self.interval
        #expect(q.afterFrame(rendered: true, minimized: false, now: late, packetsWaiting: false)
                == .wait(until: Self.start + Self.interval, dropped: 0))
    }

    @Test func fifoPresentationPacesByItselfUnlessTheWindowIsMinimized() {
        var p = FramePacing(fps: Self.fps, renderThreadPaces: false, realtime: true, start: Self.start)
        #expect(p.interval == 0)
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: true) == .next)
        // Minimized: nothing is presented, so the schedule paces at the configured rate.
        #expect(p.afterFrame(rendered: true, minimized: true, now: Self.start + 0.001, packetsWaiting: false)
                == .wait(until: Self.start + Self.interval, dropped: 0))
        // A window whose presentation does not pace: the schedule does.
        let q = FramePacing(fps: Self.fps, renderThreadPaces: true, realtime: true, start: Self.start)
        #expect(q.interval == Self.interval)
    }

    @Test func noRateMeansNoScheduleButAMinimizedWindowWaitsASecond() {
        var p = FramePacing(fps: 0, renderThreadPaces: nil, realtime: true, start: Self.start)
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: false) == .next)
        #expect(p.afterFrame(rendered: true, minimized: true, now: Self.start, packetsWaiting: false)
                == .wait(until: Self.start + 1, dropped: 0))
    }

    @Test func aManualClockWaitsToBeWoken() {
        var p = Self.offscreen(realtime: false)
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: true) == .waitForWake)
        #expect(p.deadline == Self.start)
    }

    @Test func afterAnIdleSleepTheScheduleRestartsAtTheWakeUp() {
        var p = Self.offscreen()
        #expect(p.afterFrame(rendered: true, minimized: false, now: Self.start, packetsWaiting: true) == .catchUp)
        let woke = Self.start + 5
        p.restart(at: woke)
        #expect(!p.caughtUp)
        #expect(p.afterFrame(rendered: true, minimized: false, now: woke + 0.001, packetsWaiting: false)
                == .wait(until: woke + Self.interval, dropped: 0))
    }
}
