import Testing
@testable import LaminaFrame

/// `FrameDeltaHistory.delta`: where the newest list differs from an older one a frame slot's
/// ring holds, and whether writing only that is worth it — at most three quarters of writing
/// every item, a whole item costing 4 and a motion-only one 1, each item counted once however
/// many of the lists in between changed it (issue 30: a ring two lists behind, as each of the
/// renderer's two slots holds, patched while the same layers animate every frame).
struct FrameDeltaHistoryTests {
    /// A history of lists 1 … `changes.count + 1` of `items` items, each after the first patched
    /// from the one before with `changes[k]` (rewritten ranges, their motion-only parts).
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

    /// Three lists each rewriting items 0..<10 of 12, 0..<8 of them in motion only (as the
    /// patcher notes a container re-emitted over its moved leaves): each list costs
    /// 4 × 2 + 8 = 16, the three 48 > 3 × 12 = 36, but their union — items 8 and 9 whole, 0..<8
    /// moved — is 16 ≤ 36: the delta from list 1 is that union.
    @Test func itemsChangedByEveryListCountOnce() throws {
        var history = history(Array(repeating: ([0..<10], [0..<8]), count: 3))
        let found = history.delta(since: 1, items: 12)
        let delta = try #require(found)
        #expect(delta.base == 1)
        #expect(delta.rewritten == [8..<10])
        #expect(delta.motionOnly == [0..<8])
    }

    /// An item moved by one list and rewritten by the next is written whole: list 2 moves
    /// 0..<4, list 3 rewrites item 2 — from list 1, item 2 whole and 0, 1, 3 moved.
    @Test func rewrittenWinsOverMotion() throws {
        var history = history([([0..<4], [0..<4]), ([2..<3], [])])
        let found = history.delta(since: 1, items: 12)
        let delta = try #require(found)
        #expect(delta.rewritten == [2..<3])
        #expect(delta.motionOnly == [0..<2, 3..<4])
    }

    /// Two lists rewriting disjoint halves of 12 items: from list 1 every item whole,
    /// 4 × 12 = 48 > 36, so none (every item is written); from list 2 one half, 4 × 6 = 24.
    @Test func unionPastTheBoundIsNone() {
        var history = history([([0..<6], []), ([6..<12], [])])
        let fromFirst = history.delta(since: 1, items: 12), fromSecond = history.delta(since: 2, items: 12)
        #expect(fromFirst == nil)
        #expect(fromSecond?.rewritten == [6..<12])
    }

    /// The bound itself: 9 of 12 items whole is 36 = 3 × 12, patched; 10 (40) is not, and a
    /// list past the bound on its own ends the search however little the others change.
    @Test func theBoundIsThreeQuartersOfEveryItem() {
        var nine = history([([0..<9], [])])
        let nineWhole = nine.delta(since: 1, items: 12)
        #expect(nineWhole?.rewritten == [0..<9])
        var ten = history([([0..<10], [])])
        let tenWhole = ten.delta(since: 1, items: 12)
        #expect(tenWhole == nil)
        var tenThenOne = history([([0..<10], []), ([0..<1], [0..<1])])
        let fromFirst = tenThenOne.delta(since: 1, items: 12), fromSecond = tenThenOne.delta(since: 2, items: 12)
        #expect(fromFirst == nil)
        #expect(fromSecond?.motionOnly == [0..<1])
    }
}
