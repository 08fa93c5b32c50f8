import Foundation
import LaminaWire
import Synchronization

/// Says so, once per request kind, when a blocking form blocks the main actor in async code.
///
/// Swift chooses between a blocking method and its `async` overload by the context: async
/// code gets the async form. Top-level code in `main.swift` is the exception: the compiler
/// treats each top-level statement as synchronous when it chooses, so there `try await
/// connection.commit()` calls the **blocking** `commit()` (the `await` only draws the warning
/// "no 'async' operations occur within 'await' expression"), as do `Transaction.perform`,
/// `connection.transaction`, `ping`, `currentTime` … No library declaration can change that
/// choice, so the library makes it loud instead of silent: a blocking round trip made on the
/// main thread inside a task (top-level async code, or a synchronous helper called from
/// `@MainActor` async code) prints one line on standard error naming the request and the
/// remedy — the code in an async function (`@main struct App { static func main() async
/// throws { … } }`), where `await` gets the suspending forms. Callbacks the connection runs
/// (a `@MainActor` pointer handler calling `commit()`) are not reported: a synchronous
/// callback has only the blocking forms.
enum BlockingCheck {
    /// True inside the connection's delivery task (its callbacks).
    @TaskLocal static var inCallback = false

    /// The request names reported so far, and where reports go (standard error; tests
    /// replace it).
    static let state = Mutex<(reported: Set<String>, sink: @Sendable (String) -> Void)>(
        ([], { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }))

    /// Called by every blocking round trip before it blocks.
    static func willBlock(_ request: Request) {
        guard Thread.isMainThread, !inCallback, withUnsafeCurrentTask(body: { $0 != nil }) else { return }
        let name = Request.name(ofOpcode: request.opcode)
        let sink: (@Sendable (String) -> Void)? = state.withLock { s in
            s.reported.insert(name).inserted ? s.sink : nil
        }
        sink?(message(name))
    }

    static func message(_ name: String) -> String {
        "lamina: the blocking form of `\(name)` blocked the main actor in async code. At top level in "
            + "main.swift Swift picks the blocking overload even after `await`; move the code into an async "
            + "function (`@main struct App { static func main() async throws { … } }`) to get the suspending "
            + "form (docs/swift-client.md, \"Top-level code\")."
    }
}
