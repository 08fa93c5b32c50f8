import Foundation
import LaminaServer
import LaminaWire
import Testing
import LaminaModel

/// The protocol session state machine, driven with no I/O.
@Suite struct SessionTests {
    let welcome = Event.welcome(major: 1, minor: 0, clientID: 1, display: DisplayInfo(width: 10, height: 10, scale: 1, refreshRate: 60), clock: .manual, time: 0, reduceMotion: false)

    func feed(_ session: inout Session, _ bytes: [UInt8]) -> [SessionAction] {
        var d = FrameDecoder()
        d.feed(bytes)
        var actions: [SessionAction] = []
        while session.state != .closed, let r = d.nextRequest() { actions += session.handle(r, welcome: welcome) }
        return actions
    }

    func hello() -> [UInt8] {
        MessageEncoder.encode(.hello(magic: Protocol.magic, major: Protocol.versionMajor, minor: 0, clientName: "t"), requestID: 1)
    }

    @Test func helloIsAnsweredWithWelcome() {
        var s = Session(clientID: 1, maxPendingOperations: 10)
        #expect(feed(&s, hello()) == [.send(welcome, requestID: 1)])
        #expect(s.state == .ready)
    }

    @Test func garbageBeforeHelloClosesTheConnection() {
        var s = Session(clientID: 1, maxPendingOperations: 10)
        let actions = feed(&s, Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(s.state == .closed)
        #expect(actions.count == 2)
        guard case .send(.error(_, .badHandshake, _, _), _) = actions[0], case .close = actions[1] else {
            Issue.record("expected badHandshake then close: \(actions)"); return
        }
    }

    @Test func wrongMajorVersionIsRefused() {
        var s = Session(clientID: 1, maxPendingOperations: 10)
        let actions = feed(&s, MessageEncoder.encode(.hello(magic: Protocol.magic, major: 9, minor: 0, clientName: ""), requestID: 1))
        guard case .send(.error(_, .unsupportedVersion, _, _), 1)? = actions.first else { Issue.record("\(actions)"); return }
        #expect(s.state == .closed)
    }

    @Test func layerRequestsAreStagedUntilCommit() {
        var s = Session(clientID: 4, maxPendingOperations: 10)
        var bytes = hello()
        bytes += MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 2)
        bytes += MessageEncoder.encode(.addSublayer(parent: 0, child: 1), requestID: 3)
        let actions = feed(&s, bytes)
        #expect(actions.count == 1)
        #expect(s.stagedCount == 2)
        let commit = feed(&s, MessageEncoder.encode(.commit, requestID: 4))
        #expect(commit == [.commit(Commit(client: 4, content: .operations([.create(1, .layer), .addSublayer(parent: 0, child: 1)]),
                                          requestIDs: [2, 3]), requestID: 4)])
        #expect(s.stagedCount == 0)
    }

    @Test func anUndecodableStagedRequestFailsTheCommit() {
        var s = Session(clientID: 1, maxPendingOperations: 10)
        _ = feed(&s, hello())
        var bad = MessageEncoder.encode(.createLayer(id: 1, kind: .layer), requestID: 2)
        bad[16] = 9   // an unknown layer kind
        var bytes = MessageEncoder.encode(.createLayer(id: 2, kind: .layer), requestID: 3)
        bytes = bad + bytes + MessageEncoder.encode(.commit, requestID: 4)
        let actions = feed(&s, bytes)
        #expect(actions.count == 2)
        guard case .send(.error(0x10, .malformed, _, _), 2) = actions[0],
              case .send(.error(0x20, .transactionFailed, let message, _), 4) = actions[1] else {
            Issue.record("\(actions)"); return
        }
        #expect(message.contains("request 2"))
        #expect(s.stagedCount == 0)
    }

    @Test func stagingIsLimited() {
        var s = Session(clientID: 1, maxPendingOperations: 2)
        _ = feed(&s, hello())
        var bytes: [UInt8] = []
        for i in 0..<3 { bytes += MessageEncoder.encode(.createLayer(id: UInt32(i + 1), kind: .layer), requestID: UInt32(i + 2)) }
        let actions = feed(&s, bytes)
        guard case .send(.error(_, .limitExceeded, _, _), 4)? = actions.first else { Issue.record("\(actions)"); return }
    }

    @Test func errorsAfterHandshakeKeepTheConnection() {
        var s = Session(clientID: 1, maxPendingOperations: 10)
        _ = feed(&s, hello())
        var w = MessageEncoder.encode(.ping(token: 1), requestID: 2)
        w[4] = 0x66
        let actions = feed(&s, w + MessageEncoder.encode(.ping(token: 5), requestID: 3))
        #expect(s.state == .ready)
        #expect(actions.last == .send(.pong(token: 5), requestID: 3))
    }
}

@Suite struct DaemonConfigTests {
    func write(_ json: String) -> String {
        let path = NSTemporaryDirectory() + "laminad-\(UInt32.random(in: 0...UInt32.max)).json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        return path
    }

    @Test func theShippedConfigHoldsTheDefaults() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/laminad.json")
        #expect(try DaemonConfig.load(path: url.path) == DaemonConfig())
    }

    @Test func valuesAreTypeChecked() throws {
        let c = try DaemonConfig.load(path: write(#"{"scale": 2, "fps": 60, "size": "640x480", "headless": true, "clock": "manual"}"#))
        #expect(c.scale == 2 && c.fps == 60 && c.width == 640 && c.height == 480 && c.clock == "manual")
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.load(path: write(#"{"scale": true}"#)) }
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.load(path: write(#"{"headless": 1}"#)) }
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.load(path: write(#"{"frobnicate": 1}"#)) }
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.load(path: write(#"{"size": "0x10"}"#)) }
    }
}
