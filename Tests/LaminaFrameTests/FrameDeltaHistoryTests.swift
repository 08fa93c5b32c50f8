import Testing
@testable import LaminaFrame

/// `FrameDeltaHistory.delta`: where the newest list differs from an older one its ring holds,
/// and whether writing only that is worth it (at most three quarters of writing every item, a
/// motion-only item a quarter of a whole one).
struct FrameDeltaHistoryTests {
    /// Lists 1…`changes.count + 1`, each after the first patched from the one
    /// before with `changes[k]` (rewritten, motion-only ranges).
    private func history(_ changes: [([Range<Int>], [Range<Int>])]) -> FrameDeltaHistory {
        var history = FrameDeltaHistory(capacity: 8)
        var first = DrawList(width: 4, height: 4)
        first.serial = 1
        history.note(first)
        for (k, change) in changes.enumerated() {
            var list = DrawList(width: 4, height: 4)
            list.serial = UInt64(k + 2)
            list.delta = FrameDelta(base: UInt64(k + 1), rewritten: change.0, motionOnly: change.1, hasMarkers: false)
            history.note(list)
        }
        return history
    }

    /// The same 10 of 12 items changed by three lists in a row (two whole, eight in motion
    /// only): each item counts once, 4 × 2 + 8 = 16 ≤ 3 × 12, though the lists' costs add up to
    /// 48 — the delta from list 1 is those ranges.
    @Test func itemsChangedByEachListCountOnce() throws {
        var history = history(Array(repeating: ([0..<10], [0..<8]), count: 3))
        let found = history.delta(since: 1, items: 12)
        let delta = try #require(found)
        #expect(delta.base == 1)
        #expect(delta.rewritten == [8..<10])
        #expect(delta.motionOnly == [0..<8])
    }

    /// An item moved by one list and rewritten by the next is written whole.
    @Test func rewrittenWinsOverMotion() throws {
        var history = history([([0..<4], [0..<4]), ([2..<3], [])])
        let found = history.delta(since: 1, items: 12)
        let delta = try #require(found)
        #expect(delta.rewritten == [2..<3])
        #expect(delta.motionOnly == [0..<2, 3..<4])
    }

    /// Two lists rewriting disjoint halves: together every item whole, 4 × 12 > 3 × 12, so
    /// none (every item is written); from list 2, one half, 4 × 6 ≤ 36.
    @Test func unionPastTheBoundIsNone() {
        var history = history([([0..<6], []), ([6..<12], [])])
        #expect(history.delta(since: 1, items: 12) == nil)
        #expect(history.delta(since: 2, items: 12)?.rewritten == [6..<12])
    }
}
