import Foundation
import Lamina
import LaminaAnimation
import LaminaServer
import Synchronization
import Testing
import LaminaModel
import DaemonTestSupport

/// The client library gets the protocol's answers at the protocol's moments
/// (docs/protocol.md, "Errors"; the API documentation of `Layer.add(_:forKey:)`,
/// `Connection.commit()` and the typed setters): a bad value set through a typed accessor
/// fails the commit with `invalidValue`; what an animation alone decides fails when it arrives
/// (a `requestFailed` event) and the commit with `transactionFailed`; what needs the layer fails
/// the commit with `invalidAnimation`.
@Suite(.serialized) struct ClientProtocolAnswersTests {
    /// The commit's error code and the failed request's key, and the codes of the
    /// errors that came at once (`pendingErrors`, `ConnectionEvent.requestFailed`).
    /// Commits; returns the error's code and failed key, and the codes of the errors that
    /// came at once for its staged requests (`pendingErrors`, filled by the reader before it
    /// reads the commit's reply).
    static func commitFailure(_ c: Connection) async -> (code: ErrorCode?, key: String?, atOnce: [ErrorCode]) {
        let before = c.pendingErrors.count
        do {
            try await c.commit()
            return (nil, nil, [])
        } catch let e as LaminaError {
            return (e.code, e.failedRequest?.key, c.pendingErrors.dropFirst(before).map(\.code))
        } catch {
            return (nil, nil, [])
        }
    }

    @Test func theClientGetsTheDocumentsAnswers() async throws {
        let daemon = try TestDaemon.make()
        defer { daemon.stop() }
        let c = try Connection(socketPath: daemon.socketPath, name: "answers")
        let l = c.makeLayer()
        l.bounds = Rect(0, 0, 10, 10)
        c.root.addSublayer(l)
        try await c.commit()

        // A frame of negative size, as bounds: invalidValue at commit, and nothing changes.
        l.frame = Rect(0, 0, 10, -4)
        var r = await Self.commitFailure(c)
        #expect(r.code == .invalidValue && r.key == "frame" && r.atOnce.isEmpty)
        #expect(l.bounds == Rect(0, 0, 10, 10))

        // A spring with damping 0: the JSON alone decides — at once, then transactionFailed.
        l.add(.spring(SpringAnimation(keyPath: "opacity", from: .double(0), to: .double(1),
                                      spring: Spring(mass: 1, stiffness: 100, damping: 0))), forKey: "s")
        r = await Self.commitFailure(c)
        #expect(r.code == .transactionFailed && r.atOnce == [.invalidAnimation])

        // Descending key times: the same.
        l.add(.keyframe(KeyframeAnimation(keyPath: "opacity", values: [.double(0), .double(1), .double(0)],
                                          keyTimes: [0, 0.8, 0.5])), forKey: "k")
        r = await Self.commitFailure(c)
        #expect(r.code == .transactionFailed && r.atOnce == [.invalidAnimation])

        // An unset custom property: the layer decides — invalidAnimation at commit.
        l.add(.basic(BasicAnimation(keyPath: "custom.phase", from: .double(0), to: .double(1))), forKey: "c")
        r = await Self.commitFailure(c)
        #expect(r.code == .invalidAnimation && r.key == "c" && r.atOnce.isEmpty)

        // An expression whose layer name is not an identifier: at once.
        c.stageOperation(.addExpression(l.id, key: "e", expression: ExpressionAnimation(keyPath: "opacity", expression: "1", layers: ["a-b": l.id])))
        r = await Self.commitFailure(c)
        #expect(r.code == .transactionFailed && r.atOnce == [.invalidAnimation])

        // The connection stays usable.
        l.opacity = 0.5
        try await c.commit()
    }
}
