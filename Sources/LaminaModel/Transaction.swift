import LaminaAnimation

/// The transaction settings in force for a change (CATransaction's animationDuration,
/// animationTimingFunction, disableActions, and the completions waiting for it).
public struct TransactionSettings: Hashable, Sendable {
    /// Implicit animations' duration (CA default 0.25 s). 0 makes no implicit animation.
    public var duration: Double
    /// Implicit animations' timing function (CA default easeInEaseOut).
    public var timingFunction: TimingFunction
    /// No implicit animations (CATransaction.disableActions).
    public var disableActions: Bool
    /// Ids of the enclosing transactions' completions (outermost first): each waits for the
    /// animations this change starts.
    public var completionIDs: [UInt32]

    public init(duration: Double = 0.25, timingFunction: TimingFunction = .easeInEaseOut,
                disableActions: Bool = false, completionIDs: [UInt32] = []) {
        self.duration = duration; self.timingFunction = timingFunction
        self.disableActions = disableActions; self.completionIDs = completionIDs
    }

    public static let `default` = TransactionSettings()

    /// Whether a change under these settings runs actions (implicit animations, a contents
    /// cross-fade) on a layer not created in the same commit: the one rule the model tree (which
    /// batches changes that cannot start anything) and the render tree (which starts them) share.
    public var runsActions: Bool { !disableActions && duration > 0 }
}

/// CATransaction's nesting as a state machine with no I/O (the client library drives it).
///
/// Level 0 is the implicit transaction. `begin()` pushes a level that inherits its parent's
/// settings; setters change the innermost level; `commit()` pops it, restoring the parent's
/// settings. Changes are tagged with `settingsChange()` before they are staged. A completion
/// is declared (`LayerChange.completion`) when its transaction commits, after its changes; the
/// outermost explicit commit asks for the packet to be sent.
public struct TransactionStack: Sendable {
    public enum Action: Hashable, Sendable {
        /// Stage this operation (a completion declaration).
        case stage(LayerChange)
        /// Send the staged operations as one commit packet.
        case sendCommit
    }

    private struct Level: Sendable {
        var settings: TransactionSettings
        var completionID: UInt32?
    }

    private var levels = [Level(settings: .default, completionID: nil)] { didSet { settingsMayDiffer = true } }
    private var staged = TransactionSettings.default { didSet { settingsMayDiffer = true } }
    /// False while the settings in force are known to be the ones last staged (so that a
    /// client staging many changes does not compare them for each).
    private var settingsMayDiffer = false
    private var nextCompletionID: UInt32 = 1

    public init() {}

    /// Explicit transactions open (0: only the implicit one).
    public var depth: Int { levels.count - 1 }

    /// The settings a change made now gets.
    public var current: TransactionSettings { levels[levels.count - 1].settings }

    public mutating func begin() {
        levels.append(levels[levels.count - 1])
        levels[levels.count - 1].completionID = nil
    }

    public mutating func setAnimationDuration(_ d: Double) { levels[levels.count - 1].settings.duration = max(0, d) }
    public mutating func setTimingFunction(_ f: TimingFunction) { levels[levels.count - 1].settings.timingFunction = f }
    public mutating func setDisableActions(_ b: Bool) { levels[levels.count - 1].settings.disableActions = b }

    /// The innermost transaction's completion id, if it has one.
    public var completionID: UInt32? { levels[levels.count - 1].completionID }

    /// Gives the innermost transaction a completion; returns its id (the event
    /// `transactionCompleted` carries it). Changes made after this in the transaction and its
    /// nested ones are waited for (CA: animations added after the block is set). A transaction
    /// has one completion: setting another replaces the one it had (`completionID` before the
    /// call), which is then never declared.
    public mutating func setCompletion() -> UInt32 {
        let id = nextCompletionID
        nextCompletionID &+= 1
        let i = levels.count - 1
        if let old = levels[i].completionID { levels[i].settings.completionIDs.removeAll { $0 == old } }
        levels[i].completionID = id
        levels[i].settings.completionIDs.append(id)
        return id
    }

    /// The settings operation to stage before the next change, when they differ from the
    /// last ones staged.
    public mutating func settingsChange() -> LayerChange? {
        guard settingsMayDiffer else { return nil }
        defer { settingsMayDiffer = false }
        let s = current
        guard s != staged else { return nil }
        staged = s
        return .setTransaction(s)
    }

    /// Commits the innermost transaction. Committing the implicit transaction (depth 0) sends
    /// the staged changes too, as a run loop's end does.
    public mutating func commit() -> [Action] {
        var actions: [Action] = []
        if levels.count > 1 {
            let level = levels.removeLast()
            if let id = level.completionID { actions.append(.stage(.completion(id))) }
            // Only the outermost explicit transaction sends the packet.
            guard levels.count == 1 else { return actions }
        }
        // The implicit transaction's turn: send the packet and start afresh.
        if let id = levels[0].completionID { actions.append(.stage(.completion(id))) }
        levels[0] = Level(settings: .default, completionID: nil)
        staged = .default
        actions.append(.sendCommit)
        return actions
    }
}
