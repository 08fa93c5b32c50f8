import Foundation
import LaminaGeometry
import LaminaServer
import LaminaTree
import LaminaWire
import Testing
import TestSupport
import LaminaModel

/// Mutation fuzzing of the daemon's real path for a client's bytes: `ServerCore` (decoder,
/// session, staging, limits, parked queries) and `ModelTree` validation, with frames made by
/// `FrameDriver` — the embedded daemon, wired as laminad wires them. Beside the fuzzed client
/// a well-behaved one holds a red square.
///
/// Invariants, for every input: nothing traps (the embedded daemon also checks that every
/// byte the daemon writes decodes); the other client's square is still hit where it was and
/// answers its queries; once the fuzzed client hangs up the daemon's tree is exactly what it
/// was before that client connected (nothing partial stays).
///
/// Every input in `FuzzCorpus/` (those the long runs found, and the seeds) is replayed as a
/// regression test. `scripts/fuzz-protocol SECONDS` runs long: it names the input being run
/// in `LAMINA_FUZZ_CURRENT`, so a crash's input can be kept in the corpus.
@Suite struct ServerFuzzTests {
    static var seconds: Double {
        ProcessInfo.processInfo.environment["LAMINA_FUZZ_SECONDS"].flatMap(Double.init) ?? 1.0
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FuzzCorpus")

    /// `ProtocolFuzzTests.seedStream` and the requests it lacks: settings and completions,
    /// animations (valid and not), queries, the clock, a capture, a second commit.
    static func seed(_ rng: inout SeededRandom) -> [UInt8] {
        var s = ProtocolFuzzTests.seedStream(&rng)
        var id: UInt32 = 5000
        func msg(_ r: Request) { id += 1; s += MessageEncoder.encode(r, requestID: id) }
        let layer = UInt32(1 + rng.below(12))
        msg(.createLayer(id: 40, kind: .shape))
        msg(.addSublayer(parent: 0, child: 40))
        msg(.setTransaction(TransactionSettings(duration: 0.5, timingFunction: .linear, disableActions: false,
                                                completionIDs: [9])))
        msg(.setProperty(id: layer, keyPath: "opacity", value: .number(0.3)))
        msg(.addAnimation(id: 40, key: "k", json: #"{"type":"basic","keyPath":"strokeEnd","from":0,"to":1,"duration":1}"#))
        msg(.addAnimation(id: layer, key: "s", json: #"{"type":"spring","keyPath":"position.x","to":90,"stiffness":100,"damping":10}"#))
        msg(.completion(id: 9))
        msg(.commit)
        msg(.getPresentation(id: 40, keyPath: "strokeEnd"))
        msg(.advanceClock(seconds: 0.25))
        msg(.hitTest(x: 10, y: 10))
        msg(.removeAnimation(id: 40, key: "k"))
        msg(.removeAllAnimations(id: layer))
        msg(.commit)
        msg(.capture(time: 0.1))
        msg(.getTree)
        msg(.getStats)
        msg(.setReduceMotion(rng.below(2) == 0))
        return s
    }

    /// Runs one client's bytes beside a well-behaved client and checks the invariants.
    static func check(_ bytes: [UInt8], _ rng: inout SeededRandom, sourceLocation: SourceLocation = #_sourceLocation) {
        let d = EmbeddedDaemon { c in
            c.maxLayersPerClient = 32
            c.maxPendingOperations = 64
        }
        guard let good = d.connect(name: "good") else { Issue.record("no connection"); return }
        let committed = d.commit([
            .createLayer(id: 1, kind: .layer),
            .setProperty(id: 1, keyPath: "bounds", value: .rect(Rect(0, 0, 20, 20))),
            .setProperty(id: 1, keyPath: "position", value: .point(Point(190, 190))),
            .setProperty(id: 1, keyPath: "backgroundColor", value: .color(Color(1, 0, 0))),
            .addSublayer(parent: 0, child: 1),
        ], from: good)
        guard case .committed = committed else { Issue.record("\(committed)"); return }
        guard case .tree(let before) = d.request(.getTree, from: good) else { Issue.record("no tree"); return }
        guard let fuzz = d.connect(name: "fuzz", hello: false) else { Issue.record("refused"); return }
        var offset = 0
        while offset < bytes.count, !d.closed.contains(fuzz) {
            let n = min(bytes.count - offset, 1 + rng.below(64))
            d.sendRaw(Array(bytes[offset..<offset + n]), from: fuzz)
            offset += n
        }
        _ = d.takeEvents(good)
        // The other client is served and its square is as it set it (the fuzzed client's
        // layers, above it in painter's order, may cover it until that client goes).
        #expect(d.request(.ping(token: 7), from: good) == .pong(token: 7), sourceLocation: sourceLocation)
        #expect(d.request(.getPresentation(id: 1, keyPath: "position"), from: good) == .presentation(value: .point(Point(190, 190))),
                sourceLocation: sourceLocation)
        d.hangUp(fuzz)
        #expect(d.request(.hitTest(x: 195, y: 195), from: good) == .hitResult(.ownLayer, layer: 1),
                "the other client's square", sourceLocation: sourceLocation)
        guard case .tree(let after) = d.request(.getTree, from: good) else { Issue.record("no tree"); return }
        #expect(after == before, "the fuzzed client left something behind", sourceLocation: sourceLocation)
    }

    @Test func mutatedStreamsThroughTheServerCoreLeaveNothingBehind() throws {
        var rng = SeededRandom(seed: 0xF022)
        let current = ProcessInfo.processInfo.environment["LAMINA_FUZZ_CURRENT"]
        let deadline = Date().addingTimeInterval(Self.seconds)
        var iterations = 0
        while Date() < deadline || iterations < 100 {
            let seed = Self.seed(&rng)
            let input = rng.below(8) == 0 ? seed : ProtocolFuzzTests.mutate(seed, &rng)
            if let current { try Data(input).write(to: URL(fileURLWithPath: current)) }
            Self.check(input, &rng)
            iterations += 1
        }
        if current != nil { print("fuzz: \(iterations) inputs through the server core") }
        #expect(iterations >= 100)
    }

    /// Every input in the corpus, as a regression test.
    @Test func theCorpusStillPasses() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".bin") }.sorted()
        #expect(files.count >= 3)
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(name)))
            var rng = SeededRandom(seed: 1)
            Self.check(bytes, &rng)
        }
    }
}
