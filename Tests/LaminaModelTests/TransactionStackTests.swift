import LaminaAnimation
import LaminaModel
import Testing

/// CATransaction's nesting as the client library drives it (`TransactionStack`): settings
/// inherited and restored, staged only when they change. (Its completions, which need a tree
/// to fire, are tested in LaminaTreeTests' `AnimationTreeTests`.)
@Suite struct TransactionStackTests {
    @Test func nestedTransactionsInheritAndRestore() {
        var s = TransactionStack()
        s.begin()
        s.setAnimationDuration(2)
        s.setDisableActions(true)
        s.begin()
        #expect(s.current.duration == 2 && s.current.disableActions)      // inherited
        s.setAnimationDuration(5)
        s.setTimingFunction(.linear)
        #expect(s.current.duration == 5)
        #expect(s.commit() == [])                                         // inner: nothing to send
        #expect(s.current.duration == 2 && s.current.timingFunction == .easeInEaseOut && s.current.disableActions)
        #expect(s.commit() == [.sendCommit])                              // the outermost sends one packet
        #expect(s.current == .default)
    }

    @Test func settingsAreStagedOnlyWhenTheyChange() {
        var s = TransactionStack()
        #expect(s.settingsChange() == nil)
        s.begin(); s.setAnimationDuration(1)
        #expect(s.settingsChange() == .setTransaction(TransactionSettings(duration: 1)))
        #expect(s.settingsChange() == nil)
    }
}
