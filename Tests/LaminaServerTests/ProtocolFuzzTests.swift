import Foundation
import LaminaGeometry
import LaminaServer
import LaminaTree
import LaminaWire
import Testing
import TestSupport
import LaminaModel

/// Mutation fuzzing of everything a hostile client's bytes reach without a socket: the frame
/// decoder, the session state machine and commits applied to a model tree. Valid message
/// streams are mutated (bit flips, byte overwrites with interesting values, truncation,
/// splicing, duplicated ranges, lengths rewritten) and fed in random pieces.
///
/// Invariants: nothing traps; the decoder consumes what it is fed (bounded buffering); a
/// commit either applies whole or leaves the tree exactly as it was.
///
/// CI runs a short seeded pass; `LAMINA_FUZZ_SECONDS=600 scripts/fuzz-protocol` runs long.
@Suite struct ProtocolFuzzTests {
    static var seconds: Double {
        ProcessInfo.processInfo.environment["LAMINA_FUZZ_SECONDS"].flatMap(Double.init) ?? 1.5
    }

    /// A valid session: hello, layers, properties of every value type, hierarchy, commits.
    static func seedStream(_ rng: inout SeededRandom) -> [UInt8] {
        var id: UInt32 = 1
        func msg(_ r: Request) -> [UInt8] { defer { id += 1 }; return MessageEncoder.encode(r, requestID: id) }
        var s = msg(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "fuzz"))
        let values: [(String, PropertyValue)] = [
            ("position", .point(Point(10, 20))), ("bounds", .rect(Rect(0, 0, 50, 40))), ("opacity", .number(0.5)),
            ("backgroundColor", .color(Color(1, 0, 0, 1))), ("borderColor", .color(nil)), ("transform", .transform(.rotation(0.4))),
            ("hidden", .bool(false)), ("fillRule", .string("evenOdd")), ("lineDashPattern", .numbers([2, 3])),
            ("path", .path(Path([.move(.zero), .line(Point(5, 0)), .quad(Point(6, 1), Point(7, 0)), .close]))),
            ("colors", .colors([Color(0, 0, 0), Color(1, 1, 1)])), ("shadowOffset", .size(Size(0, -3))),
        ]
        for _ in 0..<(1 + rng.below(4)) {
            let n = 1 + rng.below(5)
            var made: [UInt32] = []
            for _ in 0..<n {
                let l = UInt32(1 + rng.below(12))
                s += msg(.createLayer(id: l, kind: LayerKind(rawValue: UInt8(rng.below(3)))!))
                made.append(l)
                let (k, v) = values[rng.below(values.count)]
                s += msg(.setProperty(id: l, keyPath: k, value: v))
            }
            for l in made {
                switch rng.below(4) {
                case 0: s += msg(.addSublayer(parent: 0, child: l))
                case 1: s += msg(.insertSublayer(parent: made[rng.below(made.count)], child: l, index: UInt32(rng.below(3))))
                case 2: s += msg(.removeFromSuperlayer(id: l))
                default: s += msg(.deleteLayer(id: l))
                }
            }
            s += msg(.commit)
            if rng.below(3) == 0 { s += msg(.ping(token: rng.next())) }
        }
        return s
    }

    static func mutate(_ input: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var b = input
        let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 12, 11, 13]
        for _ in 0..<(1 + rng.below(6)) where !b.isEmpty {
            let i = rng.below(b.count)
            switch rng.below(7) {
            case 0: b[i] ^= UInt8(1 << rng.below(8))
            case 1: b[i] = interesting[rng.below(interesting.count)]
            case 2: b.removeSubrange(i..<min(b.count, i + 1 + rng.below(16)))
            case 3: b.insert(contentsOf: b[i..<min(b.count, i + 1 + rng.below(32))], at: rng.below(b.count))
            case 4: b = Array(b[..<i])
            case 5:   // rewrite a 32-bit field with an extreme value
                let v: UInt32 = [0, 1, 11, 12, 0xFFFF_FFFF, 0x7FFF_FFFF, UInt32(b.count)][rng.below(7)]
                for k in 0..<4 where i + k < b.count { b[i + k] = UInt8(truncatingIfNeeded: v >> UInt32(8 * k)) }
            default: b.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
            }
        }
        return b
    }

    /// Runs one client's bytes through decoder → session → model tree.
    static func run(_ bytes: [UInt8], _ rng: inout SeededRandom, tree: inout LayerTree) {
        var decoder = FrameDecoder(maxMessageSize: 4096)
        var session = Session(clientID: 7, maxPendingOperations: 64)
        let welcome = Event.welcome(major: 1, minor: 0, clientID: 7, display: DisplayInfo(width: 1, height: 1, scale: 1, refreshRate: 60), clock: .manual, time: 0, reduceMotion: false)
        var offset = 0
        while offset < bytes.count, session.state != .closed {
            let n = min(bytes.count - offset, 1 + rng.below(64))
            decoder.feed(bytes[offset..<offset + n])
            offset += n
            while session.state != .closed, let input = decoder.nextRequest() {
                for action in session.handle(input, welcome: welcome) {
                    guard case .commit(let commit, _) = action else { continue }
                    let before = tree.nodes
                    do { try tree.apply(commit) } catch {
                        #expect(tree.nodes == before, "a rejected commit changed the tree")
                    }
                }
            }
            #expect(decoder.bufferedCount <= 4096 + 64, "the decoder buffers more than one message")
        }
    }

    @Test func mutatedStreamsNeverTrapOrHalfApply() {
        var rng = SeededRandom(seed: 0x5EED)
        let deadline = Date().addingTimeInterval(Self.seconds)
        var iterations = 0
        while Date() < deadline || iterations < 200 {
            var tree = LayerTree(maxLayersPerClient: 32)
            try! tree.apply(Commit(client: 7, content: .connect))
            let seed = Self.seedStream(&rng)
            Self.run(Self.mutate(seed, &rng), &rng, tree: &tree)
            // The unmutated stream must always get through its handshake.
            var clean = LayerTree(maxLayersPerClient: 32)
            try! clean.apply(Commit(client: 7, content: .connect))
            Self.run(seed, &rng, tree: &clean)
            iterations += 1
        }
        #expect(iterations >= 200)
    }
}
