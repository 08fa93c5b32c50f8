import LaminaAnimation

/// `CATransaction` for one connection: nested transactions that group changes, give them
/// implicit-animation settings and a completion block. Changes made outside any explicit
/// transaction go into the implicit one, sent by `Connection.commit()`.
///
/// CA's transactions belong to a thread; Lamina's belong to a connection, and every call
/// names it. Call them where the connection may be used (its isolation domain).
///
/// ```swift
/// try Transaction.perform(on: connection, duration: 0.5, completion: { print("done") }) {
///     layer.opacity = 0
/// }
/// ```
public enum Transaction {
    /// `CATransaction.begin()`: opens a nested transaction inheriting the current settings.
    public static func begin(on c: Connection) { c.begin() }

    /// `CATransaction.commit()`: closes the innermost transaction; the outermost one sends
    /// every staged change as one commit and blocks until the daemon accepts or rejects it.
    public static func commit(on c: Connection) throws { try c.commitTransaction() }

    /// `commit(on:)`, suspending instead of blocking.
    nonisolated(nonsending) public static func commit(on c: Connection) async throws {
        try await c.commitTransaction()
    }

    /// `CATransaction.setAnimationDuration(_:)` for the innermost transaction.
    public static func setAnimationDuration(_ seconds: Double, on c: Connection) { c.setAnimationDuration(seconds) }
    /// `CATransaction.setAnimationTimingFunction(_:)`.
    public static func setAnimationTimingFunction(_ f: TimingFunction, on c: Connection) { c.setAnimationTimingFunction(f) }
    /// `CATransaction.setDisableActions(_:)`.
    public static func setDisableActions(_ disabled: Bool, on c: Connection) { c.setDisableActions(disabled) }
    /// CATransition in this transaction (`Connection.addTransition(to:type:subtype:duration:timingFunction:)`):
    /// what it changes inside `layer` passes from the old rendering to the new, `type` from `subtype`'s side.
    public static func transition(_ layer: Layer, type: ContentTransition.Kind, subtype: ContentTransition.Subtype = .fromLeft,
                                  duration: Double? = nil, timingFunction: TimingFunction? = nil, on c: Connection) {
        c.addTransition(to: layer, type: type, subtype: subtype, duration: duration, timingFunction: timingFunction)
    }
    /// Matched geometry in this transaction (`Connection.match(from:to:)`).
    public static func match(from: Layer, to: Layer, on c: Connection) { c.match(from: from, to: to) }
    /// `CATransaction.setCompletionBlock(_:)`; see `Connection.setCompletionBlock` (set again in
    /// the same transaction, it replaces the block set before, which never runs).
    @discardableResult
    public static func setCompletionBlock(on c: Connection, _ block: @escaping CompletionBlock) -> UInt32 {
        c.setCompletionBlock(block)
    }

    /// Runs `body` in a nested transaction with the given settings, then commits it (the
    /// outermost one blocks until the daemon answers).
    public static func perform(on c: Connection, duration: Double? = nil, timingFunction: TimingFunction? = nil,
                               disableActions: Bool? = nil, completion: CompletionBlock? = nil,
                               _ body: () throws -> Void) throws {
        c.begin(duration: duration, timingFunction: timingFunction, disableActions: disableActions, completion: completion)
        do { try body() } catch {
            try c.commitTransaction()
            throw error
        }
        try c.commitTransaction()
    }

    /// `perform`, suspending instead of blocking.
    nonisolated(nonsending) public static func perform(on c: Connection, duration: Double? = nil,
                                                       timingFunction: TimingFunction? = nil, disableActions: Bool? = nil,
                                                       completion: CompletionBlock? = nil,
                                                       _ body: () throws -> Void) async throws {
        c.begin(duration: duration, timingFunction: timingFunction, disableActions: disableActions, completion: completion)
        do { try body() } catch {
            try await c.commitTransaction()
            throw error
        }
        try await c.commitTransaction()
    }
}

extension Connection {
    /// `CATransaction.begin()`: opens a nested transaction that inherits the current settings.
    public func begin() { transactions.begin() }

    func begin(duration: Double?, timingFunction: TimingFunction?, disableActions: Bool?, completion: CompletionBlock?) {
        begin()
        if let duration { setAnimationDuration(duration) }
        if let timingFunction { setAnimationTimingFunction(timingFunction) }
        if let disableActions { setDisableActions(disableActions) }
        if let completion { setCompletionBlock(completion) }
    }

    /// `CATransaction.commit()`: closes the innermost transaction, restoring its parent's
    /// settings; the outermost one sends all staged changes as one commit and blocks for it.
    public func commitTransaction() throws {
        if closeTransaction() { try sendCommit() }
    }

    nonisolated(nonsending) public func commitTransaction() async throws {
        if closeTransaction() { try await sendCommit() }
    }

    /// `CATransaction.setAnimationDuration(_:)` for the innermost transaction.
    public func setAnimationDuration(_ seconds: Double) { transactions.setAnimationDuration(seconds) }
    /// `CATransaction.setAnimationTimingFunction(_:)`.
    public func setAnimationTimingFunction(_ f: TimingFunction) { transactions.setTimingFunction(f) }
    /// `CATransaction.setDisableActions(_:)`.
    public func setDisableActions(_ disabled: Bool) { transactions.setDisableActions(disabled) }

    /// `CATransaction.setCompletionBlock(_:)`: `block` runs once every animation started by
    /// changes made after this call in the innermost transaction (and those nested in it) has
    /// ended or been removed; at the frame that applies the commit when there are none. It
    /// runs on the actor it was formed on, else on the connection's delivery context (see
    /// `Connection`). If the commit is rejected it never runs.
    ///
    /// A transaction has one completion block, as in Core Animation: calling this again in the
    /// same transaction replaces the block set before, which then never runs (and is released);
    /// the new block waits for the changes made after this call.
    /// - Returns: the completion id (`ConnectionEvent.transactionCompleted` carries it).
    @discardableResult
    public func setCompletionBlock(_ block: @escaping CompletionBlock) -> UInt32 {
        if let replaced = transactions.completionID { removeCompletion(replaced) }
        let id = transactions.setCompletion()
        addCompletion(id, block)
        return id
    }

    /// Runs `body` in a nested transaction with the given settings (`Transaction.perform`).
    public func transaction(duration: Double? = nil, timingFunction: TimingFunction? = nil,
                            disableActions: Bool? = nil, completion: CompletionBlock? = nil,
                            _ body: () throws -> Void) throws {
        try Transaction.perform(on: self, duration: duration, timingFunction: timingFunction,
                                disableActions: disableActions, completion: completion, body)
    }

    /// `transaction`, suspending instead of blocking (chosen in an `async` context: `try await
    /// c.transaction(duration: 0.5) { … }`).
    nonisolated(nonsending) public func transaction(duration: Double? = nil, timingFunction: TimingFunction? = nil,
                                                    disableActions: Bool? = nil, completion: CompletionBlock? = nil,
                                                    _ body: () throws -> Void) async throws {
        try await Transaction.perform(on: self, duration: duration, timingFunction: timingFunction,
                                      disableActions: disableActions, completion: completion, body)
    }
}
