import Foundation
import LaminaExpression
import LaminaGeometry
@testable import LaminaServer
import LaminaWire
import Testing

/// The expression limits and the frame's step budget come from the daemon's config: the
/// server checks commits with them and the render side spends no more per frame.
@Suite struct ExpressionConfigTests {
    func load(_ json: String) throws -> DaemonConfig {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("laminad-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try DaemonConfig.load(path: path)
    }

    @Test func theLimitsAreRead() throws {
        let c = try load("""
            {"maxExpressionSourceLength": 100, "maxExpressionTokens": 50, "maxExpressionNesting": 4,
             "maxLoopIterations": 20, "maxStepsPerEvaluation": 1000, "maxPathElements": 30, "maxProgramStepsPerFrame": 5000,
             "tileCacheBytes": 4096}
            """)
        #expect(c.tileCacheBytes == 4096)
        #expect(throws: DaemonConfig.ConfigError.self) { try load(#"{"tileCacheBytes": 0}"#) }
        #expect(c.expressionLimits == ExpressionLimits(maxSourceLength: 100, maxTokens: 50, maxNestingDepth: 4,
                                                       maxLoopIterations: 20, maxSteps: 1000, maxPathElements: 30))
        #expect(c.maxProgramStepsPerFrame == 5000)
        // A frame budget below one evaluation's cap could never finish a long template.
        #expect(throws: DaemonConfig.ConfigError.self) { try load(#"{"maxStepsPerEvaluation": 1000, "maxProgramStepsPerFrame": 999}"#) }
        #expect(throws: DaemonConfig.ConfigError.self) { try load(#"{"maxLoopIterations": 0}"#) }
        #expect(throws: DaemonConfig.ConfigError.self) { try load(#"{"maxExpressionNesting": 100000}"#) }
    }

    @Test func commitsAreCheckedAgainstTheConfiguredCaps() throws {
        let d = EmbeddedDaemon { c in
            c.expressionLimits.maxLoopIterations = 20
            c.expressionLimits.maxNestingDepth = 3
        }
        guard let c = d.connect() else { Issue.record("refused"); return }
        _ = d.commit([.createLayer(id: 1, kind: .shape), .addSublayer(parent: 0, child: 1)], from: c)
        // 30 iterations: under the default cap (10,000), over the configured 20.
        let reply = d.commit([.setProperty(id: 1, keyPath: "path", value: .template("for i in 0 ..< 30 { line(i, 0) }"))], from: c)
        guard case .error(_, _, let message, _) = reply else { Issue.record("accepted: \(reply)"); return }
        #expect(message.contains("loop runs 30 times, over the cap of 20 iterations per evaluation"), "\(message)")
        #expect(message.contains("layer 1"))
        // A call and four parentheses: over the configured 3 levels.
        let deep = d.commit([.setProperty(id: 1, keyPath: "path", value: .template("move((((1))), 0)"))], from: c)
        guard case .error(_, _, let m2, _) = deep else { Issue.record("accepted: \(deep)"); return }
        #expect(m2.contains("nesting too deep: more than 3 levels"), "\(m2)")
        // 20 iterations are within it.
        let ok = d.commit([.setProperty(id: 1, keyPath: "path", value: .template("for i in 0 ..< 20 { line(i, 0) }"))], from: c)
        guard case .committed = ok else { Issue.record("\(ok)"); return }
    }

    @Test func theFrameBudgetReachesTheRenderSide() throws {
        let d = EmbeddedDaemon { c in c.maxProgramStepsPerFrame = 123_456 }
        #expect(d.driver.programStepsPerFrame == 123_456)
    }
}
