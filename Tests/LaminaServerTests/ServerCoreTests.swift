import LaminaAnimation
import LaminaFrame
import LaminaGeometry
import LaminaServer
import LaminaTree
import LaminaWire
import Testing

/// ServerCore alone, the render side played by hand: a query waits for the snapshot that
/// includes the asking client's commit and the clock's time, and is answered when it comes.
@Suite struct ServerCoreTests {
    static func writes(_ effects: [ServerEffect], to client: UInt32) -> [Event] {
        var d = FrameDecoder()
        for case .write(let c, let bytes) in effects where c == client { d.feed(bytes) }
        var events: [Event] = []
        while case .message(let e, _)? = d.nextEvent() { events.append(e) }
        return events
    }

    static func packets(_ effects: [ServerEffect]) -> [CommitPacket] {
        effects.compactMap { if case .submit(let p) = $0 { p } else { nil } }
    }

    /// A core on the manual clock with the default config, and a render side (100 × 100) to
    /// play by hand.
    static func makeCore() -> (core: ServerCore, driver: FrameDriver, clock: CompositorClock) {
        var config = DaemonConfig()
        config.clock = "manual"
        let clock = CompositorClock(mode: .manual)
        return (ServerCore(config: config, clock: clock, stats: { FrameStats() }),
                FrameDriver(widthPoints: 100, heightPoints: 100, scale: 1, background: .black, targetFPS: 60), clock)
    }

    @Test func aQueryIsParkedUntilTheFrameWithItsCommitIsPublished() {
        var (core, driver, clock) = Self.makeCore()
        guard case .accepted(let c, let connect) = core.connect() else { Issue.record("refused"); return }
        var queued = Self.packets(connect)
        func bytes(_ requests: [Request]) -> [UInt8] {
            requests.enumerated().flatMap { MessageEncoder.encode($0.element, requestID: UInt32($0.offset + 1)) }
        }
        _ = core.receive(bytes([.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "q")]), from: c)
        // The render side draws the connect: the first snapshot.
        let first = driver.frame(applying: queued, at: clock.now).snapshot
        queued = []
        _ = core.snapshotPublished(first)
        // A commit making layer 1 at opacity 0.25, then a query of it in the same read.
        var effects = core.receive(bytes([.createLayer(id: 1, kind: .layer),
                                          .setProperty(id: 1, keyPath: "opacity", value: .number(0.25)),
                                          .commit, .getPresentation(id: 1, keyPath: "opacity")]), from: c)
        queued = Self.packets(effects)
        #expect(queued.count == 1)
        #expect(Self.writes(effects, to: c).count == 1, "only `committed`: the query waits")
        #expect(effects.contains { if case .requestFrame = $0 { true } else { false } })
        #expect(core.parkedQueries == 1)
        // A snapshot older than the commit (the same frame again) does not answer it.
        #expect(Self.writes(core.snapshotPublished(first), to: c).isEmpty && core.parkedQueries == 1)
        // The frame that applies the commit answers it with the committed value.
        let second = driver.frame(applying: queued, at: clock.now).snapshot
        effects = core.snapshotPublished(second)
        #expect(Self.writes(effects, to: c) == [.presentation(value: .number(0.25))])
        #expect(core.parkedQueries == 0)
        // A manual clock advance: a query now needs a snapshot of the new time.
        _ = core.receive(bytes([.advanceClock(seconds: 1)]), from: c)
        effects = core.receive(bytes([.hitTest(x: 1, y: 1)]), from: c)
        #expect(Self.writes(effects, to: c).isEmpty && core.parkedQueries == 1)
        effects = core.snapshotPublished(driver.frame(applying: [], at: clock.now).snapshot)
        #expect(Self.writes(effects, to: c) == [.hitResult(.none, layer: 0)])
        // An up-to-date snapshot answers at once.
        effects = core.receive(bytes([.getPresentation(id: 1, keyPath: "opacity")]), from: c)
        #expect(Self.writes(effects, to: c) == [.presentation(value: .number(0.25))])
    }

    /// A commit's packet carries the transaction's size on the wire (frame traces show it): its
    /// staged requests' messages and the commit's, headers included — not a query sent between
    /// them, and the next transaction counts afresh.
    @Test func aPacketCarriesItsTransactionsBytes() {
        var (core, _, _) = Self.makeCore()
        guard case .accepted(let c, _) = core.connect() else { Issue.record("refused"); return }
        _ = core.receive(MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0,
                                                      clientName: "sized"), requestID: 1), from: c)
        let create = MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 2)
        let set = MessageEncoder.encode(.setProperty(id: 1, keyPath: "opacity", value: .number(0.5)), requestID: 3)
        let ping = MessageEncoder.encode(.ping(token: 9), requestID: 4)
        let commit = MessageEncoder.encode(.commit, requestID: 5)
        // 12-byte headers; the bodies as docs/protocol.md lays them out.
        #expect(create.count == 12 + 4 + 1)
        #expect(commit.count == 12)
        let first = Self.packets(core.receive(create + set + ping + commit, from: c))
        #expect(first.map(\.wireBytes) == [create.count + set.count + commit.count])
        let again = MessageEncoder.encode(.setProperty(id: 1, keyPath: "opacity", value: .number(1)), requestID: 6)
        let second = Self.packets(core.receive(again + MessageEncoder.encode(.commit, requestID: 7), from: c))
        #expect(second.map(\.wireBytes) == [again.count + 12])
    }
}
