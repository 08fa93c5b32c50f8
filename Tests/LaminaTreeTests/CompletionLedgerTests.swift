import LaminaAnimation
@testable import LaminaTree
import Testing
import LaminaModel

/// The render tree's count of running animations per completion id holds only what can still
/// fire: a completion id that animations carry but that is never declared (the client replaced
/// the transaction's completion block) leaves nothing behind once they end.
@Suite struct CompletionLedgerTests {
    @Test func anUndeclaredCompletionLeavesNoCountBehind() throws {
        var t = try AnimationTreeTests().scene()   // client 1's layer 1, made at t = 0
        // Ids 4 (replaced, never declared) and 5 (declared) on a 1 s animation.
        let move = Animation.basic(BasicAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                                  timing: AnimationTiming(duration: 1)))
        try t.apply(Commit(client: 1, content: .operations([
            .setTransaction(TransactionSettings(completionIDs: [4, 5])),
            .addAnimation(1, key: "a", animation: move), .completion(5),
        ])), at: 0)
        #expect(t.completionCounts.count == 2)
        _ = t.takeEvents()
        t.advance(to: 2)
        #expect(t.takeEvents().contains(.transactionCompleted(client: 1, id: 5)))
        #expect(t.completionCounts.isEmpty)
        #expect(t.declaredCompletions.isEmpty)
    }
}
