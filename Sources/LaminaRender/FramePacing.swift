/// When the render thread's next frame is due while something animates: a pure schedule
/// (times in, decisions out; no clock, no lock, no Vulkan), owned by the render thread
/// (`RenderLoop`), tested without a GPU (`FramePacingTests`).
///
/// - **Deadlines from real timestamps.** The next deadline is one interval after the previous
///   one, not after the frame's end, so frame times do not add up; a frame that starts more
///   than an interval late drops the missed deadlines from the schedule and pacing restarts
///   from now.
/// - **Catch-up frame.** A packet that arrived while a frame was being made (just after that
///   frame drained the inbox) is drawn by one more frame at once, not a whole interval later.
///   The schedule stays, and such a frame is never followed by another: at most one more frame
///   per interval, and a commit waits at most an interval less the frame's time for its frame
///   to start.
/// - **Who paces.** With a realtime clock and an interval, this schedule does; with FIFO
///   presentation at the configured rate (`PresentPacing.renderThreadPaces` false) the
///   presentation blocks instead — except while the window is minimized (nothing is presented,
///   so the schedule runs at the configured rate); with a manual clock (tests) the thread waits
///   to be woken.
///
/// Render thread only: a value the loop keeps.
struct FramePacing: Equatable {
    /// What the render thread does after a frame while the scene keeps changing.
    enum Step: Equatable {
        /// Make the next frame at once (the catch-up frame).
        case catchUp
        /// Wait until `deadline` (real seconds; a stop cuts the wait short), then make the next
        /// frame. `dropped` deadlines were missed and left out of the schedule.
        case wait(until: Double, dropped: Int)
        /// Manual clock: wait until woken (a packet, a frame request, a stop).
        case waitForWake
        /// Nothing to wait for: presentation paces (FIFO at the configured rate).
        case next
    }

    /// Seconds between frames when this schedule paces; 0 when presentation does.
    let interval: Double
    /// The configured rate (frames per second; a minimized window is paced at it).
    let fps: Double
    /// Whether time is real (false: a manual clock, which tests advance).
    let realtime: Bool
    /// The current frame's deadline (real seconds).
    private(set) var deadline: Double
    /// Whether the last frame was a catch-up frame (so the next one waits).
    private(set) var caughtUp = false

    /// - Parameters:
    ///   - fps: the configured frames per second (0 or less: presentation or nothing paces).
    ///   - renderThreadPaces: false when FIFO presentation at the configured rate blocks the
    ///     thread by itself (`PresentPacing.renderThreadPaces`); nil without a window.
    ///   - realtime: whether the compositor clock is real time.
    ///   - start: the real time the schedule starts at.
    init(fps: Double, renderThreadPaces: Bool?, realtime: Bool, start: Double) {
        interval = fps > 0 && renderThreadPaces != false ? 1 / fps : 0
        self.fps = fps
        self.realtime = realtime
        deadline = start
    }

    /// The step after a frame (or a turn that made none) while the scene keeps changing.
    ///
    /// - Parameters:
    ///   - rendered: whether this turn made a frame.
    ///   - minimized: whether the window is minimized (nothing presented: the schedule paces).
    ///   - now: the real time, read only when a deadline is computed.
    ///   - packetsWaiting: whether packets are queued now, read only when a catch-up frame is
    ///     possible (it takes the inbox's lock).
    mutating func afterFrame(rendered: Bool, minimized: Bool, now: @autoclosure () -> Double,
                             packetsWaiting: @autoclosure () -> Bool) -> Step {
        guard realtime else { return .waitForWake }
        guard interval > 0 || minimized else { return .next }
        let interval = interval > 0 ? interval : 1 / max(fps, 1)
        if rendered && !caughtUp && packetsWaiting() {
            caughtUp = true
            return .catchUp
        }
        caughtUp = false
        deadline += interval
        let now = now()
        var dropped = 0
        if now > deadline + interval {
            dropped = Int((now - deadline) / interval)
            deadline = now
        }
        return .wait(until: deadline, dropped: dropped)
    }

    /// Restarts the schedule at `now` after the thread slept with nothing to draw: the frame
    /// that ended the sleep is drawn at once and the next one is due an interval later.
    mutating func restart(at now: Double) {
        caughtUp = false
        deadline = now
    }
}
